/* output_types.c: the last check before naming and serializing. A graph
 * output whose dtype no pass could establish would be written as a
 * tensor type without elem_type, which onnx.checker and onnxruntime
 * refuse (a scripted tensordot came out so: difftest tensordot-script-
 * type). The exporter never guesses one, so this is a located error at
 * the node that makes the output, naming its op. */
#include "passes.h"

oxp_status oxp_onnx_output_types(oxp_pass *p) {
  oxp_block *top = p->g->top;
  for (int i = 0; i < top->noutputs; i++) {
    const oxp_value *v = top->outputs[i];
    if (v->type && v->type->kind == OXP_T_TENSOR && v->type->dtype) continue;
    if (v->type && v->type->kind != OXP_T_TENSOR) continue; /* not a tensor: left as it is */
    const oxp_node *n = v->producer;
    return oxp_fail(p->d, OXP_ERR_UNSUPPORTED, n ? &n->loc : NULL, n ? n->kind : NULL,
                    "graph output %d (%%%s) has no known dtype: no rule gives the "
                    "dtype of what %s makes here", i, v->name ? v->name : "?",
                    n ? n->kind : "its producer");
  }
  return OXP_OK;
}
