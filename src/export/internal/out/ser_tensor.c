/* ser_tensor.c: oxp_tensor -> TensorProto, for initializers and tensor
 * attributes alike.
 *
 * Inline, raw_data borrows t->data: the packer hands that pointer straight
 * to the sink, so weights go from the safetensors mmap to the file without
 * a copy. With external data (w->ext) the writer's oxp_ext decides per
 * tensor; an external one gets data_location EXTERNAL and the entries
 * location, offset, length (in that order, as onnx writes them) instead of
 * raw_data. Nothing else in the serializer knows the difference.
 *
 * A lazy tensor (a folded transpose, tensor_bytes.c) has no bytes to borrow
 * until they are made; inline, its raw_data points at the tensor itself
 * and is listed in w->lazy, so packing can make the bytes a chunk at a
 * time as it streams (serialize.c). */
#include <stdlib.h>
#include <string.h>

#include "serialize.h"
#include "onnx/onnx.pb-c.h"

static oxp_status nomem(oxp_tensor_writer *w) {
  return oxp_fail(w->d, OXP_ERR_NOMEM, NULL, NULL,
                  "out of memory while serializing a tensor");
}

/* Everything the packer will trust: a shape that matches the byte count,
 * so a truncated weight never produces a model that loads wrong. */
static oxp_status check(oxp_tensor_writer *w, const oxp_tensor *t,
                        const char *name) {
  const char *nm = name ? name : "<attribute>";
  size_t es = oxp_dtype_size(t->dtype);
  if (t->dtype == OXP_DT_STRING)
    return oxp_fail(w->d, OXP_ERR_UNSUPPORTED, NULL, NULL,
                    "tensor %s: string tensors cannot be serialized", nm);
  if (es == 0 || t->dtype <= OXP_DT_UNDEFINED || t->dtype >= OXP_DT_COUNT)
    return oxp_fail(w->d, OXP_ERR_INTERNAL, NULL, NULL,
                    "tensor %s: unknown dtype %d", nm, t->dtype);
  if (t->rank < 0 || (t->rank > 0 && !t->dims))
    return oxp_fail(w->d, OXP_ERR_INTERNAL, NULL, NULL,
                    "tensor %s: no shape", nm);
  /* Counted in bytes with an overflow guard: a negative or absurd dim must
   * fail here, not wrap into a plausible size. */
  uint64_t bytes = es;
  for (int i = 0; i < t->rank; i++) {
    if (t->dims[i] < 0 ||
        (t->dims[i] && bytes > UINT64_MAX / (uint64_t)t->dims[i]))
      return oxp_fail(w->d, OXP_ERR_INTERNAL, NULL, NULL,
                      "tensor %s: bad dim %lld", nm, (long long)t->dims[i]);
    bytes *= (uint64_t)t->dims[i];
  }
  if (bytes != t->nbytes)
    return oxp_fail(w->d, OXP_ERR_INTERNAL, NULL, NULL,
                    "tensor %s: %zu bytes do not match its shape (%llu "
                    "bytes of %s)",
                    nm, t->nbytes, (unsigned long long)bytes,
                    oxp_dtype_name(t->dtype));
  if (t->nbytes && !oxp_tensor_has_bytes(t))
    return oxp_fail(w->d, OXP_ERR_INTERNAL, NULL, NULL,
                    "tensor %s: no data", nm);
  return OXP_OK;
}

static Onnx__StringStringEntryProto *entry(oxp_arena *a, const char *key,
                                           const char *value) {
  Onnx__StringStringEntryProto *e = oxp_alloc(a, sizeof *e);
  if (!e) return NULL;
  onnx__string_string_entry_proto__init(e);
  e->key = (char *)(uintptr_t)key;
  e->value = (char *)(uintptr_t)value;
  return e;
}

static oxp_status set_external(oxp_tensor_writer *w, Onnx__TensorProto *tp,
                               const char *loc, uint64_t off, size_t len,
                               Onnx__TensorProto **out) {
  Onnx__StringStringEntryProto **v = oxp_alloc(w->arena, 3 * sizeof *v);
  char *so = oxp_sprintf(w->arena, "%llu", (unsigned long long)off);
  char *sl = oxp_sprintf(w->arena, "%zu", len);
  if (!v || !so || !sl || !(v[0] = entry(w->arena, "location", loc)) ||
      !(v[1] = entry(w->arena, "offset", so)) ||
      !(v[2] = entry(w->arena, "length", sl)))
    return nomem(w);
  tp->n_external_data = 3;
  tp->external_data = v;
  tp->has_data_location = 1;
  tp->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
  *out = tp;
  return OXP_OK;
}

/* ---- lazy tensors inline ------------------------------------------------ */

static int by_addr(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)*(const oxp_tensor *const *)a;
  uintptr_t y = (uintptr_t)*(const oxp_tensor *const *)b;
  return x < y ? -1 : x > y;
}

void oxp_lazy_refs_seal(oxp_lazy_refs *r) {
  if (r && r->n > 1) qsort(r->v, r->n, sizeof *r->v, by_addr);
}

const oxp_tensor *oxp_lazy_refs_find(const oxp_lazy_refs *r, const void *p,
                                     size_t n) {
  if (!r || !r->n) return NULL;
  const oxp_tensor *key = p;
  const oxp_tensor *const *hit =
      bsearch(&key, r->v, r->n, sizeof *r->v, by_addr);
  return hit && (*hit)->nbytes == n ? *hit : NULL;
}

static bool list_lazy(oxp_tensor_writer *w, const oxp_tensor *t) {
  oxp_lazy_refs *r = w->lazy;
  if (r->n == r->cap) {
    size_t nc = r->cap ? r->cap * 2 : 16;
    void *v = oxp_realloc(w->arena, r->v, sizeof *r->v * r->cap,
                          sizeof *r->v * nc);
    if (!v) return false;
    r->v = v;
    r->cap = nc;
  }
  r->v[r->n++] = t;
  return true;
}

/* What raw_data borrows: the bytes, or for a lazy tensor a placeholder
 * that packing recognizes (or, with nowhere to list it, the bytes made). */
static const void *raw_bytes(oxp_tensor_writer *w, const oxp_tensor *t) {
  if (!oxp_tensor_is_lazy(t)) return t->data;
  if (!w->lazy) return oxp_tensor_data(t);
  return list_lazy(w, t) ? (const void *)t : NULL;
}

oxp_status oxp_ser_tensor(oxp_tensor_writer *w, const oxp_tensor *t,
                          const char *name, Onnx__TensorProto **out) {
  *out = NULL;
  oxp_status st = check(w, t, name);
  if (st) return st;
  bool external = false;
  const char *loc = NULL;
  uint64_t off = 0;
  if ((st = oxp_ext_place(w->ext, t, &external, &loc, &off, w->d))) return st;

  Onnx__TensorProto *tp = oxp_alloc(w->arena, sizeof *tp);
  if (!tp) return nomem(w);
  onnx__tensor_proto__init(tp);
  tp->has_data_type = 1;
  tp->data_type = t->dtype; /* OXP_DT_* are numbered as DataType */
  tp->n_dims = (size_t)t->rank;
  tp->dims = t->rank > 0 ? t->dims : NULL;
  if (name) {
    tp->name = oxp_strdup(w->arena, name);
    if (!tp->name) return nomem(w);
  }
  if (external) return set_external(w, tp, loc, off, t->nbytes, out);
  const void *raw = raw_bytes(w, t);
  if (!raw && t->nbytes) return nomem(w);
  tp->has_raw_data = 1;
  tp->raw_data.len = t->nbytes;
  /* protobuf-c never writes through it; the cast only drops const. */
  tp->raw_data.data = (uint8_t *)(uintptr_t)raw;
  *out = tp;
  return OXP_OK;
}
