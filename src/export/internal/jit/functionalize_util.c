/* functionalize_util.c: the helpers every part of functionalization
 * shares: failure and out-of-memory statuses, array growth, block nesting,
 * constant reads. The driver (jit_functionalize.c), the alias facts
 * (functionalize_facts.c) and the view inverses (functionalize_inverse.c)
 * each call these and none calls back into another's walk. */
#include <stdarg.h>
#include <stdio.h>

#include "functionalize.h"

oxp_status oxp_fz_nomem(ctx *c) {
  return c->st = oxp_fail(c->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
}

bool oxp_fz_grow(ctx *c, void **p, int *cap, int need, size_t elem) {
  if (need <= *cap) return true;
  int nc = *cap ? *cap * 2 : 16;
  while (nc < need) nc *= 2;
  void *q = oxp_realloc(c->g->arena, *p, elem * (size_t)*cap, elem * (size_t)nc);
  if (!q) return oxp_fz_nomem(c), false;
  *p = q, *cap = nc;
  return true;
}

/* Is block b inside (a block of) node n? */
bool oxp_fz_inside(const oxp_block *b, const oxp_node *n) {
  for (; b; b = b->owner ? b->owner->owner : NULL)
    if (b->owner == n) return true;
  return false;
}

oxp_status oxp_fz_fail(ctx *c, const oxp_node *n, const char *fmt, ...) {
  char msg[640];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return c->st = oxp_fail(c->d, OXP_ERR_UNSUPPORTED, n ? &n->loc : NULL,
                          n ? n->kind : NULL, "%s", msg);
}

const oxp_attr *oxp_fz_const_attr(const oxp_value *v) {
  const oxp_node *k = v ? v->producer : NULL;
  return k && oxp_kind_is(k, "prim::Constant") ? oxp_attr_get(k, "value") : NULL;
}

bool oxp_fz_const_int(const oxp_value *v, int64_t *out) {
  const oxp_attr *a = oxp_fz_const_attr(v);
  if (!a || a->kind != OXP_A_INT) return false;
  *out = a->i;
  return true;
}
