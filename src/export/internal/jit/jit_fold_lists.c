/* jit_fold_lists.c: the list code scripted library layers run, folded
 * during type inference (jit_fold_static.c calls in), so the values it
 * feeds become constants or plain values before lowering:
 *   - ListUnpack / TupleUnpack of a pack: its elements; of a list built
 *     by appends in straight-line code (a list comprehension) the values
 *     appended before the unpack; of `[a] + chunk(...)` the elements and
 *     an unpack of the rest;
 *   - aten::slice of a ListConstruct or of aten::size(x);
 *   - aten::all / aten::any of a bool list whose elements are all known
 *     constants at that point (the fast-path test of
 *     nn.TransformerEncoderLayer);
 *   - aten::sum of a constant int list, aten::__getitem__ at a constant
 *     index of a list no one writes to, and x.size()[i] as x.size(i).
 * A list any op may change (oxp_jit_list_mutated) is left alone. */
#include <string.h>

#include "passes.h"

static bool const_int(const oxp_value *v, int64_t *out) {
  const oxp_node *k = v ? v->producer : NULL;
  const oxp_attr *a = k && oxp_kind_is(k, "prim::Constant") ? oxp_attr_get(k, "value") : NULL;
  const oxp_type *t = v ? v->type : NULL;
  if (!a || a->kind != OXP_A_INT || (t && t->kind != OXP_T_INT && t->kind != OXP_T_BOOL))
    return false;
  *out = a->i;
  return true;
}

/* A prim::Constant of kind before n, in n's output's name and place. */
static oxp_node *constant(oxp_graph *g, oxp_node *n, oxp_kind kind) {
  oxp_node *k = oxp_node_new(g, "prim::Constant", 1);
  oxp_type *ty = oxp_type_new(g->arena, kind);
  if (!k || !ty) return NULL;
  k->outputs[0]->type = ty;
  k->outputs[0]->name = n->outputs[0]->name;
  k->loc = n->loc;
  k->source = n->source;
  oxp_node_insert_before(n, k);
  return k;
}

/* The elements of list l as reader n sees them (at most max): l is a
 * ListConstruct in n's block, every use of l is in that block, and the
 * only uses before n are appends whose result nobody reads (a list
 * comprehension, the fast-path test's bool list). */
static int static_elems(const oxp_value *l, const oxp_node *n, oxp_value **out, int max) {
  const oxp_node *k = l->producer;
  if (!k || !oxp_kind_is(k, "prim::ListConstruct") || k->owner != n->owner || l->nblockouts)
    return -1;
  for (int i = 0; i < l->nuses; i++)
    if (l->uses[i].node->owner != k->owner) return -1;
  int cnt = 0;
  for (int i = 0; i < k->ninputs; i++) {
    if (cnt == max) return -1;
    out[cnt++] = k->inputs[i];
  }
  for (const oxp_node *m = k->next; m && m != n; m = m->next) {
    bool reads = false;
    for (int i = 0; i < m->ninputs; i++) reads |= m->inputs[i] == l;
    if (!reads) continue;
    if (!oxp_kind_is(m, "aten::append") || m->ninputs != 2 || m->inputs[0] != l ||
        m->inputs[1] == l || (m->noutputs && m->outputs[0]->nuses) || cnt == max)
      return -1;
    out[cnt++] = m->inputs[1];
  }
  return cnt;
}

static bool static_bools(const oxp_value *l, const oxp_node *n, bool *all, bool *any) {
  oxp_value *e[256];
  int cnt = static_elems(l, n, e, 256);
  if (cnt < 0) return false;
  *all = true;
  *any = false;
  for (int i = 0; i < cnt; i++) {
    int64_t b;
    if (!const_int(e[i], &b)) return false;
    *all &= b != 0;
    *any |= b != 0;
  }
  return true;
}

/* A slice bound: a constant int, or None (absent) as dflt. */
static bool bound(const oxp_node *n, int i, int64_t dflt, int64_t *out) {
  if (i >= n->ninputs) return *out = dflt, true;
  const oxp_value *v = n->inputs[i];
  const oxp_node *k = v->producer;
  if (k && oxp_kind_is(k, "prim::Constant") && !k->attrs) return *out = dflt, true;
  return const_int(v, out);
}

/* aten::slice(l, start, end, step) of a list of length len, step > 0,
 * as Python slices it: the first index and the count. */
static bool list_slice(const oxp_node *n, int64_t len, int64_t *first, int64_t *cnt,
                       int64_t *step) {
  int64_t s, e;
  if (!bound(n, 3, 1, step) || *step <= 0 || !bound(n, 1, 0, &s) || !bound(n, 2, len, &e))
    return false;
  if (s < 0) s = s + len < 0 ? 0 : s + len;
  if (e < 0) e = e + len < 0 ? 0 : e + len;
  if (s > len) s = len;
  if (e > len) e = len;
  *first = s;
  *cnt = e > s ? (e - s - 1) / *step + 1 : 0; /* no overflow for a huge step */
  return true;
}

/* aten::slice of a list: of a ListConstruct no one writes to, the
 * ListConstruct of the elements taken; of aten::size(x) for x of known
 * rank, a ListConstruct of aten::size(x, i), walked next (*next) so
 * static dims fold. */
static oxp_status slice_list(oxp_graph *g, oxp_node *n, bool *done, oxp_node **next,
                             oxp_diag *d) {
  oxp_value *l = n->inputs[0];
  oxp_node *p = l->producer;
  if (!p || oxp_jit_list_mutated(l)) return OXP_OK;
  bool size = oxp_kind_is(p, "aten::size") && p->ninputs == 1 && p->inputs[0]->type &&
              p->inputs[0]->type->kind == OXP_T_TENSOR && p->inputs[0]->type->rank >= 0;
  if (!size && !oxp_kind_is(p, "prim::ListConstruct")) return OXP_OK;
  int64_t len = size ? p->inputs[0]->type->rank : p->ninputs, first, cnt, step;
  if (!list_slice(n, len, &first, &cnt, &step)) return OXP_OK;
  oxp_node *k = oxp_node_new(g, "prim::ListConstruct", 1);
  if (!k) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  k->outputs[0]->type = n->outputs[0]->type;
  k->outputs[0]->name = n->outputs[0]->name;
  k->loc = n->loc;
  k->source = n->source;
  k->scope = n->scope;
  oxp_node *head = NULL;
  for (int64_t j = 0; j < cnt; j++) {
    int64_t i = first + j * step;
    oxp_value *e = size ? NULL : p->inputs[i];
    if (size) {
      oxp_node *c = oxp_node_new(g, "prim::Constant", 1);
      oxp_node *z = oxp_node_new(g, "aten::size", 1);
      oxp_type *ti = oxp_type_new(g->arena, OXP_T_INT), *to = oxp_type_new(g->arena, OXP_T_INT);
      if (!c || !z || !ti || !to || !oxp_node_add_input(z, p->inputs[0]) ||
          !oxp_node_add_input(z, c->outputs[0]))
        return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
      oxp_attr_set_i(c, "value", i);
      c->outputs[0]->type = ti;
      z->outputs[0]->type = to;
      c->loc = z->loc = n->loc;
      z->source = n->source;
      oxp_node_insert_before(n, c);
      oxp_node_insert_before(n, z);
      if (!head) head = c;
      e = z->outputs[0];
    }
    if (!oxp_node_add_input(k, e)) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  }
  oxp_node_insert_before(n, k);
  oxp_value_replace_uses(n->outputs[0], k->outputs[0]);
  oxp_node_destroy(n);
  if (head) *next = head;
  *done = true;
  return OXP_OK;
}

/* ListUnpack of `a + b` (aten::add of two lists, e.g. [q] + kv.chunk(2))
 * where one side is a ListConstruct no one writes to: its elements
 * directly, and a ListUnpack of the other side for the rest, walked next
 * so a chunk's pieces get their types. */
static oxp_status unpack_concat(oxp_graph *g, oxp_node *n, bool *done, oxp_node **next,
                                oxp_diag *d) {
  oxp_node *p = n->inputs[0]->producer;
  if (!oxp_kind_is(p, "aten::add") || p->ninputs != 2 || oxp_jit_list_mutated(n->inputs[0]))
    return OXP_OK;
  oxp_value *a = p->inputs[0], *b = p->inputs[1];
  if (!a->type || a->type->kind != OXP_T_LIST || !b->type || b->type->kind != OXP_T_LIST ||
      oxp_jit_list_mutated(a) || oxp_jit_list_mutated(b))
    return OXP_OK;
  oxp_node *pa = a->producer, *pb = b->producer;
  bool left = pa && oxp_kind_is(pa, "prim::ListConstruct");
  bool right = pb && oxp_kind_is(pb, "prim::ListConstruct");
  if (!left && !right) return OXP_OK;
  int na = left ? pa->ninputs : n->noutputs - pb->ninputs;
  if (na < 0 || na > n->noutputs) return OXP_OK;
  oxp_value *rest = left ? b : a;
  int nrest = left ? n->noutputs - na : na, off = left ? na : 0;
  oxp_node *u = oxp_node_new(g, "prim::ListUnpack", nrest);
  if (!u || !oxp_node_add_input(u, rest)) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  u->loc = n->loc;
  u->source = n->source;
  u->scope = n->scope;
  oxp_node_insert_before(n, u);
  for (int i = 0; i < nrest; i++) {
    u->outputs[i]->type = n->outputs[off + i]->type;
    u->outputs[i]->name = n->outputs[off + i]->name;
    oxp_value_replace_uses(n->outputs[off + i], u->outputs[i]);
  }
  const oxp_node *pk = left ? pa : pb;
  for (int i = 0; i < pk->ninputs; i++)
    oxp_value_replace_uses(n->outputs[left ? i : nrest + i], pk->inputs[i]);
  oxp_node_destroy(n);
  *next = u;
  *done = true;
  return OXP_OK;
}

oxp_status oxp_jit_fold_list(oxp_graph *g, oxp_node *n, bool *done, oxp_node **next,
                             oxp_diag *d) {
  *done = false;
  if (n->nblocks || n->ninputs < 1) return OXP_OK;
  if (oxp_kind_is(n, "prim::ListUnpack") || oxp_kind_is(n, "prim::TupleUnpack")) {
    /* of a pack no one writes to: its elements, so the sizes of a slice
     * of aten::size fold before the ops that read them */
    oxp_node *p = n->inputs[0]->producer;
    oxp_value *e[256];
    int cnt = -1;
    if (n->ninputs == 1 && p && oxp_kind_is(p, "prim::TupleConstruct") && p->ninputs <= 256)
      for (cnt = 0; cnt < p->ninputs; cnt++) e[cnt] = p->inputs[cnt];
    else if (n->ninputs == 1 && oxp_kind_is(n, "prim::ListUnpack"))
      cnt = static_elems(n->inputs[0], n, e, 256);
    if (cnt < 0 && n->ninputs == 1 && p && oxp_kind_is(n, "prim::ListUnpack"))
      return unpack_concat(g, n, done, next, d);
    if (cnt != n->noutputs) return OXP_OK;
    for (int i = 0; i < n->noutputs; i++) oxp_value_replace_uses(n->outputs[i], e[i]);
    oxp_node_destroy(n);
    *done = true;
    return OXP_OK;
  }
  if (n->noutputs != 1) return OXP_OK;
  if (oxp_kind_is(n, "aten::slice") && n->inputs[0]->type &&
      n->inputs[0]->type->kind == OXP_T_LIST)
    return slice_list(g, n, done, next, d);
  const oxp_type *rt = n->outputs[0]->type;
  oxp_node *k = NULL;
  if ((oxp_kind_is(n, "aten::all") || oxp_kind_is(n, "aten::any")) && n->ninputs == 1 &&
      n->inputs[0]->type && n->inputs[0]->type->kind == OXP_T_LIST) {
    bool all, any;
    if (!static_bools(n->inputs[0], n, &all, &any)) return OXP_OK;
    if ((k = constant(g, n, OXP_T_BOOL)))
      oxp_attr_set_i(k, "value", oxp_kind_is(n, "aten::all") ? all : any);
  } else if (oxp_kind_is(n, "aten::sum") && n->ninputs == 1 && n->inputs[0]->type &&
             n->inputs[0]->type->kind == OXP_T_LIST && rt && rt->kind == OXP_T_INT) {
    const oxp_node *p = n->inputs[0]->producer;
    if (!p || !oxp_kind_is(p, "prim::ListConstruct") || oxp_jit_list_mutated(n->inputs[0]))
      return OXP_OK;
    uint64_t sum = 0; /* wraps as TorchScript's int64 */
    for (int i = 0; i < p->ninputs; i++) {
      int64_t e;
      if (!const_int(p->inputs[i], &e)) return OXP_OK;
      sum += (uint64_t)e;
    }
    if ((k = constant(g, n, OXP_T_INT))) oxp_attr_set_i(k, "value", (int64_t)sum);
  } else if (oxp_kind_is(n, "aten::__getitem__") && n->ninputs == 2 && n->inputs[0]->type &&
             n->inputs[0]->type->kind == OXP_T_LIST) {
    oxp_node *p = n->inputs[0]->producer;
    int64_t i;
    if (p && oxp_kind_is(p, "aten::size") && p->ninputs == 1 && const_int(n->inputs[1], &i)) {
      /* x.size()[i] is x.size(i): a static dim folds, another lowers */
      oxp_node *z = oxp_node_new(g, "aten::size", 1);
      if (!z || !oxp_node_add_input(z, p->inputs[0]) || !oxp_node_add_input(z, n->inputs[1]))
        return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
      z->outputs[0]->type = n->outputs[0]->type;
      z->outputs[0]->name = n->outputs[0]->name;
      z->loc = n->loc;
      z->source = n->source;
      z->scope = n->scope;
      oxp_node_insert_before(n, z);
      oxp_value_replace_uses(n->outputs[0], z->outputs[0]);
      oxp_node_destroy(n);
      *next = z;
      *done = true;
      return OXP_OK;
    }
    if (!p || !oxp_kind_is(p, "prim::ListConstruct") || oxp_jit_list_mutated(n->inputs[0]) ||
        !const_int(n->inputs[1], &i))
      return OXP_OK;
    if (i < 0) i += p->ninputs;
    if (i < 0 || i >= p->ninputs) return OXP_OK; /* it raises: lowering names it */
    oxp_value_replace_uses(n->outputs[0], p->inputs[i]);
    oxp_node_destroy(n);
    *done = true;
    return OXP_OK;
  } else {
    return OXP_OK;
  }
  if (!k) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  oxp_value_replace_uses(n->outputs[0], k->outputs[0]);
  oxp_node_destroy(n);
  *done = true;
  return OXP_OK;
}
