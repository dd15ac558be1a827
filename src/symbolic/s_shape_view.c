/* s_shape_view.c: layout ops that only rearrange or broadcast (reshape_as,
 * movedim, expand, broadcast_tensors, stack, as_strided of dense storage),
 * and shape queries (dim, numel, _shape_as_tensor). */
#include <string.h>

#include "s_control.h"
#include "s_shape_util.h"

/* reshape_as / view_as(x, other) = Reshape(x, Shape(other)). */
/* Reshape to another tensor's shape: a 0 in that shape is a size, not
 * "copy this dim" (allowzero, from opset 14). */
oxp_status oxp_s_reshape_as(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  oxp_value *o = x ? oxp_sym_in(c, n, 1) : NULL;
  int64_t dx[OXP_MAX_STATIC_RANK], dov[OXP_MAX_STATIC_RANK];
  int rx, ro;
  if (o && oxp_sx_dims(x, dx, &rx) && oxp_sx_dims(o, dov, &ro) && rx == ro &&
      memcmp(dx, dov, sizeof *dx * (size_t)rx) == 0)
    return oxp_sym_set_out(c, n, 0, x); /* already that shape */
  oxp_value *s = o ? oxp_sx_shape(c, o) : NULL;
  oxp_node *k = s ? oxp_sym_op(c, "Reshape", (oxp_value *[]){x, s}, 2, 1) : NULL;
  if (!k) return oxp_sym_status(c);
  int64_t d[OXP_MAX_STATIC_RANK];
  int r;
  bool known = oxp_sx_dims(o, d, &r), zero = false;
  for (int i = 0; known && i < r; i++) zero |= d[i] == 0;
  if ((zero || !known) && oxp_sym_opset(c) >= 14) oxp_attr_set_i(k, "allowzero", 1);
  else if (zero)
    return oxp_sym_unsupported(c, "a reshape to a shape with a 0 dim below opset 14");
  return oxp_sym_set_out(c, n, 0, k->outputs[0]);
}

/* _reshape_from_tensor(x, shape): torch's 0 is a size 0 (and -1 beside a
 * 0 an error), Reshape's allowzero=1 from opset 14. Below 14 Reshape reads
 * 0 as "copy this dim": a shape known statically without 0 is exact; one with a 0
 * (and no -1) of an input statically empty is a ConstantOfShape, as no
 * element is moved; otherwise a named error, as for a shape known only at
 * run time, which may hold 0. */
oxp_status oxp_s_reshape_from_tensor(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  oxp_value *s = x ? oxp_sym_in_as(c, n, 1, OXP_DT_INT64) : NULL;
  if (!s) return oxp_sym_status(c);
  if (oxp_sym_opset(c) < 14) {
    oxp_ilist l;
    if (!oxp_sym_ilist(c, n, 1, &l)) return oxp_sym_status(c);
    if (!l.known)
      return oxp_sym_unsupported(c, "_reshape_from_tensor to a shape known only at run "
                                 "time below opset 14 (a 0 in it would copy the input's dim)");
    if (!(s = oxp_sym_ilist_tensor(c, &l))) return oxp_sym_status(c);
    bool zero = false, infer = false;
    for (int i = 0; i < l.n; i++) {
      zero |= l.v[i] == 0;
      infer |= l.v[i] < 0;
    }
    if (zero) {
      int64_t d[OXP_MAX_STATIC_RANK], numel = 1;
      int r;
      bool empty = oxp_sx_dims(x, d, &r);
      for (int i = 0; empty && i < r; i++) numel *= d[i];
      if (!empty || numel != 0 || infer)
        return oxp_sym_unsupported(c, "_reshape_from_tensor to a shape with a 0 below opset "
                                   "14, of an input not statically empty or with a -1");
      return oxp_sym_set_out(c, n, 0, oxp_sx_fill(c, s, 0, oxp_sym_dtype(x)));
    }
    return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Reshape", x, s));
  }
  oxp_node *k = oxp_sym_op(c, "Reshape", (oxp_value *[]){x, s}, 2, 1);
  if (!k) return oxp_sym_status(c);
  oxp_attr_set_i(k, "allowzero", 1);
  return oxp_sym_set_out(c, n, 0, k->outputs[0]);
}

oxp_status oxp_s_shape_as_tensor(oxp_sctx *c, oxp_node *n) {
  return oxp_sym_set_out(c, n, 0, oxp_sx_shape(c, oxp_sym_in(c, n, 0)));
}

/* x.T reverses every dim. */
oxp_status oxp_s_numpy_t(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int r = oxp_sym_rank(x);
  if (!x) return oxp_sym_status(c);
  if (r < 0) return oxp_sym_unsupported(c, "numpy_T of a tensor of unknown rank");
  if (r < 2) return oxp_sym_set_out(c, n, 0, x);
  int64_t perm[OXP_MAX_STATIC_RANK];
  for (int i = 0; i < r; i++) perm[i] = r - 1 - i;
  return oxp_sym_set_out(c, n, 0, oxp_sx_transpose(c, x, perm, r));
}

/* movedim(x, source, destination): ints or int lists, as torch.movedim
 * places the moved dims and keeps the others in order. */
oxp_status oxp_s_movedim(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t *src, *dst;
  int ns, nd;
  if (!x || !oxp_sym_need_ints(c, n, 1, &src, &ns) ||
      !oxp_sym_need_ints(c, n, 2, &dst, &nd))
    return oxp_sym_status(c);
  int r = oxp_sym_rank(x);
  if (r < 0 || r > OXP_MAX_STATIC_RANK)
    return oxp_sym_unsupported(c, "movedim of a tensor of unknown rank");
  if (ns != nd) return oxp_sym_fail(c, OXP_ERR_GRAPH, "movedim: source and destination differ in length");
  int64_t perm[OXP_MAX_STATIC_RANK];
  bool src_used[OXP_MAX_STATIC_RANK] = {0}, dst_used[OXP_MAX_STATIC_RANK] = {0};
  for (int i = 0; i < ns; i++) {
    int64_t s, d;
    if (!oxp_sym_axis(src[i], r, &s) || !oxp_sym_axis(dst[i], r, &d))
      return oxp_sym_fail(c, OXP_ERR_GRAPH, "movedim: dim out of range");
    perm[d] = s;
    src_used[s] = dst_used[d] = true;
  }
  int k = 0;
  for (int d = 0; d < r; d++) {
    if (dst_used[d]) continue;
    while (src_used[k]) k++;
    perm[d] = k++;
  }
  return oxp_sym_set_out(c, n, 0, oxp_sx_transpose(c, x, perm, r));
}

/* expand(x, size, implicit): -1 keeps a dim. Expand broadcasts both ways,
 * so a 1 in the target shape keeps the input's dim exactly like -1. */
oxp_status oxp_s_expand(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  oxp_ilist l;
  oxp_value *s;
  if (!oxp_sym_ilist(c, n, 1, &l)) return oxp_sym_status(c);
  if (l.known) {
    int64_t *size = oxp_alloc(oxp_sym_arena(c), sizeof *size * (size_t)(l.n + 1));
    if (!size) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    for (int i = 0; i < l.n; i++) size[i] = l.v[i] == -1 ? 1 : l.v[i];
    s = oxp_sym_const_i64s(c, size, l.n);
  } else {
    /* -1 keeps the dim, as 1 does; sizes are not negative; other
     * negatives are torch's error: so Abs is exact */
    s = oxp_sym_op1(c, "Abs", l.t);
  }
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Expand", x, s));
}

oxp_status oxp_s_expand_as(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  oxp_value *o = x ? oxp_sym_in(c, n, 1) : NULL;
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Expand", x, oxp_sx_shape(c, o)));
}

/* broadcast_tensors(list): each expanded to the common shape, constant
 * when every shape is static, else the shape of a zero tensor expanded
 * by each input in turn. */
oxp_status oxp_s_broadcast_tensors(oxp_sctx *c, oxp_node *n) {
  oxp_value **v;
  int cnt;
  if (!oxp_sym_in_list(c, n, 0, &v, &cnt)) return oxp_sym_status(c);
  int64_t out[OXP_MAX_STATIC_RANK];
  int orank = 0;
  bool stat = true;
  for (int i = 0; i < cnt && stat; i++) {
    int64_t d[OXP_MAX_STATIC_RANK];
    int r;
    if (!oxp_sx_dims(v[i], d, &r)) { stat = false; break; }
    /* Right-aligned merge into out. */
    int nr = r > orank ? r : orank;
    int64_t m[OXP_MAX_STATIC_RANK];
    for (int k = 0; k < nr; k++) {
      int a = k - (nr - orank), b = k - (nr - r);
      int64_t da = a >= 0 ? out[a] : 1, db = b >= 0 ? d[b] : 1;
      m[k] = da == 1 ? db : da;
    }
    for (int k = 0; k < nr; k++) out[k] = m[k];
    orank = nr;
  }
  oxp_value *shape;
  if (stat) {
    shape = oxp_sym_const_i64s(c, out, orank);
  } else {
    oxp_value *t = oxp_sx_fill(c, oxp_sx_shape(c, v[0]), 0, OXP_DT_FLOAT);
    for (int i = 1; i < cnt; i++) t = oxp_sym_op2(c, "Expand", t, oxp_sx_shape(c, v[i]));
    shape = oxp_sx_shape(c, t);
  }
  oxp_value **res = oxp_alloc(oxp_sym_arena(c), sizeof *res * (size_t)(cnt + 1));
  if (!res) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  for (int i = 0; i < cnt; i++) {
    res[i] = oxp_sym_op2(c, "Expand", v[i], shape);
    if (stat && res[i]) oxp_sym_set_type(c, res[i], oxp_sym_dtype(v[i]), orank, out);
  }
  return oxp_sx_set_list(c, n, 0, res, cnt);
}

/* stack(list, dim): Unsqueeze each at dim, then Concat. */
oxp_status oxp_s_stack(oxp_sctx *c, oxp_node *n) {
  /* A list that is an ONNX sequence at run time (s_seq.c). */
  oxp_value *seq = n->ninputs ? oxp_seq_bound(c, n->inputs[0]) : NULL;
  if (seq) return oxp_seq_concat(c, n, seq, true);
  oxp_value **v;
  int cnt;
  int64_t dim;
  if (!oxp_sym_in_list(c, n, 0, &v, &cnt) || !oxp_sym_need_int(c, n, 1, &dim))
    return oxp_sym_status(c);
  int r = cnt ? oxp_sym_rank(v[0]) : -1;
  if (dim < 0) {
    if (r < 0) return oxp_sym_unsupported(c, "stack along a negative dim of unknown rank");
    dim += r + 1;
  }
  /* An untyped (scripted) result: the elements' promoted dtype. */
  int dt = oxp_sym_out_dtype(n, 0, 0);
  if (!dt) dt = oxp_sx_list_dtype(v, cnt);
  oxp_value **u = oxp_alloc(oxp_sym_arena(c), sizeof *u * (size_t)(cnt + 1));
  if (!u) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  for (int i = 0; i < cnt; i++) {
    oxp_value *e = v[i];
    if (dt && oxp_sym_dtype(e) && oxp_sym_dtype(e) != dt) e = oxp_sym_cast(c, e, dt);
    u[i] = oxp_sym_unsqueeze(c, e, &dim, 1);
  }
  return oxp_sym_set_out(c, n, 0, oxp_sx_concat(c, u, cnt, dim));
}

/* aten::dim(x): the rank, known from the traced type. */
oxp_status oxp_s_dim(oxp_sctx *c, oxp_node *n) {
  const oxp_type *t = oxp_sym_in_type(n, 0);
  oxp_value *x = oxp_sym_in(c, n, 0);
  int r = oxp_sym_rank(x);
  if (r < 0 && t && t->kind == OXP_T_TENSOR) r = t->rank;
  if (!x) return oxp_sym_status(c);
  if (r < 0) return oxp_sym_unsupported(c, "dim() of a tensor of unknown rank");
  return oxp_sym_set_out(c, n, 0, oxp_sym_const_i64(c, r));
}

/* aten::numel(x) = Size(x), a 0-d int64. */
oxp_status oxp_s_numel(oxp_sctx *c, oxp_node *n) {
  oxp_value *s = oxp_sym_op1(c, "Size", oxp_sym_in(c, n, 0));
  oxp_sym_set_type(c, s, OXP_DT_INT64, 0, NULL);
  return oxp_sym_set_out(c, n, 0, s);
}

/* as_strided(x, size, stride[, storage_offset]) reads x's storage, which
 * the IR does not describe (onnxexp keeps no strides). The storage is
 * known only for tensors that are dense by construction: graph inputs and
 * weights (ONNX feeds them dense), constants and aten::contiguous results;
 * for those the read is a Gather of constant flat indices, as torch's
 * exporter does (which assumes every input is dense). Anything else, and
 * runtime sizes or strides, is refused rather than guessed. */
static bool dense_storage(const oxp_value *v) {
  /* alias, lift and detach return their input's storage and strides. */
  while (v->producer && (oxp_kind_is(v->producer, "aten::alias") ||
                         oxp_kind_is(v->producer, "aten::lift") ||
                         oxp_kind_is(v->producer, "aten::detach")))
    v = v->producer->inputs[0];
  if (!v->producer) return v->owner && !v->owner->owner;
  return oxp_kind_is(v->producer, "prim::Constant") ||
         oxp_kind_is(v->producer, "aten::contiguous");
}

oxp_status oxp_s_as_strided(oxp_sctx *c, oxp_node *n) {
  int64_t *size, *stride, off = 0;
  int ns, nt;
  if (!oxp_sym_need_ints(c, n, 1, &size, &ns) ||
      !oxp_sym_need_ints(c, n, 2, &stride, &nt))
    return oxp_sym_status(c);
  if (ns != nt || ns > OXP_MAX_STATIC_RANK)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "as_strided: size and stride differ in length");
  if (n->ninputs > 3 && !oxp_sym_is_none(n, 3) && !oxp_sym_need_int(c, n, 3, &off))
    return oxp_sym_status(c);
  if (!dense_storage(oxp_sym_src(n, 0)))
    return oxp_sym_unsupported(c, "as_strided of a view or computed tensor "
                                  "(its memory layout is not known at export)");
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int64_t count = 1;
  for (int i = 0; i < ns; i++) {
    if (size[i] < 0 || stride[i] < 0)
      return oxp_sym_fail(c, OXP_ERR_GRAPH, "as_strided: negative size or stride");
    count *= size[i];
  }
  oxp_tensor *t = oxp_tensor_alloc(oxp_sym_arena(c), OXP_DT_INT64, ns, size);
  if (!t) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  int64_t *ind = (int64_t *)t->data, numel = 1, dims[OXP_MAX_STATIC_RANK];
  int r;
  bool known = oxp_sx_dims(x, dims, &r);
  for (int i = 0; known && i < r; i++) numel *= dims[i];
  /* Row-major walk over size: the flat index of each element. */
  for (int64_t e = 0; e < count; e++) {
    int64_t rem = e, at = off;
    for (int i = ns - 1; i >= 0; i--) {
      at += rem % size[i] * stride[i];
      rem /= size[i];
    }
    if (known && at >= numel)
      return oxp_sym_fail(c, OXP_ERR_GRAPH,
                          "as_strided: element %lld is outside the input's %lld elements",
                          (long long)at, (long long)numel);
    ind[e] = at;
  }
  oxp_value *flat = oxp_sx_reshape(c, x, (int64_t[]){-1}, 1);
  return oxp_sym_set_out(c, n, 0, oxp_sx_gather(c, flat, oxp_sym_const(c, t), 0));
}
