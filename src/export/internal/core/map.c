/* map.c: string-keyed hash map with open addressing. Keys are borrowed
 * (they live in the same arena or longer); growth doubles, so lookups
 * stay O(1) and a graph's name table is linear to build. */
#include <string.h>

#include "oxp.h"

static uint32_t hash(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return (uint32_t)(h ^ (h >> 32));
}

void oxp_map_init(oxp_map *m, oxp_arena *a) {
  memset(m, 0, sizeof *m);
  m->arena = a;
}

static size_t slot(const oxp_map *m, const char *key, uint32_t h) {
  size_t i = h & (m->cap - 1);
  while (m->keys[i] && (m->hashes[i] != h || strcmp(m->keys[i], key) != 0))
    i = (i + 1) & (m->cap - 1);
  return i;
}

void *oxp_map_get(const oxp_map *m, const char *key) {
  if (!m->cap) return NULL;
  size_t i = slot(m, key, hash(key));
  return m->keys[i] ? m->vals[i] : NULL;
}

/* Keys are distinct, so moving them needs no strcmp; the stored hashes
 * spare hashing them again. */
static bool grow(oxp_map *m) {
  size_t cap = m->cap ? m->cap * 2 : 64;
  oxp_map g = {.arena = m->arena, .cap = cap, .len = m->len,
               .keys = oxp_alloc(m->arena, cap * sizeof *g.keys),
               .vals = oxp_alloc(m->arena, cap * sizeof *g.vals),
               .hashes = oxp_alloc(m->arena, cap * sizeof *g.hashes)};
  if (!g.keys || !g.vals || !g.hashes) return false;
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->keys[i]) continue;
    size_t j = m->hashes[i] & (cap - 1);
    while (g.keys[j]) j = (j + 1) & (cap - 1);
    g.keys[j] = m->keys[i];
    g.vals[j] = m->vals[i];
    g.hashes[j] = m->hashes[i];
  }
  *m = g;
  return true;
}

bool oxp_map_put(oxp_map *m, const char *key, void *val) {
  /* At most half full: linear probing's chains stay short. */
  if ((m->len + 1) * 2 > m->cap && !grow(m)) return false;
  uint32_t h = hash(key);
  size_t i = slot(m, key, h);
  if (!m->keys[i]) {
    m->keys[i] = key;
    m->hashes[i] = h;
    m->len++;
  }
  m->vals[i] = val;
  return true;
}
