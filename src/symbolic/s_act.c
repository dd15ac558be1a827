/* s_act.c: activations. One ONNX op where the opset has it (Clip,
 * LeakyRelu, PRelu, Elu, Selu, Celu 12+, HardSigmoid, HardSwish 14+,
 * Shrink, Softplus, Mish 18+), else the short formula torch's exporter
 * uses. The in-place forms (relu6_ ...) share the functions. */
#include <math.h>

#include "s_math_util.h"
#include "s_nn_util.h"

static oxp_value *scalar(oxp_sctx *c, double v, oxp_value *like) {
  return oxp_sym_const_scalar(c, v, oxp_nn_dtype(c, like));
}

/* One-input op with float attributes (names[i] = vals[i]). */
static oxp_status unary_attrs(oxp_sctx *c, oxp_node *n, const char *op,
                              const char *const *names, const double *vals,
                              int na) {
  oxp_node *k = oxp_nn_op1(c, op, oxp_sym_in(c, n, 0));
  if (!k) return oxp_sym_status(c);
  for (int i = 0; i < na; i++) oxp_attr_set_f(k, names[i], vals[i]);
  return oxp_sym_set_out(c, n, 0, k->outputs[0]);
}

/* Clip of x to [lo, hi]; Clip takes integers only from opset 12, so
 * before that they go through Max and Min (in int32 for the narrow
 * types, which those kernels lack). */
static oxp_value *clip(oxp_sctx *c, oxp_value *x, double lo, double hi) {
  int dt = x ? oxp_sym_dtype(x) : 0;
  if (!dt || oxp_dtype_is_float(dt) || oxp_sym_opset(c) >= 12)
    return oxp_nn_clip(c, x, lo, hi);
  int w = oxp_m_arith_dtype(c, dt);
  oxp_value *y = oxp_m_to(c, x, w);
  y = oxp_m_maxmin(c, true, y, oxp_sym_const_scalar(c, lo, w), w);
  y = oxp_m_maxmin(c, false, y, oxp_sym_const_scalar(c, hi, w), w);
  oxp_sym_set_type(c, y, w, -1, NULL);
  return oxp_m_to(c, y, dt);
}

oxp_status oxp_s_relu6(oxp_sctx *c, oxp_node *n) {
  return oxp_sym_set_out(c, n, 0, clip(c, oxp_sym_in(c, n, 0), 0, 6));
}

/* hardtanh(x, min_val, max_val) */
oxp_status oxp_s_hardtanh(oxp_sctx *c, oxp_node *n) {
  double lo, hi;
  if (!oxp_nn_float_arg(c, n, 1, -1, &lo) || !oxp_nn_float_arg(c, n, 2, 1, &hi))
    return oxp_sym_status(c);
  return oxp_sym_set_out(c, n, 0, clip(c, oxp_sym_in(c, n, 0), lo, hi));
}

/* LeakyRelu with slope a; for float64 with a slope that float32 (the
 * attribute's type) does not hold exactly, x > 0 ? x : x * a in double, as
 * torch computes it (0.01 as float32 is 1.5e-8 off); so too before opset
 * 16, whose LeakyRelu has no double form. */
static oxp_status leaky(oxp_sctx *c, oxp_node *n, double a) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (x && oxp_sym_dtype(x) == OXP_DT_DOUBLE &&
      ((double)(float)a != a || oxp_sym_opset(c) < 16)) {
    int dt = OXP_DT_DOUBLE;
    oxp_value *pos = oxp_m_compare(c, "Greater", x, oxp_sym_const_scalar(c, 0, dt), dt);
    oxp_value *neg = oxp_m_arith(c, "Mul", x, oxp_sym_const_scalar(c, a, dt), dt);
    oxp_value *y = oxp_sym_op3(c, "Where", pos, x, neg);
    oxp_sym_set_type(c, y, dt, -1, NULL);
    return oxp_m_set_out(c, n, 0, y);
  }
  static const char *const names[] = {"alpha"};
  return unary_attrs(c, n, "LeakyRelu", names, &a, 1);
}

/* leaky_relu(x, negative_slope) */
oxp_status oxp_s_leaky_relu(oxp_sctx *c, oxp_node *n) {
  double a;
  if (!oxp_nn_float_arg(c, n, 1, 0.01, &a)) return oxp_sym_status(c);
  return leaky(c, n, a);
}

/* rrelu(x, lower, upper, training, generator): in eval the fixed slope
 * (lower + upper) / 2; training samples slopes, which ONNX cannot match. */
oxp_status oxp_s_rrelu(oxp_sctx *c, oxp_node *n) {
  double lo, hi;
  bool train;
  if (!oxp_nn_float_arg(c, n, 1, 1.0 / 8, &lo) ||
      !oxp_nn_float_arg(c, n, 2, 1.0 / 3, &hi) ||
      !oxp_nn_bool_arg(c, n, 3, false, &train))
    return oxp_sym_status(c);
  if (oxp_nn_training(c, train))
    return oxp_sym_unsupported(c, "rrelu in training mode");
  return leaky(c, n, (lo + hi) / 2);
}

/* prelu(x, weight [C] or [1]): ONNX broadcasts the slope from the right,
 * so a per-channel slope becomes [C, 1, ...]. */
oxp_status oxp_s_prelu(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0), *w = oxp_sym_in(c, n, 1);
  if (!x || !w) return oxp_sym_status(c);
  int r = oxp_sym_rank(x), wr = oxp_sym_rank(w);
  int64_t wc = oxp_nn_dim(w, 0);
  if (r > 2 && wr == 1 && wc != 1) {
    int64_t axes[OXP_MAX_SPATIAL_DIMS];
    for (int i = 0; i < r - 2; i++) axes[i] = 1 + i;
    w = oxp_sym_unsqueeze(c, w, axes, r - 2);
  } else if (r < 0 && wc != 1) {
    return oxp_sym_unsupported(c, "prelu on an input of unknown rank");
  }
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "PRelu", x, w));
}

/* elu(x, alpha, scale, input_scale) = scale * Elu(input_scale * x). */
oxp_status oxp_s_elu(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  double alpha, scale, in_scale;
  if (!x || !oxp_nn_float_arg(c, n, 1, 1, &alpha) ||
      !oxp_nn_float_arg(c, n, 2, 1, &scale) ||
      !oxp_nn_float_arg(c, n, 3, 1, &in_scale))
    return oxp_sym_status(c);
  if (in_scale != 1) x = oxp_sym_op2(c, "Mul", x, scalar(c, in_scale, x));
  oxp_node *k = oxp_nn_op1(c, "Elu", x);
  if (!k) return oxp_sym_status(c);
  oxp_attr_set_f(k, "alpha", alpha);
  oxp_value *y = k->outputs[0];
  if (scale != 1) y = oxp_sym_op2(c, "Mul", y, scalar(c, scale, x));
  return oxp_sym_set_out(c, n, 0, y);
}

/* ONNX Selu's default alpha and gamma are torch's constants. */
oxp_status oxp_s_selu(oxp_sctx *c, oxp_node *n) {
  return unary_attrs(c, n, "Selu", NULL, NULL, 0);
}

/* celu(x, alpha) as torch computes it (elu with input scale 1/alpha):
 * x > 0 ? x : (exp(x * (1/alpha)) - 1) * alpha. ONNX Celu is float32
 * only and Elu's kernel too, so other dtypes take the formula. */
static oxp_value *celu_formula(oxp_sctx *c, oxp_value *x, double a) {
  oxp_value *e = oxp_sym_op1(c, "Exp", oxp_sym_op2(c, "Mul", x, scalar(c, 1 / a, x)));
  oxp_value *neg = oxp_sym_op2(c, "Mul", oxp_sym_op2(c, "Sub", e, scalar(c, 1, x)),
                               scalar(c, a, x));
  return oxp_sym_op3(c, "Where", oxp_sym_op2(c, "Greater", x, scalar(c, 0, x)),
                     x, neg);
}

/* celu(x, alpha): Celu from opset 12; before, alpha * Elu(x / alpha),
 * which is the same function. */
oxp_status oxp_s_celu(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  double a;
  if (!x || !oxp_nn_float_arg(c, n, 1, 1, &a)) return oxp_sym_status(c);
  int dt = oxp_nn_dtype(c, x);
  if (!dt) return oxp_sym_status(c);
  if (a == 0) return oxp_sym_unsupported(c, "celu with alpha 0");
  if (dt != OXP_DT_FLOAT) return oxp_sym_set_out(c, n, 0, celu_formula(c, x, a));
  if (oxp_sym_opset(c) >= 12) {
    static const char *const names[] = {"alpha"};
    return unary_attrs(c, n, "Celu", names, &a, 1);
  }
  oxp_node *k = oxp_nn_op1(c, "Elu", a == 1 ? x : oxp_sym_op2(c, "Div", x, scalar(c, a, x)));
  if (!k) return oxp_sym_status(c);
  oxp_attr_set_f(k, "alpha", 1);
  oxp_value *y = k->outputs[0];
  if (a != 1) y = oxp_sym_op2(c, "Mul", y, scalar(c, a, x));
  return oxp_sym_set_out(c, n, 0, y);
}

oxp_status oxp_s_silu(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Mul", x, oxp_sym_op1(c, "Sigmoid", x)));
}

/* mish(x) = x * tanh(softplus(x)); Mish from opset 18. */
oxp_status oxp_s_mish(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (oxp_sym_opset(c) >= 18)
    return oxp_sym_set_out(c, n, 0, oxp_sym_op1(c, "Mish", x));
  oxp_value *t = oxp_sym_op1(c, "Tanh", oxp_sym_op1(c, "Softplus", x));
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Mul", x, t));
}

static oxp_value *hard_sigmoid(oxp_sctx *c, oxp_value *x) {
  oxp_node *k = oxp_nn_op1(c, "HardSigmoid", x);
  if (!k) return NULL;
  oxp_attr_set_f(k, "alpha", 1.0 / 6);
  oxp_attr_set_f(k, "beta", 0.5);
  return k->outputs[0];
}

oxp_status oxp_s_hardsigmoid(oxp_sctx *c, oxp_node *n) {
  return oxp_sym_set_out(c, n, 0, hard_sigmoid(c, oxp_sym_in(c, n, 0)));
}

/* hardswish: HardSwish from opset 14, x * hardsigmoid(x) before. */
oxp_status oxp_s_hardswish(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (oxp_sym_opset(c) >= 14)
    return oxp_sym_set_out(c, n, 0, oxp_sym_op1(c, "HardSwish", x));
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Mul", x, hard_sigmoid(c, x)));
}

/* hardshrink(x, lambd) = -lambd <= x <= lambd ? 0 : x, and
 * softshrink(x, lambd) = x > lambd ? x - lambd : x < -lambd ? x + lambd
 * : 0, as torch computes them: hardshrink passes NaN through (ONNX
 * Shrink's comparisons send it to 0), and lambd keeps the input's
 * precision (Shrink's attributes are float32). */
static oxp_status shrink(oxp_sctx *c, oxp_node *n, bool soft) {
  double l;
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x || !oxp_nn_float_arg(c, n, 1, 0.5, &l)) return oxp_sym_status(c);
  int dt = oxp_nn_dtype(c, x);
  if (!dt) return oxp_sym_status(c);
  oxp_value *lo = scalar(c, -l, x), *hi = scalar(c, l, x), *y;
  if (soft) {
    y = oxp_sym_op3(c, "Where", oxp_m_compare(c, "Less", x, lo, dt),
                    oxp_sym_op2(c, "Add", x, hi), scalar(c, 0, x));
    y = oxp_sym_op3(c, "Where", oxp_m_compare(c, "Greater", x, hi, dt),
                    oxp_sym_op2(c, "Sub", x, hi), y);
  } else {
    oxp_value *in = oxp_sym_op2(c, "And", oxp_m_compare(c, "GreaterOrEqual", x, lo, dt),
                                oxp_m_compare(c, "LessOrEqual", x, hi, dt));
    y = oxp_sym_op3(c, "Where", in, scalar(c, 0, x), x);
  }
  return oxp_sym_set_out(c, n, 0, y);
}
oxp_status oxp_s_hardshrink(oxp_sctx *c, oxp_node *n) { return shrink(c, n, false); }
oxp_status oxp_s_softshrink(oxp_sctx *c, oxp_node *n) { return shrink(c, n, true); }

/* threshold(x, threshold, value) = x <= threshold ? value : x, so NaN
 * passes through; narrow integers compare in int32 (onnxruntime has no
 * comparison kernels for them). */
oxp_status oxp_s_threshold(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int dt = oxp_nn_dtype(c, x);
  if (!dt) return oxp_sym_status(c);
  int w = oxp_dtype_is_float(dt) ? dt : oxp_m_arith_dtype(c, dt);
  oxp_value *th = oxp_sym_in_as(c, n, 1, w), *v = oxp_sym_in_as(c, n, 2, dt);
  oxp_value *le = oxp_m_compare(c, "LessOrEqual", oxp_m_to(c, x, w), th, w);
  return oxp_sym_set_out(c, n, 0, oxp_sym_op3(c, "Where", le, v, x));
}

/* softplus(x, beta, threshold) = Softplus(beta x) / beta, and x where
 * beta x > threshold. The linear branch differs from Softplus by at most
 * log1p(exp(-threshold)) / beta, under float32's resolution from a
 * threshold of 20 (torch's default), so it is emitted only below that. */
oxp_status oxp_s_softplus(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  double beta, th;
  if (!x || !oxp_nn_float_arg(c, n, 1, 1, &beta) ||
      !oxp_nn_float_arg(c, n, 2, 20, &th))
    return oxp_sym_status(c);
  oxp_value *bx = beta == 1 ? x : oxp_sym_op2(c, "Mul", x, scalar(c, beta, x));
  oxp_value *y = oxp_sym_op1(c, "Softplus", bx);
  if (beta != 1) y = oxp_sym_op2(c, "Div", y, scalar(c, beta, x));
  if (th < 20 || oxp_sym_dtype(x) == OXP_DT_DOUBLE)
    y = oxp_sym_op3(c, "Where", oxp_sym_op2(c, "Greater", bx, scalar(c, th, x)),
                    x, y);
  return oxp_sym_set_out(c, n, 0, y);
}

/* log_sigmoid(x) = -softplus(-x): finite where Log(Sigmoid(x)) would
 * underflow to -inf. */
oxp_status oxp_s_log_sigmoid(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  return oxp_sym_set_out(c, n, 0, oxp_sym_op1(c, "Neg",
      oxp_sym_op1(c, "Softplus", oxp_sym_op1(c, "Neg", x))));
}

/* glu(x, dim) = a * sigmoid(b) for the two halves a, b along dim. */
oxp_status oxp_s_glu(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t dim;
  if (!x || !oxp_nn_int_arg(c, n, 1, -1, &dim)) return oxp_sym_status(c);
  int r = oxp_sym_rank(x);
  if (dim < 0 && r < 0) return oxp_sym_unsupported(c, "glu of unknown rank");
  if (dim < 0) dim += r;
  oxp_node *s = oxp_sym_op(c, "Split", &x, 1, 2);
  if (!s) return oxp_sym_status(c);
  oxp_attr_set_i(s, "axis", dim);
  if (oxp_sym_opset(c) >= 18) oxp_attr_set_i(s, "num_outputs", 2);
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Mul", s->outputs[0],
                                              oxp_sym_op1(c, "Sigmoid", s->outputs[1])));
}
