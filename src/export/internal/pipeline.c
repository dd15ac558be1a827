/* pipeline.c: the export pipeline in order: parse, bind weights, JIT
 * passes, lower, ONNX passes. Serialization is the caller's choice of
 * sink. */
#include <string.h>

#include "export.h"

void oxp_options_init(oxp_options *o) {
  memset(o, 0, sizeof *o);
  o->opset = OXP_OPSET_DEFAULT;
  o->constant_folding = true;
  o->export_params = true;
  o->strip_doc_string = true;
}

oxp_status oxp_export_from_graph(oxp_graph *g, const oxp_safetensors *weights,
                                 const oxp_options *o, oxp_graph **onnx,
                                 oxp_diag *d) {
  oxp_status st = oxp_bind_weights(g, weights, o->warn, o->warn_user, d);
  if (st) return st;
  if ((st = oxp_lower(g, o, onnx, d))) return st;
  return oxp_onnx_passes(*onnx, o, d);
}

oxp_status oxp_export_graph(oxp_arena *a, const char *file, const char *text,
                            size_t len, const oxp_safetensors *weights,
                            const oxp_options *o, oxp_graph **onnx,
                            oxp_diag *d) {
  oxp_graph *g = NULL;
  oxp_status st = oxp_parse_ir(a, file, text, len, &g, d);
  if (st) return st;
  return oxp_export_from_graph(g, weights, o, onnx, d);
}
