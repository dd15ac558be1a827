/* s_quantized_dynamic.c: dynamically quantized Linear
 * (quantized::linear_dynamic, linear_relu_dynamic), which torch's
 * exporter does not map. torch quantizes the float input at run time to
 * uint8 with a scale and zero point chosen from its range
 * (quant_utils::ChooseQuantizationParams), multiplies the integers with
 * the int8 weight into int32, and returns acc * (x_scale * w_scale) +
 * bias in float. The same steps are written here in ONNX: the parameter
 * choice with its double-precision arithmetic, its 0.1 fallback and its
 * small-scale cut-off, the input rounded as at::quantize_per_tensor
 * rounds (x * (1 / scale)), MatMulInteger, and the float epilogue.
 * ONNX's DynamicQuantizeLinear computes the scale in float and knows no
 * reduced range, so it would differ by a step now and then.
 *
 * reduce_range=True means a 7-bit input range on fbgemm/onednn and is
 * ignored by qnnpack; the IR cannot tell which engine packed the layer,
 * so the weights file says it (NAME.reduced_qmax, docs/quantized.md). */
#include "s_quantized.h"
#include "../export/internal/weights/packed.h"

#define PK 1 /* the packed parts start at input 1 */

static oxp_value *k64(oxp_sctx *c, double v) {
  return oxp_sym_const_scalar(c, v, OXP_DT_DOUBLE);
}

int64_t oxp_q_dyn_qmax(oxp_sctx *c, const char *op, oxp_node *n, int qi, bool reduce) {
  if (!reduce) return 255;
  int64_t q;
  if (oxp_sym_is_none(n, qi)) {
    oxp_sym_fail(c, OXP_ERR_WEIGHTS,
                 "%s with reduce_range=True: the input's range depends on the "
                 "quantized engine that packed the layer (7 bits on fbgemm and "
                 "onednn, 8 on qnnpack), and the weights file has no "
                 "'<packed params>.reduced_qmax' to say which (docs/quantized.md)",
                 op);
    return 0;
  }
  if (!oxp_sym_need_int(c, n, qi, &q)) return 0;
  if (q != 127 && q != 255) {
    oxp_sym_fail(c, OXP_ERR_WEIGHTS, "%s: reduced_qmax %lld is neither 127 nor 255",
                 op, (long long)q);
    return 0;
  }
  return q;
}

/* The top of linear_dynamic's input range; 0 after a diagnostic. */
static int64_t input_qmax(oxp_sctx *c, oxp_node *n) {
  bool reduce;
  if (!oxp_sym_bool(n, PK + OXP_PK_LINEAR_N, &reduce)) {
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: reduce_range must be a constant", n->kind);
    return 0;
  }
  return oxp_q_dyn_qmax(c, n->kind, n, PK + OXP_PK_REDUCED_QMAX, reduce);
}

/* ChooseQuantizationParams(min(x), max(x), 0, qmax) for float32 x: the
 * scale (float32 0-d) and zero point (uint8 0-d). */
static bool choose_qparams(oxp_sctx *c, oxp_value *x, int64_t qmax, oxp_value **scale,
                           oxp_value **zp) {
  const double small = (double)6.1e-5f; /* SMALL_SCALE_THRESHOLD, a float */
  oxp_value *zero = oxp_sym_const_scalar(c, 0, OXP_DT_FLOAT);
  oxp_value *mn = oxp_sym_op2(c, "Min", oxp_sym_reduce(c, "ReduceMin", x, NULL, 0, false), zero);
  oxp_value *mx = oxp_sym_op2(c, "Max", oxp_sym_reduce(c, "ReduceMax", x, NULL, 0, false), zero);
  oxp_value *mnd = oxp_sym_cast(c, mn, OXP_DT_DOUBLE), *mxd = oxp_sym_cast(c, mx, OXP_DT_DOUBLE);
  oxp_value *s = oxp_sym_op2(c, "Div", oxp_sym_op2(c, "Sub", mxd, mnd), k64(c, (double)qmax));
  /* a scale of 0 in float, or one whose float reciprocal overflows: 0.1 */
  oxp_value *sf = oxp_sym_cast(c, s, OXP_DT_FLOAT);
  oxp_value *bad = oxp_sym_op2(
      c, "Or", oxp_sym_op2(c, "Equal", sf, zero),
      oxp_sym_op1(c, "IsInf", oxp_sym_op1(c, "Reciprocal", sf)));
  s = oxp_sym_op3(c, "Where", bad, k64(c, 0.1), s);
  /* below the cut-off the scale is the cut-off and [min, max] widens:
   * min (or max) at 0 keeps it and moves the other end, else both scale
   * by cut-off / float(scale), in float */
  oxp_value *tiny = oxp_sym_op2(c, "Less", s, k64(c, small));
  oxp_value *amp = oxp_sym_op2(c, "Div", oxp_sym_const_scalar(c, small, OXP_DT_FLOAT),
                               oxp_sym_cast(c, s, OXP_DT_FLOAT));
  oxp_value *span = oxp_sym_const_scalar(c, (double)(6.1e-5f * (float)qmax), OXP_DT_FLOAT);
  oxp_value *mn0 = oxp_sym_op2(c, "Equal", mn, zero), *mx0 = oxp_sym_op2(c, "Equal", mx, zero);
  oxp_value *mn_t = oxp_sym_op3(c, "Where", mn0, mn,
                                oxp_sym_op3(c, "Where", mx0, oxp_sym_op1(c, "Neg", span),
                                            oxp_sym_op2(c, "Mul", mn, amp)));
  oxp_value *mx_t = oxp_sym_op3(c, "Where", mn0, span,
                                oxp_sym_op3(c, "Where", mx0, mx, oxp_sym_op2(c, "Mul", mx, amp)));
  mn = oxp_sym_op3(c, "Where", tiny, mn_t, mn);
  mx = oxp_sym_op3(c, "Where", tiny, mx_t, mx);
  s = oxp_sym_op3(c, "Where", tiny, k64(c, small), s);
  /* the zero point from whichever end adds the smaller terms, in double,
   * clamped, then rounded half to even (nearbyint) */
  oxp_value *lo = oxp_sym_op2(c, "Div", oxp_sym_cast(c, mn, OXP_DT_DOUBLE), s);
  oxp_value *hi = oxp_sym_op2(c, "Div", oxp_sym_cast(c, mx, OXP_DT_DOUBLE), s);
  oxp_value *from_min = oxp_sym_op1(c, "Neg", lo);
  oxp_value *from_max = oxp_sym_op2(c, "Sub", k64(c, (double)qmax), hi);
  oxp_value *err_min = oxp_sym_op1(c, "Neg", oxp_sym_op1(c, "Abs", lo));
  oxp_value *err_max = oxp_sym_op2(c, "Sub", k64(c, (double)qmax), oxp_sym_op1(c, "Abs", hi));
  oxp_value *z0 = oxp_sym_op3(c, "Where", oxp_sym_op2(c, "Less", err_min, err_max), from_min,
                              from_max);
  oxp_value *z = oxp_sym_op1(
      c, "Round", oxp_sym_op2(c, "Min", oxp_sym_op2(c, "Max", z0, k64(c, 0)), k64(c, (double)qmax)));
  *scale = oxp_sym_cast(c, s, OXP_DT_FLOAT);
  *zp = oxp_sym_cast(c, z, OXP_DT_UINT8);
  return *scale && *zp;
}

/* x quantized to uint8 as at::quantize_per_tensor does on the CPU:
 * zero_point + nearbyint(x * (1 / scale)), clamped to [0, 255]. */
static oxp_value *quantize_input(oxp_sctx *c, oxp_value *x, oxp_value *scale, oxp_value *zp) {
  oxp_value *inv = oxp_sym_op1(c, "Reciprocal", scale);
  oxp_value *q = oxp_sym_op2(c, "Add", oxp_sym_op1(c, "Round", oxp_sym_op2(c, "Mul", x, inv)),
                             oxp_sym_cast(c, zp, OXP_DT_FLOAT));
  q = oxp_sym_op2(c, "Min", oxp_sym_op2(c, "Max", q, oxp_sym_const_scalar(c, 0, OXP_DT_FLOAT)),
                  oxp_sym_const_scalar(c, 255, OXP_DT_FLOAT));
  return oxp_sym_cast(c, q, OXP_DT_UINT8);
}

oxp_value *oxp_q_linear_dyn(oxp_sctx *c, oxp_value *x, oxp_value *w, oxp_value *ws,
                            oxp_value *wz, oxp_node *bn, int bi, int64_t qmax) {
  oxp_value *xs, *xz;
  if (!choose_qparams(c, x, qmax, &xs, &xz)) return NULL;
  oxp_value *xq = quantize_input(c, x, xs, xz);
  w = oxp_q_weight_u8(c, w);
  wz = oxp_q_weight_u8(c, wz);
  if (!w || !wz) return NULL;
  /* MatMulInteger takes B as [I, O], its zero point per column (O) */
  oxp_node *t = oxp_sym_op(c, "Transpose", &w, 1, 1);
  if (!t) return NULL;
  oxp_attr_set_ints(t, "perm", (int64_t[]){1, 0}, 2);
  oxp_node *mm = oxp_sym_op(c, "MatMulInteger", (oxp_value *[]){xq, t->outputs[0], xz, wz}, 4, 1);
  if (!mm) return NULL;
  oxp_value *y = oxp_sym_op2(c, "Mul", oxp_sym_cast(c, mm->outputs[0], OXP_DT_FLOAT),
                             oxp_sym_op2(c, "Mul", xs, ws));
  if (oxp_sym_is_none(bn, bi)) return y;
  oxp_value *bias = oxp_sym_in(c, bn, bi);
  return bias ? oxp_sym_op2(c, "Add", y, bias) : NULL;
}

/* quantized::linear[_relu]_dynamic(x, <packed>, reduce_range) */
static oxp_status qlinear_dynamic(oxp_sctx *c, oxp_node *n, bool relu) {
  if (n->ninputs != PK + OXP_PK_LINEAR_N + 1)
    return oxp_sym_fail(c, OXP_ERR_GRAPH,
                        "%s: %d inputs; expected the input, the packed params (as the "
                        "weights file unpacks them) and reduce_range",
                        n->kind, n->ninputs);
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  if (!x->type || x->type->dtype != OXP_DT_FLOAT)
    return oxp_sym_unsupported(c, "an input other than float32");
  int64_t qmax = input_qmax(c, n);
  if (!qmax) return oxp_sym_status(c);
  oxp_value *w = oxp_sym_in(c, n, PK + OXP_PK_WEIGHT);
  oxp_value *ws = oxp_sym_in(c, n, PK + OXP_PK_SCALE);
  oxp_value *wz = oxp_sym_in(c, n, PK + OXP_PK_ZERO_POINT);
  if (!w || !ws || !wz) return oxp_sym_status(c);
  if (w->type->dtype != OXP_DT_INT8)
    return oxp_sym_unsupported(c, "a weight other than qint8");
  oxp_value *y = oxp_q_linear_dyn(c, x, w, ws, wz, n, PK + OXP_PK_BIAS, qmax);
  if (!y) return oxp_sym_status(c);
  if (relu) y = oxp_sym_op1(c, "Relu", y);
  return oxp_sym_set_out(c, n, 0, y);
}

oxp_status oxp_s_qlinear_dynamic(oxp_sctx *c, oxp_node *n) {
  return qlinear_dynamic(c, n, false);
}
oxp_status oxp_s_qlinear_relu_dynamic(oxp_sctx *c, oxp_node *n) {
  return qlinear_dynamic(c, n, true);
}
