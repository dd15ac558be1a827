/* s_quantized_ops.c: quantized:: elementwise ops and cat (the
 * FloatFunctional / QFunctional ops and quantized activations): each
 * dequantizes its inputs, runs the float op and quantizes at the output
 * scale and zero point the op takes as its last two inputs. */
#include <string.h>

#include "s_nn_util.h"
#include "s_quantized.h"

/* The output quantization of n (inputs si, si + 1) in x's integer type. */
static oxp_status finish(oxp_sctx *c, oxp_node *n, int si, const oxp_qval *x, oxp_value *y) {
  oxp_value *s, *z;
  if (!y || !oxp_q_params(c, n, si, oxp_q_dtype(x), &s, &z)) return oxp_sym_status(c);
  return oxp_q_set_out(c, n, 0, y, s, z);
}

/* (qa, qb, scale, zero_point) */
static oxp_status binary(oxp_sctx *c, oxp_node *n, const char *op, bool relu) {
  oxp_qval a, b;
  if (!oxp_q_in(c, n, 0, &a) || !oxp_q_in(c, n, 1, &b)) return oxp_sym_status(c);
  oxp_value *y = oxp_sym_op2(c, op, oxp_q_dequant(c, &a), oxp_q_dequant(c, &b));
  if (relu) y = oxp_sym_op1(c, "Relu", y);
  return finish(c, n, 2, &a, y);
}

oxp_status oxp_s_qadd(oxp_sctx *c, oxp_node *n) { return binary(c, n, "Add", false); }
oxp_status oxp_s_qadd_relu(oxp_sctx *c, oxp_node *n) { return binary(c, n, "Add", true); }
oxp_status oxp_s_qmul(oxp_sctx *c, oxp_node *n) { return binary(c, n, "Mul", false); }
oxp_status oxp_s_qmul_relu(oxp_sctx *c, oxp_node *n) { return binary(c, n, "Mul", true); }

/* cat(Tensor[] qx, int dim, float? scale, int? zero_point); without a
 * scale, the first input's. */
static oxp_status qcat(oxp_sctx *c, oxp_node *n, bool relu) {
  oxp_value *lst = oxp_sym_src(n, 0);
  oxp_node *k = lst ? lst->producer : NULL;
  if (!k || !oxp_kind_is(k, "prim::ListConstruct") || k->ninputs == 0)
    return oxp_sym_unsupported(c, "a list of quantized tensors not built in the graph");
  int64_t dim;
  if (!oxp_sym_need_int(c, n, 1, &dim)) return oxp_sym_status(c);
  oxp_value **vals = oxp_alloc(oxp_sym_arena(c), sizeof *vals * (size_t)k->ninputs);
  if (!vals) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  oxp_qval first;
  for (int i = 0; i < k->ninputs; i++) {
    oxp_qval q;
    if (!oxp_q_value(c, n, k->inputs[i], &q)) return oxp_sym_status(c);
    if (i == 0) first = q;
    if (!(vals[i] = oxp_q_dequant(c, &q))) return oxp_sym_status(c);
  }
  int r = oxp_sym_rank(vals[0]);
  if (dim < 0 && !oxp_sym_axis(dim, r, &dim))
    return oxp_sym_unsupported(c, "a negative dim on tensors of unknown rank");
  oxp_node *cc = oxp_sym_op(c, "Concat", vals, k->ninputs, 1);
  if (!cc) return oxp_sym_status(c);
  oxp_attr_set_i(cc, "axis", dim);
  oxp_value *y = cc->outputs[0];
  if (relu) y = oxp_sym_op1(c, "Relu", y);
  if (oxp_sym_is_none(n, 2)) return oxp_q_set_out(c, n, 0, y, first.scale, first.zp);
  return finish(c, n, 2, &first, y);
}

oxp_status oxp_s_qcat(oxp_sctx *c, oxp_node *n) { return qcat(c, n, false); }
oxp_status oxp_s_qcat_relu(oxp_sctx *c, oxp_node *n) { return qcat(c, n, true); }

/* hardswish(qx, scale, zero_point): HardSwish from opset 14, before it
 * x * HardSigmoid(x) with torch's 1/6 and 1/2. */
oxp_status oxp_s_qhardswish(oxp_sctx *c, oxp_node *n) {
  oxp_qval x;
  if (!oxp_q_in(c, n, 0, &x)) return oxp_sym_status(c);
  oxp_value *f = oxp_q_dequant(c, &x), *y;
  if (oxp_sym_opset(c) >= 14) {
    y = oxp_sym_op1(c, "HardSwish", f);
  } else {
    oxp_node *hs = oxp_nn_op1(c, "HardSigmoid", f);
    if (!hs) return oxp_sym_status(c);
    oxp_attr_set_f(hs, "alpha", 1.0 / 6);
    oxp_attr_set_f(hs, "beta", 0.5);
    y = oxp_sym_op2(c, "Mul", f, hs->outputs[0]);
  }
  return finish(c, n, 1, &x, y);
}

/* sigmoid(qx, scale, zero_point) */
oxp_status oxp_s_qsigmoid(oxp_sctx *c, oxp_node *n) {
  oxp_qval x;
  if (!oxp_q_in(c, n, 0, &x)) return oxp_sym_status(c);
  return finish(c, n, 1, &x, oxp_sym_op1(c, "Sigmoid", oxp_q_dequant(c, &x)));
}

/* leaky_relu(qx, negative_slope, inplace, scale, zero_point) */
oxp_status oxp_s_qleaky_relu(oxp_sctx *c, oxp_node *n) {
  oxp_qval x;
  double slope;
  if (!oxp_q_in(c, n, 0, &x)) return oxp_sym_status(c);
  if (!oxp_sym_float(n, 1, &slope)) return oxp_sym_unsupported(c, "a runtime negative_slope");
  oxp_node *lr = oxp_nn_op1(c, "LeakyRelu", oxp_q_dequant(c, &x));
  if (!lr) return oxp_sym_status(c);
  oxp_attr_set_f(lr, "alpha", slope);
  return finish(c, n, 3, &x, lr->outputs[0]);
}

/* relu6(qx, inplace): the input's scale and zero point. */
oxp_status oxp_s_qrelu6(oxp_sctx *c, oxp_node *n) {
  oxp_qval x;
  if (!oxp_q_in(c, n, 0, &x)) return oxp_sym_status(c);
  return oxp_q_set_out(c, n, 0, oxp_nn_clip(c, oxp_q_dequant(c, &x), 0, 6), x.scale, x.zp);
}
