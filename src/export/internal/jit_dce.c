/* jit_dce.c: dead code elimination on the TorchScript graph. A node goes
 * when none of its outputs is read and it has no side effect (printing,
 * raising, mutating a list or a tensor in place). One backward walk per
 * block, so a dead chain goes at once; blocks are cleaned first so a
 * prim::If left with nothing live inside goes too. */
#include <string.h>

#include "passes.h"

static bool side_effect(const oxp_node *n) {
  /* A node without outputs exists only for its effect (aten::Delete on a
   * list, prim::Print, ...). */
  if (n->noutputs == 0 && n->nblocks == 0) return true;
  static const char *const kinds[] = {
      "prim::Print", "prim::RaiseException", "aten::warn", "prim::SetAttr",
      "aten::append", "aten::insert", "aten::extend", "aten::pop",
      "aten::clear", "aten::_set_item", "aten::remove", "aten::Delete",
      "aten::__delitem__", "prim::Uninitialized"};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (oxp_kind_is(n, kinds[i])) return strcmp(kinds[i], "prim::Uninitialized") != 0;
  size_t l = strlen(n->kind);
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

static bool dce_block(oxp_pass *p, oxp_block *b) {
  bool effects = false;
  for (oxp_node *n = b->last, *prev; n; n = prev) {
    prev = n->prev;
    bool inner = false;
    for (int k = 0; k < n->nblocks; k++) inner |= dce_block(p, n->blocks[k]);
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
  dce_block(&p, g->top);
  return OXP_OK;
}
