/* parse_tensor.c: the tensor data the printer writes inline in an
 * attribute, and the numbers it is written with.
 *
 * A tensor attribute prints three ways: `{x}` for one element, the C++
 * tensor printout with its newlines turned into spaces for up to ten
 * (`1.5 2 [ CPUFloatType{2} ]`, with `(1,.,.) =` slice headers,
 * `Columns 1 to 6` chunks and a `1e+06 *` scale), and `<Tensor>` beyond
 * (its data then comes from the weights sidecar). */
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* ---- numbers ------------------------------------------------------------ */

bool oxp_pnums_push(oxp_pctx *c, oxp_pnums *e, oxp_pnum x, int64_t pos,
                    oxp_loc at) {
  if (e->n == e->cap) {
    int nc = e->cap ? e->cap * 2 : 16;
    oxp_pnum *v = oxp_realloc(c->a, e->v, sizeof *v * (size_t)e->cap,
                          sizeof *v * (size_t)nc);
    int64_t *p = oxp_realloc(c->a, e->pos, sizeof *p * (size_t)e->cap,
                             sizeof *p * (size_t)nc);
    if (!v || !p) return oxp_pnomem(c, &at);
    e->v = v;
    e->pos = p;
    e->cap = nc;
  }
  e->pos[e->n] = pos;
  e->v[e->n++] = x;
  return true;
}

bool oxp_parse_int(oxp_tok t, int64_t *out) {
  size_t i = 0;
  bool neg = t.n > 0 && t.p[0] == '-';
  if (neg) i++;
  if (i >= t.n) return false;
  uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  for (; i < t.n; i++) {
    if (t.p[i] < '0' || t.p[i] > '9') return false;
    unsigned d = (unsigned)(t.p[i] - '0');
    if (v > (lim - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return true;
}

/* Clinger's fast path, for the short decimals constants mostly are: a
 * mantissa of at most 15 digits and a power of ten up to 1e22 are both
 * exact doubles, so one product or quotient rounds once, correctly, to
 * what strtod returns. false leaves the number to strtod. */
static bool exact_decimal(oxp_tok t, double *out) {
  static const double POW10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char *p = t.p, *end = t.p + t.n;
  bool neg = p < end && *p == '-';
  uint64_t m = 0;
  int digits = 0, scale = 0, ndig = 0;
  for (p += neg; p < end && *p >= '0' && *p <= '9'; p++, ndig++)
    if ((m = m * 10 + (uint64_t)(*p - '0')) && ++digits > 15) return false;
  if (p < end && *p == '.')
    for (p++; p < end && *p >= '0' && *p <= '9'; p++, ndig++, scale--)
      if ((m = m * 10 + (uint64_t)(*p - '0')) && ++digits > 15) return false;
  if (!ndig) return false;
  if (p < end && (*p == 'e' || *p == 'E')) {
    p++;
    bool eneg = false;
    if (p < end && (*p == '-' || *p == '+')) eneg = *p++ == '-';
    int e = 0, edig = 0;
    for (; p < end && *p >= '0' && *p <= '9' && e < 1000; p++, edig++) e = e * 10 + (*p - '0');
    if (!edig) return false;
    scale += eneg ? -e : e;
  }
  if (p != end || scale < -22 || scale > 22) return false;
  double v = scale < 0 ? (double)m / POW10[-scale] : (double)m * POW10[scale];
  *out = neg ? -v : v;
  return true;
}

/* strtod honours LC_NUMERIC, but the printer always writes '.', so the
 * point is swapped for the locale's before converting. */
static bool to_double(oxp_tok t, double *out) {
  if (exact_decimal(t, out)) return true;
  char buf[80];
  if (t.n == 0 || t.n >= sizeof buf) return false;
  memcpy(buf, t.p, t.n);
  buf[t.n] = 0;
  const char *dp = localeconv()->decimal_point;
  char *dot = strchr(buf, '.');
  if (dot && dp && dp[0] && dp[0] != '.' && !dp[1]) *dot = dp[0];
  char *end;
  *out = strtod(buf, &end);
  return end == buf + t.n;
}

static bool is_int_text(oxp_tok t) {
  for (size_t i = 0; i < t.n; i++)
    if (!(t.p[i] == '-' || (t.p[i] >= '0' && t.p[i] <= '9'))) return false;
  return true;
}

bool oxp_pnum_token(oxp_tok t) {
  return t.kind == LX_NUMBER || oxp_lx_is_word(t, "inf") || oxp_lx_is_word(t, "nan");
}

/* Reads one number token into e; false (with an error) if malformed. */
bool oxp_pnum_read(oxp_pctx *c, oxp_tok t, oxp_pnum *e) {
  memset(e, 0, sizeof *e);
  if (is_int_text(t)) {
    if (!oxp_parse_int(t, &e->i))
      return oxp_perr(c, &t.loc, "integer %.*s is out of range", (int)t.n,
                      t.p);
    e->isint = true;
    e->f = (double)e->i;
    return true;
  }
  if (!to_double(t, &e->f))
    return oxp_perr(c, &t.loc, "malformed number '%.*s'", (int)t.n, t.p);
  e->i = (int64_t)0;
  return true;
}

/* Does the mantissa of number t hold at least sig significant digits,
 * or (sig 0) exactly frac fractional digits ending in a nonzero one? The
 * printer rounds a float to six significant digits in `{x}` and to four
 * decimals in a printout, so such a number may not be torch's value (a
 * traced 0.7071067811865476 prints {0.707107}); a shorter one is taken as
 * written (0.5, 1e-05). */
static bool full_precision(oxp_tok t, int sig, int frac) {
  int n = 0, f = 0;
  bool lead = true, point = false;
  char last = 0;
  for (size_t i = 0; i < t.n && t.p[i] != 'e' && t.p[i] != 'E'; i++) {
    char ch = t.p[i];
    if (ch == '.') point = true;
    if (ch < '0' || ch > '9') continue;
    if (point) f++;
    if (lead && ch == '0') continue;
    lead = false;
    n++;
    last = ch;
  }
  return sig ? n >= sig : f == frac && last != '0';
}

/* ---- encoding values into tensor bytes ------------------------------- */

static uint16_t to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, e = (x >> 23) & 0xff, m = x & 0x7fffff;
  if (e == 0xff) return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
  int ne = (int)e - 127 + 15;
  if (ne >= 0x1f) return (uint16_t)(sign | 0x7c00);
  if (ne <= 0) {
    if (ne < -10) return (uint16_t)sign;
    m |= 0x800000;
    int shift = 14 - ne;
    uint32_t h = m >> shift, rem = m & ((1u << shift) - 1),
             half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)ne << 10) | (m >> 13), rem = m & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++; /* may carry to inf */
  return (uint16_t)(sign | h);
}

static uint16_t to_bfloat16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

/* Whole-number value of e, saturating, for integer dtypes. */
static int64_t as_int(const oxp_pnum *e) {
  if (e->isint) return e->i;
  double f = e->f;
  if (f != f) return 0;
  if (f >= 9.2233720368547758e18) return INT64_MAX;
  if (f <= -9.2233720368547758e18) return INT64_MIN;
  return (int64_t)(f < 0 ? f - 0.5 : f + 0.5);
}

static void store(void *data, int dt, int64_t at, const oxp_pnum *e) {
  size_t sz = oxp_dtype_size(dt);
  unsigned char *p = (unsigned char *)data + (size_t)at * sz;
  double f = e->f;
  int64_t i = as_int(e);
  float f32 = (float)f;
  uint16_t u16;
  int32_t i32;
  int16_t i16;
  switch (dt) {
  case OXP_DT_FLOAT: memcpy(p, &f32, 4); break;
  case OXP_DT_DOUBLE: memcpy(p, &f, 8); break;
  case OXP_DT_FLOAT16: u16 = to_half(f32); memcpy(p, &u16, 2); break;
  case OXP_DT_BFLOAT16: u16 = to_bfloat16(f32); memcpy(p, &u16, 2); break;
  case OXP_DT_COMPLEX64: {
    float im = (float)e->im;
    memcpy(p, &f32, 4);
    memcpy(p + 4, &im, 4);
    break;
  }
  case OXP_DT_COMPLEX128:
    memcpy(p, &f, 8);
    memcpy(p + 8, &e->im, 8);
    break;
  case OXP_DT_BOOL: *p = (f != 0 || i != 0); break;
  case OXP_DT_INT8: case OXP_DT_UINT8: *p = (unsigned char)i; break;
  case OXP_DT_INT16: case OXP_DT_UINT16:
    i16 = (int16_t)(uint16_t)i; memcpy(p, &i16, 2); break;
  case OXP_DT_INT32: case OXP_DT_UINT32:
    i32 = (int32_t)(uint32_t)i; memcpy(p, &i32, 4); break;
  default: memcpy(p, &i, 8); break; /* INT64, UINT64 */
  }
}

static bool decodable(int dt) {
  return oxp_dtype_is_float(dt) || oxp_dtype_is_int(dt) ||
         dt == OXP_DT_BOOL || dt == OXP_DT_COMPLEX64 ||
         dt == OXP_DT_COMPLEX128;
}

/* Without a declared dtype, torch's scalar rules: integral text is Long. */
int oxp_pnums_dtype(const oxp_pnums *e) {
  for (int k = 0; k < e->n; k++)
    if (!e->v[k].isint) return OXP_DT_FLOAT;
  return OXP_DT_INT64;
}

static bool build_tensor(oxp_pctx *c, oxp_loc at, oxp_node *n,
                         const char *name, int dt, int rank,
                         const int64_t *dims, const oxp_pnums *e) {
  if (!decodable(dt))
    return oxp_perr(c, &at, "cannot decode inline tensor data of dtype %s",
                    oxp_dtype_name(dt));
  oxp_tensor *t = oxp_tensor_alloc(c->a, dt, rank, dims);
  if (!t) return oxp_pnomem(c, &at);
  /* six significant digits ({x}, no positions) pin a float16 or bfloat16
   * down; a float32 needs nine */
  bool narrow = dt == OXP_DT_FLOAT16 || dt == OXP_DT_BFLOAT16;
  for (int k = 0; k < e->n; k++) {
    store((void *)t->data, dt, e->pos ? e->pos[k] : k, &e->v[k]);
    if (e->v[k].rounded && oxp_dtype_is_float(dt) && !(narrow && !e->pos)) t->rounded = true;
  }
  oxp_attr_set_t(n, name, t);
  return true;
}

static int decl_dtype(const oxp_type *decl) {
  return decl && decl->kind == OXP_T_TENSOR ? decl->dtype : 0;
}

/* ---- `{x}`: one element, shaped like the declared type ----------------- */

static bool scalar_tensor(oxp_pctx *c, oxp_node *n, const char *name,
                          const oxp_type *decl) {
  oxp_tok open = oxp_lx_next(&c->lx), t = oxp_lx_next(&c->lx);
  oxp_pnum x;
  if (oxp_lx_is_punct(t, '(')) { /* complex: (re,im) */
    oxp_pnum im;
    oxp_tok re = oxp_lx_next(&c->lx);
    if (!oxp_pnum_token(re) || !oxp_pnum_read(c, re, &x)) goto bad;
    if (!oxp_pexpect(c, ',', "in a complex value")) return false;
    t = oxp_lx_next(&c->lx);
    if (!oxp_pnum_token(t) || !oxp_pnum_read(c, t, &im)) goto bad;
    x.im = im.f;
    x.isint = false;
    if (!oxp_pexpect(c, ')', "after a complex value")) return false;
  } else if (!oxp_pnum_token(t) || !oxp_pnum_read(c, t, &x)) {
    goto bad;
  }
  if (!oxp_pexpect(c, '}', "after inline tensor data")) return false;
  x.rounded = !x.isint && full_precision(t, 6, 0);
  oxp_pnums e = {&x, NULL, 1, 1};
  int dt = decl_dtype(decl) ? decl_dtype(decl) : oxp_pnums_dtype(&e);
  if (x.im != 0 && dt == OXP_DT_FLOAT) dt = OXP_DT_COMPLEX64;
  int rank = decl && decl->kind == OXP_T_TENSOR && decl->rank > 0
                 ? decl->rank : 0;
  int64_t dims[64];
  if (rank > 64)
    return oxp_perr(c, &open.loc, "tensor rank %d too large", rank);
  for (int k = 0; k < rank; k++) {
    if (decl->dims[k] > 1)
      return oxp_perr(c, &open.loc,
                      "tensor data has 1 element but the declared type "
                      "has more");
    dims[k] = decl->dims[k] < 0 ? 1 : decl->dims[k];
  }
  return build_tensor(c, open.loc, n, name, dt, rank, dims, &e);
bad:
  if (c->st) return false;
  char b[64];
  return oxp_perr(c, &t.loc, "expected a number in inline tensor data, "
                  "found %s", oxp_lx_describe(t, b, sizeof b));
}

/* ---- the C++ printout of 2..10 elements -------------------------------- */

typedef struct {
  int rank;
  int64_t dims[16];
  int64_t numel;
  int dtype;            /* from "CPUFloatType", 0 if not recognized */
  oxp_lexer start, end; /* around "[ XType{...} ]" */
} trailer;

/* "CPUFloatType" -> Float: the backend prefix varies (CPU, CUDA, ...). */
static int trailer_dtype(oxp_tok t) {
  if (t.n <= 4 || memcmp(t.p + t.n - 4, "Type", 4) != 0) return 0;
  for (size_t k = 0; k + 4 < t.n; k++) {
    int dt = oxp_dtype_from_torch_name(t.p + k, t.n - 4 - k);
    if (dt) return dt;
  }
  return 0;
}

static bool is_type_word(oxp_tok t) {
  return t.kind == LX_IDENT && t.n > 4 && memcmp(t.p + t.n - 4, "Type", 4) == 0;
}

/* Whether a '[' comes before the first ']' and the line's end: else no
 * trailer can follow, and most attributes (value=1, value={0.5}) are
 * ruled out by this scan of bytes instead of lexing ahead. (A '[' in a
 * string or comment passes here; the tokens below then rule it out.) */
static bool bracket_ahead(const oxp_lexer *lx) {
  for (size_t i = lx->pos; i < lx->len; i++) {
    if (lx->s[i] == '[') return true;
    if (lx->s[i] == ']' || lx->s[i] == '\n') return false;
  }
  return false;
}

/* Looks ahead (on a copy) for the "[ XType{d, ...} ]" that ends a
 * printout. Stops at the first ']' or line end, so lists never match. */
static bool find_trailer(const oxp_lexer *from, trailer *tr) {
  if (!bracket_ahead(from)) return false;
  oxp_lexer lx = *from;
  for (;;) {
    oxp_lexer here = lx;
    oxp_tok t = oxp_lx_next(&lx);
    if (t.kind == LX_EOF || t.kind == LX_NEWLINE || t.kind == LX_BAD ||
        t.kind == LX_STRING || t.kind == LX_COMMENT || oxp_lx_is_punct(t, ']'))
      return false;
    if (!oxp_lx_is_punct(t, '[')) continue;
    oxp_tok w = oxp_lx_next(&lx);
    if (!is_type_word(w) || !oxp_lx_is_punct(oxp_lx_next(&lx), '{')) return false;
    tr->start = here;
    tr->dtype = trailer_dtype(w);
    tr->rank = 0;
    tr->numel = 1;
    oxp_tok d = oxp_lx_next(&lx);
    while (!oxp_lx_is_punct(d, '}')) {
      int64_t v;
      if (tr->rank == 16 || !oxp_parse_int(d, &v) || v < 0) return false;
      tr->dims[tr->rank++] = v;
      if (v && tr->numel > (INT64_C(1) << 40) / v) return false;
      tr->numel *= v;
      d = oxp_lx_next(&lx);
      if (oxp_lx_is_punct(d, ',')) d = oxp_lx_next(&lx);
    }
    if (!oxp_lx_is_punct(oxp_lx_next(&lx), ']')) return false;
    tr->end = lx;
    return true;
  }
}

/* Where the printer's next value lands: slices of rows x cols matrices,
 * each printed in column chunks, row-major inside a chunk. */
typedef struct {
  int64_t rows, cols, matrix, c0, c1, k;
  double scale;
} layout;

static void layout_init(layout *l, const trailer *tr) {
  l->rows = tr->rank >= 2 ? tr->dims[tr->rank - 2] : tr->rank ? tr->dims[0] : 1;
  l->cols = tr->rank >= 2 ? tr->dims[tr->rank - 1] : 1;
  l->matrix = 0;
  l->c0 = 0;
  l->c1 = l->cols - 1;
  l->k = 0;
  l->scale = 1;
}

static int64_t layout_next(layout *l) {
  int64_t w = l->c1 - l->c0 + 1;
  if (w <= 0) return -1;
  int64_t at = l->matrix * l->rows * l->cols + (l->k / w) * l->cols + l->c0 +
               l->k % w;
  l->k++;
  return at;
}

/* "Columns 1 to 6" */
static bool columns(oxp_pctx *c, layout *l, oxp_tok w) {
  oxp_tok a = oxp_lx_next(&c->lx), to = oxp_lx_next(&c->lx), b = oxp_lx_next(&c->lx);
  int64_t x, y;
  if (!oxp_parse_int(a, &x) || !oxp_lx_is_word(to, "to") ||
      !oxp_parse_int(b, &y) || x < 1 || y < x || y > l->cols)
    return oxp_perr(c, &w.loc, "malformed 'Columns' in tensor data");
  l->c0 = x - 1;
  l->c1 = y - 1;
  l->k = 0;
  return true;
}

/* "(1,2,.,.) =" starts the next matrix slice. */
static bool slice_header(oxp_pctx *c, layout *l, oxp_tok open, bool *first) {
  oxp_tok t = oxp_lx_next(&c->lx);
  while (t.kind == LX_NUMBER || oxp_lx_is_punct(t, ',') || oxp_lx_is_punct(t, '.'))
    t = oxp_lx_next(&c->lx);
  if (!oxp_lx_is_punct(t, ')') || !oxp_lx_is_punct(oxp_lx_next(&c->lx), '='))
    return oxp_perr(c, &open.loc, "malformed slice header in tensor data");
  if (!*first) l->matrix++;
  *first = false;
  l->c0 = 0;
  l->c1 = l->cols - 1;
  l->k = 0;
  return true;
}

static bool printout_value(oxp_pctx *c, layout *l, const trailer *tr,
                           oxp_pnums *e, oxp_tok t) {
  oxp_pnum x;
  if (!oxp_pnum_read(c, t, &x)) return false;
  if (oxp_lx_is_punct(oxp_lx_peek(&c->lx), '*')) { /* "1e+06 *" scales the rest */
    oxp_lx_next(&c->lx);
    l->scale = x.f;
    return true;
  }
  x.rounded = !x.isint && full_precision(t, 0, 4);
  if (l->scale != 1) {
    x.f *= l->scale;
    x.isint = false;
  }
  int64_t at = layout_next(l);
  if (at < 0 || at >= tr->numel)
    return oxp_perr(c, &t.loc, "more tensor values than its shape holds");
  return oxp_pnums_push(c, e, x, at, t.loc);
}

static bool printout(oxp_pctx *c, oxp_node *n, const char *name,
                     const oxp_type *decl, const trailer *tr) {
  oxp_pnums e = {0};
  layout l;
  layout_init(&l, tr);
  bool first = true;
  oxp_loc at = oxp_lx_here(&c->lx);
  while (c->lx.pos < tr->start.pos) {
    oxp_tok t = oxp_lx_next(&c->lx);
    bool ok;
    if (oxp_pnum_token(t)) ok = printout_value(c, &l, tr, &e, t);
    else if (oxp_lx_is_word(t, "Columns")) ok = columns(c, &l, t);
    else if (oxp_lx_is_punct(t, '(')) ok = slice_header(c, &l, t, &first);
    else {
      char b[64];
      ok = oxp_perr(c, &t.loc, "unexpected %s in tensor data",
                    oxp_lx_describe(t, b, sizeof b));
    }
    if (!ok) return false;
  }
  if (e.n != tr->numel)
    return oxp_perr(c, &at, "tensor data has %d values but its shape "
                    "holds %lld", e.n, (long long)tr->numel);
  c->lx = tr->end;
  int dt = decl_dtype(decl) ? decl_dtype(decl)
                            : tr->dtype ? tr->dtype : oxp_pnums_dtype(&e);
  return build_tensor(c, at, n, name, dt, tr->rank, tr->dims, &e);
}

static bool tensor_placeholder(oxp_pctx *c, oxp_node *n, const char *name,
                               const oxp_type *decl) {
  oxp_loc at = oxp_lx_next(&c->lx).loc;
  oxp_lx_next(&c->lx);
  oxp_lx_next(&c->lx);
  int rank = decl && decl->kind == OXP_T_TENSOR && decl->rank > 0
                 ? decl->rank : 0;
  oxp_tensor *t = oxp_tensor_new(c->a, decl_dtype(decl), rank,
                                 rank ? decl->dims : NULL, NULL, 0);
  if (!t) return oxp_pnomem(c, &at);
  oxp_attr_set_t(n, name, t);
  return true;
}

static bool is_tensor_placeholder(const oxp_lexer *lx) {
  oxp_lexer l = *lx;
  return oxp_lx_is_punct(oxp_lx_next(&l), '<') && oxp_lx_is_word(oxp_lx_next(&l), "Tensor") &&
         oxp_lx_is_punct(oxp_lx_next(&l), '>');
}

bool oxp_parse_tensor_value(oxp_pctx *c, oxp_node *n, const char *name,
                            const oxp_type *decl, bool *handled) {
  trailer tr;
  *handled = true;
  if (find_trailer(&c->lx, &tr)) return printout(c, n, name, decl, &tr);
  if (is_tensor_placeholder(&c->lx))
    return tensor_placeholder(c, n, name, decl);
  oxp_lexer l = c->lx;
  if (oxp_lx_is_punct(oxp_lx_next(&l), '{')) {
    oxp_tok x = oxp_lx_next(&l);
    if (x.kind != LX_STRING && !oxp_lx_is_punct(x, '}')) /* else a dict */
      return scalar_tensor(c, n, name, decl);
  }
  *handled = false;
  return true;
}
