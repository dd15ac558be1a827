/* s_conv.c: convolutions. Every form (aten::_convolution, convolution,
 * conv1d/2d/3d, _convolution_mode with 'same'/'valid', conv_transpose*,
 * conv_tbc) becomes one ONNX Conv or ConvTranspose node. */
#include <string.h>

#include "s_nn_util.h"

/* Where a conv form keeps its arguments (-1: absent). */
typedef struct {
  int stride, pad, dil, groups, outpad;
  bool transposed;
} conv_args;

/* Explicit pads for padding='same': total d*(k-1), the odd one at the end
 * (torch's _convolution_mode does the same). */
static bool same_pads(oxp_sctx *c, const oxp_type *wt, int k,
                      const int64_t *dil, int64_t *pad) {
  for (int j = 0; j < k; j++) {
    int64_t ks = wt && wt->rank == k + 2 && wt->dims ? wt->dims[2 + j] : -1;
    if (ks < 0) {
      oxp_sym_unsupported(c, "padding='same' with a kernel of unknown size");
      return false;
    }
    int64_t total;
    if (__builtin_mul_overflow(dil[j], ks - 1, &total)) {
      oxp_sym_unsupported(c, "padding='same' with a dilated kernel past int64");
      return false;
    }
    pad[j] = total / 2;
    pad[k + j] = total - total / 2;
  }
  return true;
}

static oxp_status conv(oxp_sctx *c, oxp_node *n, conv_args a) {
  oxp_value *x = oxp_sym_in(c, n, 0), *w = oxp_sym_in(c, n, 1);
  if (!x || !w) return oxp_sym_status(c);
  const oxp_type *wt = oxp_sym_in_type(n, 1);
  int wr = wt && wt->kind == OXP_T_TENSOR ? wt->rank : oxp_sym_rank(w);
  if (wr < 3 || wr > 5)
    return oxp_sym_unsupported(c, "convolution with a weight of unknown rank");
  int k = wr - 2;
  int64_t stride[OXP_MAX_SPATIAL_DIMS], pad[2 * OXP_MAX_SPATIAL_DIMS], dil[OXP_MAX_SPATIAL_DIMS];
  int64_t outpad[OXP_MAX_SPATIAL_DIMS], groups = 1;
  if (!oxp_nn_spatial(c, n, a.stride, k, 1, stride) ||
      !oxp_nn_spatial(c, n, a.dil, k, 1, dil))
    return oxp_sym_status(c);
  const char *mode = NULL;
  if (oxp_sym_str(n, a.pad, &mode)) {
    if (strcmp(mode, "same") == 0) {
      if (!same_pads(c, wt, k, dil, pad)) return oxp_sym_status(c);
    } else if (strcmp(mode, "valid") == 0) {
      for (int j = 0; j < 2 * k; j++) pad[j] = 0;
    } else {
      return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: unknown padding mode '%s'",
                          n->kind, mode);
    }
  } else {
    if (!oxp_nn_spatial(c, n, a.pad, k, 0, pad)) return oxp_sym_status(c);
    for (int j = 0; j < k; j++) pad[k + j] = pad[j];
  }
  if (a.groups >= 0 && !oxp_nn_int_arg(c, n, a.groups, 1, &groups))
    return oxp_sym_status(c);
  if (a.transposed && !oxp_nn_spatial(c, n, a.outpad, k, 0, outpad))
    return oxp_sym_status(c);
  /* torch accepts unbatched input (rank k+1); ONNX wants a batch dim. */
  int xr = oxp_sym_rank(x);
  bool unbatched = xr == k + 1;
  static const int64_t zero = 0;
  if (unbatched) x = oxp_sym_unsqueeze(c, x, &zero, 1);
  bool has_bias = !oxp_sym_is_none(n, 2);
  oxp_value *in[3] = {x, w, has_bias ? oxp_sym_in(c, n, 2) : NULL};
  if (!x || (has_bias && !in[2])) return oxp_sym_status(c);
  oxp_node *cv = oxp_sym_op(c, a.transposed ? "ConvTranspose" : "Conv", in,
                            has_bias ? 3 : 2, 1);
  if (!cv) return oxp_sym_status(c);
  if (wt && wt->dims && wt->rank == wr) {
    bool known = true;
    for (int j = 0; j < k; j++) known &= wt->dims[2 + j] >= 0;
    if (known) oxp_attr_set_ints(cv, "kernel_shape", wt->dims + 2, k);
  }
  oxp_attr_set_ints(cv, "strides", stride, k);
  oxp_attr_set_ints(cv, "pads", pad, 2 * k);
  oxp_attr_set_ints(cv, "dilations", dil, k);
  oxp_attr_set_i(cv, "group", groups);
  if (a.transposed && !oxp_nn_all_eq(outpad, k, 0))
    oxp_attr_set_ints(cv, "output_padding", outpad, k);
  oxp_value *y = cv->outputs[0];
  if (unbatched) y = oxp_sym_squeeze(c, y, &zero, 1);
  return oxp_sym_set_out(c, n, 0, y);
}

/* _convolution(input, weight, bias, stride, padding, dilation, transposed,
 *              output_padding, groups, benchmark, ...) and
 * convolution(... the first nine of those). */
oxp_status oxp_s_convolution(oxp_sctx *c, oxp_node *n) {
  bool transposed = false;
  if (!oxp_sym_bool(n, 6, &transposed))
    return oxp_sym_unsupported(c, "a runtime transposed flag");
  return conv(c, n, (conv_args){3, 4, 5, 8, 7, transposed});
}

/* conv{1,2,3}d / _convolution_mode(input, weight, bias, stride, padding,
 * dilation, groups); padding is ints or 'same' / 'valid'. */
oxp_status oxp_s_conv(oxp_sctx *c, oxp_node *n) {
  return conv(c, n, (conv_args){3, 4, 5, 6, -1, false});
}

/* conv_transpose{1,2,3}d(input, weight, bias, stride, padding,
 *                        output_padding, groups, dilation) */
oxp_status oxp_s_conv_transpose(oxp_sctx *c, oxp_node *n) {
  return conv(c, n, (conv_args){3, 4, 7, 6, 5, true});
}

/* conv_tbc(input [T, B, Cin], weight [K, Cin, Cout], bias [Cout], pad):
 * a Conv on [B, Cin, T] with the weight as [Cout, Cin, K]. */
oxp_status oxp_s_conv_tbc(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0), *w = oxp_sym_in(c, n, 1);
  oxp_value *b = oxp_sym_in(c, n, 2);
  int64_t pad;
  if (!x || !w || !b || !oxp_sym_need_int(c, n, 3, &pad))
    return oxp_sym_status(c);
  static const int64_t px[3] = {1, 2, 0}, pw[3] = {2, 1, 0}, py[3] = {2, 0, 1};
  oxp_value *in[3] = {oxp_nn_transpose(c, x, px, 3),
                      oxp_nn_transpose(c, w, pw, 3), b};
  if (!in[0] || !in[1]) return oxp_sym_status(c);
  oxp_node *cv = oxp_sym_op(c, "Conv", in, 3, 1);
  if (!cv) return oxp_sym_status(c);
  int64_t pads[2] = {pad, pad};
  oxp_attr_set_ints(cv, "pads", pads, 2);
  return oxp_sym_set_out(c, n, 0, oxp_nn_transpose(c, cv->outputs[0], py, 3));
}
