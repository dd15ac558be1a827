/* lexer.c: splits TorchScript IR text into tokens.
 *
 * The text is not NUL-terminated, so the scanners test a pointer against
 * the end before each byte they read; a NUL byte inside the text is an
 * ordinary (invalid) character, never a terminator. Character classes
 * come from one table, the first byte picks the token's scanner, and a
 * token's column is its distance from the line's start: this loop runs
 * over every byte of inputs of hundreds of megabytes. A peeked token is
 * kept, so the parser's look-ahead never lexes a token twice. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lexer.h"

void oxp_lx_init(oxp_lexer *lx, const char *file, const char *s, size_t len) {
  lx->file = file;
  lx->s = s;
  lx->len = len;
  lx->pos = 0;
  lx->line = 1;
  lx->line_start = 0;
  lx->ahead_at = SIZE_MAX;
}

/* Moves over n bytes of one line (no token but a newline spans two). */
static void advance(oxp_lexer *lx, size_t n) {
  lx->pos = lx->pos + n < lx->len ? lx->pos + n : lx->len;
}

static int col_of(const oxp_lexer *lx) { return (int)(lx->pos - lx->line_start + 1); }

enum { C_BLANK = 1, C_DIGIT = 2, C_ALPHA = 4, C_NAME = 8 };

/* Value names are debug names, and lifted parameters take state_dict keys
 * (ModuleDict keys can hold '-' and other marks), so a name (C_NAME) runs
 * until a character that the printer uses as punctuation after a name:
 * any printable but ,()[]{}:=#"'% and the space. */
static const unsigned char CLASS[256] = {
    [' '] = C_BLANK, ['\t'] = C_BLANK, ['\r'] = C_BLANK, ['\f'] = C_BLANK,
    ['\v'] = C_BLANK,
    ['!'] = C_NAME, ['$'] = C_NAME, ['&'] = C_NAME, ['*' ... '+'] = C_NAME,
    ['-' ... '/'] = C_NAME, [';'] = C_NAME, ['<'] = C_NAME, ['>' ... '@'] = C_NAME,
    ['\\'] = C_NAME, ['^'] = C_NAME, ['`'] = C_NAME, ['|'] = C_NAME, ['~'] = C_NAME,
    ['0' ... '9'] = C_DIGIT | C_NAME,
    ['a' ... 'z'] = C_ALPHA | C_NAME, ['A' ... 'Z'] = C_ALPHA | C_NAME,
    ['_'] = C_ALPHA | C_NAME,
};

/* The scanners below walk a pointer p up to end (the text's end); each
 * test reads a byte only after checking p < end. */
static bool at_class(const char *p, const char *end, int k) {
  return p < end && (CLASS[(unsigned char)*p] & k);
}
static bool at_char(const char *p, const char *end, char c) { return p < end && *p == c; }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool at_digit(const char *p, const char *end) { return p < end && is_digit(*p); }

/* With a local pointer: a byte read through lx->s may alias lx->pos, so
 * a loop over lx->pos would store it back at every byte. */
static void skip_blanks(oxp_lexer *lx) {
  const char *p = lx->s + lx->pos, *end = lx->s + lx->len;
  while (p < end && (CLASS[(unsigned char)*p] & C_BLANK)) p++;
  lx->pos = (size_t)(p - lx->s);
}

oxp_loc oxp_lx_here(const oxp_lexer *lx) {
  oxp_lexer c = *lx;
  skip_blanks(&c);
  return (oxp_loc){c.file, c.line, col_of(&c)};
}

/* "inf" or "nan" at p, not followed by a letter or digit. */
static bool special_at(const char *p, const char *end, const char *w) {
  return end - p >= 3 && memcmp(p, w, 3) == 0 &&
         !at_class(p + 3, end, C_ALPHA | C_DIGIT);
}

static const char *digits(const char *p, const char *end) {
  while (at_digit(p, end)) p++;
  return p;
}

/* -?(digits[.digits][e[+-]digits] | inf | nan); 0 if none starts at p. */
static size_t number_len(const char *p, const char *end) {
  const char *q = at_char(p, end, '-') ? p + 1 : p;
  if (at_char(q, end, 'i') || at_char(q, end, 'n'))
    return special_at(q, end, "inf") || special_at(q, end, "nan") ? (size_t)(q + 3 - p) : 0;
  if (!at_digit(q, end)) return 0;
  q = digits(q, end);
  if (at_char(q, end, '.')) q = digits(q + 1, end);
  if (at_char(q, end, 'e') || at_char(q, end, 'E')) {
    const char *x = q + 1;
    if (at_char(x, end, '+') || at_char(x, end, '-')) x++;
    if (at_digit(x, end)) q = digits(x, end);
  }
  return (size_t)(q - p);
}

/* Identifiers join with '.' (class types, overloads) and '::' (op kinds). */
static size_t ident_len(const char *p, const char *end) {
  const char *q = p;
  for (;;) {
    if (at_class(q, end, C_ALPHA | C_DIGIT)) q++;
    else if (at_char(q, end, '.') && at_class(q + 1, end, C_ALPHA | C_DIGIT)) q++;
    else if (at_char(q, end, ':') && at_char(q + 1, end, ':') && at_class(q + 2, end, C_ALPHA)) q += 2;
    else return (size_t)(q - p);
  }
}

/* Finds the closing quote; escapes are decoded later by oxp_lx_unquote. */
static size_t string_len(const char *p, const char *end, const char **err) {
  char q = *p;
  for (const char *x = p + 1;; x++) {
    if (x == end || *x == '\n') {
      *err = "unterminated string";
      return (size_t)(x - p);
    }
    if (*x == q) return (size_t)(x + 1 - p);
    if (*x == '\\' && x + 1 < end && x[1] != '\n') x++;
  }
}

static oxp_tok make(oxp_lexer *lx, oxp_tok_kind k, size_t skip, size_t n) {
  oxp_tok t = {k, lx->s + lx->pos + skip, n, 0, {lx->file, lx->line, col_of(lx)},
              NULL};
  advance(lx, skip + n);
  if (k == LX_NEWLINE) {
    lx->line++;
    lx->line_start = lx->pos;
  }
  return t;
}

/* '#' to the end of the line; the token is the text between blanks. */
static oxp_tok lex_comment(oxp_lexer *lx, const char *p, const char *end) {
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  const char *stop = nl ? nl : end, *a = p + 1, *b = stop;
  while (a < b && (CLASS[(unsigned char)*a] & C_BLANK)) a++;
  while (b > a && (CLASS[(unsigned char)b[-1]] & C_BLANK)) b--;
  oxp_tok t = make(lx, LX_COMMENT, (size_t)(a - p), (size_t)(b - a));
  advance(lx, (size_t)(stop - b));
  return t;
}

static oxp_tok bad(oxp_lexer *lx, size_t n, const char *err) {
  oxp_tok t = make(lx, LX_BAD, 0, n);
  t.err = err;
  return t;
}

/* `%name`: the token's text leaves out the '%'. */
static oxp_tok lex_value(oxp_lexer *lx, const char *p, const char *end) {
  const char *q = p + 1;
  while (at_class(q, end, C_NAME)) q++;
  if (q == p + 1) return bad(lx, 1, "expected a value name after '%'");
  return make(lx, LX_VALUE, 1, (size_t)(q - p - 1));
}

static oxp_tok lex(oxp_lexer *lx) {
  skip_blanks(lx);
  const char *p = lx->s + lx->pos, *end = lx->s + lx->len;
  size_t n;
  if (p == end) return make(lx, LX_EOF, 0, 0);
  int c = (unsigned char)*p;
  switch (c) {
  case '\n': return make(lx, LX_NEWLINE, 0, 1);
  case '#': return lex_comment(lx, p, end);
  case '%': return lex_value(lx, p, end);
  case '"':
  case '\'': {
    const char *err = NULL;
    n = string_len(p, end, &err);
    return err ? bad(lx, n, err) : make(lx, LX_STRING, 0, n);
  }
  case '-':
    if (at_char(p + 1, end, '>')) return make(lx, LX_ARROW, 0, 2);
    break;
  }
  /* A number starts with a digit or '-', or is inf/nan: other letters
   * start identifiers without a try at a number. */
  if ((CLASS[c] & C_DIGIT) || c == '-' || c == 'i' || c == 'n')
    if ((n = number_len(p, end)) > 0) return make(lx, LX_NUMBER, 0, n);
  if (CLASS[c] & C_ALPHA) return make(lx, LX_IDENT, 0, ident_len(p, end));
  oxp_tok t = make(lx, LX_PUNCT, 0, 1);
  t.c = c;
  return t;
}

oxp_tok oxp_lx_lex(oxp_lexer *lx) { return lex(lx); }

/* Lexes the token once and keeps it with where the lexer would stand
 * after it; only the position is saved and restored. */
oxp_tok oxp_lx_peek_lex(oxp_lexer *lx) {
  size_t pos = lx->pos, line_start = lx->line_start;
  int line = lx->line;
  lx->ahead = lex(lx);
  lx->ahead_at = pos;
  lx->ahead_pos = lx->pos;
  lx->ahead_line = lx->line;
  lx->ahead_line_start = lx->line_start;
  lx->pos = pos;
  lx->line = line;
  lx->line_start = line_start;
  return lx->ahead;
}

bool oxp_lx_is_word(oxp_tok t, const char *s) {
  return (t.kind == LX_IDENT || t.kind == LX_NUMBER) && strlen(s) == t.n &&
         memcmp(t.p, s, t.n) == 0;
}

const char *oxp_lx_describe(oxp_tok t, char *buf, size_t n) {
  switch (t.kind) {
  case LX_EOF: snprintf(buf, n, "end of input"); break;
  case LX_NEWLINE: snprintf(buf, n, "end of line"); break;
  case LX_COMMENT: snprintf(buf, n, "a '#' comment"); break;
  case LX_VALUE: snprintf(buf, n, "'%%%.*s'", (int)(t.n > 40 ? 40 : t.n), t.p);
    break;
  case LX_PUNCT:
    if (t.c >= 0x20 && t.c < 0x7f) snprintf(buf, n, "'%c'", t.c);
    else snprintf(buf, n, "byte 0x%02x", t.c);
    break;
  default:
    snprintf(buf, n, "'%.*s%s'", (int)(t.n > 40 ? 40 : t.n), t.p,
             t.n > 40 ? "..." : "");
  }
  return buf;
}

/* The printer writes a byte it cannot show as '\' and three "octal digits"
 * computed from a signed char, so bytes >= 0x80 come out with digits below
 * '0' (e.g. 0xC3 as "\0)+"). Each digit is c - '0' in -8..7. */
static bool printer_octal(const char *p, size_t left, int *byte) {
  if (left < 3) return false;
  int v = 0;
  for (int i = 0; i < 3; i++) {
    int d = (unsigned char)p[i] - '0';
    if (d < -8 || d > 7) return false;
    v = v * 8 + d;
  }
  *byte = v & 0xff;
  return true;
}

static int hexval(int c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes the escape at p[0] == '\\'; returns bytes consumed, 0 if bad. */
static size_t unescape(const char *p, size_t left, int *out) {
  static const char from[] = "ntrbfva\"'\\?";
  static const char to[] = "\n\t\r\b\f\v\a\"'\\?";
  if (left < 2) return 0;
  const char *k = memchr(from, p[1], sizeof from - 1);
  if (k) {
    *out = to[k - from];
    return 2;
  }
  if (printer_octal(p + 1, left - 1, out)) return 4;
  if (p[1] >= '0' && p[1] <= '7') {
    size_t i = 1;
    int v = 0;
    while (i < 4 && i < left && p[i] >= '0' && p[i] <= '7')
      v = v * 8 + (p[i++] - '0');
    *out = v & 0xff;
    return i;
  }
  if (p[1] == 'x' && left >= 3 && hexval((unsigned char)p[2]) >= 0) {
    size_t i = 2;
    int v = 0;
    while (i < 4 && i < left && hexval((unsigned char)p[i]) >= 0)
      v = v * 16 + hexval((unsigned char)p[i++]);
    *out = v;
    return i;
  }
  return 0;
}

char *oxp_lx_unquote(oxp_arena *a, oxp_tok t, size_t *n, const char **err,
                 oxp_loc *at) {
  *err = NULL;
  if (t.kind != LX_STRING || t.n < 2) {
    *err = "expected a string";
    *at = t.loc;
    return NULL;
  }
  char *out = oxp_alloc(a, t.n);
  if (!out) {
    *err = "out of memory";
    *at = t.loc;
    return NULL;
  }
  size_t o = 0, end = t.n - 1;
  for (size_t i = 1; i < end;) {
    int c = (unsigned char)t.p[i];
    if (c != '\\') {
      out[o++] = (char)c;
      i++;
      continue;
    }
    size_t used = unescape(t.p + i, end - i, &c);
    if (!used) {
      *err = "invalid escape in string";
      *at = (oxp_loc){t.loc.file, t.loc.line, t.loc.col + (int)i};
      return NULL;
    }
    out[o++] = (char)c;
    i += used;
  }
  out[o] = 0;
  *n = o;
  return out;
}

const char *oxp_lx_raw_until_comment(oxp_lexer *lx, size_t *n) {
  skip_blanks(lx);
  const char *p = lx->s + lx->pos, *end = lx->s + lx->len, *q = p;
  while (q < end && *q != '\n' && *q != '#') q++;
  while (q > p && (CLASS[(unsigned char)q[-1]] & C_BLANK)) q--;
  *n = (size_t)(q - p);
  advance(lx, *n);
  return p;
}
