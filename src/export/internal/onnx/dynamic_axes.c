/* dynamic_axes.c: declared dynamic axes (--dynamic-axes, dynamic_axes)
 * become dim_params. They are marked in two steps of the pipeline,
 * because the two ends of the graph are named at different times:
 *
 *   before lowering   the user inputs (found by their names after
 *                     --input-names), so that no symbolic reads a traced
 *                     size of a dynamic axis and lowering copies the
 *                     dim_param onto the ONNX input;
 *   after renaming    the outputs named directly (inference carries the
 *                     names to the rest), and every name checked: one that
 *                     names no graph input or output is an error. */
#include <string.h>

#include "passes.h"

static oxp_status out_of_range(oxp_diag *d, const oxp_dyn_axis *ax) {
  return oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                  "dynamic axis %d of '%s' is out of range", ax->axis,
                  ax->input);
}

/* Axis ax of v's tensor type becomes the dim_param ax->param, on a copy
 * when copy is set (a type that may be shared). */
static oxp_status mark(oxp_graph *g, oxp_value *v, const oxp_dyn_axis *ax,
                       bool copy, oxp_diag *d) {
  oxp_type *t = v->type;
  if (!t || t->kind != OXP_T_TENSOR || ax->axis < 0 || ax->axis >= t->rank)
    return out_of_range(d, ax);
  if (copy && !(t = v->type = oxp_type_copy(g->arena, t)))
    return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  if (!t->dim_params) {
    t->dim_params = oxp_alloc(g->arena, sizeof(char *) * (size_t)t->rank);
    if (!t->dim_params) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  }
  t->dim_params[ax->axis] = oxp_strdup(g->arena, ax->param);
  t->dims[ax->axis] = -1;
  return OXP_OK;
}

oxp_status oxp_jit_dynamic_axes(oxp_graph *g, const oxp_options *o,
                                oxp_diag *d) {
  oxp_block *top = g->top;
  for (int k = 0; k < o->n_dynamic_axes; k++) {
    const oxp_dyn_axis *ax = &o->dynamic_axes[k];
    for (int i = 0, user = 0; i < top->ninputs; i++) {
      oxp_value *s = top->inputs[i];
      if (s->init) continue;
      const char *name = user < o->n_input_names ? o->input_names[user] : s->name;
      user++;
      if (!name || strcmp(name, ax->input) != 0) continue;
      oxp_status st = mark(g, s, ax, true, d);
      if (st) return st;
    }
  }
  return OXP_OK;
}

oxp_status oxp_onnx_dynamic_axes(oxp_pass *p) {
  oxp_block *top = p->g->top;
  const oxp_options *o = p->o;
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
      return oxp_fail(p->d, OXP_ERR_USAGE, NULL, NULL,
                      "dynamic axis names '%s', which is no graph input or output",
                      ax->input);
    oxp_status st = mark(p->g, v, ax, false, p->d);
    if (st) return st;
  }
  return OXP_OK;
}
