/* s_shape.c: shape and layout ops, and indexing by slice/select. */
#include <limits.h>
#include <string.h>

#include "ops.h"
#include "s_control.h"
#include "s_shape_util.h"

static oxp_value *transpose(oxp_sctx *c, oxp_value *x, const int64_t *perm,
                            int r) {
  oxp_node *t = x ? oxp_sym_op(c, "Transpose", &x, 1, 1) : NULL;
  if (!t) return NULL;
  oxp_attr_set_ints(t, "perm", perm, r);
  return t->outputs[0];
}

/* flatten(x, start, end). Flatten(axis=1) is the common 2-D case; any
 * other range reshapes to [shape[:start], -1, shape[end+1:]] computed at
 * run time so dynamic dims stay dynamic. */
oxp_status oxp_s_flatten(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t start, end;
  if (!x || !oxp_sym_need_int(c, n, 1, &start) || !oxp_sym_need_int(c, n, 2, &end))
    return oxp_sym_status(c);
  int r = oxp_sym_rank(x);
  if (r < 0 && start >= 0 && end == -1) {
    /* Rank unknown, flattening to the end: [shape[:start], -1] needs no
     * rank. */
    static const int64_t z = 0, m1 = -1;
    oxp_value *parts[2], *shape = oxp_sym_op1(c, "Shape", x);
    int np = 0;
    if (start > 0) parts[np++] = oxp_sym_slice(c, shape, &z, &z, &start, NULL, 1);
    parts[np++] = oxp_sym_const_i64s(c, &m1, 1);
    oxp_node *cat = np > 1 ? oxp_sym_op(c, "Concat", parts, np, 1) : NULL;
    if (cat) oxp_attr_set_i(cat, "axis", 0);
    oxp_value *s = np > 1 ? (cat ? cat->outputs[0] : NULL) : parts[0];
    return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Reshape", x, s));
  }
  if (r < 0) return oxp_sym_unsupported(c, "flatten of a tensor of unknown rank");
  if (r == 0) {
    static const int64_t one = 1;
    return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Reshape", x,
                                                oxp_sym_const_i64s(c, &one, 1)));
  }
  if (!oxp_sym_axis(start, r, &start) || !oxp_sym_axis(end, r, &end))
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "flatten: dims out of range");
  if (start == end) return oxp_sym_set_out(c, n, 0, x);
  if (end == r - 1 && start == 1) {
    oxp_node *f = oxp_sym_op(c, "Flatten", &x, 1, 1);
    if (!f) return oxp_sym_status(c);
    oxp_attr_set_i(f, "axis", 1);
    return oxp_sym_set_out(c, n, 0, f->outputs[0]);
  }
  /* An empty x: a -1 has no element count to come from, and a 0 after
   * the merged dims would copy another of x's dims; so static sizes. */
  int64_t d[OXP_MAX_STATIC_RANK];
  int rd;
  bool fixed = r <= OXP_MAX_STATIC_RANK && oxp_sx_dims(x, d, &rd) && rd == r;
  bool empty = false;
  for (int i = 0; fixed && i < r; i++) empty |= d[i] == 0;
  if (empty) {
    int64_t out[OXP_MAX_STATIC_RANK];
    int k = 0;
    for (int i = 0; i < r; i++) {
      if (i <= start || i > end) out[k++] = d[i];
      else out[k - 1] *= d[i];
    }
    return oxp_sym_set_out(c, n, 0, oxp_sym_reshape_dims(c, x, out, k));
  }
  oxp_value *parts[3];
  int np = 0;
  oxp_value *shape = oxp_sym_op1(c, "Shape", x);
  static const int64_t zero = 0, minus1 = -1, big = INT64_MAX;
  if (start > 0)
    parts[np++] = oxp_sym_slice(c, shape, &zero, &zero, &start, NULL, 1);
  if (!fixed && oxp_sym_opset(c) >= 14) {
    /* the merged size as a product, so allowzero can keep a run-time 0 */
    int64_t to = end + 1;
    oxp_value *mid = oxp_sym_slice(c, shape, &zero, &start, &to, NULL, 1);
    parts[np++] = oxp_sym_reduce(c, "ReduceProd", mid, &zero, 1, true);
  } else
    parts[np++] = oxp_sym_const_i64s(c, &minus1, 1);
  if (end < r - 1) {
    int64_t from = end + 1;
    parts[np++] = oxp_sym_slice(c, shape, &zero, &from, &big, NULL, 1);
  }
  oxp_node *cat = oxp_sym_op(c, "Concat", parts, np, 1);
  if (!cat) return oxp_sym_status(c);
  oxp_attr_set_i(cat, "axis", 0);
  return oxp_sym_set_out(c, n, 0, oxp_sym_reshape_sizes(
                                      c, x, cat->outputs[0],
                                      fixed ? OXP_ZERO_NONE : OXP_ZERO_MAYBE));
}

/* reshape / view(x, shape): the shape list may mix constants and sizes
 * read at run time (sym_ilist.c builds it as one int64 tensor). */
oxp_status oxp_s_reshape(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  oxp_ilist l;
  if (!x || !oxp_sym_ilist(c, n, 1, &l)) return oxp_sym_status(c);
  /* torch's 0 is a size, ONNX's copies the input's dim; a size read at
   * run time may be 0 (beside a -1 torch refuses a 0: no element count
   * says what the -1 is). */
  bool sure = false, runtime = l.n < 0, minus1 = false;
  for (int i = 0; i < l.n; i++) {
    sure |= l.v[i] == 0;
    runtime |= l.v[i] == OXP_ILIST_RUNTIME;
    minus1 |= l.v[i] == -1;
  }
  int zero = sure ? OXP_ZERO_SURE : runtime && !minus1 ? OXP_ZERO_MAYBE : OXP_ZERO_NONE;
  oxp_value *y = oxp_sym_reshape_sizes(c, x, oxp_sym_ilist_tensor(c, &l), zero);
  /* Scripted IR types the result as a bare `Tensor`: keep x's dtype (and
   * the rank the shape's length gives) for the ops that read it. */
  if (y && oxp_sym_dtype(x)) oxp_sym_set_type(c, y, oxp_sym_dtype(x), l.n, NULL);
  return oxp_sym_set_out(c, n, 0, y);
}

oxp_status oxp_s_permute(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t *perm;
  int k;
  if (!x || !oxp_sym_need_ints(c, n, 1, &perm, &k)) return oxp_sym_status(c);
  for (int i = 0; i < k; i++)
    if (perm[i] < 0) perm[i] += k;
  return oxp_sym_set_out(c, n, 0, transpose(c, x, perm, k));
}

oxp_status oxp_s_transpose(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t a, b;
  if (!x || !oxp_sym_need_int(c, n, 1, &a) || !oxp_sym_need_int(c, n, 2, &b))
    return oxp_sym_status(c);
  int r = oxp_sym_rank(x);
  if (r < 0) return oxp_sym_unsupported(c, "transpose of a tensor of unknown rank");
  if (r == 0) return oxp_sym_set_out(c, n, 0, x);
  if (!oxp_sym_axis(a, r, &a) || !oxp_sym_axis(b, r, &b))
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "transpose: dims out of range");
  if (a == b) return oxp_sym_set_out(c, n, 0, x);
  if (r > 16) return oxp_sym_unsupported(c, "transpose of a tensor of rank above 16");
  int64_t perm[16];
  for (int i = 0; i < r; i++) perm[i] = i;
  perm[a] = b;
  perm[b] = a;
  return oxp_sym_set_out(c, n, 0, transpose(c, x, perm, r));
}

oxp_status oxp_s_t(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int r = oxp_sym_rank(x);
  if (r < 2) return oxp_sym_set_out(c, n, 0, x);
  static const int64_t perm[2] = {1, 0};
  return oxp_sym_set_out(c, n, 0, transpose(c, x, perm, 2));
}

oxp_status oxp_s_cat(oxp_sctx *c, oxp_node *n) {
  /* A list that is an ONNX sequence at run time (s_seq.c). */
  oxp_value *seq = n->ninputs ? oxp_seq_bound(c, n->inputs[0]) : NULL;
  if (seq) return oxp_seq_concat(c, n, seq, false);
  oxp_value **vals;
  int cnt;
  int64_t dim;
  if (!oxp_sym_in_list(c, n, 0, &vals, &cnt) || !oxp_sym_need_int(c, n, 1, &dim))
    return oxp_sym_status(c);
  /* An untyped (scripted) result: the elements' promoted dtype. */
  int dt = oxp_sym_out_dtype(n, 0, 0);
  if (!dt) dt = oxp_sx_list_dtype(vals, cnt);
  int r = -1;
  for (int i = 0; i < cnt; i++) {
    if (oxp_sym_rank(vals[i]) >= 0) r = oxp_sym_rank(vals[i]);
    /* torch.cat promotes; Concat needs one element type. */
    if (dt && oxp_sym_dtype(vals[i]) != dt) vals[i] = oxp_sym_cast(c, vals[i], dt);
  }
  if (dim < 0 && r >= 0) dim += r;
  if (dim < 0 && oxp_sym_opset(c) < 11)
    return oxp_sym_unsupported(c, "cat along a negative dim of unknown rank");
  oxp_node *k = oxp_sym_op(c, "Concat", vals, cnt, 1);
  if (!k) return oxp_sym_status(c);
  oxp_attr_set_i(k, "axis", dim);
  return oxp_sym_set_out(c, n, 0, k->outputs[0]);
}

/* squeeze(x) drops every size-1 dim; squeeze(x, dim) only that one, and
 * only if it is 1 (torch leaves other sizes alone). */
oxp_status oxp_s_squeeze(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  const oxp_type *t = oxp_sym_in_type(n, 0);
  int r = t && t->kind == OXP_T_TENSOR ? t->rank : -1;
  if (n->ninputs < 2) {
    /* With a traced shape the squeezed axes are known exactly. */
    if (r >= 0 && oxp_type_is_static(t) && oxp_sym_options(c)->n_dynamic_axes == 0) {
      int64_t axes[64];
      int k = 0;
      for (int i = 0; i < r && k < 64; i++)
        if (t->dims[i] == 1) axes[k++] = i;
      if (!k) return oxp_sym_set_out(c, n, 0, x);
      return oxp_sym_set_out(c, n, 0, oxp_sym_squeeze(c, x, axes, k));
    }
    return oxp_sym_set_out(c, n, 0, oxp_sym_squeeze(c, x, NULL, 0));
  }
  int64_t *dims;
  int k;
  if (!oxp_sym_need_ints(c, n, 1, &dims, &k)) return oxp_sym_status(c);
  /* Whether a dim is 1 decides if it goes: unknowable without a rank. */
  if (r < 0 && k > 0)
    return oxp_sym_unsupported(c, "squeeze of a dim of a tensor of unknown rank");
  int64_t axes[64];
  int m = 0;
  for (int i = 0; i < k; i++) {
    int64_t a;
    if (r == 0) continue;
    if (!oxp_sym_axis(dims[i], r, &a))
      return oxp_sym_fail(c, OXP_ERR_GRAPH, "squeeze: dim out of range");
    bool seen = false;
    for (int j = 0; j < m; j++) seen |= axes[j] == a;
    if (seen) continue; /* a repeated dim would overflow axes */
    if (t->dims[a] == 1) axes[m++] = a;
    else if (t->dims[a] < 0)
      return oxp_sym_unsupported(c, "squeeze of a dim of unknown size");
  }
  if (!m) return oxp_sym_set_out(c, n, 0, x);
  return oxp_sym_set_out(c, n, 0, oxp_sym_squeeze(c, x, axes, m));
}

oxp_status oxp_s_unsqueeze(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t dim;
  if (!x || !oxp_sym_need_int(c, n, 1, &dim)) return oxp_sym_status(c);
  int r = oxp_sym_rank(x);
  if (dim < 0) {
    if (r < 0) return oxp_sym_unsupported(c, "unsqueeze at a negative dim of unknown rank");
    dim += r + 1;
  }
  return oxp_sym_set_out(c, n, 0, oxp_sym_unsqueeze(c, x, &dim, 1));
}

/* slice(x, dim, start, end, step); None bounds are open. */
oxp_status oxp_s_slice(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int64_t dim = 0, start = 0, end = INT64_MAX, step = 1;
  if (n->ninputs == 5) {
    if (!oxp_sym_need_int(c, n, 1, &dim)) return oxp_sym_status(c);
  }
  int base = n->ninputs == 5 ? 2 : 1;
  bool dyn_start = !oxp_sym_is_none(n, base) && !oxp_sym_int(n, base, &start);
  bool dyn_end = !oxp_sym_is_none(n, base + 1) && !oxp_sym_int(n, base + 1, &end);
  if (!oxp_sym_is_none(n, base + 2) && !oxp_sym_need_int(c, n, base + 2, &step))
    return oxp_sym_status(c);
  if (step <= 0) return oxp_sym_unsupported(c, "slice with a non-positive step");
  int r = oxp_sym_rank(x);
  if (dim < 0) {
    if (r < 0) return oxp_sym_unsupported(c, "slice along a negative dim of unknown rank");
    dim += r;
  }
  if (!dyn_start && !dyn_end) {
    if (start == 0 && end == INT64_MAX && step == 1)
      return oxp_sym_set_out(c, n, 0, x);
    return oxp_sym_set_out(c, n, 0,
                           oxp_sym_slice(c, x, &dim, &start, &end, &step, 1));
  }
  if (oxp_sym_opset(c) < 10)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "aten::slice with runtime bounds is not supported at "
                        "opset %d (supported from opset 10)", oxp_sym_opset(c));
  static const int64_t zero = 0;
  oxp_value *s = dyn_start ? oxp_sym_unsqueeze(c, oxp_sym_in_as(c, n, base, OXP_DT_INT64), &zero, 1)
                           : oxp_sym_const_i64s(c, &start, 1);
  oxp_value *e = dyn_end ? oxp_sym_unsqueeze(c, oxp_sym_in_as(c, n, base + 1, OXP_DT_INT64), &zero, 1)
                         : oxp_sym_const_i64s(c, &end, 1);
  oxp_value *in[5] = {x, s, e, oxp_sym_const_i64s(c, &dim, 1),
                      oxp_sym_const_i64s(c, &step, 1)};
  for (int i = 0; i < 5; i++)
    if (!in[i]) return oxp_sym_status(c);
  oxp_node *sl = oxp_sym_op(c, "Slice", in, 5, 1);
  return oxp_sym_set_out(c, n, 0, sl ? sl->outputs[0] : NULL);
}

/* select(x, dim, index) = Gather with a 0-d index. */
oxp_status oxp_s_select(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t dim, index;
  if (!x || !oxp_sym_need_int(c, n, 1, &dim)) return oxp_sym_status(c);
  int r = oxp_sym_rank(x);
  if (dim < 0) {
    if (r < 0) return oxp_sym_unsupported(c, "select along a negative dim of unknown rank");
    dim += r;
  }
  oxp_value *idx;
  if (oxp_sym_int(n, 2, &index)) {
    /* Gather takes negative indices only from opset 11. */
    if (index < 0 && oxp_sym_opset(c) < 11) {
      const oxp_type *t = oxp_sym_in_type(n, 0);
      if (!t || t->rank <= dim || t->dims[dim] < 0)
        return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                            "aten::select with a negative index on a dim of "
                            "unknown size is not supported at opset %d "
                            "(supported from opset 11)", oxp_sym_opset(c));
      index += t->dims[dim];
    }
    idx = oxp_sym_const_i64(c, index);
  } else {
    idx = oxp_sym_in_as(c, n, 2, OXP_DT_INT64);
  }
  oxp_node *g = idx ? oxp_sym_op(c, "Gather", (oxp_value *[]){x, idx}, 2, 1) : NULL;
  if (!g) return oxp_sym_status(c);
  oxp_attr_set_i(g, "axis", dim);
  return oxp_sym_set_out(c, n, 0, g->outputs[0]);
}
