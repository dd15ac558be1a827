/* s_math_unary.c: elementwise math of one tensor: exp/log/trig families,
 * rounding, sign, and the NaN/inf tests. torch computes the float-valued
 * ones of integer tensors in the default float type, which the traced
 * output dtype records, so the input is cast to it first. */
#include <math.h>

#include "s_math_util.h"

/* Input 0 in the dtype a float-valued op computes in. */
static oxp_value *float_in(oxp_sctx *c, oxp_node *n, int *dt) {
  int in = oxp_m_in_dtype(c, n, 0);
  int out = oxp_sym_out_dtype(n, 0, 0);
  /* ints and bools compute in the default float; an unknown input
   * is not assumed to be one of them */
  if (!out && !in) in = oxp_sym_need_dtype(c, oxp_sym_in(c, n, 0));
  if (!out && !in) return NULL;
  *dt = out && oxp_dtype_is_float(out) ? out
        : oxp_dtype_is_float(in)       ? in
                                       : OXP_DT_FLOAT;
  return oxp_sym_in_as(c, n, 0, *dt);
}

static oxp_status float_unary(oxp_sctx *c, oxp_node *n, const char *op) {
  int dt;
  oxp_value *x = float_in(c, n, &dt);
  return oxp_m_set_out(c, n, 0, oxp_sym_op1(c, op, x));
}

#define OXP_FLOAT_UNARY(fn, op) \
  oxp_status fn(oxp_sctx *c, oxp_node *n) { return float_unary(c, n, op); }

OXP_FLOAT_UNARY(oxp_s_reciprocal, "Reciprocal")
OXP_FLOAT_UNARY(oxp_s_sqrt, "Sqrt")
OXP_FLOAT_UNARY(oxp_s_exp, "Exp")
OXP_FLOAT_UNARY(oxp_s_log, "Log")
OXP_FLOAT_UNARY(oxp_s_sin, "Sin")
OXP_FLOAT_UNARY(oxp_s_cos, "Cos")
OXP_FLOAT_UNARY(oxp_s_tan, "Tan")
OXP_FLOAT_UNARY(oxp_s_asin, "Asin")
OXP_FLOAT_UNARY(oxp_s_acos, "Acos")
OXP_FLOAT_UNARY(oxp_s_atan, "Atan")
OXP_FLOAT_UNARY(oxp_s_sinh, "Sinh")
OXP_FLOAT_UNARY(oxp_s_cosh, "Cosh")
OXP_FLOAT_UNARY(oxp_s_asinh, "Asinh")
OXP_FLOAT_UNARY(oxp_s_acosh, "Acosh")
OXP_FLOAT_UNARY(oxp_s_atanh, "Atanh")
OXP_FLOAT_UNARY(oxp_s_erf, "Erf")

oxp_status oxp_s_rsqrt(oxp_sctx *c, oxp_node *n) {
  int dt;
  oxp_value *x = float_in(c, n, &dt);
  return oxp_m_set_out(c, n, 0,
                         oxp_sym_op1(c, "Reciprocal", oxp_sym_op1(c, "Sqrt", x)));
}

/* log2 / log10 as Log scaled by the constant 1 / ln(base). */
static oxp_status log_base(oxp_sctx *c, oxp_node *n, double base) {
  int dt;
  oxp_value *x = float_in(c, n, &dt);
  oxp_value *l = oxp_sym_op1(c, "Log", x);
  return oxp_m_set_out(c, n, 0, oxp_sym_op2(c, "Div", l,
                         oxp_sym_const_scalar(c, log(base), dt)));
}

oxp_status oxp_s_log2(oxp_sctx *c, oxp_node *n) { return log_base(c, n, 2); }
oxp_status oxp_s_log10(oxp_sctx *c, oxp_node *n) { return log_base(c, n, 10); }

oxp_status oxp_s_log1p(oxp_sctx *c, oxp_node *n) {
  int dt;
  oxp_value *x = float_in(c, n, &dt);
  oxp_value *p = oxp_sym_op2(c, "Add", x, oxp_sym_const_scalar(c, 1, dt));
  return oxp_m_set_out(c, n, 0, oxp_sym_op1(c, "Log", p));
}

oxp_status oxp_s_exp2(oxp_sctx *c, oxp_node *n) {
  int dt;
  oxp_value *x = float_in(c, n, &dt);
  return oxp_m_set_out(c, n, 0,
      oxp_sym_op2(c, "Pow", oxp_sym_const_scalar(c, 2, dt), x));
}

/* Ops that keep the input dtype. */
static oxp_status same_unary(oxp_sctx *c, oxp_node *n, const char *op) {
  return oxp_m_set_out(c, n, 0, oxp_sym_op1(c, op, oxp_sym_in(c, n, 0)));
}

oxp_status oxp_s_abs(oxp_sctx *c, oxp_node *n) { return same_unary(c, n, "Abs"); }

oxp_status oxp_s_sign(oxp_sctx *c, oxp_node *n) {
  if (oxp_m_in_dtype(c, n, 0) == OXP_DT_BOOL)
    return oxp_m_set_out(c, n, 0, oxp_sym_in(c, n, 0));
  return same_unary(c, n, "Sign");
}

oxp_status oxp_s_square(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_m_out_dtype(c, n);
  /* square is pow(x, 2): a bool tensor squares to int64 (scripted graphs
   * leave the output untyped, and bool has no Mul). */
  if (dt == OXP_DT_BOOL) dt = OXP_DT_INT64;
  oxp_value *x = oxp_sym_in_as(c, n, 0, dt);
  return oxp_m_set_out(c, n, 0, oxp_m_arith(c, "Mul", x, x, dt));
}

/* Rounding: the identity on integer tensors (Floor/Ceil/Round are
 * float-only in ONNX). */
static oxp_status rounding(oxp_sctx *c, oxp_node *n, const char *op) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  if (!oxp_dtype_is_float(oxp_m_in_dtype(c, n, 0)))
    return oxp_m_set_out(c, n, 0, x);
  if (!op) return oxp_m_set_out(c, n, 0, oxp_m_trunc(c, x, oxp_m_in_dtype(c, n, 0)));
  return oxp_m_set_out(c, n, 0, oxp_sym_op1(c, op, x));
}

oxp_status oxp_s_floor(oxp_sctx *c, oxp_node *n) { return rounding(c, n, "Floor"); }
oxp_status oxp_s_ceil(oxp_sctx *c, oxp_node *n) { return rounding(c, n, "Ceil"); }
oxp_status oxp_s_trunc(oxp_sctx *c, oxp_node *n) { return rounding(c, n, NULL); }

/* round(x[, decimals]): Round is half-to-even like torch. With decimals,
 * torch scales by 10^d (dividing for negative d) around the rounding. */
oxp_status oxp_s_round(oxp_sctx *c, oxp_node *n) {
  int64_t d = 0;
  if (n->ninputs > 1 && !oxp_sym_is_none(n, 1) && !oxp_sym_int(n, 1, &d))
    return oxp_sym_unsupported(c, "round with runtime decimals");
  if (d == 0) return rounding(c, n, "Round");
  if (d < -400 || d > 400) /* 10^d is 0 or inf in double well before */
    return oxp_sym_unsupported(c, "round with more than 400 decimals");
  oxp_value *x = oxp_sym_in(c, n, 0);
  int dt = oxp_sym_dtype(x);
  if (!x || !oxp_dtype_is_float(dt)) return oxp_m_set_out(c, n, 0, x);
  oxp_value *k = oxp_sym_const_scalar(c, pow(10, (double)(d < 0 ? -d : d)), dt);
  const char *in = d > 0 ? "Mul" : "Div", *out = d > 0 ? "Div" : "Mul";
  oxp_value *r = oxp_sym_op1(c, "Round", oxp_sym_op2(c, in, x, k));
  return oxp_m_set_out(c, n, 0, oxp_sym_op2(c, out, r, k));
}

/* ---- NaN and inf ---------------------------------------------------------- */

/* IsInf is defined for float and double; half types widen exactly. */
static oxp_value *isinf_of(oxp_sctx *c, oxp_value *x, int dt, int neg,
                           int pos) {
  if (dt != OXP_DT_FLOAT && dt != OXP_DT_DOUBLE)
    x = oxp_m_to(c, x, OXP_DT_FLOAT);
  oxp_node *k = x ? oxp_sym_op(c, "IsInf", &x, 1, 1) : NULL;
  if (!k) return NULL;
  if (!neg) oxp_attr_set_i(k, "detect_negative", 0);
  if (!pos) oxp_attr_set_i(k, "detect_positive", 0);
  return k->outputs[0];
}

static oxp_value *isnan_of(oxp_sctx *c, oxp_value *x, int dt) {
  if (dt == OXP_DT_BFLOAT16 && oxp_sym_opset(c) < 13)
    x = oxp_m_to(c, x, OXP_DT_FLOAT);
  return oxp_sym_op1(c, "IsNaN", x);
}

/* Integer and bool tensors hold no NaN or inf. */
static oxp_status nan_test(oxp_sctx *c, oxp_node *n, char which) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int dt = oxp_m_in_dtype(c, n, 0);
  if (!oxp_dtype_is_float(dt))
    return oxp_m_set_out(c, n, 0, oxp_m_fill_bool(c, x, which == 'f'));
  oxp_value *y;
  if (which == 'n') y = isnan_of(c, x, dt);
  else if (which == 'i') y = isinf_of(c, x, dt, 1, 1);
  else
    y = oxp_sym_op1(c, "Not", oxp_sym_op2(c, "Or", isinf_of(c, x, dt, 1, 1),
                                          isnan_of(c, x, dt)));
  return oxp_m_set_out(c, n, 0, y);
}

oxp_status oxp_s_isnan(oxp_sctx *c, oxp_node *n) { return nan_test(c, n, 'n'); }
oxp_status oxp_s_isinf(oxp_sctx *c, oxp_node *n) { return nan_test(c, n, 'i'); }
oxp_status oxp_s_isfinite(oxp_sctx *c, oxp_node *n) { return nan_test(c, n, 'f'); }

/* The largest finite value of a float dtype. */
static double finite_max(int dt) {
  switch (dt) {
  case OXP_DT_FLOAT16: return 65504.0;
  case OXP_DT_BFLOAT16: return 3.3895313892515355e38;
  case OXP_DT_DOUBLE: return 1.7976931348623157e308;
  default: return 3.4028234663852886e38;
  }
}

/* nan_to_num(x, nan, posinf, neginf): None bounds are the dtype's
 * largest finite values. */
oxp_status oxp_s_nan_to_num(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int dt = oxp_m_in_dtype(c, n, 0);
  if (!oxp_dtype_is_float(dt)) return oxp_m_set_out(c, n, 0, x);
  double v[3] = {0, finite_max(dt), -finite_max(dt)};
  for (int i = 0; i < 3; i++)
    if (i + 1 < n->ninputs && !oxp_sym_is_none(n, i + 1) &&
        !oxp_sym_float(n, i + 1, &v[i]))
      return oxp_sym_unsupported(c, "nan_to_num with runtime replacement values");
  oxp_value *y = oxp_sym_op3(c, "Where", isnan_of(c, x, dt),
                             oxp_sym_const_scalar(c, v[0], dt), x);
  y = oxp_sym_op3(c, "Where", isinf_of(c, x, dt, 0, 1),
                  oxp_sym_const_scalar(c, v[1], dt), y);
  y = oxp_sym_op3(c, "Where", isinf_of(c, x, dt, 1, 0),
                  oxp_sym_const_scalar(c, v[2], dt), y);
  return oxp_m_set_out(c, n, 0, y);
}
