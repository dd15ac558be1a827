/* pass_util.c: what every ONNX pass shares (passes.h, "shared pass
 * context"): the marks of block outputs, what counts as a constant,
 * making initializers, bypassing a node without losing an output's name.
 * Passes call these; these call no pass, so the passes depend on this
 * file and never on each other or on the pipeline that orders them. */
#include <string.h>

#include "passes.h"

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
