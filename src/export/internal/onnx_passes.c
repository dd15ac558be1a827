/* onnx_passes.c: clean-up of the lowered graph: dead nodes and unused
 * weights go, graph inputs and outputs take the names the user asked
 * for. Linear: one backward walk over the nodes. */
#include <string.h>

#include "export.h"

static bool used(const oxp_value *v) {
  return v->nuses > 0 || oxp_value_is_block_output(v);
}

/* Removes nodes none of whose outputs is used, walking backwards so a
 * chain of dead nodes goes in one pass. */
static void dce_block(oxp_block *b) {
  for (oxp_node *n = b->last, *prev; n; n = prev) {
    prev = n->prev;
    for (int k = 0; k < n->nblocks; k++) dce_block(n->blocks[k]);
    bool live = false;
    for (int i = 0; i < n->noutputs && !live; i++) live = used(n->outputs[i]);
    if (!live) oxp_node_destroy(n);
  }
  int k = 0;
  for (int i = 0; i < b->ninits; i++)
    if (used(b->inits[i])) b->inits[k++] = b->inits[i];
  b->ninits = k;
}

/* Weight inputs nothing reads are dropped (torch lifts buffers such as
 * num_batches_tracked that inference never touches); user inputs stay. */
static void drop_unused_weights(oxp_block *top) {
  int k = 0;
  for (int i = 0; i < top->ninputs; i++) {
    oxp_value *v = top->inputs[i];
    if (v->init && !used(v)) continue;
    v->index = k;
    top->inputs[k++] = v;
  }
  top->ninputs = k;
}

static oxp_status rename(oxp_graph *g, const oxp_options *o, oxp_diag *d) {
  oxp_block *top = g->top;
  int nuser = 0;
  for (int i = 0; i < top->ninputs; i++) nuser += !top->inputs[i]->init;
  if (o->n_input_names > nuser)
    return oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                    "%d input names given but the graph has %d inputs",
                    o->n_input_names, nuser);
  if (o->n_output_names > top->noutputs)
    return oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                    "%d output names given but the graph has %d outputs",
                    o->n_output_names, top->noutputs);
  for (int i = 0, u = 0; i < top->ninputs && u < o->n_input_names; i++)
    if (!top->inputs[i]->init)
      top->inputs[i]->name = oxp_strdup(g->arena, o->input_names[u++]);
  for (int i = 0; i < o->n_output_names; i++)
    top->outputs[i]->name = oxp_strdup(g->arena, o->output_names[i]);
  return OXP_OK;
}

/* Declared dynamic axes become dim_params on the named inputs. */
static oxp_status mark_dynamic(oxp_graph *g, const oxp_options *o,
                               oxp_diag *d) {
  oxp_block *top = g->top;
  for (int k = 0; k < o->n_dynamic_axes; k++) {
    const oxp_dyn_axis *ax = &o->dynamic_axes[k];
    oxp_value *v = NULL;
    for (int i = 0; i < top->ninputs && !v; i++)
      if (top->inputs[i]->name && strcmp(top->inputs[i]->name, ax->input) == 0)
        v = top->inputs[i];
    for (int i = 0; i < top->noutputs && !v; i++)
      if (top->outputs[i]->name && strcmp(top->outputs[i]->name, ax->input) == 0)
        v = top->outputs[i];
    if (!v)
      return oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                      "dynamic axis names '%s', which is no graph input or output",
                      ax->input);
    oxp_type *t = v->type;
    if (!t || t->kind != OXP_T_TENSOR || ax->axis < 0 || ax->axis >= t->rank)
      return oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                      "dynamic axis %d of '%s' is out of range", ax->axis,
                      ax->input);
    if (!t->dim_params) {
      t->dim_params = oxp_alloc(g->arena, sizeof(char *) * (size_t)t->rank);
      if (!t->dim_params) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
    }
    t->dim_params[ax->axis] = oxp_strdup(g->arena, ax->param);
    t->dims[ax->axis] = -1;
  }
  return OXP_OK;
}

oxp_status oxp_onnx_passes(oxp_graph *g, const oxp_options *o, oxp_diag *d) {
  dce_block(g->top);
  drop_unused_weights(g->top);
  oxp_status st = rename(g, o, d);
  return st ? st : mark_dynamic(g, o, d);
}
