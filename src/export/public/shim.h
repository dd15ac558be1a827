/* shim.h: what the public shims share. The public handles are the core's
 * own objects under opaque names (onnxexp_node is an oxp_node, ...); only
 * the diag and the graph carry a little more. Private: never installed. */
#ifndef ONNXEXP_SHIM_H
#define ONNXEXP_SHIM_H

#include <onnxexp/onnxexp.h>

#include "../internal/export.h"
#include "../internal/core/api_core.h"
#include "../../symbolic/sym.h"

struct onnxexp_diag {
  oxp_diag d;
  char source_file[256]; /* from the failing IR line's "# file:line:col" */
  int source_line;
};

/* A built graph, its arena, and the weights attached to it (a
 * safetensors set made by hand; its index is built when it is used). */
struct onnxexp_graph {
  oxp_arena *arena;
  oxp_graph *g;
  oxp_st_entry *weights;
  int nweights, capweights;
  bool consumed; /* an export ran on it */
};

/* The diag a call records into: the caller's, cleared, or a scratch one
 * (the core always wants somewhere to write). */
static inline oxp_diag *oxp_shim_diag(onnxexp_diag *pub, oxp_diag *scratch) {
  oxp_diag *d = pub ? &pub->d : scratch;
  oxp_diag_clear(d);
  if (pub) pub->source_file[0] = 0, pub->source_line = 0;
  return d;
}

/* The standard usage error for a NULL argument of fn. */
static inline onnxexp_status oxp_shim_null(oxp_diag *d, const char *fn,
                                           const char *arg) {
  return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                                  "%s: %s must not be NULL", fn, arg);
}

/* Builds a TorchScript type from the public description (builder.c). */
oxp_type *oxp_shim_type(oxp_arena *a, onnxexp_type_kind kind,
                        onnxexp_dtype dtype, int rank, const int64_t *dims,
                        const char *fn, oxp_diag *d);
/* Is dt a dtype a tensor can hold (known, fixed size)? */
bool oxp_shim_dtype_ok(int dt);

/* The tensors of w as a safetensors set in arena a, for one export
 * (weights.c); data stays borrowed. */
onnxexp_status oxp_shim_weights_set(const onnxexp_weights *w, oxp_arena *a,
                                    oxp_safetensors **out, oxp_diag *d);

#endif
