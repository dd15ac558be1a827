/* s_math_extra.c: elementwise ops PyTorch main's exporter maps and torch
 * 1.13's does not (atan2, logit) or that 1.13 registers but onnxexp lacked
 * (tanhshrink). ONNX has no Atan2 and no Logit, so each is a short formula
 * of ops every opset from 9 has, exact where the formula is. Integer inputs
 * compute in the float type the traced output records (torch's rule). */
#include <math.h>

#include "s_math_util.h"

/* The float dtype a float-valued op of inputs 0..k-1 computes in: the
 * traced output's, else the promoted inputs' when float, else float32. */
static int float_dtype(oxp_sctx *c, oxp_node *n, int k) {
  int out = oxp_sym_out_dtype(n, 0, 0);
  if (out && oxp_dtype_is_float(out)) return out;
  int in = k > 1 ? oxp_m_result_dtype(c, n, 0, 1) : oxp_m_in_dtype(c, n, 0);
  if (!in) in = oxp_sym_need_dtype(c, oxp_sym_in(c, n, 0));
  if (!in) return 0;
  return oxp_dtype_is_float(in) ? in : OXP_DT_FLOAT;
}

static oxp_value *scalar(oxp_sctx *c, double v, int dt) {
  return oxp_sym_const_scalar(c, v, dt);
}

/* atan2(y, x) as IEEE (torch's std::atan2): the magnitude is
 * atan2(|y|, x) = atan(|y| / x), plus pi when x < 0, its sign y's sign
 * bit (y < 0 or 1 / y < 0, so -0.0 counts), applied by a product because
 * onnxruntime's Where drops the sign of a selected -0.0. In the division
 * x = -0.0 is written +0.0 (|y| / -0 would be -inf, not +pi/2). The cases
 * the quotient cannot give: y = x = 0 (0 / 0): pi when x's sign bit is
 * set, else 0; |y| = |x| = inf: 3pi/4 when x < 0, else pi/4. */
static oxp_value *sign_bit(oxp_sctx *c, oxp_value *v, int dt) {
  oxp_value *zero = scalar(c, 0, dt);
  oxp_value *inv = oxp_sym_op2(c, "Div", scalar(c, 1, dt), v);
  oxp_sym_set_type(c, inv, dt, -1, NULL);
  return oxp_sym_op2(c, "Or", oxp_m_compare(c, "Less", v, zero, dt),
                     oxp_m_compare(c, "Less", inv, zero, dt));
}

oxp_status oxp_s_atan2(oxp_sctx *c, oxp_node *n) {
  int dt = float_dtype(c, n, 2);
  if (!dt) return oxp_sym_status(c);
  oxp_value *y = oxp_sym_in_as(c, n, 0, dt);
  oxp_value *x = y ? oxp_sym_in_as(c, n, 1, dt) : NULL;
  if (!x) return oxp_sym_status(c);
  oxp_value *zero = scalar(c, 0, dt), *pi = scalar(c, M_PI, dt), *inf = scalar(c, INFINITY, dt);
  oxp_value *ay = oxp_sym_op1(c, "Abs", y), *ax = oxp_sym_op1(c, "Abs", x);
  oxp_sym_set_type(c, ay, dt, -1, NULL);
  oxp_sym_set_type(c, ax, dt, -1, NULL);
  oxp_value *x_zero = oxp_m_compare(c, "Equal", x, zero, dt);
  oxp_value *xp = oxp_sym_op3(c, "Where", x_zero, zero, x);
  oxp_value *a = oxp_sym_op1(c, "Atan", oxp_sym_op2(c, "Div", ay, xp));
  oxp_value *x_neg = oxp_m_compare(c, "Less", x, zero, dt);
  oxp_value *m = oxp_sym_op3(c, "Where", x_neg, oxp_sym_op2(c, "Add", a, pi), a);
  oxp_value *origin = oxp_sym_op2(c, "And", oxp_m_compare(c, "Equal", ay, zero, dt), x_zero);
  m = oxp_sym_op3(c, "Where", origin, oxp_sym_op3(c, "Where", sign_bit(c, x, dt), pi, zero), m);
  oxp_value *both_inf = oxp_sym_op2(c, "And", oxp_m_compare(c, "Equal", ay, inf, dt),
                                    oxp_m_compare(c, "Equal", ax, inf, dt));
  m = oxp_sym_op3(c, "Where", both_inf, oxp_sym_op3(c, "Where", x_neg,
                  scalar(c, 3 * M_PI / 4, dt), scalar(c, M_PI / 4, dt)), m);
  m = oxp_sym_op1(c, "Abs", m);
  oxp_value *sgn = oxp_sym_op3(c, "Where", sign_bit(c, y, dt), scalar(c, -1, dt), scalar(c, 1, dt));
  return oxp_m_set_out(c, n, 0, oxp_sym_op2(c, "Mul", m, sgn));
}

/* logit(x, eps) = log(z / (1 - z)), z = x clamped to [eps, 1 - eps] when
 * eps is given (Max/Min, which keep NaN at every opset's float types). */
oxp_status oxp_s_logit(oxp_sctx *c, oxp_node *n) {
  int dt = float_dtype(c, n, 1);
  if (!dt) return oxp_sym_status(c);
  oxp_value *z = oxp_sym_in_as(c, n, 0, dt);
  if (!z) return oxp_sym_status(c);
  if (n->ninputs > 1 && !oxp_sym_is_none(n, 1)) {
    double eps;
    if (!oxp_sym_float(n, 1, &eps))
      return oxp_sym_unsupported(c, "logit with a runtime eps");
    z = oxp_sym_op2(c, "Max", z, scalar(c, eps, dt));
    z = oxp_sym_op2(c, "Min", z, scalar(c, 1 - eps, dt));
  }
  oxp_value *odds = oxp_sym_op2(c, "Div", z, oxp_sym_op2(c, "Sub", scalar(c, 1, dt), z));
  return oxp_m_set_out(c, n, 0, oxp_sym_op1(c, "Log", odds));
}

/* tanhshrink(x) = x - tanh(x). */
oxp_status oxp_s_tanhshrink(oxp_sctx *c, oxp_node *n) {
  int dt = float_dtype(c, n, 1);
  if (!dt) return oxp_sym_status(c);
  oxp_value *x = oxp_sym_in_as(c, n, 0, dt);
  return oxp_m_set_out(c, n, 0, oxp_sym_op2(c, "Sub", x, oxp_sym_op1(c, "Tanh", x)));
}
