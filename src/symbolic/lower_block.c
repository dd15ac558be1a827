/* lower_block.c: lowering a TorchScript block into an ONNX subgraph, and
 * the scoping rules that come with it. An ONNX subgraph sees the values
 * of the graphs around it but not those of its siblings, and its outputs
 * must be made by its own nodes; the helpers here keep the lowered graph
 * inside those rules. */
#include <string.h>

#include "s_control.h"

static oxp_block *def_block(const oxp_value *v) {
  return v->producer ? v->producer->owner : v->owner;
}

static oxp_block *parent_block(const oxp_block *b) {
  return b && b->owner ? b->owner->owner : NULL;
}

bool oxp_ctl_defined_in(const oxp_value *v, const oxp_block *b) {
  for (oxp_block *d = def_block(v); d; d = parent_block(d))
    if (d == b) return true;
  return false;
}

oxp_status oxp_ctl_lower_into(oxp_sctx *c, oxp_block *src, oxp_block *dst) {
  oxp_block *cur = c->cur;
  oxp_node *node = c->node;
  c->cur = dst;
  oxp_status st = oxp_lower_nodes(c, src);
  c->cur = cur;
  c->node = node;
  return st;
}

static bool is_output_of(const oxp_block *b, const oxp_value *v) {
  for (int i = 0; i < b->noutputs; i++)
    if (b->outputs[i] == v) return true;
  return false;
}

/* Reads source value v as if it were input 0 of a node of block blk, so
 * constants materialize where blk's readers can see them. */
static oxp_value *read_in(oxp_sctx *c, oxp_block *blk, oxp_value *v) {
  oxp_node *saved = c->node;
  oxp_node fake = {.kind = saved ? saved->kind : "prim::Block",
                   .inputs = &v, .ninputs = 1, .owner = blk};
  if (saved) fake.loc = saved->loc;
  c->node = &fake;
  oxp_value *r = oxp_sym_in(c, &fake, 0);
  c->node = saved;
  return r;
}

oxp_value *oxp_ctl_block_out(oxp_sctx *c, oxp_block *blk, oxp_value *v,
                             int dtype) {
  oxp_value *lv;
  if (oxp_seq_is_list(v)) lv = oxp_seq_of(c, v, "a list leaving a block");
  else lv = oxp_lower_lookup(c, v);
  if (!lv) lv = read_in(c, blk, v);
  if (!lv) return NULL;
  if (dtype && oxp_ctl_dtype(lv) != dtype) lv = oxp_sym_cast(c, lv, dtype);
  if (!lv) return NULL;
  if (lv->producer && lv->producer->owner == c->cur && !is_output_of(c->cur, lv))
    return lv;
  if (lv->type && lv->type->kind == OXP_T_SEQUENCE) return oxp_seq_copy(c, lv);
  oxp_value *id = oxp_sym_op1(c, "Identity", lv);
  if (id) id->type = oxp_type_copy(oxp_sym_arena(c), lv->type);
  return id;
}

/* ---- lists changed inside a block --------------------------------------- */

static bool mutates_list(const oxp_node *n) {
  static const char *const ops[] = {
      "aten::append", "aten::insert", "aten::pop",     "aten::Delete",
      "aten::_set_item", "aten::clear", "aten::extend", "aten::remove",
      "aten::reverse", NULL};
  for (int i = 0; ops[i]; i++)
    if (oxp_kind_is(n, ops[i])) return n->ninputs > 0;
  return false;
}

typedef struct {
  oxp_arena *a;
  oxp_value **v;
  int n, cap;
} vlist;

static bool vlist_add(vlist *l, oxp_value *v) {
  for (int i = 0; i < l->n; i++)
    if (l->v[i] == v) return true;
  if (l->n == l->cap) {
    int nc = l->cap ? l->cap * 2 : 4;
    void *p = oxp_realloc(l->a, l->v, sizeof *l->v * (size_t)l->cap,
                          sizeof *l->v * (size_t)nc);
    if (!p) return false;
    l->v = p;
    l->cap = nc;
  }
  l->v[l->n++] = v;
  return true;
}

static bool inside(const oxp_value *v, const oxp_node *ctl) {
  for (int k = 0; k < ctl->nblocks; k++)
    if (oxp_ctl_defined_in(v, ctl->blocks[k])) return true;
  return false;
}

static bool scan(vlist *l, const oxp_node *ctl, const oxp_block *b) {
  for (const oxp_node *n = b->first; n; n = n->next) {
    if (mutates_list(n) && n->inputs[0] && !inside(n->inputs[0], ctl) &&
        !vlist_add(l, n->inputs[0]))
      return false;
    for (int k = 0; k < n->nblocks; k++)
      if (!scan(l, ctl, n->blocks[k])) return false;
  }
  return true;
}

int oxp_ctl_outer_lists(oxp_sctx *c, oxp_node *ctl, oxp_value ***out) {
  vlist l = {.a = oxp_sym_arena(c)};
  for (int k = 0; k < ctl->nblocks; k++)
    if (!scan(&l, ctl, ctl->blocks[k])) {
      oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
      return -1;
    }
  *out = l.v;
  return l.n;
}

/* ---- static conditions ----------------------------------------------------- */

bool oxp_ctl_const_bool(const oxp_value *v, bool *out) {
  /* Block inputs with init are weights a user may override: not constant. */
  if (!v || !v->init || v->producer || v->owner || !v->init->data ||
      oxp_tensor_numel(v->init) != 1)
    return false;
  *out = oxp_tensor_get_i(v->init, 0) != 0 || oxp_tensor_get_f(v->init, 0) != 0;
  return true;
}

static void unlink_node(oxp_node *n) {
  oxp_block *b = n->owner;
  if (n->prev) n->prev->next = n->next;
  else b->first = n->next;
  if (n->next) n->next->prev = n->prev;
  else b->last = n->prev;
  n->prev = n->next = NULL;
}

bool oxp_ctl_fold_if(oxp_sctx *c, oxp_node *n, bool cond) {
  if (n->nblocks != 2) return false;
  oxp_block *b = n->blocks[cond ? 0 : 1];
  if (b->noutputs != n->noutputs) return false;
  oxp_node *pos = n;
  for (oxp_node *m = b->first, *nx; m; m = nx) {
    nx = m->next;
    unlink_node(m);
    oxp_node_insert_after(pos, m);
    pos = m;
  }
  for (int i = 0; i < n->noutputs; i++)
    oxp_value_replace_uses(n->outputs[i], b->outputs[i]);
  return true;
}
