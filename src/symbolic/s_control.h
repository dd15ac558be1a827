/* s_control.h: private helpers of the control-flow family (prim::If,
 * prim::Loop, lists as ONNX sequences). The family lowers a TorchScript
 * block into an ONNX subgraph with the driver's own node loop, so a node
 * inside a branch is lowered exactly like one outside it. */
#ifndef OXP_S_CONTROL_H
#define OXP_S_CONTROL_H

#include "lower_ctx.h"

/* ---- defined in lower.c (the driver) ------------------------------------ */

/* Lowers the nodes of source block b, in order, into c->cur. */
oxp_status oxp_lower_nodes(oxp_sctx *c, oxp_block *b);

/* ---- lower_block.c, s_control_types.c ---------------------------------------------------------- */

/* Is v defined in block b or in a block nested in it? */
bool oxp_ctl_defined_in(const oxp_value *v, const oxp_block *b);
/* Lowers source block src into the ONNX block dst (c->cur meanwhile). */
oxp_status oxp_ctl_lower_into(oxp_sctx *c, oxp_block *src, oxp_block *dst);
/* The ONNX value for source block output v, made inside c->cur: an
 * ONNX subgraph output must be produced by a node of that subgraph, so
 * block inputs, outer values and constants pass through an Identity.
 * blk is the source block v leaves; dtype (0: keep) casts first. */
oxp_value *oxp_ctl_block_out(oxp_sctx *c, oxp_block *blk, oxp_value *v,
                             int dtype);
/* Source lists defined outside ctl and changed (append, insert, ...)
 * inside one of its blocks: they become extra carried values. */
int oxp_ctl_outer_lists(oxp_sctx *c, oxp_node *ctl, oxp_value ***out);
/* A prim::If on a condition known now: the chosen block's nodes move
 * into the parent after n, n's outputs become the block's outputs.
 * Returns true when folded. */
bool oxp_ctl_fold_if(oxp_sctx *c, oxp_node *n, bool cond);
/* A lowered value known at export time (an initializer). */
bool oxp_ctl_const_bool(const oxp_value *v, bool *out);
/* Best-effort element type of a lowered value (its type, else what its
 * producer implies); 0 when unknown. */
int oxp_ctl_dtype(const oxp_value *v);
/* The type an ONNX subgraph input takes from the value it is fed: element
 * type and rank, no dims (a carried value may change shape). */
oxp_type *oxp_ctl_carried_type(oxp_sctx *c, const oxp_value *init,
                               const oxp_type *src);
/* Adds the list-aware wrappers (stack, cat, add of lists) to c->syms; the
 * originals stay reachable for plain tensors. */
oxp_status oxp_ctl_wrap_syms(oxp_sctx *c);

/* ---- s_seq.c -------------------------------------------------------------- */

/* Is source value v a list (T[] type)? */
bool oxp_seq_is_list(const oxp_value *v);
/* The ONNX sequence holding source list v now (making SequenceConstruct /
 * SequenceEmpty from a static list in c->cur when needed). NULL after a
 * diagnostic; below opset 11 the diagnostic names the construct that
 * needs a sequence (what). */
oxp_value *oxp_seq_of(oxp_sctx *c, oxp_value *v, const char *what);
/* The lowered sequence bound to source list v, or NULL when the list is
 * static (a pack or a prim::ListConstruct). */
oxp_value *oxp_seq_bound(oxp_sctx *c, oxp_value *v);
/* Rebinds source list v to the ONNX sequence s (dropping a static form). */
void oxp_seq_rebind(oxp_sctx *c, oxp_value *v, oxp_value *s);
/* Fixes the element type of an empty sequence chain once an element is
 * known (SequenceEmpty defaults to float). */
void oxp_seq_note_elem(oxp_sctx *c, oxp_value *seq, int dtype);
/* A new value holding the same sequence (an ONNX subgraph cannot return
 * an outer value directly). */
oxp_value *oxp_seq_copy(oxp_sctx *c, oxp_value *seq);
/* Wrapped symbolics (see oxp_ctl_wrap_syms). */
oxp_status oxp_seq_wrap_stack(oxp_sctx *c, oxp_node *n);
oxp_status oxp_seq_wrap_cat(oxp_sctx *c, oxp_node *n);
oxp_status oxp_seq_wrap_add(oxp_sctx *c, oxp_node *n);
/* The original symbolic of op (before wrapping), or NULL. */
oxp_symbolic_fn oxp_ctl_original(oxp_sctx *c, const char *op);

#endif
