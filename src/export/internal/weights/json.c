/* json.c: strict recursive-descent JSON, bounded by len (the header sits in
 * an mmap with no terminating NUL, so nothing here may look past len). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "json.h"

/* Headers nest three levels; OXP_MAX_JSON_DEPTH only stops stack
 * exhaustion on hostile input such as a megabyte of '['. */

typedef struct {
  oxp_arena *a;
  const unsigned char *s;
  size_t len, pos;
  int depth;
  oxp_json_err *err;
} parser;

static oxp_json *fail(parser *p, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static oxp_json *fail(parser *p, size_t pos, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  p->err->pos = pos;
  vsnprintf(p->err->msg, sizeof p->err->msg, fmt, ap);
  va_end(ap);
  return NULL;
}

static void skip_ws(parser *p) {
  while (p->pos < p->len) {
    unsigned char c = p->s[p->pos];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    p->pos++;
  }
}

static bool at_end(const parser *p) { return p->pos >= p->len; }

static oxp_json *new_value(parser *p, oxp_json_kind k, size_t pos) {
  oxp_json *v = oxp_alloc(p->a, sizeof *v);
  if (!v) return fail(p, pos, "out of memory");
  v->kind = k;
  v->pos = pos;
  return v;
}

static oxp_json *parse_value(parser *p);

static int hexval(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Reads the 4 hex digits after "\u" at p->pos; -1 if malformed. */
static long read_hex4(parser *p) {
  if (p->len - p->pos < 4) return -1;
  long v = 0;
  for (int k = 0; k < 4; k++) {
    int h = hexval(p->s[p->pos + (size_t)k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  p->pos += 4;
  return v;
}

static size_t put_utf8(char *out, unsigned long cp) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xc0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xe0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
  }
  out[0] = (char)(0xf0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
  out[3] = (char)(0x80 | (cp & 0x3f));
  return 4;
}

/* Length of the well-formed UTF-8 sequence at s (n bytes left), or 0.
 * Rejects overlong forms and encoded surrogates, as RFC 3629 does, so a
 * tensor name is always valid UTF-8 when it reaches ONNX. */
static size_t utf8_len(const unsigned char *s, size_t n) {
  unsigned char c = s[0];
  size_t k;
  unsigned char lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) k = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    k = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    k = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else
    return 0;
  if (n < k || s[1] < lo || s[1] > hi) return 0;
  for (size_t j = 2; j < k; j++)
    if (s[j] < 0x80 || s[j] > 0xbf) return 0;
  return k;
}

/* Decodes one escape after the backslash into out; returns bytes written,
 * or 0 after recording an error. */
static size_t parse_escape(parser *p, char *out) {
  size_t at = p->pos - 1;
  if (at_end(p)) return (fail(p, at, "unterminated escape"), 0);
  unsigned char c = p->s[p->pos++];
  switch (c) {
  case '"': case '\\': case '/': *out = (char)c; return 1;
  case 'b': *out = '\b'; return 1;
  case 'f': *out = '\f'; return 1;
  case 'n': *out = '\n'; return 1;
  case 'r': *out = '\r'; return 1;
  case 't': *out = '\t'; return 1;
  case 'u': break;
  default: return (fail(p, at, "invalid escape"), 0);
  }
  long cp = read_hex4(p);
  if (cp < 0) return (fail(p, at, "\\u needs 4 hex digits"), 0);
  if (cp >= 0xdc00 && cp <= 0xdfff)
    return (fail(p, at, "unpaired low surrogate"), 0);
  if (cp >= 0xd800 && cp <= 0xdbff) {
    if (p->len - p->pos < 2 || p->s[p->pos] != '\\' ||
        p->s[p->pos + 1] != 'u')
      return (fail(p, at, "unpaired high surrogate"), 0);
    p->pos += 2;
    long lo = read_hex4(p);
    if (lo < 0xdc00 || lo > 0xdfff)
      return (fail(p, at, "unpaired high surrogate"), 0);
    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
  }
  /* Names become C strings; an embedded NUL would silently cut them. */
  if (cp == 0) return (fail(p, at, "\\u0000 is not allowed in strings"), 0);
  return put_utf8(out, (unsigned long)cp);
}

/* Called with p->pos on the opening quote. */
static oxp_json *parse_string(parser *p) {
  size_t start = p->pos++;
  /* Find the closing quote first so the output buffer is sized by this
   * string, not by the rest of the header. */
  size_t end = p->pos;
  bool plain = true; /* printable ASCII without escapes: copied whole */
  while (end < p->len && p->s[end] != '"') {
    unsigned char c = p->s[end];
    plain &= c >= 0x20 && c < 0x80 && c != '\\';
    end += c == '\\' ? 2 : 1;
  }
  if (end >= p->len) return fail(p, start, "unterminated string");
  oxp_json *v = new_value(p, OXP_J_STR, start);
  char *out = v ? oxp_alloc(p->a, end - p->pos + 1) : NULL;
  if (!out) return v ? fail(p, start, "out of memory") : NULL;
  size_t n = 0;
  if (plain) { /* out is zeroed: the NUL is there */
    n = end - p->pos;
    memcpy(out, p->s + p->pos, n);
    p->pos = end;
  }
  while (p->s[p->pos] != '"') {
    unsigned char c = p->s[p->pos];
    if (c < 0x20) return fail(p, p->pos, "control character in string");
    if (c == '\\') {
      p->pos++;
      size_t k = parse_escape(p, out + n);
      if (!k) return NULL;
      n += k;
    } else if (c < 0x80) {
      out[n++] = (char)c;
      p->pos++;
    } else {
      size_t k = utf8_len(p->s + p->pos, p->len - p->pos);
      if (!k) return fail(p, p->pos, "invalid UTF-8 in string");
      memcpy(out + n, p->s + p->pos, k);
      n += k;
      p->pos += k;
    }
  }
  p->pos++;
  v->s = out;
  v->slen = n;
  return v;
}

static oxp_json *parse_number(parser *p) {
  size_t start = p->pos;
  bool neg = p->s[p->pos] == '-';
  if (neg) p->pos++;
  if (at_end(p) || p->s[p->pos] < '0' || p->s[p->pos] > '9')
    return fail(p, start, "expected a digit");
  if (p->s[p->pos] == '0' && p->pos + 1 < p->len && p->s[p->pos + 1] >= '0' &&
      p->s[p->pos + 1] <= '9')
    return fail(p, start, "leading zeros are not allowed");
  /* Accumulate as a negative number so INT64_MIN fits. */
  int64_t v = 0;
  while (!at_end(p) && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
    int d = p->s[p->pos++] - '0';
    if (v < (INT64_MIN + d) / 10) return fail(p, start, "integer out of range");
    v = v * 10 - d;
  }
  if (!at_end(p) && (p->s[p->pos] == '.' || p->s[p->pos] == 'e' ||
                     p->s[p->pos] == 'E'))
    return fail(p, start, "expected an integer, not a fraction or exponent");
  if (!neg && v == INT64_MIN) return fail(p, start, "integer out of range");
  oxp_json *j = new_value(p, OXP_J_INT, start);
  if (j) j->i = neg ? v : -v;
  return j;
}

static oxp_json *parse_word(parser *p) {
  static const struct { const char *w; oxp_json_kind k; bool b; } WORDS[] = {
      {"true", OXP_J_BOOL, true},
      {"false", OXP_J_BOOL, false},
      {"null", OXP_J_NULL, false},
  };
  for (size_t i = 0; i < sizeof WORDS / sizeof WORDS[0]; i++) {
    size_t n = strlen(WORDS[i].w);
    if (p->len - p->pos >= n && memcmp(p->s + p->pos, WORDS[i].w, n) == 0) {
      oxp_json *v = new_value(p, WORDS[i].k, p->pos);
      if (v) v->b = WORDS[i].b;
      p->pos += n;
      return v;
    }
  }
  return fail(p, p->pos, "expected a value");
}

/* Appends item (and key, for objects) to v's arrays, doubling them. */
static bool push(parser *p, oxp_json *v, int *cap, const char *key,
                 oxp_json *item) {
  if (v->n == *cap) {
    int nc = *cap ? *cap * 2 : 4;
    size_t o = sizeof(void *) * (size_t)*cap, nn = sizeof(void *) * (size_t)nc;
    oxp_json **items = oxp_realloc(p->a, v->items, o, nn);
    if (!items) return false;
    v->items = items;
    if (v->kind == OXP_J_OBJ) {
      const char **keys = oxp_realloc(p->a, (void *)v->keys, o, nn);
      if (!keys) return false;
      v->keys = keys;
    }
    *cap = nc;
  }
  if (key) v->keys[v->n] = key;
  v->items[v->n++] = item;
  return true;
}

/* Objects and arrays share the comma/close logic; objects add "key":. */
static oxp_json *parse_container(parser *p, oxp_json_kind k) {
  char close = k == OXP_J_OBJ ? '}' : ']';
  oxp_json *v = new_value(p, k, p->pos++);
  if (!v) return NULL;
  if (++p->depth > OXP_MAX_JSON_DEPTH)
    return fail(p, v->pos, "nested deeper than %d (onnxexp's limit)",
                OXP_MAX_JSON_DEPTH);
  int cap = 0;
  skip_ws(p);
  if (!at_end(p) && p->s[p->pos] == close) {
    p->pos++;
    p->depth--;
    return v;
  }
  for (;;) {
    const char *key = NULL;
    skip_ws(p);
    if (k == OXP_J_OBJ) {
      if (at_end(p) || p->s[p->pos] != '"')
        return fail(p, p->pos, "expected a string key");
      oxp_json *ks = parse_string(p);
      if (!ks) return NULL;
      key = ks->s;
      skip_ws(p);
      if (at_end(p) || p->s[p->pos] != ':')
        return fail(p, p->pos, "expected ':'");
      p->pos++;
    }
    oxp_json *item = parse_value(p);
    if (!item) return NULL;
    if (!push(p, v, &cap, key, item)) return fail(p, p->pos, "out of memory");
    skip_ws(p);
    if (at_end(p)) return fail(p, p->pos, "unexpected end of input");
    if (p->s[p->pos] == close) break;
    if (p->s[p->pos] != ',')
      return fail(p, p->pos, k == OXP_J_OBJ ? "expected ',' or '}'"
                                            : "expected ',' or ']'");
    p->pos++;
  }
  p->pos++;
  p->depth--;
  return v;
}

static oxp_json *parse_value(parser *p) {
  skip_ws(p);
  if (at_end(p)) return fail(p, p->pos, "unexpected end of input");
  unsigned char c = p->s[p->pos];
  if (c == '{') return parse_container(p, OXP_J_OBJ);
  if (c == '[') return parse_container(p, OXP_J_ARR);
  if (c == '"') return parse_string(p);
  if (c == '-' || (c >= '0' && c <= '9')) return parse_number(p);
  return parse_word(p);
}

oxp_json *oxp_json_parse(oxp_arena *a, const char *text, size_t len,
                         oxp_json_err *err) {
  parser p = {a, (const unsigned char *)text, len, 0, 0, err};
  oxp_json *v = parse_value(&p);
  if (!v) return NULL;
  skip_ws(&p);
  if (!at_end(&p)) return fail(&p, p.pos, "unexpected data after the value");
  return v;
}
