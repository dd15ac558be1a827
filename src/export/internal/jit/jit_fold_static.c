/* jit_fold_static.c: folds the scalar code scripted library layers run to
 * choose a path, so their graphs reduce to the path eager torch takes.
 *
 * nn.TransformerEncoderLayer and nn.MultiheadAttention test for their
 * fast path with str(x.device).find("cpu"), bool lists built by
 * append, all()/any() over them, `query is not key` and messages made
 * by aten::format; none of it has an ONNX form (ONNX has no strings),
 * and all of it is known at export time once devices are the export's
 * (the CPU). Folded here, on constants only:
 *   - aten::str of a Device or str constant;
 *   - aten::find / eq / ne / add on str constants (TorchScript's string
 *     semantics: find's start and end clamp like Python slices), and
 *     aten::format of constants (the why-not-fast-path messages);
 *   - aten::__is__ / __isnot__ of one value with itself, or of two
 *     tensors that are surely different objects (separate graph inputs,
 *     outputs of ops that make new tensors: MultiheadAttention's
 *     `query is key` for cross attention);
 *   - prim::is_nested (false: no nested tensor is exported; making one
 *     from a padding mask is a named error);
 *   - prim::isinstance by its input's type (an Optional that only the
 *     run time decides is a named error);
 *   - the list code around them (jit_fold_lists.c).
 * Anything else is left for lowering to map or to name. */
#include <math.h>
#include <stdio.h>
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

/* The tensor object v surely is: a graph input, or the output of an op
 * that makes a new tensor; ops that may hand back their input itself
 * (contiguous, to, in-place ops, ...) lead to their input. NULL when
 * unknown (block inputs, If/Loop outputs, list and tuple elements). */
static const oxp_value *object_root(const oxp_graph *g, const oxp_value *v) {
  static const char *const may_be_self[] = {
      "aten::contiguous", "aten::to", "aten::type_as", "aten::type", "aten::flatten",
      "aten::conj", "aten::resolve_conj", "aten::resolve_neg", "aten::real", "aten::cpu",
      "aten::cuda", "aten::reshape", "aten::reshape_as", "aten::view_as_real", "aten::align_as",
      "aten::align_to", "aten::coalesce", "aten::to_dense", "aten::requires_grad_"};
  for (int depth = 0; v && depth < 64; depth++) {
    const oxp_node *p = v->producer;
    if (!p) return v->owner == g->top ? v : NULL;
    static const char *const stored[] = {"aten::__getitem__", "aten::pop", "aten::get",
                                         "aten::setdefault", "aten::values", "aten::wait"};
    if (strncmp(p->kind, "aten::", 6) != 0 || p->noutputs != 1) return NULL;
    for (size_t i = 0; i < sizeof stored / sizeof *stored; i++)
      if (oxp_kind_is(p, stored[i])) return NULL; /* an element kept elsewhere */
    size_t len = strlen(p->kind);
    bool inplace = p->kind[len - 1] == '_' && p->kind[len - 2] != '_';
    bool self = inplace;
    for (size_t i = 0; i < sizeof may_be_self / sizeof *may_be_self && !self; i++)
      self = oxp_kind_is(p, may_be_self[i]);
    if (!self) return v;
    v = p->ninputs ? p->inputs[0] : NULL;
  }
  return NULL;
}

/* Are two tensors surely different objects? Graph inputs are given as
 * separate tensors, and every op output outside object_root's list is
 * a new one. */
static bool distinct_inputs(const oxp_graph *g, const oxp_node *n) {
  const oxp_value *a = n->inputs[0], *b = n->inputs[1];
  if (a == b || !a->type || !b->type || a->type->kind != OXP_T_TENSOR ||
      b->type->kind != OXP_T_TENSOR)
    return false;
  const oxp_value *ra = object_root(g, a), *rb = object_root(g, b);
  return ra && rb && ra != rb;
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

/* A constant as TorchScript's aten::format prints it (IValue's
 * operator<<): ints, True/False, strings as they are, None, and floats
 * with 17 significant digits and a '.' when they print none. false for
 * anything else (tensors, non-finite floats, lists). */
static bool print_const(const oxp_value *v, char *buf, size_t n) {
  const oxp_node *k = v->producer;
  const oxp_type *t = v->type;
  if (!k || !oxp_kind_is(k, "prim::Constant") || !t) return false;
  const oxp_attr *a = oxp_attr_get(k, "value");
  if (!a) return t->kind == OXP_T_NONE && snprintf(buf, n, "None") > 0;
  if (a->kind == OXP_A_STR && (t->kind == OXP_T_STR || t->kind == OXP_T_DEVICE))
    return (size_t)snprintf(buf, n, "%s", a->s) < n;
  if (a->kind == OXP_A_INT && t->kind == OXP_T_BOOL)
    return snprintf(buf, n, "%s", a->i ? "True" : "False") > 0;
  if (a->kind == OXP_A_INT && t->kind == OXP_T_INT)
    return snprintf(buf, n, "%lld", (long long)a->i) > 0;
  if (a->kind == OXP_A_FLOAT && t->kind == OXP_T_FLOAT && isfinite(a->f)) {
    int len = snprintf(buf, n, "%.17g", a->f);
    if (len <= 0 || (size_t)len + 2 > n) return false;
    if (!strpbrk(buf, ".e")) strcat(buf, ".");
    return true;
  }
  return false;
}

/* aten::format(fmt, args...) on constants, as TorchScript fills each
 * "{}" in turn: the string layers compute to explain why they skip a
 * fast path, whose emptiness decides the path. */
static oxp_status fold_format(oxp_graph *g, oxp_node *n, bool *done, oxp_diag *d) {
  const char *fmt = const_str(n->inputs[0]);
  if (!fmt || !n->outputs[0]->type || n->outputs[0]->type->kind != OXP_T_STR) return OXP_OK;
  size_t cap = strlen(fmt) + 1, len = 0;
  char parts[16][128];
  int nargs = n->ninputs - 1;
  if (nargs > 16) return OXP_OK;
  for (int i = 0; i < nargs; i++) {
    if (!print_const(n->inputs[1 + i], parts[i], sizeof parts[i])) return OXP_OK;
    cap += strlen(parts[i]);
  }
  char *out = oxp_alloc(g->arena, cap);
  if (!out) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  const char *p = fmt;
  for (int i = 0; i < nargs; i++) {
    const char *at = strstr(p, "{}");
    if (!at) return OXP_OK; /* too many arguments: it raises */
    memcpy(out + len, p, (size_t)(at - p));
    len += (size_t)(at - p);
    size_t l = strlen(parts[i]);
    memcpy(out + len, parts[i], l);
    len += l;
    p = at + 2;
  }
  strcpy(out + len, p);
  oxp_node *k = constant(g, n, OXP_T_STR);
  if (!k) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  oxp_attr_set_s(k, "value", out);
  *done = true;
  return replace_by(g, n, k, d);
}

oxp_status oxp_jit_fold_static(oxp_graph *g, oxp_node *n, bool *done, oxp_node **next,
                               oxp_diag *d) {
  *done = false;
  if (n->nblocks || n->ninputs < 1) return OXP_OK;
  oxp_status st;
  if ((st = oxp_jit_fold_list(g, n, done, next, d)) || *done) return st;
  if (n->noutputs != 1) return OXP_OK;
  if (oxp_kind_is(n, "aten::format")) return fold_format(g, n, done, d);
  if (oxp_kind_is(n, "prim::isinstance") && n->ninputs == 1)
    return fold_isinstance(g, n, done, d);
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
  } else if ((oxp_kind_is(n, "aten::__is__") || oxp_kind_is(n, "aten::__isnot__")) &&
             n->ninputs == 2 && (n->inputs[0] == n->inputs[1] || distinct_inputs(g, n))) {
    if ((k = constant(g, n, OXP_T_BOOL)))
      oxp_attr_set_i(k, "value",
                     oxp_kind_is(n, "aten::__is__") == (n->inputs[0] == n->inputs[1]));
  } else if (oxp_kind_is(n, "prim::is_nested") && n->ninputs == 1) {
    if ((k = constant(g, n, OXP_T_BOOL))) oxp_attr_set_i(k, "value", 0); /* none exported */
  } else if (oxp_kind_is(n, "aten::_nested_tensor_from_mask") ||
             oxp_kind_is(n, "aten::_nested_tensor_from_mask_left_aligned")) {
    return oxp_fail(d, OXP_ERR_UNSUPPORTED, &n->loc, n->kind,
                    "%s: nested tensors have no ONNX form, and whether torch makes one "
                    "here depends on the padding mask's values (nn.TransformerEncoder with "
                    "src_key_padding_mask in eval mode); build the encoder with "
                    "enable_nested_tensor=False to export it",
                    n->kind);
  } else {
    return OXP_OK;
  }
  *done = true;
  return replace_by(g, n, k, d);
}
