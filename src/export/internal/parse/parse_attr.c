/* parse_attr.c: node attributes `[name=value, ...]`.
 *
 * Values onnxexp has no attribute kind for (tuples, dicts, graphs, types)
 * are kept as their printed text in an OXP_A_STR; tensor data is decoded
 * by parse_tensor.c. */
#include <string.h>

#include "parse.h"

/* `[1, 2]`, `[1.5, 2.]`, `["a", "b"]`, `[True, False]`. Returns false
 * without an error when the list is something else (the raw path then
 * takes it), so only a decoding failure records an error. */
static bool simple_list(oxp_pctx *c, oxp_pnums *e, bool *strs, bool *ok) {
  oxp_lexer save = c->lx;
  *ok = true;
  oxp_lx_next(&c->lx);
  oxp_tok t = oxp_lx_next(&c->lx);
  int nstr = 0;
  while (!oxp_lx_is_punct(t, ']')) {
    oxp_pnum x = {0};
    if (t.kind == LX_STRING) {
      const char *err;
      oxp_loc where;
      size_t len;
      if (!(x.s = oxp_lx_unquote(c->a, t, &len, &err, &where)))
        return *ok = oxp_perr(c, &where, "%s", err);
      nstr++;
    } else if (oxp_lx_is_word(t, "True") || oxp_lx_is_word(t, "False")) {
      x.isint = true;
      x.i = t.p[0] == 'T';
      x.f = (double)x.i;
    } else if (!oxp_pnum_token(t)) {
      break;
    } else if (!oxp_pnum_read(c, t, &x)) {
      return *ok = false;
    }
    if (!oxp_pnums_push(c, e, x, 0, t.loc)) return *ok = false;
    t = oxp_lx_next(&c->lx);
    if (oxp_lx_is_punct(t, ',')) t = oxp_lx_next(&c->lx);
    else if (!oxp_lx_is_punct(t, ']')) break;
  }
  if (oxp_lx_is_punct(t, ']') && (nstr == 0 || nstr == e->n)) {
    *strs = nstr > 0;
    return true;
  }
  c->lx = save;
  e->n = 0;
  return false;
}

static bool list_value(oxp_pctx *c, oxp_node *n, const char *name,
                       bool *handled) {
  oxp_pnums e = {0};
  bool strs = false, ok;
  *handled = simple_list(c, &e, &strs, &ok);
  if (!ok) return false;
  if (!*handled) return true;
  oxp_attr_kind k = strs ? OXP_A_STRS
                         : oxp_pnums_dtype(&e) == OXP_DT_FLOAT ? OXP_A_FLOATS
                                                             : OXP_A_INTS;
  oxp_attr *a = oxp_attr_set(n, name, k);
  size_t sz = k == OXP_A_STRS ? sizeof(char *) : 8;
  void *arr = a ? oxp_alloc(c->a, sz * (size_t)(e.n + 1)) : NULL;
  if (!arr) return oxp_pnomem(c, NULL);
  for (int i = 0; i < e.n; i++) {
    if (k == OXP_A_STRS) ((const char **)arr)[i] = e.v[i].s;
    else if (k == OXP_A_FLOATS) ((double *)arr)[i] = e.v[i].f;
    else ((int64_t *)arr)[i] = e.v[i].i;
  }
  a->n = e.n;
  if (k == OXP_A_STRS) a->strs = arr;
  else if (k == OXP_A_FLOATS) a->floats = arr;
  else a->ints = arr;
  return true;
}

/* Anything else: its printed text up to the ',' or ']' that ends it. */
static bool raw_value(oxp_pctx *c, oxp_node *n, const char *name) {
  int depth = 0, count = 0;
  oxp_tok first = oxp_lx_peek(&c->lx), last = first;
  char b[64];
  for (;; count++) {
    oxp_tok t = oxp_lx_peek(&c->lx);
    bool open = oxp_lx_is_punct(t, '(') || oxp_lx_is_punct(t, '[') ||
                oxp_lx_is_punct(t, '{');
    bool close = oxp_lx_is_punct(t, ')') || oxp_lx_is_punct(t, ']') ||
                 oxp_lx_is_punct(t, '}');
    if (depth == 0 && (oxp_lx_is_punct(t, ',') || oxp_lx_is_punct(t, ']'))) break;
    if (t.kind == LX_BAD) return oxp_perr(c, &t.loc, "%s", t.err);
    if (t.kind == LX_EOF || t.kind == LX_NEWLINE || t.kind == LX_COMMENT ||
        (close && depth == 0))
      return oxp_perr(c, &t.loc, "unexpected %s in the value of attribute "
                      "'%s'", oxp_lx_describe(t, b, sizeof b), name);
    depth += open - close;
    last = oxp_lx_next(&c->lx);
  }
  if (count == 0)
    return oxp_perr(c, &first.loc, "expected a value for attribute '%s', "
                    "found %s", name, oxp_lx_describe(first, b, sizeof b));
  size_t len = (size_t)(last.p + last.n - first.p);
  oxp_attr *a = oxp_attr_set(n, name, OXP_A_STR);
  if (!a || !(a->s = oxp_strndup(c->a, first.p, len)))
    return oxp_pnomem(c, &first.loc);
  return true;
}

static bool scalar_value(oxp_pctx *c, oxp_node *n, const char *name) {
  oxp_tok t = oxp_lx_next(&c->lx);
  oxp_pnum x;
  if (!oxp_pnum_read(c, t, &x)) return false;
  if (x.isint) oxp_attr_set_i(n, name, x.i);
  else oxp_attr_set_f(n, name, x.f);
  return true;
}

static bool string_value(oxp_pctx *c, oxp_node *n, const char *name) {
  oxp_tok t = oxp_lx_next(&c->lx);
  const char *err;
  oxp_loc where;
  size_t len;
  char *s = oxp_lx_unquote(c->a, t, &len, &err, &where);
  if (!s) return oxp_perr(c, &where, "%s", err);
  oxp_attr *a = oxp_attr_set(n, name, OXP_A_STR);
  if (!a) return oxp_pnomem(c, &t.loc);
  a->s = s;
  return true;
}

/* `<Tensor>`: data too large to print; it comes from the sidecar. */

static bool attr_value(oxp_pctx *c, oxp_node *n, const char *name,
                       const oxp_type *decl) {
  oxp_tok t = oxp_lx_peek(&c->lx);
  bool handled;
  if (t.kind == LX_STRING) return string_value(c, n, name);
  if (!oxp_parse_tensor_value(c, n, name, decl, &handled)) return false;
  if (handled) return true;
  if (oxp_lx_is_punct(t, '[')) {
    if (!list_value(c, n, name, &handled)) return false;
    if (handled) return true;
  }
  if (oxp_pnum_token(t)) return scalar_value(c, n, name);
  if (oxp_lx_is_word(t, "True") || oxp_lx_is_word(t, "False")) {
    oxp_lx_next(&c->lx);
    oxp_attr_set_i(n, name, t.p[0] == 'T');
    return true;
  }
  if (oxp_lx_is_word(t, "None")) {
    oxp_lx_next(&c->lx);
    return oxp_attr_set(n, name, OXP_A_NONE) || oxp_pnomem(c, &t.loc);
  }
  return raw_value(c, n, name);
}

bool oxp_parse_attrs(oxp_pctx *c, oxp_node *n, const oxp_type *decl) {
  oxp_lx_next(&c->lx); /* '[' */
  if (oxp_lx_is_punct(oxp_lx_peek(&c->lx), ']')) {
    oxp_lx_next(&c->lx);
    return true;
  }
  for (;;) {
    oxp_tok t = oxp_lx_next(&c->lx);
    char b[64];
    if (t.kind != LX_IDENT)
      return oxp_perr(c, &t.loc, "expected an attribute name, found %s",
                      oxp_lx_describe(t, b, sizeof b));
    char *name = oxp_strndup(c->a, t.p, t.n);
    if (!name) return oxp_pnomem(c, &t.loc);
    /* Printed attributes are unique; a repeat would silently replace. */
    if (oxp_attr_get(n, name))
      return oxp_perr(c, &t.loc, "attribute '%s' is given twice", name);
    if (!oxp_pexpect(c, '=', "after the attribute name") ||
        !attr_value(c, n, name, decl))
      return false;
    t = oxp_lx_next(&c->lx);
    if (oxp_lx_is_punct(t, ']')) return true;
    if (!oxp_lx_is_punct(t, ','))
      return oxp_perr(c, &t.loc, "expected ',' or ']' after attribute '%s', "
                      "found %s", name, oxp_lx_describe(t, b, sizeof b));
  }
}
