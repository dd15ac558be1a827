/* s_rnn.h: private to the recurrent family (s_rnn.c, s_rnn_util.c). */
#ifndef OXP_S_RNN_H
#define OXP_S_RNN_H

#include "sym.h"

typedef enum { OXP_RNN_LSTM, OXP_RNN_GRU, OXP_RNN_TANH, OXP_RNN_RELU } oxp_rnn_kind;

/* One call of a torch recurrent op, lowered to one ONNX LSTM/GRU/RNN node
 * per layer. x is sequence-first (batch_first is handled by the caller);
 * h0 / c0 are [layers * dirs, batch, hidden] or NULL for zeros. */
typedef struct {
  oxp_rnn_kind kind;
  oxp_value *x;
  oxp_value *seq_lens;   /* int32 [batch], or NULL */
  oxp_value *h0, *c0;
  oxp_value **w;         /* torch's flat weight list, lowered */
  int nw;
  bool has_bias;
  int64_t layers;
  bool bidir;
} oxp_rnn_call;

typedef struct {
  oxp_value *y;          /* [seq, batch, dirs * hidden] */
  oxp_value *h, *c;      /* [layers * dirs, batch, hidden]; c for LSTM */
} oxp_rnn_result;

/* Emits the layers. Fails with a named error for variants ONNX cannot
 * express (projections, unknown hidden size). */
oxp_status oxp_rnn_emit(oxp_sctx *c, const oxp_rnn_call *r, oxp_rnn_result *out);

/* A Transpose of v with perm (rank entries). */
oxp_value *oxp_rnn_transpose(oxp_sctx *c, oxp_value *v, const int64_t *perm,
                             int rank);

#endif
