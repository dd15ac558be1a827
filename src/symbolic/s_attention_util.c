/* s_attention_util.c: the pieces of torch's fused transformer kernels as
 * ONNX graphs: projections, scaled dot-product attention with masks,
 * layer norm and GELU. The default domain has no attention op below
 * opset 23, so attention is MatMul/Softmax/MatMul on [B, H, T, dh]
 * tensors, which runtimes fuse; layer norm and GELU use their fused ops
 * where the opset has them. */
#include <math.h>

#include "s_attention.h"

static oxp_value *transpose(oxp_sctx *c, oxp_value *v, const int64_t *perm,
                            int rank) {
  if (!v) return NULL;
  oxp_node *t = oxp_sym_op(c, "Transpose", &v, 1, 1);
  if (!t) return NULL;
  oxp_attr_set_ints(t, "perm", perm, rank);
  return t->outputs[0];
}

oxp_value *oxp_att_linear(oxp_sctx *c, oxp_value *x, oxp_value *w,
                          oxp_value *b) {
  static const int64_t t2[2] = {1, 0};
  oxp_value *y = oxp_sym_op2(c, "MatMul", x, transpose(c, w, t2, 2));
  return b ? oxp_sym_op2(c, "Add", y, b) : y;
}

oxp_value *oxp_att_layer_norm(oxp_sctx *c, oxp_value *x, oxp_value *w,
                              oxp_value *b, double eps) {
  if (!x) return NULL;
  int dt = oxp_sym_need_dtype(c, x);
  if (oxp_sym_opset(c) >= 17 && w) {
    oxp_value *in[3] = {x, w, b};
    oxp_node *ln = oxp_sym_op(c, "LayerNormalization", in, b ? 3 : 2, 1);
    if (!ln) return NULL;
    oxp_attr_set_i(ln, "axis", -1);
    oxp_attr_set_f(ln, "epsilon", eps);
    return ln->outputs[0];
  }
  static const int64_t last = -1;
  oxp_value *d = oxp_sym_op2(c, "Sub", x,
                             oxp_sym_reduce(c, "ReduceMean", x, &last, 1, true));
  oxp_value *var = oxp_sym_reduce(c, "ReduceMean", oxp_sym_op2(c, "Mul", d, d),
                                  &last, 1, true);
  oxp_value *den = oxp_sym_op1(
      c, "Sqrt", oxp_sym_op2(c, "Add", var, oxp_sym_const_scalar(c, eps, dt)));
  oxp_value *y = oxp_sym_op2(c, "Div", d, den);
  if (w) y = oxp_sym_op2(c, "Mul", y, w);
  if (b) y = oxp_sym_op2(c, "Add", y, b);
  return y;
}

oxp_value *oxp_att_gelu(oxp_sctx *c, oxp_value *x) {
  if (!x) return NULL;
  if (oxp_sym_opset(c) >= 20) return oxp_sym_op1(c, "Gelu", x);
  int dt = oxp_sym_need_dtype(c, x);
  const double rsqrt2 = 0.70710678118654752440;
  oxp_value *e = oxp_sym_op1(
      c, "Erf", oxp_sym_op2(c, "Mul", x, oxp_sym_const_scalar(c, rsqrt2, dt)));
  oxp_value *one = oxp_sym_op2(c, "Add", e, oxp_sym_const_scalar(c, 1, dt));
  return oxp_sym_op2(c, "Mul", oxp_sym_op2(c, "Mul", x, one),
                     oxp_sym_const_scalar(c, 0.5, dt));
}

/* Rows [i * E, (i + 1) * E) of a packed projection weight or bias. */
static oxp_value *part(oxp_sctx *c, oxp_value *w, int i, int64_t E) {
  if (!w) return NULL;
  static const int64_t axis0 = 0;
  int64_t st = i * E, en = (i + 1) * E;
  return oxp_sym_slice(c, w, &axis0, &st, &en, NULL, 1);
}

/* [B, T, E] -> [B, H, T, dh] (or [B, H, dh, T] for keys). */
static oxp_value *heads(oxp_sctx *c, oxp_value *x, int64_t H, int64_t dh,
                        bool key) {
  const int64_t shape[4] = {0, 0, H, dh};
  static const int64_t pq[4] = {0, 2, 1, 3}, pk[4] = {0, 2, 3, 1};
  oxp_value *r = oxp_sym_op2(c, "Reshape", x, oxp_sym_const_i64s(c, shape, 4));
  return transpose(c, r, key ? pk : pq, 4);
}

oxp_status oxp_att_mha(oxp_sctx *c, const oxp_att_call *a, oxp_value **out,
                       oxp_value **weights) {
  int64_t E = a->embed, H = a->heads;
  if (H <= 0 || E % H != 0)
    return oxp_sym_unsupported(c, "attention whose embed_dim is not a multiple "
                                  "of num_heads");
  if (E < 0 || E > INT64_MAX / 3)
    return oxp_sym_unsupported(c, "attention with an embed_dim past int64 / 3");
  int64_t dh = E / H;
  int dt = oxp_sym_need_dtype(c, a->q);
  oxp_value *q, *k, *v;
  if (a->self) {
    /* One [B, T, 3E] projection, split along its last axis. */
    oxp_value *qkv = oxp_att_linear(c, a->q, a->w_qkv, a->b_qkv);
    static const int64_t last = -1;
    int64_t s[3] = {0, E, 2 * E}, e[3] = {E, 2 * E, 3 * E};
    q = oxp_sym_slice(c, qkv, &last, &s[0], &e[0], NULL, 1);
    k = oxp_sym_slice(c, qkv, &last, &s[1], &e[1], NULL, 1);
    v = oxp_sym_slice(c, qkv, &last, &s[2], &e[2], NULL, 1);
  } else {
    q = oxp_att_linear(c, a->q, part(c, a->w_qkv, 0, E), part(c, a->b_qkv, 0, E));
    k = oxp_att_linear(c, a->k, part(c, a->w_qkv, 1, E), part(c, a->b_qkv, 1, E));
    v = oxp_att_linear(c, a->v, part(c, a->w_qkv, 2, E), part(c, a->b_qkv, 2, E));
  }
  /* torch scales q (after its bias) by 1/sqrt(dh), as here. */
  q = oxp_sym_op2(c, "Mul", heads(c, q, H, dh, false),
                  oxp_sym_const_scalar(c, 1 / sqrt((double)dh), dt));
  oxp_value *s = oxp_sym_op2(c, "MatMul", q, heads(c, k, H, dh, true));
  if (a->mask) {
    oxp_value *m = a->mask;
    if (oxp_sym_dtype(m) != OXP_DT_BOOL) m = oxp_sym_cast(c, m, OXP_DT_BOOL);
    if (a->mask_type == 1) {
      static const int64_t axes[2] = {1, 2};
      m = oxp_sym_unsqueeze(c, m, axes, 2);
    }
    /* Fully masked rows give NaN, as torch's kernel does. */
    s = oxp_sym_op3(c, "Where", m, oxp_sym_const_scalar(c, -INFINITY, dt), s);
  }
  oxp_node *sm = s ? oxp_sym_op(c, "Softmax", &s, 1, 1) : NULL;
  if (!sm) return oxp_sym_status(c);
  oxp_attr_set_i(sm, "axis", 3);
  oxp_value *p = sm->outputs[0];
  static const int64_t back[4] = {0, 2, 1, 3};
  static const int64_t merged[3] = {0, 0, -1};
  oxp_value *ctx = oxp_sym_op2(
      c, "Reshape", transpose(c, oxp_sym_op2(c, "MatMul", p, heads(c, v, H, dh, false)),
                              back, 4),
      oxp_sym_const_i64s(c, merged, 3));
  *out = oxp_att_linear(c, ctx, a->w_o, a->b_o);
  *weights = NULL;
  if (a->need_weights) {
    static const int64_t axis1 = 1;
    *weights = a->average ? oxp_sym_reduce(c, "ReduceMean", p, &axis1, 1, false) : p;
    if (!*weights) return oxp_sym_status(c);
  }
  return *out ? OXP_OK : oxp_sym_status(c);
}
