/* s_cumulative.c: scans along one dim that ONNX has no op for (cummax,
 * cummin, cumprod, logcumsumexp) and diff. ONNX has only CumSum, and
 * exp(cumsum(log)) or a shifted CumSum of exp lose exactness; so each
 * output i is a reduction over the prefix j <= i, with the prefix picked
 * by a constant L x L mask (L the static length of the dim, bounded so
 * the broadcast stays small). torch's rules are kept: cummax/cummin take
 * the last index of a tie and stick to the last NaN once one is seen. */
#include <math.h>

#include "s_math_util.h"
#include "s_nn_util.h"

/* L * L at most this: the broadcast tensors are L times the input. */
#define PREFIX_MAX (INT64_C(1) << 22)

typedef struct {
  oxp_value *x;      /* the input */
  int rank, d;       /* its rank, the scanned dim (normalized) */
  int64_t len;       /* L */
  oxp_value *xu;     /* x unsqueezed at d: j runs along d + 1 */
  oxp_value *mask;   /* bool [L, L, 1...]: j <= i, broadcast against xu */
} prefix;

/* Reads x = input 0 and dim = input 1 and builds the mask. */
static bool prefix_init(oxp_sctx *c, oxp_node *n, prefix *p) {
  int64_t dim;
  p->x = oxp_sym_in(c, n, 0);
  if (!p->x) return false;
  if (!oxp_sym_need_int(c, n, 1, &dim)) return false;
  p->rank = oxp_sym_rank(p->x);
  int64_t d;
  if (p->rank < 1 || !oxp_sym_axis(dim, p->rank, &d)) {
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: needs the input's rank (at least 1) "
                 "and a dim inside it", n->kind);
    return false;
  }
  p->d = (int)d;
  p->len = oxp_nn_dim(p->x, p->d);
  if (p->len < 1 || p->len * p->len > PREFIX_MAX) {
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: the scanned dim must have a static "
                 "length from 1 to 2048 (ONNX has no scan op for it; it is "
                 "computed over an L x L prefix mask)", n->kind);
    return false;
  }
  int trail = p->rank - 1 - p->d;
  int64_t dims[OXP_MAX_SPATIAL_DIMS + 2];
  if (trail > OXP_MAX_SPATIAL_DIMS) {
    oxp_sym_unsupported(c, "a scan over a dim followed by more than 3 dims");
    return false;
  }
  dims[0] = dims[1] = p->len;
  for (int t = 0; t < trail; t++) dims[2 + t] = 1;
  oxp_tensor *m = oxp_tensor_alloc(oxp_sym_arena(c), OXP_DT_BOOL, 2 + trail, dims);
  if (!m) return false;
  for (int64_t i = 0; i < p->len; i++)
    for (int64_t j = 0; j < p->len; j++) ((uint8_t *)m->data)[i * p->len + j] = j <= i;
  p->mask = oxp_sym_const(c, m);
  int64_t ax = p->d;
  p->xu = oxp_sym_unsqueeze(c, p->x, &ax, 1);
  return p->mask && p->xu;
}

/* v (shaped like xu or broadcasting to it) where j <= i, else fill. */
static oxp_value *masked(oxp_sctx *c, const prefix *p, oxp_value *v,
                         oxp_value *fill) {
  return oxp_sym_op3(c, "Where", p->mask, v, fill);
}

static oxp_value *over_j(oxp_sctx *c, const prefix *p, const char *op,
                         oxp_value *v) {
  int64_t ax = p->d + 1;
  return oxp_sym_reduce(c, op, v, &ax, 1, false);
}

static oxp_value *first(oxp_sctx *c, const prefix *p, oxp_value *v, int at) {
  int64_t ax = at, s = 0, e = 1;
  return oxp_sym_slice(c, v, &ax, &s, &e, NULL, 1);
}

/* The compute dtype of ReduceMax/Min for dt. */
static int order_dtype(int dt) {
  if (oxp_dtype_is_float(dt) || dt == OXP_DT_INT32 || dt == OXP_DT_INT64) return dt;
  return dt == OXP_DT_UINT32 || dt == OXP_DT_UINT64 ? OXP_DT_INT64 : OXP_DT_INT32;
}

/* cummax / cummin(x, dim) -> (values, indices). */
static oxp_status cum_order(oxp_sctx *c, oxp_node *n, bool is_max) {
  prefix p;
  if (!prefix_init(c, n, &p)) return oxp_sym_status(c);
  int dt = oxp_sym_need_dtype(c, p.x);
  if (!dt) return oxp_sym_status(c);
  int w = order_dtype(dt);
  bool fl = oxp_dtype_is_float(dt);
  oxp_value *xw = oxp_m_to(c, p.xu, w);
  oxp_value *nan = NULL;
  if (fl) {
    nan = oxp_sym_op1(c, "IsNaN", xw);
    xw = oxp_sym_op3(c, "Where", nan,
                     oxp_sym_const_scalar(c, is_max ? -INFINITY : INFINITY, w), xw);
  }
  /* masked entries take x[0], which is in every prefix */
  oxp_value *m = over_j(c, &p, is_max ? "ReduceMax" : "ReduceMin",
                        masked(c, &p, xw, first(c, &p, xw, p.d + 1)));
  int64_t ax = p.d + 1;
  oxp_value *mu = oxp_sym_unsqueeze(c, m, &ax, 1);
  oxp_value *hit = oxp_m_compare(c, "Equal", xw, mu, w);
  if (fl) {
    /* a NaN in the prefix: the last NaN wins */
    oxp_value *seen = over_j(c, &p, "ReduceMax",
                             masked(c, &p, oxp_sym_cast(c, nan, OXP_DT_INT32),
                                    oxp_sym_const_scalar(c, 0, OXP_DT_INT32)));
    oxp_value *any = oxp_sym_op1(c, "Not", oxp_m_compare(c, "Equal",
        oxp_sym_unsqueeze(c, seen, &ax, 1), oxp_sym_const_scalar(c, 0, OXP_DT_INT32),
        OXP_DT_INT32));
    /* onnxruntime's Where has no bool kernel */
    hit = oxp_sym_op2(c, "Or", oxp_sym_op2(c, "And", any, nan),
                      oxp_sym_op2(c, "And", oxp_sym_op1(c, "Not", any), hit));
  }
  int trail = p.rank - 1 - p.d;
  int64_t jd[OXP_MAX_SPATIAL_DIMS + 1];
  jd[0] = p.len;
  for (int t = 0; t < trail; t++) jd[1 + t] = 1;
  oxp_tensor *jt = oxp_tensor_alloc(oxp_sym_arena(c), OXP_DT_INT64, 1 + trail, jd);
  if (!jt) return oxp_sym_status(c);
  for (int64_t j = 0; j < p.len; j++) ((int64_t *)jt->data)[j] = j;
  oxp_value *idx = over_j(c, &p, "ReduceMax",
      masked(c, &p, oxp_sym_op3(c, "Where", hit, oxp_sym_const(c, jt),
                                oxp_sym_const_scalar(c, -1, OXP_DT_INT64)),
             oxp_sym_const_scalar(c, -1, OXP_DT_INT64)));
  /* the values are x at those indices: exact, signed zeros included */
  oxp_node *g = oxp_sym_op(c, "GatherElements", (oxp_value *[]){p.x, idx}, 2, 1);
  if (!g) return oxp_sym_status(c);
  oxp_attr_set_i(g, "axis", p.d);
  oxp_status st = oxp_m_set_out(c, n, 0, g->outputs[0]);
  return st ? st : oxp_m_set_out(c, n, 1, idx);
}

oxp_status oxp_s_cummax(oxp_sctx *c, oxp_node *n) { return cum_order(c, n, true); }
oxp_status oxp_s_cummin(oxp_sctx *c, oxp_node *n) { return cum_order(c, n, false); }

/* cumprod(x, dim, dtype): ReduceProd of the prefix (1 elsewhere). */
oxp_status oxp_s_cumprod(oxp_sctx *c, oxp_node *n) {
  prefix p;
  if (!prefix_init(c, n, &p)) return oxp_sym_status(c);
  int dt = oxp_sym_out_dtype(n, 0, 0);
  if (!dt) {
    int in = oxp_sym_need_dtype(c, p.x);
    if (!in) return oxp_sym_status(c);
    if (n->ninputs > 2 && !oxp_sym_is_none(n, 2))
      return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: the result dtype is "
                          "unknown", n->kind);
    dt = oxp_dtype_is_float(in) ? in : OXP_DT_INT64;
  }
  int w = oxp_dtype_is_float(dt) ? dt : OXP_DT_INT64;
  oxp_value *v = masked(c, &p, oxp_m_to(c, p.xu, w), oxp_sym_const_scalar(c, 1, w));
  oxp_value *r = over_j(c, &p, "ReduceProd", v);
  oxp_sym_set_type(c, r, w, -1, NULL);
  return oxp_m_set_out(c, n, 0, oxp_m_to(c, r, dt));
}

/* logcumsumexp(x, dim): M + log(sum of exp(x_j - M)) over the prefix,
 * M the prefix max (0 where it is infinite, so that -inf prefixes give
 * -inf and inf gives inf). */
oxp_status oxp_s_logcumsumexp(oxp_sctx *c, oxp_node *n) {
  prefix p;
  if (!prefix_init(c, n, &p)) return oxp_sym_status(c);
  int dt = oxp_sym_need_dtype(c, p.x);
  if (!dt) return oxp_sym_status(c);
  if (!oxp_dtype_is_float(dt))
    return oxp_sym_unsupported(c, "logcumsumexp of a non-float tensor (torch "
                                  "refuses it too)");
  oxp_value *z = oxp_sym_const_scalar(c, 0, dt);
  oxp_value *m = over_j(c, &p, "ReduceMax",
                        masked(c, &p, p.xu, oxp_sym_const_scalar(c, -INFINITY, dt)));
  oxp_value *fin = oxp_sym_op1(c, "Not", oxp_m_compare(c, "Equal",
      oxp_sym_op1(c, "Abs", m), oxp_sym_const_scalar(c, INFINITY, dt), dt));
  m = oxp_sym_op3(c, "Where", fin, m, z);
  int64_t ax = p.d + 1;
  oxp_value *e = oxp_sym_op1(c, "Exp", oxp_sym_op2(c, "Sub", p.xu,
                                                   oxp_sym_unsqueeze(c, m, &ax, 1)));
  oxp_value *s = over_j(c, &p, "ReduceSum", masked(c, &p, e, z));
  return oxp_m_set_out(c, n, 0, oxp_sym_op2(c, "Add", oxp_sym_op1(c, "Log", s), m));
}

/* diff(x, n, dim, prepend, append): prepend and append joined along dim,
 * then n times x[1:] - x[:-1] (Xor for bool). */
oxp_status oxp_s_diff(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t times = 1, dim = -1;
  if (!x) return oxp_sym_status(c);
  if ((n->ninputs > 1 && !oxp_sym_need_int(c, n, 1, &times)) ||
      (n->ninputs > 2 && !oxp_sym_need_int(c, n, 2, &dim)))
    return oxp_sym_status(c);
  int rank = oxp_sym_rank(x), dt = oxp_sym_need_dtype(c, x);
  int64_t d;
  if (!dt) return oxp_sym_status(c);
  if (rank < 1 || !oxp_sym_axis(dim, rank, &d) || times < 0)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: needs the input's rank, "
                        "a dim inside it and n >= 0", n->kind);
  oxp_value *parts[3];
  int np = 0;
  for (int i = 3; i <= 4; i++) { /* prepend, x, append */
    if (i == 4) parts[np++] = x;
    if (n->ninputs <= i || oxp_sym_is_none(n, i)) continue;
    oxp_value *e = oxp_sym_in_as(c, n, i, dt);
    if (!e) return oxp_sym_status(c);
    if (oxp_sym_rank(e) != rank)
      return oxp_sym_unsupported(c, "diff with a prepend or append of another rank");
    parts[np++] = e;
  }
  if (np > 1) {
    oxp_node *cat = oxp_sym_op(c, "Concat", parts, np, 1);
    if (!cat) return oxp_sym_status(c);
    oxp_attr_set_i(cat, "axis", d);
    x = cat->outputs[0];
  }
  for (int64_t t = 0; t < times; t++) {
    int64_t s1 = 1, e1 = INT64_MAX, s0 = 0, e0 = -1;
    oxp_value *hi = oxp_sym_slice(c, x, &d, &s1, &e1, NULL, 1);
    oxp_value *lo = oxp_sym_slice(c, x, &d, &s0, &e0, NULL, 1);
    x = dt == OXP_DT_BOOL ? oxp_sym_op2(c, "Xor", hi, lo)
                          : oxp_m_arith(c, "Sub", hi, lo, dt);
    if (!x) return oxp_sym_status(c);
  }
  return oxp_m_set_out(c, n, 0, x);
}
