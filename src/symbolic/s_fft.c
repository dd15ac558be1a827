/* s_fft.c: fft_fft, fft_ifft, fft_rfft, fft_irfft and fft_fftn through ONNX DFT (opset 17;
 * its axis is an input from 20), which no torch exporter maps. ONNX has
 * no complex tensors: a complex value is carried as float [..., 2] (real,
 * imaginary), DFT's own form, and may only be read by view_as_real
 * (which then is the identity) or by another of these ops; a complex
 * value that leaves the graph or meets any other op is a named error. */
#include <math.h>
#include <string.h>

#include "s_nn_util.h"

static bool is_complex(const oxp_type *t) {
  return t && t->kind == OXP_T_TENSOR &&
         (t->dtype == OXP_DT_COMPLEX64 || t->dtype == OXP_DT_COMPLEX128);
}

/* Every reader of output 0 is view_as_real or an fft op. */
static bool complex_readers_ok(oxp_sctx *c, oxp_node *n) {
  const oxp_value *o = n->outputs[0];
  bool ok = !oxp_value_is_block_output(o);
  for (int u = 0; ok && u < o->nuses; u++) {
    const char *k = o->uses[u].node->kind;
    ok = strcmp(k, "aten::view_as_real") == 0 || strncmp(k, "aten::fft_", 10) == 0;
  }
  if (!ok)
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: its complex result has no ONNX type; "
                 "only torch.view_as_real or another fft op may read it", n->kind);
  return ok;
}

/* The real dtype that carries a complex result as [..., 2]. */
static int carrier_dtype(oxp_node *n, bool cx) {
  int t = cx ? oxp_sym_in_type(n, 0)->dtype : oxp_sym_out_dtype(n, 0, 0);
  return t == OXP_DT_COMPLEX128 ? OXP_DT_DOUBLE : OXP_DT_FLOAT;
}

/* norm (argument 3) must be a constant string or None. */
static bool read_norm(oxp_sctx *c, oxp_node *n, const char **norm) {
  *norm = NULL;
  if (n->ninputs > 3 && !oxp_sym_is_none(n, 3) && !oxp_sym_str(n, 3, norm)) {
    oxp_sym_unsupported(c, "a runtime norm");
    return false;
  }
  return true;
}

/* The 1-D transforms' (n, dim, norm): n is -1 when None, *d the dim
 * resolved against the rank r of the signal (without the complex pair). */
static bool fft_args(oxp_sctx *c, oxp_node *n, int r, int64_t *len, int64_t *d,
                     const char **norm) {
  int64_t dim = -1;
  *len = -1;
  if ((n->ninputs > 1 && !oxp_sym_is_none(n, 1) && !oxp_sym_need_int(c, n, 1, len)) ||
      (n->ninputs > 2 && !oxp_sym_need_int(c, n, 2, &dim)) || !read_norm(c, n, norm))
    return false;
  if (r < 1 || !oxp_sym_axis(dim, r, d)) {
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: needs the input's rank and a dim inside it",
                 n->kind);
    return false;
  }
  return true;
}

/* ONNX's DFT reads its input's dim 0 as a batch (onnxruntime transforms
 * [4, 1] along axis 0 into [3, 3, 2]): a 1-d signal gets a leading
 * batch dim of 1 (*lead = 1), taken off again by drop_batch. */
static oxp_value *add_batch(oxp_sctx *c, oxp_value *x, int r, int *lead) {
  int64_t z = 0;
  *lead = r == 1;
  return *lead ? oxp_sym_unsqueeze(c, x, &z, 1) : x;
}

static oxp_value *drop_batch(oxp_sctx *c, oxp_value *y, int lead) {
  int64_t z = 0;
  return lead && y ? oxp_sym_squeeze(c, y, &z, 1) : y;
}

/* ONNX's forward DFT is unscaled and its inverse divides by the length
 * (torch's "backward"); "ortho" and "forward" rescale *y by a factor of
 * the transformed element count. */
static oxp_status apply_norm(oxp_sctx *c, oxp_node *n, const char *norm, double count,
                             bool inverse, int dt, oxp_value **y) {
  double f = 1;
  if (norm && strcmp(norm, "ortho") == 0) f = inverse ? sqrt(count) : 1 / sqrt(count);
  else if (norm && strcmp(norm, "forward") == 0) f = inverse ? count : 1 / count;
  else if (norm && strcmp(norm, "backward") != 0)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: unknown norm \"%s\"", n->kind, norm);
  if (f != 1) *y = oxp_sym_op2(c, "Mul", *y, oxp_sym_const_scalar(c, f, dt));
  return OXP_OK;
}

/* fft_fft / fft_ifft / fft_rfft (self, n, dim, norm) */
static oxp_status fft(oxp_sctx *c, oxp_node *n, bool inverse, bool onesided) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x || !complex_readers_ok(c, n)) return oxp_sym_status(c);
  bool cx = is_complex(oxp_sym_in_type(n, 0));
  int r = oxp_sym_rank(x) - (cx ? 1 : 0);
  int64_t len, d;
  const char *norm;
  if (!fft_args(c, n, r, &len, &d, &norm)) return oxp_sym_status(c);
  if (onesided && cx)
    return oxp_sym_unsupported(c, "fft_rfft of a complex tensor (torch refuses it too)");
  int dt = carrier_dtype(n, cx);
  if (!cx) {
    int64_t last = r;
    x = oxp_sym_unsqueeze(c, oxp_sym_cast(c, x, dt), &last, 1);
  }
  int64_t in_len = oxp_nn_dim(x, (int)d);
  if (len < 0) len = in_len;
  if (len < 1)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: needs the static length of the "
                        "transformed dim (or n)", n->kind);
  int lead;
  oxp_value *ins[3] = {add_batch(c, x, r, &lead), oxp_sym_const_i64(c, len), NULL};
  bool axis_input = oxp_sym_opset(c) >= 20;
  if (axis_input) ins[2] = oxp_sym_const_i64(c, d + lead);
  oxp_node *k = oxp_sym_op(c, "DFT", ins, axis_input ? 3 : 2, 1);
  if (!k) return oxp_sym_status(c);
  if (!axis_input) oxp_attr_set_i(k, "axis", d + lead);
  if (inverse) oxp_attr_set_i(k, "inverse", 1);
  if (onesided) oxp_attr_set_i(k, "onesided", 1);
  oxp_value *y = k->outputs[0];
  oxp_status st = apply_norm(c, n, norm, (double)len, inverse, dt, &y);
  if (st) return st;
  if (!(y = drop_batch(c, y, lead))) return oxp_sym_status(c);
  int64_t dims[OXP_MAX_SPATIAL_DIMS + 2];
  bool known = r + 1 <= OXP_MAX_SPATIAL_DIMS + 2;
  for (int j = 0; known && j < r; j++) dims[j] = oxp_nn_dim(x, j);
  if (known) {
    dims[d] = onesided ? len / 2 + 1 : len;
    dims[r] = 2;
    for (int j = 0; j < r; j++) known &= dims[j] >= 0;
  }
  oxp_sym_set_type(c, y, dt, r + 1, known ? dims : NULL);
  return oxp_sym_set_out(c, n, 0, y);
}

oxp_status oxp_s_fft_fft(oxp_sctx *c, oxp_node *n) { return fft(c, n, false, false); }
oxp_status oxp_s_fft_ifft(oxp_sctx *c, oxp_node *n) { return fft(c, n, true, false); }
oxp_status oxp_s_fft_rfft(oxp_sctx *c, oxp_node *n) { return fft(c, n, false, true); }

/* fft_fftn(self, s, dim, norm): one DFT per dim (all dims, or the last
 * len(s) when only s is given), the norm factor applied once. */
oxp_status oxp_s_fft_fftn(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x || !complex_readers_ok(c, n)) return oxp_sym_status(c);
  bool cx = is_complex(oxp_sym_in_type(n, 0));
  int r = oxp_sym_rank(x) - (cx ? 1 : 0);
  int64_t *sz = NULL, *dims = NULL;
  int ns = 0, nd = 0;
  const char *norm;
  if ((n->ninputs > 1 && !oxp_sym_is_none(n, 1) && !oxp_sym_need_ints(c, n, 1, &sz, &ns)) ||
      (n->ninputs > 2 && !oxp_sym_is_none(n, 2) && !oxp_sym_need_ints(c, n, 2, &dims, &nd)) ||
      !read_norm(c, n, &norm))
    return oxp_sym_status(c);
  if (r < 1 || r > OXP_MAX_SPATIAL_DIMS)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: needs the input's rank", n->kind);
  int64_t ax[OXP_MAX_SPATIAL_DIMS];
  int k = nd ? nd : sz ? ns : r;
  if (k > r || (sz && ns != k))
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: s and dim disagree", n->kind);
  for (int j = 0; j < k; j++) {
    int64_t want = nd ? dims[j] : r - k + j;
    if (!oxp_sym_axis(want, r, &ax[j]))
      return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: dim %lld outside the input", n->kind,
                          (long long)want);
  }
  int dt = carrier_dtype(n, cx);
  if (!cx) {
    int64_t last = r;
    x = oxp_sym_unsqueeze(c, oxp_sym_cast(c, x, dt), &last, 1);
  }
  double total = 1;
  bool axis_input = oxp_sym_opset(c) >= 20;
  int lead;
  x = add_batch(c, x, r, &lead);
  for (int j = 0; j < k; j++) {
    int64_t len = sz && sz[j] >= 0 ? sz[j] : oxp_nn_dim(x, (int)ax[j] + lead);
    if (len < 1)
      return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: needs the static length of "
                          "each transformed dim", n->kind);
    total *= (double)len;
    oxp_value *ins[3] = {x, oxp_sym_const_i64(c, len),
                         axis_input ? oxp_sym_const_i64(c, ax[j] + lead) : NULL};
    oxp_node *d = oxp_sym_op(c, "DFT", ins, axis_input ? 3 : 2, 1);
    if (!d) return oxp_sym_status(c);
    if (!axis_input) oxp_attr_set_i(d, "axis", ax[j] + lead);
    x = d->outputs[0];
    int64_t dd[OXP_MAX_SPATIAL_DIMS + 2];
    bool known = true;
    for (int q = 0; q <= r + lead; q++) known &= (dd[q] = oxp_nn_dim(ins[0], q)) >= 0;
    dd[ax[j] + lead] = len;
    dd[r + lead] = 2;
    oxp_sym_set_type(c, x, dt, r + 1 + lead, known ? dd : NULL);
  }
  oxp_value *y = x;
  oxp_status st = apply_norm(c, n, norm, total, false, dt, &x);
  if (st) return st;
  if (lead) {
    int64_t dd[2] = {oxp_nn_dim(y, 1), 2};
    if (!(x = drop_batch(c, x, lead))) return oxp_sym_status(c);
    oxp_sym_set_type(c, x, dt, 2, dd[0] >= 0 ? dd : NULL);
  } else if (x != y) oxp_sym_set_type(c, x, dt, r + 1, NULL);
  return oxp_sym_set_out(c, n, 0, x);
}

/* fft_irfft(self, n, dim, norm): the Hermitian spectrum rebuilt in full
 * (X[n - k] = conj(X[k])), an inverse DFT, its real part; torch's C2R
 * transform ignores the imaginary parts that a real output cannot hold
 * in the same way. */
oxp_status oxp_s_fft_irfft(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  if (!is_complex(oxp_sym_in_type(n, 0)))
    return oxp_sym_unsupported(c, "fft_irfft of a real tensor");
  int r = oxp_sym_rank(x) - 1;
  int64_t len, d;
  const char *norm;
  if (!fft_args(c, n, r, &len, &d, &norm)) return oxp_sym_status(c);
  int64_t have = oxp_nn_dim(x, (int)d);
  if (len < 0) len = 2 * (have - 1);
  int64_t m = len / 2 + 1;
  if (have < 1 || len < 1 || have < m)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: needs a static input length of "
                        "at least n/2 + 1", n->kind);
  int dt = carrier_dtype(n, true);
  int64_t s0 = 0;
  oxp_value *parts[2] = {oxp_sym_slice(c, x, &d, &s0, &m, NULL, 1), NULL};
  int np = 1;
  if (len - m > 0) {
    int64_t st = len - m, en = 0, step = -1;
    oxp_value *t = oxp_sym_slice(c, x, &d, &st, &en, &step, 1);
    float conj[2] = {1, -1};
    oxp_value *cj = oxp_sym_const_f32s(c, conj, 2);
    if (dt != OXP_DT_FLOAT) cj = oxp_sym_cast(c, cj, dt);
    parts[np++] = oxp_sym_op2(c, "Mul", t, cj);
  }
  oxp_value *full = parts[0];
  if (np > 1) {
    oxp_node *cat = oxp_sym_op(c, "Concat", parts, 2, 1);
    if (!cat) return oxp_sym_status(c);
    oxp_attr_set_i(cat, "axis", d);
    full = cat->outputs[0];
  }
  bool axis_input = oxp_sym_opset(c) >= 20;
  int lead;
  full = add_batch(c, full, r, &lead);
  oxp_value *ins[3] = {full, NULL, axis_input ? oxp_sym_const_i64(c, d + lead) : NULL};
  oxp_node *k = oxp_sym_op(c, "DFT", ins, axis_input ? 3 : 1, 1);
  if (!k) return oxp_sym_status(c);
  if (!axis_input) oxp_attr_set_i(k, "axis", d + lead);
  oxp_attr_set_i(k, "inverse", 1);
  int64_t last = r + lead, z = 0, one = 1, drop[2] = {0, r + lead};
  oxp_value *y = oxp_sym_squeeze(c, oxp_sym_slice(c, k->outputs[0], &last, &z, &one, NULL, 1),
                                 lead ? drop : &last, lead ? 2 : 1);
  oxp_status st = apply_norm(c, n, norm, (double)len, true, dt, &y);
  if (st) return st;
  return oxp_sym_set_out(c, n, 0, y);
}

/* view_as_real of a complex value carried as [..., 2]: the value itself. */
oxp_status oxp_s_view_as_real(oxp_sctx *c, oxp_node *n) {
  if (!is_complex(oxp_sym_in_type(n, 0)))
    return oxp_sym_unsupported(c, "view_as_real of a value not known to be complex");
  return oxp_sym_set_out(c, n, 0, oxp_sym_in(c, n, 0));
}
