/* onnxexp/weights.h: weights bound from memory.
 *
 * A frontend that already holds the tensors (the Python package holds
 * torch's parameters) hands them to an export by name, dtype, shape and
 * pointer, with no safetensors file and no copy: set the set as
 * onnxexp_options.weights. Each tensor binds exactly as a safetensors
 * entry of the same name would: to the graph input of that name (it
 * becomes an initializer), or, named "constant:NAME", to the data of the
 * tensor constant %NAME. */
#ifndef ONNXEXP_WEIGHTS_H
#define ONNXEXP_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

#include <onnxexp/api.h>
#include <onnxexp/diag.h>
#include <onnxexp/types.h>

ONNXEXP_BEGIN_DECLS

/* Creates an empty set into *out; free it with onnxexp_weights_free. */
ONNXEXP_API onnxexp_status onnxexp_weights_create(onnxexp_weights **out,
                                                  onnxexp_diag *diag);
/* Frees a set (not the tensor data, which it never owned); NULL is
 * allowed. */
ONNXEXP_API void onnxexp_weights_free(onnxexp_weights *w);
/* Adds the tensor `name`: dense, row-major, little-endian data of nbytes
 * bytes (numel * element size; rank 0 is a scalar; data may be NULL only
 * when nbytes is 0). The name and dims are copied; data is borrowed, not
 * copied: keep it alive and unchanged until the last export that uses the
 * set returns. A name already in the set is ONNXEXP_ERR_USAGE. */
ONNXEXP_API onnxexp_status onnxexp_weights_add(onnxexp_weights *w,
                                               const char *name,
                                               onnxexp_dtype dtype, int rank,
                                               const int64_t *dims,
                                               const void *data,
                                               size_t nbytes,
                                               onnxexp_diag *diag);
/* The number of tensors in the set (0 for NULL). */
ONNXEXP_API int onnxexp_weights_count(const onnxexp_weights *w);

ONNXEXP_END_DECLS

#endif
