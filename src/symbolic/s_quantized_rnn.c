/* s_quantized_rnn.c: dynamically quantized LSTM and GRU
 * (aten::quantized_lstm, aten::quantized_gru with RNN cell params, as
 * torch.ao.quantization.quantize_dynamic makes them), which torch's
 * exporter cannot export at all.
 *
 * An ONNX LSTM or GRU node is not what torch computes: torch's CPU kernel
 * (aten/src/ATen/native/RNN.cpp, FullLayer with pre_compute_input) runs
 * each linear as a dynamic quantized linear, and a dynamic linear
 * quantizes its input with parameters chosen from that input's own range.
 * Per layer and direction, the input-hidden linear takes the whole
 * [T, B, I] sequence at once (one range for all of it), and the
 * hidden-hidden linear takes the hidden state of each step (a range per
 * step). So the layers are unrolled over the sequence (an ONNX Loop when
 * only run time knows its length), each linear written out by
 * oxp_q_linear_dyn as quantized::linear_dynamic is, and the gates
 * combined in float as torch's cells combine them:
 *   LSTM  gates = hh(h) + ih[t]; i, f, g, o = chunk 4;
 *         c' = sigmoid(f) * c + sigmoid(i) * tanh(g); h' = sigmoid(o) * tanh(c')
 *   GRU   r = sigmoid(hh_r + ih_r); z = sigmoid(hh_z + ih_z);
 *         n = tanh(ih_n + hh_n * r); h' = (h - n) * z + n
 * The reverse direction reads ih in reverse and writes its outputs back
 * in order; a bidirectional layer's output concatenates both. */
#include "lower_ctx.h"
#include "ops.h"
#include "s_quantized.h"
#include "../export/internal/weights/packed.h"

enum { Q_LSTM, Q_GRU };

typedef struct {
  oxp_value *w, *ws, *wz; /* one dynamic linear */
  oxp_node *bn; /* its bias: input bi of bn */
  int bi;
  int64_t qmax;
} dyn_linear;

typedef struct {
  oxp_sctx *c;
  oxp_node *n;
  int kind, gates;
  int64_t layers, hidden, steps; /* steps 0: known at run time only */
  bool bidir;
  oxp_node *cells; /* the list of the cells' parts (bind_packed.c) */
} qrnn;

static oxp_value *apply(oxp_sctx *c, const dyn_linear *l, oxp_value *x) {
  return oxp_q_linear_dyn(c, x, l->w, l->ws, l->wz, l->bn, l->bi, l->qmax);
}

/* Linear k (OXP_PK_CELL_IH or _HH) of cell `cell`; false after a
 * diagnostic. */
static bool read_linear(qrnn *r, int cell, int k, bool reduce, dyn_linear *l) {
  oxp_sctx *c = r->c;
  int b = cell * OXP_PK_CELL_N + k;
  oxp_value *w = l->w = oxp_sym_in(c, r->cells, b + OXP_PK_WEIGHT);
  l->ws = oxp_sym_in(c, r->cells, b + OXP_PK_SCALE);
  l->wz = oxp_sym_in(c, r->cells, b + OXP_PK_ZERO_POINT);
  if (!w || !l->ws || !l->wz) return false;
  if (w->type->dtype != OXP_DT_INT8) {
    oxp_sym_unsupported(c, "a weight other than qint8");
    return false;
  }
  const oxp_type *t = w->type;
  if (t->rank != 2 || t->dims[0] != r->gates * r->hidden) {
    oxp_sym_fail(c, OXP_ERR_WEIGHTS, "%s: cell %d's %s weight is not [%lld, *]", r->n->kind,
                 cell, k == OXP_PK_CELL_IH ? "input-hidden" : "hidden-hidden",
                 (long long)(r->gates * r->hidden));
    return false;
  }
  l->bn = r->cells;
  l->bi = b + OXP_PK_BIAS;
  l->qmax = oxp_q_dyn_qmax(c, r->n->kind, r->cells, b + OXP_PK_REDUCED_QMAX, reduce);
  return l->qmax != 0;
}

/* Gate k of g ([B, G*H]): columns k*H .. (k+1)*H. */
static oxp_value *gate(qrnn *r, oxp_value *g, int k) {
  int64_t axis = 1, lo = k * r->hidden, hi = (k + 1) * r->hidden, step = 1;
  return oxp_sym_slice(r->c, g, &axis, &lo, &hi, &step, 1);
}

/* One step: the new h (and *cs, the LSTM's cell state) from the step's
 * precomputed input gates xg. */
static oxp_value *step(qrnn *r, const dyn_linear *hh, oxp_value *xg, oxp_value *h,
                       oxp_value **cs) {
  oxp_sctx *c = r->c;
  oxp_value *hg = apply(c, hh, h);
  if (!hg) return NULL;
  if (r->kind == Q_LSTM) {
    oxp_value *g = oxp_sym_op2(c, "Add", hg, xg);
    oxp_value *i = oxp_sym_op1(c, "Sigmoid", gate(r, g, 0));
    oxp_value *f = oxp_sym_op1(c, "Sigmoid", gate(r, g, 1));
    oxp_value *cg = oxp_sym_op1(c, "Tanh", gate(r, g, 2));
    oxp_value *o = oxp_sym_op1(c, "Sigmoid", gate(r, g, 3));
    *cs = oxp_sym_op2(c, "Add", oxp_sym_op2(c, "Mul", f, *cs), oxp_sym_op2(c, "Mul", i, cg));
    return oxp_sym_op2(c, "Mul", o, oxp_sym_op1(c, "Tanh", *cs));
  }
  oxp_value *rg = oxp_sym_op1(c, "Sigmoid", oxp_sym_op2(c, "Add", gate(r, hg, 0), gate(r, xg, 0)));
  oxp_value *z = oxp_sym_op1(c, "Sigmoid", oxp_sym_op2(c, "Add", gate(r, hg, 1), gate(r, xg, 1)));
  oxp_value *nn = oxp_sym_op1(
      c, "Tanh", oxp_sym_op2(c, "Add", gate(r, xg, 2), oxp_sym_op2(c, "Mul", gate(r, hg, 2), rg)));
  return oxp_sym_op2(c, "Add", oxp_sym_op2(c, "Mul", oxp_sym_op2(c, "Sub", h, nn), z), nn);
}

/* Row k of a [L*D, B, H] state as [B, H]. */
static oxp_value *state_row(oxp_sctx *c, oxp_value *s, int64_t k) {
  return oxp_sym_op2(c, "Gather", s, oxp_sym_const_i64(c, k));
}

static oxp_value *unsq0(oxp_sctx *c, oxp_value *v) {
  static const int64_t axis0 = 0;
  return oxp_sym_unsqueeze(c, v, &axis0, 1);
}

static oxp_value *concat(oxp_sctx *c, oxp_value **v, int n, int64_t axis) {
  oxp_node *k = oxp_sym_op(c, "Concat", v, n, 1);
  if (!k) return NULL;
  oxp_attr_set_i(k, "axis", axis);
  return k->outputs[0];
}

/* The steps as an ONNX Loop, for a sequence length known at run time
 * only: the body is one step (the hidden-hidden linear quantizes the
 * step's hidden state, as unrolled), h (and cs) carried, h the scan
 * output; the reverse direction runs over the gates reversed and its
 * outputs are put back in order. (Two other forms, the body reading
 * step T-1-i of the outer gates, or the outputs left unreversed, failed
 * in onnxruntime-node 1.20.1 with its "all" graph optimizations: a Gather
 * in the body saw an empty tensor; with them disabled the second ran.) */
static oxp_value *loop_steps(qrnn *r, const dyn_linear *hh, oxp_value *xg, bool reverse,
                             oxp_value **h, oxp_value **cs) {
  oxp_sctx *c = r->c;
  oxp_arena *a = oxp_sym_arena(c);
  int ncar = *cs ? 2 : 1;
  oxp_value *t = oxp_sym_size(c, xg, 0), *back = NULL;
  if (reverse) {
    oxp_value *last = oxp_sym_op2(c, "Sub", t, oxp_sym_const_i64(c, 1));
    oxp_node *rg = last ? oxp_sym_op(c, "Range", (oxp_value *[]){last, oxp_sym_const_i64(c, -1),
                                                                 oxp_sym_const_i64(c, -1)},
                                     3, 1)
                        : NULL;
    if (!rg) return NULL;
    back = rg->outputs[0];
    xg = oxp_sym_op2(c, "Gather", xg, back);
  }
  oxp_value *ins[4] = {t, oxp_sym_const_scalar(c, 1, OXP_DT_BOOL), *h, *cs};
  oxp_node *loop = xg ? oxp_sym_op(c, "Loop", ins, 2 + ncar, ncar + 1) : NULL;
  oxp_block *body = loop ? oxp_node_add_block(loop) : NULL;
  if (!body) return NULL;
  oxp_value *iter = oxp_block_add_input(body, NULL, oxp_type_tensor(a, OXP_DT_INT64, 0, NULL));
  oxp_value *cin = oxp_block_add_input(body, NULL, oxp_type_tensor(a, OXP_DT_BOOL, 0, NULL));
  oxp_value *hb = oxp_block_add_input(body, NULL, oxp_type_copy(a, (*h)->type));
  oxp_value *cb = *cs ? oxp_block_add_input(body, NULL, oxp_type_copy(a, (*cs)->type)) : NULL;
  if (!iter || !cin || !hb || (*cs && !cb)) {
    oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    return NULL;
  }
  oxp_block *outer = c->cur;
  c->cur = body;
  oxp_value *cnew = cb;
  oxp_value *hnew = step(r, hh, oxp_sym_op2(c, "Gather", xg, iter), hb, &cnew);
  oxp_value *cout = oxp_sym_op1(c, "Identity", cin);
  oxp_value *scan = oxp_sym_op1(c, "Identity", hnew);
  bool ok = hnew && cout && scan && oxp_block_add_output(body, cout) &&
            oxp_block_add_output(body, hnew) && (!cb || oxp_block_add_output(body, cnew)) &&
            oxp_block_add_output(body, scan);
  c->cur = outer;
  if (!ok) {
    if (!oxp_sym_status(c)) oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    return NULL;
  }
  for (int i = 0; i < ncar; i++)
    loop->outputs[i]->type = oxp_type_copy(a, body->inputs[2 + i]->type);
  const oxp_type *ht = (*h)->type;
  int64_t dims[3] = {-1, ht && ht->rank == 2 ? ht->dims[0] : -1, r->hidden};
  loop->outputs[ncar]->type = oxp_type_tensor(a, OXP_DT_FLOAT, 3, dims);
  *h = loop->outputs[0];
  if (*cs) *cs = loop->outputs[1];
  oxp_value *y = loop->outputs[ncar];
  return reverse ? oxp_sym_op2(c, "Gather", y, back) : y;
}

/* One direction of one layer over x ([T, B, I]): its outputs [T, B, H];
 * *h and *cs hold the initial state and receive the final one. */
static oxp_value *direction(qrnn *r, int cell, oxp_value *x, bool reverse, oxp_value **h,
                            oxp_value **cs) {
  oxp_sctx *c = r->c;
  int64_t reduce;
  if (!oxp_sym_need_int(c, r->cells, cell * OXP_PK_CELL_N + OXP_PK_CELL_REDUCE, &reduce))
    return NULL;
  dyn_linear ih, hh;
  if (!read_linear(r, cell, OXP_PK_CELL_IH, reduce != 0, &ih) ||
      !read_linear(r, cell, OXP_PK_CELL_HH, reduce != 0, &hh))
    return NULL;
  oxp_value *xg = apply(c, &ih, x);
  if (!xg) return NULL;
  if (!r->steps) return loop_steps(r, &hh, xg, reverse, h, cs);
  oxp_value **outs = oxp_alloc(oxp_sym_arena(c), sizeof *outs * (size_t)r->steps);
  if (!outs) {
    oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    return NULL;
  }
  for (int64_t s = 0; s < r->steps; s++) {
    int64_t t = reverse ? r->steps - 1 - s : s;
    *h = step(r, &hh, state_row(c, xg, t), *h, cs);
    if (!*h || !(outs[t] = unsq0(c, *h))) return NULL;
  }
  return concat(c, outs, (int)r->steps, 0);
}

/* The initial states: h0 (and c0 for the LSTM), [L*D, B, H]. */
static oxp_status initial(qrnn *r, oxp_value **h0, oxp_value **c0) {
  oxp_sctx *c = r->c;
  if (r->kind == Q_GRU) {
    *h0 = oxp_sym_in(c, r->n, 1);
    return *h0 ? OXP_OK : oxp_sym_status(c);
  }
  oxp_value **v;
  int cnt;
  if (!oxp_sym_in_list(c, r->n, 1, &v, &cnt)) return oxp_sym_status(c);
  if (cnt != 2)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: expected (h0, c0), got %d states", r->n->kind,
                        cnt);
  *h0 = v[0];
  *c0 = v[1];
  return OXP_OK;
}

/* The sequence length of x (axis seq of its type), 0 when only run
 * time knows it; -1 after a diagnostic. */
static int64_t static_steps(qrnn *r, oxp_value *x, int seq) {
  const oxp_type *t = x->type;
  if (!t || t->kind != OXP_T_TENSOR || t->rank != 3 || !t->dims)
    return oxp_sym_fail(r->c, OXP_ERR_UNSUPPORTED,
                        "%s: the input's rank must be known and 3 (a batched sequence)",
                        r->n->kind), -1;
  if (t->dims[seq] == 0)
    return oxp_sym_fail(r->c, OXP_ERR_GRAPH, "%s: an empty sequence (torch refuses it)",
                        r->n->kind), -1;
  if (t->dims[seq] < 0 || (t->dim_params && t->dim_params[seq])) return 0;
  return t->dims[seq];
}

/* quantized_lstm(input, hx[h0, c0], params[], has_biases, num_layers,
 *     dropout, train, bidirectional, batch_first, dtype, use_dynamic)
 *     -> (output, h_n, c_n)
 * quantized_gru(input, hx, params[], has_biases, num_layers, dropout,
 *     train, bidirectional, batch_first) -> (output, h_n) */
static oxp_status qrnn_lower(oxp_sctx *c, oxp_node *n, int kind) {
  qrnn r = {c, n, kind, kind == Q_LSTM ? 4 : 3, 0, 0, 0, false, NULL};
  bool has_bias, train = false, batch_first;
  double dropout = 0;
  if (!oxp_sym_bool(n, 3, &has_bias) || !oxp_sym_need_int(c, n, 4, &r.layers) ||
      !oxp_sym_bool(n, 7, &r.bidir) || !oxp_sym_bool(n, 8, &batch_first))
    return oxp_sym_unsupported(c, "runtime RNN flags");
  (void)has_bias; /* a cell without biases has None ones */
  oxp_sym_float(n, 5, &dropout);
  oxp_sym_bool(n, 6, &train);
  if (dropout > 0 && train && r.layers > 1)
    return oxp_sym_unsupported(c, "RNN dropout in training mode");
  if (kind == Q_LSTM) {
    int64_t dtype;
    bool dynamic;
    if (!oxp_sym_need_int(c, n, 9, &dtype) || !oxp_sym_bool(n, 10, &dynamic))
      return oxp_sym_unsupported(c, "runtime dtype or use_dynamic");
    if (!dynamic || dtype != 12 /* torch.qint8 */)
      return oxp_sym_unsupported(c, "a quantized LSTM other than int8 dynamic "
                                    "(dtype=torch.qint8, use_dynamic=True)");
  }
  int ndir = r.bidir ? 2 : 1;
  oxp_value *src = oxp_sym_src(n, 2);
  r.cells = src ? src->producer : NULL;
  if (!r.cells || !oxp_kind_is(r.cells, "prim::ListConstruct") ||
      r.cells->ninputs != r.layers * ndir * OXP_PK_CELL_N)
    return oxp_sym_fail(c, OXP_ERR_GRAPH,
                        "%s: expected a list of %lld RNN cell params (as the weights "
                        "file unpacks them, docs/quantized.md)",
                        n->kind, (long long)(r.layers * ndir));
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  if (!x->type || x->type->dtype != OXP_DT_FLOAT)
    return oxp_sym_unsupported(c, "an input other than float32");
  if ((r.steps = static_steps(&r, x, batch_first ? 1 : 0)) < 0) return oxp_sym_status(c);
  oxp_value *w_hh = oxp_sym_in(c, r.cells, OXP_PK_CELL_HH + OXP_PK_WEIGHT);
  if (!w_hh) return oxp_sym_status(c);
  if (w_hh->type->rank != 2) return oxp_sym_fail(c, OXP_ERR_WEIGHTS, "%s: a weight not 2-d", n->kind);
  r.hidden = w_hh->type->dims[1];
  if (batch_first) {
    oxp_node *t = oxp_sym_op(c, "Transpose", &x, 1, 1);
    if (!t) return oxp_sym_status(c);
    oxp_attr_set_ints(t, "perm", (int64_t[]){1, 0, 2}, 3);
    x = t->outputs[0];
  }
  oxp_value *h0, *c0 = NULL;
  oxp_status st = initial(&r, &h0, &c0);
  if (st) return st;
  int nst = (int)(r.layers * ndir);
  oxp_value **hn = oxp_alloc(oxp_sym_arena(c), sizeof *hn * (size_t)nst * 2);
  if (!hn) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  oxp_value **cn = hn + nst;
  for (int64_t l = 0; l < r.layers; l++) {
    oxp_value *dirs[2];
    for (int d = 0; d < ndir; d++) {
      int k = (int)(l * ndir + d);
      oxp_value *h = state_row(c, h0, k), *cs = c0 ? state_row(c, c0, k) : NULL;
      if (!(dirs[d] = direction(&r, k, x, d == 1, &h, &cs))) return oxp_sym_status(c);
      if (!(hn[k] = unsq0(c, h)) || (cs && !(cn[k] = unsq0(c, cs)))) return oxp_sym_status(c);
    }
    x = ndir == 2 ? concat(c, dirs, 2, 2) : dirs[0];
    if (!x) return oxp_sym_status(c);
  }
  if (batch_first) {
    oxp_node *t = oxp_sym_op(c, "Transpose", &x, 1, 1);
    if (!t) return oxp_sym_status(c);
    oxp_attr_set_ints(t, "perm", (int64_t[]){1, 0, 2}, 3);
    x = t->outputs[0];
  }
  if ((st = oxp_sym_set_out(c, n, 0, x)) ||
      (st = oxp_sym_set_out(c, n, 1, nst > 1 ? concat(c, hn, nst, 0) : hn[0])))
    return st;
  if (kind == Q_GRU) return OXP_OK;
  return oxp_sym_set_out(c, n, 2, nst > 1 ? concat(c, cn, nst, 0) : cn[0]);
}

oxp_status oxp_s_quantized_lstm(oxp_sctx *c, oxp_node *n) { return qrnn_lower(c, n, Q_LSTM); }
oxp_status oxp_s_quantized_gru(oxp_sctx *c, oxp_node *n) { return qrnn_lower(c, n, Q_GRU); }
