/* sym_read.c: how a symbolic reads its node's inputs: constant arguments
 * straight from the TorchScript graph, tensors through the lowering
 * environment (materializing constants and int lists on demand). */
#include <math.h>
#include <string.h>

#include "lower_ctx.h"
#include "../export/internal/passes.h" /* oxp_jit_list_mutated */

oxp_value *oxp_sym_src(oxp_node *n, int i) {
  return i >= 0 && i < n->ninputs ? n->inputs[i] : NULL;
}

static oxp_node *const_node(const oxp_value *v) {
  return v && v->producer && oxp_kind_is(v->producer, "prim::Constant")
             ? v->producer
             : NULL;
}

static oxp_attr *const_attr(const oxp_value *v) {
  oxp_node *k = const_node(v);
  return k ? oxp_attr_get(k, "value") : NULL;
}

bool oxp_sym_is_none(oxp_node *n, int i) {
  oxp_value *v = oxp_sym_src(n, i);
  if (!v) return true;
  if (v->type && v->type->kind == OXP_T_NONE) return true;
  oxp_node *k = const_node(v);
  return k && !k->attrs;
}

/* A list of constants that nothing changes later: an append in a loop
 * makes `[]` a list of run-time length, read from its sequence. */
static bool is_list_of_consts(const oxp_value *v) {
  if (!v || !v->producer || !oxp_kind_is(v->producer, "prim::ListConstruct") ||
      oxp_jit_list_mutated(v))
    return false;
  for (int i = 0; i < v->producer->ninputs; i++)
    if (!const_attr(v->producer->inputs[i])) return false;
  return true;
}

bool oxp_sym_is_const(oxp_node *n, int i) {
  oxp_value *v = oxp_sym_src(n, i);
  return const_attr(v) || is_list_of_consts(v);
}

/* A scalar out of a constant attribute: numbers, or a one-element tensor. */
static bool attr_number(const oxp_attr *a, double *f, int64_t *iv) {
  if (!a) return false;
  switch (a->kind) {
  case OXP_A_INT: *iv = a->i; *f = (double)a->i; return true;
  case OXP_A_FLOAT: *f = a->f; *iv = oxp_f2i(a->f); return true;
  case OXP_A_TENSOR:
    if (!a->t || !a->t->data || oxp_tensor_numel(a->t) != 1) return false;
    *f = oxp_tensor_get_f(a->t, 0);
    *iv = oxp_tensor_get_i(a->t, 0);
    return true;
  default: return false;
  }
}

bool oxp_sym_int(oxp_node *n, int i, int64_t *out) {
  double f;
  return attr_number(const_attr(oxp_sym_src(n, i)), &f, out);
}

bool oxp_sym_float(oxp_node *n, int i, double *out) {
  int64_t iv;
  return attr_number(const_attr(oxp_sym_src(n, i)), out, &iv);
}

bool oxp_sym_bool(oxp_node *n, int i, bool *out) {
  int64_t v;
  if (!oxp_sym_int(n, i, &v)) return false;
  *out = v != 0;
  return true;
}

bool oxp_sym_str(oxp_node *n, int i, const char **out) {
  oxp_attr *a = const_attr(oxp_sym_src(n, i));
  if (!a || a->kind != OXP_A_STR) return false;
  *out = a->s;
  return true;
}

bool oxp_sym_ints(oxp_sctx *c, oxp_node *n, int i, int64_t **v, int *cnt) {
  oxp_value *src = oxp_sym_src(n, i);
  oxp_attr *a = const_attr(src);
  if (a && a->kind == OXP_A_INTS) {
    /* A copy: handlers normalize their list in place (permute's -1 to
     * rank - 1), and one prim::Constant may feed several nodes (scripted
     * permute([-1]) then reshape([-1]) reshaped to [0]: difftest ops seed
     * 9301 program 2924). */
    if (!(*v = oxp_alloc(c->dst->arena, sizeof(int64_t) * (size_t)(a->n + 1)))) return false;
    if (a->n) memcpy(*v, a->ints, sizeof(int64_t) * (size_t)a->n);
    *cnt = a->n;
    return true;
  }
  if (a && a->kind == OXP_A_TENSOR && a->t && a->t->data && a->t->rank <= 1 &&
      oxp_dtype_is_int(a->t->dtype)) {
    int64_t m = oxp_tensor_numel(a->t);
    /* Out of memory reads as "not constant"; the pipeline reports it. */
    if (!(*v = oxp_alloc(c->dst->arena, sizeof(int64_t) * (size_t)(m + 1))))
      return false;
    for (int64_t k = 0; k < m; k++) (*v)[k] = oxp_tensor_get_i(a->t, k);
    *cnt = (int)m;
    return true;
  }
  double f;
  int64_t one;
  if (a && attr_number(a, &f, &one) && a->kind == OXP_A_INT) {
    if (!(*v = oxp_alloc(c->dst->arena, sizeof(int64_t)))) return false;
    (*v)[0] = one;
    *cnt = 1;
    return true;
  }
  if (!is_list_of_consts(src)) return false;
  oxp_node *lc = src->producer;
  if (!(*v = oxp_alloc(c->dst->arena, sizeof(int64_t) * (size_t)(lc->ninputs + 1))))
    return false;
  for (int k = 0; k < lc->ninputs; k++)
    if (!attr_number(const_attr(lc->inputs[k]), &f, &(*v)[k])) return false;
  *cnt = lc->ninputs;
  return true;
}

bool oxp_sym_floats(oxp_sctx *c, oxp_node *n, int i, double **v, int *cnt) {
  oxp_value *src = oxp_sym_src(n, i);
  oxp_attr *a = const_attr(src);
  int64_t iv;
  if (a && a->kind == OXP_A_FLOATS) { /* a copy, as oxp_sym_ints's */
    if (!(*v = oxp_alloc(c->dst->arena, sizeof(double) * (size_t)(a->n + 1)))) return false;
    if (a->n) memcpy(*v, a->floats, sizeof(double) * (size_t)a->n);
    *cnt = a->n;
    return true;
  }
  if (a && a->kind == OXP_A_INTS) {
    if (!(*v = oxp_alloc(c->dst->arena, sizeof(double) * (size_t)(a->n + 1))))
      return false;
    for (int k = 0; k < a->n; k++) (*v)[k] = (double)a->ints[k];
    *cnt = a->n;
    return true;
  }
  if (!is_list_of_consts(src)) return false;
  oxp_node *lc = src->producer;
  if (!(*v = oxp_alloc(c->dst->arena, sizeof(double) * (size_t)(lc->ninputs + 1))))
    return false;
  for (int k = 0; k < lc->ninputs; k++)
    if (!attr_number(const_attr(lc->inputs[k]), &(*v)[k], &iv)) return false;
  *cnt = lc->ninputs;
  return true;
}

static const char *arg_name(oxp_node *n, int i) {
  oxp_value *v = oxp_sym_src(n, i);
  return v && v->name ? v->name : "?";
}

/* Why a need_ form failed: a value computed by the graph is known only
 * at run time, where the ONNX form needs it now (an attribute, a count
 * of outputs); anything else is a constant of the wrong kind. */
static const char *why_not_const(oxp_node *n, int i) {
  oxp_value *v = oxp_sym_src(n, i);
  return v && !const_attr(v) && !is_list_of_consts(v)
             ? ": it is known only at run time, and ONNX needs it at "
               "export time here"
             : "";
}

bool oxp_sym_need_int(oxp_sctx *c, oxp_node *n, int i, int64_t *out) {
  if (oxp_sym_int(n, i, out)) return true;
  oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
               "%s: argument %d (%%%s) must be a constant int%s", n->kind, i,
               arg_name(n, i), why_not_const(n, i));
  return false;
}

bool oxp_sym_need_ints(oxp_sctx *c, oxp_node *n, int i, int64_t **v,
                       int *cnt) {
  if (oxp_sym_ints(c, n, i, v, cnt)) return true;
  oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
               "%s: argument %d (%%%s) must be a constant int list%s", n->kind,
               i, arg_name(n, i), why_not_const(n, i));
  return false;
}

const oxp_type *oxp_sym_in_type(oxp_node *n, int i) {
  oxp_value *v = oxp_sym_src(n, i);
  return v ? v->type : NULL;
}

const oxp_type *oxp_sym_out_type(oxp_node *n, int i) {
  return i >= 0 && i < n->noutputs ? n->outputs[i]->type : NULL;
}

/* A value made by a node of this symbolic may not be typed yet: infer it
 * now (the graph's hook), so helpers see what the ONNX ops produce. */
static const oxp_type *lowered_type_of(const oxp_value *v) {
  if (!v) return NULL;
  oxp_node *p = v->producer;
  const oxp_type *t = v->type;
  bool partial = !t || (t->kind == OXP_T_TENSOR && (t->rank < 0 || !t->dtype));
  if (partial && p && !(p->flags & OXP_NODE_INFERRED) && p->graph->infer)
    p->graph->infer(p->graph->infer_ctx, p);
  return v->type;
}

int oxp_sym_dtype(const oxp_value *v) {
  const oxp_type *t = lowered_type_of(v);
  return t && t->kind == OXP_T_TENSOR ? t->dtype : 0;
}

int oxp_sym_rank(const oxp_value *v) {
  const oxp_type *t = lowered_type_of(v);
  return t && t->kind == OXP_T_TENSOR ? t->rank : -1;
}

int oxp_sym_out_dtype(oxp_node *n, int i, int fallback) {
  int dt = oxp_lower_scalar_dtype(oxp_sym_out_type(n, i));
  return dt ? dt : fallback;
}

static oxp_status unknown_dtype(oxp_sctx *c, const char *what, const char *name) {
  return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                      "%s: the dtype of %s%%%s is unknown (type inference could "
                      "not derive it from the graph inputs), and it is never "
                      "guessed", c->node ? c->node->kind : "?", what, name ? name : "?");
}

int oxp_sym_need_out_dtype(oxp_sctx *c, oxp_node *n, int i) {
  int dt = oxp_sym_out_dtype(n, i, 0);
  if (!dt) unknown_dtype(c, "output ", i < n->noutputs ? n->outputs[i]->name : NULL);
  return dt;
}

int oxp_sym_need_dtype(oxp_sctx *c, const oxp_value *v) {
  int dt = oxp_sym_dtype(v);
  if (dt || !v) return dt;
  /* name the TorchScript input that lowered to v, when there is one */
  const char *name = v->name;
  for (int i = 0; c->node && i < c->node->ninputs; i++)
    if (c->node->inputs[i] && oxp_lower_lookup(c, c->node->inputs[i]) == v)
      name = c->node->inputs[i]->name;
  unknown_dtype(c, "", name);
  return 0;
}

/* Writes value v into element k of t, converting to t's dtype. */
static void put_elem(oxp_tensor *t, int64_t k, double f, int64_t iv,
                     bool is_int) {
  unsigned char *p = (unsigned char *)t->data;
  switch (t->dtype) {
  case OXP_DT_FLOAT: { float x = (float)f; memcpy(p + 4 * k, &x, 4); break; }
  case OXP_DT_DOUBLE: memcpy(p + 8 * k, &f, 8); break;
  case OXP_DT_FLOAT16: {
    /* Round-to-nearest conversion via float bits. */
    float x = (float)f;
    uint32_t b;
    memcpy(&b, &x, 4);
    uint32_t s = (b >> 16) & 0x8000, e = (b >> 23) & 0xff, m = b & 0x7fffff;
    uint16_t h;
    if (e == 0xff) h = (uint16_t)(s | 0x7c00 | (m ? 0x200 : 0));
    else if (e > 142) h = (uint16_t)(s | 0x7c00);
    else if (e < 113) h = (uint16_t)s;
    else h = (uint16_t)(s | ((e - 112) << 10) | (m >> 13)) + ((m >> 12) & 1);
    memcpy(p + 2 * k, &h, 2);
    break;
  }
  case OXP_DT_BFLOAT16: {
    float x = (float)f;
    uint32_t b;
    memcpy(&b, &x, 4);
    uint16_t h = (uint16_t)((b + 0x7fff + ((b >> 16) & 1)) >> 16);
    memcpy(p + 2 * k, &h, 2);
    break;
  }
  default: {
    int64_t x = is_int ? iv : oxp_f2i(f);
    size_t sz = oxp_dtype_size(t->dtype);
    if (t->dtype == OXP_DT_BOOL) x = is_int ? iv != 0 : f != 0;
    /* Little-endian truncation to the element width. */
    memcpy(p + sz * k, &x, sz);
  }
  }
}

/* Converts a constant tensor to dtype (a new arena tensor). */
static oxp_tensor *convert(oxp_arena *a, const oxp_tensor *t, int dtype) {
  if (t->dtype == dtype) return (oxp_tensor *)t;
  oxp_tensor *r = oxp_tensor_alloc(a, dtype, t->rank, t->dims);
  if (!r) return NULL;
  bool is_int = !oxp_dtype_is_float(t->dtype);
  for (int64_t k = 0, m = oxp_tensor_numel(t); k < m; k++)
    put_elem(r, k, oxp_tensor_get_f(t, k), oxp_tensor_get_i(t, k), is_int);
  return r;
}

/* A constant input as a tensor of dtype (0 = its natural type). */
static oxp_tensor *const_tensor(oxp_sctx *c, oxp_value *src, int dtype) {
  oxp_arena *a = c->dst->arena;
  oxp_attr *at = const_attr(src);
  oxp_tensor *t = NULL;
  if (at) {
    switch (at->kind) {
    case OXP_A_TENSOR: t = at->t; break;
    case OXP_A_INT: {
      int dt = src->type && src->type->kind == OXP_T_BOOL ? OXP_DT_BOOL
                                                          : OXP_DT_INT64;
      t = oxp_tensor_alloc(a, dt, 0, NULL);
      if (t) put_elem(t, 0, (double)at->i, at->i, true);
      break;
    }
    case OXP_A_FLOAT:
      /* A Python float is a double: asked for in some dtype, it is
       * rounded once from that (a double tensor * 0.001 kept float32's
       * 0.0010000000474974513 when it went through float32). */
      t = oxp_tensor_alloc(a, dtype ? OXP_DT_DOUBLE : OXP_DT_FLOAT, 0, NULL);
      if (t) put_elem(t, 0, at->f, 0, false);
      break;
    case OXP_A_INTS:
    case OXP_A_FLOATS: {
      int64_t dim = at->n;
      bool fl = at->kind == OXP_A_FLOATS;
      t = oxp_tensor_alloc(a, fl ? (dtype ? OXP_DT_DOUBLE : OXP_DT_FLOAT) : OXP_DT_INT64, 1, &dim);
      for (int k = 0; t && k < at->n; k++)
        put_elem(t, k, fl ? at->floats[k] : (double)at->ints[k],
                 fl ? 0 : at->ints[k], !fl);
      break;
    }
    default: break;
    }
  } else if (is_list_of_consts(src)) {
    oxp_node *lc = src->producer;
    int64_t dim = lc->ninputs;
    bool fl = false;
    for (int k = 0; k < lc->ninputs; k++) {
      oxp_attr *e = const_attr(lc->inputs[k]);
      if (e->kind == OXP_A_FLOAT) fl = true;
      if (e->kind == OXP_A_TENSOR && e->t && oxp_dtype_is_float(e->t->dtype))
        fl = true;
    }
    t = oxp_tensor_alloc(a, fl ? (dtype ? OXP_DT_DOUBLE : OXP_DT_FLOAT) : OXP_DT_INT64, 1, &dim);
    for (int k = 0; t && k < lc->ninputs; k++) {
      double f;
      int64_t iv;
      if (!attr_number(const_attr(lc->inputs[k]), &f, &iv)) return NULL;
      put_elem(t, k, f, iv, !fl);
    }
  }
  if (!t || !t->data) return NULL;
  return dtype ? convert(a, t, dtype) : t;
}

/* Lowers an int list whose elements are partly runtime values: each
 * element becomes a 1-element int64 tensor, then one Concat. */
static oxp_value *dynamic_int_list(oxp_sctx *c, oxp_node *lc) {
  oxp_value **parts =
      oxp_alloc(c->dst->arena, sizeof *parts * (size_t)(lc->ninputs + 1));
  if (!parts) return NULL;
  for (int k = 0; k < lc->ninputs; k++) {
    int64_t iv;
    if (oxp_sym_int(lc, k, &iv)) {
      if (!(parts[k] = oxp_sym_const_i64s(c, &iv, 1))) return NULL;
      continue;
    }
    oxp_value *e = oxp_sym_in_as(c, lc, k, OXP_DT_INT64);
    if (!e) return NULL;
    int r = oxp_sym_rank(e);
    if (r != 1) {
      static const int64_t zero = 0;
      e = r == 0 || r < 0 ? oxp_sym_unsqueeze(c, e, &zero, 1) : e;
      if (!e) return NULL;
    }
    parts[k] = e;
  }
  if (lc->ninputs == 1) return parts[0];
  oxp_node *cat = oxp_sym_op(c, "Concat", parts, lc->ninputs, 1);
  if (!cat) return NULL;
  oxp_attr_set_i(cat, "axis", 0);
  oxp_sym_set_type(c, cat->outputs[0], OXP_DT_INT64, 1, NULL);
  return cat->outputs[0];
}

/* The cache of materialized constants and int lists is scoped: the env
 * maps a TorchScript value to one ONNX value for every later reader, so
 * the ONNX value must live where all of them can see it. An initializer
 * made in a subgraph (If branch, Loop body) is invisible to the graphs
 * around it and to its siblings. So a constant of the top TorchScript
 * block materializes in the top ONNX graph (subgraphs see outer values),
 * one made in the reader's own block is cached there, and one from some
 * other enclosing block is made where it is read, uncached. */
static oxp_block *src_block(const oxp_value *v) {
  return v->producer ? v->producer->owner : v->owner;
}

static bool is_top(const oxp_block *b) { return !b || !b->owner; }

static bool reader_block_is(const oxp_sctx *c, const oxp_block *b) {
  return c->node && c->node->owner == b;
}

/* A constant (or list of constants) src as a tensor: its natural form,
 * cached for later readers, or typed (dtype != 0), not cached. */
static oxp_value *lower_const(oxp_sctx *c, oxp_value *src, int dtype) {
  oxp_tensor *t = const_tensor(c, src, dtype);
  if (!t) {
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                 "%s: constant %%%s cannot be used as a tensor",
                 c->node->kind, src->name ? src->name : "?");
    return NULL;
  }
  /* Cache only the natural form: typed variants are cheap, and a cache
   * per dtype would hide which one a later consumer wanted. */
  bool top = is_top(src_block(src)) && !dtype;
  bool cache = !dtype && (top || reader_block_is(c, src_block(src)));
  oxp_block *cur = c->cur;
  if (top) c->cur = c->dst->top;
  oxp_value *v = oxp_sym_const(c, t);
  c->cur = cur;
  if (v && cache) oxp_lower_bind(c, src, v);
  return v;
}

static oxp_value *lower_src(oxp_sctx *c, oxp_value *src, int dtype) {
  oxp_value *v = oxp_lower_lookup(c, src);
  if (v) return v;
  if (const_attr(src) || is_list_of_consts(src)) return lower_const(c, src, dtype);
  if (src->producer && oxp_kind_is(src->producer, "prim::ListConstruct")) {
    if (src->type && src->type->kind == OXP_T_LIST && src->type->elem &&
        src->type->elem->kind == OXP_T_TENSOR) {
      oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                   "%s: a Tensor[] list cannot be used as one tensor here",
                   c->node->kind);
      return NULL;
    }
    v = dynamic_int_list(c, src->producer);
    /* The Concat is emitted where it is read (its elements may be defined
     * only there); cached only when that is the list's own block. */
    oxp_block *lb = src->producer->owner;
    if (v && (reader_block_is(c, lb) ||
              (is_top(lb) && c->cur == c->dst->top)))
      oxp_lower_bind(c, src, v);
    return v;
  }
  /* A prim::Constant whose only attributes are not `value` (fuzzing
   * writes `[valuE=0]`): reported at the constant, where the typo is. */
  oxp_node *k = const_node(src);
  if (k && k->attrs) {
    oxp_fail(c->d, OXP_ERR_GRAPH, &k->loc, k->kind,
             "prim::Constant has no 'value' attribute (it has '%s')",
             k->attrs->name);
    return NULL;
  }
  oxp_sym_fail(c, OXP_ERR_INTERNAL, "%s: input %%%s has no lowered value",
               c->node->kind, src->name ? src->name : "?");
  return NULL;
}

oxp_value *oxp_sym_in(oxp_sctx *c, oxp_node *n, int i) {
  oxp_value *src = oxp_sym_src(n, i);
  if (!src || oxp_sym_is_none(n, i)) {
    oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: input %d is missing or None",
                 n->kind, i);
    return NULL;
  }
  return lower_src(c, src, 0);
}

oxp_value *oxp_sym_in_as(oxp_sctx *c, oxp_node *n, int i, int dtype) {
  oxp_value *src = oxp_sym_src(n, i);
  if (!src || oxp_sym_is_none(n, i)) {
    oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: input %d is missing or None",
                 n->kind, i);
    return NULL;
  }
  if (!dtype) return lower_src(c, src, 0);
  oxp_value *v = oxp_lower_lookup(c, src);
  /* A constant is made in the dtype asked for even when an earlier reader
   * cached its natural form: a Python float's natural form is float32, and
   * casting that up to double keeps 0.0010000000474974513 for 0.001
   * (difftest views seed 9203 program 6019: `v[m] = 0.001` then
   * `x * 0.001` on float64). */
  if ((!v || oxp_sym_dtype(v) != dtype) && (const_attr(src) || is_list_of_consts(src)))
    return lower_const(c, src, dtype);
  if (!v) v = lower_src(c, src, 0);
  if (!v) return NULL;
  return oxp_sym_dtype(v) == dtype ? v : oxp_sym_cast(c, v, dtype);
}

bool oxp_sym_in_list(oxp_sctx *c, oxp_node *n, int i, oxp_value ***vals,
                     int *cnt) {
  oxp_value *src = oxp_sym_src(n, i);
  if (!src) {
    oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: list input %d is missing", n->kind, i);
    return false;
  }
  oxp_pack *p = oxp_lower_pack(c, src);
  if (p) {
    *vals = p->vals;
    *cnt = p->n;
    return true;
  }
  if (!src->producer || !oxp_kind_is(src->producer, "prim::ListConstruct")) {
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                 "%s: list %%%s is not built by prim::ListConstruct", n->kind,
                 src->name ? src->name : "?");
    return false;
  }
  oxp_node *lc = src->producer;
  *vals = oxp_alloc(c->dst->arena, sizeof **vals * (size_t)(lc->ninputs + 1));
  if (!*vals) {
    oxp_fail(c->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
    return false;
  }
  for (int k = 0; k < lc->ninputs; k++)
    if (!((*vals)[k] = oxp_sym_in(c, lc, k))) return false;
  *cnt = lc->ninputs;
  return true;
}
