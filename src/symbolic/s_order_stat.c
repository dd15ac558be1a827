/* s_order_stat.c: order statistics along one dim that no torch exporter
 * maps (kthvalue, median and nanmedian with a dim, mode). Each element's
 * stable rank (how many elements sort before it, NaN after every number,
 * equal values by position) comes from an L x L comparison, L the static
 * length of the dim; the answer is the element of the wanted rank,
 * gathered by index so its value is exact. torch takes these from
 * std::nth_element, whose index among equal values is unspecified: here
 * it is the first of them in position order (docs/ops-notes/math.txt). */
#include <math.h>

#include "s_math_util.h"
#include "s_nn_util.h"

#define PAIR_MAX (INT64_C(1) << 22)

typedef struct {
  oxp_value *x;
  int rank, d, dt;
  int64_t len;
  oxp_value *xi, *xj;  /* x unsqueezed: i along d, j along d + 1 */
} pairs;

/* int64 0..L-1 along axis `at` of a tensor whose rank is `trail` + 1
 * dims past it, shaped to broadcast there. */
static oxp_value *arange(oxp_sctx *c, int64_t len, int trail) {
  int64_t dims[OXP_MAX_SPATIAL_DIMS + 2];
  dims[0] = len;
  for (int t = 0; t < trail; t++) dims[1 + t] = 1;
  oxp_tensor *t = oxp_tensor_alloc(oxp_sym_arena(c), OXP_DT_INT64, 1 + trail, dims);
  if (!t) return NULL;
  for (int64_t j = 0; j < len; j++) ((int64_t *)t->data)[j] = j;
  return oxp_sym_const(c, t);
}

static bool pairs_init(oxp_sctx *c, oxp_node *n, oxp_value *x, int64_t dim,
                       pairs *p) {
  p->x = x;
  p->rank = oxp_sym_rank(x);
  p->dt = oxp_sym_need_dtype(c, x);
  int64_t d;
  if (!p->dt) return false;
  if (p->rank < 1 || !oxp_sym_axis(dim, p->rank, &d) || p->rank > OXP_MAX_SPATIAL_DIMS + 2) {
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: needs the input's rank (1 to 5) "
                 "and a dim inside it", n->kind);
    return false;
  }
  p->d = (int)d;
  p->len = oxp_nn_dim(x, p->d);
  if (p->len < 1 || p->len * p->len > PAIR_MAX) {
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: the reduced dim must have a static "
                 "length from 1 to 2048 (ranks come from an L x L comparison)",
                 n->kind);
    return false;
  }
  if (p->dt == OXP_DT_BOOL) {
    p->x = x = oxp_sym_cast(c, x, OXP_DT_INT32);
    p->dt = OXP_DT_INT32;
  }
  int64_t ai = p->d + 1, aj = p->d;
  p->xi = oxp_sym_unsqueeze(c, x, &ai, 1);
  p->xj = oxp_sym_unsqueeze(c, x, &aj, 1);
  return p->xi && p->xj;
}

static oxp_value *over(oxp_sctx *c, const char *op, oxp_value *v, int64_t ax,
                       bool keep) {
  return oxp_sym_reduce(c, op, v, &ax, 1, keep);
}

static oxp_value *isnan_of(oxp_sctx *c, const pairs *p, oxp_value *v) {
  if (!oxp_dtype_is_float(p->dt)) return NULL;
  return oxp_sym_op1(c, "IsNaN", v);
}

/* Stable ranks (int64, shaped like x): j sorts before i when x_j < x_i,
 * or x_i is NaN and x_j not, or they are equal (NaN with NaN) and j < i. */
static oxp_value *ranks(oxp_sctx *c, const pairs *p) {
  int dt = p->dt, trail = p->rank - 1 - p->d;
  oxp_value *lt = oxp_m_compare(c, "Less", p->xj, p->xi, dt);
  oxp_value *eq = oxp_m_compare(c, "Equal", p->xj, p->xi, dt);
  oxp_value *ni = isnan_of(c, p, p->xi), *nj = isnan_of(c, p, p->xj);
  if (ni) {
    lt = oxp_sym_op2(c, "Or", lt, oxp_sym_op2(c, "And", ni, oxp_sym_op1(c, "Not", nj)));
    eq = oxp_sym_op2(c, "Or", eq, oxp_sym_op2(c, "And", ni, nj));
  }
  oxp_value *before = oxp_m_compare(c, "Less", arange(c, p->len, trail),
                                    arange(c, p->len, trail + 1), OXP_DT_INT64);
  oxp_value *b = oxp_sym_op2(c, "Or", lt, oxp_sym_op2(c, "And", eq, before));
  return over(c, "ReduceSum", oxp_sym_cast(c, b, OXP_DT_INT64), p->d + 1, false);
}

/* The index (keepdim shape) of the element whose rank equals target
 * (int64, broadcasting against keepdim shape), and its value. */
static oxp_status pick(oxp_sctx *c, oxp_node *n, const pairs *p,
                       oxp_value *target, bool keep, bool two) {
  int trail = p->rank - 1 - p->d;
  oxp_value *r = ranks(c, p);
  oxp_value *hit = oxp_m_compare(c, "Equal", r, target, OXP_DT_INT64);
  oxp_value *idx = over(c, "ReduceMax", oxp_sym_op3(c, "Where", hit,
      arange(c, p->len, trail), oxp_sym_const_scalar(c, -1, OXP_DT_INT64)), p->d, true);
  oxp_node *g = idx ? oxp_sym_op(c, "GatherElements", (oxp_value *[]){p->x, idx}, 2, 1)
                    : NULL;
  if (!g) return oxp_sym_status(c);
  oxp_attr_set_i(g, "axis", p->d);
  oxp_value *v = g->outputs[0];
  int64_t ax = p->d;
  if (!keep) {
    v = oxp_sym_squeeze(c, v, &ax, 1);
    idx = oxp_sym_squeeze(c, idx, &ax, 1);
  }
  int out = oxp_sym_out_dtype(n, 0, 0);
  if (out && out != p->dt) v = oxp_sym_cast(c, v, out);
  oxp_status st = oxp_m_set_out(c, n, 0, v);
  return st || !two ? st : oxp_m_set_out(c, n, 1, idx);
}

/* (x, ..., dim at i_dim, keepdim at i_dim + 1) */
static bool dim_args(oxp_sctx *c, oxp_node *n, int i_dim, int64_t *dim,
                     bool *keep) {
  *keep = false;
  if (!oxp_sym_need_int(c, n, i_dim, dim)) return false;
  if (n->ninputs > i_dim + 1 && !oxp_sym_bool(n, i_dim + 1, keep)) {
    oxp_sym_unsupported(c, "a runtime keepdim");
    return false;
  }
  return true;
}

/* kthvalue(x, k, dim, keepdim) -> (values, indices) */
oxp_status oxp_s_kthvalue(oxp_sctx *c, oxp_node *n) {
  int64_t kk, dim;
  bool keep;
  pairs p;
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x || !oxp_sym_need_int(c, n, 1, &kk) || !dim_args(c, n, 2, &dim, &keep) ||
      !pairs_init(c, n, x, dim, &p))
    return oxp_sym_status(c);
  if (kk < 1 || kk > p.len)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: k = %lld is outside 1..%lld",
                        n->kind, (long long)kk, (long long)p.len);
  return pick(c, n, &p, oxp_sym_const_i64(c, kk - 1), keep, true);
}

/* The count of non-NaN elements along d (keepdim), int64. */
static oxp_value *count_numbers(oxp_sctx *c, const pairs *p) {
  if (!oxp_dtype_is_float(p->dt)) return oxp_sym_const_i64(c, p->len);
  oxp_value *num = oxp_sym_op1(c, "Not", oxp_sym_op1(c, "IsNaN", p->x));
  return over(c, "ReduceSum", oxp_sym_cast(c, num, OXP_DT_INT64), p->d, true);
}

/* median / nanmedian(x[, dim, keepdim]): the lower median. median is NaN
 * (the first NaN) when a NaN is present; nanmedian ranks the numbers
 * only (the first NaN when there are none). Without a dim: over the
 * flattened input, values only. */
static oxp_status median(oxp_sctx *c, oxp_node *n, bool skip_nan) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t dim = 0;
  bool keep = false, two = n->ninputs > 1;
  if (!x) return oxp_sym_status(c);
  if (two) {
    if (!dim_args(c, n, 1, &dim, &keep)) return oxp_sym_status(c);
  } else {
    x = oxp_sym_op2(c, "Reshape", x, oxp_sym_const_i64s(c, (int64_t[]){-1}, 1));
    const oxp_type *t = oxp_sym_in_type(n, 0);
    int64_t total = 1;
    for (int i = 0; t && t->kind == OXP_T_TENSOR && i < t->rank; i++)
      total = t->dims && (!t->dim_params || !t->dim_params[i]) && total >= 0
                  ? total * t->dims[i] : -1;
    if (!t || t->kind != OXP_T_TENSOR || t->rank < 0 || total < 0 || total > 2048)
      return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: needs a static input of "
                          "at most 2048 elements", n->kind);
    oxp_sym_set_type(c, x, t->dtype, 1, &total);
  }
  pairs p;
  if (!pairs_init(c, n, x, dim, &p)) return oxp_sym_status(c);
  oxp_value *cnt = count_numbers(c, &p);
  oxp_value *one = oxp_sym_const_i64(c, 1), *two_ = oxp_sym_const_i64(c, 2);
  oxp_value *target;
  if (skip_nan) {
    /* (cnt - 1) / 2, 0 when cnt == 0 (all NaN: the first NaN) */
    oxp_value *m = oxp_m_maxmin(c, true, oxp_sym_op2(c, "Sub", cnt, one),
                                oxp_sym_const_i64(c, 0), OXP_DT_INT64);
    target = oxp_sym_op2(c, "Div", m, two_);
  } else {
    oxp_value *lower = oxp_sym_const_i64(c, (p.len - 1) / 2);
    oxp_value *has_nan = oxp_m_compare(c, "Less", cnt, oxp_sym_const_i64(c, p.len),
                                       OXP_DT_INT64);
    target = oxp_sym_op3(c, "Where", has_nan, cnt, lower);
  }
  return pick(c, n, &p, target, keep, two);
}

oxp_status oxp_s_median(oxp_sctx *c, oxp_node *n) { return median(c, n, false); }
oxp_status oxp_s_nanmedian(oxp_sctx *c, oxp_node *n) { return median(c, n, true); }

/* mode(x, dim, keepdim) -> (values, indices): the smallest of the most
 * frequent values (NaN equals nothing, as torch counts it), at the last
 * index holding it. */
oxp_status oxp_s_mode(oxp_sctx *c, oxp_node *n) {
  int64_t dim = -1;
  bool keep = false;
  pairs p;
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  if (n->ninputs > 1 && !dim_args(c, n, 1, &dim, &keep)) return oxp_sym_status(c);
  if (!pairs_init(c, n, x, dim, &p)) return oxp_sym_status(c);
  int dt = p.dt, trail = p.rank - 1 - p.d;
  oxp_value *eq = oxp_m_compare(c, "Equal", p.xj, p.xi, dt);
  oxp_value *cnt = over(c, "ReduceSum", oxp_sym_cast(c, eq, OXP_DT_INT64), p.d + 1, false);
  oxp_value *best = over(c, "ReduceMax", cnt, p.d, true);
  oxp_value *cand = oxp_m_compare(c, "Equal", cnt, best, OXP_DT_INT64);
  /* the smallest candidate: others are replaced by the largest number */
  int w = oxp_dtype_is_float(dt) || dt == OXP_DT_INT64 ? dt : OXP_DT_INT32;
  oxp_value *xw = oxp_m_to(c, p.x, w);
  oxp_value *big = oxp_dtype_is_float(dt) ? oxp_sym_const_scalar(c, INFINITY, w)
                                          : over(c, "ReduceMax", xw, p.d, true);
  oxp_value *v = over(c, "ReduceMin", oxp_sym_op3(c, "Where", cand, xw, big), p.d, true);
  oxp_value *at = oxp_m_compare(c, "Equal", xw, v, w);
  oxp_value *idx = over(c, "ReduceMax", oxp_sym_op3(c, "Where", at,
      arange(c, p.len, trail), oxp_sym_const_scalar(c, -1, OXP_DT_INT64)), p.d, true);
  oxp_node *g = idx ? oxp_sym_op(c, "GatherElements", (oxp_value *[]){p.x, idx}, 2, 1)
                    : NULL;
  if (!g) return oxp_sym_status(c);
  oxp_attr_set_i(g, "axis", p.d);
  oxp_value *val = g->outputs[0];
  int64_t ax = p.d;
  if (!keep) {
    val = oxp_sym_squeeze(c, val, &ax, 1);
    idx = oxp_sym_squeeze(c, idx, &ax, 1);
  }
  int out = oxp_sym_out_dtype(n, 0, 0);
  if (out && out != dt) val = oxp_sym_cast(c, val, out);
  oxp_status st = oxp_m_set_out(c, n, 0, val);
  return st ? st : oxp_m_set_out(c, n, 1, idx);
}
