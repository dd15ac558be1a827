/* jit_constprop.c: constant propagation over the TorchScript graph.
 * Pure scalar ops whose inputs are all constants (ints, floats, bools,
 * None) become prim::Constant: arithmetic and comparisons on Python
 * numbers, Int/Float/Bool of numbers, len of a built list, None tests,
 * dim of a tensor of known rank. A prim::If on a constant condition is
 * replaced by the branch taken. Tensor ops are left to the ONNX-side
 * folder, which knows the exported dtypes. One walk in graph order:
 * a result feeds later nodes in the same walk. */
#include <math.h>
#include <string.h>

#include "passes.h"

typedef struct {
  oxp_kind kind; /* OXP_T_INT, OXP_T_FLOAT, OXP_T_BOOL, OXP_T_NONE */
  int64_t i;
  double f;
} num;

static bool read_const(const oxp_value *v, num *out) {
  const oxp_node *k = v ? v->producer : NULL;
  if (!k || !oxp_kind_is(k, "prim::Constant")) return false;
  const oxp_attr *a = oxp_attr_get(k, "value");
  const oxp_type *t = v->type;
  if (!a) {
    out->kind = OXP_T_NONE;
    return !t || t->kind == OXP_T_NONE;
  }
  if (a->kind == OXP_A_INT) {
    out->kind = t && t->kind == OXP_T_BOOL ? OXP_T_BOOL : OXP_T_INT;
    if (t && t->kind != OXP_T_INT && t->kind != OXP_T_BOOL) return false;
    out->i = a->i;
    out->f = (double)a->i;
    return true;
  }
  if (a->kind == OXP_A_FLOAT && (!t || t->kind == OXP_T_FLOAT)) {
    out->kind = OXP_T_FLOAT;
    out->f = a->f;
    out->i = oxp_f2i(a->f); /* eval computes both; only f is used */
    return true;
  }
  return false;
}

/* Inserts `prim::Constant[value=r]` before n and reroutes n's output. */
static oxp_status replace(oxp_graph *g, oxp_node *n, const num *r,
                          oxp_diag *d) {
  oxp_node *k = oxp_node_new(g, "prim::Constant", 1);
  oxp_type *t = oxp_type_new(g->arena, r->kind);
  if (!k || !t) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  if (r->kind == OXP_T_FLOAT) oxp_attr_set_f(k, "value", r->f);
  else if (r->kind != OXP_T_NONE) oxp_attr_set_i(k, "value", r->i);
  k->outputs[0]->type = t;
  k->outputs[0]->name = n->outputs[0]->name;
  k->loc = n->loc;
  k->source = n->source;
  oxp_node_insert_before(n, k);
  oxp_value_replace_uses(n->outputs[0], k->outputs[0]);
  oxp_node_destroy(n);
  return OXP_OK;
}

/* TorchScript ints are int64 and wrap; in C a signed overflow is
 * undefined, so the arithmetic goes through uint64. */
static int64_t wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wrap_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static int64_t wrap_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

static int64_t floordiv(int64_t a, int64_t b) {
  if (b == -1) return wrap_sub(0, a); /* INT64_MIN / -1 traps */
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Evaluates the scalar op n on constants a, b (b unused for unary). */
static bool eval(const oxp_node *n, const num *a, const num *b, int nin,
                 num *r) {
  const char *op = strchr(n->kind, ':') + 2;
  bool fl = a->kind == OXP_T_FLOAT || (nin > 1 && b->kind == OXP_T_FLOAT);
  bool nums = a->kind != OXP_T_NONE && (nin < 2 || b->kind != OXP_T_NONE);
  r->kind = fl ? OXP_T_FLOAT : OXP_T_INT;
  if (nin == 2 && nums) {
    double x = a->f, y = b->f;
    int64_t i = a->i, j = b->i;
    if (!strcmp(op, "add")) { r->f = x + y; r->i = wrap_add(i, j); }
    else if (!strcmp(op, "sub")) { r->f = x - y; r->i = wrap_sub(i, j); }
    else if (!strcmp(op, "mul")) { r->f = x * y; r->i = wrap_mul(i, j); }
    else if (!strcmp(op, "div")) {
      if (y == 0) return false;
      r->kind = OXP_T_FLOAT;
      r->f = x / y;
    } else if (!strcmp(op, "floordiv")) {
      if (y == 0) return false;
      r->f = floor(x / y);
      if (!fl) r->i = floordiv(i, j);
    } else if (!strcmp(op, "remainder")) {
      if (y == 0) return false;
      r->f = x - floor(x / y) * y;
      if (!fl) r->i = wrap_sub(i, wrap_mul(floordiv(i, j), j));
    } else if (!strcmp(op, "max") || !strcmp(op, "min")) {
      bool mx = op[1] == 'a';
      r->f = mx ? fmax(x, y) : fmin(x, y);
      r->i = mx ? (i > j ? i : j) : (i < j ? i : j);
    } else {
      int c = fl ? (x < y ? -1 : x > y) : (i < j ? -1 : i > j);
      r->kind = OXP_T_BOOL;
      if (!strcmp(op, "eq")) r->i = c == 0;
      else if (!strcmp(op, "ne")) r->i = c != 0;
      else if (!strcmp(op, "lt")) r->i = c < 0;
      else if (!strcmp(op, "gt")) r->i = c > 0;
      else if (!strcmp(op, "le")) r->i = c <= 0;
      else if (!strcmp(op, "ge")) r->i = c >= 0;
      else if (!strcmp(op, "__and__") && !fl) r->i = i & j, r->kind = a->kind;
      else if (!strcmp(op, "__or__") && !fl) r->i = i | j, r->kind = a->kind;
      else if (!strcmp(op, "__xor__") && !fl) r->i = i ^ j, r->kind = a->kind;
      else return false;
    }
    if (r->kind == OXP_T_INT) r->f = (double)r->i;
    return true;
  }
  if (nin == 2 && (!strcmp(op, "__is__") || !strcmp(op, "__isnot__"))) {
    bool same = a->kind == OXP_T_NONE && b->kind == OXP_T_NONE;
    r->kind = OXP_T_BOOL;
    r->i = op[4] == 'n' ? !same : same;
    return true;
  }
  if (nin != 1 || !nums) return false;
  if (!strcmp(op, "neg")) { r->f = -a->f; r->i = wrap_sub(0, a->i); return true; }
  if (!strcmp(op, "__not__") && a->kind == OXP_T_BOOL) {
    r->kind = OXP_T_BOOL;
    r->i = !a->i;
    return true;
  }
  if (!strcmp(op, "Int")) { r->kind = OXP_T_INT; r->i = fl ? oxp_f2i(a->f) : a->i; return true; }
  if (!strcmp(op, "Float")) { r->kind = OXP_T_FLOAT; r->f = a->f; return true; }
  if (!strcmp(op, "Bool")) { r->kind = OXP_T_BOOL; r->i = fl ? a->f != 0 : a->i != 0; return true; }
  return false;
}

/* x is None known from its type alone (a non-optional value never is). */
static bool none_by_type(const oxp_value *v, num *out) {
  const oxp_type *t = v->type;
  if (!t || t->kind == OXP_T_OPTIONAL || t->kind == OXP_T_OTHER) return false;
  out->kind = t->kind == OXP_T_NONE ? OXP_T_NONE : OXP_T_INT;
  out->i = 0;
  out->f = 0;
  return true;
}

/* prim::If on a constant: the branch taken moves before the If. */
void oxp_jit_inline_if(oxp_node *n, bool cond) {
  oxp_block *taken = n->blocks[cond ? 0 : 1];
  for (oxp_node *m = taken->first, *next; m; m = next) {
    next = m->next;
    m->prev = m->next = NULL;
    oxp_node_insert_before(n, m);
  }
  taken->first = taken->last = NULL;
  for (int i = 0; i < n->noutputs && i < taken->noutputs; i++)
    oxp_value_replace_uses(n->outputs[i], taken->outputs[i]);
  oxp_pass_destroy_block(n->blocks[cond ? 1 : 0]);
  oxp_node_destroy(n);
}

static oxp_status prop_block(oxp_graph *g, oxp_block *b, oxp_diag *d) {
  OXP_FOR_NODES(b, n, nx) {
    if (oxp_kind_is(n, "prim::If") && n->nblocks == 2 && n->ninputs >= 1) {
      num c;
      if (read_const(n->inputs[0], &c) && c.kind != OXP_T_NONE &&
          c.kind != OXP_T_FLOAT) {
        oxp_node *first = n->blocks[c.i ? 0 : 1]->first;
        oxp_jit_inline_if(n, c.i != 0);
        /* The inlined nodes come next in this walk. */
        if (first) nx = first;
        continue;
      }
    }
    for (int k = 0; k < n->nblocks; k++) {
      oxp_status st = prop_block(g, n->blocks[k], d);
      if (st) return st;
    }
    oxp_status st = oxp_jit_constprop_node(g, n, d);
    if (st) return st;
  }
  return OXP_OK;
}

oxp_status oxp_jit_constprop_node(oxp_graph *g, oxp_node *n, oxp_diag *d) {
  if (n->noutputs != 1 || n->ninputs < 1 || n->ninputs > 2 || n->nblocks ||
      !(strncmp(n->kind, "aten::", 6) == 0 || strncmp(n->kind, "prim::", 6) == 0))
    return OXP_OK;
  num a, b2, r;
  if (oxp_kind_is(n, "aten::len") && n->inputs[0]->producer &&
      oxp_kind_is(n->inputs[0]->producer, "prim::ListConstruct") &&
      !oxp_jit_list_mutated(n->inputs[0])) {
    r.kind = OXP_T_INT;
    r.i = n->inputs[0]->producer->ninputs;
  } else if (oxp_kind_is(n, "aten::__is__") || oxp_kind_is(n, "aten::__isnot__")) {
    if (!(read_const(n->inputs[0], &a) || none_by_type(n->inputs[0], &a)) ||
        n->ninputs != 2 || !(read_const(n->inputs[1], &b2) || none_by_type(n->inputs[1], &b2)) ||
        !eval(n, &a, &b2, 2, &r))
      return OXP_OK;
  } else {
    if (!read_const(n->inputs[0], &a)) return OXP_OK;
    if (n->ninputs == 2 && !read_const(n->inputs[1], &b2)) return OXP_OK;
    if (!eval(n, &a, &b2, n->ninputs, &r)) return OXP_OK;
  }
  const oxp_type *t = n->outputs[0]->type;
  if (t && t->kind != r.kind && !(t->kind == OXP_T_NUMBER)) {
    if (t->kind == OXP_T_FLOAT && r.kind == OXP_T_INT) r.kind = OXP_T_FLOAT, r.f = (double)r.i;
    else if (t->kind != OXP_T_BOOL || r.kind != OXP_T_INT) return OXP_OK;
    else r.kind = OXP_T_BOOL;
  }
  return replace(g, n, &r, d);
}

oxp_status oxp_jit_constprop(oxp_graph *g, oxp_diag *d) {
  return prop_block(g, g->top, d);
}
