/* dedup_inits.c: initializers with the same dtype, shape and bytes become
 * one. Candidates are sorted by (bytes, dtype) so only tensors of equal
 * size are ever hashed or compared. The hash reads a bounded sample of
 * each tensor (its ends and evenly spread slices), not all of it: weights
 * live in the memory-mapped sidecar, and reading every byte of a
 * multi-gigabyte model would fault it all into memory for a pass that
 * almost never finds anything. Only tensors whose samples agree are
 * compared in full. The survivor is the first in graph order, so weight
 * inputs (named parameters) win over anonymous constants and results are
 * stable. Lazy tensors (folded transposes, tensor_bytes.c) are hashed and
 * compared on the same bytes, read a piece at a time, never made. */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

typedef struct {
  oxp_value *v;
  int order;
  uint64_t hash;
} cand;

static int by_size(const void *a, const void *b) {
  const cand *x = a, *y = b;
  const oxp_tensor *s = x->v->init, *t = y->v->init;
  if (s->nbytes != t->nbytes) return s->nbytes < t->nbytes ? -1 : 1;
  if (s->dtype != t->dtype) return s->dtype - t->dtype;
  if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
  return x->order - y->order;
}

static uint64_t fnv_bytes(uint64_t h, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* PIECE: bytes read at a time from a lazy tensor, on the stack. */
enum { SAMPLE_END = 4096, SAMPLE_SLICES = 32, SAMPLE_SLICE = 64, PIECE = 4096 };

/* n <= PIECE bytes of t at off: in place, or read into buf when lazy. */
static const unsigned char *piece(const oxp_tensor *t, size_t off, size_t n,
                                  unsigned char *buf) {
  if (!oxp_tensor_is_lazy(t)) return (const unsigned char *)t->data + off;
  oxp_tensor_read(t, off, buf, n);
  return buf;
}

static uint64_t fnv_at(uint64_t h, const oxp_tensor *t, size_t off, size_t n) {
  unsigned char buf[PIECE];
  for (size_t k; n > 0; off += k, n -= k) {
    k = n < PIECE ? n : PIECE;
    h = fnv_bytes(h, piece(t, off, k, buf), k);
  }
  return h;
}

/* FNV-1a over the shape, the first and last 4 KiB and 32 slices between:
 * at most about 10 KiB of any tensor, whatever its size. */
static uint64_t sample_hash(const oxp_tensor *t) {
  uint64_t h = 1469598103934665603ull;
  h = (h ^ (uint64_t)t->rank) * 1099511628211ull;
  for (int i = 0; i < t->rank; i++) h = (h ^ (uint64_t)t->dims[i]) * 1099511628211ull;
  size_t n = t->nbytes;
  if (n <= 2 * SAMPLE_END + SAMPLE_SLICES * SAMPLE_SLICE) return fnv_at(h, t, 0, n);
  h = fnv_at(h, t, 0, SAMPLE_END);
  size_t step = (n - 2 * SAMPLE_END) / SAMPLE_SLICES;
  for (size_t k = 0; k < SAMPLE_SLICES; k++)
    h = fnv_at(h, t, SAMPLE_END + k * step, SAMPLE_SLICE);
  return fnv_at(h, t, n - SAMPLE_END, SAMPLE_END);
}

static bool same_bytes(const oxp_tensor *a, const oxp_tensor *b) {
  if (!oxp_tensor_is_lazy(a) && !oxp_tensor_is_lazy(b))
    return a->data == b->data || memcmp(a->data, b->data, a->nbytes) == 0;
  if (oxp_lazy_same(a, b)) return true;
  unsigned char x[PIECE], y[PIECE];
  for (size_t off = 0, k; off < a->nbytes; off += k) {
    k = a->nbytes - off < PIECE ? a->nbytes - off : PIECE;
    if (memcmp(piece(a, off, k, x), piece(b, off, k, y), k) != 0) return false;
  }
  return true;
}

static bool same(const oxp_tensor *a, const oxp_tensor *b) {
  if (a->dtype != b->dtype || a->rank != b->rank || a->nbytes != b->nbytes) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return same_bytes(a, b);
}

static int collect(oxp_pass *p, oxp_block *b, cand *c, int n) {
  for (int i = 0; i < b->ninits; i++)
    if (oxp_pass_is_const(p, b->inits[i]) && !oxp_pass_is_out(p, b->inits[i]))
      c[n].v = b->inits[i], c[n].order = n, n++;
  return n;
}

oxp_status oxp_dedup_inits(oxp_pass *p) {
  oxp_block *top = p->g->top;
  int cap = top->ninputs + top->ninits;
  cand *c = oxp_alloc(p->g->arena, sizeof *c * (size_t)(cap + 1));
  if (!c) return oxp_fail(p->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  int n = 0;
  for (int i = 0; i < top->ninputs; i++)
    if (oxp_pass_is_const(p, top->inputs[i]))
      c[n].v = top->inputs[i], c[n].order = n, n++;
  /* Only the top block: constants of nested blocks are local to them. */
  n = collect(p, top, c, n);
  qsort(c, (size_t)n, sizeof *c, by_size);
  /* Hash only runs of equal size and dtype, then sort those by hash. */
  for (int i = 0; i < n;) {
    int j = i + 1;
    while (j < n && c[j].v->init->nbytes == c[i].v->init->nbytes &&
           c[j].v->init->dtype == c[i].v->init->dtype)
      j++;
    if (j - i > 1) {
      for (int k = i; k < j; k++) {
        c[k].hash = sample_hash(c[k].v->init);
        /* Even a sample maps whole (possibly huge) page-cache folios of
         * the sidecar; give them back before the next tensor. */
        oxp_tensor_release(c[k].v->init);
      }
      qsort(c + i, (size_t)(j - i), sizeof *c, by_size);
      for (int k = i; k < j; k++) {
        if (!c[k].v) continue;
        for (int m = k + 1; m < j && c[m].hash == c[k].hash; m++) {
          if (!c[m].v) continue;
          bool dup = same(c[k].v->init, c[m].v->init);
          oxp_tensor_release(c[m].v->init);
          if (!dup) continue;
          oxp_value_replace_uses(c[m].v, c[k].v);
          c[m].v = NULL;
        }
      }
    }
    i = j;
  }
  return OXP_OK;
}
