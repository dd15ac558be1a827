/* jit_dce.c: dead code elimination on the TorchScript graph. A node goes
 * when none of its outputs is read and it has no side effect (printing,
 * raising, mutating a list or a tensor in place). One backward walk per
 * block, so a dead chain goes at once; blocks are cleaned first so a
 * prim::If left with nothing live inside goes too. */
#include <string.h>

#include "passes.h"

/* Kinds named with their length: each node is asked about every round,
 * so only names of its kind's length are compared. */
#define KIND(s) {s, sizeof s - 1}
static const struct {
  const char *name;
  size_t len;
} EFFECT_KINDS[] = {
    KIND("prim::Print"), KIND("prim::RaiseException"), KIND("aten::warn"),
    KIND("prim::SetAttr"), KIND("aten::append"), KIND("aten::insert"),
    KIND("aten::extend"), KIND("aten::pop"), KIND("aten::clear"),
    KIND("aten::_set_item"), KIND("aten::remove"), KIND("aten::Delete"),
    KIND("aten::__delitem__"), KIND("prim::Uninitialized")};
#undef KIND

static bool side_effect(const oxp_node *n) {
  /* A node without outputs exists only for its effect (aten::Delete on a
   * list, prim::Print, ...). */
  if (n->noutputs == 0 && n->nblocks == 0) return true;
  size_t l = strlen(n->kind);
  for (size_t i = 0; i < sizeof EFFECT_KINDS / sizeof *EFFECT_KINDS; i++)
    if (EFFECT_KINDS[i].len == l && memcmp(n->kind, EFFECT_KINDS[i].name, l) == 0)
      return strcmp(EFFECT_KINDS[i].name, "prim::Uninitialized") != 0;
  /* aten::add_ mutates; aten::__and__ does not. */
  return l > 2 && n->kind[l - 1] == '_' && n->kind[l - 2] != '_';
}

/* Drops every node of b (and of blocks inside), so outer values lose
 * the uses dead code had of them. */
void oxp_pass_destroy_block(oxp_block *b) {
  OXP_FOR_NODES(b, m, mx) {
    for (int k = 0; k < m->nblocks; k++) oxp_pass_destroy_block(m->blocks[k]);
    oxp_node_destroy(m);
  }
}

/* A list nobody reads: every use of its ListConstruct writes to it
 * (append & co. as the list argument, their results unread). The
 * writes go with it, so a bool list of a folded fast-path test leaves
 * nothing behind. */
static bool dead_list(oxp_pass *p, const oxp_node *n) {
  static const char *const writes[] = {"aten::append", "aten::insert", "aten::extend",
                                       "aten::clear", "aten::_set_item"};
  if (!oxp_kind_is(n, "prim::ListConstruct") || n->noutputs != 1) return false;
  const oxp_value *l = n->outputs[0];
  if (!l->nuses || oxp_pass_is_out(p, l) || l->nblockouts) return false;
  for (int i = 0; i < l->nuses; i++) {
    const oxp_node *m = l->uses[i].node;
    bool w = false;
    for (size_t k = 0; k < sizeof writes / sizeof *writes; k++) w |= oxp_kind_is(m, writes[k]);
    if (!w || m->nblocks || m->inputs[0] != l) return false;
    for (int j = 1; j < m->ninputs; j++)
      if (m->inputs[j] == l) return false;
    for (int j = 0; j < m->noutputs; j++)
      if (oxp_pass_used(p, m->outputs[j])) return false;
  }
  return true;
}

static void drop_list(oxp_node *n) {
  oxp_value *l = n->outputs[0];
  while (l->nuses) oxp_node_destroy(l->uses[l->nuses - 1].node);
  oxp_node_destroy(n);
}

static bool dce_block(oxp_pass *p, oxp_block *b, bool *again) {
  bool effects = false;
  for (oxp_node *n = b->last, *prev; n; n = prev) {
    prev = n->prev;
    bool inner = false;
    for (int k = 0; k < n->nblocks; k++) inner |= dce_block(p, n->blocks[k], again);
    if (!inner && dead_list(p, n)) {
      drop_list(n); /* what only its writes read dies on the next walk */
      *again = true;
      continue;
    }
    bool live = inner || side_effect(n);
    for (int i = 0; i < n->noutputs && !live; i++) live = oxp_pass_used(p, n->outputs[i]);
    if (!live) {
      for (int k = 0; k < n->nblocks; k++) oxp_pass_destroy_block(n->blocks[k]);
      oxp_node_destroy(n);
    }
    effects |= live && (inner || side_effect(n));
  }
  return effects;
}

oxp_status oxp_jit_dce(oxp_graph *g, oxp_diag *d) {
  oxp_pass p;
  oxp_status st = oxp_pass_init(&p, g, NULL, d);
  if (st) return st;
  bool again = true;
  for (int round = 0; again && round < 4; round++) {
    again = false;
    dce_block(&p, g->top, &again);
  }
  return OXP_OK;
}
