/* s_norm.c: normalization layers: batch_norm, instance_norm, group_norm,
 * layer_norm / native_layer_norm, _weight_norm. Fused ONNX ops where the
 * opset has one that computes the same thing: BatchNormalization,
 * InstanceNormalization, GroupNormalization (18+), LayerNormalization
 * (17+). */
#include <math.h>

#include "s_nn_util.h"

/* Channel count C of an NCHW-style input, from the traced dims or the
 * shape of a per-channel parameter input. */
static int64_t channels(oxp_node *n, oxp_value *x, const int *param_inputs,
                        int np) {
  int64_t ch = oxp_nn_dim(x, 1);
  for (int i = 0; ch < 0 && i < np; i++) {
    const oxp_type *t = oxp_sym_in_type(n, param_inputs[i]);
    if (t && t->kind == OXP_T_TENSOR && t->rank == 1 && t->dims &&
        t->dims[0] >= 0)
      ch = t->dims[0];
  }
  return ch;
}

/* Input i as a per-channel parameter, or a constant fill when None. */
static oxp_value *param(oxp_sctx *c, oxp_node *n, int i, int64_t ch,
                        double fill, int dt) {
  if (!oxp_sym_is_none(n, i)) return oxp_sym_in_as(c, n, i, dt);
  if (ch < 0) {
    oxp_sym_unsupported(c, "a missing affine parameter on an input of "
                           "unknown channel count");
    return NULL;
  }
  return oxp_nn_filled(c, ch, fill, dt);
}

/* Reduction axes 0, 2, 3, ... of a rank-r input (all but channels). */
static int stat_axes(int r, int64_t *axes) {
  int m = 0;
  axes[m++] = 0;
  for (int i = 2; i < r; i++) axes[m++] = i;
  return m;
}

/* Per-channel batch mean and (biased) variance, shaped [C]: what torch
 * normalizes with in training mode or without running statistics. */
static bool batch_stats(oxp_sctx *c, oxp_value *x, oxp_value **mean,
                        oxp_value **var) {
  int r = oxp_sym_rank(x);
  if (r < 2) {
    oxp_sym_unsupported(c, "batch statistics of an input of unknown rank");
    return false;
  }
  int64_t axes[OXP_MAX_SPATIAL_DIMS + 2];
  int m = stat_axes(r, axes);
  static const int64_t flat = -1;
  oxp_value *mk = oxp_sym_reduce(c, "ReduceMean", x, axes, m, true);
  oxp_value *d = oxp_sym_op2(c, "Sub", x, mk);
  oxp_value *vk = oxp_sym_reduce(c, "ReduceMean", oxp_sym_op2(c, "Mul", d, d),
                                 axes, m, true);
  *mean = oxp_nn_reshape(c, mk, &flat, 1);
  *var = oxp_nn_reshape(c, vk, &flat, 1);
  return *mean && *var;
}

static oxp_status emit_bn(oxp_sctx *c, oxp_node *n, oxp_value *const in[5],
                          double eps, double momentum, bool train) {
  for (int i = 0; i < 5; i++)
    if (!in[i]) return oxp_sym_status(c);
  int nout = 1;
  if (train) nout = oxp_sym_opset(c) >= 14 ? 3 : 5;
  oxp_node *bn = oxp_sym_op(c, "BatchNormalization", in, 5, nout);
  if (!bn) return oxp_sym_status(c);
  oxp_attr_set_f(bn, "epsilon", eps);
  oxp_attr_set_f(bn, "momentum", 1 - momentum);
  if (train && oxp_sym_opset(c) >= 14) oxp_attr_set_i(bn, "training_mode", 1);
  return oxp_sym_set_out(c, n, 0, bn->outputs[0]);
}

/* What batch_norm and instance_norm share: (input, weight, bias,
 * running_mean, running_var, <flag>, momentum, eps, cudnn_enabled). */
typedef struct {
  oxp_value *x;
  bool flag;
  double momentum, eps;
  int64_t ch;
  int dt;
} norm_args;

static bool read_norm_args(oxp_sctx *c, oxp_node *n, bool flag_default,
                           norm_args *a) {
  static const int pi[4] = {1, 2, 3, 4};
  a->x = oxp_sym_in(c, n, 0);
  if (!a->x || !oxp_nn_bool_arg(c, n, 5, flag_default, &a->flag) ||
      !oxp_nn_float_arg(c, n, 6, 0.1, &a->momentum) ||
      !oxp_nn_float_arg(c, n, 7, 1e-5, &a->eps))
    return false;
  a->ch = channels(n, a->x, pi, 4);
  a->dt = oxp_nn_dtype(c, a->x);
  return true;
}

/* batch_norm(input, weight, bias, running_mean, running_var, training,
 *            momentum, eps, cudnn_enabled) */
oxp_status oxp_s_batch_norm(oxp_sctx *c, oxp_node *n) {
  norm_args a;
  if (!read_norm_args(c, n, false, &a)) return oxp_sym_status(c);
  oxp_value *x = a.x;
  bool training = a.flag;
  double momentum = a.momentum, eps = a.eps;
  int64_t ch = a.ch;
  int dt = a.dt;
  oxp_value *in[5] = {x, param(c, n, 1, ch, 1, dt), param(c, n, 2, ch, 0, dt),
                      NULL, NULL};
  bool no_stats = oxp_sym_is_none(n, 3) || oxp_sym_is_none(n, 4);
  if (no_stats) {
    /* No running statistics: torch always uses the batch's. */
    if (!batch_stats(c, x, &in[3], &in[4])) return oxp_sym_status(c);
    return emit_bn(c, n, in, eps, momentum, false);
  }
  in[3] = oxp_sym_in_as(c, n, 3, dt);
  in[4] = oxp_sym_in_as(c, n, 4, dt);
  return emit_bn(c, n, in, eps, momentum, oxp_nn_training(c, training));
}

/* An input with a static 0 dim: nothing to normalize, and the result has
 * the input's shape and type, so it is the input (the decompositions'
 * reshapes and constants of normalized_shape's size fail on a 0). */
static bool nothing_to_norm(const oxp_value *x) {
  int r = oxp_sym_rank(x);
  for (int i = 0; x && i < r; i++)
    if (oxp_nn_dim(x, i) == 0) return true;
  return false;
}

/* instance_norm(input, weight, bias, running_mean, running_var,
 *               use_input_stats, momentum, eps, cudnn_enabled) */
oxp_status oxp_s_instance_norm(oxp_sctx *c, oxp_node *n) {
  oxp_value *x0 = oxp_sym_in(c, n, 0);
  if (nothing_to_norm(x0)) return oxp_sym_set_out(c, n, 0, x0);
  norm_args a;
  if (!read_norm_args(c, n, true, &a)) return oxp_sym_status(c);
  oxp_value *x = a.x;
  bool use_input = a.flag;
  double momentum = a.momentum, eps = a.eps;
  int64_t ch = a.ch;
  int dt = a.dt;
  oxp_value *w = param(c, n, 1, ch, 1, dt), *b = param(c, n, 2, ch, 0, dt);
  if (!use_input && !oxp_sym_is_none(n, 3) && !oxp_sym_is_none(n, 4)) {
    /* Running statistics shared by every instance: a BatchNormalization. */
    oxp_value *in[5] = {x, w, b, oxp_sym_in_as(c, n, 3, dt),
                        oxp_sym_in_as(c, n, 4, dt)};
    return emit_bn(c, n, in, eps, momentum, false);
  }
  oxp_value *in[3] = {x, w, b};
  if (!w || !b) return oxp_sym_status(c);
  oxp_node *k = oxp_sym_op(c, "InstanceNormalization", in, 3, 1);
  if (!k) return oxp_sym_status(c);
  oxp_attr_set_f(k, "epsilon", eps);
  return oxp_sym_set_out(c, n, 0, k->outputs[0]);
}

/* y * w + b with w, b of shape [C] broadcast over an NC... tensor. */
static oxp_value *channel_affine(oxp_sctx *c, oxp_node *n, oxp_value *y,
                                 int r, int dt) {
  int64_t axes[OXP_MAX_SPATIAL_DIMS];
  for (int i = 0; i < r - 2; i++) axes[i] = 1 + i;
  for (int i = 2; i <= 3 && y; i++) {
    if (oxp_sym_is_none(n, i)) continue;
    oxp_value *p = oxp_sym_in_as(c, n, i, dt);
    if (p && r > 2) p = oxp_sym_unsqueeze(c, p, axes, r - 2);
    y = oxp_sym_op2(c, i == 2 ? "Mul" : "Add", y, p);
  }
  return y;
}

/* group_norm(input, num_groups, weight, bias, eps, cudnn_enabled). Before
 * opset 18 (as torch): InstanceNormalization over [N, G, -1], reshaped
 * back, then the per-channel affine. Opset 18's GroupNormalization takes a
 * per-group scale and bias, so it normalizes with ones and zeros and the
 * per-channel affine follows; from 21 scale and bias are per channel, as
 * in torch. */
oxp_status oxp_s_group_norm(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t groups;
  double eps;
  if (!x || !oxp_sym_need_int(c, n, 1, &groups) ||
      !oxp_nn_float_arg(c, n, 4, 1e-5, &eps))
    return oxp_sym_status(c);
  if (nothing_to_norm(x)) return oxp_sym_set_out(c, n, 0, x);
  int r = oxp_sym_rank(x), dt = oxp_nn_dtype(c, x), opset = oxp_sym_opset(c);
  if (r < 2) return oxp_sym_unsupported(c, "group_norm of unknown rank");
  if (opset >= 21) {
    static const int pi[2] = {2, 3};
    int64_t ch = channels(n, x, pi, 2);
    oxp_value *in[3] = {x, param(c, n, 2, ch, 1, dt), param(c, n, 3, ch, 0, dt)};
    if (!in[1] || !in[2]) return oxp_sym_status(c);
    oxp_node *k = oxp_sym_op(c, "GroupNormalization", in, 3, 1);
    if (!k) return oxp_sym_status(c);
    oxp_attr_set_f(k, "epsilon", eps);
    oxp_attr_set_i(k, "num_groups", groups);
    return oxp_sym_set_out(c, n, 0, k->outputs[0]);
  }
  oxp_value *y;
  if (opset >= 18) {
    oxp_value *in[3] = {x, oxp_nn_filled(c, groups, 1, dt),
                        oxp_nn_filled(c, groups, 0, dt)};
    oxp_node *k = oxp_sym_op(c, "GroupNormalization", in, 3, 1);
    if (!k) return oxp_sym_status(c);
    oxp_attr_set_f(k, "epsilon", eps);
    oxp_attr_set_i(k, "num_groups", groups);
    y = k->outputs[0];
  } else {
    /* The per-group size written out where the dims after the batch are
     * static: a -1 cannot be inferred once the batch is 0 at run time
     * (scripted group_norm of an empty selection: difftest seed 9202
     * program 36358, onnxruntime's Reshape refused it). */
    int64_t per = groups > 0 ? 1 : -1;
    for (int i = 1; i < r && per >= 0; i++) {
      int64_t d = oxp_nn_dim(x, i);
      per = d >= 0 && (d == 0 || per <= INT64_MAX / d) ? per * d : -1;
    }
    int64_t shape[3] = {0, groups, per >= 0 && per % groups == 0 ? per / groups : -1};
    oxp_value *in[3] = {oxp_nn_reshape(c, x, shape, 3),
                        oxp_nn_filled(c, groups, 1, dt),
                        oxp_nn_filled(c, groups, 0, dt)};
    oxp_node *k = in[0] ? oxp_sym_op(c, "InstanceNormalization", in, 3, 1) : NULL;
    if (!k) return oxp_sym_status(c);
    oxp_attr_set_f(k, "epsilon", eps);
    y = oxp_sym_op2(c, "Reshape", k->outputs[0], oxp_sym_op1(c, "Shape", x));
  }
  return oxp_sym_set_out(c, n, 0, channel_affine(c, n, y, r, dt));
}

/* layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable) and
 * native_layer_norm(input, normalized_shape, weight, bias, eps) ->
 * (out, mean, rstd). Before opset 17: (x - mean) / sqrt(var + eps) * w + b
 * over the last len(normalized_shape) axes. */
static oxp_status layer_norm9(oxp_sctx *c, oxp_node *n, bool native) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (nothing_to_norm(x) && !(native && (oxp_nn_out_used(n, 1) || oxp_nn_out_used(n, 2))))
    return oxp_sym_set_out(c, n, 0, x);
  int64_t *shape;
  int k;
  double eps;
  if (!x || !oxp_sym_need_ints(c, n, 1, &shape, &k) ||
      !oxp_nn_float_arg(c, n, 4, 1e-5, &eps))
    return oxp_sym_status(c);
  int dt = oxp_nn_dtype(c, x);
  int64_t axes[OXP_MAX_SPATIAL_DIMS];
  if (k > OXP_MAX_SPATIAL_DIMS) return oxp_sym_unsupported(c, "layer_norm over so many dims");
  /* Positive axes when the rank is known: before opset 11 Reduce* takes
   * no negative ones, and d*d below has no inferred rank yet. */
  int r = oxp_sym_rank(x);
  for (int i = 0; i < k; i++) axes[i] = r >= k ? r - k + i : i - k;
  oxp_value *mean = oxp_sym_reduce(c, "ReduceMean", x, axes, k, true);
  oxp_value *d = oxp_sym_op2(c, "Sub", x, mean);
  oxp_value *var = oxp_sym_reduce(c, "ReduceMean", oxp_sym_op2(c, "Mul", d, d),
                                  axes, k, true);
  oxp_value *den = oxp_sym_op1(c, "Sqrt", oxp_sym_op2(c, "Add", var,
                               oxp_sym_const_scalar(c, eps, dt)));
  oxp_value *y = oxp_sym_op2(c, "Div", d, den);
  if (!oxp_sym_is_none(n, 2)) y = oxp_sym_op2(c, "Mul", y, oxp_sym_in_as(c, n, 2, dt));
  if (!oxp_sym_is_none(n, 3)) y = oxp_sym_op2(c, "Add", y, oxp_sym_in_as(c, n, 3, dt));
  oxp_status st = oxp_sym_set_out(c, n, 0, y);
  if (st || !native) return st;
  if (oxp_nn_out_used(n, 1) && (st = oxp_sym_set_out(c, n, 1, mean))) return st;
  if (oxp_nn_out_used(n, 2))
    st = oxp_sym_set_out(c, n, 2, oxp_sym_op1(c, "Reciprocal", den));
  return st;
}

static oxp_status layer_norm17(oxp_sctx *c, oxp_node *n, bool native) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (nothing_to_norm(x) && !(native && (oxp_nn_out_used(n, 1) || oxp_nn_out_used(n, 2))))
    return oxp_sym_set_out(c, n, 0, x);
  int64_t *shape;
  int k;
  double eps;
  if (!x || !oxp_sym_need_ints(c, n, 1, &shape, &k) ||
      !oxp_nn_float_arg(c, n, 4, 1e-5, &eps))
    return oxp_sym_status(c);
  int dt = oxp_nn_dtype(c, x);
  /* LayerNormalization's epsilon is a float32 attribute (1e-5 becomes
   * 9.99999975e-06): where eps outweighs the variance the result is 1e-8
   * off torch's, which keeps double throughout; so double is written out,
   * with eps a double constant. */
  if (dt == OXP_DT_DOUBLE) return layer_norm9(c, n, native);
  oxp_value *w = oxp_sym_is_none(n, 2) ? NULL : oxp_sym_in_as(c, n, 2, dt);
  if (!w) {
    /* LayerNormalization requires a scale: ones shaped normalized_shape. */
    int64_t count = 1;
    for (int i = 0; i < k; i++)
      if (shape[i] < 0 || __builtin_mul_overflow(count, shape[i], &count))
        return oxp_sym_fail(c, OXP_ERR_GRAPH, "layer_norm: normalized_shape "
                            "is no tensor size");
    w = oxp_nn_filled(c, count, 1, dt);
    if (w && k != 1) w = oxp_nn_reshape(c, w, shape, k);
  }
  oxp_value *b = oxp_sym_is_none(n, 3) ? NULL : oxp_sym_in_as(c, n, 3, dt);
  oxp_value *in[3] = {x, w, b};
  if (!w) return oxp_sym_status(c);
  int nout = 1;
  if (native) nout = oxp_nn_out_used(n, 2) ? 3 : oxp_nn_out_used(n, 1) ? 2 : 1;
  oxp_node *ln = oxp_sym_op(c, "LayerNormalization", in, b ? 3 : 2, nout);
  if (!ln) return oxp_sym_status(c);
  oxp_attr_set_i(ln, "axis", -k);
  oxp_attr_set_f(ln, "epsilon", eps);
  oxp_status st = OXP_OK;
  for (int i = 0; i < nout && !st; i++)
    st = oxp_sym_set_out(c, n, i, ln->outputs[i]);
  return st;
}

oxp_status oxp_s_layer_norm(oxp_sctx *c, oxp_node *n) {
  return layer_norm9(c, n, false);
}
oxp_status oxp_s_layer_norm17(oxp_sctx *c, oxp_node *n) {
  return layer_norm17(c, n, false);
}
oxp_status oxp_s_native_layer_norm(oxp_sctx *c, oxp_node *n) {
  return layer_norm9(c, n, true);
}
oxp_status oxp_s_native_layer_norm17(oxp_sctx *c, oxp_node *n) {
  return layer_norm17(c, n, true);
}

/* _weight_norm(v, g, dim) = g * v / ||v|| over every axis but dim (all
 * axes when dim is -1). */
oxp_status oxp_s_weight_norm(oxp_sctx *c, oxp_node *n) {
  oxp_value *v = oxp_sym_in(c, n, 0), *g = oxp_sym_in(c, n, 1);
  int64_t dim;
  if (!v || !g || !oxp_nn_int_arg(c, n, 2, 0, &dim)) return oxp_sym_status(c);
  int r = oxp_sym_rank(v);
  if (r < 0 || r > OXP_MAX_SPATIAL_DIMS)
    return oxp_sym_unsupported(c, "_weight_norm of unknown rank");
  if (dim < -1) dim += r;
  int64_t axes[OXP_MAX_SPATIAL_DIMS];
  int m = 0;
  for (int i = 0; i < r; i++)
    if (i != dim) axes[m++] = i;
  /* No axes left (a 1-D v normed along dim 0): each element's own norm. */
  oxp_value *norm = m ? oxp_sym_reduce(c, "ReduceL2", v, axes, m, true)
                      : oxp_sym_op1(c, "Abs", v);
  return oxp_sym_set_out(c, n, 0,
                         oxp_sym_op2(c, "Mul", oxp_sym_op2(c, "Div", v, norm), g));
}
