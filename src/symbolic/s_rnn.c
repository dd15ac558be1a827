/* s_rnn.c: aten::lstm / gru / rnn_tanh / rnn_relu (padded and packed
 * forms), the single-step cells, and pack_padded_sequence /
 * pad_packed_sequence.
 *
 * Packed sequences follow torch's exporter: ONNX has no packed tensors,
 * so "packing" keeps the padded sequence-first tensor and turns the
 * lengths into the RNN's sequence_lens; the RNN's padded output (zero past
 * each length, as ONNX defines it) is what "unpacking" returns. That is
 * exact only when the packed data goes straight from pack to RNNs to
 * unpack, so every other use of it is refused by name. */
#include <string.h>

#include "ops.h"
#include "s_rnn.h"

static const int64_t swap01[3] = {1, 0, 2};

static bool is_tensor_list(oxp_node *n, int i) {
  const oxp_type *t = oxp_sym_in_type(n, i);
  return t && t->kind == OXP_T_LIST && t->elem && t->elem->kind == OXP_T_TENSOR;
}

static bool is_rnn_op(const oxp_node *k) {
  return oxp_kind_is(k, "aten::lstm") || oxp_kind_is(k, "aten::gru") ||
         oxp_kind_is(k, "aten::rnn_tanh") || oxp_kind_is(k, "aten::rnn_relu");
}

/* The data overload: (data, batch_sizes, hx, params, ...) has its weight
 * list at position 3, where the padded form has a bool. */
static bool is_packed_rnn(oxp_node *k) {
  return is_rnn_op(k) && k->ninputs > 3 && is_tensor_list(k, 3);
}

/* Every reader of v is a packed RNN's data input or one of the allowed
 * unpacking ops. */
static bool only_packed_uses(const oxp_value *v, bool allow_unpack) {
  for (int i = 0; i < v->nuses; i++) {
    oxp_node *u = v->uses[i].node;
    if (v->uses[i].index == 0 && is_packed_rnn(u)) continue;
    if (allow_unpack && v->uses[i].index == 0 &&
        oxp_kind_is(u, "aten::_pad_packed_sequence"))
      continue;
    return false;
  }
  return !oxp_value_is_block_output(v);
}

/* A state that is known to be zeros (torch's default when no state is
 * passed): left out, so ONNX's own zero default applies and the model
 * keeps working for other batch sizes. */
static bool is_zeros(const oxp_value *v) {
  return v && v->producer && (oxp_kind_is(v->producer, "aten::zeros") ||
                              oxp_kind_is(v->producer, "aten::zeros_like"));
}

static oxp_value *state(oxp_sctx *c, oxp_node *n, int i) {
  return is_zeros(oxp_sym_src(n, i)) ? NULL : oxp_sym_in(c, n, i);
}

/* The LSTM state list (h0, c0). */
static oxp_status lstm_states(oxp_sctx *c, oxp_node *n, int i, oxp_value **h0,
                              oxp_value **c0) {
  oxp_value *src = oxp_sym_src(n, i);
  oxp_node *lc = src ? src->producer : NULL;
  if (lc && oxp_kind_is(lc, "prim::ListConstruct") && lc->ninputs == 2) {
    *h0 = state(c, lc, 0);
    *c0 = state(c, lc, 1);
    if ((!*h0 && !is_zeros(lc->inputs[0])) || (!*c0 && !is_zeros(lc->inputs[1])))
      return oxp_sym_status(c);
    return OXP_OK;
  }
  oxp_value **v;
  int cnt;
  if (!oxp_sym_in_list(c, n, i, &v, &cnt)) return oxp_sym_status(c);
  if (cnt != 2)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: expected (h0, c0), got %d states",
                        n->kind, cnt);
  *h0 = v[0];
  *c0 = v[1];
  return OXP_OK;
}

static oxp_rnn_kind kind_of(const oxp_node *n) {
  if (oxp_kind_is(n, "aten::lstm") || oxp_kind_is(n, "aten::lstm_cell"))
    return OXP_RNN_LSTM;
  if (oxp_kind_is(n, "aten::gru") || oxp_kind_is(n, "aten::gru_cell"))
    return OXP_RNN_GRU;
  if (oxp_kind_is(n, "aten::rnn_relu") || oxp_kind_is(n, "aten::rnn_relu_cell"))
    return OXP_RNN_RELU;
  return OXP_RNN_TANH;
}

/* lstm(input, hx[], params[], has_biases, num_layers, dropout, train,
 *      bidirectional, batch_first)
 * lstm(data, batch_sizes, hx[], params[], has_biases, num_layers, dropout,
 *      train, bidirectional)
 * gru / rnn_tanh / rnn_relu: the same with one state tensor hx. */
oxp_status oxp_s_rnn(oxp_sctx *c, oxp_node *n) {
  bool packed = is_tensor_list(n, 3);
  int a = packed ? 4 : 3; /* has_biases */
  oxp_rnn_call r = {.kind = kind_of(n)};
  int64_t layers;
  bool has_bias, train = false, bidir, batch_first = false;
  double dropout = 0;
  if (!oxp_sym_need_int(c, n, a + 1, &layers)) return oxp_sym_status(c);
  if (!oxp_sym_bool(n, a, &has_bias) || !oxp_sym_bool(n, a + 4, &bidir) ||
      (!packed && !oxp_sym_bool(n, a + 5, &batch_first)))
    return oxp_sym_unsupported(c, "runtime RNN flags");
  oxp_sym_float(n, a + 2, &dropout);
  oxp_sym_bool(n, a + 3, &train);
  if (dropout > 0 && train && layers > 1)
    return oxp_sym_unsupported(c, "RNN dropout in training mode");
  r.has_bias = has_bias;
  r.layers = layers;
  r.bidir = bidir;
  if (layers < 1) return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: %lld layers",
                                      n->kind, (long long)layers);
  if (packed) {
    oxp_value *src = oxp_sym_src(n, 0);
    oxp_node *p = src->producer;
    if (!p || !(oxp_kind_is(p, "aten::_pack_padded_sequence") || is_packed_rnn(p)))
      return oxp_sym_unsupported(c, "a packed sequence that does not come from "
                                    "pack_padded_sequence");
    if (!only_packed_uses(n->outputs[0], true))
      return oxp_sym_unsupported(c, "a packed RNN output used other than by "
                                    "pad_packed_sequence or another RNN");
    r.seq_lens = oxp_sym_in(c, n, 1);
    if (!r.seq_lens) return oxp_sym_status(c);
  }
  int hx = packed ? 2 : 1, params = packed ? 3 : 2;
  r.x = oxp_sym_in(c, n, 0);
  if (!r.x) return oxp_sym_status(c);
  if (batch_first) r.x = oxp_rnn_transpose(c, r.x, swap01, 3);
  if (r.kind == OXP_RNN_LSTM) {
    oxp_status st = lstm_states(c, n, hx, &r.h0, &r.c0);
    if (st) return st;
  } else if (!oxp_sym_is_none(n, hx)) {
    r.h0 = state(c, n, hx);
    if (!r.h0 && !is_zeros(oxp_sym_src(n, hx))) return oxp_sym_status(c);
  }
  if (!oxp_sym_in_list(c, n, params, &r.w, &r.nw)) return oxp_sym_status(c);
  oxp_rnn_result res;
  oxp_status st = oxp_rnn_emit(c, &r, &res);
  if (st) return st;
  oxp_value *y = batch_first ? oxp_rnn_transpose(c, res.y, swap01, 3) : res.y;
  if ((st = oxp_sym_set_out(c, n, 0, y)) || (st = oxp_sym_set_out(c, n, 1, res.h)))
    return st;
  return r.kind == OXP_RNN_LSTM ? oxp_sym_set_out(c, n, 2, res.c) : OXP_OK;
}

/* A cell's [1, B, H] state as [B, H]. Scripted cells have untyped
 * outputs, so the type comes from the weights. */
static oxp_value *squeeze0(oxp_sctx *c, oxp_value *v, const oxp_value *w) {
  static const int64_t axis0 = 0;
  oxp_value *s = oxp_sym_squeeze(c, v, &axis0, 1);
  const oxp_type *t = v ? v->type : NULL;
  int dt = oxp_sym_dtype(w);
  if (s && dt && t && t->kind == OXP_T_TENSOR && t->rank == 3)
    oxp_sym_set_type(c, s, dt, 2, t->dims + 1);
  return s;
}

/* lstm_cell(input, hx[h, c], w_ih, w_hh, b_ih, b_hh) -> (h, c)
 * gru_cell / rnn_tanh_cell / rnn_relu_cell(input, hx, w_ih, w_hh, b_ih,
 * b_hh) -> h: one step of a one-layer RNN over a sequence of length 1. */
oxp_status oxp_s_rnn_cell(oxp_sctx *c, oxp_node *n) {
  static const int64_t axis0 = 0;
  oxp_rnn_call r = {.kind = kind_of(n), .layers = 1};
  r.x = oxp_sym_unsqueeze(c, oxp_sym_in(c, n, 0), &axis0, 1);
  if (!r.x) return oxp_sym_status(c);
  if (r.kind == OXP_RNN_LSTM) {
    oxp_status st = lstm_states(c, n, 1, &r.h0, &r.c0);
    if (st) return st;
    if (r.c0) r.c0 = oxp_sym_unsqueeze(c, r.c0, &axis0, 1);
  } else if (!oxp_sym_is_none(n, 1)) {
    r.h0 = state(c, n, 1);
    if (!r.h0 && !is_zeros(oxp_sym_src(n, 1))) return oxp_sym_status(c);
  }
  if (r.h0) r.h0 = oxp_sym_unsqueeze(c, r.h0, &axis0, 1);
  r.has_bias = !oxp_sym_is_none(n, 4) && !oxp_sym_is_none(n, 5);
  if (oxp_sym_is_none(n, 4) != oxp_sym_is_none(n, 5))
    return oxp_sym_unsupported(c, "a cell with only one of its two biases");
  oxp_value *w[4];
  r.nw = r.has_bias ? 4 : 2;
  for (int i = 0; i < r.nw; i++)
    if (!(w[i] = oxp_sym_in(c, n, 2 + i))) return oxp_sym_status(c);
  r.w = w;
  oxp_rnn_result res;
  oxp_status st = oxp_rnn_emit(c, &r, &res);
  if (st) return st;
  st = oxp_sym_set_out(c, n, 0, squeeze0(c, res.h, w[0]));
  if (st || r.kind != OXP_RNN_LSTM) return st;
  return oxp_sym_set_out(c, n, 1, squeeze0(c, res.c, w[0]));
}

/* _pack_padded_sequence(input, lengths, batch_first) -> (data, batch_sizes):
 * data stays the padded [seq, batch, ...] tensor, batch_sizes becomes the
 * int32 lengths that ONNX's sequence_lens takes. */
oxp_status oxp_s_pack_padded_sequence(oxp_sctx *c, oxp_node *n) {
  bool batch_first = false;
  if (!oxp_sym_bool(n, 2, &batch_first))
    return oxp_sym_unsupported(c, "a runtime batch_first flag");
  if (!only_packed_uses(n->outputs[0], false))
    return oxp_sym_unsupported(c, "packed sequence data used other than by an "
                                  "RNN (ONNX has no packed tensors)");
  const oxp_value *bs = n->outputs[1];
  for (int i = 0; i < bs->nuses; i++) {
    oxp_node *u = bs->uses[i].node;
    /* aten::size of batch_sizes only feeds pad_packed_sequence's ignored
     * total_length in torch's own code. */
    if (!(is_packed_rnn(u) && bs->uses[i].index == 1) &&
        !oxp_kind_is(u, "aten::_pad_packed_sequence") && !oxp_kind_is(u, "aten::size"))
      return oxp_sym_unsupported(c, "batch_sizes of a packed sequence used other "
                                    "than by an RNN or pad_packed_sequence");
  }
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (x && batch_first) x = oxp_rnn_transpose(c, x, swap01, 3);
  oxp_value *len = oxp_sym_cast(c, oxp_sym_in(c, n, 1), OXP_DT_INT32);
  if (!x || !len) return oxp_sym_status(c);
  oxp_status st = oxp_sym_set_out(c, n, 0, x);
  return st ? st : oxp_sym_set_out(c, n, 1, len);
}

/* _pad_packed_sequence(data, batch_sizes, batch_first, padding_value,
 *                      total_length) -> (padded, lengths) */
oxp_status oxp_s_pad_packed_sequence(oxp_sctx *c, oxp_node *n) {
  oxp_value *src = oxp_sym_src(n, 0);
  if (!src->producer || !is_packed_rnn(src->producer) || src->index != 0)
    return oxp_sym_unsupported(c, "pad_packed_sequence of data that does not "
                                  "come from a packed RNN");
  bool batch_first = false;
  double pad = 0;
  if (!oxp_sym_bool(n, 2, &batch_first))
    return oxp_sym_unsupported(c, "a runtime batch_first flag");
  if (!oxp_sym_float(n, 3, &pad) || pad != 0)
    return oxp_sym_unsupported(c, "pad_packed_sequence with a padding_value "
                                  "other than 0 (ONNX RNNs pad with zeros)");
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  /* total_length beyond the longest sequence would need extra padding. */
  const oxp_type *ot = oxp_sym_out_type(n, 0);
  int td = batch_first ? 1 : 0;
  if (ot && ot->kind == OXP_T_TENSOR && ot->rank == 3 && x->type &&
      x->type->rank == 3 && ot->dims[td] >= 0 && x->type->dims[0] >= 0 &&
      ot->dims[td] != x->type->dims[0])
    return oxp_sym_unsupported(c, "pad_packed_sequence with total_length longer "
                                  "than the longest sequence");
  if (batch_first) x = oxp_rnn_transpose(c, x, swap01, 3);
  oxp_value *len = oxp_sym_cast(c, oxp_sym_in(c, n, 1), OXP_DT_INT64);
  if (!x || !len) return oxp_sym_status(c);
  oxp_status st = oxp_sym_set_out(c, n, 0, x);
  return st ? st : oxp_sym_set_out(c, n, 1, len);
}
