/* onnx_io_names.c: --input-names and --output-names on the lowered
 * graph (dynamic axes, which use these names, are dynamic_axes.c). */
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
