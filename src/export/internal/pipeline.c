/* pipeline.c: the whole export in order (DESIGN.md, "Data flow"), one
 * step per line, as QBE's main.c lists its passes: parse, bind weights,
 * the JIT passes on the TorchScript graph, lowering, the ONNX passes and
 * the analyses between them, naming. Serialization is the caller's choice
 * of sink (write.c, serialize.c, pretty.c). Every pass lives in a file of
 * its own and none calls another; only this file knows the order. */
#include <string.h>

#include "export.h"
#include "passes.h"
#include "serialize.h"

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
static oxp_status checked(const oxp_graph *g, oxp_status st, oxp_diag *d) {
  return oxp_arena_failed(g->arena) ? oxp_fail_nomem(d) : st;
}

/* One step of the list: its status, or the arena's failure, ends the
 * export. Every graph of one export shares one arena. */
#define STEP(call)                                            \
  do {                                                        \
    oxp_status step_st_ = checked(g, (call), d);              \
    if (step_st_) return step_st_;                            \
  } while (0)

/* The JIT passes run in the order torch's _model_to_graph runs their
 * equivalents: in-place ops first (they hide data flow from everything
 * else), then the types a scripted graph leaves out (every later pass
 * reads them), sizes and constants before tuple lowering so unpacked
 * size lists vanish, DCE last to drop what the others left unused.
 * Dynamic input axes are marked just before lowering, so no symbolic
 * reads a traced size of one (dynamic_axes.c; outputs come after
 * renaming).
 *
 * The ONNX passes: the user's interface first (names, then the dynamic
 * axes that use them); shape inference gives the peephole and the folder
 * types; the peephole runs before folding, so Gemm takes transB from a
 * weight's Transpose instead of a folded copy, and again after, since
 * folding exposes no-op Reshapes and Casts; Expand for one-way
 * broadcasts; dedup before CSE, since merged constants make more nodes
 * identical; final shape inference for value_info; DCE after every pass
 * that leaves dead code. */
oxp_status oxp_export_from_graph(oxp_graph *g, const oxp_safetensors *weights,
                                 const oxp_options *o, oxp_graph **onnx,
                                 oxp_diag *d) {
  STEP(oxp_bind_weights(g, weights, o->warn, o->warn_user, d));

  STEP(oxp_jit_functionalize(g, o, d));
  STEP(oxp_jit_infer_types(g, o, d));
  STEP(oxp_jit_peephole_size(g, o, d));
  STEP(oxp_jit_constprop(g, d));
  STEP(oxp_jit_lower_tuples(g, d));
  STEP(oxp_jit_constprop(g, d));
  STEP(oxp_type_promotion(g, d));
  STEP(oxp_jit_dce(g, d));

  STEP(oxp_jit_dynamic_axes(g, o, d));

  oxp_graph *x = NULL;
  STEP(oxp_lower(g, o, &x, d));
  STEP(oxp_control_types(x, o, d));

  oxp_pass p;
  STEP(oxp_pass_init(&p, x, o, d));
  STEP(oxp_onnx_dce(&p));
  STEP(oxp_onnx_io_names(&p));
  STEP(oxp_onnx_dynamic_axes(&p));
  STEP(oxp_shape_infer(&p));
  STEP(oxp_onnx_peephole(&p));
  if (o->constant_folding) {
    STEP(oxp_const_fold(&p));
    STEP(oxp_onnx_dce(&p));
    STEP(oxp_shape_infer(&p));
    STEP(oxp_onnx_peephole(&p));
  }
  STEP(oxp_broadcast_fix(&p));
  STEP(oxp_onnx_dce(&p));
  STEP(oxp_dedup_inits(&p));
  STEP(oxp_onnx_cse(&p));
  STEP(oxp_onnx_dce(&p));
  STEP(oxp_shape_infer(&p));
  STEP(oxp_onnx_output_types(&p));
  STEP(oxp_assign_names(x, d));
  x->named = true;

  *onnx = x;
  return OXP_OK;
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
