/* dedup_inits.c: initializers with the same dtype, shape and bytes become
 * one. Candidates are grouped by (bytes, dtype) so only tensors of equal
 * size are ever hashed or compared. The hash reads a bounded sample of
 * each tensor (its ends and evenly spread slices), not all of it: weights
 * live in the memory-mapped sidecar, and reading every byte of a
 * multi-gigabyte model would fault it all into memory for a pass that
 * almost never finds anything. Only tensors whose samples agree are
 * compared in full. The survivor is the first in graph order, so weight
 * inputs (named parameters) win over anonymous constants and results are
 * stable. Lazy tensors (folded transposes, tensor_bytes.c) are hashed and
 * compared on the same bytes, read a piece at a time, never made.
 *
 * Groups and survivors are found in hash tables, one walk in graph order
 * (two sorts of every candidate were most of the pass on graphs with
 * thousands of scalar constants). Each later member of a class of equal
 * tensors is replaced by the class's first, in graph order, as the sorted
 * walk did; classes do not touch one another's uses. */
#include <string.h>

#include "passes.h"

typedef struct {
  oxp_value *v;
  uint64_t hash;
  int next; /* the next survivor of the same key, or -1 */
} cand;

static uint64_t mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
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
      c[n].v = b->inits[i], n++;
  return n;
}

/* An open-addressing table of candidate indices (-1: free), at most half
 * full: by (bytes, dtype) with a count, then by (bytes, dtype, hash) with
 * the first survivor and the last (where the next one is linked). */
typedef struct {
  int *first, *last, *count;
  size_t mask;
} table;

static bool same_key(const cand *x, const cand *y, bool by_hash) {
  const oxp_tensor *s = x->v->init, *t = y->v->init;
  return s->nbytes == t->nbytes && s->dtype == t->dtype && (!by_hash || x->hash == y->hash);
}

static size_t slot(const table *t, const cand *c, int i, bool by_hash) {
  const oxp_tensor *x = c[i].v->init;
  uint64_t h = mix((uint64_t)x->nbytes * 31 + (uint64_t)x->dtype) ^ (by_hash ? c[i].hash : 0);
  size_t k = (size_t)mix(h) & t->mask;
  while (t->first[k] >= 0 && !same_key(&c[t->first[k]], &c[i], by_hash)) k = (k + 1) & t->mask;
  return k;
}

static bool table_init(oxp_arena *a, table *t, int n) {
  size_t cap = 16;
  while (cap < 2 * (size_t)n) cap *= 2;
  t->mask = cap - 1;
  t->first = oxp_alloc(a, sizeof(int) * cap);
  t->last = oxp_alloc(a, sizeof(int) * cap);
  t->count = oxp_alloc(a, sizeof(int) * cap);
  if (!t->first || !t->last || !t->count) return false;
  for (size_t k = 0; k < cap; k++) t->first[k] = -1;
  return true;
}

/* c[i] against the earlier survivors of its sample hash: replaced by the
 * first equal one, or a survivor itself. */
static void dedup_one(table *s, cand *c, int i) {
  size_t k = slot(s, c, i, true);
  if (s->first[k] < 0) {
    s->first[k] = s->last[k] = i;
    return;
  }
  for (int j = s->first[k]; j >= 0; j = c[j].next) {
    bool dup = same(c[j].v->init, c[i].v->init);
    oxp_tensor_release(c[i].v->init);
    if (!dup) continue;
    oxp_value_replace_uses(c[i].v, c[j].v);
    return;
  }
  c[s->last[k]].next = i;
  s->last[k] = i;
}

oxp_status oxp_dedup_inits(oxp_pass *p) {
  oxp_block *top = p->g->top;
  oxp_arena *a = p->g->arena;
  int cap = top->ninputs + top->ninits;
  cand *c = oxp_alloc(a, sizeof *c * (size_t)(cap + 1));
  if (!c) return oxp_fail(p->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  int n = 0;
  for (int i = 0; i < top->ninputs; i++)
    if (oxp_pass_is_const(p, top->inputs[i]))
      c[n].v = top->inputs[i], n++;
  /* Only the top block: constants of nested blocks are local to them. */
  n = collect(p, top, c, n);
  if (n < 2) return OXP_OK;
  table g, s;
  if (!table_init(a, &g, n) || !table_init(a, &s, n))
    return oxp_fail(p->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  for (int i = 0; i < n; i++) {
    size_t k = slot(&g, c, i, false);
    if (g.first[k] < 0) g.first[k] = i, g.count[k] = 0;
    g.count[k]++;
    c[i].next = -1;
  }
  /* Hash only members of groups of two or more, in graph order. */
  for (int i = 0; i < n; i++) {
    if (g.count[slot(&g, c, i, false)] < 2) continue;
    c[i].hash = sample_hash(c[i].v->init);
    /* Even a sample maps whole (possibly huge) page-cache folios of the
     * sidecar; give them back before the next tensor. */
    oxp_tensor_release(c[i].v->init);
    dedup_one(&s, c, i);
  }
  return OXP_OK;
}
