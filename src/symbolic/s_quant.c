/* s_quant.c: fake_quantize_per_tensor_affine / _per_channel_affine, the
 * observers' output in quantization-aware training:
 *   out = (clamp(round(x / scale) + zp, qmin, qmax) - zp) * scale
 * which is DequantizeLinear(QuantizeLinear(x)) when [qmin, qmax] is the
 * range of uint8 (0, 255) or int8 (-128, 127): the quantized type saturates
 * exactly there. (0, 127), torch's reduced activation range, adds a Clip
 * of the uint8 value, which needs Clip's integer inputs (opset 12+; torch
 * asks for 13, as do we: the per-channel form needs 13 anyway). Other
 * ranges have no ONNX type and are refused, as by torch. Both round half
 * to even. */
#include "ops.h"

/* Quantize-dequantize of input 0 by inputs 1 (scale) and 2 (zero_point),
 * the range in inputs qi, qi + 1; per-axis along axis when axis >= 0. */
static oxp_status fake_quant(oxp_sctx *c, oxp_node *n, int qi, int64_t axis) {
  int64_t qmin, qmax;
  if (!oxp_sym_need_int(c, n, qi, &qmin) || !oxp_sym_need_int(c, n, qi + 1, &qmax))
    return oxp_sym_status(c);
  bool narrow = qmin == 0 && qmax == 127;
  if (!narrow && !(qmin == 0 && qmax == 255) && !(qmin == -128 && qmax == 127))
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "%s: the range (%lld, %lld) has no ONNX type; only (0, 255), "
                        "(-128, 127) and (0, 127) do", n->kind, (long long)qmin,
                        (long long)qmax);
  if (narrow && oxp_sym_opset(c) < 13)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "%s with the range (0, 127) is not supported at opset %d "
                        "(supported from opset 13)", n->kind, oxp_sym_opset(c));
  int zdt = qmin == 0 ? OXP_DT_UINT8 : OXP_DT_INT8;
  oxp_value *x = oxp_sym_in(c, n, 0);
  oxp_value *scale = x ? oxp_sym_in_as(c, n, 1, OXP_DT_FLOAT) : NULL;
  oxp_value *zp = scale ? oxp_sym_in_as(c, n, 2, zdt) : NULL;
  if (!zp) return oxp_sym_status(c);
  if (oxp_sym_dtype(x) != OXP_DT_FLOAT)
    return oxp_sym_unsupported(c, "fake quantization of a non-float32 tensor");
  oxp_node *q = oxp_sym_op(c, "QuantizeLinear", (oxp_value *[]){x, scale, zp}, 3, 1);
  if (!q) return oxp_sym_status(c);
  if (axis >= 0) oxp_attr_set_i(q, "axis", axis);
  oxp_value *qv = q->outputs[0];
  if (narrow) {
    oxp_value *hi = oxp_sym_const_scalar(c, 127, OXP_DT_UINT8);
    oxp_node *clip = oxp_sym_op(c, "Clip", (oxp_value *[]){qv, NULL, hi}, 3, 1);
    if (!clip) return oxp_sym_status(c);
    qv = clip->outputs[0];
  }
  oxp_node *d = oxp_sym_op(c, "DequantizeLinear", (oxp_value *[]){qv, scale, zp}, 3, 1);
  if (!d) return oxp_sym_status(c);
  if (axis >= 0) oxp_attr_set_i(d, "axis", axis);
  return oxp_sym_set_out(c, n, 0, d->outputs[0]);
}

/* (x, scale, zero_point, quant_min, quant_max); scale and zero_point are
 * numbers or (tensor_qparams overload) 0-d tensors. */
oxp_status oxp_s_fake_quant_tensor(oxp_sctx *c, oxp_node *n) {
  return fake_quant(c, n, 3, -1);
}

/* (x, scale[C], zero_point[C], axis, quant_min, quant_max) */
oxp_status oxp_s_fake_quant_channel(oxp_sctx *c, oxp_node *n) {
  int64_t axis;
  if (!oxp_sym_need_int(c, n, 3, &axis)) return oxp_sym_status(c);
  const oxp_type *t = oxp_sym_in_type(n, 0);
  if (axis < 0 && !(t && t->rank >= 0 && oxp_sym_axis(axis, t->rank, &axis)))
    return oxp_sym_unsupported(c, "a negative axis on a tensor of unknown rank");
  return fake_quant(c, n, 4, axis);
}
