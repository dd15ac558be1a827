/* weights.c: tensors bound from memory (onnxexp/weights.h). The set keeps
 * names and dims in its own arena and borrows the data; each export turns
 * it into a safetensors set in the export's arena, so a set can serve
 * several exports, also at once on different threads. */
#include <string.h>

#include "shim.h"

struct onnxexp_weights {
  oxp_arena *arena;
  oxp_st_entry *entries;
  int n, cap;
  oxp_map names; /* name -> entry index + 1: refuses duplicates */
};

static onnxexp_status nomem(oxp_diag *d) {
  return (onnxexp_status)oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
}

static onnxexp_status usage(oxp_diag *d, const char *name, const char *what) {
  return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                                  "onnxexp_weights_add: '%s': %s",
                                  name ? name : "(null)", what);
}

onnxexp_status onnxexp_weights_create(onnxexp_weights **out, onnxexp_diag *diag) {
  oxp_diag scratch, *d = oxp_shim_diag(diag, &scratch);
  if (!out) return oxp_shim_null(d, "onnxexp_weights_create", "out");
  *out = NULL;
  oxp_arena *a = oxp_arena_new();
  onnxexp_weights *w = a ? oxp_alloc(a, sizeof *w) : NULL;
  if (!w) {
    oxp_arena_free(a);
    return nomem(d);
  }
  w->arena = a;
  oxp_map_init(&w->names, a);
  *out = w;
  return ONNXEXP_OK;
}

void onnxexp_weights_free(onnxexp_weights *w) {
  if (w) oxp_arena_free(w->arena);
}

int onnxexp_weights_count(const onnxexp_weights *w) { return w ? w->n : 0; }

/* numel * element size of a shape, checked for overflow: false when the
 * shape is bad or its bytes do not fit in a size_t. */
static bool shape_bytes(int dtype, int rank, const int64_t *dims, uint64_t *bytes) {
  if (rank < 0 || rank > OXP_MAX_TYPE_RANK || (rank > 0 && !dims)) return false;
  uint64_t n = (uint64_t)oxp_dtype_size(dtype);
  bool zero = false;
  for (int i = 0; i < rank; i++) {
    if (dims[i] < 0) return false;
    if (dims[i] == 0) zero = true;
    else if (!zero && n > UINT64_MAX / (uint64_t)dims[i]) return false;
    else if (!zero) n *= (uint64_t)dims[i];
  }
  *bytes = zero ? 0 : n;
  return *bytes <= SIZE_MAX;
}

onnxexp_status onnxexp_weights_add(onnxexp_weights *w, const char *name,
                                   onnxexp_dtype dtype, int rank,
                                   const int64_t *dims, const void *data,
                                   size_t nbytes, onnxexp_diag *diag) {
  oxp_diag scratch, *d = oxp_shim_diag(diag, &scratch);
  if (!w) return oxp_shim_null(d, "onnxexp_weights_add", "weights");
  if (!name || !*name)
    return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                                    "onnxexp_weights_add: a tensor needs a name");
  if (!oxp_shim_dtype_ok(dtype)) return usage(d, name, "dtype is not a known tensor element type");
  uint64_t want;
  if (!shape_bytes(dtype, rank, dims, &want))
    return usage(d, name, "rank must be 0..64 with rank dims, each >= 0, "
                          "and the tensor must fit in memory");
  if (want != nbytes || (nbytes && !data)) {
    char shape[256];
    oxp_dims_print(dims, rank, shape, sizeof shape);
    return (onnxexp_status)oxp_fail(
        d, OXP_ERR_USAGE, NULL, NULL,
        "onnxexp_weights_add: '%s': %zu bytes of data%s for shape %s of %s "
        "(%llu bytes)", name, nbytes, nbytes && !data ? " at NULL" : "",
        shape, oxp_dtype_name(dtype), (unsigned long long)want);
  }
  if (oxp_map_get(&w->names, name))
    return usage(d, name, "the set already holds a tensor of that name");
  if (w->n == w->cap) {
    int nc = w->cap ? w->cap * 2 : 16;
    oxp_st_entry *ne = oxp_realloc(w->arena, w->entries, sizeof *ne * (size_t)w->cap,
                                   sizeof *ne * (size_t)nc);
    if (!ne) return nomem(d);
    w->entries = ne;
    w->cap = nc;
  }
  oxp_st_entry *e = &w->entries[w->n];
  oxp_tensor *t = oxp_tensor_new(w->arena, dtype, rank, dims, data, nbytes);
  if (!t || !(e->name = oxp_strdup(w->arena, name))) return nomem(d);
  e->t = *t;
  if (!oxp_map_put(&w->names, e->name, (void *)(intptr_t)(w->n + 1))) return nomem(d);
  w->n++;
  return ONNXEXP_OK;
}

onnxexp_status oxp_shim_weights_set(const onnxexp_weights *w, oxp_arena *a,
                                    oxp_safetensors **out, oxp_diag *d) {
  oxp_safetensors *st = oxp_alloc(a, sizeof *st);
  if (!st) return nomem(d);
  /* No file behind the bytes: src_path stays NULL, so external data in
   * reference mode cannot point at them (as with weights_data). */
  st->path = "the weights in memory";
  st->entries = w->entries;
  st->nentries = w->n;
  oxp_map_init(&st->index, a);
  for (int i = 0; i < w->n; i++)
    if (!oxp_map_put(&st->index, w->entries[i].name, &w->entries[i])) return nomem(d);
  *out = st;
  return ONNXEXP_OK;
}
