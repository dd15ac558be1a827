/* lexer.c: splits TorchScript IR text into tokens.
 *
 * The text is not NUL-terminated, so every byte is read through ch(),
 * which returns -1 past the end; a NUL byte inside the text is an ordinary
 * (invalid) character, never a terminator. Character classes come from
 * one table, and a token's column is its distance from the line's start:
 * this loop runs over every byte of inputs of hundreds of megabytes. */
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

static int ch(const oxp_lexer *lx, size_t off) {
  size_t i = lx->pos + off;
  return i < lx->len ? (unsigned char)lx->s[i] : -1;
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

static bool is_class(int c, int k) { return c >= 0 && (CLASS[c] & k); }
static bool is_blank(int c) { return is_class(c, C_BLANK); }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_alpha(int c) { return is_class(c, C_ALPHA); }
static bool is_alnum(int c) { return is_class(c, C_ALPHA | C_DIGIT); }
static bool is_name_char(int c) { return is_class(c, C_NAME); }

static void skip_blanks(oxp_lexer *lx) {
  while (lx->pos < lx->len && (CLASS[(unsigned char)lx->s[lx->pos]] & C_BLANK)) lx->pos++;
}

oxp_loc oxp_lx_here(const oxp_lexer *lx) {
  oxp_lexer c = *lx;
  skip_blanks(&c);
  return (oxp_loc){c.file, c.line, col_of(&c)};
}

static bool word_at(const oxp_lexer *lx, size_t off, const char *w) {
  size_t n = 3; /* "inf" and "nan" */
  for (size_t i = 0; i < n; i++)
    if (ch(lx, off + i) != (unsigned char)w[i]) return false;
  return !is_alnum(ch(lx, off + n));
}

/* -?(digits[.digits][e[+-]digits] | inf | nan) */
static size_t number_len(const oxp_lexer *lx) {
  size_t i = ch(lx, 0) == '-' ? 1 : 0;
  int c = ch(lx, i);
  if ((c == 'i' && word_at(lx, i, "inf")) || (c == 'n' && word_at(lx, i, "nan"))) return i + 3;
  if (!is_digit(ch(lx, i))) return 0;
  while (is_digit(ch(lx, i))) i++;
  if (ch(lx, i) == '.') {
    i++;
    while (is_digit(ch(lx, i))) i++;
  }
  if (ch(lx, i) == 'e' || ch(lx, i) == 'E') {
    size_t j = i + 1;
    if (ch(lx, j) == '+' || ch(lx, j) == '-') j++;
    if (is_digit(ch(lx, j))) {
      while (is_digit(ch(lx, j))) j++;
      i = j;
    }
  }
  return i;
}

/* Identifiers join with '.' (class types, overloads) and '::' (op kinds). */
static size_t ident_len(const oxp_lexer *lx) {
  size_t i = 0;
  while (is_alnum(ch(lx, i)) ||
         (ch(lx, i) == '.' && is_alnum(ch(lx, i + 1))) ||
         (ch(lx, i) == ':' && ch(lx, i + 1) == ':' && is_alpha(ch(lx, i + 2))))
    i += ch(lx, i) == ':' ? 2 : 1;
  return i;
}

/* Finds the closing quote; escapes are decoded later by oxp_lx_unquote. */
static size_t string_len(const oxp_lexer *lx, const char **err) {
  int q = ch(lx, 0);
  for (size_t i = 1;; i++) {
    int c = ch(lx, i);
    if (c == q) return i + 1;
    if (c == '\\' && ch(lx, i + 1) != '\n' && ch(lx, i + 1) != -1) {
      i++;
      continue;
    }
    if (c == -1 || c == '\n') {
      *err = "unterminated string";
      return i;
    }
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

static oxp_tok lex_comment(oxp_lexer *lx) {
  size_t i = 1;
  while (is_blank(ch(lx, i))) i++;
  size_t start = i;
  while (ch(lx, i) != -1 && ch(lx, i) != '\n') i++;
  size_t end = i;
  while (end > start && is_blank(ch(lx, end - 1))) end--;
  oxp_tok t = make(lx, LX_COMMENT, start, end - start);
  advance(lx, i - end);
  return t;
}

static oxp_tok lex(oxp_lexer *lx);

oxp_tok oxp_lx_next(oxp_lexer *lx) {
  if (lx->ahead_at == lx->pos) {
    lx->pos = lx->ahead_pos;
    lx->line = lx->ahead_line;
    lx->line_start = lx->ahead_line_start;
    return lx->ahead;
  }
  return lex(lx);
}

static oxp_tok lex(oxp_lexer *lx) {
  skip_blanks(lx);
  int c = ch(lx, 0);
  size_t n;
  if (c == -1) return make(lx, LX_EOF, 0, 0);
  if (c == '\n') return make(lx, LX_NEWLINE, 0, 1);
  if (c == '#') return lex_comment(lx);
  if (c == '%') {
    n = 1;
    while (is_name_char(ch(lx, n))) n++;
    if (n == 1) {
      oxp_tok t = make(lx, LX_BAD, 0, 1);
      t.err = "expected a value name after '%'";
      return t;
    }
    return make(lx, LX_VALUE, 1, n - 1);
  }
  if (c == '"' || c == '\'') {
    const char *err = NULL;
    n = string_len(lx, &err);
    oxp_tok t = make(lx, err ? LX_BAD : LX_STRING, 0, n);
    t.err = err;
    return t;
  }
  if (c == '-' && ch(lx, 1) == '>') return make(lx, LX_ARROW, 0, 2);
  if ((n = number_len(lx)) > 0) return make(lx, LX_NUMBER, 0, n);
  if (is_alpha(c)) return make(lx, LX_IDENT, 0, ident_len(lx));
  oxp_tok t = make(lx, LX_PUNCT, 0, 1);
  t.c = c;
  return t;
}

oxp_tok oxp_lx_peek(oxp_lexer *lx) {
  oxp_lexer c = *lx;
  oxp_tok t = oxp_lx_next(&c);
  lx->ahead_at = lx->pos;
  lx->ahead = t;
  lx->ahead_pos = c.pos;
  lx->ahead_line = c.line;
  lx->ahead_line_start = c.line_start;
  return t;
}

bool oxp_lx_is_punct(oxp_tok t, int c) { return t.kind == LX_PUNCT && t.c == c; }

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
  size_t i = 0;
  while (ch(lx, i) != -1 && ch(lx, i) != '\n' && ch(lx, i) != '#') i++;
  size_t end = i;
  while (end > 0 && is_blank(ch(lx, end - 1))) end--;
  const char *p = lx->s + lx->pos;
  advance(lx, end);
  *n = end;
  return p;
}
