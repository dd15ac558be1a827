/* tensor_bytes.c: every read of a tensor's bytes (elements, ranges,
 * chunks, the whole), and giving a mapped tensor's pages back; the same
 * calls serve plain tensors and lazy ones.
 *
 * A lazy tensor is a folded tensor that only moves another tensor's bytes,
 * kept as a recipe ("S with its dims permuted by P") instead of a copy.
 *
 * aten::linear on a 3-D input lowers to MatMul(x, Transpose(W)), and the
 * folder turns each Transpose of a weight into a constant. Made eagerly,
 * every such weight was copied into the arena and stayed there until the
 * writer wrote it, so resident memory grew with the weights although the
 * weights themselves (the safetensors mmap) go to the output through the
 * kernel and never become resident. A lazy tensor has no data; its bytes
 * are made where they are read:
 *  - by the writer, a chunk at a time into one reusable buffer, the
 *    source's pages given back after each chunk (oxp_tensor_produce);
 *  - by readers of a few elements (the getters, the dedup's samples), in
 *    place (oxp_lazy_elem, oxp_tensor_read);
 *  - by an evaluator that needs all of it, once, in the arena
 *    (oxp_tensor_data).
 * Every way yields the eager transpose's bytes, element for element. */
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <unistd.h>

#include "oxp.h"

/* Output bytes made per chunk: large enough that a write(2) per chunk is
 * noise, small enough to be no factor in resident memory. A multiple of
 * every element size. */
enum { CHUNK = 4 << 20, MAX_ES = 16 };

struct oxp_lazy {
  const oxp_tensor *src; /* has data */
  oxp_arena *a;          /* where oxp_tensor_data makes the bytes */
  const void *made;      /* those bytes, once made */
  size_t es;
  int rank;
  int64_t d[OXP_MAX_SHAPE_RANK];  /* dims after the permutation */
  int64_t st[OXP_MAX_SHAPE_RANK]; /* the source's stride (elements) along each */
};

oxp_tensor *oxp_lazy_transpose(oxp_arena *a, const oxp_tensor *x,
                               const int64_t *perm) {
  size_t es = oxp_dtype_size(x->dtype);
  if (!x->data || x->rank > OXP_MAX_SHAPE_RANK || es == 0 || es > MAX_ES ||
      x->dtype == OXP_DT_STRING)
    return NULL;
  bool seen[OXP_MAX_SHAPE_RANK] = {0};
  for (int k = 0; k < x->rank; k++) {
    if (perm[k] < 0 || perm[k] >= x->rank || seen[perm[k]]) return NULL;
    seen[perm[k]] = true;
  }
  oxp_lazy *z = oxp_alloc(a, sizeof *z);
  if (!z) return NULL;
  int64_t st[OXP_MAX_SHAPE_RANK], s = 1;
  for (int i = x->rank - 1; i >= 0; i--) st[i] = s, s *= x->dims[i];
  *z = (oxp_lazy){.src = x, .a = a, .es = es, .rank = x->rank};
  for (int k = 0; k < x->rank; k++) {
    z->d[k] = x->dims[perm[k]];
    z->st[k] = st[perm[k]];
  }
  oxp_tensor *t = oxp_tensor_new(a, x->dtype, x->rank, z->d, NULL, x->nbytes);
  if (t) t->lazy = z;
  return t;
}

/* The source offset (elements) of output element e, and e's index. */
static int64_t locate(const oxp_lazy *z, int64_t e, int64_t *idx) {
  int64_t off = 0;
  for (int k = z->rank - 1; k >= 0; k--) {
    idx[k] = e % z->d[k];
    e /= z->d[k];
    off += idx[k] * z->st[k];
  }
  return off;
}

/* Copies elements of one size through a fixed-size memcpy (a move). */
#define PRODUCE_LOOP(ES)                                                  \
  for (int64_t i = 0; i < cnt; i++) {                                     \
    memcpy(dst + (size_t)i * (ES), src + (size_t)off * (ES), (ES));       \
    for (int k = r - 1; k >= 0; k--) {                                    \
      off += z->st[k];                                                    \
      if (++idx[k] < z->d[k]) break;                                      \
      off -= z->st[k] * z->d[k];                                          \
      idx[k] = 0;                                                         \
    }                                                                     \
  }

/* Output elements [e, e + cnt) into dst: an odometer over the output
 * index, so each element costs an add, not a division per dim. */
static void produce(const oxp_lazy *z, int64_t e, int64_t cnt,
                    unsigned char *dst) {
  int64_t idx[OXP_MAX_SHAPE_RANK];
  int64_t off = locate(z, e, idx);
  int r = z->rank;
  const unsigned char *src = z->src->data;
  switch (z->es) {
  case 1: PRODUCE_LOOP(1) break;
  case 2: PRODUCE_LOOP(2) break;
  case 4: PRODUCE_LOOP(4) break;
  case 8: PRODUCE_LOOP(8) break;
  default: PRODUCE_LOOP(z->es) break;
  }
}

static const oxp_tensor *lazy_source(const oxp_tensor *t) {
  return t->lazy ? t->lazy->src : t;
}

void oxp_tensor_release(const oxp_tensor *t) {
  if (t && t->lazy) t = lazy_source(t); /* its bytes are the source's */
  if (!t || !t->src_path || !t->data || !t->nbytes) return;
  /* Only whole pages inside the tensor: neighbours may be in use. */
  uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t lo = ((uintptr_t)t->data + pg - 1) & ~(pg - 1);
  uintptr_t hi = ((uintptr_t)t->data + t->nbytes) & ~(pg - 1);
  if (hi > lo) madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

bool oxp_tensor_is_lazy(const oxp_tensor *t) {
  if (t->data || !t->lazy) return false;
  /* Made through a tensor sharing the recipe (a Reshape of this one). */
  if (t->lazy->made) ((oxp_tensor *)t)->data = t->lazy->made;
  return !t->data;
}

const void *oxp_tensor_data(const oxp_tensor *t) {
  if (!oxp_tensor_is_lazy(t)) return t->data;
  oxp_lazy *z = (oxp_lazy *)t->lazy; /* arena-owned, like t */
  unsigned char *p = oxp_alloc(z->a, t->nbytes);
  if (!p) return NULL;
  produce(z, 0, (int64_t)(t->nbytes / z->es), p);
  oxp_tensor_release(z->src);
  z->made = p;
  return ((oxp_tensor *)t)->data = p;
}

static const void *lazy_elem(const oxp_tensor *t, int64_t i) {
  const oxp_lazy *z = t->lazy;
  int64_t idx[OXP_MAX_SHAPE_RANK];
  return (const unsigned char *)z->src->data +
         (size_t)locate(z, i, idx) * z->es;
}

/* Half and bfloat16 widen by bit manipulation; no FPU support assumed. */
static double half_to_double(uint16_t h) {
  uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  uint32_t f;
  if (e == 0) {
    if (m == 0) f = s;
    else {
      e = 127 - 15 + 1;
      while (!(m & 0x400)) m <<= 1, e--;
      f = s | (e << 23) | ((m & 0x3ff) << 13);
    }
  } else if (e == 31) f = s | 0x7f800000u | (m << 13);
  else f = s | ((e + 127 - 15) << 23) | (m << 13);
  float out;
  memcpy(&out, &f, 4);
  return out;
}

/* Where element *i is read: data, or for a lazy tensor its source's
 * element (and *i becomes 0), read in place without making the tensor. */
static const unsigned char *elem_base(const oxp_tensor *t, int64_t *i) {
  if (t->data || !t->lazy) return t->data;
  const unsigned char *p = lazy_elem(t, *i);
  *i = 0;
  return p;
}

double oxp_tensor_get_f(const oxp_tensor *t, int64_t i) {
  int64_t j = i;
  const unsigned char *p = elem_base(t, &j);
  switch (t->dtype) {
  case OXP_DT_FLOAT: { float v; memcpy(&v, p + 4 * j, 4); return v; }
  case OXP_DT_DOUBLE: { double v; memcpy(&v, p + 8 * j, 8); return v; }
  case OXP_DT_FLOAT16: { uint16_t v; memcpy(&v, p + 2 * j, 2); return half_to_double(v); }
  case OXP_DT_BFLOAT16: {
    uint16_t v; memcpy(&v, p + 2 * j, 2);
    uint32_t f = (uint32_t)v << 16; float o; memcpy(&o, &f, 4); return o;
  }
  default: return (double)oxp_tensor_get_i(t, i);
  }
}

int64_t oxp_tensor_get_i(const oxp_tensor *t, int64_t i) {
  int64_t j = i;
  const unsigned char *p = elem_base(t, &j);
  switch (t->dtype) {
  case OXP_DT_UINT8: case OXP_DT_BOOL: return p[j];
  case OXP_DT_INT8: return (int8_t)p[j];
  case OXP_DT_INT16: { int16_t v; memcpy(&v, p + 2 * j, 2); return v; }
  case OXP_DT_UINT16: { uint16_t v; memcpy(&v, p + 2 * j, 2); return v; }
  case OXP_DT_INT32: { int32_t v; memcpy(&v, p + 4 * j, 4); return v; }
  case OXP_DT_UINT32: { uint32_t v; memcpy(&v, p + 4 * j, 4); return v; }
  case OXP_DT_INT64: case OXP_DT_UINT64: { int64_t v; memcpy(&v, p + 8 * j, 8); return v; }
  case OXP_DT_FLOAT: case OXP_DT_DOUBLE: case OXP_DT_FLOAT16: case OXP_DT_BFLOAT16:
    return oxp_f2i(oxp_tensor_get_f(t, i));
  default: return 0;
  }
}

void oxp_tensor_read(const oxp_tensor *t, size_t off, void *buf, size_t n) {
  if (!oxp_tensor_is_lazy(t)) {
    memcpy(buf, (const unsigned char *)t->data + off, n);
    return;
  }
  const oxp_lazy *z = t->lazy;
  unsigned char *dst = buf, one[MAX_ES];
  int64_t e = (int64_t)(off / z->es);
  size_t skip = off % z->es;
  if (skip && n) { /* a range that starts inside an element */
    size_t k = z->es - skip < n ? z->es - skip : n;
    produce(z, e++, 1, one);
    memcpy(dst, one + skip, k);
    dst += k;
    n -= k;
  }
  int64_t whole = (int64_t)(n / z->es);
  produce(z, e, whole, dst);
  dst += (size_t)whole * z->es;
  n -= (size_t)whole * z->es;
  if (n) {
    produce(z, e + whole, 1, one);
    memcpy(dst, one, n);
  }
}

bool oxp_lazy_same(const oxp_tensor *a, const oxp_tensor *b) {
  const oxp_lazy *x = a->lazy, *y = b->lazy;
  if (!x || !y || x->src->data != y->src->data || x->es != y->es ||
      x->rank != y->rank)
    return false;
  size_t n = sizeof(int64_t) * (size_t)x->rank;
  return memcmp(x->d, y->d, n) == 0 && memcmp(x->st, y->st, n) == 0;
}

oxp_status oxp_tensor_produce(const oxp_tensor *t, oxp_bytes_fn put,
                              void *user, oxp_diag *d) {
  if (!oxp_tensor_is_lazy(t))
    return t->nbytes ? put(user, t->data, t->nbytes) : OXP_OK;
  const oxp_lazy *z = t->lazy;
  size_t cap = t->nbytes < CHUNK ? t->nbytes : CHUNK;
  unsigned char *buf = oxp_mem_alloc(cap);
  if (!buf)
    return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL,
                    "out of memory for a %zu-byte write buffer", cap);
  oxp_status st = OXP_OK;
  int64_t per = (int64_t)(cap / z->es), total = (int64_t)(t->nbytes / z->es);
  for (int64_t e = 0; !st && e < total; e += per) {
    int64_t cnt = total - e < per ? total - e : per;
    produce(z, e, cnt, buf);
    /* A chunk of a transpose reads across the whole source: give its
     * pages back before the next chunk faults them in again. */
    oxp_tensor_release(z->src);
    st = put(user, buf, (size_t)cnt * z->es);
  }
  free(buf);
  return st;
}
