/* s_shape_split.c: ops returning a Tensor[] of pieces: split,
 * split_with_sizes (and unsafe_ forms), tensor_split, chunk, unbind.
 * The list is bound as a pack, which prim::ListUnpack then reads. */
#include <limits.h>

#include "s_control.h" /* a split known only at run time may stay a list */
#include "s_shape_util.h"

/* Each piece is a node output (unbind: a Gather each); counts come from
 * the IR and can be any int64, so beyond this the export refuses rather
 * than allocating and looping over them. */
#define MAX_PIECES 65536

/* Pieces of x along axis with the given sizes: Split when every size is
 * known, else Slices (the last piece open-ended). */
static oxp_status emit_pieces(oxp_sctx *c, oxp_node *n, oxp_value *x,
                              int64_t axis, const int64_t *sizes, int k,
                              bool last_open) {
  if (k <= 0) return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: no pieces", n->kind);
  oxp_value **outs = oxp_alloc(oxp_sym_arena(c), sizeof *outs * (size_t)(k + 1));
  if (!outs) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  if (!last_open) {
    if (!oxp_sx_split(c, x, axis, sizes, k, outs)) return oxp_sym_status(c);
  } else {
    int64_t at = 0;
    for (int i = 0; i < k; i++) {
      int64_t end = i == k - 1 ? INT64_MAX : at + sizes[i];
      outs[i] = oxp_sym_slice(c, x, &axis, &at, &end, NULL, 1);
      at = end;
    }
  }
  int r = oxp_sym_rank(x);
  for (int i = 0; i < k && r >= 0 && r <= OXP_MAX_STATIC_RANK; i++) {
    int64_t d[OXP_MAX_STATIC_RANK];
    for (int j = 0; j < r; j++) d[j] = x->type->dims[j];
    d[axis] = last_open && i == k - 1 ? -1 : sizes[i];
    oxp_sym_set_type(c, outs[i], oxp_sym_dtype(x), r, d);
  }
  return oxp_sx_set_list(c, n, 0, outs, k);
}

/* Even pieces of size s (the last shorter) of a dim of size d, or of
 * unknown size when d < 0 and the piece count comes from the unpack. */
static oxp_status even_split(oxp_sctx *c, oxp_node *n, oxp_value *x,
                             int64_t axis, int64_t s) {
  int64_t d = oxp_sx_dim(x, (int)axis);
  int k;
  if (s <= 0) return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: split size must be positive", n->kind);
  if (d >= 0 && (d == 0 ? 1 : (d - 1) / s + 1) > MAX_PIECES)
    return oxp_sym_unsupported(c, "splitting into more than 65536 pieces");
  if (d >= 0) k = d == 0 ? 1 : (int)((d - 1) / s + 1);
  else if ((k = oxp_sx_list_len(n, 0)) < 0)
    return oxp_sym_unsupported(c, "splitting a dim of unknown size into a list of unknown length");
  int64_t *sizes = oxp_alloc(oxp_sym_arena(c), sizeof *sizes * (size_t)(k + 1));
  if (!sizes) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  for (int i = 0; i < k; i++) sizes[i] = d >= 0 && i == k - 1 ? d - s * i : s;
  return emit_pieces(c, n, x, axis, sizes, k, d < 0);
}

/* Pieces of x along axis by split (1-D sizes, or a 0-d size: even pieces,
 * the last shorter) known only at run time: Split with the sizes as an
 * input from opset 13 when their count is known, else SplitToSequence
 * (11+), whose pieces the unpack reads, or which stays a list. */
static oxp_status runtime_pieces(oxp_sctx *c, oxp_node *n, oxp_value *x,
                                 int64_t axis, oxp_value *split, int k) {
  if (oxp_sym_opset(c) < 11)
    return oxp_sym_runtime_arg(c, n, 1, "ONNX Split takes the sizes as an "
                               "attribute before opset 13 (SplitToSequence "
                               "from 11 takes them at run time)");
  int r = oxp_sym_rank(x);
  int64_t d[OXP_MAX_STATIC_RANK];
  for (int j = 0; j < r && r <= OXP_MAX_STATIC_RANK; j++) d[j] = j == axis ? -1 : x->type->dims[j];
  int unpack = oxp_sx_list_len(n, 0);
  oxp_value **outs = NULL;
  if (unpack >= 0 && k >= 0 && unpack != k)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: %d sizes unpacked into %d pieces",
                        n->kind, k, unpack);
  if (k < 0) k = unpack;
  if (k > MAX_PIECES) return oxp_sym_unsupported(c, "splitting into more than 65536 pieces");
  if (k >= 0 && !(outs = oxp_alloc(oxp_sym_arena(c), sizeof *outs * (size_t)(k + 1))))
    return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  if (oxp_sym_opset(c) >= 13 && k >= 0 && oxp_sym_rank(split) == 1) {
    oxp_node *sp = oxp_sym_op(c, "Split", (oxp_value *[]){x, split}, 2, k);
    if (!sp) return oxp_sym_status(c);
    oxp_attr_set_i(sp, "axis", axis);
    for (int i = 0; i < k; i++) outs[i] = sp->outputs[i];
  } else {
    oxp_node *sp = oxp_sym_op(c, "SplitToSequence", (oxp_value *[]){x, split}, 2, 1);
    if (!sp) return oxp_sym_status(c);
    oxp_attr_set_i(sp, "axis", axis);
    oxp_value *seq = sp->outputs[0];
    seq->type = oxp_type_new(oxp_sym_arena(c), OXP_T_SEQUENCE);
    if (seq->type) seq->type->elem = oxp_type_tensor(oxp_sym_arena(c), oxp_sym_dtype(x), r, NULL);
    if (k < 0) {
      oxp_seq_rebind(c, n->outputs[0], seq);
      return OXP_OK;
    }
    for (int i = 0; i < k; i++)
      outs[i] = oxp_sym_op2(c, "SequenceAt", seq, oxp_sym_const_i64(c, i));
  }
  for (int i = 0; i < k && r >= 0 && r <= OXP_MAX_STATIC_RANK; i++)
    oxp_sym_set_type(c, outs[i], oxp_sym_dtype(x), r, d);
  return oxp_sx_set_list(c, n, 0, outs, k);
}

/* split(x, split_size_or_sizes, dim) and split_with_sizes(x, sizes, dim):
 * sizes may be computed from shapes (RAFT splits by x.size(1) // 2). */
oxp_status oxp_s_split(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t axis = 0;
  if (!x) return oxp_sym_status(c);
  if (n->ninputs > 2 && !oxp_sx_axis_arg(c, n, 2, oxp_sym_rank(x), &axis)) return oxp_sym_status(c);
  const oxp_type *t = oxp_sym_in_type(n, 1);
  int64_t s;
  if (t && t->kind == OXP_T_INT) {
    if (oxp_sym_int(n, 1, &s)) return even_split(c, n, x, axis, s);
    oxp_value *sz = oxp_sym_in_as(c, n, 1, OXP_DT_INT64);
    return sz ? runtime_pieces(c, n, x, axis, sz, -1) : oxp_sym_status(c);
  }
  oxp_ilist l;
  if (!oxp_sym_ilist(c, n, 1, &l)) return oxp_sym_status(c);
  if (l.known) return emit_pieces(c, n, x, axis, l.v, l.n, false);
  return runtime_pieces(c, n, x, axis, l.t, l.n);
}

/* chunk of a dim d known only at run time (RAFT's torch.chunk of its two
 * images' features on a dynamic batch) into the k pieces its unpack
 * reads: k - 1 pieces of s = ceil(d / chunks), then d - s * (k - 1), as
 * the legacy exporter's chunk (which takes k = chunks; the unpack's count
 * is the traced one, so also right where the trace gave fewer pieces).
 * Like every traced unpack, the count stays the traced one: at a size
 * where torch would give another count (chunk(4) of 6 gives 3 pieces, of
 * 4 gives 4) the pieces differ from eager torch's, as in torch's export;
 * a negative last size makes Split fail at run time. */
static oxp_status runtime_chunk(oxp_sctx *c, oxp_node *n, oxp_value *x,
                                int64_t axis, int64_t chunks) {
  int k = oxp_sx_list_len(n, 0);
  if (k < 0)
    return oxp_sym_unsupported(c, "chunk of a dim of unknown size into a list of unknown length");
  if (k > chunks)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "chunk: %d pieces unpacked from %lld chunks", k,
                        (long long)chunks);
  if (oxp_sym_opset(c) < 11)
    return oxp_sym_unsupported(c, "chunk of a dim of unknown size before opset 11 (ONNX Split "
                               "takes the sizes as an attribute; SplitToSequence from 11 takes them at run time)");
  if (k == 1) return oxp_sx_set_list(c, n, 0, &x, 1);
  oxp_value *d = oxp_sx_gather(c, oxp_sx_shape(c, x), oxp_sym_const_i64s(c, &axis, 1), 0);
  int64_t cm1 = chunks - 1, km1 = k - 1;
  oxp_value *s = oxp_sym_op2(c, "Div", oxp_sym_op2(c, "Add", d, oxp_sym_const_i64s(c, &cm1, 1)),
                             oxp_sym_const_i64s(c, &chunks, 1));
  oxp_value *head = oxp_sym_op2(c, "Expand", s, oxp_sym_const_i64s(c, &km1, 1));
  oxp_value *last = oxp_sym_op2(c, "Sub", d, oxp_sym_op2(c, "Mul", s, oxp_sym_const_i64s(c, &km1, 1)));
  if (!last || !head) return oxp_sym_status(c);
  oxp_value *sizes = oxp_sx_concat(c, (oxp_value *[]){head, last}, 2, 0);
  if (!sizes) return oxp_sym_status(c);
  int64_t k64 = k;
  oxp_sym_set_type(c, sizes, OXP_DT_INT64, 1, &k64);
  return runtime_pieces(c, n, x, axis, sizes, k);
}

/* chunk(x, chunks, dim): pieces of ceil(d / chunks). */
oxp_status oxp_s_chunk(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t chunks, axis;
  if (!x || !oxp_sym_need_int(c, n, 1, &chunks) ||
      !oxp_sx_axis_arg(c, n, 2, oxp_sym_rank(x), &axis))
    return oxp_sym_status(c);
  if (chunks <= 0) return oxp_sym_fail(c, OXP_ERR_GRAPH, "chunk: chunks must be positive");
  int64_t d = oxp_sx_dim(x, (int)axis);
  if (d < 0) return runtime_chunk(c, n, x, axis, chunks);
  return even_split(c, n, x, axis, d == 0 ? 1 : (d - 1) / chunks + 1);
}

/* tensor_split(x, sections | indices, dim): sections n gives d % n pieces
 * of d / n + 1 then the rest of d / n; indices are cut points. */
oxp_status oxp_s_tensor_split(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t axis, *v;
  int k;
  if (!x || !oxp_sx_axis_arg(c, n, 2, oxp_sym_rank(x), &axis)) return oxp_sym_status(c);
  const oxp_type *t = oxp_sym_in_type(n, 1);
  int64_t d = oxp_sx_dim(x, (int)axis);
  if (t && t->kind == OXP_T_INT) {
    int64_t sec;
    if (!oxp_sym_need_int(c, n, 1, &sec)) return oxp_sym_status(c);
    if (d < 0) return oxp_sym_unsupported(c, "tensor_split into sections of a dim of unknown size");
    if (sec <= 0) return oxp_sym_fail(c, OXP_ERR_GRAPH, "tensor_split: sections must be positive");
    if (sec > MAX_PIECES) return oxp_sym_unsupported(c, "tensor_split into more than 65536 sections");
    int64_t *sizes = oxp_alloc(oxp_sym_arena(c), sizeof *sizes * (size_t)(sec + 1));
    if (!sizes) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < sec; i++) sizes[i] = d / sec + (i < d % sec);
    return emit_pieces(c, n, x, axis, sizes, (int)sec, false);
  }
  if (!oxp_sym_ints(c, n, 1, &v, &k))
    return oxp_sym_unsupported(c, "tensor_split with runtime indices");
  /* Cut points, clamped into [0, d] as Python slicing does. */
  oxp_value **outs = oxp_alloc(oxp_sym_arena(c), sizeof *outs * (size_t)(k + 2));
  if (!outs) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  int64_t prev = 0;
  for (int i = 0; i <= k; i++) {
    int64_t end = i < k ? v[i] : INT64_MAX;
    if (end < prev && i < k) end = prev;
    outs[i] = oxp_sym_slice(c, x, &axis, &prev, &end, NULL, 1);
    prev = end;
  }
  return oxp_sx_set_list(c, n, 0, outs, k + 1);
}

/* unbind(x, dim): one Gather per index (drops the dim). */
oxp_status oxp_s_unbind(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t axis = 0;
  if (!x) return oxp_sym_status(c);
  if (n->ninputs > 1 && !oxp_sx_axis_arg(c, n, 1, oxp_sym_rank(x), &axis)) return oxp_sym_status(c);
  int64_t d = oxp_sx_dim(x, (int)axis);
  if (d < 0 && (d = oxp_sx_list_len(n, 0)) < 0)
    return oxp_sym_unsupported(c, "unbind of a dim of unknown size into a list of unknown length");
  if (d > MAX_PIECES) return oxp_sym_unsupported(c, "unbind into more than 65536 pieces");
  oxp_value **outs = oxp_alloc(oxp_sym_arena(c), sizeof *outs * (size_t)(d + 1));
  if (!outs) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  for (int64_t i = 0; i < d; i++) outs[i] = oxp_sx_gather(c, x, oxp_sym_const_i64(c, i), axis);
  return oxp_sx_set_list(c, n, 0, outs, (int)d);
}
