/* map.c: string-keyed hash map with open addressing. Keys are borrowed
 * (they live in the same arena or longer); growth doubles, so lookups
 * stay O(1) and a graph's name table is linear to build. */
#include <string.h>

#include "oxp.h"

static uint64_t hash(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

void oxp_map_init(oxp_map *m, oxp_arena *a) {
  memset(m, 0, sizeof *m);
  m->arena = a;
}

static size_t slot(const char **keys, size_t cap, const char *key) {
  size_t i = hash(key) & (cap - 1);
  while (keys[i] && strcmp(keys[i], key) != 0) i = (i + 1) & (cap - 1);
  return i;
}

void *oxp_map_get(const oxp_map *m, const char *key) {
  if (!m->cap) return NULL;
  size_t i = slot(m->keys, m->cap, key);
  return m->keys[i] ? m->vals[i] : NULL;
}

static bool grow(oxp_map *m) {
  size_t cap = m->cap ? m->cap * 2 : 64;
  const char **keys = oxp_alloc(m->arena, cap * sizeof *keys);
  void **vals = oxp_alloc(m->arena, cap * sizeof *vals);
  if (!keys || !vals) return false;
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->keys[i]) continue;
    size_t j = slot(keys, cap, m->keys[i]);
    keys[j] = m->keys[i];
    vals[j] = m->vals[i];
  }
  m->keys = keys;
  m->vals = vals;
  m->cap = cap;
  return true;
}

bool oxp_map_put(oxp_map *m, const char *key, void *val) {
  if ((m->len + 1) * 4 > m->cap * 3 && !grow(m)) return false;
  size_t i = slot(m->keys, m->cap, key);
  if (!m->keys[i]) {
    m->keys[i] = key;
    m->len++;
  }
  m->vals[i] = val;
  return true;
}
