/* s_nn.c: layers: softmax, convolution, batch and layer normalization,
 * pooling, embedding. Each maps to the fused ONNX op where the opset has
 * one. */
#include <stdlib.h>
#include <string.h>

#include "ops.h"

/* Softmax over dim. Before opset 13 Softmax flattens from axis on, so a
 * dim that is not the last is moved there and back. */
static oxp_status softmax_like(oxp_sctx *c, oxp_node *n, const char *op) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t dim;
  if (!x || !oxp_sym_need_int(c, n, 1, &dim)) return oxp_sym_status(c);
  if (n->ninputs > 2 && !oxp_sym_is_none(n, 2)) {
    int64_t st;
    if (!oxp_sym_int(n, 2, &st) || !oxp_dtype_from_scalar_type(st))
      return oxp_sym_unsupported(c, "a runtime dtype argument");
    x = oxp_sym_cast(c, x, oxp_dtype_from_scalar_type(st));
  }
  int r = oxp_sym_rank(x);
  int64_t ax;
  if (r >= 0 && !oxp_sym_axis(dim, r, &ax))
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: dim %lld out of range",
                        n->kind, (long long)dim);
  if (r < 0) ax = dim;
  bool last = r >= 0 && ax == r - 1;
  if (oxp_sym_opset(c) >= 13 || last || r == 0) {
    oxp_node *s = oxp_sym_op(c, op, &x, 1, 1);
    if (!s) return oxp_sym_status(c);
    oxp_attr_set_i(s, "axis", r == 0 ? 0 : ax);
    return oxp_sym_set_out(c, n, 0, s->outputs[0]);
  }
  if (r < 0) return oxp_sym_unsupported(c, "softmax over a dim of unknown rank");
  int64_t perm[16];
  for (int i = 0; i < r; i++) perm[i] = i;
  perm[ax] = r - 1;
  perm[r - 1] = ax;
  oxp_node *t1 = oxp_sym_op(c, "Transpose", &x, 1, 1);
  if (!t1) return oxp_sym_status(c);
  oxp_attr_set_ints(t1, "perm", perm, r);
  oxp_node *s = oxp_sym_op(c, op, &t1->outputs[0], 1, 1);
  if (!s) return oxp_sym_status(c);
  oxp_attr_set_i(s, "axis", r - 1);
  oxp_node *t2 = oxp_sym_op(c, "Transpose", &s->outputs[0], 1, 1);
  if (!t2) return oxp_sym_status(c);
  oxp_attr_set_ints(t2, "perm", perm, r);
  return oxp_sym_set_out(c, n, 0, t2->outputs[0]);
}

oxp_status oxp_s_softmax(oxp_sctx *c, oxp_node *n) {
  return softmax_like(c, n, "Softmax");
}

oxp_status oxp_s_log_softmax(oxp_sctx *c, oxp_node *n) {
  return softmax_like(c, n, "LogSoftmax");
}

/* An int list argument widened to k entries (torch lets one int stand
 * for all spatial dims). */
static bool spatial(oxp_sctx *c, oxp_node *n, int i, int k, int64_t dflt,
                    int64_t *out) {
  int64_t *v;
  int cnt;
  if (i >= n->ninputs || oxp_sym_is_none(n, i)) {
    for (int j = 0; j < k; j++) out[j] = dflt;
    return true;
  }
  if (!oxp_sym_need_ints(c, n, i, &v, &cnt)) return false;
  if (cnt == 0) {
    for (int j = 0; j < k; j++) out[j] = dflt;
    return true;
  }
  if (cnt != 1 && cnt != k) {
    oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: argument %d has %d values for %d dims",
                 n->kind, i, cnt, k);
    return false;
  }
  for (int j = 0; j < k; j++) out[j] = v[cnt == 1 ? 0 : j];
  return true;
}

static bool all_eq(const int64_t *v, int k, int64_t x) {
  for (int i = 0; i < k; i++)
    if (v[i] != x) return false;
  return true;
}

/* Shared by _convolution and conv1d/2d/3d; argument positions differ. */
static oxp_status conv(oxp_sctx *c, oxp_node *n, int i_stride, int i_pad,
                       int i_dil, int i_groups, bool transposed, int i_outpad) {
  oxp_value *x = oxp_sym_in(c, n, 0), *w = oxp_sym_in(c, n, 1);
  if (!x || !w) return oxp_sym_status(c);
  int wr = oxp_sym_rank(w);
  if (wr < 3)
    return oxp_sym_unsupported(c, "convolution with a weight of unknown rank");
  int k = wr - 2;
  int64_t stride[8], pad[16], dil[8], outpad[8], groups = 1;
  if (!spatial(c, n, i_stride, k, 1, stride) || !spatial(c, n, i_dil, k, 1, dil))
    return oxp_sym_status(c);
  const char *padmode = NULL;
  if (oxp_sym_str(n, i_pad, &padmode)) {
    if (strcmp(padmode, "valid") == 0) padmode = NULL;
    for (int j = 0; j < k; j++) pad[j] = 0;
  } else if (!spatial(c, n, i_pad, k, 0, pad)) {
    return oxp_sym_status(c);
  }
  for (int j = 0; j < k; j++) pad[k + j] = pad[j];
  if (i_groups < n->ninputs && !oxp_sym_need_int(c, n, i_groups, &groups))
    return oxp_sym_status(c);
  if (transposed && !spatial(c, n, i_outpad, k, 0, outpad))
    return oxp_sym_status(c);
  bool has_bias = !oxp_sym_is_none(n, 2);
  oxp_value *in[3] = {x, w, has_bias ? oxp_sym_in(c, n, 2) : NULL};
  if (has_bias && !in[2]) return oxp_sym_status(c);
  oxp_node *cv = oxp_sym_op(c, transposed ? "ConvTranspose" : "Conv", in,
                            has_bias ? 3 : 2, 1);
  if (!cv) return oxp_sym_status(c);
  if (w->type->dims && w->type->dims[2] >= 0)
    oxp_attr_set_ints(cv, "kernel_shape", w->type->dims + 2, k);
  oxp_attr_set_ints(cv, "strides", stride, k);
  if (padmode) oxp_attr_set_s(cv, "auto_pad", "SAME_UPPER");
  else oxp_attr_set_ints(cv, "pads", pad, 2 * k);
  oxp_attr_set_ints(cv, "dilations", dil, k);
  oxp_attr_set_i(cv, "group", groups);
  if (transposed && !all_eq(outpad, k, 0))
    oxp_attr_set_ints(cv, "output_padding", outpad, k);
  return oxp_sym_set_out(c, n, 0, cv->outputs[0]);
}

/* _convolution(input, weight, bias, stride, padding, dilation, transposed,
 *              output_padding, groups, ...) */
oxp_status oxp_s_convolution(oxp_sctx *c, oxp_node *n) {
  bool transposed = false;
  if (!oxp_sym_bool(n, 6, &transposed))
    return oxp_sym_unsupported(c, "a runtime transposed flag");
  return conv(c, n, 3, 4, 5, 8, transposed, 7);
}

/* conv{1,2,3}d(input, weight, bias, stride, padding, dilation, groups) */
oxp_status oxp_s_conv(oxp_sctx *c, oxp_node *n) {
  return conv(c, n, 3, 4, 5, 6, false, -1);
}

/* A constant of `count` copies of v, for absent affine parameters. */
static oxp_value *filled(oxp_sctx *c, int64_t count, float v) {
  float *data = oxp_alloc(oxp_sym_arena(c), sizeof(float) * (size_t)count);
  if (!data) return NULL;
  for (int64_t i = 0; i < count; i++) data[i] = v;
  return oxp_sym_const_f32s(c, data, (int)count);
}

static int64_t channels(oxp_value *x, oxp_node *n) {
  const oxp_type *t = oxp_sym_in_type(n, 3); /* running_mean */
  if (t && t->kind == OXP_T_TENSOR && t->rank == 1 && t->dims[0] >= 0)
    return t->dims[0];
  return x->type && x->type->rank >= 2 ? x->type->dims[1] : -1;
}

/* batch_norm(input, weight, bias, running_mean, running_var, training,
 *            momentum, eps, cudnn_enabled) */
oxp_status oxp_s_batch_norm(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  bool training = false;
  double momentum = 0.1, eps = 1e-5;
  oxp_sym_bool(n, 5, &training);
  oxp_sym_float(n, 6, &momentum);
  oxp_sym_float(n, 7, &eps);
  if (oxp_sym_options(c)->training == OXP_TRAIN_TRAIN && training)
    return oxp_sym_unsupported(c, "batch_norm in training mode");
  if (oxp_sym_is_none(n, 3) || oxp_sym_is_none(n, 4))
    return oxp_sym_unsupported(c, "batch_norm without running statistics");
  int64_t ch = channels(x, n);
  if ((oxp_sym_is_none(n, 1) || oxp_sym_is_none(n, 2)) && ch < 0)
    return oxp_sym_unsupported(c, "batch_norm without affine parameters on "
                                  "an unknown channel count");
  int dt = oxp_sym_dtype(x) ? oxp_sym_dtype(x) : OXP_DT_FLOAT;
  oxp_value *in[5] = {
      x,
      oxp_sym_is_none(n, 1) ? filled(c, ch, 1) : oxp_sym_in_as(c, n, 1, dt),
      oxp_sym_is_none(n, 2) ? filled(c, ch, 0) : oxp_sym_in_as(c, n, 2, dt),
      oxp_sym_in_as(c, n, 3, dt), oxp_sym_in_as(c, n, 4, dt)};
  for (int i = 0; i < 5; i++)
    if (!in[i]) return oxp_sym_status(c);
  oxp_node *bn = oxp_sym_op(c, "BatchNormalization", in, 5, 1);
  if (!bn) return oxp_sym_status(c);
  oxp_attr_set_f(bn, "epsilon", eps);
  oxp_attr_set_f(bn, "momentum", 1 - momentum);
  return oxp_sym_set_out(c, n, 0, bn->outputs[0]);
}

/* layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable)
 * before opset 17: (x - mean) / sqrt(var + eps) * w + b over the last
 * len(normalized_shape) axes. */
oxp_status oxp_s_layer_norm(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t *shape;
  int k;
  double eps = 1e-5;
  if (!x || !oxp_sym_need_ints(c, n, 1, &shape, &k)) return oxp_sym_status(c);
  oxp_sym_float(n, 4, &eps);
  int dt = oxp_sym_dtype(x) ? oxp_sym_dtype(x) : OXP_DT_FLOAT;
  int64_t axes[16];
  for (int i = 0; i < k; i++) axes[i] = i - k;
  oxp_value *mean = oxp_sym_reduce(c, "ReduceMean", x, axes, k, true);
  oxp_value *d = oxp_sym_op2(c, "Sub", x, mean);
  oxp_value *var = oxp_sym_reduce(c, "ReduceMean", oxp_sym_op2(c, "Mul", d, d),
                                  axes, k, true);
  oxp_value *den = oxp_sym_op1(c, "Sqrt", oxp_sym_op2(c, "Add", var,
                               oxp_sym_const_scalar(c, eps, dt)));
  oxp_value *y = oxp_sym_op2(c, "Div", d, den);
  if (!oxp_sym_is_none(n, 2)) y = oxp_sym_op2(c, "Mul", y, oxp_sym_in_as(c, n, 2, dt));
  if (!oxp_sym_is_none(n, 3)) y = oxp_sym_op2(c, "Add", y, oxp_sym_in_as(c, n, 3, dt));
  return oxp_sym_set_out(c, n, 0, y);
}

oxp_status oxp_s_layer_norm17(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t *shape;
  int k;
  double eps = 1e-5;
  if (!x || !oxp_sym_need_ints(c, n, 1, &shape, &k)) return oxp_sym_status(c);
  oxp_sym_float(n, 4, &eps);
  int dt = oxp_sym_dtype(x) ? oxp_sym_dtype(x) : OXP_DT_FLOAT;
  int64_t count = 1;
  for (int i = 0; i < k; i++) count *= shape[i];
  oxp_value *w = oxp_sym_is_none(n, 2) ? NULL : oxp_sym_in_as(c, n, 2, dt);
  if (!w) {
    /* LayerNormalization requires a scale: ones shaped normalized_shape. */
    w = filled(c, count, 1);
    if (w && k != 1) w = oxp_sym_op2(c, "Reshape", w, oxp_sym_const_i64s(c, shape, k));
    if (w && dt != OXP_DT_FLOAT) w = oxp_sym_cast(c, w, dt);
  }
  oxp_value *b = oxp_sym_is_none(n, 3) ? NULL : oxp_sym_in_as(c, n, 3, dt);
  oxp_value *in[3] = {x, w, b};
  if (!w) return oxp_sym_status(c);
  oxp_node *ln = oxp_sym_op(c, "LayerNormalization", in, b ? 3 : 2, 1);
  if (!ln) return oxp_sym_status(c);
  oxp_attr_set_i(ln, "axis", -k);
  oxp_attr_set_f(ln, "epsilon", eps);
  return oxp_sym_set_out(c, n, 0, ln->outputs[0]);
}

static int pool_dims(oxp_node *n) {
  const char *k = n->kind;
  size_t l = strlen(k);
  return l > 2 && k[l - 1] == 'd' ? k[l - 2] - '0' : 2;
}

/* max_pool{1,2,3}d(input, kernel_size, stride, padding, dilation, ceil_mode) */
oxp_status oxp_s_max_pool(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int k = pool_dims(n);
  int64_t kernel[8], stride[8], pad[16], dil[8];
  bool ceil = false;
  if (!spatial(c, n, 1, k, 1, kernel) || !spatial(c, n, 2, k, -1, stride) ||
      !spatial(c, n, 3, k, 0, pad) || !spatial(c, n, 4, k, 1, dil))
    return oxp_sym_status(c);
  oxp_sym_bool(n, 5, &ceil);
  if (stride[0] < 0) memcpy(stride, kernel, sizeof(int64_t) * (size_t)k);
  for (int j = 0; j < k; j++) pad[k + j] = pad[j];
  if (oxp_sym_opset(c) < 10 && (ceil || !all_eq(dil, k, 1)))
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "%s with ceil_mode or dilation is not supported at "
                        "opset %d (supported from opset 10)",
                        n->kind, oxp_sym_opset(c));
  oxp_node *p = oxp_sym_op(c, "MaxPool", &x, 1, 1);
  if (!p) return oxp_sym_status(c);
  oxp_attr_set_ints(p, "kernel_shape", kernel, k);
  oxp_attr_set_ints(p, "strides", stride, k);
  oxp_attr_set_ints(p, "pads", pad, 2 * k);
  if (oxp_sym_opset(c) >= 10) {
    if (!all_eq(dil, k, 1)) oxp_attr_set_ints(p, "dilations", dil, k);
    if (ceil) oxp_attr_set_i(p, "ceil_mode", 1);
  }
  return oxp_sym_set_out(c, n, 0, p->outputs[0]);
}

/* avg_pool{1,2,3}d(input, kernel, stride, padding, ceil_mode,
 *                  count_include_pad[, divisor_override]) */
oxp_status oxp_s_avg_pool(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int k = pool_dims(n);
  int64_t kernel[8], stride[8], pad[16];
  bool ceil = false, include = true;
  if (!spatial(c, n, 1, k, 1, kernel) || !spatial(c, n, 2, k, -1, stride) ||
      !spatial(c, n, 3, k, 0, pad))
    return oxp_sym_status(c);
  oxp_sym_bool(n, 4, &ceil);
  oxp_sym_bool(n, 5, &include);
  if (n->ninputs > 6 && !oxp_sym_is_none(n, 6))
    return oxp_sym_unsupported(c, "avg_pool with divisor_override");
  if (stride[0] < 0) memcpy(stride, kernel, sizeof(int64_t) * (size_t)k);
  for (int j = 0; j < k; j++) pad[k + j] = pad[j];
  if (oxp_sym_opset(c) < 10 && ceil)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "%s with ceil_mode is not supported at opset %d "
                        "(supported from opset 10)", n->kind, oxp_sym_opset(c));
  oxp_node *p = oxp_sym_op(c, "AveragePool", &x, 1, 1);
  if (!p) return oxp_sym_status(c);
  oxp_attr_set_ints(p, "kernel_shape", kernel, k);
  oxp_attr_set_ints(p, "strides", stride, k);
  oxp_attr_set_ints(p, "pads", pad, 2 * k);
  if (include && !all_eq(pad, 2 * k, 0)) oxp_attr_set_i(p, "count_include_pad", 1);
  if (ceil) oxp_attr_set_i(p, "ceil_mode", 1);
  return oxp_sym_set_out(c, n, 0, p->outputs[0]);
}

/* adaptive_avg_pool: global when every output size is 1, else a plain
 * AveragePool when each input size divides evenly. */
oxp_status oxp_s_adaptive_avg_pool(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t *out;
  int k;
  if (!x || !oxp_sym_need_ints(c, n, 1, &out, &k)) return oxp_sym_status(c);
  if (all_eq(out, k, 1))
    return oxp_sym_set_out(c, n, 0, oxp_sym_op1(c, "GlobalAveragePool", x));
  const oxp_type *t = x->type;
  if (!t || t->rank != k + 2)
    return oxp_sym_unsupported(c, "adaptive_avg_pool on an input of unknown rank");
  int64_t kernel[8];
  for (int j = 0; j < k; j++) {
    int64_t in = t->dims[2 + j];
    if (in < 0 || (t->dim_params && t->dim_params[2 + j]) || out[j] <= 0 ||
        in % out[j] != 0)
      return oxp_sym_unsupported(c, "adaptive_avg_pool whose input size is not "
                                    "a static multiple of its output size");
    kernel[j] = in / out[j];
  }
  oxp_node *p = oxp_sym_op(c, "AveragePool", &x, 1, 1);
  if (!p) return oxp_sym_status(c);
  oxp_attr_set_ints(p, "kernel_shape", kernel, k);
  oxp_attr_set_ints(p, "strides", kernel, k);
  return oxp_sym_set_out(c, n, 0, p->outputs[0]);
}

/* embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse) */
oxp_status oxp_s_embedding(oxp_sctx *c, oxp_node *n) {
  oxp_value *w = oxp_sym_in(c, n, 0), *idx = oxp_sym_in(c, n, 1);
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Gather", w, idx));
}
