/* s_math_exp.c: exp/log ops no torch exporter maps (expm1, logaddexp,
 * logaddexp2, xlogy, special_xlog1py, special_entr, sinc). ONNX has only
 * Exp and Log, and exp(x) - 1 or log(1 + x) lose every digit near zero,
 * where these ops are used; so expm1 and log1p are Kahan's corrected
 * forms, exact to a few ulps, and each op's special values (x == 0,
 * NaN, equal infinities) are chosen as torch's kernels choose them. */
#include <math.h>

#include "s_math_util.h"

static oxp_value *k(oxp_sctx *c, double v, int dt) {
  return oxp_sym_const_scalar(c, v, dt);
}

static oxp_value *where(oxp_sctx *c, oxp_value *cond, oxp_value *a,
                        oxp_value *b) {
  return oxp_sym_op3(c, "Where", cond, a, b);
}

static oxp_value *lt(oxp_sctx *c, oxp_value *a, oxp_value *b, int dt) {
  return oxp_m_compare(c, "Less", a, b, dt);
}

static oxp_value *eq(oxp_sctx *c, oxp_value *a, oxp_value *b, int dt) {
  return oxp_m_compare(c, "Equal", a, b, dt);
}

/* |r| with the sign of x, for r that has x's sign, zeros included:
 * onnxruntime's Where returns +0 for a -0 taken from its second input,
 * so a zero's sign is restored by a product with -1 or 1 after it. */
static oxp_value *sign_of(oxp_sctx *c, oxp_value *r, oxp_value *x, int dt) {
  oxp_value *neg = oxp_sym_op2(c, "Or", lt(c, x, k(c, 0, dt), dt),
                               lt(c, oxp_sym_op1(c, "Reciprocal", x),
                                  k(c, 0, dt), dt));
  oxp_value *m = oxp_sym_op2(c, "Sub", k(c, 1, dt),
                             oxp_sym_op2(c, "Mul", k(c, 2, dt),
                                         oxp_sym_cast(c, neg, dt)));
  return oxp_sym_op2(c, "Mul", oxp_sym_op1(c, "Abs", r), m);
}

/* |x| < 0.5: Kahan's log1p, log(u) * x / (u - 1) with u = 1 + x (x where
 * u rounds to 1); elsewhere log(1 + x) is already exact to an ulp. The
 * result has x's sign (log1p(x) < 0 iff x < 0, for x > -1). */
static oxp_value *log1p_of(oxp_sctx *c, oxp_value *x, int dt) {
  oxp_value *u = oxp_sym_op2(c, "Add", x, k(c, 1, dt));
  oxp_value *lu = oxp_sym_op1(c, "Log", u);
  oxp_value *fix = oxp_sym_op2(c, "Div", oxp_sym_op2(c, "Mul", lu, x),
                               oxp_sym_op2(c, "Sub", u, k(c, 1, dt)));
  fix = where(c, eq(c, u, k(c, 1, dt), dt), x, fix);
  return sign_of(c, where(c, lt(c, oxp_sym_op1(c, "Abs", x), k(c, 0.5, dt), dt),
                          fix, lu), x, dt);
}

/* |x| < 1: Kahan's expm1, (u - 1) * x / log(u) with u = exp(x) (x where u
 * rounds to 1, so -0 stays -0); elsewhere exp(x) - 1 is exact to an ulp
 * and gives inf and -1 at the infinities. */
static oxp_value *expm1_of(oxp_sctx *c, oxp_value *x, int dt) {
  oxp_value *u = oxp_sym_op1(c, "Exp", x);
  oxp_value *um1 = oxp_sym_op2(c, "Sub", u, k(c, 1, dt));
  oxp_value *fix = oxp_sym_op2(c, "Div", oxp_sym_op2(c, "Mul", um1, x),
                               oxp_sym_op1(c, "Log", u));
  fix = where(c, eq(c, u, k(c, 1, dt), dt), x, fix);
  return sign_of(c, where(c, lt(c, oxp_sym_op1(c, "Abs", x), k(c, 1, dt), dt),
                          fix, um1), x, dt);
}

/* Input 0 in the op's float dtype. */
static oxp_value *float_x(oxp_sctx *c, oxp_node *n, int *dt) {
  *dt = oxp_m_float_dtype(c, n, -1);
  return *dt ? oxp_sym_in_as(c, n, 0, *dt) : NULL;
}

oxp_status oxp_s_expm1(oxp_sctx *c, oxp_node *n) {
  int dt;
  oxp_value *x = float_x(c, n, &dt);
  if (!x) return oxp_sym_status(c);
  return oxp_m_set_out(c, n, 0, expm1_of(c, x, dt));
}

/* torch: a when both are the same infinity, else
 * max(a, b) + log1p(exp(-|a - b|)) (NaN when either is NaN, through
 * |a - b|). base2 takes exp2 and divides the log1p by ln 2. */
static oxp_status log_add_exp(oxp_sctx *c, oxp_node *n, bool base2) {
  int dt = oxp_m_float_dtype(c, n, 1);
  oxp_value *a, *b;
  if (!dt || !oxp_m_pair(c, n, 0, 1, dt, &a, &b)) return oxp_sym_status(c);
  oxp_value *d = oxp_sym_op1(c, "Neg", oxp_sym_op1(c, "Abs",
                                                  oxp_sym_op2(c, "Sub", a, b)));
  oxp_value *e = base2 ? oxp_sym_op2(c, "Pow", k(c, 2, dt), d)
                       : oxp_sym_op1(c, "Exp", d);
  oxp_value *l = log1p_of(c, e, dt);
  if (base2) l = oxp_sym_op2(c, "Div", l, k(c, M_LN2, dt));
  oxp_value *m = where(c, lt(c, a, b, dt), b, a);
  oxp_value *y = oxp_sym_op2(c, "Add", m, l);
  oxp_value *inf = oxp_sym_op2(c, "And", eq(c, a, b, dt),
                               eq(c, oxp_sym_op1(c, "Abs", a), k(c, INFINITY, dt), dt));
  return oxp_m_set_out(c, n, 0, where(c, inf, a, y));
}

oxp_status oxp_s_logaddexp(oxp_sctx *c, oxp_node *n) {
  return log_add_exp(c, n, false);
}

oxp_status oxp_s_logaddexp2(oxp_sctx *c, oxp_node *n) {
  return log_add_exp(c, n, true);
}

/* xlogy(x, y): NaN when y is NaN, else 0 when x == 0, else x * log(y);
 * xlog1py the same with log1p(y). */
static oxp_status x_log(oxp_sctx *c, oxp_node *n, bool plus1) {
  int dt = oxp_m_float_dtype(c, n, 1);
  oxp_value *x, *y;
  if (!dt || !oxp_m_pair(c, n, 0, 1, dt, &x, &y)) return oxp_sym_status(c);
  oxp_value *l = plus1 ? log1p_of(c, y, dt) : oxp_sym_op1(c, "Log", y);
  oxp_value *r = where(c, eq(c, x, k(c, 0, dt), dt), k(c, 0, dt),
                       oxp_sym_op2(c, "Mul", x, l));
  r = where(c, oxp_sym_op1(c, "IsNaN", y), k(c, NAN, dt), r);
  return oxp_m_set_out(c, n, 0, r);
}

oxp_status oxp_s_xlogy(oxp_sctx *c, oxp_node *n) { return x_log(c, n, false); }
oxp_status oxp_s_xlog1py(oxp_sctx *c, oxp_node *n) { return x_log(c, n, true); }

/* entr(x) = -x * log(x) for x > 0, 0 at 0, -inf below, NaN for NaN. */
oxp_status oxp_s_entr(oxp_sctx *c, oxp_node *n) {
  int dt;
  oxp_value *x = float_x(c, n, &dt);
  if (!x) return oxp_sym_status(c);
  oxp_value *pos = oxp_sym_op2(c, "Mul", oxp_sym_op1(c, "Neg", x),
                               oxp_sym_op1(c, "Log", x));
  oxp_value *r = where(c, eq(c, x, k(c, 0, dt), dt), k(c, 0, dt),
                       k(c, -INFINITY, dt));
  r = where(c, lt(c, k(c, 0, dt), x, dt), pos, r);
  r = where(c, oxp_sym_op1(c, "IsNaN", x), x, r);
  return oxp_m_set_out(c, n, 0, r);
}

/* sinc(x) = sin(pi x) / (pi x), 1 at 0; pi x rounded in the dtype, as
 * torch computes it. */
oxp_status oxp_s_sinc(oxp_sctx *c, oxp_node *n) {
  int dt;
  oxp_value *x = float_x(c, n, &dt);
  if (!x) return oxp_sym_status(c);
  oxp_value *p = oxp_sym_op2(c, "Mul", x, k(c, M_PI, dt));
  oxp_value *r = oxp_sym_op2(c, "Div", oxp_sym_op1(c, "Sin", p), p);
  return oxp_m_set_out(c, n, 0, where(c, eq(c, x, k(c, 0, dt), dt),
                                      k(c, 1, dt), r));
}
