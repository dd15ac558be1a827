/* s_arith.c: elementwise arithmetic and activations. The traced output
 * type fixes the result dtype torch's promotion chose, so operands are
 * brought to it (constants directly, tensors by Cast). */
#include <math.h>

#include "ops.h"

/* Both operands of a binary op in the output's dtype. */
static bool operands(oxp_sctx *c, oxp_node *n, oxp_value **a, oxp_value **b) {
  int dt = oxp_sym_out_dtype(n, 0, 0);
  if (!dt) {
    oxp_value *x = oxp_sym_in(c, n, 0);
    dt = oxp_sym_dtype(x);
  }
  *a = oxp_sym_in_as(c, n, 0, dt);
  *b = *a ? oxp_sym_in_as(c, n, 1, dt) : NULL;
  return *a && *b;
}

/* other * alpha, skipped when alpha is absent or one. */
static oxp_value *scale_alpha(oxp_sctx *c, oxp_node *n, oxp_value *v,
                              int dtype) {
  double alpha = 1;
  if (n->ninputs < 3 || oxp_sym_is_none(n, 2)) return v;
  if (!oxp_sym_float(n, 2, &alpha))
    return oxp_sym_op2(c, "Mul", v, oxp_sym_in_as(c, n, 2, dtype));
  if (alpha == 1) return v;
  return oxp_sym_op2(c, "Mul", v, oxp_sym_const_scalar(c, alpha, dtype));
}

static oxp_status binary(oxp_sctx *c, oxp_node *n, const char *op) {
  oxp_value *a, *b;
  if (!operands(c, n, &a, &b)) return oxp_sym_status(c);
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, op, a, b));
}

oxp_status oxp_s_add(oxp_sctx *c, oxp_node *n) {
  oxp_value *a, *b;
  if (!operands(c, n, &a, &b)) return oxp_sym_status(c);
  b = scale_alpha(c, n, b, oxp_sym_dtype(a));
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Add", a, b));
}

oxp_status oxp_s_sub(oxp_sctx *c, oxp_node *n) {
  oxp_value *a, *b;
  if (!operands(c, n, &a, &b)) return oxp_sym_status(c);
  b = scale_alpha(c, n, b, oxp_sym_dtype(a));
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Sub", a, b));
}

/* rsub(self, other, alpha) = other - self * alpha */
oxp_status oxp_s_rsub(oxp_sctx *c, oxp_node *n) {
  oxp_value *a, *b;
  if (!operands(c, n, &a, &b)) return oxp_sym_status(c);
  a = scale_alpha(c, n, a, oxp_sym_dtype(b));
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Sub", b, a));
}

oxp_status oxp_s_mul(oxp_sctx *c, oxp_node *n) { return binary(c, n, "Mul"); }

/* div(a, b[, rounding_mode]): true division happens in the (floating)
 * output type; "trunc" and "floor" round the quotient. */
oxp_status oxp_s_div(oxp_sctx *c, oxp_node *n) {
  const char *mode = NULL;
  if (n->ninputs > 2 && !oxp_sym_is_none(n, 2) && !oxp_sym_str(n, 2, &mode))
    return oxp_sym_unsupported(c, "div with a runtime rounding_mode");
  if (!mode) return binary(c, n, "Div");
  int dt = oxp_sym_out_dtype(n, 0, OXP_DT_FLOAT);
  bool is_float = oxp_dtype_is_float(dt);
  int work = is_float ? dt : OXP_DT_DOUBLE;
  oxp_value *a = oxp_sym_in_as(c, n, 0, work);
  oxp_value *b = a ? oxp_sym_in_as(c, n, 1, work) : NULL;
  oxp_value *q = oxp_sym_op2(c, "Div", a, b);
  if (mode[0] == 't') {
    /* trunc(q) = sign(q) * floor(|q|): Trunc itself does not exist. */
    oxp_value *fl = oxp_sym_op1(c, "Floor", oxp_sym_op1(c, "Abs", q));
    q = oxp_sym_op2(c, "Mul", oxp_sym_op1(c, "Sign", q), fl);
  } else if (mode[0] == 'f') {
    q = oxp_sym_op1(c, "Floor", q);
  } else {
    return oxp_sym_unsupported(c, "this rounding_mode");
  }
  if (!is_float) q = oxp_sym_cast(c, q, dt);
  return oxp_sym_set_out(c, n, 0, q);
}

static oxp_status unary(oxp_sctx *c, oxp_node *n, const char *op) {
  return oxp_sym_set_out(c, n, 0, oxp_sym_op1(c, op, oxp_sym_in(c, n, 0)));
}

oxp_status oxp_s_neg(oxp_sctx *c, oxp_node *n) { return unary(c, n, "Neg"); }
oxp_status oxp_s_relu(oxp_sctx *c, oxp_node *n) { return unary(c, n, "Relu"); }
oxp_status oxp_s_sigmoid(oxp_sctx *c, oxp_node *n) { return unary(c, n, "Sigmoid"); }
oxp_status oxp_s_tanh(oxp_sctx *c, oxp_node *n) { return unary(c, n, "Tanh"); }

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
  int dt = oxp_sym_dtype(x) ? oxp_sym_dtype(x) : OXP_DT_FLOAT;
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
  return oxp_sym_set_out(c, n, 0, y);
}

oxp_status oxp_s_gelu20(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  oxp_node *g = x ? oxp_sym_op(c, "Gelu", &x, 1, 1) : NULL;
  if (!g) return oxp_sym_status(c);
  if (gelu_tanh(n)) oxp_attr_set_s(g, "approximate", "tanh");
  return oxp_sym_set_out(c, n, 0, g->outputs[0]);
}

oxp_status oxp_s_matmul(oxp_sctx *c, oxp_node *n) {
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "MatMul", oxp_sym_in(c, n, 0),
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
  return oxp_sym_set_out(c, n, 0, g->outputs[0]);
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
    return oxp_sym_set_out(c, n, 0, g->outputs[0]);
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
  return oxp_sym_set_out(c, n, 0, y);
}
