/* st_scan.c: the plain safetensors header, read in one pass without a
 * JSON tree.
 *
 * Writers emit one form: an object of entries
 * "name":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}. The JSON
 * reader (json.c) builds a value per string, array and number and keeps
 * them all, a few hundred instructions and a kilobyte per tensor; a
 * sidecar of tensor constants holds one entry per constant of the graph.
 * Here that form is read straight into entries. Whatever is not that
 * form is left to the JSON reader, which reads all of JSON and says what
 * is wrong, so this file never explains an error. */
#include <string.h>

#include "st_scan.h"

typedef struct {
  const char *p, *end;
} scan;

static void ws(scan *s) {
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
    s->p++;
}

static bool eat(scan *s, char c) {
  ws(s);
  if (s->p == s->end || *s->p != c) return false;
  s->p++;
  return true;
}

/* Bytes a plain string holds: printable ASCII but the quote and the
 * backslash. */
static const bool PLAIN[256] = {
    [' ' ... '!'] = true, ['#' ... '['] = true, [']' ... '~'] = true, [0x7f] = true,
};

/* A string of printable ASCII without escapes: the bytes between the
 * quotes (what the JSON reader would decode it to). */
static bool plain_string(scan *s, const char **b, size_t *n) {
  ws(s);
  if (s->p == s->end || *s->p != '"') return false;
  const char *q = s->p + 1;
  while (q < s->end && PLAIN[(unsigned char)*q]) q++;
  if (q == s->end || *q != '"') return false;
  *b = s->p + 1;
  *n = (size_t)(q - *b);
  s->p = q + 1;
  return true;
}

/* An integer of at most 18 digits (no sign, fraction or leading zero):
 * one the JSON reader takes as the same int64. */
static bool small_uint(scan *s, uint64_t *v) {
  ws(s);
  const char *q = s->p;
  if (q == s->end || *q < '0' || *q > '9') return false;
  if (*q == '0' && q + 1 < s->end && q[1] >= '0' && q[1] <= '9') return false;
  uint64_t x = 0;
  for (int digits = 0; q < s->end && *q >= '0' && *q <= '9'; q++) {
    if (++digits > 18) return false;
    x = x * 10 + (uint64_t)(*q - '0');
  }
  if (q < s->end && (*q == '.' || *q == 'e' || *q == 'E')) return false;
  s->p = q;
  *v = x;
  return true;
}

enum { MAX_DIMS = 64 };

/* `[u, ...]` into v (at most MAX_DIMS of them); *n gets how many. */
static bool uint_list(scan *s, uint64_t *v, int *n) {
  *n = 0;
  if (!eat(s, '[')) return false;
  if (eat(s, ']')) return true;
  for (;;) {
    if (*n == MAX_DIMS || !small_uint(s, &v[*n])) return false;
    ++*n;
    if (eat(s, ']')) return true;
    if (!eat(s, ',')) return false;
  }
}

static bool key_is(const char *k, size_t n, const char *w) {
  return n == strlen(w) && memcmp(k, w, n) == 0;
}

/* `{"dtype": ..., "shape": ..., "data_offsets": ...}`; dims go to keep. */
static bool entry(scan *s, oxp_arena *keep, oxp_st_raw *r) {
  if (!eat(s, '{')) return false;
  unsigned seen = 0;
  uint64_t v[MAX_DIMS];
  int n;
  for (;;) {
    const char *k;
    size_t kn;
    if (!plain_string(s, &k, &kn) || !eat(s, ':')) return false;
    if (key_is(k, kn, "dtype") && !(seen & 1)) {
      seen |= 1;
      if (!plain_string(s, &r->dtype, &r->dtype_len)) return false;
    } else if (key_is(k, kn, "shape") && !(seen & 2)) {
      seen |= 2;
      if (!uint_list(s, v, &n)) return false;
      r->rank = n;
      if (n > 0 && !(r->dims = oxp_alloc(keep, sizeof *r->dims * (size_t)n))) return false;
      for (int i = 0; i < n; i++) r->dims[i] = (int64_t)v[i];
    } else if (key_is(k, kn, "data_offsets") && !(seen & 4)) {
      seen |= 4;
      if (!uint_list(s, v, &n) || n != 2) return false;
      r->begin = v[0], r->end = v[1];
    } else {
      return false;
    }
    if (eat(s, '}')) return seen == 7;
    if (!eat(s, ',')) return false;
  }
}

bool oxp_st_scan(oxp_arena *keep, oxp_arena *scratch, const char *text, size_t len,
                 oxp_st_raw **out, int *n) {
  scan s = {text, text + len};
  /* Every entry opens one '{' after the header's own: an upper bound. */
  size_t cap = 0;
  for (const char *q = text; (q = memchr(q, '{', (size_t)(s.end - q))); q++) cap++;
  oxp_st_raw *v = cap ? oxp_alloc(scratch, sizeof *v * cap) : NULL;
  if (!v || !eat(&s, '{')) return false;
  int k = 0;
  if (!eat(&s, '}')) {
    for (;;) {
      const char *name;
      size_t nn;
      if ((size_t)k + 1 >= cap || !plain_string(&s, &name, &nn) || !eat(&s, ':') ||
          key_is(name, nn, "__metadata__"))
        return false;
      if (!(v[k].name = oxp_strndup(keep, name, nn)) || !entry(&s, keep, &v[k])) return false;
      k++;
      if (eat(&s, '}')) break;
      if (!eat(&s, ',')) return false;
    }
  }
  ws(&s);
  if (s.p != s.end) return false;
  *out = v;
  *n = k;
  return true;
}
