/* s_vision.c: torchvision's detection ops, in the forms torchvision 0.14
 * registers for the legacy exporter, each checked against its kernel:
 * nms (NonMaxSuppression, the box indices taken from its [K, 3] output),
 * roi_align (RoiAlign: the rois' first column as batch indices),
 * roi_pool (MaxRoiPool). */
#include "s_shape_util.h"

/* NMS and RoiAlign compute in float (onnxruntime has no other kernels
 * for NonMaxSuppression; RoiAlign's rois take the input's type). */
static oxp_value *as_float(oxp_sctx *c, oxp_value *v) {
  int dt = v ? oxp_sym_need_dtype(c, v) : 0;
  if (!dt) return NULL;
  return dt == OXP_DT_FLOAT ? v : oxp_sym_cast(c, v, OXP_DT_FLOAT);
}

/* nms(boxes [N, 4], scores [N], iou_threshold): indices of the kept
 * boxes by decreasing score, as NonMaxSuppression over one batch and one
 * class selects them; column 2 of its [K, 3] output is the box index. */
oxp_status oxp_s_tv_nms(oxp_sctx *c, oxp_node *n) {
  static const int64_t ax0 = 0, ax01[2] = {0, 1};
  oxp_value *boxes = as_float(c, oxp_sym_in(c, n, 0));
  oxp_value *scores = boxes ? as_float(c, oxp_sym_in(c, n, 1)) : NULL;
  oxp_value *iou = scores ? oxp_sym_in_as(c, n, 2, OXP_DT_FLOAT) : NULL;
  if (!iou) return oxp_sym_status(c);
  if (oxp_sym_rank(iou) > 0) iou = oxp_sym_squeeze(c, iou, NULL, 0);
  int64_t all = INT64_MAX;
  oxp_value *in[4] = {oxp_sym_unsqueeze(c, boxes, &ax0, 1),
                      oxp_sym_unsqueeze(c, scores, ax01, 2),
                      oxp_sym_const_i64s(c, &all, 1), iou};
  oxp_node *k = in[0] && in[1] && in[2] ? oxp_sym_op(c, "NonMaxSuppression", in, 4, 1) : NULL;
  if (!k) return oxp_sym_status(c);
  oxp_sym_set_type(c, k->outputs[0], OXP_DT_INT64, 2, (int64_t[]){-1, 3});
  oxp_value *idx = oxp_sx_gather(c, k->outputs[0], oxp_sym_const_i64(c, 2), 1);
  oxp_sym_set_type(c, idx, OXP_DT_INT64, 1, (int64_t[]){-1});
  return oxp_sym_set_out(c, n, 0, idx);
}

/* roi_align(input, rois [K, 5], spatial_scale, pooled_height,
 * pooled_width, sampling_ratio, aligned). torchvision's sampling_ratio
 * -1 (adaptive) is RoiAlign's 0. aligned=False is RoiAlign-10's only
 * form ("output_half_pixel"); aligned=True shifts by half a pixel, which
 * RoiAlign can say only from opset 16. */
static oxp_status roi_align(oxp_sctx *c, oxp_node *n, bool modes) {
  oxp_value *x = oxp_sym_in(c, n, 0), *rois = x ? oxp_sym_in(c, n, 1) : NULL;
  double scale;
  int64_t ph, pw, ratio;
  bool aligned;
  if (!rois || !oxp_sym_need_int(c, n, 3, &ph) || !oxp_sym_need_int(c, n, 4, &pw) ||
      !oxp_sym_need_int(c, n, 5, &ratio))
    return oxp_sym_status(c);
  if (!oxp_sym_float(n, 2, &scale))
    return oxp_sym_runtime_arg(c, n, 2, "RoiAlign takes spatial_scale as an attribute");
  if (!oxp_sym_bool(n, 6, &aligned))
    return oxp_sym_runtime_arg(c, n, 6, "aligned decides RoiAlign's coordinate mode");
  if (aligned && !modes)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "torchvision::roi_align with aligned=True is not supported at "
                        "opset %d (supported from opset 16: RoiAlign-10 has no half-pixel "
                        "offset, and torchvision's own export computes aligned=False there)",
                        oxp_sym_opset(c));
  int dt = oxp_sym_need_dtype(c, x);
  if (!dt) return oxp_sym_status(c);
  if (oxp_sym_dtype(rois) != dt) rois = oxp_sym_cast(c, rois, dt);
  static const int64_t ax = 1, one = 1, five = 5;
  oxp_value *bi = oxp_sym_cast(c, oxp_sx_gather(c, rois, oxp_sym_const_i64(c, 0), 1), OXP_DT_INT64);
  oxp_value *boxes = oxp_sym_slice(c, rois, &ax, &one, &five, NULL, 1);
  oxp_node *k = bi && boxes ? oxp_sym_op(c, "RoiAlign", (oxp_value *[]){x, boxes, bi}, 3, 1) : NULL;
  if (!k) return oxp_sym_status(c);
  oxp_attr_set_i(k, "output_height", ph);
  oxp_attr_set_i(k, "output_width", pw);
  oxp_attr_set_i(k, "sampling_ratio", ratio < 0 ? 0 : ratio);
  oxp_attr_set_f(k, "spatial_scale", scale);
  /* Set at every opset that has it, never left to RoiAlign-16's default
   * (half_pixel): torchvision's symbolic leaves it out, and its exports
   * of aligned=False models (every R-CNN) then shift every box. */
  if (modes)
    oxp_attr_set_s(k, "coordinate_transformation_mode",
                   aligned ? "half_pixel" : "output_half_pixel");
  oxp_sym_set_type(c, k->outputs[0], dt, 4, NULL); /* no shape rule knows RoiAlign */
  return oxp_sym_set_out(c, n, 0, k->outputs[0]);
}

oxp_status oxp_s_tv_roi_align(oxp_sctx *c, oxp_node *n) { return roi_align(c, n, false); }
oxp_status oxp_s_tv_roi_align16(oxp_sctx *c, oxp_node *n) { return roi_align(c, n, true); }

/* roi_pool(input, rois [K, 5], spatial_scale, pooled_height,
 * pooled_width) -> (output, argmax): MaxRoiPool; the argmax (for the
 * backward pass) has no ONNX form. */
oxp_status oxp_s_tv_roi_pool(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0), *rois = x ? oxp_sym_in(c, n, 1) : NULL;
  double scale;
  int64_t ph, pw;
  if (!rois || !oxp_sym_need_int(c, n, 3, &ph) || !oxp_sym_need_int(c, n, 4, &pw))
    return oxp_sym_status(c);
  if (!oxp_sym_float(n, 2, &scale))
    return oxp_sym_runtime_arg(c, n, 2, "MaxRoiPool takes spatial_scale as an attribute");
  if (n->noutputs > 1 && (n->outputs[1]->nuses || oxp_value_is_block_output(n->outputs[1])))
    return oxp_sym_unsupported(c, "the argmax output of torchvision::roi_pool");
  int dt = oxp_sym_need_dtype(c, x);
  if (!dt) return oxp_sym_status(c);
  if (oxp_sym_dtype(rois) != dt) rois = oxp_sym_cast(c, rois, dt);
  oxp_node *k = rois ? oxp_sym_op(c, "MaxRoiPool", (oxp_value *[]){x, rois}, 2, 1) : NULL;
  if (!k) return oxp_sym_status(c);
  oxp_attr_set_ints(k, "pooled_shape", (int64_t[]){ph, pw}, 2);
  oxp_attr_set_f(k, "spatial_scale", scale);
  /* typed here: shape inference has no MaxRoiPool rule (a scripted graph's
   * output had no dtype: difftest roi-pool-script-type) */
  oxp_sym_set_type(c, k->outputs[0], dt, 4, NULL);
  return oxp_sym_set_out(c, n, 0, k->outputs[0]);
}
