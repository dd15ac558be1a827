/* s_attention.h: private to the attention family (s_attention*.c). */
#ifndef OXP_S_ATTENTION_H
#define OXP_S_ATTENTION_H

#include "sym.h"

/* One multi-head attention as aten::_native_multi_head_attention defines
 * it: batch-first [B, T, E] inputs, packed in-projection [3E, E]. */
typedef struct {
  oxp_value *q, *k, *v;
  bool self;             /* q, k and v are one tensor: one projection */
  int64_t embed, heads;
  oxp_value *w_qkv, *b_qkv;  /* b_qkv may be NULL */
  oxp_value *w_o, *b_o;      /* b_o may be NULL */
  oxp_value *mask;       /* NULL, or bool (true = masked out) */
  int64_t mask_type;     /* 0: [T, Tk]; 1: key padding [B, Tk]; -1: as is */
  bool need_weights, average;
} oxp_att_call;

/* Emits the attention; *weights is NULL unless need_weights. */
oxp_status oxp_att_mha(oxp_sctx *c, const oxp_att_call *a, oxp_value **out,
                       oxp_value **weights);

/* x @ w^T + b (b may be NULL), for x of any rank >= 2. */
oxp_value *oxp_att_linear(oxp_sctx *c, oxp_value *x, oxp_value *w,
                          oxp_value *b);
/* Layer norm over the last axis: LayerNormalization from opset 17. */
oxp_value *oxp_att_layer_norm(oxp_sctx *c, oxp_value *x, oxp_value *w,
                              oxp_value *b, double eps);
/* Exact (erf) GELU: the Gelu op from opset 20. */
oxp_value *oxp_att_gelu(oxp_sctx *c, oxp_value *x);

#endif
