/* broadcast.c: NumPy broadcasting of inferred shapes, the error an
 * incompatible pair gives, and Expand for ops that broadcast one way
 * only (Gemm's C to (M, N), PRelu's slope to X). */
#include <stdio.h>
#include <string.h>

#include "passes.h"

void oxp_shape_unknown(oxp_shape *s, int dtype) {
  s->dtype = dtype;
  s->rank = -1;
}

void oxp_shape_of(const oxp_value *v, oxp_shape *s) {
  const oxp_type *t = v ? v->type : NULL;
  oxp_shape_unknown(s, 0);
  if (!t || t->kind != OXP_T_TENSOR) return;
  s->dtype = t->dtype;
  if (t->rank < 0 || t->rank > OXP_MAX_SHAPE_RANK) return;
  s->rank = t->rank;
  for (int i = 0; i < t->rank; i++) {
    s->p[i] = t->dim_params ? t->dim_params[i] : NULL;
    s->d[i] = s->p[i] ? -1 : t->dims[i];
  }
}

void oxp_shape_print(const oxp_shape *s, char *buf, size_t n) {
  size_t at = 0;
#define PUT(...) \
  do { if (at < n) at += (size_t)snprintf(buf + at, n - at, __VA_ARGS__); } while (0)
  if (s->rank < 0) {
    PUT("[unknown rank]");
    return;
  }
  PUT("[");
  for (int i = 0; i < s->rank; i++) {
    if (i) PUT(", ");
    if (s->p[i]) PUT("%s", s->p[i]);
    else if (s->d[i] < 0) PUT("?");
    else PUT("%lld", (long long)s->d[i]);
  }
  PUT("]");
#undef PUT
}

bool oxp_shape_dim_eq(const oxp_shape *a, int i, const oxp_shape *b, int j) {
  if (a->p[i] || b->p[j])
    return a->p[i] && b->p[j] && strcmp(a->p[i], b->p[j]) == 0;
  return a->d[i] >= 0 && a->d[i] == b->d[j];
}

static bool is_one(const oxp_shape *s, int i) { return !s->p[i] && s->d[i] == 1; }

/* One output dim from two aligned dims: 1 gives way; a value beats a
 * name (the name must then be that value or 1); equal names stay. */
static bool bdim(const oxp_shape *a, int i, const oxp_shape *b, int j,
                 oxp_shape *o, int k) {
  const oxp_shape *src = NULL;
  int si = 0;
  if (is_one(a, i)) src = b, si = j;
  else if (is_one(b, j)) src = a, si = i;
  else if (a->d[i] >= 0 && b->d[j] >= 0) {
    if (a->d[i] != b->d[j]) return false;
    src = a, si = i;
  } else if (a->d[i] >= 0) src = a, si = i;
  else if (b->d[j] >= 0) src = b, si = j;
  else if (oxp_shape_dim_eq(a, i, b, j)) src = a, si = i;
  o->d[k] = src ? src->d[si] : -1;
  o->p[k] = src ? src->p[si] : NULL;
  return true;
}

bool oxp_broadcast(const oxp_shape *a, const oxp_shape *b, oxp_shape *out) {
  int dt = a->dtype;
  if (a->rank < 0 || b->rank < 0) {
    oxp_shape_unknown(out, dt);
    return true;
  }
  int r = a->rank > b->rank ? a->rank : b->rank;
  oxp_shape o;
  o.dtype = dt;
  o.rank = r;
  for (int k = 0; k < r; k++) {
    int i = k - (r - a->rank), j = k - (r - b->rank);
    if (i < 0) o.d[k] = b->d[j], o.p[k] = b->p[j];
    else if (j < 0) o.d[k] = a->d[i], o.p[k] = a->p[i];
    else if (!bdim(a, i, b, j, &o, k)) return false;
  }
  *out = o;
  return true;
}

oxp_status oxp_broadcast_fail(oxp_diag *d, const oxp_node *n,
                              const oxp_shape *a, const oxp_shape *b) {
  char sa[256], sb[256];
  oxp_shape_print(a, sa, sizeof sa);
  oxp_shape_print(b, sb, sizeof sb);
  const char *op = strstr(n->kind, "::") ? strstr(n->kind, "::") + 2 : n->kind;
  return oxp_fail(d, OXP_ERR_GRAPH, &n->loc, n->kind,
                  "%s: shapes %s and %s cannot be broadcast together", op, sa,
                  sb);
}

/* Does s broadcast to target without growing (unidirectionally)? */
static bool one_way(const oxp_shape *s, const oxp_shape *target) {
  if (s->rank < 0 || target->rank < 0) return true; /* cannot tell */
  if (s->rank > target->rank) return false;
  for (int i = 0; i < s->rank; i++) {
    int j = i + target->rank - s->rank;
    if (is_one(s, i) || oxp_shape_dim_eq(s, i, target, j)) continue;
    if (s->d[i] < 0 && !s->p[i]) continue; /* unknown: trust the model */
    return false;
  }
  return true;
}

/* Expand(v, Shape(like)) inserted before n as n's input i. */
static oxp_status expand_input(oxp_pass *p, oxp_node *n, int i,
                               oxp_value *like) {
  oxp_node *sh = oxp_node_new(p->g, "onnx::Shape", 1);
  oxp_node *ex = oxp_node_new(p->g, "onnx::Expand", 1);
  if (!sh || !ex || !oxp_node_add_input(sh, like) ||
      !oxp_node_add_input(ex, n->inputs[i]) ||
      !oxp_node_add_input(ex, sh->outputs[0]))
    return oxp_fail(p->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  sh->loc = ex->loc = n->loc;
  oxp_node_insert_before(n, sh);
  oxp_node_insert_before(n, ex);
  oxp_node_set_input(n, i, ex->outputs[0]);
  return OXP_OK;
}

/* Out of line: its shapes would otherwise sit in every frame of the
 * recursion over nested blocks. */
static OXP_OUT_OF_LINE oxp_status fix_node(oxp_pass *p, oxp_node *n) {
  const char *op = oxp_pass_onnx_op(n);
  if (!op) return OXP_OK;
  oxp_shape x, s, out;
  if (strcmp(op, "PRelu") == 0 && n->ninputs == 2) {
    oxp_shape_of(n->inputs[0], &x);
    oxp_shape_of(n->inputs[1], &s);
    if (one_way(&s, &x)) return OXP_OK;
    if (!oxp_broadcast(&x, &s, &out)) return oxp_broadcast_fail(p->d, n, &x, &s);
    /* The slope is the bigger one: grow X to it first. */
    return expand_input(p, n, 0, n->inputs[1]);
  }
  if (strcmp(op, "Gemm") == 0 && n->ninputs == 3 && n->inputs[2]) {
    oxp_shape_of(n->outputs[0], &out);
    oxp_shape_of(n->inputs[2], &s);
    if (one_way(&s, &out)) return OXP_OK;
    oxp_shape big;
    if (!oxp_broadcast(&out, &s, &big)) return oxp_broadcast_fail(p->d, n, &out, &s);
    return oxp_fail(p->d, OXP_ERR_GRAPH, &n->loc, n->kind,
                    "Gemm: the bias does not broadcast to the product");
  }
  return OXP_OK;
}

static oxp_status fix_block(oxp_pass *p, oxp_block *b) {
  OXP_FOR_NODES(b, n, nx) {
    for (int k = 0; k < n->nblocks; k++) {
      oxp_status st = fix_block(p, n->blocks[k]);
      if (st) return st;
    }
    oxp_status st = fix_node(p, n);
    if (st) return st;
  }
  return OXP_OK;
}

oxp_status oxp_broadcast_fix(oxp_pass *p) { return fix_block(p, p->g->top); }
