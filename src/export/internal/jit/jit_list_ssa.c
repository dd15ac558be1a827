/* jit_list_ssa.c: list writes in straight-line code become new lists, so
 * the readers after them see a ListConstruct they can fold.
 *
 * Scripted library code copies a module's list attribute and patches it
 * by the input's size before reading it (torchvision's swin:
 * `shift_size = shift_size.copy(); if window_size[0] >= pad_H:
 * shift_size[0] = 0; if sum(shift_size) > 0: roll(...)`). Once the
 * static sizes have folded the Ifs, the writes stand in the list's own
 * block, and each is a new value of the list:
 *   - aten::copy of a constant int list, or of a list no one writes to,
 *     is a fresh ListConstruct of the same elements;
 *   - aten::_set_item(l, i, v) with a constant i in range is a
 *     ListConstruct of l's elements with v at i; every reader after the
 *     write (in later nodes and the blocks inside them) reads it.
 * Only when nothing else can see the list: its ListConstruct is in the
 * write's block, it is no block output, and every other write to it and
 * every op that keeps it (a tuple, a list, a loop or branch input, a
 * call) comes after the write. Anything else stays for lowering's
 * sequences. */
#include <string.h>

#include "passes.h"

static bool const_int(const oxp_value *v, int64_t *out) {
  const oxp_node *k = v ? v->producer : NULL;
  const oxp_attr *a = k && oxp_kind_is(k, "prim::Constant") ? oxp_attr_get(k, "value") : NULL;
  if (!a || a->kind != OXP_A_INT || (v->type && v->type->kind != OXP_T_INT)) return false;
  *out = a->i;
  return true;
}

static bool is_write(const oxp_node *m) {
  static const char *const w[] = {"aten::append", "aten::insert", "aten::extend", "aten::pop",
                                  "aten::clear", "aten::_set_item", "aten::remove",
                                  "aten::reverse", "aten::Delete", "aten::__delitem__",
                                  "aten::sort"};
  for (size_t k = 0; k < sizeof w / sizeof *w; k++)
    if (oxp_kind_is(m, w[k])) return true;
  return false;
}

/* Ops that keep a reference to a list handed to them. */
static bool stores(const oxp_node *m, int index) {
  static const char *const s[] = {"prim::TupleConstruct", "prim::ListConstruct",
                                  "prim::DictConstruct", "prim::Loop", "prim::If",
                                  "prim::CallFunction", "prim::CallMethod", "prim::SetAttr",
                                  "prim::unchecked_cast", "aten::_set_item", "aten::append",
                                  "aten::insert"};
  for (size_t k = 0; k < sizeof s / sizeof *s; k++)
    if (oxp_kind_is(m, s[k])) return !(is_write(m) && index == 0);
  return false;
}

/* The node of block b that holds m (m itself, or the node whose
 * nested blocks hold it); NULL when m is not under b. */
static oxp_node *in_block(oxp_node *m, const oxp_block *b) {
  while (m && m->owner != b) m = m->owner ? m->owner->owner : NULL;
  return m;
}

static bool after(const oxp_node *n, const oxp_node *m) {
  for (const oxp_node *q = n->next; q; q = q->next)
    if (q == m) return true;
  return false;
}

/* May the write n to l become a new list? l is a ListConstruct in n's
 * block and no block output; every other write to it and every op that
 * keeps it comes after n (they will see the new list). */
static bool private_list(const oxp_value *l, const oxp_node *n) {
  const oxp_node *k = l->producer;
  if (!k || !oxp_kind_is(k, "prim::ListConstruct") || k->owner != n->owner || l->nblockouts)
    return false;
  const oxp_type *t = l->type;
  if (t && t->kind == OXP_T_LIST && t->elem &&
      (t->elem->kind == OXP_T_LIST || t->elem->kind == OXP_T_TUPLE || t->elem->kind == OXP_T_OTHER))
    return false;
  for (int i = 0; i < l->nuses; i++) {
    oxp_node *m = l->uses[i].node;
    if (m == n || !(stores(m, l->uses[i].index) || is_write(m))) continue;
    oxp_node *top = in_block(m, n->owner);
    if (!top || !after(n, top)) return false;
  }
  return true;
}

/* Reads of from in nodes after n (and in the blocks inside them) read to. */
static void reroute_after(oxp_node *n, oxp_value *from, oxp_value *to) {
  for (int i = from->nuses - 1; i >= 0; i--) {
    oxp_node *m = from->uses[i].node;
    int index = from->uses[i].index;
    oxp_node *top = in_block(m, n->owner);
    if (top && top != n && after(n, top)) oxp_node_set_input(m, index, to);
  }
}

static oxp_node *list_node(oxp_graph *g, oxp_node *at, const oxp_value *like) {
  oxp_node *k = oxp_node_new(g, "prim::ListConstruct", 1);
  if (!k) return NULL;
  k->outputs[0]->type = like->type;
  k->outputs[0]->name = like->name;
  k->loc = at->loc;
  k->source = at->source;
  k->scope = at->scope;
  return k;
}

static oxp_status copy_list(oxp_graph *g, oxp_node *n, bool *done, oxp_diag *d) {
  oxp_value *src = n->inputs[0];
  oxp_node *p = src->producer;
  const oxp_attr *a = p && oxp_kind_is(p, "prim::Constant") ? oxp_attr_get(p, "value") : NULL;
  bool ints = a && a->kind == OXP_A_INTS;
  bool list = p && oxp_kind_is(p, "prim::ListConstruct") && !oxp_jit_list_mutated(src);
  if (!ints && !list) return OXP_OK;
  oxp_node *k = list_node(g, n, n->outputs[0]);
  if (!k) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  oxp_node_insert_before(n, k);
  int cnt = ints ? a->n : p->ninputs;
  for (int i = 0; i < cnt; i++) {
    oxp_value *e = list ? p->inputs[i] : NULL;
    if (ints) {
      oxp_node *c = oxp_node_new(g, "prim::Constant", 1);
      oxp_type *t = oxp_type_new(g->arena, OXP_T_INT);
      if (!c || !t) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
      oxp_attr_set_i(c, "value", a->ints[i]);
      c->outputs[0]->type = t;
      c->loc = n->loc;
      oxp_node_insert_before(k, c);
      e = c->outputs[0];
    }
    if (!oxp_node_add_input(k, e)) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  }
  oxp_value_replace_uses(n->outputs[0], k->outputs[0]);
  oxp_node_destroy(n);
  *done = true;
  return OXP_OK;
}

static oxp_status set_item(oxp_graph *g, oxp_node *n, bool *done, oxp_diag *d) {
  oxp_value *l = n->inputs[0];
  int64_t i;
  if (!private_list(l, n) || !const_int(n->inputs[1], &i)) return OXP_OK;
  oxp_node *p = l->producer;
  if (i < 0) i += p->ninputs;
  if (i < 0 || i >= p->ninputs) return OXP_OK; /* it raises: lowering names it */
  if (n->noutputs == 1 && n->outputs[0]->nblockouts) return OXP_OK;
  oxp_node *k = list_node(g, n, l);
  if (!k) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  for (int j = 0; j < p->ninputs; j++)
    if (!oxp_node_add_input(k, j == i ? n->inputs[2] : p->inputs[j]))
      return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  oxp_node_insert_before(n, k);
  reroute_after(n, l, k->outputs[0]);
  if (n->noutputs == 1) oxp_value_replace_uses(n->outputs[0], k->outputs[0]);
  oxp_node_destroy(n);
  *done = true;
  return OXP_OK;
}

oxp_status oxp_jit_list_ssa(oxp_graph *g, oxp_node *n, bool *done, oxp_diag *d) {
  *done = false;
  if (n->nblocks || n->ninputs < 1 || !n->inputs[0]) return OXP_OK;
  const oxp_type *t = n->inputs[0]->type;
  if (oxp_kind_is(n, "aten::copy") && n->ninputs == 1 && n->noutputs == 1 && t &&
      t->kind == OXP_T_LIST)
    return copy_list(g, n, done, d);
  if (oxp_kind_is(n, "aten::_set_item") && n->ninputs == 3 && n->noutputs <= 1)
    return set_item(g, n, done, d);
  return OXP_OK;
}
