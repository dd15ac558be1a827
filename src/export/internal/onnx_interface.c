/* onnx_interface.c: the graph's interface as the user asked for it, on
 * the lowered graph: input and output names, then dynamic axes (which
 * name inputs and outputs by those names). */
#include <string.h>

#include "passes.h"

/* --input-names / --output-names: user inputs (weights are no user
 * inputs) and outputs take the given names in order. */
oxp_status oxp_onnx_io_names(oxp_pass *p) {
  oxp_graph *g = p->g;
  const oxp_options *o = p->o;
  oxp_diag *d = p->d;
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
oxp_status oxp_onnx_dynamic_axes(oxp_pass *p) {
  oxp_graph *g = p->g;
  const oxp_options *o = p->o;
  oxp_diag *d = p->d;
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
