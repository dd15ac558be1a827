/* s_rnn_util.c: torch's flat RNN weight lists to ONNX LSTM/GRU/RNN
 * layers. torch keeps gates as row blocks in its own order (LSTM i,f,g,o;
 * GRU r,z,n); ONNX wants LSTM i,o,f,c and GRU z,r,h, with W, R and the
 * two biases stacked per direction. When every weight is a fixed
 * initializer the reordered tensors are built here, once, so the model
 * carries them as plain initializers (no Slice/Concat left for constant
 * folding, no second copy of the weights). Otherwise (weights that stay
 * runtime inputs, or --no-constant-folding) the same reordering is
 * emitted as Slice/Concat/Unsqueeze, as torch's exporter does. */
#include <string.h>

#include "s_rnn.h"

/* ONNX gate block g comes from torch block perm[g]. */
static const int lstm_perm[] = {0, 3, 1, 2};
static const int gru_perm[] = {1, 0, 2};
static const int rnn_perm[] = {0};

typedef struct {
  const int *perm;
  int gates;
  const char *op;
} rnn_form;

static rnn_form form_of(oxp_rnn_kind k) {
  switch (k) {
  case OXP_RNN_LSTM: return (rnn_form){lstm_perm, 4, "LSTM"};
  case OXP_RNN_GRU: return (rnn_form){gru_perm, 3, "GRU"};
  default: return (rnn_form){rnn_perm, 1, "RNN"};
  }
}

oxp_value *oxp_rnn_transpose(oxp_sctx *c, oxp_value *v, const int64_t *perm,
                             int rank) {
  if (!v) return NULL;
  oxp_node *t = oxp_sym_op(c, "Transpose", &v, 1, 1);
  if (!t) return NULL;
  oxp_attr_set_ints(t, "perm", perm, rank);
  const oxp_type *ty = v->type;
  if (ty && ty->kind == OXP_T_TENSOR && ty->rank == rank && ty->dims) {
    int64_t d[8];
    for (int i = 0; i < rank; i++) d[i] = ty->dims[perm[i]];
    oxp_sym_set_type(c, t->outputs[0], ty->dtype, rank, d);
  }
  return t->outputs[0];
}

static oxp_value *concat(oxp_sctx *c, oxp_value **v, int n, int64_t axis) {
  if (n == 1) return v[0];
  for (int i = 0; i < n; i++)
    if (!v[i]) return NULL;
  oxp_node *k = oxp_sym_op(c, "Concat", v, n, 1);
  if (!k) return NULL;
  oxp_attr_set_i(k, "axis", axis);
  return k->outputs[0];
}

static bool fixed_weight(const oxp_value *v) {
  return v && v->init && v->init->data && !v->producer &&
         oxp_dtype_size(v->init->dtype) > 0 &&
         v->init->nbytes ==
             (size_t)oxp_tensor_numel(v->init) * oxp_dtype_size(v->init->dtype);
}

/* May the weights be baked into new initializers? Only when they are
 * fixed for good: the same test the ONNX passes use for constness. */
static bool can_bake(oxp_sctx *c, const oxp_rnn_call *r) {
  const oxp_options *o = oxp_sym_options(c);
  if (!o->constant_folding || !o->export_params || o->keep_initializers_as_inputs)
    return false;
  for (int i = 0; i < r->nw; i++) {
    if (!fixed_weight(r->w[i])) return false;
    if (r->w[i]->init->dtype != r->w[0]->init->dtype) return false;
  }
  return true;
}

/* ---- baked path -------------------------------------------------------- */

/* Copies the gate blocks of src ([gates * hidden, ...]) into dst in ONNX
 * order; returns the bytes written. */
static size_t put_reordered(unsigned char *dst, const oxp_tensor *src,
                            rnn_form f) {
  size_t block = src->nbytes / (size_t)f.gates;
  const unsigned char *s = src->data;
  for (int g = 0; g < f.gates; g++)
    memcpy(dst + (size_t)g * block, s + (size_t)f.perm[g] * block, block);
  return src->nbytes;
}

/* Stacks reordered srcs (n of them, same size) into one tensor of dims. */
static oxp_value *bake(oxp_sctx *c, oxp_value **srcs, int n, rnn_form f,
                       int rank, const int64_t *dims) {
  oxp_tensor *t = oxp_tensor_alloc(oxp_sym_arena(c), srcs[0]->init->dtype,
                                   rank, dims);
  if (!t) {
    oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    return NULL;
  }
  size_t off = 0;
  for (int i = 0; i < n; i++) {
    if (off + srcs[i]->init->nbytes > t->nbytes) {
      oxp_sym_fail(c, OXP_ERR_GRAPH, "recurrent weight %%%s has an unexpected size",
                   srcs[i]->name ? srcs[i]->name : "?");
      return NULL;
    }
    off += put_reordered((unsigned char *)t->data + off, srcs[i]->init, f);
  }
  if (off != t->nbytes) {
    oxp_sym_fail(c, OXP_ERR_GRAPH, "recurrent weights do not fill [%lld, %lld, ...]",
                 (long long)dims[0], (long long)dims[1]);
    return NULL;
  }
  return oxp_sym_const(c, t);
}

/* ---- emitted path ------------------------------------------------------ */

/* Reorders the gate blocks of w along axis 0 with Slice + Concat, merging
 * blocks that stay adjacent (LSTM needs three slices, like torch). */
static oxp_value *reorder(oxp_sctx *c, oxp_value *w, int64_t hidden,
                          rnn_form f) {
  if (f.gates == 1) return w;
  oxp_value *parts[4];
  int np = 0;
  static const int64_t axis0 = 0;
  for (int g = 0; g < f.gates;) {
    int e = g + 1;
    while (e < f.gates && f.perm[e] == f.perm[e - 1] + 1) e++;
    int64_t st = f.perm[g] * hidden, en = (f.perm[e - 1] + 1) * hidden;
    parts[np++] = oxp_sym_slice(c, w, &axis0, &st, &en, NULL, 1);
    g = e;
  }
  return concat(c, parts, np, 0);
}

static oxp_value *unsq0(oxp_sctx *c, oxp_value *v) {
  static const int64_t axis0 = 0;
  return v ? oxp_sym_unsqueeze(c, v, &axis0, 1) : NULL;
}

/* ---- layers ------------------------------------------------------------ */

typedef struct {
  oxp_value *W, *R, *B;
} layer_weights;

static oxp_status layer_params(oxp_sctx *c, const oxp_rnn_call *r, int64_t l,
                               int64_t hidden, bool baked, layer_weights *lw) {
  rnn_form f = form_of(r->kind);
  int D = r->bidir ? 2 : 1, wpl = r->has_bias ? 4 : 2;
  oxp_value *ih[2], *hh[2], *bias[4];
  for (int d = 0; d < D; d++) {
    oxp_value **w = r->w + (l * D + d) * wpl;
    ih[d] = w[0];
    hh[d] = w[1];
    if (r->has_bias) bias[2 * d] = w[2], bias[2 * d + 1] = w[3];
  }
  int64_t gh = f.gates * hidden;
  if (baked) {
    int64_t in_size = oxp_tensor_numel(ih[0]->init) / (gh ? gh : 1);
    int64_t dw[3] = {D, gh, in_size}, dr[3] = {D, gh, hidden}, db[2] = {D, 2 * gh};
    lw->W = bake(c, ih, D, f, 3, dw);
    lw->R = lw->W ? bake(c, hh, D, f, 3, dr) : NULL;
    lw->B = r->has_bias && lw->R ? bake(c, bias, 2 * D, f, 2, db) : NULL;
  } else {
    oxp_value *ws[2], *rs[2], *bs[2];
    for (int d = 0; d < D; d++) {
      ws[d] = unsq0(c, reorder(c, ih[d], hidden, f));
      rs[d] = unsq0(c, reorder(c, hh[d], hidden, f));
      if (r->has_bias) {
        oxp_value *pair[2] = {reorder(c, bias[2 * d], hidden, f),
                              reorder(c, bias[2 * d + 1], hidden, f)};
        bs[d] = unsq0(c, concat(c, pair, 2, 0));
      }
    }
    lw->W = concat(c, ws, D, 0);
    lw->R = concat(c, rs, D, 0);
    lw->B = r->has_bias ? concat(c, bs, D, 0) : NULL;
  }
  if (!lw->W || !lw->R || (r->has_bias && !lw->B)) return oxp_sym_status(c);
  return OXP_OK;
}

static int64_t dim_of(const oxp_value *v, int i) {
  const oxp_type *t = v ? v->type : NULL;
  if (!t || t->kind != OXP_T_TENSOR || t->rank <= i || !t->dims) return -1;
  if (t->dim_params && t->dim_params[i]) return -1;
  return t->dims[i];
}

/* The states of layer l: rows [l * D, (l + 1) * D) of a stacked state. */
static oxp_value *layer_state(oxp_sctx *c, oxp_value *s, int64_t l, int D,
                              int64_t layers) {
  if (!s || layers == 1) return s;
  static const int64_t axis0 = 0;
  int64_t st = l * D, en = (l + 1) * D;
  return oxp_sym_slice(c, s, &axis0, &st, &en, NULL, 1);
}

oxp_status oxp_rnn_emit(oxp_sctx *c, const oxp_rnn_call *r, oxp_rnn_result *out) {
  rnn_form f = form_of(r->kind);
  int D = r->bidir ? 2 : 1, wpl = r->has_bias ? 4 : 2;
  /* nw counts weight tensors in the IR, so more layers cannot match. */
  if (r->layers <= 0 || r->layers > r->nw)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%d weights cannot make %lld layers",
                        r->nw, (long long)r->layers);
  if (r->nw != r->layers * D * wpl) {
    if (r->kind == OXP_RNN_LSTM && r->nw == r->layers * D * (wpl + 1))
      return oxp_sym_unsupported(c, "LSTM with projections (proj_size > 0): "
                                    "ONNX LSTM has no projection");
    return oxp_sym_fail(c, OXP_ERR_GRAPH,
                        "%d recurrent weights for %lld layers x %d directions",
                        r->nw, (long long)r->layers, D);
  }
  int64_t hidden = dim_of(r->w[1], 1);
  if (hidden <= 0)
    return oxp_sym_unsupported(c, "a recurrent layer of unknown hidden size");
  bool baked = can_bake(c, r);
  /* Script functions leave intermediate dtypes unknown: the weights
   * still have theirs. Types are only set when the dtype is known. */
  int dt = oxp_sym_dtype(r->x) ? oxp_sym_dtype(r->x) : oxp_sym_dtype(r->w[0]);
  int64_t T = dim_of(r->x, 0), B = dim_of(r->x, 1);
  oxp_value *prev = r->x, *hs[64], *cs[64];
  if (r->layers > 64) return oxp_sym_unsupported(c, "more than 64 layers");
  for (int64_t l = 0; l < r->layers; l++) {
    layer_weights lw;
    oxp_status st = layer_params(c, r, l, hidden, baked, &lw);
    if (st) return st;
    if (l > 0 && !prev) return oxp_sym_status(c);
    oxp_value *in[7] = {prev, lw.W, lw.R, lw.B, r->seq_lens,
                        layer_state(c, r->h0, l, D, r->layers),
                        layer_state(c, r->c0, l, D, r->layers)};
    int nin = r->kind == OXP_RNN_LSTM ? 7 : 6;
    while (nin > 3 && !in[nin - 1]) nin--;
    oxp_node *k = oxp_sym_op(c, f.op, in, nin, r->kind == OXP_RNN_LSTM ? 3 : 2);
    if (!k) return oxp_sym_status(c);
    oxp_attr_set_i(k, "hidden_size", hidden);
    if (r->bidir) oxp_attr_set_s(k, "direction", "bidirectional");
    if (r->kind == OXP_RNN_GRU) oxp_attr_set_i(k, "linear_before_reset", 1);
    if (r->kind == OXP_RNN_TANH || r->kind == OXP_RNN_RELU) {
      const char *act = r->kind == OXP_RNN_RELU ? "Relu" : "Tanh";
      const char *acts[2] = {act, act};
      oxp_attr_set_strs(k, "activations", acts, D);
    }
    int64_t ydims[4] = {T, D, B, hidden}, hdims[3] = {D, B, hidden};
    if (dt) oxp_sym_set_type(c, k->outputs[0], dt, 4, ydims);
    for (int i = 1; dt && i < k->noutputs; i++)
      oxp_sym_set_type(c, k->outputs[i], dt, 3, hdims);
    oxp_value *y = k->outputs[0];
    if (D == 2) {
      static const int64_t perm[4] = {0, 2, 1, 3}, shape[3] = {0, 0, -1};
      y = oxp_sym_op2(c, "Reshape", oxp_rnn_transpose(c, y, perm, 4),
                      oxp_sym_const_i64s(c, shape, 3));
    } else {
      static const int64_t axis1 = 1;
      y = oxp_sym_squeeze(c, y, &axis1, 1);
    }
    if (!y) return oxp_sym_status(c);
    int64_t pdims[3] = {T, B, D * hidden};
    if (dt) oxp_sym_set_type(c, y, dt, 3, pdims);
    prev = y;
    hs[l] = k->outputs[1];
    cs[l] = r->kind == OXP_RNN_LSTM ? k->outputs[2] : NULL;
  }
  out->y = prev;
  out->h = concat(c, hs, (int)r->layers, 0);
  out->c = r->kind == OXP_RNN_LSTM ? concat(c, cs, (int)r->layers, 0) : NULL;
  int64_t sdims[3] = {r->layers * D, B, hidden};
  if (out->h && dt) oxp_sym_set_type(c, out->h, dt, 3, sdims);
  if (out->c && dt) oxp_sym_set_type(c, out->c, dt, 3, sdims);
  if (!out->y || !out->h || (r->kind == OXP_RNN_LSTM && !out->c))
    return oxp_sym_status(c);
  return OXP_OK;
}
