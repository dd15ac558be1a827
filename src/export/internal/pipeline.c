/* pipeline.c: the export pipeline in order (DESIGN.md, "Data flow"):
 * parse, bind weights, JIT passes on the TorchScript graph, lowering,
 * ONNX passes. Serialization is the caller's choice of sink. */
#include <string.h>

#include "export.h"
#include "passes.h"

void oxp_options_init(oxp_options *o) {
  memset(o, 0, sizeof *o);
  o->opset = OXP_OPSET_DEFAULT;
  o->constant_folding = true;
  o->export_params = true;
  o->strip_doc_string = true;
}

/* What a step returns, unless an allocation failed on the way: then it
 * is out of memory whatever the step said. Setters that return nothing
 * and the parts that cope with a missing extra leave a failure only in
 * the arena, and a graph with a piece missing must not be exported. */
static oxp_status step(const oxp_graph *g, oxp_status st, oxp_diag *d) {
  return oxp_arena_failed(g->arena) ? oxp_fail_nomem(d) : st;
}

/* In the order torch's _model_to_graph runs its equivalents: in-place
 * ops first (they hide data flow from everything else), then the types
 * a scripted graph leaves out (every later pass reads them), sizes and
 * constants before tuple lowering so unpacked size lists vanish, DCE
 * last to drop what the others left unused. */
static oxp_status jit_passes(oxp_graph *g, const oxp_options *o,
                             oxp_diag *d) {
  oxp_status st;
  if ((st = step(g, oxp_jit_functionalize(g, d), d)) ||
      (st = step(g, oxp_jit_infer_types(g, o, d), d)) ||
      (st = step(g, oxp_jit_peephole_size(g, o, d), d)) ||
      (st = step(g, oxp_jit_constprop(g, d), d)) ||
      (st = step(g, oxp_jit_lower_tuples(g, d), d)) ||
      (st = step(g, oxp_jit_constprop(g, d), d)) ||
      (st = step(g, oxp_type_promotion(g, d), d)))
    return st;
  return step(g, oxp_jit_dce(g, d), d);
}

oxp_status oxp_export_from_graph(oxp_graph *g, const oxp_safetensors *weights,
                                 const oxp_options *o, oxp_graph **onnx,
                                 oxp_diag *d) {
  oxp_status st = step(g, oxp_bind_weights(g, weights, o->warn, o->warn_user, d), d);
  if (st) return st;
  if ((st = jit_passes(g, o, d))) return st;
  if ((st = step(g, oxp_lower(g, o, onnx, d), d))) return st;
  return step(g, oxp_onnx_passes(*onnx, o, d), d);
}

oxp_status oxp_export_graph(oxp_arena *a, const char *file, const char *text,
                            size_t len, const oxp_safetensors *weights,
                            const oxp_options *o, oxp_graph **onnx,
                            oxp_diag *d) {
  oxp_graph *g = NULL;
  oxp_status st = oxp_parse_ir(a, file, text, len, &g, d);
  if (oxp_arena_failed(a)) return oxp_fail_nomem(d);
  if (st) return st;
  return oxp_export_from_graph(g, weights, o, onnx, d);
}
