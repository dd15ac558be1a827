/* s_math_sign.c: elementwise ops about signs and IEEE special values
 * that no torch exporter maps (signbit, copysign, heaviside, frac,
 * isposinf, isneginf, positive, fmax, fmin, hypot, deg2rad, rad2deg,
 * float_power). The sign of a zero is part of their results, and
 * onnxruntime's Where drops it from its second input, so a zero that
 * must keep its sign goes through the third input or a product.
 * A NaN's sign bit cannot be read in ONNX: signbit and copysign treat
 * every NaN as positive (docs/ops-notes/math.txt). */
#include <math.h>

#include "s_math_util.h"

static oxp_value *k(oxp_sctx *c, double v, int dt) {
  return oxp_sym_const_scalar(c, v, dt);
}

/* x < 0 or x == -0 (1 / -0 is -inf). */
static oxp_value *negative(oxp_sctx *c, oxp_value *x, int dt) {
  oxp_value *z = k(c, 0, dt);
  return oxp_sym_op2(c, "Or", oxp_m_compare(c, "Less", x, z, dt),
                     oxp_m_compare(c, "Less", oxp_sym_op1(c, "Reciprocal", x),
                                   z, dt));
}

oxp_status oxp_s_signbit(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int dt = x ? oxp_sym_need_dtype(c, x) : 0;
  if (!dt) return oxp_sym_status(c);
  if (oxp_dtype_is_float(dt)) return oxp_m_set_out(c, n, 0, negative(c, x, dt));
  if (dt == OXP_DT_BOOL || dt == OXP_DT_UINT8 || dt == OXP_DT_UINT16 ||
      dt == OXP_DT_UINT32 || dt == OXP_DT_UINT64)
    return oxp_m_set_out(c, n, 0, oxp_m_fill_bool(c, x, false));
  return oxp_m_set_out(c, n, 0, oxp_m_compare(c, "Less", x, k(c, 0, dt), dt));
}

/* |a| * (1 - 2 * signbit(b)): the product keeps -0. */
oxp_status oxp_s_copysign(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_m_float_dtype(c, n, 1);
  oxp_value *a, *b;
  if (!dt || !oxp_m_pair(c, n, 0, 1, dt, &a, &b)) return oxp_sym_status(c);
  oxp_value *m = oxp_sym_op2(c, "Sub", k(c, 1, dt),
                             oxp_sym_op2(c, "Mul", k(c, 2, dt),
                                         oxp_sym_cast(c, negative(c, b, dt), dt)));
  return oxp_m_set_out(c, n, 0, oxp_sym_op2(c, "Mul", oxp_sym_op1(c, "Abs", a), m));
}

/* x != 0 without Not: onnxruntime folds a Not into the Where that reads
 * it by swapping its inputs, which moves a -0 into the second one. */
static oxp_value *nonzero(oxp_sctx *c, oxp_value *x, int dt) {
  oxp_value *z = k(c, 0, dt);
  oxp_value *r = oxp_sym_op2(c, "Or", oxp_m_compare(c, "Less", x, z, dt),
                             oxp_m_compare(c, "Greater", x, z, dt));
  return oxp_dtype_is_float(dt) ? oxp_sym_op2(c, "Or", r, oxp_sym_op1(c, "IsNaN", x)) : r;
}

/* heaviside(x, v) = v where x == 0, else x > 0 (0 for NaN). */
oxp_status oxp_s_heaviside(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_m_out_dtype(c, n);
  oxp_value *x, *v;
  if (!dt) return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                               "%s: the result dtype is unknown", n->kind);
  if (!oxp_m_pair(c, n, 0, 1, dt, &x, &v)) return oxp_sym_status(c);
  oxp_value *nz = nonzero(c, x, dt);
  oxp_value *pos = oxp_sym_cast(c, oxp_m_compare(c, "Greater", x, k(c, 0, dt), dt), dt);
  return oxp_m_set_out(c, n, 0, oxp_sym_op3(c, "Where", nz, pos, v));
}

/* frac(x) = x - trunc(x), trunc as Ceil below 0 and Floor above. A zero
 * result is +0 in torch (x - x); onnxruntime may give -0 for -0 inputs,
 * so zeros are replaced by the constant +0. */
oxp_status oxp_s_frac(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int dt = x ? oxp_sym_need_dtype(c, x) : 0;
  if (!dt) return oxp_sym_status(c);
  if (!oxp_dtype_is_float(dt))
    return oxp_sym_unsupported(c, "frac of a non-float tensor (torch refuses it too)");
  oxp_value *t = oxp_sym_op3(c, "Where", oxp_m_compare(c, "Less", x, k(c, 0, dt), dt),
                             oxp_sym_op1(c, "Ceil", x), oxp_sym_op1(c, "Floor", x));
  oxp_value *r = oxp_sym_op2(c, "Sub", x, t);
  oxp_value *z = k(c, 0, dt);
  return oxp_m_set_out(c, n, 0, oxp_sym_op3(c, "Where",
                       oxp_m_compare(c, "Equal", r, z, dt), z, r));
}

static oxp_status is_inf_at(oxp_sctx *c, oxp_node *n, double v) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int dt = x ? oxp_sym_need_dtype(c, x) : 0;
  if (!dt) return oxp_sym_status(c);
  if (!oxp_dtype_is_float(dt))
    return oxp_m_set_out(c, n, 0, oxp_m_fill_bool(c, x, false));
  return oxp_m_set_out(c, n, 0, oxp_m_compare(c, "Equal", x, k(c, v, dt), dt));
}

oxp_status oxp_s_isposinf(oxp_sctx *c, oxp_node *n) { return is_inf_at(c, n, INFINITY); }
oxp_status oxp_s_isneginf(oxp_sctx *c, oxp_node *n) { return is_inf_at(c, n, -INFINITY); }

/* sgn of a real tensor: (x > 0) - (x < 0), so 0 for NaN as in torch
 * (ONNX Sign gives NaN). */
oxp_status oxp_s_sgn(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int dt = x ? oxp_sym_need_dtype(c, x) : 0;
  if (!dt) return oxp_sym_status(c);
  if (dt == OXP_DT_BOOL) return oxp_m_set_out(c, n, 0, x);
  if (dt == OXP_DT_COMPLEX64 || dt == OXP_DT_COMPLEX128)
    return oxp_sym_unsupported(c, "sgn of a complex tensor");
  oxp_value *z = k(c, 0, dt);
  oxp_value *p = oxp_sym_cast(c, oxp_m_compare(c, "Greater", x, z, dt), dt);
  oxp_value *m = oxp_sym_cast(c, oxp_m_compare(c, "Less", x, z, dt), dt);
  return oxp_m_set_out(c, n, 0, oxp_m_arith(c, "Sub", p, m, dt));
}

oxp_status oxp_s_positive(oxp_sctx *c, oxp_node *n) {
  return oxp_m_set_out(c, n, 0, oxp_sym_in(c, n, 0));
}

/* fmax / fmin: the other operand where one is NaN. */
static oxp_status fmaxmin(oxp_sctx *c, oxp_node *n, bool is_max) {
  int dt = oxp_m_out_dtype(c, n);
  oxp_value *a, *b;
  if (!dt) return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                               "%s: the result dtype is unknown", n->kind);
  if (!oxp_m_pair(c, n, 0, 1, dt, &a, &b)) return oxp_sym_status(c);
  oxp_value *m = oxp_m_maxmin(c, is_max, a, b, dt);
  if (oxp_dtype_is_float(dt)) {
    m = oxp_sym_op3(c, "Where", oxp_sym_op1(c, "IsNaN", b), a, m);
    m = oxp_sym_op3(c, "Where", oxp_sym_op1(c, "IsNaN", a), b, m);
  }
  return oxp_m_set_out(c, n, 0, m);
}

oxp_status oxp_s_fmax(oxp_sctx *c, oxp_node *n) { return fmaxmin(c, n, true); }
oxp_status oxp_s_fmin(oxp_sctx *c, oxp_node *n) { return fmaxmin(c, n, false); }

/* hypot(a, b) = m * sqrt(1 + (s / m)^2), m = max(|a|, |b|), s = min:
 * no overflow for large operands (sqrt(a^2 + b^2) passes the float
 * range at 1.8e19); 0 at m == 0; inf when either is inf, even with a
 * NaN (C's hypot). */
oxp_status oxp_s_hypot(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_m_float_dtype(c, n, 1);
  oxp_value *a, *b;
  if (!dt || !oxp_m_pair(c, n, 0, 1, dt, &a, &b)) return oxp_sym_status(c);
  a = oxp_sym_op1(c, "Abs", a);
  b = oxp_sym_op1(c, "Abs", b);
  oxp_value *alt = oxp_m_compare(c, "Less", a, b, dt);
  oxp_value *m = oxp_sym_op3(c, "Where", alt, b, a);
  oxp_value *s = oxp_sym_op3(c, "Where", alt, a, b);
  oxp_value *r = oxp_sym_op2(c, "Div", s, m);
  oxp_value *h = oxp_sym_op2(c, "Mul", m, oxp_sym_op1(c, "Sqrt",
                     oxp_sym_op2(c, "Add", k(c, 1, dt), oxp_sym_op2(c, "Mul", r, r))));
  h = oxp_sym_op3(c, "Where", oxp_m_compare(c, "Equal", m, k(c, 0, dt), dt),
                  k(c, 0, dt), h);
  oxp_value *nan = oxp_sym_op2(c, "Or", oxp_sym_op1(c, "IsNaN", a),
                               oxp_sym_op1(c, "IsNaN", b));
  h = oxp_sym_op3(c, "Where", nan, k(c, NAN, dt), h);
  oxp_value *inf = oxp_sym_op2(c, "Or",
      oxp_m_compare(c, "Equal", a, k(c, INFINITY, dt), dt),
      oxp_m_compare(c, "Equal", b, k(c, INFINITY, dt), dt));
  return oxp_m_set_out(c, n, 0, oxp_sym_op3(c, "Where", inf, k(c, INFINITY, dt), h));
}

/* x * factor in the op's float dtype (factor rounded to it, as torch's
 * scalar multiply rounds it). */
static oxp_status scale(oxp_sctx *c, oxp_node *n, double factor) {
  int dt = oxp_m_float_dtype(c, n, -1);
  oxp_value *x = dt ? oxp_sym_in_as(c, n, 0, dt) : NULL;
  if (!x) return oxp_sym_status(c);
  return oxp_m_set_out(c, n, 0, oxp_sym_op2(c, "Mul", x, k(c, factor, dt)));
}

oxp_status oxp_s_deg2rad(oxp_sctx *c, oxp_node *n) { return scale(c, n, M_PI / 180); }
oxp_status oxp_s_rad2deg(oxp_sctx *c, oxp_node *n) { return scale(c, n, 180 / M_PI); }

/* float_power: Pow in double (complex operands are refused upstream). */
oxp_status oxp_s_float_power(oxp_sctx *c, oxp_node *n) {
  oxp_value *a, *b;
  if (!oxp_m_pair(c, n, 0, 1, OXP_DT_DOUBLE, &a, &b)) return oxp_sym_status(c);
  return oxp_m_set_out(c, n, 0, oxp_sym_op2(c, "Pow", a, b));
}
