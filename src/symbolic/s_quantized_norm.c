/* s_quantized_norm.c: quantized normalization layers (nnq.BatchNorm2d/3d,
 * LayerNorm, InstanceNorm*d, GroupNorm): the float normalization between
 * DequantizeLinear and QuantizeLinear at the op's output scale and zero
 * point, its last two inputs. Emitted here rather than through the aten
 * symbolics, whose argument lists differ from the quantized ops'. */
#include "s_nn_util.h"
#include "s_quantized.h"

static oxp_status finish(oxp_sctx *c, oxp_node *n, int si, const oxp_qval *x, oxp_value *y) {
  oxp_value *s, *z;
  if (!y || !oxp_q_params(c, n, si, oxp_q_dtype(x), &s, &z)) return oxp_sym_status(c);
  return oxp_q_set_out(c, n, 0, y, s, z);
}

/* Input i as float32, or fill (count copies) when None. */
static oxp_value *param_or(oxp_sctx *c, oxp_node *n, int i, int64_t count, double fill) {
  if (!oxp_sym_is_none(n, i)) return oxp_sym_in_as(c, n, i, OXP_DT_FLOAT);
  if (count < 0) {
    oxp_sym_unsupported(c, "an absent weight or bias with a channel count unknown at export time");
    return NULL;
  }
  return oxp_nn_filled(c, count, fill, OXP_DT_FLOAT);
}

/* batch_norm{1,2,3}d[_relu](qx, weight, bias, mean, var, eps, scale, zp) */
static oxp_status qbatch_norm(oxp_sctx *c, oxp_node *n, bool relu) {
  oxp_qval x;
  double eps;
  if (!oxp_q_in(c, n, 0, &x)) return oxp_sym_status(c);
  if (!oxp_sym_float(n, 5, &eps)) return oxp_sym_unsupported(c, "a runtime eps");
  oxp_value *xf = oxp_q_dequant(c, &x);
  int64_t ch = xf ? oxp_nn_dim(xf, 1) : -1;
  oxp_value *in[5] = {xf, param_or(c, n, 1, ch, 1), param_or(c, n, 2, ch, 0),
                      oxp_sym_in_as(c, n, 3, OXP_DT_FLOAT), oxp_sym_in_as(c, n, 4, OXP_DT_FLOAT)};
  for (int i = 0; i < 5; i++)
    if (!in[i]) return oxp_sym_status(c);
  oxp_node *bn = oxp_sym_op(c, "BatchNormalization", in, 5, 1);
  if (!bn) return oxp_sym_status(c);
  oxp_attr_set_f(bn, "epsilon", eps);
  oxp_value *y = bn->outputs[0];
  if (relu) y = oxp_sym_op1(c, "Relu", y);
  return finish(c, n, 6, &x, y);
}

oxp_status oxp_s_qbatch_norm(oxp_sctx *c, oxp_node *n) { return qbatch_norm(c, n, false); }
oxp_status oxp_s_qbatch_norm_relu(oxp_sctx *c, oxp_node *n) { return qbatch_norm(c, n, true); }

/* instance_norm(qx, weight, bias, eps, scale, zp) */
oxp_status oxp_s_qinstance_norm(oxp_sctx *c, oxp_node *n) {
  oxp_qval x;
  double eps;
  if (!oxp_q_in(c, n, 0, &x)) return oxp_sym_status(c);
  if (!oxp_sym_float(n, 3, &eps)) return oxp_sym_unsupported(c, "a runtime eps");
  oxp_value *xf = oxp_q_dequant(c, &x);
  int64_t ch = xf ? oxp_nn_dim(xf, 1) : -1;
  oxp_value *in[3] = {xf, param_or(c, n, 1, ch, 1), param_or(c, n, 2, ch, 0)};
  if (!in[0] || !in[1] || !in[2]) return oxp_sym_status(c);
  oxp_node *k = oxp_sym_op(c, "InstanceNormalization", in, 3, 1);
  if (!k) return oxp_sym_status(c);
  oxp_attr_set_f(k, "epsilon", eps);
  return finish(c, n, 4, &x, k->outputs[0]);
}

/* (x - mean) / sqrt(var + eps) over the trailing axes from first on, the
 * moments by ReduceMean (population variance, as torch). */
static oxp_value *normalize(oxp_sctx *c, oxp_value *x, int first, int rank, double eps) {
  int64_t axes[OXP_MAX_SPATIAL_DIMS];
  int k = 0;
  for (int i = first; i < rank && k < OXP_MAX_SPATIAL_DIMS; i++) axes[k++] = i;
  oxp_value *d = oxp_sym_op2(c, "Sub", x, oxp_sym_reduce(c, "ReduceMean", x, axes, k, true));
  oxp_value *var = oxp_sym_reduce(c, "ReduceMean", oxp_sym_op2(c, "Mul", d, d), axes, k, true);
  oxp_value *den = oxp_sym_op1(c, "Sqrt", oxp_sym_op2(c, "Add", var,
                                                       oxp_sym_const_scalar(c, eps, OXP_DT_FLOAT)));
  return oxp_sym_op2(c, "Div", d, den);
}

/* layer_norm(qx, normalized_shape, weight, bias, eps, scale, zp) */
oxp_status oxp_s_qlayer_norm(oxp_sctx *c, oxp_node *n) {
  oxp_qval x;
  double eps;
  int64_t *shape;
  int ns;
  if (!oxp_q_in(c, n, 0, &x) || !oxp_sym_need_ints(c, n, 1, &shape, &ns)) return oxp_sym_status(c);
  if (!oxp_sym_float(n, 4, &eps)) return oxp_sym_unsupported(c, "a runtime eps");
  oxp_value *xf = oxp_q_dequant(c, &x);
  int r = xf ? oxp_sym_rank(xf) : -1;
  if (r < ns || r < 1) return oxp_sym_unsupported(c, "an input of unknown rank");
  oxp_value *y = normalize(c, xf, r - ns, r, eps);
  if (!oxp_sym_is_none(n, 2)) y = oxp_sym_op2(c, "Mul", y, oxp_sym_in_as(c, n, 2, OXP_DT_FLOAT));
  if (!oxp_sym_is_none(n, 3)) y = oxp_sym_op2(c, "Add", y, oxp_sym_in_as(c, n, 3, OXP_DT_FLOAT));
  return finish(c, n, 5, &x, y);
}

/* group_norm(qx, num_groups, weight, bias, eps, scale, zp): moments over
 * [N, G, -1], back to x's shape, then the per-channel affine. */
oxp_status oxp_s_qgroup_norm(oxp_sctx *c, oxp_node *n) {
  oxp_qval x;
  double eps;
  int64_t groups;
  if (!oxp_q_in(c, n, 0, &x) || !oxp_sym_need_int(c, n, 1, &groups)) return oxp_sym_status(c);
  if (!oxp_sym_float(n, 4, &eps)) return oxp_sym_unsupported(c, "a runtime eps");
  oxp_value *xf = oxp_q_dequant(c, &x);
  int r = xf ? oxp_sym_rank(xf) : -1;
  if (r < 2) return oxp_sym_unsupported(c, "an input of unknown rank");
  const int64_t grouped[3] = {0, groups, -1};
  oxp_value *y = normalize(c, oxp_nn_reshape(c, xf, grouped, 3), 2, 3, eps);
  y = oxp_sym_op2(c, "Reshape", y, oxp_sym_op1(c, "Shape", xf));
  int64_t axes[OXP_MAX_SPATIAL_DIMS];
  for (int i = 0; i < r - 2; i++) axes[i] = 1 + i;
  for (int i = 2; i <= 3 && y; i++) {
    if (oxp_sym_is_none(n, i)) continue;
    oxp_value *p = oxp_sym_in_as(c, n, i, OXP_DT_FLOAT);
    if (p && r > 2) p = oxp_sym_unsqueeze(c, p, axes, r - 2);
    y = oxp_sym_op2(c, i == 2 ? "Mul" : "Add", y, p);
  }
  return finish(c, n, 5, &x, y);
}
