/* s_sdpa.c: aten::scaled_dot_product_attention, which every torch 2.x
 * transformer (and nn.MultiheadAttention without weights) prints and
 * PyTorch main's exporter maps from opset 14; torch 1.13 has no such op.
 *
 *   softmax(q @ k^T * scale + mask) @ v
 *
 * scale defaults to 1/sqrt(E) (E = q's last dim); a bool mask keeps the
 * positions that are true (the rest get -inf), a float mask is added;
 * is_causal keeps the lower-left triangle (Trilu, opset 14). A row that a
 * bool mask hides entirely is 0 (torch 2.5's safe softmax), not NaN.
 * dropout_p drops only when the export runs in training mode (ONNX Dropout
 * with training_mode); otherwise it is the identity, as ONNX Dropout in
 * inference. The schema has grown: torch 2.0 prints 6 arguments, 2.1
 * adds scale, 2.5 enable_gqa; all three forms are read. */
#include <math.h>

#include "s_nn_util.h"
#include "s_shape_util.h"

enum { Q, K, V, MASK, DROPOUT, CAUSAL, SCALE, GQA };

/* 1/sqrt(E) for q's last dim E: a constant when E is static. */
static oxp_value *default_scale(oxp_sctx *c, oxp_value *q, int dt) {
  int64_t e = oxp_sx_dim(q, -1);
  if (e > 0) return oxp_sym_const_scalar(c, 1 / sqrt((double)e), dt);
  static const int64_t last = -1;
  oxp_value *ed = oxp_sx_gather(c, oxp_sx_shape(c, q), oxp_sym_const_i64(c, last), 0);
  ed = oxp_sym_cast(c, ed, dt);
  return oxp_sym_op1(c, "Reciprocal", oxp_sym_op1(c, "Sqrt", ed));
}

/* The additive causal mask [L, S]: 0 on and below the diagonal, -inf
 * above, as torch.ones(L, S).tril() keeps. */
static oxp_value *causal_mask(oxp_sctx *c, oxp_value *q, oxp_value *k, int dt) {
  oxp_value *sq = oxp_sx_shape(c, q), *sk = oxp_sx_shape(c, k);
  oxp_value *l = oxp_sx_slice_dyn(c, sq, oxp_sym_const_i64s(c, (int64_t[]){-2}, 1),
                                  oxp_sym_const_i64s(c, (int64_t[]){-1}, 1), 0, 1);
  oxp_value *s = oxp_sx_slice_dyn(c, sk, oxp_sym_const_i64s(c, (int64_t[]){-2}, 1),
                                  oxp_sym_const_i64s(c, (int64_t[]){-1}, 1), 0, 1);
  oxp_value *ls[2] = {l, s};
  oxp_value *ones = oxp_sym_op2(c, "Expand", oxp_sym_const_scalar(c, 1, dt), oxp_sx_concat(c, ls, 2, 0));
  oxp_node *tri = ones ? oxp_sym_op(c, "Trilu", &ones, 1, 1) : NULL;
  if (!tri) return NULL;
  oxp_attr_set_i(tri, "upper", 0);
  oxp_value *zero = oxp_sym_const_scalar(c, 0, dt);
  return oxp_sym_op3(c, "Where", oxp_sym_op2(c, "Equal", tri->outputs[0], zero),
                     oxp_sym_const_scalar(c, -INFINITY, dt), zero);
}

oxp_status oxp_s_sdpa(oxp_sctx *c, oxp_node *n) {
  if (n->ninputs < 6 || n->ninputs > 8)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s takes 6 to 8 inputs, got %d", n->kind, n->ninputs);
  oxp_value *q = oxp_sym_in(c, n, Q), *k = oxp_sym_in(c, n, K), *v = oxp_sym_in(c, n, V);
  if (!q || !k || !v) return oxp_sym_status(c);
  int dt = oxp_sym_need_dtype(c, q), r = oxp_sym_rank(k);
  if (!dt) return oxp_sym_status(c);
  if (!oxp_dtype_is_float(dt)) return oxp_sym_unsupported(c, "attention of non-float tensors");
  if (r < 2) return oxp_sym_unsupported(c, "attention with a key of unknown rank or rank below 2");
  bool causal = false, gqa = false;
  double p = 0;
  if (!oxp_sym_bool(n, CAUSAL, &causal) || !oxp_sym_float(n, DROPOUT, &p))
    return oxp_sym_unsupported(c, "attention with a runtime dropout_p or is_causal");
  if (n->ninputs > GQA && !oxp_sym_bool(n, GQA, &gqa))
    return oxp_sym_unsupported(c, "attention with a runtime enable_gqa");
  if (gqa)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "%s: enable_gqa=True (grouped key/value heads) is not supported", n->kind);
  bool has_mask = !oxp_sym_is_none(n, MASK);
  if (causal && has_mask)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: is_causal with an attn_mask (torch refuses it too)", n->kind);

  oxp_value *scale;
  double s;
  if (n->ninputs > SCALE && !oxp_sym_is_none(n, SCALE)) {
    if (!oxp_sym_float(n, SCALE, &s)) return oxp_sym_unsupported(c, "attention with a runtime scale");
    scale = oxp_sym_const_scalar(c, s, dt);
  } else {
    scale = default_scale(c, q, dt);
  }
  int64_t perm[OXP_MAX_STATIC_RANK];
  if (r > OXP_MAX_STATIC_RANK) return oxp_sym_unsupported(c, "attention beyond 16 dims");
  for (int i = 0; i < r; i++) perm[i] = i;
  perm[r - 2] = r - 1;
  perm[r - 1] = r - 2;
  oxp_value *a = oxp_sym_op2(c, "MatMul", q, oxp_sx_transpose(c, k, perm, r));
  a = oxp_sym_op2(c, "Mul", a, scale);

  bool bool_mask = false;
  if (has_mask) {
    oxp_value *m = oxp_sym_in(c, n, MASK);
    if (!m) return oxp_sym_status(c);
    int mdt = oxp_sym_need_dtype(c, m);
    if (!mdt) return oxp_sym_status(c);
    if (mdt == OXP_DT_BOOL) {
      bool_mask = true;
      m = oxp_sym_op3(c, "Where", m, oxp_sym_const_scalar(c, 0, dt), oxp_sym_const_scalar(c, -INFINITY, dt));
    } else if (oxp_dtype_is_float(mdt)) {
      if (mdt != dt) m = oxp_sym_cast(c, m, dt);
    } else {
      return oxp_sym_unsupported(c, "an attn_mask that is neither bool nor float");
    }
    a = oxp_sym_op2(c, "Add", a, m);
  } else if (causal) {
    a = oxp_sym_op2(c, "Add", a, causal_mask(c, q, k, dt));
  }
  oxp_node *sm = a ? oxp_sym_op(c, "Softmax", &a, 1, 1) : NULL;
  if (!sm) return oxp_sym_status(c);
  oxp_attr_set_i(sm, "axis", -1);
  oxp_value *w = sm->outputs[0];
  if (bool_mask)
    w = oxp_sym_op3(c, "Where", oxp_sym_op1(c, "IsNaN", w), oxp_sym_const_scalar(c, 0, dt), w);
  if (p > 0 && oxp_nn_training(c, true)) {
    oxp_value *in[3] = {w, oxp_sym_const_scalar(c, p, dt), oxp_sym_const_scalar(c, 1, OXP_DT_BOOL)};
    oxp_node *d = w ? oxp_sym_op(c, "Dropout", in, 3, 1) : NULL;
    if (!d) return oxp_sym_status(c);
    w = d->outputs[0];
  }
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "MatMul", w, v));
}
