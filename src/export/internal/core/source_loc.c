/* source_loc.c: the source comment at the end of an IR line. The printer
 * puts it last, after any ", scope: ..." suffix, as " # FILE:LINE:COL";
 * FILE may itself hold colons, so the two numbers are read from the end. */
#include <stdio.h>
#include <string.h>

#include "source_loc.h"

/* The first byte of line `line` (1-based) and its length, or NULL. */
static const char *find_line(const char *text, size_t len, int line,
                             size_t *out_len) {
  const char *p = text, *end = text + len;
  for (int k = 1; k < line; k++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) return NULL;
    p = nl + 1;
  }
  if (p >= end && line > 1) return NULL;
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  *out_len = (size_t)((nl ? nl : end) - p);
  return p;
}

/* Reads decimal digits backwards from e (exclusive) down to s: the
 * position of the first digit, or NULL when there are none. */
static const char *digits_before(const char *s, const char *e, long *v) {
  const char *p = e;
  while (p > s && p[-1] >= '0' && p[-1] <= '9') p--;
  if (p == e || e - p > 9) return NULL;
  *v = 0;
  for (const char *q = p; q < e; q++) *v = *v * 10 + (*q - '0');
  return p;
}

bool oxp_source_loc(const char *text, size_t len, int line, char *file,
                    size_t n, int *src_line) {
  if (n) file[0] = 0;
  *src_line = 0;
  size_t ll;
  const char *s = text && line > 0 ? find_line(text, len, line, &ll) : NULL;
  if (!s) return false;
  const char *e = s + ll;
  while (e > s && (e[-1] == '\r' || e[-1] == ' ')) e--;
  /* the last " # " on the line starts the comment */
  const char *hash = NULL;
  for (const char *p = s; p + 3 <= e; p++)
    if (p[0] == ' ' && p[1] == '#' && p[2] == ' ') hash = p;
  if (!hash) return false;
  const char *f = hash + 3;
  long col, ln;
  const char *p = digits_before(f, e, &col);
  if (!p || p == f || p[-1] != ':') return false;
  p = digits_before(f, p - 1, &ln);
  if (!p || p == f || p[-1] != ':' || ln <= 0) return false;
  const char *fe = p - 1;
  if (fe == f) return false;
  (void)col;
  if (n) snprintf(file, n, "%.*s", (int)(fe - f), f);
  *src_line = (int)ln;
  return true;
}
