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

/* atan2(y, x) = atan(y / x), moved by +-pi when x < 0 (toward the sign of
 * y, +pi for y = 0 as torch), and 0 for y = x = 0 (where y / x is NaN).
 * x = 0, y != 0 needs no case: y / x is +-inf and atan gives +-pi/2. */
oxp_status oxp_s_atan2(oxp_sctx *c, oxp_node *n) {
  int dt = float_dtype(c, n, 2);
  if (!dt) return oxp_sym_status(c);
  oxp_value *y = oxp_sym_in_as(c, n, 0, dt);
  oxp_value *x = y ? oxp_sym_in_as(c, n, 1, dt) : NULL;
  if (!x) return oxp_sym_status(c);
  oxp_value *zero = scalar(c, 0, dt), *pi = scalar(c, M_PI, dt);
  oxp_value *a = oxp_sym_op1(c, "Atan", oxp_sym_op2(c, "Div", y, x));
  oxp_value *y_neg = oxp_m_compare(c, "Less", y, zero, dt);
  oxp_value *moved = oxp_sym_op3(c, "Where", y_neg, oxp_sym_op2(c, "Sub", a, pi),
                                 oxp_sym_op2(c, "Add", a, pi));
  oxp_value *r = oxp_sym_op3(c, "Where", oxp_m_compare(c, "Less", x, zero, dt), moved, a);
  oxp_value *origin = oxp_sym_op2(c, "And", oxp_m_compare(c, "Equal", y, zero, dt),
                                  oxp_m_compare(c, "Equal", x, zero, dt));
  return oxp_m_set_out(c, n, 0, oxp_sym_op3(c, "Where", origin, zero, r));
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
