/* onnx_passes.c: the ONNX half of the pipeline, in order, and the helpers
 * every ONNX pass shares (output marks, what counts as a constant, making
 * initializers, bypassing a node without losing an output's name).
 *
 *   DCE, unused weights, input/output names, dynamic axes
 *   shape inference            types for the peephole and the folder
 *   peephole                   before folding, so Gemm takes transB from a
 *                              weight's Transpose instead of a copy
 *   constant folding           (unless --no-constant-folding)
 *   peephole again             folding exposes no-op Reshapes and Casts
 *   Expand for one-way broadcasts, dedup initializers, CSE, DCE
 *   shape inference            final types for value_info */
#include <string.h>

#include "passes.h"

/* ---- shared helpers ------------------------------------------------------ */

static void mark_outputs(oxp_pass *p, const oxp_block *b) {
  for (int i = 0; i < b->noutputs; i++)
    if (b->outputs[i]->id < p->nmarks) p->is_out[b->outputs[i]->id] = true;
  for (const oxp_node *n = b->first; n; n = n->next)
    for (int k = 0; k < n->nblocks; k++) mark_outputs(p, n->blocks[k]);
}

oxp_status oxp_pass_init(oxp_pass *p, oxp_graph *g, const oxp_options *o,
                         oxp_diag *d) {
  memset(p, 0, sizeof *p);
  p->g = g;
  p->o = o;
  p->d = d;
  p->nmarks = g->nvalues;
  p->is_out = oxp_alloc(g->arena, sizeof(bool) * (size_t)(p->nmarks + 1));
  if (!p->is_out) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  mark_outputs(p, g->top);
  return OXP_OK;
}

bool oxp_pass_is_const(const oxp_pass *p, const oxp_value *v) {
  if (!v || !v->init || v->producer || !oxp_tensor_has_bytes(v->init)) return false;
  if (!v->owner) return true; /* a block constant */
  /* A weight input: fixed only when no runtime input can replace it. */
  return v->owner == p->g->top && p->o->export_params &&
         !p->o->keep_initializers_as_inputs;
}

oxp_value *oxp_pass_new_const(oxp_pass *p, oxp_block *b, oxp_tensor *t,
                              const char *stem) {
  oxp_type *ty = oxp_type_tensor(p->g->arena, t->dtype, t->rank, t->dims);
  oxp_value *v = ty ? oxp_value_new(p->g, NULL, ty) : NULL;
  if (!v) return NULL;
  v->init = t;
  v->name = oxp_sprintf(p->g->arena, "onnxexp::%s_%d", stem, p->nconsts++);
  if (!v->name || !oxp_block_add_init(b, v)) return NULL;
  return v;
}

void oxp_pass_make_const(oxp_pass *p, oxp_value *v, oxp_tensor *t) {
  oxp_node *n = v->producer;
  oxp_block *b = n ? n->owner : p->g->top;
  /* The node loses this output; a placeholder keeps its output indices. */
  if (n) {
    oxp_value *ph = oxp_value_new(p->g, NULL, NULL);
    if (ph) {
      ph->producer = n;
      ph->index = v->index;
      n->outputs[v->index] = ph;
    }
  }
  v->producer = NULL;
  v->index = 0;
  v->init = t;
  v->type = oxp_type_tensor(p->g->arena, t->dtype, t->rank, t->dims);
  oxp_block_add_init(b, v);
}

bool oxp_pass_bypass(oxp_pass *p, oxp_node *n, oxp_value *in, oxp_value *out) {
  if (!oxp_pass_is_out(p, out)) {
    oxp_value_replace_uses(out, in);
    oxp_node_destroy(n);
    return true;
  }
  /* out is an output: in's producer produces out instead, so the output
   * keeps its name; in must be a plain node output that is no output. */
  oxp_node *src = in->producer;
  if (!src || oxp_pass_is_out(p, in) || src->owner != n->owner) return false;
  oxp_node_destroy(n);
  oxp_value_replace_uses(in, out);
  src->outputs[in->index] = out;
  out->producer = src;
  out->index = in->index;
  if (!out->type || (in->type && in->type->kind == OXP_T_TENSOR &&
                     in->type->dtype))
    out->type = in->type;
  return true;
}

const char *oxp_pass_onnx_op(const oxp_node *n) {
  return strncmp(n->kind, "onnx::", 6) == 0 ? n->kind + 6 : NULL;
}

/* ---- clean-up --------------------------------------------------------------- */

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

/* Declared dynamic axes become dim_params on the named inputs (and on
 * outputs named directly; inference fills the rest). */
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

static void cleanup(oxp_pass *p) {
  dce_block(p, p->g->top);
  drop_unused_weights(p);
}

oxp_status oxp_onnx_passes(oxp_graph *g, const oxp_options *o, oxp_diag *d) {
  oxp_pass p;
  oxp_status st = oxp_pass_init(&p, g, o, d);
  if (st) return st;
  cleanup(&p);
  if ((st = rename(g, o, d)) || (st = mark_dynamic(g, o, d))) return st;
  if ((st = oxp_shape_infer(&p)) || (st = oxp_onnx_peephole(&p))) return st;
  if (o->constant_folding) {
    if ((st = oxp_const_fold(&p))) return st;
    cleanup(&p);
    if ((st = oxp_shape_infer(&p)) || (st = oxp_onnx_peephole(&p))) return st;
  }
  if ((st = oxp_broadcast_fix(&p))) return st;
  cleanup(&p);
  /* Dedup first: merged constants make more nodes identical for CSE. */
  if ((st = oxp_dedup_inits(&p)) || (st = oxp_onnx_cse(&p))) return st;
  cleanup(&p);
  return oxp_shape_infer(&p);
}
