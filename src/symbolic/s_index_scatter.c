/* s_index_scatter.c: indexing along one dim and by masks: index_select,
 * gather, scatter/scatter_add, index_add/copy/fill, masked_fill/scatter/
 * select, take, nonzero, one_hot, bucketize. */
#include <limits.h>
#include <string.h>

#include "s_shape_util.h"

static bool axis_of(oxp_sctx *c, oxp_node *n, int i, oxp_value *x, int64_t *a) {
  int r = oxp_sym_rank(x);
  if (r < 0) {
    int64_t d;
    if (oxp_sym_int(n, i, &d) && d >= 0) { *a = d; return true; }
    oxp_sym_unsupported(c, "a negative dim on a tensor of unknown rank");
    return false;
  }
  return oxp_sx_axis_arg(c, n, i, r == 0 ? 1 : r, a);
}

oxp_status oxp_s_index_select(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t a;
  if (!x || !axis_of(c, n, 1, x, &a)) return oxp_sym_status(c);
  oxp_value *idx = oxp_sym_in_as(c, n, 2, OXP_DT_INT64);
  return oxp_sym_set_out(c, n, 0, oxp_sx_gather(c, x, idx, a));
}

/* take(x, index) = Gather over the flattened x. */
oxp_status oxp_s_take(oxp_sctx *c, oxp_node *n) {
  static const int64_t m1 = -1;
  oxp_value *x = oxp_sx_reshape(c, oxp_sym_in(c, n, 0), &m1, 1);
  oxp_value *idx = x ? oxp_sym_in_as(c, n, 1, OXP_DT_INT64) : NULL;
  return oxp_sym_set_out(c, n, 0, oxp_sx_gather(c, x, idx, 0));
}

oxp_status oxp_s_gather(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t a;
  if (!x || !axis_of(c, n, 1, x, &a)) return oxp_sym_status(c);
  oxp_value *idx = oxp_sym_in_as(c, n, 2, OXP_DT_INT64);
  oxp_node *g = idx ? oxp_sym_op(c, "GatherElements", (oxp_value *[]){x, idx}, 2, 1) : NULL;
  if (!g) return oxp_sym_status(c);
  oxp_attr_set_i(g, "axis", a);
  return oxp_sym_set_out(c, n, 0, g->outputs[0]);
}

static oxp_status scatter_elems(oxp_sctx *c, oxp_node *n, oxp_value *x,
                                oxp_value *idx, oxp_value *src, int64_t a,
                                const char *reduction) {
  oxp_node *s = x && idx && src
                    ? oxp_sym_op(c, "ScatterElements", (oxp_value *[]){x, idx, src}, 3, 1)
                    : NULL;
  if (!s) return oxp_sym_status(c);
  oxp_attr_set_i(s, "axis", a);
  if (reduction) oxp_attr_set_s(s, "reduction", reduction);
  return oxp_sym_set_out(c, n, 0, s->outputs[0]);
}

static oxp_status need16(oxp_sctx *c, oxp_node *n, const char *what) {
  return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                      "%s %s is not supported at opset %d (supported from opset 16)",
                      n->kind, what, oxp_sym_opset(c));
}

/* scatter(x, dim, index, src | value [, reduce]); scatter_add. A scalar
 * value is expanded to the index's shape. */
oxp_status oxp_s_scatter(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t a;
  if (!x || !axis_of(c, n, 1, x, &a)) return oxp_sym_status(c);
  int dt = oxp_sym_dtype(x);
  oxp_value *idx = oxp_sym_in_as(c, n, 2, OXP_DT_INT64);
  oxp_value *src = idx ? oxp_sym_in_as(c, n, 3, dt) : NULL;
  if (!src) return oxp_sym_status(c);
  const oxp_type *st = oxp_sym_in_type(n, 3);
  if (!st || st->kind != OXP_T_TENSOR || oxp_sym_rank(src) == 0)
    src = oxp_sym_op2(c, "Expand", src, oxp_sx_shape(c, idx));
  const char *red = NULL;
  bool add = strncmp(n->kind, "aten::scatter_add", 17) == 0;
  if (add) red = "add";
  else if (n->ninputs > 4 && !oxp_sym_is_none(n, 4)) {
    const char *r;
    if (!oxp_sym_str(n, 4, &r)) return oxp_sym_unsupported(c, "scatter with a runtime reduce");
    red = strcmp(r, "add") == 0 ? "add" : strcmp(r, "multiply") == 0 ? "mul" : NULL;
    if (!red) return oxp_sym_unsupported(c, "scatter with this reduce");
  }
  if (red && oxp_sym_opset(c) < 16)
    return need16(c, n, add ? "(duplicate indices add up)" : "with reduce");
  return scatter_elems(c, n, x, idx, src, a, red);
}

/* A 1-D index along dim a, expanded to the shape of like. */
static oxp_value *expand_index(oxp_sctx *c, oxp_value *idx, int64_t a,
                               int r, oxp_value *like) {
  int64_t shape[OXP_MAX_STATIC_RANK];
  for (int i = 0; i < r; i++) shape[i] = i == a ? -1 : 1;
  return oxp_sym_op2(c, "Expand", oxp_sx_reshape(c, idx, shape, r), oxp_sx_shape(c, like));
}

/* index_add(x, dim, index, source, alpha) / index_copy(x, dim, index,
 * source): ScatterElements with the index spread over source's shape. */
oxp_status oxp_s_index_add(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t a;
  if (!x || !axis_of(c, n, 1, x, &a)) return oxp_sym_status(c);
  int r = oxp_sym_rank(x), dt = oxp_sym_dtype(x);
  bool add = strncmp(n->kind, "aten::index_add", 15) == 0;
  if (r < 0) return oxp_sym_unsupported(c, "index_add/index_copy of unknown rank");
  if (add && oxp_sym_opset(c) < 16) return need16(c, n, "(duplicate indices add up)");
  oxp_value *src = oxp_sym_in_as(c, n, 3, dt);
  double alpha = 1;
  if (add && n->ninputs > 4 && !oxp_sym_is_none(n, 4) && !oxp_sym_float(n, 4, &alpha))
    return oxp_sym_unsupported(c, "index_add with a runtime alpha");
  if (src && alpha != 1) src = oxp_sym_op2(c, "Mul", src, oxp_sym_const_scalar(c, alpha, dt));
  if (r == 0) {
    static const int64_t z = 0;
    x = oxp_sym_unsqueeze(c, x, &z, 1), src = oxp_sym_unsqueeze(c, src, &z, 1);
    r = 1;
  }
  oxp_value *idx = expand_index(c, oxp_sym_in_as(c, n, 2, OXP_DT_INT64), a, r, src);
  return scatter_elems(c, n, x, idx, src, a, add ? "add" : NULL);
}

/* index_fill(x, dim, index, value): value scattered at the selected
 * slices (shape of x with dim replaced by len(index)). */
oxp_status oxp_s_index_fill(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t a;
  if (!x || !axis_of(c, n, 1, x, &a)) return oxp_sym_status(c);
  int r = oxp_sym_rank(x), dt = oxp_sym_dtype(x);
  if (r <= 0) return oxp_sym_unsupported(c, "index_fill of a 0-d or unknown-rank tensor");
  static const int64_t m1 = -1;
  oxp_value *idx = oxp_sx_reshape(c, oxp_sym_in_as(c, n, 2, OXP_DT_INT64), &m1, 1);
  oxp_value *shape = oxp_sx_shape_with(c, x, (int)a, oxp_sx_shape(c, idx));
  int64_t sh[OXP_MAX_STATIC_RANK];
  for (int i = 0; i < r; i++) sh[i] = i == a ? -1 : 1;
  oxp_value *ie = oxp_sym_op2(c, "Expand", oxp_sx_reshape(c, idx, sh, r), shape);
  oxp_value *v = oxp_sym_op2(c, "Expand", oxp_sym_in_as(c, n, 3, dt), shape);
  return scatter_elems(c, n, x, ie, v, a, NULL);
}

/* masked_fill(x, mask, value) = Where(mask, value, x). */
oxp_status oxp_s_masked_fill(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  oxp_value *m = oxp_sym_in_as(c, n, 1, OXP_DT_BOOL);
  oxp_value *v = m ? oxp_sym_in_as(c, n, 2, oxp_sym_dtype(x)) : NULL;
  return oxp_sym_set_out(c, n, 0, oxp_sym_op3(c, "Where", m, v, x));
}

/* masked_select(x, mask): both broadcast, flattened, then Compress. */
oxp_status oxp_s_masked_select(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  oxp_value *m = x ? oxp_sym_in_as(c, n, 1, OXP_DT_BOOL) : NULL;
  if (!m) return oxp_sym_status(c);
  /* The common shape: Expand each by the other's shape (both ways). */
  oxp_value *xe = oxp_sym_op2(c, "Expand", x, oxp_sx_shape(c, m));
  oxp_value *me = oxp_sym_op2(c, "Expand", m, oxp_sx_shape(c, xe));
  static const int64_t m1 = -1;
  oxp_value *in[2] = {oxp_sx_reshape(c, xe, &m1, 1), oxp_sx_reshape(c, me, &m1, 1)};
  oxp_node *k = in[0] && in[1] ? oxp_sym_op(c, "Compress", in, 2, 1) : NULL;
  if (!k) return oxp_sym_status(c);
  oxp_attr_set_i(k, "axis", 0);
  return oxp_sym_set_out(c, n, 0, k->outputs[0]);
}

/* masked_scatter(x, mask, source): the first N elements of source go to
 * the N true positions, in order (ScatterND at the NonZero indices). */
oxp_status oxp_s_masked_scatter(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  oxp_value *m = x ? oxp_sym_in_as(c, n, 1, OXP_DT_BOOL) : NULL;
  oxp_value *s = m ? oxp_sym_in_as(c, n, 2, oxp_sym_dtype(x)) : NULL;
  if (!s) return oxp_sym_status(c);
  static const int64_t perm[2] = {1, 0}, m1 = -1, z = 0;
  /* ScatterND needs data of rank >= 1: a 0-d x is scattered as [1]. */
  bool scalar = oxp_sym_rank(x) == 0;
  if (scalar) x = oxp_sym_unsqueeze(c, x, &z, 1);
  m = oxp_sym_op2(c, "Expand", m, oxp_sx_shape(c, x));
  oxp_value *idx = oxp_sx_transpose(c, oxp_sym_op1(c, "NonZero", m), perm, 2);
  oxp_value *cnt = oxp_sym_slice(c, oxp_sx_shape(c, idx), &z, &z, (int64_t[]){1}, NULL, 1);
  oxp_value *flat = oxp_sx_reshape(c, s, &m1, 1);
  oxp_value *vals = oxp_sx_slice_dyn(c, flat, oxp_sym_const_i64s(c, &z, 1), cnt, 0, 1);
  oxp_node *k = idx && vals ? oxp_sym_op(c, "ScatterND", (oxp_value *[]){x, idx, vals}, 3, 1) : NULL;
  oxp_value *out = k ? k->outputs[0] : NULL;
  if (out && scalar) out = oxp_sym_squeeze(c, out, &z, 1);
  return oxp_sym_set_out(c, n, 0, out);
}

/* nonzero(x): [N, rank] = Transpose(NonZero(x)). */
oxp_status oxp_s_nonzero(oxp_sctx *c, oxp_node *n) {
  static const int64_t perm[2] = {1, 0};
  oxp_value *nz = oxp_sym_op1(c, "NonZero", oxp_sym_in(c, n, 0));
  return oxp_sym_set_out(c, n, 0, oxp_sx_transpose(c, nz, perm, 2));
}

/* nonzero_numpy(x) (nonzero(as_tuple=True)): one [N] row per dim. */
oxp_status oxp_s_nonzero_numpy(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int r = oxp_sym_rank(x);
  if (!x) return oxp_sym_status(c);
  if (r <= 0) return oxp_sym_unsupported(c, "nonzero_numpy of a 0-d or unknown-rank tensor");
  oxp_value *nz = oxp_sym_op1(c, "NonZero", x);
  oxp_value **rows = oxp_alloc(oxp_sym_arena(c), sizeof *rows * (size_t)r);
  if (!rows) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  for (int i = 0; i < r; i++) {
    rows[i] = oxp_sx_gather(c, nz, oxp_sym_const_i64(c, i), 0);
    oxp_sym_set_type(c, rows[i], OXP_DT_INT64, 1, NULL);
  }
  return oxp_sx_set_list(c, n, 0, rows, r);
}

/* one_hot(x, num_classes): OneHot with int64 off/on values; -1 classes
 * means max(x) + 1. */
oxp_status oxp_s_one_hot(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t k = -1;
  if (!x) return oxp_sym_status(c);
  oxp_value *depth;
  if (oxp_sym_int(n, 1, &k) && k >= 0) depth = oxp_sym_const_i64(c, k);
  else if (oxp_sym_int(n, 1, &k))
    depth = oxp_sym_op2(c, "Add", oxp_sym_reduce(c, "ReduceMax", x, NULL, 0, false),
                        oxp_sym_const_i64(c, 1));
  else depth = oxp_sym_in_as(c, n, 1, OXP_DT_INT64);
  static const int64_t offon[2] = {0, 1}, axis0 = 0;
  /* OneHot needs indices of rank >= 1: a 0-d index goes through [1]. */
  bool scalar = oxp_sym_rank(x) == 0;
  oxp_value *idx = scalar ? oxp_sym_unsqueeze(c, x, &axis0, 1) : x;
  oxp_node *o = depth && idx ? oxp_sym_op(c, "OneHot", (oxp_value *[]){idx, depth,
                                   oxp_sym_const_i64s(c, offon, 2)}, 3, 1) : NULL;
  if (!o) return oxp_sym_status(c);
  oxp_attr_set_i(o, "axis", -1);
  oxp_value *y = o->outputs[0];
  if (scalar) y = oxp_sym_squeeze(c, y, &axis0, 1);
  return oxp_sym_set_out(c, n, 0, y);
}

/* bucketize(x, boundaries, out_int32, right): the number of boundaries
 * below x (right=False: b < x; right=True: b <= x). */
oxp_status oxp_s_bucketize(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  bool i32 = false, right = false;
  if (!x) return oxp_sym_status(c);
  if (!oxp_sym_bool(n, 2, &i32) || !oxp_sym_bool(n, 3, &right))
    return oxp_sym_unsupported(c, "bucketize with runtime flags");
  int dt = oxp_sym_dtype(x);
  oxp_value *b = oxp_sym_in_as(c, n, 1, dt);
  int r = oxp_sym_rank(x);
  if (r < 0) return oxp_sym_unsupported(c, "bucketize of unknown rank");
  int64_t ax = r;
  oxp_value *xu = oxp_sym_unsqueeze(c, x, &ax, 1);
  /* torch's binary search counts the boundaries b with !(b >= x) (left)
   * or !(x < b) (right), so a NaN on either side counts: NaN lands past
   * the end. Greater alone would give 0 for a NaN x. */
  oxp_value *cmp = right ? oxp_sym_op1(c, "Not", oxp_sym_op2(c, "Less", xu, b))
                         : oxp_sym_op2(c, "Greater", xu, b);
  if (!right && oxp_dtype_is_float(dt))
    cmp = oxp_sym_op2(c, "Or", cmp, oxp_sym_op2(c, "Or", oxp_sym_op1(c, "IsNaN", xu),
                                                 oxp_sym_op1(c, "IsNaN", b)));
  oxp_value *cnt = oxp_sym_reduce(c, "ReduceSum", oxp_sym_cast(c, cmp, OXP_DT_INT64), &ax, 1, false);
  if (x->type) oxp_sym_set_type(c, cnt, OXP_DT_INT64, r, x->type->dims);
  return oxp_sym_set_out(c, n, 0, i32 ? oxp_sym_cast(c, cnt, OXP_DT_INT32) : cnt);
}
