/* parse_type.c: value types as the printer writes them.
 *
 *   type := ('(' [type {',' type}] ')' | name ['(' args ')']) {'[]' | '?'}
 *
 * Tensor types keep dtype, sizes ('*' is a dynamic dim), strides (they
 * tell functionalization whether a reshape aliases its input) and
 * requires_grad; device does not matter to an export and is skipped. */
#include <stdint.h>
#include <string.h>

#include "parse.h"

static oxp_type *new_type(oxp_pctx *c, oxp_kind k) {
  oxp_type *t = oxp_type_new(c->a, k);
  if (!t) oxp_pnomem(c, NULL);
  return t;
}

/* Skips a keyword argument's value (strides=[3, 1], device=cuda:0). */
static bool skip_kwarg(oxp_pctx *c) {
  int sq = 0, par = 0;
  for (;;) {
    oxp_tok t = oxp_lx_peek(&c->lx);
    if (sq == 0 && par == 0 && (oxp_lx_is_punct(t, ',') || oxp_lx_is_punct(t, ')')))
      return true;
    if (t.kind == LX_NEWLINE || t.kind == LX_EOF || t.kind == LX_BAD ||
        t.kind == LX_COMMENT)
      return oxp_punexpected(c, t, "')' to close the tensor type");
    if ((oxp_lx_is_punct(t, ')') && sq > 0) || (oxp_lx_is_punct(t, ']') && sq == 0))
      return oxp_punexpected(c, t, sq ? "']'" : "',' or ')'");
    sq += oxp_lx_is_punct(t, '[') - oxp_lx_is_punct(t, ']');
    par += oxp_lx_is_punct(t, '(') - oxp_lx_is_punct(t, ')');
    oxp_lx_next(&c->lx);
  }
}

/* strides=[6, 1]: kept when every entry is a number, else dropped (a
 * type without strides is one whose layout is unknown). */
static bool strides_arg(oxp_pctx *c, int64_t *st, int *nst) {
  if (!oxp_lx_is_punct(oxp_lx_peek(&c->lx), '[')) return skip_kwarg(c);
  oxp_lx_next(&c->lx);
  int n = 0;
  bool ok = true;
  for (;;) {
    oxp_tok t = oxp_lx_next(&c->lx);
    int64_t v;
    if (oxp_lx_is_punct(t, ']')) break;
    if (oxp_lx_is_punct(t, ',')) continue;
    if (t.kind == LX_NUMBER && oxp_parse_int(t, &v) && v >= 0 && n < OXP_MAX_TYPE_RANK)
      st[n++] = v;
    else if (oxp_lx_is_punct(t, '*') || t.kind == LX_NUMBER)
      ok = false;
    else
      return oxp_punexpected(c, t, "']'");
  }
  *nst = ok ? n : -1;
  return true;
}

/* One item of Float(...): a size, '*', SS(-2), or name=value. */
static bool tensor_arg(oxp_pctx *c, oxp_type *ty, int64_t *dims,
                       int64_t *st, int *nst) {
  oxp_tok t = oxp_lx_next(&c->lx);
  int64_t d = -1;
  if (t.kind == LX_IDENT && oxp_lx_is_punct(oxp_lx_peek(&c->lx), '=')) {
    oxp_lx_next(&c->lx);
    if (oxp_lx_is_word(t, "requires_grad")) {
      oxp_tok v = oxp_lx_peek(&c->lx);
      ty->requires_grad = oxp_lx_is_word(v, "1") || oxp_lx_is_word(v, "True");
    }
    if (oxp_lx_is_word(t, "strides")) return strides_arg(c, st, nst);
    return skip_kwarg(c);
  }
  if (oxp_lx_is_word(t, "SS")) { /* symbolic size: dynamic */
    if (!oxp_pexpect(c, '(', "after SS")) return false;
    oxp_tok id = oxp_lx_next(&c->lx);
    if (id.kind != LX_NUMBER)
      return oxp_punexpected(c, id, "a symbolic size such as -2 after SS(");
    if (!oxp_pexpect(c, ')', "after the symbolic size")) return false;
  } else if (!oxp_lx_is_punct(t, '*') &&
             !(t.kind == LX_NUMBER && oxp_parse_int(t, &d) && d >= 0)) {
    return oxp_punexpected(c, t, "a dimension size, '*' or name=value");
  }
  if (ty->rank == OXP_MAX_TYPE_RANK)
    return oxp_perr(c, &t.loc, "tensor rank above %d (onnxexp's limit)",
                    OXP_MAX_TYPE_RANK);
  dims[ty->rank++] = d;
  return true;
}

/* `(` was seen after a tensor type name: sizes and keyword arguments.
 * Any parenthesized form fixes the rank, so Long(requires_grad=0,
 * device=cpu) is 0-d, while a bare Long has unknown rank. */
static bool tensor_args(oxp_pctx *c, oxp_type *ty) {
  int64_t dims[OXP_MAX_TYPE_RANK], st[OXP_MAX_TYPE_RANK];
  int nst = -1;
  oxp_tok open = oxp_lx_next(&c->lx);
  ty->rank = 0;
  if (!oxp_lx_is_punct(oxp_lx_peek(&c->lx), ')')) {
    for (;;) {
      if (!tensor_arg(c, ty, dims, st, &nst)) return false;
      oxp_tok t = oxp_lx_next(&c->lx);
      if (oxp_lx_is_punct(t, ')')) break;
      if (!oxp_lx_is_punct(t, ','))
        return oxp_punexpected(c, t, "',' or ')' in the tensor type");
    }
  } else {
    oxp_lx_next(&c->lx);
  }
  /* torch counts elements in int64; a bigger shape is no tensor, and
   * would overflow every later product of its dims. */
  int64_t numel = 1;
  bool over = false, empty = false;
  for (int i = 0; i < ty->rank; i++) {
    empty |= dims[i] == 0;
    if (dims[i] > 0) over |= __builtin_mul_overflow(numel, dims[i], &numel);
  }
  if (over && !empty)
    return oxp_perr(c, &open.loc, "tensor type with more than %lld elements",
                    (long long)INT64_MAX);
  if (ty->rank > 0) {
    ty->dims = oxp_alloc(c->a, sizeof *dims * (size_t)ty->rank);
    if (!ty->dims) return oxp_pnomem(c, NULL);
    memcpy(ty->dims, dims, sizeof *dims * (size_t)ty->rank);
    if (nst == ty->rank) {
      ty->strides = oxp_alloc(c->a, sizeof *st * (size_t)ty->rank);
      if (!ty->strides) return oxp_pnomem(c, NULL);
      memcpy(ty->strides, st, sizeof *st * (size_t)ty->rank);
    }
  }
  return true;
}

/* Dtype of Float, Long, ... and of FloatTensor-style names; -1 if the
 * name is not a tensor type, 0 for plain Tensor and for quantized tensors
 * (QUInt8, ...): no ONNX dtype is theirs, and their values lower to an
 * integer tensor with a scale and zero point (s_quantized.h). */
static int tensor_dtype(oxp_tok t) {
  static const char *const quantized[] = {"QUInt8", "QInt8", "QInt32", "QUInt4x2", "QUInt2x4"};
  if (oxp_lx_is_word(t, "Tensor")) return 0;
  for (size_t i = 0; i < sizeof quantized / sizeof *quantized; i++)
    if (oxp_lx_is_word(t, quantized[i])) return 0;
  int dt = oxp_dtype_from_torch_name(t.p, t.n);
  if (!dt && t.n > 6 && memcmp(t.p + t.n - 6, "Tensor", 6) == 0)
    dt = oxp_dtype_from_torch_name(t.p, t.n - 6);
  return dt ? dt : -1;
}

static const struct {
  const char *name;
  oxp_kind kind;
} SCALAR_TYPES[] = {
    {"int", OXP_T_INT},        {"float", OXP_T_FLOAT},
    {"bool", OXP_T_BOOL},      {"str", OXP_T_STR},
    {"NoneType", OXP_T_NONE},  {"Device", OXP_T_DEVICE},
    {"Scalar", OXP_T_NUMBER},  {"number", OXP_T_NUMBER},
};

/* Only a tensor type has sizes in its parentheses: Flot(2, 3) is a
 * misspelt dtype, which as a class type would silently lose its shape. */
static bool sizes_follow(oxp_pctx *c) {
  oxp_lexer save = c->lx;
  oxp_lx_next(&c->lx);
  oxp_tok t = oxp_lx_next(&c->lx);
  c->lx = save;
  return t.kind == LX_NUMBER || oxp_lx_is_punct(t, '*');
}

/* Class and other types keep their printed text, Dict(str, Tensor) whole. */
static oxp_type *other_type(oxp_pctx *c, oxp_tok t) {
  const char *end = t.p + t.n;
  if (oxp_lx_is_punct(oxp_lx_peek(&c->lx), '(')) {
    if (sizes_follow(c)) {
      oxp_perr(c, &t.loc, "unknown tensor type '%.*s' (a dtype such as Float, "
               "Long or Bool)", (int)t.n, t.p);
      return NULL;
    }
    int depth = 0;
    do {
      oxp_tok x = oxp_lx_next(&c->lx);
      if (x.kind == LX_NEWLINE || x.kind == LX_EOF || x.kind == LX_BAD) {
        oxp_punexpected(c, x, "')' to close the type");
        return NULL;
      }
      depth += oxp_lx_is_punct(x, '(') - oxp_lx_is_punct(x, ')');
      end = x.p + x.n;
    } while (depth > 0);
  }
  oxp_type *ty = new_type(c, OXP_T_OTHER);
  if (ty && !(ty->name = oxp_strndup(c->a, t.p, (size_t)(end - t.p))))
    oxp_pnomem(c, &t.loc);
  return ty && ty->name ? ty : NULL;
}

/* Eight bytes a step (type texts run 40 to 80 bytes): a byte-at-a-time
 * hash was most of a cached type's cost. */
static uint64_t text_hash(const char *p, size_t n) {
  uint64_t h = n * 0x9e3779b97f4a7c15ull, w;
  for (; n >= 8; p += 8, n -= 8) {
    memcpy(&w, p, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 33;
  }
  w = 0;
  for (size_t i = 0; i < n; i++) w |= (uint64_t)(unsigned char)p[i] << (8 * i);
  h = (h ^ w) * 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

/* Bytes that nest, close or stop the text of a type. */
enum { TT_OPEN = 1, TT_CLOSE, TT_STOP };
static const unsigned char TYPE_TEXT[256] = {
    ['('] = TT_OPEN, [')'] = TT_CLOSE, ['\n'] = TT_STOP, ['"'] = TT_STOP, ['\''] = TT_STOP,
};

/* The text of `Name(...)` from t up to its closing parenthesis, on one
 * line, with nothing nested inside; 0 otherwise, or when it holds quoted
 * text (parse it). Only such texts go into the cache. */
static size_t tensor_text(const oxp_pctx *c, oxp_tok t) {
  const char *end = c->lx.s + c->lx.len;
  if (t.p + t.n >= end || t.p[t.n] != '(') return 0;
  for (const char *p = t.p + t.n + 1; p < end; p++) {
    switch (TYPE_TEXT[(unsigned char)*p]) {
    case 0: break;
    case TT_CLOSE: return (size_t)(p + 1 - t.p);
    default: return 0;
    }
  }
  return 0;
}

/* The text from t to the first ')' after it, which is a cached text's
 * whole span if it is one (cached texts hold no other parenthesis):
 * looking up needs no check of the bytes, memchr finds the end. */
static size_t lookup_text(const oxp_pctx *c, oxp_tok t) {
  const char *open = t.p + t.n, *end = c->lx.s + c->lx.len;
  const char *close = memchr(open, ')', (size_t)(end - open));
  return close ? (size_t)(close + 1 - t.p) : 0;
}

/* The slot of text in the cache: where it is, or the free one it goes to. */
static size_t cache_slot(const oxp_type_cache *tc, const char *p, size_t n, uint64_t h) {
  size_t i = (size_t)h & (tc->cap - 1);
  while (tc->text[i] && !(tc->len[i] == n && memcmp(tc->text[i], p, n) == 0))
    i = (i + 1) & (tc->cap - 1);
  return i;
}

static bool cache_put(oxp_pctx *c, const char *p, size_t n, uint64_t h, oxp_type *ty) {
  oxp_type_cache *tc = &c->types;
  if (2 * (tc->n + 1) > tc->cap) {
    size_t nc = tc->cap ? tc->cap * 2 : 64;
    oxp_type_cache g = {oxp_alloc(c->a, sizeof *g.text * nc), oxp_alloc(c->a, sizeof *g.len * nc),
                        oxp_alloc(c->a, sizeof *g.type * nc), nc, tc->n};
    if (!g.text || !g.len || !g.type) return false;
    for (size_t i = 0; i < tc->cap; i++) {
      if (!tc->text[i]) continue;
      size_t j = cache_slot(&g, tc->text[i], tc->len[i], text_hash(tc->text[i], tc->len[i]));
      g.text[j] = tc->text[i], g.len[j] = tc->len[i], g.type[j] = tc->type[i];
    }
    *tc = g;
  }
  size_t i = cache_slot(tc, p, n, h);
  tc->text[i] = p, tc->len[i] = n, tc->type[i] = ty;
  tc->n++;
  return true;
}

/* A tensor type with sizes: from the cache when this text was read
 * before (a copy: passes may change a value's type), else parsed. */
static oxp_type *sized_tensor(oxp_pctx *c, oxp_tok t, int dt) {
  size_t n = tensor_text(c, t);
  oxp_type *ty = oxp_type_tensor(c->a, dt, -1, NULL);
  if (!ty) return oxp_pnomem(c, &t.loc), NULL;
  if (!tensor_args(c, ty)) return NULL;
  if (n && (size_t)(c->lx.pos - (size_t)(t.p - c->lx.s)) == n) {
    oxp_type *keep = oxp_type_copy(c->a, ty);
    if (!keep || !cache_put(c, t.p, n, text_hash(t.p, n), keep)) return oxp_pnomem(c, &t.loc), NULL;
  }
  return ty;
}

/* Out of line: tensor_args' dims would otherwise sit in every frame of
 * the recursion over tuple types. */
static OXP_OUT_OF_LINE oxp_type *named_type(oxp_pctx *c, oxp_tok t) {
  /* Most types of a graph repeat one another's text: look that up before
   * telling what the name is (only sized tensor types are cached). */
  oxp_type_cache *tc = &c->types;
  size_t n;
  size_t after = (size_t)(t.p + t.n - c->lx.s);
  if (tc->cap && after < c->lx.len && t.p[t.n] == '(' && (n = lookup_text(c, t))) {
    size_t i = cache_slot(tc, t.p, n, text_hash(t.p, n));
    if (tc->text[i]) {
      oxp_type *ty = oxp_type_copy(c->a, tc->type[i]);
      if (!ty) return oxp_pnomem(c, &t.loc), NULL;
      c->lx.pos = (size_t)(t.p + n - c->lx.s); /* one line: line stays */
      return ty;
    }
  }
  for (size_t i = 0; i < sizeof SCALAR_TYPES / sizeof *SCALAR_TYPES; i++)
    if (oxp_lx_is_word(t, SCALAR_TYPES[i].name))
      return new_type(c, SCALAR_TYPES[i].kind);
  int dt = tensor_dtype(t);
  if (dt < 0) return other_type(c, t);
  if (oxp_lx_is_punct(oxp_lx_peek(&c->lx), '(')) return sized_tensor(c, t, dt);
  oxp_type *ty = oxp_type_tensor(c->a, dt, -1, NULL);
  if (!ty) return oxp_pnomem(c, &t.loc), NULL;
  return ty;
}

static oxp_type *parse_type(oxp_pctx *c, int depth, int *height);

/* The elements after '('; *height gets the deepest one's. */
static oxp_type *tuple_type(oxp_pctx *c, int depth, int *height) {
  oxp_type *ty = new_type(c, OXP_T_TUPLE);
  int cap = 0;
  *height = 0;
  if (!ty) return NULL;
  if (oxp_lx_is_punct(oxp_lx_peek(&c->lx), ')')) return oxp_lx_next(&c->lx), ty;
  for (;;) {
    int h;
    oxp_type *e = parse_type(c, depth + 1, &h);
    if (!e) return NULL;
    if (h > *height) *height = h;
    if (ty->nelems == cap) {
      int nc = cap ? cap * 2 : 4;
      oxp_type **ne = oxp_realloc(c->a, ty->elems, sizeof *ne * (size_t)cap,
                                  sizeof *ne * (size_t)nc);
      if (!ne) return oxp_pnomem(c, NULL), NULL;
      ty->elems = ne;
      cap = nc;
    }
    ty->elems[ty->nelems++] = e;
    oxp_tok t = oxp_lx_next(&c->lx);
    if (oxp_lx_is_punct(t, ')')) return ty;
    if (!oxp_lx_is_punct(t, ',')) {
      oxp_punexpected(c, t, "',' or ')' in the tuple type");
      return NULL;
    }
  }
}

static bool too_deep(oxp_pctx *c, const oxp_loc *at) {
  return oxp_perr(c, at, "type nested deeper than %d (onnxexp's limit)",
                  OXP_MAX_TYPE_DEPTH);
}

/* type := (tuple | name) {'[]' | '?'}
 * depth counts the tuples around this type, which bounds the recursion;
 * *height counts the tuples, lists and optionals inside it, which is how
 * deep the passes that walk types will recurse. */
static oxp_type *parse_type(oxp_pctx *c, int depth, int *height) {
  oxp_tok t = oxp_lx_next(&c->lx);
  oxp_type *ty;
  *height = 0;
  if (depth > OXP_MAX_TYPE_DEPTH) return too_deep(c, &t.loc), NULL;
  if (oxp_lx_is_punct(t, '(')) {
    if ((ty = tuple_type(c, depth, height)) && ++*height > OXP_MAX_TYPE_DEPTH)
      return too_deep(c, &t.loc), NULL;
  } else if (t.kind == LX_IDENT) {
    ty = named_type(c, t);
  } else {
    return oxp_punexpected(c, t, "a type"), NULL;
  }
  while (ty) {
    oxp_lexer save = c->lx;
    oxp_tok s = oxp_lx_next(&c->lx);
    oxp_kind k;
    if (oxp_lx_is_punct(s, '?')) k = OXP_T_OPTIONAL;
    else if (oxp_lx_is_punct(s, '[') && oxp_lx_is_punct(oxp_lx_next(&c->lx), ']'))
      k = OXP_T_LIST;
    else {
      c->lx = save;
      break;
    }
    if (++*height > OXP_MAX_TYPE_DEPTH) return too_deep(c, &s.loc), NULL;
    oxp_type *w = new_type(c, k);
    if (w) w->elem = ty;
    ty = w;
  }
  return ty;
}

oxp_type *oxp_parse_type(oxp_pctx *c) {
  int height;
  return parse_type(c, 0, &height);
}
