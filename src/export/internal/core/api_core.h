/* api_core.h: the small pieces of core the public API needs beyond the
 * export pipeline: a per-thread "an export is running" flag (backs
 * is_in_onnx_export) and a structural check of a serialized model (backs
 * verification). Private: only the public shims include it. */
#ifndef OXP_API_CORE_H
#define OXP_API_CORE_H

#include "oxp.h"

/* Brackets one export on the calling thread; nests. */
void oxp_export_enter(void);
void oxp_export_leave(void);
/* Is an export running on the calling thread? */
bool oxp_in_export(void);

/* What oxp_check_model read back from a ModelProto. Everything lives in
 * arena, which the caller frees with oxp_arena_free. */
typedef struct {
  const char *domain; /* "" for the default domain */
  int64_t version;
} oxp_info_opset;

typedef struct {
  oxp_arena *arena;
  int64_t ir_version;
  oxp_info_opset *opsets;
  int nopsets;
  const char **inputs, **outputs, **node_ops;
  int ninputs, noutputs, nnodes, ninits;
} oxp_model_info;

/* Parses len bytes as an onnx.ModelProto and checks what a loader needs
 * first: a graph, an ir_version, versions on every opset import, and an
 * import for every node's domain (subgraphs included). */
oxp_status oxp_check_model(const void *buf, size_t len, oxp_model_info **out,
                           oxp_diag *d);
void oxp_model_info_free(oxp_model_info *m);

#endif
