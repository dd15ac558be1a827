/* jit_inplace.c: removal of in-place ops, as torch's
 * RemoveInplaceOpsForONNX does. `%y = aten::add_(%x, ...)` becomes the
 * pure `aten::add`, and because %x itself was mutated, every later read
 * of %x (or of an earlier alias of it) reads %y. One walk in graph order
 * with an alias table by value id: each input is resolved to the newest
 * value of what it names before the node runs, so the rewrite is linear.
 *
 * Not handled, reported as unsupported: mutation of a value defined
 * outside the control-flow block doing it (the alias would depend on the
 * branch taken), and mutation through a view (x.view(...).add_(1)) of a
 * tensor read elsewhere. */
#include <string.h>

#include "passes.h"

typedef struct {
  oxp_graph *g;
  oxp_diag *d;
  oxp_value **alias; /* by id: the value that now stands for this one */
  int n;
} ctx;

static oxp_value *resolve(ctx *c, oxp_value *v) {
  oxp_value *r = v;
  while (r && r->id < c->n && c->alias[r->id]) r = c->alias[r->id];
  /* Path compression keeps long chains of x.add_().mul_() linear. */
  while (v && v != r && v->id < c->n && c->alias[v->id]) {
    oxp_value *next = c->alias[v->id];
    c->alias[v->id] = r;
    v = next;
  }
  return r;
}

static bool is_inplace(const oxp_node *n) {
  size_t l = strlen(n->kind);
  return strncmp(n->kind, "aten::", 6) == 0 && l > 8 && n->kind[l - 1] == '_' &&
         n->kind[l - 2] != '_' && n->ninputs >= 1 && n->noutputs == 1;
}

static bool is_view(const oxp_node *n) {
  static const char *const views[] = {
      "aten::view", "aten::reshape", "aten::select", "aten::slice",
      "aten::transpose", "aten::permute", "aten::squeeze", "aten::unsqueeze",
      "aten::expand", "aten::expand_as", "aten::narrow", "aten::t",
      "aten::flatten", "aten::view_as", "aten::as_strided", "aten::alias",
      "aten::diagonal", "aten::unfold", "aten::detach", "aten::unflatten"};
  for (size_t i = 0; i < sizeof views / sizeof *views; i++)
    if (oxp_kind_is(n, views[i])) return true;
  return false;
}

/* The pure op of an in-place one. */
static const char *pure_kind(ctx *c, const oxp_node *n) {
  if (oxp_kind_is(n, "aten::zero_")) return "aten::zeros_like";
  if (oxp_kind_is(n, "aten::fill_")) return "aten::full_like";
  return oxp_strndup(c->g->arena, n->kind, strlen(n->kind) - 1);
}

static bool same_type(const oxp_type *a, const oxp_type *b) {
  if (!a || !b || a->kind != OXP_T_TENSOR || b->kind != OXP_T_TENSOR ||
      !a->dtype || a->dtype != b->dtype || !oxp_type_is_static(a) ||
      !oxp_type_is_static(b) || a->rank != b->rank)
    return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

static oxp_status rewrite(ctx *c, oxp_block *b, oxp_node *n) {
  oxp_value *self = n->inputs[0], *out = n->outputs[0];
  oxp_block *home = self->producer ? self->producer->owner : self->owner;
  if (home != b)
    return oxp_fail(c->d, OXP_ERR_UNSUPPORTED, &n->loc, n->kind,
                    "%s on %%%s, which is defined outside this control-flow "
                    "block, is not supported", n->kind, self->name ? self->name : "?");
  if (self->producer && is_view(self->producer)) {
    oxp_value *base = self->producer->inputs[0];
    if (base->nuses > 1 || oxp_value_is_block_output(base))
      return oxp_fail(c->d, OXP_ERR_UNSUPPORTED, &n->loc, n->kind,
                      "%s writes through a view (%s) of %%%s, which is read "
                      "elsewhere; this is not supported", n->kind,
                      self->producer->kind, base->name ? base->name : "?");
  }
  if (!out->type && self->type) out->type = oxp_type_copy(c->g->arena, self->type);
  if (oxp_kind_is(n, "aten::copy_") && n->ninputs >= 2 &&
      same_type(self->type, n->inputs[1]->type)) {
    /* x.copy_(src) of the same type and shape is src itself. */
    oxp_value *src = n->inputs[1];
    c->alias[self->id] = src;
    oxp_value_replace_uses(out, src);
    oxp_node_destroy(n);
    return OXP_OK;
  }
  if (oxp_kind_is(n, "aten::copy_") && n->ninputs >= 2) {
    /* copy_ broadcasts src to self and converts it to self's dtype. */
    oxp_node *ex = oxp_node_new(c->g, "aten::expand_as", 1);
    if (!ex || !oxp_node_add_input(ex, n->inputs[1]) || !oxp_node_add_input(ex, self))
      return oxp_fail(c->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
    ex->loc = n->loc;
    ex->outputs[0]->type = oxp_type_copy(c->g->arena, n->inputs[1]->type);
    oxp_node_insert_before(n, ex);
    while (n->ninputs > 0) {
      oxp_node_set_input(n, n->ninputs - 1, NULL);
      n->ninputs--;
    }
    oxp_node_add_input(n, ex->outputs[0]);
    oxp_node_add_input(n, self);
    n->kind = "aten::type_as";
  } else {
    n->kind = pure_kind(c, n);
  }
  c->alias[self->id] = out;
  return OXP_OK;
}

static oxp_status walk(ctx *c, oxp_block *b) {
  OXP_FOR_NODES(b, n, nx) {
    for (int i = 0; i < n->ninputs; i++)
      if (n->inputs[i]) oxp_node_set_input(n, i, resolve(c, n->inputs[i]));
    for (int k = 0; k < n->nblocks; k++) {
      oxp_status st = walk(c, n->blocks[k]);
      if (st) return st;
    }
    if (is_inplace(n)) {
      oxp_status st = rewrite(c, b, n);
      if (st) return st;
    }
  }
  for (int i = 0; i < b->noutputs; i++)
    oxp_block_set_output(b, i, resolve(c, b->outputs[i]));
  return OXP_OK;
}

oxp_status oxp_jit_remove_inplace(oxp_graph *g, oxp_diag *d) {
  ctx c = {g, d, NULL, g->nvalues};
  c.alias = oxp_alloc(g->arena, sizeof *c.alias * (size_t)(c.n + 1));
  if (!c.alias) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  return walk(&c, g->top);
}
