/* s_quantized_conv.c: quantized conv and linear layers. Their packed
 * params arrive as constants (bind_packed.c, packed.h); each layer
 * becomes, as in torch's exporter, DequantizeLinear of input and weight,
 * the bias quantized to int32 at scale input_scale * weight_scale (so
 * onnxruntime can fuse the pattern into integer kernels) and dequantized,
 * the float Conv / Gemm, an optional Relu, and QuantizeLinear at the
 * layer's output scale. Per-channel weights need DequantizeLinear's axis,
 * from opset 13. */
#include <string.h>

#include "s_quantized.h"
#include "../export/internal/weights/packed.h"

#define PK 1 /* the packed parts start at input 1 */

static bool need_packed(oxp_sctx *c, oxp_node *n, int nparts) {
  if (n->ninputs == PK + nparts + 2) return true;
  oxp_sym_fail(c, OXP_ERR_GRAPH,
               "%s: %d inputs; expected the input, the packed params (as the "
               "weights file unpacks them) and the output scale and zero point",
               n->kind, n->ninputs);
  return false;
}

/* The weight dequantized (per channel along its axis), and its scale and
 * per-channel axis (-1 per tensor). */
static oxp_value *weight(oxp_sctx *c, oxp_node *n, oxp_value **ws, int64_t *axis) {
  oxp_value *w = oxp_sym_in(c, n, PK + OXP_PK_WEIGHT);
  *ws = oxp_sym_in(c, n, PK + OXP_PK_SCALE);
  oxp_value *wz = oxp_sym_in(c, n, PK + OXP_PK_ZERO_POINT);
  if (!w || !*ws || !wz) return NULL;
  *axis = -1;
  if (!oxp_sym_is_none(n, PK + OXP_PK_AXIS) &&
      !oxp_sym_need_int(c, n, PK + OXP_PK_AXIS, axis))
    return NULL;
  if (*axis >= 0 && oxp_sym_opset(c) < 13) {
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                 "%s with per-channel weights is not supported at opset %d "
                 "(supported from opset 13: DequantizeLinear's axis)",
                 n->kind, oxp_sym_opset(c));
    return NULL;
  }
  w = oxp_q_weight_u8(c, w);
  wz = oxp_q_weight_u8(c, wz);
  if (!w || !wz) return NULL;
  oxp_node *d = oxp_sym_op(c, "DequantizeLinear", (oxp_value *[]){w, *ws, wz}, 3, 1);
  if (!d) return NULL;
  if (*axis >= 0) oxp_attr_set_i(d, "axis", *axis);
  return d->outputs[0];
}

/* The float bias through int32 at scale x_scale * w_scale, as torch's
 * requantize_bias_helper (Cast truncates, as there); NULL without one
 * (*none set). */
static oxp_value *bias(oxp_sctx *c, oxp_node *n, const oxp_qval *x, oxp_value *ws,
                       int64_t axis, bool *none) {
  *none = oxp_sym_is_none(n, PK + OXP_PK_BIAS);
  if (*none) return NULL;
  oxp_value *b = oxp_sym_in(c, n, PK + OXP_PK_BIAS);
  oxp_value *bs = oxp_sym_op2(c, "Mul", ws, x->scale);
  oxp_value *qb = oxp_sym_cast(c, oxp_sym_op2(c, "Div", b, bs), OXP_DT_INT32);
  if (!b || !qb) return NULL;
  const oxp_type *st = ws->type;
  int64_t ch = axis >= 0 && st && st->rank == 1 ? st->dims[0] : -1;
  if (axis >= 0 && ch < 0) {
    oxp_sym_fail(c, OXP_ERR_INTERNAL, "%s: per-channel scale of unknown size", n->kind);
    return NULL;
  }
  oxp_value *bz;
  if (axis >= 0) {
    oxp_tensor *zeros = oxp_tensor_alloc(oxp_sym_arena(c), OXP_DT_INT32, 1, &ch);
    if (!zeros) {
      oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
      return NULL;
    }
    bz = oxp_sym_const(c, zeros);
  } else {
    bz = oxp_sym_const_scalar(c, 0, OXP_DT_INT32);
  }
  oxp_node *d = bz ? oxp_sym_op(c, "DequantizeLinear", (oxp_value *[]){qb, bs, bz}, 3, 1) : NULL;
  if (!d) return NULL;
  if (axis >= 0) oxp_attr_set_i(d, "axis", 0);
  return d->outputs[0];
}

/* An int list part of k entries; conv1d's packed lists are conv2d's
 * (unit height first): their last k entries. */
static bool geometry(oxp_sctx *c, oxp_node *n, int part, int k, int64_t *out) {
  int64_t *v;
  int cnt;
  if (!oxp_sym_need_ints(c, n, PK + part, &v, &cnt)) return false;
  if (cnt < k) {
    oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: packed list of %d entries for %d spatial dims",
                 n->kind, cnt, k);
    return false;
  }
  memcpy(out, v + cnt - k, sizeof *out * (size_t)k);
  return true;
}

static oxp_status qconv(oxp_sctx *c, oxp_node *n, int k, bool relu) {
  oxp_qval x;
  if (!need_packed(c, n, OXP_PK_CONV_N) || !oxp_q_in(c, n, 0, &x)) return oxp_sym_status(c);
  int64_t tr, groups;
  if (!oxp_sym_need_int(c, n, PK + OXP_PK_TRANSPOSED, &tr) ||
      !oxp_sym_need_int(c, n, PK + OXP_PK_GROUPS, &groups))
    return oxp_sym_status(c);
  bool want_tr = strstr(n->kind, "transpose") != NULL;
  if ((tr != 0) != want_tr)
    return oxp_sym_fail(c, OXP_ERR_WEIGHTS, "%s: its packed params are for a%s conv",
                        n->kind, tr ? " transposed" : " plain");
  int64_t stride[3], pad[6], dil[3], outpad[3];
  if (!geometry(c, n, OXP_PK_STRIDE, k, stride) || !geometry(c, n, OXP_PK_PADDING, k, pad) ||
      !geometry(c, n, OXP_PK_DILATION, k, dil) ||
      !geometry(c, n, OXP_PK_OUTPUT_PADDING, k, outpad))
    return oxp_sym_status(c);
  for (int j = 0; j < k; j++) pad[k + j] = pad[j];
  oxp_value *ws, *xf = oxp_q_dequant(c, &x);
  int64_t axis;
  oxp_value *w = xf ? weight(c, n, &ws, &axis) : NULL;
  if (!w) return oxp_sym_status(c);
  const oxp_type *wt = oxp_sym_in_type(n, PK + OXP_PK_WEIGHT);
  if (!wt || wt->rank < 3 || !wt->dims)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: packed weight of unknown shape", n->kind);
  /* conv1d is packed as a conv2d of unit height: [O, I, 1, K] */
  int64_t kshape[3];
  memcpy(kshape, wt->dims + wt->rank - k, sizeof *kshape * (size_t)k);
  if (wt->rank == k + 3) {
    static const int64_t h = 2;
    w = oxp_sym_squeeze(c, w, &h, 1);
  } else if (wt->rank != k + 2) {
    return oxp_sym_fail(c, OXP_ERR_WEIGHTS, "%s: packed weight of rank %d", n->kind, wt->rank);
  }
  bool none;
  oxp_value *b = bias(c, n, &x, ws, axis, &none);
  if (!w || (!b && !none)) return oxp_sym_status(c);
  oxp_node *cv = oxp_sym_op(c, tr ? "ConvTranspose" : "Conv", (oxp_value *[]){xf, w, b},
                            none ? 2 : 3, 1);
  if (!cv) return oxp_sym_status(c);
  oxp_attr_set_ints(cv, "kernel_shape", kshape, k);
  oxp_attr_set_ints(cv, "strides", stride, k);
  oxp_attr_set_ints(cv, "pads", pad, 2 * k);
  oxp_attr_set_ints(cv, "dilations", dil, k);
  oxp_attr_set_i(cv, "group", groups);
  bool any_outpad = false;
  for (int j = 0; j < k; j++) any_outpad |= outpad[j] != 0;
  if (tr && any_outpad) oxp_attr_set_ints(cv, "output_padding", outpad, k);
  oxp_value *y = cv->outputs[0];
  if (relu) y = oxp_sym_op1(c, "Relu", y);
  oxp_value *s, *z;
  if (!oxp_q_params(c, n, PK + OXP_PK_CONV_N, oxp_q_dtype(&x), &s, &z)) return oxp_sym_status(c);
  return oxp_q_set_out(c, n, 0, y, s, z);
}

oxp_status oxp_s_qconv1d(oxp_sctx *c, oxp_node *n) { return qconv(c, n, 1, false); }
oxp_status oxp_s_qconv1d_relu(oxp_sctx *c, oxp_node *n) { return qconv(c, n, 1, true); }
oxp_status oxp_s_qconv2d(oxp_sctx *c, oxp_node *n) { return qconv(c, n, 2, false); }
oxp_status oxp_s_qconv2d_relu(oxp_sctx *c, oxp_node *n) { return qconv(c, n, 2, true); }
oxp_status oxp_s_qconv3d(oxp_sctx *c, oxp_node *n) { return qconv(c, n, 3, false); }
oxp_status oxp_s_qconv3d_relu(oxp_sctx *c, oxp_node *n) { return qconv(c, n, 3, true); }
oxp_status oxp_s_qconv_transpose1d(oxp_sctx *c, oxp_node *n) { return qconv(c, n, 1, false); }
oxp_status oxp_s_qconv_transpose2d(oxp_sctx *c, oxp_node *n) { return qconv(c, n, 2, false); }
oxp_status oxp_s_qconv_transpose3d(oxp_sctx *c, oxp_node *n) { return qconv(c, n, 3, false); }

/* quantized::linear[_relu](x, <packed>, scale, zero_point): Gemm for 2-D
 * input, else MatMul with the transposed weight and Add. */
static oxp_status qlinear(oxp_sctx *c, oxp_node *n, bool relu) {
  oxp_qval x;
  if (!need_packed(c, n, OXP_PK_LINEAR_N) || !oxp_q_in(c, n, 0, &x)) return oxp_sym_status(c);
  oxp_value *ws, *xf = oxp_q_dequant(c, &x);
  int64_t axis;
  oxp_value *w = xf ? weight(c, n, &ws, &axis) : NULL;
  bool none;
  oxp_value *b = w ? bias(c, n, &x, ws, axis, &none) : NULL;
  if (!w || (!b && !none)) return oxp_sym_status(c);
  oxp_value *y;
  if (oxp_sym_rank(xf) == 2) {
    oxp_node *g = oxp_sym_op(c, "Gemm", (oxp_value *[]){xf, w, b}, none ? 2 : 3, 1);
    if (!g) return oxp_sym_status(c);
    oxp_attr_set_i(g, "transB", 1);
    y = g->outputs[0];
  } else {
    oxp_node *t = oxp_sym_op(c, "Transpose", &w, 1, 1);
    if (!t) return oxp_sym_status(c);
    oxp_attr_set_ints(t, "perm", (int64_t[]){1, 0}, 2);
    y = oxp_sym_op2(c, "MatMul", xf, t->outputs[0]);
    if (!none) y = oxp_sym_op2(c, "Add", y, b);
  }
  if (relu) y = oxp_sym_op1(c, "Relu", y);
  oxp_value *s, *z;
  if (!oxp_q_params(c, n, PK + OXP_PK_LINEAR_N, oxp_q_dtype(&x), &s, &z)) return oxp_sym_status(c);
  return oxp_q_set_out(c, n, 0, y, s, z);
}

oxp_status oxp_s_qlinear(oxp_sctx *c, oxp_node *n) { return qlinear(c, n, false); }
oxp_status oxp_s_qlinear_relu(oxp_sctx *c, oxp_node *n) { return qlinear(c, n, true); }
