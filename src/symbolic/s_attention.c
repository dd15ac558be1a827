/* s_attention.c: torch's fused transformer fast paths, which tracing
 * emits when nn.MultiheadAttention / nn.TransformerEncoderLayer run in
 * eval mode without autograd (e.g. under torch.no_grad()). torch 1.13's
 * own exporter has no symbolic for them; here they become the same graph
 * the slow path would give, in batch-first layout. */
#include "ops.h"
#include "s_attention.h"

static bool same_src(oxp_node *n, int i, int j) {
  return oxp_sym_src(n, i) && oxp_sym_src(n, i) == oxp_sym_src(n, j);
}

/* An optional tensor input: *v is NULL when absent; false on failure. */
static bool opt_in(oxp_sctx *c, oxp_node *n, int i, oxp_value **v) {
  *v = NULL;
  if (i >= n->ninputs || oxp_sym_is_none(n, i)) return true;
  return (*v = oxp_sym_in(c, n, i)) != NULL;
}

/* The mask and its kind (mask_type argument, absent = as is). */
static oxp_status read_mask(oxp_sctx *c, oxp_node *n, int i, oxp_att_call *a) {
  a->mask_type = -1;
  if (!opt_in(c, n, i, &a->mask)) return oxp_sym_status(c);
  if (!a->mask) return OXP_OK;
  if (i + 1 < n->ninputs && !oxp_sym_is_none(n, i + 1) &&
      !oxp_sym_need_int(c, n, i + 1, &a->mask_type))
    return oxp_sym_status(c);
  if (a->mask_type < -1 || a->mask_type > 1)
    return oxp_sym_unsupported(c, "an attention mask_type other than 0 or 1");
  return OXP_OK;
}

/* Lowered values may not carry a rank yet; the traced type does. */
static oxp_status check_batched(oxp_sctx *c, oxp_node *n, oxp_value *x) {
  const oxp_type *t = oxp_sym_in_type(n, 0);
  int r = oxp_sym_rank(x) >= 0 ? oxp_sym_rank(x)
          : t && t->kind == OXP_T_TENSOR ? t->rank : -1;
  if (r != 3)
    return oxp_sym_unsupported(c, "fused attention on an input that is not "
                                  "batched [B, T, E]");
  return OXP_OK;
}

/* _native_multi_head_attention(query, key, value, embed_dim, num_head,
 *   qkv_weight, qkv_bias, proj_weight, proj_bias, mask, need_weights,
 *   average_attn_weights, mask_type) -> (out, weights) */
oxp_status oxp_s_native_mha(oxp_sctx *c, oxp_node *n) {
  oxp_att_call a = {.need_weights = true, .average = true};
  if (!oxp_sym_need_int(c, n, 3, &a.embed) || !oxp_sym_need_int(c, n, 4, &a.heads))
    return oxp_sym_status(c);
  if (n->ninputs > 10 && !oxp_sym_is_none(n, 10) &&
      !oxp_sym_bool(n, 10, &a.need_weights))
    return oxp_sym_unsupported(c, "a runtime need_weights flag");
  if (n->ninputs > 11 && !oxp_sym_is_none(n, 11) && !oxp_sym_bool(n, 11, &a.average))
    return oxp_sym_unsupported(c, "a runtime average_attn_weights flag");
  a.self = same_src(n, 0, 1) && same_src(n, 1, 2);
  a.q = oxp_sym_in(c, n, 0);
  a.k = a.self ? a.q : oxp_sym_in(c, n, 1);
  a.v = a.self ? a.q : oxp_sym_in(c, n, 2);
  a.w_qkv = oxp_sym_in(c, n, 5);
  a.w_o = oxp_sym_in(c, n, 7);
  if (!a.q || !a.k || !a.v || !a.w_qkv || !a.w_o || !opt_in(c, n, 6, &a.b_qkv) ||
      !opt_in(c, n, 8, &a.b_o))
    return oxp_sym_status(c);
  oxp_status st = check_batched(c, n, a.q);
  if (st || (st = read_mask(c, n, 9, &a))) return st;
  oxp_value *out, *w;
  if ((st = oxp_att_mha(c, &a, &out, &w))) return st;
  if ((st = oxp_sym_set_out(c, n, 0, out))) return st;
  if (w) return oxp_sym_set_out(c, n, 1, w);
  return OXP_OK;
}

/* _transformer_encoder_layer_fwd(src, embed_dim, num_heads, qkv_weight,
 *   qkv_bias, proj_weight, proj_bias, use_gelu, norm_first, eps,
 *   norm_weight_1, norm_bias_1, norm_weight_2, norm_bias_2, ffn_weight_1,
 *   ffn_bias_1, ffn_weight_2, ffn_bias_2, mask, mask_type) */
oxp_status oxp_s_transformer_encoder_layer(oxp_sctx *c, oxp_node *n) {
  oxp_att_call a = {.self = true};
  bool gelu = false, norm_first = false;
  double eps = 1e-5;
  if (!oxp_sym_need_int(c, n, 1, &a.embed) || !oxp_sym_need_int(c, n, 2, &a.heads))
    return oxp_sym_status(c);
  if (!oxp_sym_bool(n, 7, &gelu) || !oxp_sym_bool(n, 8, &norm_first) ||
      !oxp_sym_float(n, 9, &eps))
    return oxp_sym_unsupported(c, "runtime transformer layer flags");
  oxp_value *src = oxp_sym_in(c, n, 0);
  a.w_qkv = oxp_sym_in(c, n, 3);
  a.w_o = oxp_sym_in(c, n, 5);
  oxp_value *f1w = oxp_sym_in(c, n, 14), *f2w = oxp_sym_in(c, n, 16);
  oxp_value *n1w, *n1b, *n2w, *n2b, *f1b, *f2b;
  if (!src || !a.w_qkv || !a.w_o || !f1w || !f2w || !opt_in(c, n, 4, &a.b_qkv) ||
      !opt_in(c, n, 6, &a.b_o) || !opt_in(c, n, 10, &n1w) || !opt_in(c, n, 11, &n1b) ||
      !opt_in(c, n, 12, &n2w) || !opt_in(c, n, 13, &n2b) || !opt_in(c, n, 15, &f1b) ||
      !opt_in(c, n, 17, &f2b))
    return oxp_sym_status(c);
  oxp_status st = check_batched(c, n, src);
  if (st || (st = read_mask(c, n, 18, &a))) return st;

  /* x = src + SA(LN1(src)) (pre-norm) or LN1(src + SA(src)) (post-norm);
   * then the same around the feed-forward block with LN2. */
  oxp_value *x = norm_first ? oxp_att_layer_norm(c, src, n1w, n1b, eps) : src;
  a.q = a.k = a.v = x;
  oxp_value *sa, *unused;
  if ((st = oxp_att_mha(c, &a, &sa, &unused))) return st;
  x = oxp_sym_op2(c, "Add", sa, src);
  if (!norm_first) x = oxp_att_layer_norm(c, x, n1w, n1b, eps);
  oxp_value *res = x;
  if (norm_first) x = oxp_att_layer_norm(c, x, n2w, n2b, eps);
  oxp_value *h = oxp_att_linear(c, x, f1w, f1b);
  h = gelu ? oxp_att_gelu(c, h) : oxp_sym_op1(c, "Relu", h);
  x = oxp_sym_op2(c, "Add", oxp_att_linear(c, h, f2w, f2b), res);
  if (!norm_first) x = oxp_att_layer_norm(c, x, n2w, n2b, eps);
  return oxp_sym_set_out(c, n, 0, x);
}
