/* jit_fold_static.c: folds the scalar code scripted library layers run to
 * choose a path, so their graphs reduce to the path eager torch takes.
 *
 * nn.TransformerEncoderLayer and nn.MultiheadAttention test for their
 * fast path with str(x.device).find("cpu"), bool lists built by
 * append, all()/any() over them and `query is not key`; none of it has
 * an ONNX form (ONNX has no strings), and all of it is known at export
 * time once devices are the export's (the CPU). Folded here, on
 * constants only:
 *   - aten::str of a Device or str constant;
 *   - aten::find / eq / ne / add on str constants (TorchScript's string
 *     semantics: find's start and end clamp like Python slices);
 *   - aten::all / aten::any of a bool list whose every element is
 *     known at that point: a ListConstruct of constants plus the appends
 *     of constants that precede the reader in the same block;
 *   - aten::slice of a list (of a ListConstruct, or of aten::size(x)),
 *     and ListUnpack / TupleUnpack of a pack;
 *   - aten::sum of an int list, aten::__getitem__ at a constant index,
 *     on a ListConstruct no one writes to;
 *   - aten::__is__ / __isnot__ of one value with itself;
 *   - prim::isinstance by its input's type (an Optional that only the
 *     run time decides is a named error).
 * Anything else is left for lowering to map or to name. */
#include <string.h>

#include "passes.h"

static const char *const_str(const oxp_value *v) {
  const oxp_node *k = v ? v->producer : NULL;
  const oxp_attr *a = k && oxp_kind_is(k, "prim::Constant") ? oxp_attr_get(k, "value") : NULL;
  const oxp_type *t = v ? v->type : NULL;
  if (!a || a->kind != OXP_A_STR || !t || (t->kind != OXP_T_STR && t->kind != OXP_T_DEVICE))
    return NULL;
  return a->s;
}

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

static oxp_status replace_by(oxp_graph *g, oxp_node *n, oxp_node *k, oxp_diag *d) {
  (void)g;
  if (!k) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  oxp_value_replace_uses(n->outputs[0], k->outputs[0]);
  oxp_node_destroy(n);
  return OXP_OK;
}

/* TorchScript's stringFindImpl: the window [start, end) clamps like a
 * Python slice; -1 when substr is not in it. */
static int64_t str_find(const char *s, const char *sub, int64_t start, int64_t end) {
  int64_t size = (int64_t)strlen(s);
  if (start < 0) start = size + start > 0 ? size + start : 0;
  if (end < 0) end = size + end + 1 > 0 ? size + end + 1 : 0;
  if (end <= start) return *sub ? -1 : start; /* an empty window */
  if (end > size) end = size;
  int64_t n = (int64_t)strlen(sub);
  for (int64_t i = start; i + n <= end; i++)
    if (strncmp(s + i, sub, (size_t)n) == 0) return i;
  return -1;
}

/* The elements of bool list l as reader n sees them, when every one is a
 * constant: l is a ListConstruct in n's block, and the only uses of l
 * before n are appends (whose result nobody reads) in that block. */
static bool static_bools(const oxp_value *l, const oxp_node *n, bool *all, bool *any) {
  const oxp_node *k = l->producer;
  if (!k || !oxp_kind_is(k, "prim::ListConstruct") || k->owner != n->owner) return false;
  *all = true;
  *any = false;
  for (int i = 0; i < l->nuses; i++)
    if (l->uses[i].node->owner != k->owner) return false;
  for (int i = 0; i < k->ninputs; i++) {
    int64_t b;
    if (!const_int(k->inputs[i], &b)) return false;
    *all &= b != 0;
    *any |= b != 0;
  }
  for (const oxp_node *m = k->next; m && m != n; m = m->next) {
    bool reads = false;
    for (int i = 0; i < m->ninputs; i++) reads |= m->inputs[i] == l;
    if (!reads) continue;
    int64_t b;
    if (!oxp_kind_is(m, "aten::append") || m->ninputs != 2 || m->inputs[0] != l ||
        m->inputs[1] == l || (m->noutputs && m->outputs[0]->nuses) || !const_int(m->inputs[1], &b))
      return false;
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
  *cnt = e > s ? (e - s + *step - 1) / *step : 0;
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

/* Does a value of kind k match one of isinstance's printed types
 * ("[Tensor]", "[int, NoneType]")? -1 when a type is not a plain one. */
static int type_match(const char *types, oxp_kind k) {
  static const struct { const char *name; oxp_kind kind; } plain[] = {
      {"Tensor", OXP_T_TENSOR}, {"int", OXP_T_INT},   {"float", OXP_T_FLOAT},
      {"bool", OXP_T_BOOL},     {"str", OXP_T_STR},   {"NoneType", OXP_T_NONE},
      {"Device", OXP_T_DEVICE}};
  const char *p = types + (*types == '[');
  int match = 0;
  while (*p && *p != ']') {
    while (*p == ' ') p++;
    size_t len = strcspn(p, ",]");
    while (len && p[len - 1] == ' ') len--;
    bool known = false;
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
      if (strlen(plain[i].name) == len && strncmp(p, plain[i].name, len) == 0) {
        known = true;
        match |= plain[i].kind == k;
      }
    if (!known) return -1;
    p += strcspn(p, ",]");
    if (*p == ',') p++;
  }
  return match;
}

/* prim::isinstance[types=...](x): by x's type when it is one plain
 * type; an Optional whose content only the run time knows is an error
 * here (lowering has no value for it), named at the node. */
static oxp_status fold_isinstance(oxp_graph *g, oxp_node *n, bool *done, oxp_diag *d) {
  const oxp_attr *a = oxp_attr_get(n, "types");
  const oxp_value *x = n->inputs[0];
  const oxp_type *t = x->type;
  if (!a || a->kind != OXP_A_STR || !t) return OXP_OK;
  const oxp_node *p = x->producer;
  oxp_kind k = t->kind;
  if (p && oxp_kind_is(p, "prim::Constant") && !p->attrs) k = OXP_T_NONE;
  int m = type_match(a->s, k);
  if (k == OXP_T_OPTIONAL || k == OXP_T_OTHER) {
    char ty[128];
    oxp_type_print(t, ty, sizeof ty);
    return oxp_fail(d, OXP_ERR_UNSUPPORTED, &n->loc, n->kind,
                    "prim::isinstance: whether %%%s (%s) is one of %s is decided at run time%s: the export "
                    "has no value for a None-or-tensor (make the type static, e.g. compute "
                    "the tensor on both paths)",
                    x->name ? x->name : "?", ty, a->s,
                    p && oxp_kind_is(p, "prim::If") ? " (by the prim::If that makes it)" : "");
  }
  if (m < 0) return OXP_OK; /* a type not read here: lowering names the node */
  oxp_node *c = constant(g, n, OXP_T_BOOL);
  if (!c) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  oxp_attr_set_i(c, "value", m);
  *done = true;
  return replace_by(g, n, c, d);
}

oxp_status oxp_jit_fold_static(oxp_graph *g, oxp_node *n, bool *done, oxp_node **next,
                               oxp_diag *d) {
  *done = false;
  if (n->nblocks || n->ninputs < 1) return OXP_OK;
  if (oxp_kind_is(n, "prim::ListUnpack") || oxp_kind_is(n, "prim::TupleUnpack")) {
    /* of a pack no one writes to: its elements, so the sizes of a slice
     * of aten::size fold before the ops that read them */
    oxp_node *p = n->inputs[0]->producer;
    if (n->ninputs != 1 || !p || p->ninputs != n->noutputs ||
        !(oxp_kind_is(p, "prim::TupleConstruct") ||
          (oxp_kind_is(p, "prim::ListConstruct") && !oxp_jit_list_mutated(n->inputs[0]))))
      return OXP_OK;
    for (int i = 0; i < n->noutputs; i++) oxp_value_replace_uses(n->outputs[i], p->inputs[i]);
    oxp_node_destroy(n);
    *done = true;
    return OXP_OK;
  }
  if (n->noutputs != 1) return OXP_OK;
  if (oxp_kind_is(n, "prim::isinstance") && n->ninputs == 1)
    return fold_isinstance(g, n, done, d);
  if (oxp_kind_is(n, "aten::slice") && n->inputs[0]->type &&
      n->inputs[0]->type->kind == OXP_T_LIST)
    return slice_list(g, n, done, next, d);
  const oxp_type *rt = n->outputs[0]->type;
  oxp_node *k = NULL;
  const char *a = const_str(n->inputs[0]);
  const char *b = n->ninputs >= 2 ? const_str(n->inputs[1]) : NULL;
  if (oxp_kind_is(n, "aten::str") && n->ninputs == 1 && a) {
    if ((k = constant(g, n, OXP_T_STR))) oxp_attr_set_s(k, "value", a);
  } else if (oxp_kind_is(n, "aten::find") && a && b && n->ninputs == 4) {
    int64_t s, e;
    if (!const_int(n->inputs[2], &s) || !const_int(n->inputs[3], &e)) return OXP_OK;
    if ((k = constant(g, n, OXP_T_INT))) oxp_attr_set_i(k, "value", str_find(a, b, s, e));
  } else if ((oxp_kind_is(n, "aten::eq") || oxp_kind_is(n, "aten::ne")) && a && b &&
             n->ninputs == 2) {
    bool eq = strcmp(a, b) == 0;
    if ((k = constant(g, n, OXP_T_BOOL)))
      oxp_attr_set_i(k, "value", oxp_kind_is(n, "aten::eq") ? eq : !eq);
  } else if (oxp_kind_is(n, "aten::add") && a && b && n->ninputs == 2 && rt &&
             rt->kind == OXP_T_STR) {
    size_t la = strlen(a), lb = strlen(b);
    char *s = oxp_alloc(g->arena, la + lb + 1);
    if (!s) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
    memcpy(s, a, la);
    memcpy(s + la, b, lb + 1);
    if ((k = constant(g, n, OXP_T_STR))) oxp_attr_set_s(k, "value", s);
  } else if ((oxp_kind_is(n, "aten::all") || oxp_kind_is(n, "aten::any")) && n->ninputs == 1 &&
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
    const oxp_node *p = n->inputs[0]->producer;
    int64_t i;
    if (!p || !oxp_kind_is(p, "prim::ListConstruct") || oxp_jit_list_mutated(n->inputs[0]) ||
        !const_int(n->inputs[1], &i))
      return OXP_OK;
    if (i < 0) i += p->ninputs;
    if (i < 0 || i >= p->ninputs) return OXP_OK; /* it raises: lowering names it */
    oxp_value_replace_uses(n->outputs[0], p->inputs[i]);
    oxp_node_destroy(n);
    *done = true;
    return OXP_OK;
  } else if ((oxp_kind_is(n, "aten::__is__") || oxp_kind_is(n, "aten::__isnot__")) &&
             n->ninputs == 2 && n->inputs[0] == n->inputs[1]) {
    if ((k = constant(g, n, OXP_T_BOOL)))
      oxp_attr_set_i(k, "value", oxp_kind_is(n, "aten::__is__"));
  } else {
    return OXP_OK;
  }
  *done = true;
  return replace_by(g, n, k, d);
}
