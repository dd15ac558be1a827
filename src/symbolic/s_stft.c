/* s_stft.c: aten::stft(x, n_fft, hop_length, win_length, window,
 * normalized, onesided, return_complex[, align_to_window]), which PyTorch
 * main's exporter maps at opset 17 (ONNX STFT) and torch 1.13's does not.
 * torch.stft pads for center=True before calling the op, so the padding is
 * an ordinary aten::pad in the graph. torch 2.x prints a 9th argument,
 * align_to_window; None or False reads as the 8-argument form. The output
 * is torch's real view [batch, bins, frames, 2]: return_complex=True has no
 * ONNX type and is refused. A window shorter than n_fft is centred in
 * zeros, as torch does. */
#include <math.h>

#include "s_shape_util.h"

static bool opt_int(oxp_node *n, int i, int64_t dflt, int64_t *v) {
  *v = dflt;
  return i >= n->ninputs || oxp_sym_is_none(n, i) || oxp_sym_int(n, i, v);
}

static bool flag_set(oxp_node *n, int i, bool *v) {
  *v = false;
  return i >= n->ninputs || oxp_sym_is_none(n, i) || oxp_sym_bool(n, i, v);
}

oxp_status oxp_s_stft(oxp_sctx *c, oxp_node *n) {
  const char *s;
  if (n->ninputs > 9 || (n->ninputs > 6 && oxp_sym_str(n, 6, &s)))
    return oxp_sym_unsupported(c, "the stft.center overload (torch.stft pads before calling aten::stft)");
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int dt = oxp_sym_need_dtype(c, x), r = oxp_sym_rank(x);
  if (!dt) return oxp_sym_status(c);
  if (!oxp_dtype_is_float(dt)) return oxp_sym_unsupported(c, "stft of a non-float (or complex) signal");
  if (r != 1 && r != 2) return oxp_sym_unsupported(c, "stft of a signal that is not 1-D or 2-D");
  int64_t nfft, hop, win;
  bool normalized, onesided = true, complex_out, align;
  if (!oxp_sym_int(n, 1, &nfft) || !opt_int(n, 2, 0, &hop) || !opt_int(n, 3, 0, &win))
    return oxp_sym_unsupported(c, "stft with a runtime n_fft, hop_length or win_length");
  if (nfft <= 0) return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: n_fft must be positive", n->kind);
  if (!hop) hop = nfft / 4;
  if (!win) win = nfft;
  if (!flag_set(n, 5, &normalized) || !flag_set(n, 7, &complex_out) || !flag_set(n, 8, &align) ||
      (n->ninputs > 6 && !oxp_sym_is_none(n, 6) && !oxp_sym_bool(n, 6, &onesided)))
    return oxp_sym_unsupported(c, "stft with runtime flags");
  if (complex_out) return oxp_sym_unsupported(c, "stft with return_complex=True (ONNX has no complex type)");
  if (align) return oxp_sym_unsupported(c, "stft with align_to_window=True");
  if (win > nfft) return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: win_length %lld > n_fft %lld", n->kind,
                                      (long long)win, (long long)nfft);
  oxp_value *w;
  int64_t left = (nfft - win) / 2;
  if (oxp_sym_is_none(n, 4)) {
    oxp_tensor *t = oxp_tensor_alloc(oxp_sym_arena(c), OXP_DT_DOUBLE, 1, &nfft);
    if (!t) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < win; i++) ((double *)t->data)[left + i] = 1;
    w = oxp_sym_cast(c, oxp_sym_const(c, t), dt);
  } else {
    w = oxp_sym_in_as(c, n, 4, dt);
    int64_t wl = oxp_sx_dim(w, 0);
    if (!w) return oxp_sym_status(c);
    if (oxp_sym_rank(w) != 1 || wl < 0) return oxp_sym_unsupported(c, "stft with a window of unknown length");
    if (wl != win)
      return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: window of length %lld, win_length %lld", n->kind,
                          (long long)wl, (long long)win);
    if (win < nfft) {
      int64_t pads[2] = {left, nfft - win - left};
      oxp_node *p = oxp_sym_op(c, "Pad", (oxp_value *[]){w, oxp_sym_const_i64s(c, pads, 2)}, 2, 1);
      if (!p) return oxp_sym_status(c);
      w = p->outputs[0];
    }
  }
  static const int64_t batch = 0, chan = 2;
  oxp_value *sig = r == 1 ? oxp_sym_unsqueeze(c, x, &batch, 1) : x;
  sig = oxp_sym_unsqueeze(c, sig, &chan, 1);
  oxp_value *in[4] = {sig, oxp_sym_const_i64(c, hop), w, oxp_sym_const_i64(c, nfft)};
  oxp_node *st = in[0] && in[2] ? oxp_sym_op(c, "STFT", in, 4, 1) : NULL;
  if (!st) return oxp_sym_status(c);
  oxp_attr_set_i(st, "onesided", onesided);
  static const int64_t perm[4] = {0, 2, 1, 3};
  oxp_value *y = oxp_sx_transpose(c, st->outputs[0], perm, 4);
  if (r == 1) y = oxp_sym_squeeze(c, y, &batch, 1);
  if (normalized) y = oxp_sym_op2(c, "Mul", y, oxp_sym_const_scalar(c, 1 / sqrt((double)nfft), dt));
  return oxp_sym_set_out(c, n, 0, y);
}
