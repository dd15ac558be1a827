/* arena.c: bump allocation in chunks, freed in one call.
 * Everything a graph owns lives here, so an export frees in O(chunks).
 * Allocations come back zeroed, and nothing is ever handed out twice, so
 * chunks are mapped pages, which the system hands out zeroed, instead of
 * clearing each allocation in turn (calloc would clear a chunk it carves
 * from its heap, which it does once malloc's mmap threshold has grown).
 * Chunks grow with the arena, so a big graph takes few mappings.
 * A failed allocation is remembered (oxp_arena_failed): code that cannot
 * report one (a void setter) still cannot make an export succeed with a
 * piece of the graph missing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fault.h"
#include "oxp.h"

typedef struct chunk {
  struct chunk *next;
  size_t cap, used;
  _Alignas(16) unsigned char mem[];
} chunk;

struct oxp_arena {
  chunk *head;
  size_t total;
  bool failed;
};

enum { CHUNK_MIN = 256 * 1024, CHUNK_MAX = 64 * 1024 * 1024 };

oxp_arena *oxp_arena_new(void) { return oxp_mem_calloc(1, sizeof(oxp_arena)); }

/* Zeroed memory for a chunk of cap bytes; a failure point like any
 * allocation (fault.h). */
static chunk *map_chunk(size_t cap) {
  if (oxp_fault(OXP_FAULT_ALLOC)) return NULL;
  void *p = mmap(NULL, sizeof(chunk) + cap, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

void oxp_arena_free(oxp_arena *a) {
  if (!a) return;
  for (chunk *c = a->head, *nx; c; c = nx) {
    nx = c->next;
    munmap(c, sizeof(chunk) + c->cap);
  }
  free(a);
}

/* A new chunk for a rounded request n that the head cannot hold. Out of
 * line: the common case, a bump in the head chunk, then needs no saved
 * registers (oxp_alloc runs for nearly every node, value and name). */
static OXP_OUT_OF_LINE void *alloc_chunk(oxp_arena *a, size_t n) {
  chunk *c = a->head;
  /* Big requests get their own chunk behind the head so the head's
   * remaining space is not wasted. */
  size_t grown = a->total / 4 < CHUNK_MIN ? CHUNK_MIN
                 : a->total / 4 > CHUNK_MAX ? CHUNK_MAX : a->total / 4;
  size_t cap = n > CHUNK_MIN / 4 ? n : grown;
  chunk *nc = map_chunk(cap);
  if (!nc) {
    a->failed = true;
    return NULL;
  }
  nc->cap = cap;
  nc->used = n;
  if (c && cap == n) {
    nc->next = c->next;
    c->next = nc;
  } else {
    nc->next = c;
    a->head = nc;
  }
  a->total += cap;
  return nc->mem;
}

/* Every call may fail in a test, not just those that need a new chunk:
 * which call needs one depends on sizes, so every caller must cope. */
void *oxp_alloc(oxp_arena *a, size_t n) {
  if (oxp_fault(OXP_FAULT_ALLOC)) {
    a->failed = true;
    return NULL;
  }
  if (n > SIZE_MAX - 15 - sizeof(chunk)) { /* rounding up would wrap */
    a->failed = true;
    return NULL;
  }
  n = (n + 15) & ~(size_t)15;
  if (n == 0) n = 16;
  chunk *c = a->head;
  if (!c || c->cap - c->used < n) return alloc_chunk(a, n);
  void *p = c->mem + c->used;
  c->used += n;
  return p;
}

void *oxp_realloc(oxp_arena *a, void *old, size_t oldn, size_t newn) {
  if (newn <= oldn) return old;
  void *p = oxp_alloc(a, newn);
  if (p && old && oldn) memcpy(p, old, oldn);
  return p;
}

char *oxp_strndup(oxp_arena *a, const char *s, size_t n) {
  char *p = oxp_alloc(a, n + 1);
  if (p) memcpy(p, s, n);
  return p;
}

char *oxp_strdup(oxp_arena *a, const char *s) {
  return s ? oxp_strndup(a, s, strlen(s)) : NULL;
}

char *oxp_sprintf(oxp_arena *a, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = n < 0 ? NULL : oxp_alloc(a, (size_t)n + 1);
  if (p) vsnprintf(p, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return p;
}

/* By hand, not oxp_sprintf: names such as "onnxexp::const_N" are made
 * for every constant of a graph, and printf costs a thousand
 * instructions a call. */
char *oxp_strnum(oxp_arena *a, const char *prefix, int k) {
  char digits[12];
  int d = 0;
  unsigned u = k < 0 ? 0u - (unsigned)k : (unsigned)k;
  do digits[d++] = (char)('0' + u % 10); while ((u /= 10) > 0);
  if (k < 0) digits[d++] = '-';
  size_t n = strlen(prefix);
  char *p = oxp_alloc(a, n + (size_t)d + 1); /* zeroed: the NUL is there */
  if (!p) return NULL;
  memcpy(p, prefix, n);
  while (d > 0) p[n++] = digits[--d];
  return p;
}

size_t oxp_arena_bytes(const oxp_arena *a) { return a->total; }

bool oxp_arena_failed(const oxp_arena *a) { return a && a->failed; }
