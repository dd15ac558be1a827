/* lower_ctx.h: the lowering context behind the opaque oxp_sctx. Only the
 * driver (lower.c) and the symbolic helpers (sym_*.c) see inside it. */
#ifndef OXP_LOWER_CTX_H
#define OXP_LOWER_CTX_H

#include "sym.h"

/* A lowered list or tuple: the ONNX values of its elements. With quant
 * set, a quantized tensor instead (s_quantized.c): {integer tensor,
 * scale, zero point}, as torch's exporter keeps one in a tuple. */
typedef struct {
  oxp_value **vals;
  int n;
  bool quant;
} oxp_pack;

struct oxp_sctx {
  oxp_graph *src, *dst;
  oxp_block *cur;          /* ONNX block receiving emitted nodes */
  const oxp_options *o;
  oxp_diag *d;
  int opset;
  oxp_value **env;         /* src value id -> lowered value */
  int nenv;                /* entries of env and packs: the source graph's values when
                              lowering began (symbolics may add source values later) */
  oxp_pack **packs;        /* src value id -> lowered list/tuple */
  oxp_node *node;          /* src node being lowered, for diagnostics */
  oxp_map kinds;           /* ONNX op type -> its "onnx::" node kind */
  bool static_shapes;      /* traced dims are valid (no dynamic axes) */
  int nconsts;             /* counter for constant names */
  struct oxp_si_live *live;/* shape inference as nodes are made */
  /* Table rows of recent node kinds, by the kind string's address (the
   * parser shares one string per kind): the op table's symbolic at this
   * opset, and the arity row (arity.c). Most nodes are found here
   * instead of by a binary search of strcmps. */
  struct oxp_kind_memo {
    const char *kind; /* NULL: empty */
    const void *row;  /* arity_memo's */
    oxp_symbolic_fn fn; /* sym_memo's */
  } sym_memo[32], arity_memo[32];
};

/* The slot of kind in one of the memos above. */
static inline struct oxp_kind_memo *oxp_kind_memo_slot(struct oxp_kind_memo *m, const char *kind) {
  return &m[((uintptr_t)kind >> 4) % 32];
}

oxp_value *oxp_lower_lookup(oxp_sctx *c, oxp_value *src);
oxp_pack *oxp_lower_pack(oxp_sctx *c, oxp_value *src);
void oxp_lower_bind(oxp_sctx *c, oxp_value *src, oxp_value *dst);
void oxp_lower_bind_pack(oxp_sctx *c, oxp_value *src, oxp_pack *p);

/* The dtype a TorchScript scalar type lowers to (int -> int64, ...), or the
 * tensor's dtype; 0 when unknown. */
int oxp_lower_scalar_dtype(const oxp_type *t);

/* An aten node's input and output counts against torch's schemas
 * (arity.c); a diagnostic at the node when no overload fits. */
oxp_status oxp_arity_check(oxp_sctx *c, const oxp_node *n);

#endif
