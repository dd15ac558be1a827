/* s_arith.c: elementwise arithmetic (add/sub/mul/div and rounding
 * division, remainder/fmod, pow, addcmul/addcdiv, lerp), activations and
 * matrix products. The traced output type fixes the result dtype torch's
 * promotion chose, so operands are brought to it (constants directly,
 * tensors by Cast). */
#include <math.h>
#include <string.h>

#include "s_control.h"
#include "s_math_util.h"

/* Both operands of a binary op in the output's dtype. */
static bool operands(oxp_sctx *c, oxp_node *n, oxp_value **a, oxp_value **b) {
  return oxp_m_pair(c, n, 0, 1, oxp_m_out_dtype(c, n), a, b);
}

/* other * alpha, skipped when alpha is absent or one. */
static oxp_value *scale_alpha(oxp_sctx *c, oxp_node *n, oxp_value *v,
                              int dtype) {
  double alpha = 1;
  if (n->ninputs < 3 || oxp_sym_is_none(n, 2)) return v;
  if (!oxp_sym_float(n, 2, &alpha))
    return oxp_m_arith(c, "Mul", v, oxp_sym_in_as(c, n, 2, dtype), dtype);
  if (alpha == 1) return v;
  return oxp_m_arith(c, "Mul", v, oxp_sym_const_scalar(c, alpha, dtype), dtype);
}

static oxp_status binary(oxp_sctx *c, oxp_node *n, const char *op) {
  oxp_value *a, *b;
  if (!operands(c, n, &a, &b)) return oxp_sym_status(c);
  return oxp_m_set_out(c, n, 0, oxp_m_arith(c, op, a, b, oxp_sym_dtype(a)));
}

oxp_status oxp_s_add(oxp_sctx *c, oxp_node *n) {
  if (oxp_seq_adds_lists(n)) return oxp_seq_add_lists(c, n); /* s_seq.c */
  oxp_value *a, *b;
  if (!operands(c, n, &a, &b)) return oxp_sym_status(c);
  int dt = oxp_sym_dtype(a);
  b = scale_alpha(c, n, b, dt);
  return oxp_m_set_out(c, n, 0, oxp_m_arith(c, "Add", a, b, dt));
}

oxp_status oxp_s_sub(oxp_sctx *c, oxp_node *n) {
  oxp_value *a, *b;
  if (!operands(c, n, &a, &b)) return oxp_sym_status(c);
  int dt = oxp_sym_dtype(a);
  b = scale_alpha(c, n, b, dt);
  return oxp_m_set_out(c, n, 0, oxp_m_arith(c, "Sub", a, b, dt));
}

/* rsub(self, other, alpha) = other - self * alpha */
oxp_status oxp_s_rsub(oxp_sctx *c, oxp_node *n) {
  oxp_value *a, *b;
  if (!operands(c, n, &a, &b)) return oxp_sym_status(c);
  int dt = oxp_sym_dtype(b);
  a = scale_alpha(c, n, a, dt);
  return oxp_m_set_out(c, n, 0, oxp_m_arith(c, "Sub", b, a, dt));
}

oxp_status oxp_s_mul(oxp_sctx *c, oxp_node *n) { return binary(c, n, "Mul"); }

/* a / b rounded as mode says ('t'runc, 'f'loor, 0: true division), in
 * the output dtype dt. Integer quotients stay integer: Div truncates. */
static oxp_value *divide(oxp_sctx *c, oxp_value *a, oxp_value *b, char mode,
                         int dt) {
  if (!oxp_dtype_is_float(dt)) {
    if (mode == 'f') return oxp_m_floor_div_int(c, a, b, dt);
    return oxp_m_arith(c, "Div", a, b, dt);
  }
  oxp_value *q = oxp_sym_op2(c, "Div", a, b);
  oxp_sym_set_type(c, q, dt, -1, NULL);
  if (mode == 't') return oxp_m_trunc(c, q, dt);
  /* Opset 9 has no Mod: Floor(Div), off where a / b rounds onto an
   * integer or an operand is infinite. */
  if (mode == 'f')
    return oxp_sym_opset(c) >= 10 ? oxp_m_floor_div_float(c, a, b, dt) : oxp_sym_op1(c, "Floor", q);
  return q;
}

static oxp_status div_mode(oxp_sctx *c, oxp_node *n, char mode) {
  oxp_value *a, *b;
  int dt = oxp_m_out_dtype(c, n);
  /* Untyped (scripted) outputs: true division of integers is float. */
  if (!mode && !oxp_dtype_is_float(dt)) dt = OXP_DT_FLOAT;
  if (!oxp_m_pair(c, n, 0, 1, dt, &a, &b)) return oxp_sym_status(c);
  return oxp_m_set_out(c, n, 0, divide(c, a, b, mode, dt));
}

/* div(a, b[, rounding_mode]): the traced output dtype is float for true
 * division, the promoted type when rounding. */
oxp_status oxp_s_div(oxp_sctx *c, oxp_node *n) {
  const char *mode = NULL;
  if (n->ninputs > 2 && !oxp_sym_is_none(n, 2) && !oxp_sym_str(n, 2, &mode))
    return oxp_sym_unsupported(c, "div with a runtime rounding_mode");
  if (mode && strcmp(mode, "trunc") != 0 && strcmp(mode, "floor") != 0)
    return oxp_sym_unsupported(c, "this rounding_mode");
  return div_mode(c, n, mode ? mode[0] : 0);
}

/* torch 1.13 floor_divide rounds toward -inf (earlier versions, and the
 * legacy exporter, truncated). */
oxp_status oxp_s_floor_divide(oxp_sctx *c, oxp_node *n) {
  return div_mode(c, n, 'f');
}

/* fmod: C's fmod / truncated integer remainder, sign of the dividend. */
oxp_status oxp_s_fmod(oxp_sctx *c, oxp_node *n) {
  oxp_value *a, *b;
  if (!operands(c, n, &a, &b)) return oxp_sym_status(c);
  oxp_node *m = oxp_sym_op(c, "Mod", (oxp_value *[]){a, b}, 2, 1);
  if (!m) return oxp_sym_status(c);
  oxp_attr_set_i(m, "fmod", 1);
  return oxp_m_set_out(c, n, 0, m->outputs[0]);
}

/* remainder: Python's modulo, sign of the divisor. Mod(fmod=0) is that
 * for integers; floats need fmod=1 (exact) and a fix-up where the signs
 * differ. Opset 9 has no Mod: a - floor(a / b) * b. */
oxp_status oxp_s_remainder(oxp_sctx *c, oxp_node *n) {
  oxp_value *a, *b;
  if (!operands(c, n, &a, &b)) return oxp_sym_status(c);
  int dt = oxp_sym_dtype(a);
  bool fl = oxp_dtype_is_float(dt);
  if (oxp_sym_opset(c) < 10) {
    oxp_value *q = divide(c, a, b, 'f', dt);
    return oxp_m_set_out(c, n, 0,
        oxp_m_arith(c, "Sub", a, oxp_m_arith(c, "Mul", q, b, dt), dt));
  }
  oxp_node *m = oxp_sym_op(c, "Mod", (oxp_value *[]){a, b}, 2, 1);
  if (!m) return oxp_sym_status(c);
  oxp_attr_set_i(m, "fmod", fl);
  oxp_value *r = m->outputs[0];
  if (!fl) return oxp_m_set_out(c, n, 0, r);
  oxp_sym_set_type(c, r, dt, -1, NULL);
  oxp_value *zero = oxp_sym_const_scalar(c, 0, dt);
  oxp_value *fix = oxp_sym_op2(c, "Or",
      oxp_sym_op2(c, "And", oxp_sym_op2(c, "Less", r, zero),
                  oxp_sym_op2(c, "Greater", b, zero)),
      oxp_sym_op2(c, "And", oxp_sym_op2(c, "Greater", r, zero),
                  oxp_sym_op2(c, "Less", b, zero)));
  return oxp_m_set_out(c, n, 0,
      oxp_sym_op3(c, "Where", fix, oxp_sym_op2(c, "Add", r, b), r));
}

/* pow(self, exponent): Pow-7 is float-only with one type for both;
 * Pow-12 takes int bases and a separate exponent type. */
oxp_status oxp_s_pow(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_m_out_dtype(c, n);
  bool fl = oxp_dtype_is_float(dt);
  int w = fl ? dt
             : oxp_sym_opset(c) >= 12 && (dt == OXP_DT_INT32 || dt == OXP_DT_INT64)
                   ? dt
                   : oxp_sym_opset(c) >= 12 ? OXP_DT_INT64 : OXP_DT_DOUBLE;
  /* Pow-7 knows float16/float/double; bfloat16 only from 13. */
  if (dt == OXP_DT_BFLOAT16 && oxp_sym_opset(c) < 13) w = OXP_DT_FLOAT;
  oxp_value *a, *b;
  /* torch casts both to the result type first: uint8 ** int32 -4 is
   * 5 ** 252 (difftest seed 9202 program 34870), not 5 ** -4 */
  if (!oxp_m_pair(c, n, 0, 1, fl ? w : dt, &a, &b)) return oxp_sym_status(c);
  if (!fl && w != dt) a = oxp_m_to(c, a, w), b = oxp_m_to(c, b, w);
  oxp_value *y = oxp_sym_op2(c, "Pow", a, b);
  oxp_sym_set_type(c, y, w, -1, NULL);
  return oxp_m_set_out(c, n, 0, oxp_m_to(c, y, dt));
}

/* value * v, skipped for a constant value of one. */
static oxp_value *scale_value(oxp_sctx *c, oxp_node *n, int i, oxp_value *v,
                              int dt) {
  double k = 1;
  if (i >= n->ninputs || oxp_sym_is_none(n, i)) return v;
  if (oxp_sym_float(n, i, &k) && k == 1) return v;
  return oxp_m_arith(c, "Mul", v, oxp_sym_in_as(c, n, i, dt), dt);
}

/* addcmul / addcdiv(self, t1, t2, value) = self + value * (t1 op t2), in
 * the result type of all three tensors (an untyped scripted output: not
 * of self and t1 alone). */
static oxp_status addc(oxp_sctx *c, oxp_node *n, const char *op) {
  static const int three[3] = {0, 1, 2};
  int dt = oxp_sym_out_dtype(n, 0, 0);
  if (!dt && !(dt = oxp_m_result_dtype_n(c, n, three, 3)))
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: the result dtype is unknown", n->kind);
  oxp_value *s = oxp_sym_in_as(c, n, 0, dt), *a, *b;
  if (!s || !oxp_m_pair(c, n, 1, 2, dt, &a, &b)) return oxp_sym_status(c);
  oxp_value *t = oxp_m_arith(c, op, a, b, dt);
  t = scale_value(c, n, 3, t, dt);
  return oxp_m_set_out(c, n, 0, oxp_m_arith(c, "Add", s, t, dt));
}

oxp_status oxp_s_addcmul(oxp_sctx *c, oxp_node *n) { return addc(c, n, "Mul"); }
oxp_status oxp_s_addcdiv(oxp_sctx *c, oxp_node *n) { return addc(c, n, "Div"); }

/* lerp(self, end, weight) as torch 1.13's kernel computes it: w < 0.5 ?
 * fma(w, end - self, self) : fma(-(end - self), 1 - w, end), the test on w
 * itself (not |w|: lerp(0, inf, -0.7) is -inf, the other side NaN). ONNX
 * has no fused multiply-add; for float32 the product and sum are taken in
 * double (the product is exact there), so only a rare double rounding
 * can tell the result from torch's. */
oxp_status oxp_s_lerp(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_m_out_dtype(c, n);
  oxp_value *s, *e, *w = NULL;
  if (!oxp_m_pair(c, n, 0, 1, dt, &s, &e) ||
      !(w = oxp_sym_in_as(c, n, 2, dt)))
    return oxp_sym_status(c);
  double wk;
  bool known = oxp_sym_float(n, 2, &wk);
  int x = dt == OXP_DT_FLOAT ? OXP_DT_DOUBLE : dt;
  oxp_value *d = oxp_m_arith(c, "Sub", e, s, dt), *lo = NULL, *hi = NULL;
  if (!known || wk < 0.5)
    lo = oxp_m_arith(c, "Add", oxp_m_to(c, s, x),
                     oxp_m_arith(c, "Mul", oxp_m_to(c, w, x), oxp_m_to(c, d, x), x), x);
  if (!known || !(wk < 0.5)) {
    oxp_value *om = oxp_m_arith(c, "Sub", oxp_sym_const_scalar(c, 1, dt), w, dt);
    hi = oxp_m_arith(c, "Sub", oxp_m_to(c, e, x),
                     oxp_m_arith(c, "Mul", oxp_m_to(c, d, x), oxp_m_to(c, om, x), x), x);
  }
  oxp_value *y = lo && hi ? oxp_sym_op3(c, "Where",
      oxp_m_compare(c, "Less", w, oxp_sym_const_scalar(c, 0.5, dt), dt), lo, hi) : lo ? lo : hi;
  oxp_sym_set_type(c, y, x, -1, NULL);
  return oxp_m_set_out(c, n, 0, oxp_m_to(c, y, dt));
}

static oxp_status unary(oxp_sctx *c, oxp_node *n, const char *op) {
  return oxp_m_set_out(c, n, 0, oxp_sym_op1(c, op, oxp_sym_in(c, n, 0)));
}

/* Neg has no unsigned form: torch's uint8 negation wraps, 256 - x (0
 * for 0), exact in int32 and back in range for the Cast. */
oxp_status oxp_s_neg(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x || oxp_sym_dtype(x) != OXP_DT_UINT8) return unary(c, n, "Neg");
  oxp_value *xi = oxp_m_to(c, x, OXP_DT_INT32);
  oxp_value *zero = oxp_sym_const_scalar(c, 0, OXP_DT_INT32);
  oxp_value *y = oxp_sym_op3(c, "Where", oxp_sym_op2(c, "Equal", xi, zero), xi,
      oxp_sym_op2(c, "Sub", oxp_sym_const_scalar(c, 256, OXP_DT_INT32), xi));
  oxp_sym_set_type(c, y, OXP_DT_INT32, -1, NULL);
  return oxp_m_set_out(c, n, 0, oxp_m_to(c, y, OXP_DT_UINT8));
}

/* Relu is float-only before opset 14 and never unsigned (onnxruntime
 * implements it for int8 and int32): relu of an unsigned tensor is the
 * tensor, of another integer one max(x, 0), in int32 for the narrow
 * types. */
oxp_status oxp_s_relu(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int dt = x ? oxp_sym_dtype(x) : 0;
  if (!x || !dt || oxp_dtype_is_float(dt) ||
      (oxp_sym_opset(c) >= 14 && (dt == OXP_DT_INT8 || dt == OXP_DT_INT32)))
    return unary(c, n, "Relu");
  if (dt == OXP_DT_UINT8 || dt == OXP_DT_UINT16 || dt == OXP_DT_UINT32 ||
      dt == OXP_DT_UINT64)
    return oxp_m_set_out(c, n, 0, x);
  int w = oxp_m_arith_dtype(c, dt);
  oxp_value *y = oxp_m_maxmin(c, true, oxp_m_to(c, x, w),
                              oxp_sym_const_scalar(c, 0, w), w);
  oxp_sym_set_type(c, y, w, -1, NULL);
  return oxp_m_set_out(c, n, 0, oxp_m_to(c, y, dt));
}
/* A float-only op of an integer or bool tensor computes in the output's
 * float dtype: torch's is the default float32 for such inputs. */
static oxp_status float_unary(oxp_sctx *c, oxp_node *n, const char *op) {
  int in = oxp_m_in_dtype(c, n, 0);
  if (!in || oxp_dtype_is_float(in)) return unary(c, n, op);
  int dt = oxp_sym_out_dtype(n, 0, OXP_DT_FLOAT);
  return oxp_m_set_out(c, n, 0, oxp_sym_op1(c, op, oxp_sym_in_as(c, n, 0, dt)));
}

oxp_status oxp_s_sigmoid(oxp_sctx *c, oxp_node *n) { return float_unary(c, n, "Sigmoid"); }
oxp_status oxp_s_tanh(oxp_sctx *c, oxp_node *n) { return float_unary(c, n, "Tanh"); }

static bool gelu_tanh(oxp_node *n) {
  const char *approx = "none";
  if (n->ninputs > 1) oxp_sym_str(n, 1, &approx);
  return approx[0] == 't';
}

/* Before opset 20 there is no Gelu: the erf form, or torch's tanh form
 * 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
oxp_status oxp_s_gelu(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int dt = oxp_sym_need_dtype(c, x);
  oxp_value *inner;
  if (gelu_tanh(n)) {
    oxp_value *x3 = oxp_sym_op2(c, "Mul", oxp_sym_op2(c, "Mul", x, x), x);
    oxp_value *t = oxp_sym_op2(c, "Add", x,
        oxp_sym_op2(c, "Mul", x3, oxp_sym_const_scalar(c, 0.044715, dt)));
    t = oxp_sym_op2(c, "Mul", t, oxp_sym_const_scalar(c, sqrt(2 / M_PI), dt));
    inner = oxp_sym_op1(c, "Tanh", t);
  } else {
    inner = oxp_sym_op1(c, "Erf", oxp_sym_op2(c, "Div", x,
        oxp_sym_const_scalar(c, M_SQRT2, dt)));
  }
  oxp_value *y = oxp_sym_op2(c, "Add", inner, oxp_sym_const_scalar(c, 1, dt));
  y = oxp_sym_op2(c, "Mul", oxp_sym_op2(c, "Mul", x, y),
                  oxp_sym_const_scalar(c, 0.5, dt));
  return oxp_m_set_out(c, n, 0, y);
}

oxp_status oxp_s_gelu20(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  oxp_node *g = x ? oxp_sym_op(c, "Gelu", &x, 1, 1) : NULL;
  if (!g) return oxp_sym_status(c);
  if (gelu_tanh(n)) oxp_attr_set_s(g, "approximate", "tanh");
  return oxp_m_set_out(c, n, 0, g->outputs[0]);
}

oxp_status oxp_s_matmul(oxp_sctx *c, oxp_node *n) {
  return oxp_m_set_out(c, n, 0, oxp_sym_op2(c, "MatMul", oxp_sym_in(c, n, 0),
                                              oxp_sym_in(c, n, 1)));
}

/* addmm(self, m1, m2, beta, alpha) = beta*self + alpha*(m1 @ m2): Gemm. */
oxp_status oxp_s_addmm(oxp_sctx *c, oxp_node *n) {
  double beta = 1, alpha = 1;
  if (n->ninputs > 3 && !oxp_sym_is_none(n, 3) && !oxp_sym_float(n, 3, &beta))
    return oxp_sym_unsupported(c, "addmm with a runtime beta");
  if (n->ninputs > 4 && !oxp_sym_is_none(n, 4) && !oxp_sym_float(n, 4, &alpha))
    return oxp_sym_unsupported(c, "addmm with a runtime alpha");
  oxp_value *in[3] = {oxp_sym_in(c, n, 1), oxp_sym_in(c, n, 2),
                      oxp_sym_in(c, n, 0)};
  if (!in[0] || !in[1] || !in[2]) return oxp_sym_status(c);
  oxp_node *g = oxp_sym_op(c, "Gemm", in, 3, 1);
  if (!g) return oxp_sym_status(c);
  if (beta != 1) oxp_attr_set_f(g, "beta", beta);
  if (alpha != 1) oxp_attr_set_f(g, "alpha", alpha);
  return oxp_m_set_out(c, n, 0, g->outputs[0]);
}

/* linear(x, w, b): Gemm with transB for 2-D input, else MatMul with the
 * transposed weight (folded away later when w is an initializer). */
oxp_status oxp_s_linear(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0), *w = oxp_sym_in(c, n, 1);
  if (!x || !w) return oxp_sym_status(c);
  bool has_bias = n->ninputs > 2 && !oxp_sym_is_none(n, 2);
  oxp_value *b = has_bias ? oxp_sym_in(c, n, 2) : NULL;
  if (has_bias && !b) return oxp_sym_status(c);
  if (oxp_sym_rank(x) == 2 && oxp_sym_rank(w) == 2) {
    oxp_value *in[3] = {x, w, b};
    oxp_node *g = oxp_sym_op(c, "Gemm", in, has_bias ? 3 : 2, 1);
    if (!g) return oxp_sym_status(c);
    oxp_attr_set_i(g, "transB", 1);
    return oxp_m_set_out(c, n, 0, g->outputs[0]);
  }
  oxp_node *t = oxp_sym_op(c, "Transpose", &w, 1, 1);
  if (!t) return oxp_sym_status(c);
  int r = oxp_sym_rank(w);
  if (r == 2) {
    static const int64_t perm[2] = {1, 0};
    oxp_attr_set_ints(t, "perm", perm, 2);
  }
  oxp_value *y = oxp_sym_op2(c, "MatMul", x, t->outputs[0]);
  if (b) y = oxp_sym_op2(c, "Add", y, b);
  return oxp_m_set_out(c, n, 0, y);
}
