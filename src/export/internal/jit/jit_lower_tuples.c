/* jit_lower_tuples.c: tuples and lists built and taken apart inside the
 * graph vanish: the outputs of TupleUnpack / ListUnpack / TupleIndex /
 * __getitem__ (constant index) of a TupleConstruct / ListConstruct are
 * the construct's inputs. A list that something mutates (append, ...) is
 * left alone. The constructs themselves go when DCE finds them unused;
 * those that reach graph outputs stay for lowering to flatten. */
#include <string.h>

#include "passes.h"

/* Might something change list l after it is built? A mutating op on it,
 * or handing it to control flow (a loop may append to it). */
bool oxp_jit_list_mutated(const oxp_value *l) {
  static const char *const muts[] = {"aten::append", "aten::insert",
                                     "aten::extend", "aten::pop",
                                     "aten::clear", "aten::_set_item",
                                     "aten::remove", "aten::reverse",
                                     "aten::Delete", "aten::__delitem__"};
  for (int i = 0; i < l->nuses; i++) {
    if (l->uses[i].node->nblocks) return true;
    for (size_t k = 0; k < sizeof muts / sizeof *muts; k++)
      if (oxp_kind_is(l->uses[i].node, muts[k])) return true;
  }
  return false;
}

static bool const_int(const oxp_value *v, int64_t *out) {
  const oxp_node *k = v ? v->producer : NULL;
  const oxp_attr *a = k && oxp_kind_is(k, "prim::Constant") ? oxp_attr_get(k, "value") : NULL;
  if (!a || a->kind != OXP_A_INT) return false;
  *out = a->i;
  return true;
}

/* The construct node behind v when it may be looked through, else NULL. */
static oxp_node *construct(const oxp_value *v) {
  oxp_node *k = v->producer;
  if (!k) return NULL;
  if (oxp_kind_is(k, "prim::TupleConstruct")) return k;
  if (oxp_kind_is(k, "prim::ListConstruct") && !oxp_jit_list_mutated(v)) return k;
  return NULL;
}

static void lower_block(oxp_block *b) {
  OXP_FOR_NODES(b, n, nx) {
    for (int k = 0; k < n->nblocks; k++) lower_block(n->blocks[k]);
    if (n->ninputs < 1 || !n->inputs[0]) continue;
    oxp_node *k = construct(n->inputs[0]);
    if (!k) continue;
    bool unpack = oxp_kind_is(n, "prim::TupleUnpack") || oxp_kind_is(n, "prim::ListUnpack");
    if (unpack && n->noutputs == k->ninputs) {
      for (int i = 0; i < n->noutputs; i++)
        oxp_value_replace_uses(n->outputs[i], k->inputs[i]);
      oxp_node_destroy(n);
      continue;
    }
    int64_t i;
    bool index = oxp_kind_is(n, "prim::TupleIndex") || oxp_kind_is(n, "aten::__getitem__");
    if (index && n->ninputs == 2 && n->noutputs == 1 && const_int(n->inputs[1], &i)) {
      if (i < 0) i += k->ninputs;
      if (i < 0 || i >= k->ninputs) continue;
      oxp_value_replace_uses(n->outputs[0], k->inputs[i]);
      oxp_node_destroy(n);
    }
  }
}

oxp_status oxp_jit_lower_tuples(oxp_graph *g, oxp_diag *d) {
  (void)d;
  lower_block(g->top);
  return OXP_OK;
}
