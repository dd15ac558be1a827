/* s_quantized.h: quantized tensors while lowering (s_quantized*.c). A
 * quantized TorchScript value lowers to a pack marked quant: its integer
 * tensor (uint8 / int8), its scale (float32 0-d) and zero point (0-d, the
 * integer tensor's type). Ops read it dequantized and write it quantized,
 * so ONNX sees DequantizeLinear -> float op -> QuantizeLinear around each
 * one, the form torch's exporter emits and onnxruntime fuses. */
#ifndef OXP_S_QUANTIZED_H
#define OXP_S_QUANTIZED_H

#include "ops.h"

typedef struct {
  oxp_value *q, *scale, *zp;
} oxp_qval;

/* Does any input of n (or any element of a list input) hold a quantized
 * tensor? */
bool oxp_q_has_input(oxp_sctx *c, oxp_node *n);
/* n, an op other than quantized::*, with quantized inputs: the rows of
 * quant_args.def say how (fn: n's float symbolic, or NULL). */
oxp_status oxp_q_args(oxp_sctx *c, oxp_node *n, oxp_symbolic_fn fn);

/* Source value v as a quantized tensor; false after a diagnostic naming
 * n when it is not one. */
bool oxp_q_value(oxp_sctx *c, oxp_node *n, oxp_value *v, oxp_qval *out);
static inline bool oxp_q_in(oxp_sctx *c, oxp_node *n, int i, oxp_qval *out) {
  return oxp_q_value(c, n, oxp_sym_src(n, i), out);
}
/* DequantizeLinear of q (float32). */
oxp_value *oxp_q_dequant(oxp_sctx *c, const oxp_qval *q);
/* The output scale and zero point of a quantized op, inputs si and
 * si + 1 (constants or tensors), the zero point in zdt (uint8 / int8). */
bool oxp_q_params(oxp_sctx *c, oxp_node *n, int si, int zdt, oxp_value **scale,
                  oxp_value **zp);
/* QuantizeLinear of the float32 value f, bound to output i of n. */
oxp_status oxp_q_set_out(oxp_sctx *c, oxp_node *n, int i, oxp_value *f,
                         oxp_value *scale, oxp_value *zp);
/* Element type of a quantized tensor's integer values. */
int oxp_q_dtype(const oxp_qval *q);
/* An int8 weight or weight zero point v shifted by 128 into uint8 (other
 * dtypes as they are): (w + 128) - (z + 128) is w - z, so the model
 * computes the same, and onnxruntime runs uint8 x uint8 kernels. Its
 * uint8 x int8 kernels on x86 without VNNI (AVX2, AVX-512F) saturate the
 * int16 sums of adjacent products (VPMADDUBSW), which put a model with
 * 8-bit activations 31 steps off (onnxruntime's quantization docs name
 * the issue and this remedy). Constant weights fold to uint8 constants. */
oxp_value *oxp_q_weight_u8(oxp_sctx *c, oxp_value *v);

/* Dynamic quantization (s_quantized_dynamic.c): torch's dynamic linear
 * (PackedLinearWeight*::apply_dynamic) of float32 x: x quantized to uint8
 * [0, qmax] with parameters chosen from its own range, MatMulInteger with
 * the int8 weight w (torch's [O, I]), scaled by x's and the weight's
 * scales (ws, zero points wz), plus the bias (float32 [O]) that input bi
 * of node bn holds, if it is not None. NULL after a diagnostic. */
oxp_value *oxp_q_linear_dyn(oxp_sctx *c, oxp_value *x, oxp_value *w, oxp_value *ws,
                            oxp_value *wz, oxp_node *bn, int bi, int64_t qmax);
/* The top of a dynamic linear's input range: 255, or with reduce the
 * packed params' reduced_qmax, input qi of n (None: an error naming op
 * and the missing key); 0 after a diagnostic. */
int64_t oxp_q_dyn_qmax(oxp_sctx *c, const char *op, oxp_node *n, int qi, bool reduce);

#endif
