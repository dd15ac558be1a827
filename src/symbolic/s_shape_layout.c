/* s_shape_layout.c: ops that copy elements into a new layout: repeat,
 * tile, repeat_interleave, flip, roll, narrow, unfold, diagonal,
 * tril/triu, meshgrid. */
#include <limits.h>

#include "s_shape_util.h"

/* x with ones prepended to rank r (Unsqueeze at the leading axes). */
static oxp_value *lift_rank(oxp_sctx *c, oxp_value *x, int r) {
  int xr = oxp_sym_rank(x);
  if (xr < 0 || xr >= r) return x;
  int64_t axes[OXP_MAX_STATIC_RANK];
  for (int i = 0; i < r - xr; i++) axes[i] = i;
  return oxp_sym_unsqueeze(c, x, axes, r - xr);
}

/* repeat(x, reps) / tile(x, reps): Tile, after lifting x to len(reps)
 * dims; tile pads short repeats with leading ones. The repeats may be
 * computed from shapes: their count is what must be known. */
oxp_status oxp_s_repeat(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  oxp_ilist l;
  if (!x || !oxp_sym_ilist(c, n, 1, &l) ||
      !oxp_sym_ilist_count(c, n, 1, &l, "the rank of the result depends on it"))
    return oxp_sym_status(c);
  bool tile = oxp_kind_is(n, "aten::tile");
  int r = oxp_sym_rank(x), k = l.n;
  if (r < 0)
    return oxp_sym_unsupported(c, "repeat of a tensor of unknown rank");
  if (r > OXP_MAX_STATIC_RANK || k > OXP_MAX_STATIC_RANK) return oxp_sym_unsupported(c, "repeat beyond 16 dims");
  int m = tile && k < r ? r : k;
  /* A 0-d tensor repeated by no counts is itself (Tile needs rank 1). */
  if (m == 0) return oxp_sym_set_out(c, n, 0, x);
  oxp_value *reps;
  if (l.known) {
    int64_t full[OXP_MAX_STATIC_RANK];
    for (int i = 0; i < m - k; i++) full[i] = 1;
    for (int i = 0; i < k; i++) full[m - k + i] = l.v[i];
    reps = oxp_sym_const_i64s(c, full, m);
  } else if (m > k) {
    int64_t ones[OXP_MAX_STATIC_RANK];
    for (int i = 0; i < m - k; i++) ones[i] = 1;
    oxp_value *parts[2] = {oxp_sym_const_i64s(c, ones, m - k), l.t};
    oxp_node *cat = parts[0] ? oxp_sym_op(c, "Concat", parts, 2, 1) : NULL;
    if (!cat) return oxp_sym_status(c);
    oxp_attr_set_i(cat, "axis", 0);
    reps = cat->outputs[0];
  } else {
    reps = l.t;
  }
  x = lift_rank(c, x, m);
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Tile", x, reps));
}

/* y ([..., x.size(axis), rep, ...]) reshaped to x's shape with dim axis
 * merged: -1 while x has elements; an empty x (static, or possibly at
 * run time) gives no count for a -1 and its 0s must stay sizes, so the
 * merged size is x.size(axis) * rep. */
static oxp_value *merge_dim(oxp_sctx *c, oxp_value *y, oxp_value *x, int axis,
                            int64_t rep) {
  static const int64_t m1 = -1;
  int64_t d[OXP_MAX_STATIC_RANK];
  int r;
  if (oxp_sx_dims(x, d, &r)) {
    bool empty = false;
    for (int i = 0; i < r; i++) empty |= d[i] == 0;
    if (empty) {
      d[axis] *= rep;
      return oxp_sym_reshape_dims(c, y, d, r);
    }
  } else if (oxp_sym_opset(c) >= 14) {
    oxp_value *size = oxp_sym_unsqueeze(c, oxp_sym_size(c, x, axis), (int64_t[]){0}, 1);
    oxp_value *mid = oxp_sym_op2(c, "Mul", size, oxp_sym_const_i64s(c, &rep, 1));
    return oxp_sym_reshape_sizes(c, y, oxp_sx_shape_with(c, x, axis, mid), OXP_ZERO_MAYBE);
  }
  return oxp_sym_op2(c, "Reshape", y, oxp_sx_shape_with(c, x, axis, oxp_sym_const_i64s(c, &m1, 1)));
}

/* repeat_interleave(x, repeats, dim, output_size). An int repeats r: each
 * element repeated r times along dim = unsqueeze, tile the new axis,
 * merge. A 1-D repeats tensor: Gather with, for each output position j,
 * the count of cumulative repeats <= j (CumSum needs opset 11), or a
 * constant index when repeats is a constant. dim None flattens first. */
oxp_status oxp_s_repeat_interleave(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int64_t dim = 0;
  if (oxp_sym_is_none(n, 2)) {
    static const int64_t m1 = -1;
    x = oxp_sx_reshape(c, x, &m1, 1);
    oxp_sym_set_type(c, x, oxp_sym_dtype(oxp_sym_in(c, n, 0)), 1, NULL);
  } else if (!oxp_sx_axis_arg(c, n, 2, oxp_sym_rank(x), &dim)) {
    return oxp_sym_status(c);
  }
  int r = oxp_sym_rank(x);
  if (r < 0 || r >= OXP_MAX_STATIC_RANK)
    return oxp_sym_unsupported(c, "repeat_interleave of a tensor of unknown rank");
  int64_t rep;
  const oxp_type *rt = oxp_sym_in_type(n, 1);
  bool scalar = oxp_sym_int(n, 1, &rep) &&
                (!rt || rt->kind != OXP_T_TENSOR || rt->rank <= 0 ||
                 (rt->rank == 1 && rt->dims[0] == 1));
  if (scalar) {
    int64_t ax = dim + 1;
    oxp_value *u = oxp_sym_unsqueeze(c, x, &ax, 1);
    int64_t reps[OXP_MAX_STATIC_RANK + 1];
    for (int i = 0; i <= r; i++) reps[i] = i == ax ? rep : 1;
    oxp_value *t = oxp_sym_op2(c, "Tile", u, oxp_sym_const_i64s(c, reps, r + 1));
    return oxp_sym_set_out(c, n, 0, merge_dim(c, t, x, (int)dim, rep));
  }
  int64_t *rv;
  int k;
  if (oxp_sym_ints(c, n, 1, &rv, &k)) {
    int64_t total = 0;
    for (int i = 0; i < k; i++) total += rv[i];
    int64_t *idx = oxp_alloc(oxp_sym_arena(c), sizeof *idx * (size_t)(total + 1));
    if (!idx) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    for (int i = 0, j = 0; i < k; i++)
      for (int64_t m = 0; m < rv[i]; m++) idx[j++] = i;
    return oxp_sym_set_out(c, n, 0, oxp_sx_gather(c, x, oxp_sym_const_i64s(c, idx, (int)total), dim));
  }
  if (oxp_sym_opset(c) < 11)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "aten::repeat_interleave with runtime repeats is not "
                        "supported at opset %d (supported from opset 11)",
                        oxp_sym_opset(c));
  oxp_value *reps = oxp_sym_in_as(c, n, 1, OXP_DT_INT64);
  static const int64_t m1 = -1, one = 1;
  reps = oxp_sx_reshape(c, reps, &m1, 1);
  /* Broadcast a one-element repeats to the size of dim. */
  reps = oxp_sym_op2(c, "Expand", reps, oxp_sym_unsqueeze(c, oxp_sym_size(c, x, dim), (int64_t[]){0}, 1));
  oxp_value *cum = oxp_sym_op2(c, "CumSum", reps, oxp_sym_const_i64(c, 0));
  oxp_value *total = oxp_sym_reduce(c, "ReduceSum", reps, NULL, 0, false);
  oxp_value *j = oxp_sym_op3(c, "Range", oxp_sym_const_i64(c, 0), total, oxp_sym_const_i64(c, 1));
  oxp_value *jc = oxp_sym_unsqueeze(c, j, &one, 1);                /* [T, 1] */
  /* cum <= j, as Not(Greater): LessOrEqual only exists from 12. */
  oxp_value *le = oxp_sym_cast(c, oxp_sym_op1(c, "Not", oxp_sym_op2(c, "Greater", cum, jc)),
                               OXP_DT_INT64);
  oxp_value *idx = oxp_sym_reduce(c, "ReduceSum", le, &one, 1, false);
  return oxp_sym_set_out(c, n, 0, oxp_sx_gather(c, x, idx, dim));
}

/* flip(x, dims): Slice each dim backwards (negative steps need 10). */
oxp_status oxp_s_flip(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t *dims;
  int k;
  if (!x || !oxp_sym_need_ints(c, n, 1, &dims, &k)) return oxp_sym_status(c);
  int r = oxp_sym_rank(x);
  if (!k) return oxp_sym_set_out(c, n, 0, x);
  if (k > OXP_MAX_STATIC_RANK) return oxp_sym_unsupported(c, "flip of more than 16 dims");
  int64_t axes[OXP_MAX_STATIC_RANK], st[OXP_MAX_STATIC_RANK], en[OXP_MAX_STATIC_RANK], sp[OXP_MAX_STATIC_RANK];
  for (int i = 0; i < k; i++) {
    if (!oxp_sym_axis(dims[i], r, &axes[i]))
      return oxp_sym_fail(c, OXP_ERR_GRAPH, "flip: dim out of range");
    st[i] = -1;
    en[i] = INT64_MIN;
    sp[i] = -1;
  }
  return oxp_sym_set_out(c, n, 0, oxp_sym_slice(c, x, axes, st, en, sp, k));
}

/* The split point of roll by s along an axis of run-time size L: L - s mod L
 * for s >= 0, |s| mod L for s < 0 (a 1-element int64). The mod only ever sees
 * non-negative operands, so ONNX's Div needs no rounding convention; an empty
 * axis divides by 1 instead of 0. */
static oxp_value *roll_split_point(oxp_sctx *c, oxp_value *x, int64_t ax, int64_t s) {
  static const int64_t zero = 0;
  oxp_value *len = oxp_sym_unsqueeze(c, oxp_sym_size(c, x, ax), &zero, 1);
  oxp_value *z = oxp_sym_const_i64s(c, &zero, 1);
  oxp_value *m = oxp_sym_op2(c, "Add", len, oxp_sym_cast(c, oxp_sym_op2(c, "Equal", len, z), OXP_DT_INT64));
  /* |INT64_MIN| is not an int64; any shift that large is beyond every axis. */
  int64_t a = s == INT64_MIN ? INT64_MAX : s < 0 ? -s : s;
  oxp_value *av = oxp_sym_const_i64s(c, &a, 1);
  oxp_value *t = oxp_sym_op2(c, "Sub", av, oxp_sym_op2(c, "Mul", oxp_sym_op2(c, "Div", av, m), m));
  return s < 0 ? t : oxp_sym_op2(c, "Sub", len, t);
}

/* roll(x, shifts, dims): per dim, the last s elements then the rest. With
 * a static dim s is reduced mod its size; with a dim known only at run
 * time the split point is computed there (a shift as large as the axis
 * must wrap, not clamp); dims empty rolls the flat x. */
oxp_status oxp_s_roll(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t *sh, *dims;
  int ks, kd;
  if (!x || !oxp_sym_need_ints(c, n, 1, &sh, &ks) || !oxp_sym_need_ints(c, n, 2, &dims, &kd))
    return oxp_sym_status(c);
  oxp_value *orig = x;
  static const int64_t flat = -1, zero = 0;
  if (kd == 0) {
    x = oxp_sx_reshape(c, x, &flat, 1);
    if (!x) return oxp_sym_status(c);
    /* The flat size stays static when x's dims are (the shift wraps at export). */
    int64_t d[OXP_MAX_STATIC_RANK], numel = 1;
    int r0;
    bool known = oxp_sx_dims(orig, d, &r0);
    for (int i = 0; known && i < r0; i++) numel *= d[i];
    oxp_sym_set_type(c, x, oxp_sym_dtype(orig), 1, known ? &numel : NULL);
    dims = (int64_t *)&zero;
    kd = 1;
  }
  if (ks != kd) return oxp_sym_fail(c, OXP_ERR_GRAPH, "roll: shifts and dims differ in length");
  int r = oxp_sym_rank(x);
  for (int i = 0; i < kd; i++) {
    int64_t ax;
    if (!oxp_sym_axis(dims[i], r, &ax)) return oxp_sym_fail(c, OXP_ERR_GRAPH, "roll: dim out of range");
    int64_t s = sh[i], size = oxp_sx_dim(x, (int)ax);
    if (size > 0) s = ((s % size) + size) % size;
    if (s == 0) continue;
    oxp_value *parts[2];
    if (size < 0) {
      if (oxp_sym_opset(c) < 10)
        return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                            "aten::roll along a dim whose size is known only at run time is not "
                            "supported at opset %d (supported from opset 10)", oxp_sym_opset(c));
      static const int64_t lo = 0, hi = INT64_MAX;
      oxp_value *p = roll_split_point(c, x, ax, s);
      oxp_value *v0 = oxp_sym_const_i64s(c, &lo, 1), *v1 = oxp_sym_const_i64s(c, &hi, 1);
      parts[0] = p && v1 ? oxp_sx_slice_dyn(c, x, p, v1, ax, 1) : NULL;
      parts[1] = p && v0 ? oxp_sx_slice_dyn(c, x, v0, p, ax, 1) : NULL;
    } else {
      int64_t a0 = -s, a1 = INT64_MAX, b0 = 0, b1 = -s;
      parts[0] = oxp_sym_slice(c, x, &ax, &a0, &a1, NULL, 1);
      parts[1] = oxp_sym_slice(c, x, &ax, &b0, &b1, NULL, 1);
    }
    oxp_value *y = oxp_sx_concat(c, parts, 2, ax);
    if (!y) return oxp_sym_status(c); /* out of memory */
    oxp_sym_set_type(c, y, oxp_sym_dtype(x), r, x->type ? x->type->dims : NULL);
    x = y;
  }
  if (x != orig && oxp_sym_rank(orig) != 1 && kd == 1 && dims == &zero)
    x = oxp_sym_op2(c, "Reshape", x, oxp_sx_shape(c, orig));
  return oxp_sym_set_out(c, n, 0, x);
}
