/* const_fold.c: constant folding of the ONNX graph. One walk in graph
 * order: a node whose inputs are all constants is evaluated
 * (fold_eval.c) and its output becomes an initializer, so chains fold in
 * the same walk. Shapes count as constants where inference proved them
 * static: Shape of a static tensor, and Gather of static dims out of a
 * Shape (x.size(1) with a dynamic batch still folds).
 *
 * Graph outputs are never folded away: an output must stay produced by a
 * node to keep its place and name. */
#include <string.h>

#include "passes.h"

static bool static_dims(const oxp_value *v, oxp_shape *s) {
  oxp_shape_of(v, s);
  if (s->rank < 0) return false;
  for (int i = 0; i < s->rank; i++)
    if (s->p[i] || s->d[i] < 0) return false;
  return true;
}

static oxp_tensor *i64s(oxp_pass *p, int rank, const int64_t *v, int n) {
  int64_t dim = n;
  oxp_tensor *t = oxp_tensor_alloc(p->g->arena, OXP_DT_INT64, rank, rank ? &dim : NULL);
  if (t && n) memcpy((void *)t->data, v, sizeof(int64_t) * (size_t)n);
  return t;
}

/* Shape(x)[start:end] when those dims of x are static. */
static oxp_tensor *shape_of_static(oxp_pass *p, oxp_node *n) {
  oxp_shape s;
  oxp_shape_of(n->inputs[0], &s);
  if (s.rank < 0) return NULL;
  const oxp_attr *as = oxp_attr_get(n, "start"), *ae = oxp_attr_get(n, "end");
  int64_t b = as ? as->i : 0, e = ae ? ae->i : s.rank;
  if (b < 0) b += s.rank;
  if (e < 0) e += s.rank;
  b = b < 0 ? 0 : b > s.rank ? s.rank : b;
  e = e < b ? b : e > s.rank ? s.rank : e;
  for (int64_t i = b; i < e; i++)
    if (s.p[i] || s.d[i] < 0) return NULL;
  return i64s(p, 1, s.d + b, (int)(e - b));
}

/* Gather(Shape(x), k) with dim k of x static, though other dims are not. */
static oxp_tensor *dims_of_shape(oxp_pass *p, oxp_node *n) {
  oxp_node *sh = n->inputs[0]->producer;
  oxp_value *iv = n->ninputs > 1 ? n->inputs[1] : NULL;
  if (!sh || !oxp_kind_is(sh, "onnx::Shape") || oxp_attr_get(sh, "start") ||
      oxp_attr_get(sh, "end") || !oxp_pass_is_const(p, iv))
    return NULL;
  const oxp_attr *ax = oxp_attr_get(n, "axis");
  const oxp_tensor *idx = iv->init;
  oxp_shape s;
  oxp_shape_of(sh->inputs[0], &s);
  int64_t m = oxp_tensor_numel(idx), v[OXP_MAX_SHAPE_RANK];
  if ((ax && ax->i != 0) || s.rank < 0 || idx->rank > 1 || m > OXP_MAX_SHAPE_RANK ||
      !oxp_dtype_is_int(idx->dtype))
    return NULL;
  for (int64_t i = 0; i < m; i++) {
    int64_t k = oxp_tensor_get_i(idx, i);
    if (k < 0) k += s.rank;
    if (k < 0 || k >= s.rank || s.p[k] || s.d[k] < 0) return NULL;
    v[i] = s.d[k];
  }
  return i64s(p, idx->rank, v, (int)m);
}

static oxp_tensor *const_attr(const oxp_node *n) {
  const oxp_attr *a = n->attrs;
  return a && !a->next && a->kind == OXP_A_TENSOR && strcmp(a->name, "value") == 0
             ? a->t : NULL;
}

static oxp_status fold_node(oxp_pass *p, oxp_node *n, oxp_tensor **t) {
  const char *op = oxp_pass_onnx_op(n);
  *t = NULL;
  if (strcmp(op, "Constant") == 0) {
    *t = const_attr(n);
    return OXP_OK;
  }
  oxp_shape s;
  if (strcmp(op, "Shape") == 0) {
    *t = shape_of_static(p, n);
    return OXP_OK;
  }
  if (strcmp(op, "Size") == 0) {
    if (!static_dims(n->inputs[0], &s)) return OXP_OK;
    int64_t m = 1;
    for (int i = 0; i < s.rank; i++) m *= s.d[i];
    *t = i64s(p, 0, &m, 1);
    return OXP_OK;
  }
  if (strcmp(op, "Gather") == 0 && (*t = dims_of_shape(p, n))) return OXP_OK;
  oxp_tensor *stack[16], **in = n->ninputs <= 16 ? stack
      : oxp_alloc(p->g->arena, sizeof *in * (size_t)n->ninputs);
  if (!in) return oxp_fail(p->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  bool any = false;
  for (int i = 0; i < n->ninputs; i++) {
    oxp_value *v = n->inputs[i];
    if (v && !oxp_pass_is_const(p, v)) return OXP_OK;
    in[i] = v ? v->init : NULL;
    any |= v != NULL;
  }
  if (!any) return OXP_OK;
  oxp_status st = oxp_fold_eval(p, n, in, t);
  /* A folded weight (a Linear's Transpose, say) was read page by page from
   * the sidecar's mapping; drop those pages now, so resident memory holds
   * the folded copies, not the copies and their sources. */
  for (int i = 0; !st && *t && i < n->ninputs; i++)
    if (in[i] && in[i]->nbytes >= OXP_FOLD_LIMIT) oxp_tensor_release(in[i]);
  return st;
}

static oxp_status fold_block(oxp_pass *p, oxp_block *b) {
  OXP_FOR_NODES(b, n, nx) {
    for (int k = 0; k < n->nblocks; k++) {
      oxp_status st = fold_block(p, n->blocks[k]);
      if (st) return st;
    }
    if (n->nblocks || !oxp_pass_onnx_op(n) || n->noutputs != 1) continue;
    oxp_value *out = n->outputs[0];
    if (oxp_pass_is_out(p, out) || out->nuses == 0) continue;
    oxp_tensor *t;
    oxp_status st = fold_node(p, n, &t);
    if (st) return st;
    if (!t) continue;
    oxp_pass_make_const(p, out, t);
    oxp_node_destroy(n);
  }
  return OXP_OK;
}

oxp_status oxp_const_fold(oxp_pass *p) { return fold_block(p, p->g->top); }
