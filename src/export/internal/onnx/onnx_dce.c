/* onnx_dce.c: dead code after lowering and after each pass that leaves
 * some (folding, broadcast fixes, dedup, CSE): nodes whose outputs nobody
 * reads, initializers nobody reads, weight inputs nobody reads. */
#include "passes.h"

/* Removes nodes none of whose outputs is used, walking backwards so a
 * chain of dead nodes goes in one pass. */
static void dce_block(oxp_pass *p, oxp_block *b) {
  for (oxp_node *n = b->last, *prev; n; n = prev) {
    prev = n->prev;
    for (int k = 0; k < n->nblocks; k++) dce_block(p, n->blocks[k]);
    bool live = false;
    for (int i = 0; i < n->noutputs && !live; i++) live = oxp_pass_used(p, n->outputs[i]);
    if (!live) oxp_node_destroy(n);
  }
  int k = 0;
  for (int i = 0; i < b->ninits; i++)
    if (oxp_pass_used(p, b->inits[i])) b->inits[k++] = b->inits[i];
  b->ninits = k;
}

/* Weight inputs nothing reads are dropped (torch lifts buffers such as
 * num_batches_tracked that inference never touches); user inputs stay. */
static void drop_unused_weights(oxp_pass *p) {
  oxp_block *top = p->g->top;
  int k = 0;
  for (int i = 0; i < top->ninputs; i++) {
    oxp_value *v = top->inputs[i];
    if (v->init && !oxp_pass_used(p, v)) continue;
    v->index = k;
    top->inputs[k++] = v;
  }
  top->ninputs = k;
}

oxp_status oxp_onnx_dce(oxp_pass *p) {
  dce_block(p, p->g->top);
  drop_unused_weights(p);
  return OXP_OK;
}
