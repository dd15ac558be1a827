/* onnxexp/verification.h: what survives of torch.onnx.verification.
 *
 * torch's deprecated verify/find_mismatch ran a model in torch and in
 * onnxruntime and compared the outputs; that lives in the round-trip
 * tooling under tests/roundtrip (see compat/NOTES.md). This header keeps
 * only a structural check of an exported model: it parses as an ONNX
 * ModelProto, and its ir_version, opset imports, graph inputs and outputs
 * can be read back. It is not onnx.checker and runs nothing. */
#ifndef ONNXEXP_VERIFICATION_H
#define ONNXEXP_VERIFICATION_H

#include <stddef.h>
#include <stdint.h>

#include <onnxexp/api.h>
#include <onnxexp/diag.h>

ONNXEXP_BEGIN_DECLS

typedef struct onnxexp_model_info onnxexp_model_info;

/* Parses len bytes of a serialized model; fails (ONNXEXP_ERR_GRAPH) when
 * they are no ModelProto, it has no graph or no ir_version, an opset
 * import lacks a version, or a node uses a domain the model does not
 * import. Bytes nesting messages more than 512 deep, or subgraphs more
 * than 64, are refused by name before anything recurses over them, so
 * hostile input cannot exhaust the stack. *out (may be NULL) receives
 * what was read. */
ONNXEXP_API onnxexp_status onnxexp_check_model(const void *buf, size_t len,
                                               onnxexp_model_info **out,
                                               onnxexp_diag *diag);
/* Frees what onnxexp_check_model returned; NULL is allowed. */
ONNXEXP_API void onnxexp_model_info_free(onnxexp_model_info *m);
/* The model's ir_version. */
ONNXEXP_API int64_t onnxexp_model_info_ir_version(const onnxexp_model_info *m);
/* The imported version of domain ("" or "ai.onnx": the default one), or
 * -1 when it is not imported. */
ONNXEXP_API int64_t onnxexp_model_info_opset(const onnxexp_model_info *m,
                                             const char *domain);
/* Number of graph inputs (initializers listed as inputs included). */
ONNXEXP_API int onnxexp_model_info_num_inputs(const onnxexp_model_info *m);
/* Name of graph input i, NULL past the end. */
ONNXEXP_API const char *onnxexp_model_info_input(const onnxexp_model_info *m,
                                                 int i);
/* Number of graph outputs. */
ONNXEXP_API int onnxexp_model_info_num_outputs(const onnxexp_model_info *m);
/* Name of graph output i, NULL past the end. */
ONNXEXP_API const char *onnxexp_model_info_output(const onnxexp_model_info *m,
                                                  int i);
/* Number of nodes of the main graph (not counting subgraphs). */
ONNXEXP_API int onnxexp_model_info_num_nodes(const onnxexp_model_info *m);
/* Op type of main-graph node i ("Gemm"), NULL past the end. */
ONNXEXP_API const char *onnxexp_model_info_node_op(const onnxexp_model_info *m,
                                                   int i);
/* Number of initializers of the main graph. */
ONNXEXP_API int onnxexp_model_info_num_initializers(
    const onnxexp_model_info *m);

ONNXEXP_END_DECLS

#endif
