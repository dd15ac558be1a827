/* jit_infer_types.c: type and shape inference over a scripted graph.
 *
 * torch prints a scripted model's graph with types on its inputs only;
 * every other tensor is plain `Tensor`, weights are reached through
 * prim::GetAttr chains, and layers keep their input checks as prim::If
 * branches that raise. Lowering needs what a traced graph says on every
 * value, and must never make up a dtype (a wrong model that runs is the
 * worst outcome). So before lowering, one walk in graph order:
 *   - module attributes that are parameters or buffers become the lifted
 *     graph inputs of the same dotted name (their full types come along);
 *   - each op's outputs get the dtype, rank and dims its result rule
 *     (jit_type_rules.c) derives from its inputs; what the text already
 *     says is kept, what no rule knows stays unknown;
 *   - prim::dtype, aten::dim and friends on known types fold to
 *     constants, scalar ops on constants fold (jit_constprop.c), a branch
 *     that only raises is dropped and its If becomes the other branch, as
 *     the legacy exporter does, and an If on a known condition folds;
 *   - If outputs take what both branches agree on; a Loop's carried
 *     values take what stays the same on every trip, found by walking
 *     the body without folding until the assumption holds, then once more
 *     with folding.
 * Traced graphs pass through unchanged: their types are all known. */
#include <string.h>

#include "passes.h"

typedef struct {
  oxp_graph *g;
  const oxp_options *o;
  oxp_diag *d;
  oxp_map rules;
  oxp_jit_rule_memo memo[OXP_JIT_RULE_MEMO];
  /* By value id below nids: the type before this pass, for values whose
   * type it set (touched), so a loop body can be typed again. */
  oxp_type **orig;
  bool *touched;
  int nids;
  bool fold;   /* may change the graph (not while trying loop types) */
  long budget; /* node visits left before loops stop retrying */
} ti;

static oxp_status walk(ti *t, oxp_block *b);

/* ---- types ----------------------------------------------------------------- */

/* Gives v what s knows and v's type does not. */
static oxp_status give(ti *t, oxp_value *v, const oxp_shape *s) {
  oxp_type *ty = v->type;
  if (ty && ty->kind != OXP_T_TENSOR) return OXP_OK;
  bool dt = (!ty || !ty->dtype) && s->dtype;
  bool rk = (!ty || ty->rank < 0) && s->rank >= 0;
  bool dims = false;
  if (!rk && ty && ty->rank == s->rank)
    for (int j = 0; j < s->rank; j++)
      dims |= ty->dims[j] < 0 && !(ty->dim_params && ty->dim_params[j]) && s->d[j] >= 0 &&
              !s->p[j];
  if (!dt && !rk && !dims) return OXP_OK;
  oxp_arena *a = t->g->arena;
  oxp_type *nt = rk ? oxp_type_tensor(a, ty ? ty->dtype : 0, s->rank, NULL)
                    : oxp_type_copy(a, ty);
  if (!nt) return oxp_fail(t->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  if (ty) nt->requires_grad = ty->requires_grad;
  if (dt) nt->dtype = s->dtype;
  if (rk || dims)
    for (int j = 0; j < s->rank; j++)
      if (nt->dims[j] < 0 && !(nt->dim_params && nt->dim_params[j]) && !s->p[j])
        nt->dims[j] = s->d[j];
  if (v->id < t->nids && !t->touched[v->id]) {
    t->touched[v->id] = true;
    t->orig[v->id] = ty;
  }
  v->type = nt;
  return OXP_OK;
}

/* Puts back the types this pass gave the values of b. */
static void reset_value(ti *t, oxp_value *v) {
  if (v->id < t->nids && t->touched[v->id]) {
    v->type = t->orig[v->id];
    t->touched[v->id] = false;
  }
}

static void reset_block(ti *t, oxp_block *b) {
  for (int i = 0; i < b->ninputs; i++) reset_value(t, b->inputs[i]);
  for (oxp_node *n = b->first; n; n = n->next) {
    for (int k = 0; k < n->nblocks; k++) reset_block(t, n->blocks[k]);
    for (int i = 0; i < n->noutputs; i++) reset_value(t, n->outputs[i]);
  }
}

/* What a and b agree on, into a. */
static void meet(oxp_shape *a, const oxp_shape *b) {
  if (a->dtype != b->dtype) a->dtype = 0;
  if (a->rank != b->rank) {
    a->rank = -1;
    return;
  }
  for (int j = 0; j < a->rank; j++)
    if (a->d[j] != b->d[j] || a->p[j] != b->p[j]) a->d[j] = -1, a->p[j] = NULL;
}

static bool same_shape(const oxp_shape *a, const oxp_shape *b) {
  if (a->dtype != b->dtype || a->rank != b->rank) return false;
  for (int j = 0; j < a->rank; j++)
    if (a->d[j] != b->d[j]) return false;
  return true;
}

static bool is_kind(const oxp_value *v, const char *k) {
  return v && v->producer && oxp_kind_is(v->producer, k);
}

/* ---- module attributes ------------------------------------------------------ */

/* prim::GetAttr chains down to a parameter or buffer: the lifted graph
 * input of that dotted name replaces it. Submodules (class types) stay
 * for lowering to bind; a name with no input stays for its error. */
static oxp_status resolve_attr(ti *t, oxp_node *n) {
  const oxp_type *ty = n->noutputs == 1 ? n->outputs[0]->type : NULL;
  if (!ty || ty->kind == OXP_T_OTHER) return OXP_OK;
  const char *parts[64];
  int np = 0;
  size_t len = 0;
  for (oxp_node *k = n; k && oxp_kind_is(k, "prim::GetAttr"); k = k->ninputs ? k->inputs[0]->producer : NULL) {
    oxp_attr *a = oxp_attr_get(k, "name");
    if (!a || a->kind != OXP_A_STR || np == 64) return OXP_OK;
    parts[np++] = a->s;
    len += strlen(a->s) + 1;
  }
  char *path = oxp_alloc(t->g->arena, len + 1);
  if (!path) return oxp_fail(t->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  for (int i = np - 1; i >= 0; i--) {
    strcat(path, parts[i]);
    if (i) strcat(path, ".");
  }
  oxp_block *top = t->g->top;
  for (int i = 0; i < top->ninputs; i++) {
    oxp_value *in = top->inputs[i];
    if (in->name && strcmp(in->name, path) == 0 && in->type && in->type->kind == OXP_T_TENSOR) {
      oxp_value_replace_uses(n->outputs[0], in);
      oxp_node_destroy(n);
      return OXP_OK;
    }
  }
  return OXP_OK;
}

static oxp_status resolve_attrs(ti *t, oxp_block *b) {
  OXP_FOR_NODES(b, n, nx) {
    for (int k = 0; k < n->nblocks; k++) {
      oxp_status st = resolve_attrs(t, n->blocks[k]);
      if (st) return st;
    }
    if (oxp_kind_is(n, "prim::GetAttr")) {
      oxp_status st = resolve_attr(t, n);
      if (st) return st;
    }
  }
  return OXP_OK;
}

/* ---- folding ------------------------------------------------------------------- */

static bool const_int(const oxp_value *v, int64_t *out) {
  const oxp_node *k = v->producer;
  const oxp_attr *a = k && oxp_kind_is(k, "prim::Constant") ? oxp_attr_get(k, "value") : NULL;
  if (!a || a->kind != OXP_A_INT) return false;
  *out = a->i;
  return true;
}

static oxp_node *constant(ti *t, oxp_node *n, oxp_kind kind) {
  oxp_node *k = oxp_node_new(t->g, "prim::Constant", 1);
  oxp_type *ty = oxp_type_new(t->g->arena, kind);
  if (!k || !ty) return NULL;
  k->outputs[0]->type = ty;
  k->outputs[0]->name = n->outputs[0]->name;
  k->loc = n->loc;
  k->source = n->source;
  oxp_node_insert_before(n, k);
  return k;
}

static oxp_status replace_by(ti *t, oxp_node *n, oxp_node *k) {
  if (!k) return oxp_fail(t->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  oxp_value_replace_uses(n->outputs[0], k->outputs[0]);
  oxp_node_destroy(n);
  return OXP_OK;
}

/* prim ops a known type answers. The device is the export's, the CPU
 * (ONNX has none); export sees no gradients. */
static oxp_status fold_prim(ti *t, oxp_node *n, bool *done) {
  *done = false;
  if (n->noutputs != 1 || n->nblocks) return OXP_OK;
  /* The export traces no gradients and runs no autocast. */
  if ((oxp_kind_is(n, "aten::is_grad_enabled") || oxp_kind_is(n, "aten::is_autocast_enabled")) &&
      n->ninputs == 0) {
    oxp_node *k = constant(t, n, OXP_T_BOOL);
    if (k) oxp_attr_set_i(k, "value", 0);
    *done = true;
    return replace_by(t, n, k);
  }
  const oxp_type *x = n->ninputs ? n->inputs[0]->type : NULL;
  int64_t i;
  /* a static size, when no dynamic axis may change it */
  if (oxp_kind_is(n, "aten::size") && n->ninputs == 2 && t->o->n_dynamic_axes == 0 &&
      const_int(n->inputs[1], &i) && x && x->kind == OXP_T_TENSOR && x->rank > 0 &&
      (i < 0 ? i + x->rank : i) >= 0 && (i < 0 ? i + x->rank : i) < x->rank &&
      x->dims[i < 0 ? i + x->rank : i] >= 0) {
    oxp_node *k = constant(t, n, OXP_T_INT);
    if (k) oxp_attr_set_i(k, "value", x->dims[i < 0 ? i + x->rank : i]);
    *done = true;
    return replace_by(t, n, k);
  }
  const oxp_attr *sa = n->ninputs == 1 && n->inputs[0]->producer &&
                               oxp_kind_is(n->inputs[0]->producer, "prim::Constant")
                           ? oxp_attr_get(n->inputs[0]->producer, "value") : NULL;
  if (oxp_kind_is(n, "aten::len") && sa && sa->kind == OXP_A_STR && x && x->kind == OXP_T_STR) {
    oxp_node *k = constant(t, n, OXP_T_INT);
    if (k) oxp_attr_set_i(k, "value", (int64_t)strlen(sa->s));
    *done = true;
    return replace_by(t, n, k);
  }
  if (n->ninputs != 1) return OXP_OK;
  bool tensor = x && x->kind == OXP_T_TENSOR;
  oxp_node *k = NULL;
  if (oxp_kind_is(n, "prim::dtype") && tensor && x->dtype &&
      oxp_dtype_to_scalar_type(x->dtype) >= 0) {
    if ((k = constant(t, n, OXP_T_INT))) oxp_attr_set_i(k, "value", oxp_dtype_to_scalar_type(x->dtype));
  } else if (oxp_kind_is(n, "aten::dim") && tensor && x->rank >= 0) {
    if ((k = constant(t, n, OXP_T_INT))) oxp_attr_set_i(k, "value", x->rank);
  } else if (oxp_kind_is(n, "prim::device")) {
    if ((k = constant(t, n, OXP_T_DEVICE))) oxp_attr_set_s(k, "value", "cpu");
  } else if (oxp_kind_is(n, "prim::is_cuda") || oxp_kind_is(n, "prim::requires_grad") ||
             oxp_kind_is(n, "prim::is_quantized") || oxp_kind_is(n, "prim::is_sparse") ||
             oxp_kind_is(n, "prim::is_mkldnn") || oxp_kind_is(n, "prim::is_meta")) {
    if ((k = constant(t, n, OXP_T_BOOL))) oxp_attr_set_i(k, "value", 0);
  } else if (oxp_kind_is(n, "prim::layout")) {
    if ((k = constant(t, n, OXP_T_INT))) oxp_attr_set_i(k, "value", 0); /* strided */
  } else {
    return OXP_OK;
  }
  *done = true;
  return replace_by(t, n, k);
}

/* ListUnpack of aten::size(x) for x of known rank: one aten::size(x, i)
 * per dim, so the static ones fold and the rest stay sizes. */
static oxp_status split_sizes(ti *t, oxp_node *n, bool *done, oxp_node **first) {
  *done = false;
  oxp_node *s = n->ninputs == 1 ? n->inputs[0]->producer : NULL;
  if (!s || !oxp_kind_is(s, "aten::size") || s->ninputs != 1) return OXP_OK;
  const oxp_type *x = s->inputs[0]->type;
  if (!x || x->kind != OXP_T_TENSOR || x->rank != n->noutputs) return OXP_OK;
  for (int i = 0; i < n->noutputs; i++) {
    oxp_node *k = oxp_node_new(t->g, "prim::Constant", 1);
    oxp_node *z = oxp_node_new(t->g, "aten::size", 1);
    oxp_type *ti_ = oxp_type_new(t->g->arena, OXP_T_INT), *to = oxp_type_new(t->g->arena, OXP_T_INT);
    if (!k || !z || !ti_ || !to || !oxp_node_add_input(z, s->inputs[0]) ||
        !oxp_node_add_input(z, k->outputs[0]))
      return oxp_fail(t->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
    oxp_attr_set_i(k, "value", i);
    k->outputs[0]->type = ti_;
    z->outputs[0]->type = to;
    z->outputs[0]->name = n->outputs[i]->name;
    k->loc = z->loc = n->loc;
    z->source = n->source;
    oxp_node_insert_before(n, k);
    oxp_node_insert_before(n, z);
    if (!i) *first = z;
    oxp_value_replace_uses(n->outputs[i], z->outputs[0]);
  }
  oxp_node_destroy(n);
  *done = true;
  return OXP_OK;
}

/* Does b raise whenever it runs? */
static bool raises(const oxp_block *b) {
  for (const oxp_node *n = b->first; n; n = n->next)
    if (oxp_kind_is(n, "prim::RaiseException")) return true;
  return false;
}

static bool const_cond(const oxp_value *c, bool *out) {
  const oxp_node *k = c->producer;
  const oxp_attr *a = k && oxp_kind_is(k, "prim::Constant") ? oxp_attr_get(k, "value") : NULL;
  if (!a || a->kind != OXP_A_INT) return false;
  *out = a->i != 0;
  return true;
}

/* ---- control flow ---------------------------------------------------------------- */

static oxp_status type_if(ti *t, oxp_node *n) {
  for (int k = 0; k < 2; k++) {
    oxp_status st = walk(t, n->blocks[k]);
    if (st) return st;
  }
  for (int i = 0; i < n->noutputs; i++) {
    oxp_value *a = n->blocks[0]->outputs[i], *b = n->blocks[1]->outputs[i];
    oxp_shape s, o;
    /* a path that never reads it leaves it uninitialized */
    if (is_kind(a, "prim::Uninitialized")) a = b;
    if (is_kind(b, "prim::Uninitialized")) b = a;
    oxp_shape_of(a, &s);
    oxp_shape_of(b, &o);
    meet(&s, &o);
    oxp_status st = give(t, n->outputs[i], &s);
    if (st) return st;
  }
  return OXP_OK;
}

/* Types the body with carried values assumed to be `as`; true when the
 * body gives back what was assumed (then the assumption holds on every
 * trip). Otherwise as is weakened to what both agree on. */
static oxp_status try_loop(ti *t, oxp_node *n, oxp_shape *as, bool *holds) {
  oxp_block *body = n->blocks[0];
  int ncar = n->ninputs - 2;
  oxp_status st;
  for (int k = 0; k < ncar; k++)
    if ((st = give(t, body->inputs[1 + k], &as[k]))) return st;
  if ((st = walk(t, body))) return st;
  *holds = true;
  for (int k = 0; k < ncar; k++) {
    oxp_shape o, a;
    oxp_shape_of(body->outputs[1 + k], &o);
    oxp_shape_of(body->inputs[1 + k], &a);
    meet(&a, &o);
    if (!same_shape(&a, &as[k])) *holds = false;
    as[k] = a;
  }
  return OXP_OK;
}

static oxp_status type_loop(ti *t, oxp_node *n) {
  oxp_block *body = n->blocks[0];
  int ncar = n->ninputs - 2;
  if (ncar < 0 || body->ninputs != ncar + 1 || body->noutputs != ncar + 1 ||
      n->noutputs != ncar)
    return walk(t, body); /* malformed: lowering says why */
  oxp_shape *as = oxp_alloc(t->g->arena, sizeof *as * (size_t)(ncar + 1));
  if (!as) return oxp_fail(t->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  for (int k = 0; k < ncar; k++) oxp_shape_of(n->inputs[2 + k], &as[k]);
  bool fold = t->fold, holds = false;
  oxp_status st = OXP_OK;
  t->fold = false;
  for (int round = 0; round < 3 && !holds && t->budget > 0; round++) {
    if ((st = try_loop(t, n, as, &holds))) break;
    reset_block(t, body);
  }
  t->fold = fold;
  if (st) return st;
  if (!holds)
    for (int k = 0; k < ncar; k++) oxp_shape_unknown(&as[k], 0);
  bool ignored;
  if ((st = try_loop(t, n, as, &ignored))) return st;
  for (int k = 0; k < ncar; k++)
    if ((st = give(t, n->outputs[k], &as[k]))) return st;
  return OXP_OK;
}

/* ---- per node ------------------------------------------------------------------- */

/* ListUnpack / TupleUnpack / TupleIndex / unchecked_cast: element types. */
static oxp_status type_structural(ti *t, oxp_node *n) {
  oxp_value *l = n->ninputs ? n->inputs[0] : NULL;
  oxp_node *k = l ? l->producer : NULL;
  oxp_shape s;
  oxp_status st = OXP_OK;
  if (oxp_kind_is(n, "prim::unchecked_cast") && l) {
    const oxp_type *ty = l->type;
    if (ty && ty->kind == OXP_T_OPTIONAL && ty->elem && ty->elem->kind == OXP_T_TENSOR) {
      oxp_value tmp = *l;
      tmp.type = ty->elem;
      oxp_shape_of(&tmp, &s);
    } else {
      oxp_shape_of(l, &s);
    }
    return give(t, n->outputs[0], &s);
  }
  if (oxp_kind_is(n, "prim::TupleIndex") && k && oxp_kind_is(k, "prim::TupleConstruct")) {
    const oxp_attr *a = n->ninputs == 2 && n->inputs[1]->producer &&
                                oxp_kind_is(n->inputs[1]->producer, "prim::Constant")
                            ? oxp_attr_get(n->inputs[1]->producer, "value") : NULL;
    if (!a || a->kind != OXP_A_INT || a->i < 0 || a->i >= k->ninputs) return OXP_OK;
    oxp_shape_of(k->inputs[a->i], &s);
    return give(t, n->outputs[0], &s);
  }
  if (!oxp_kind_is(n, "prim::ListUnpack") && !oxp_kind_is(n, "prim::TupleUnpack")) return OXP_OK;
  if (!k) return OXP_OK;
  bool pack = oxp_kind_is(k, "prim::TupleConstruct") ||
              (oxp_kind_is(k, "prim::ListConstruct") && !oxp_jit_list_mutated(l));
  if (pack && k->ninputs == n->noutputs) {
    for (int i = 0; i < n->noutputs && !st; i++) {
      oxp_shape_of(k->inputs[i], &s);
      st = give(t, n->outputs[i], &s);
    }
  } else if (oxp_jit_is_split(k)) {
    oxp_shape x;
    oxp_shape_of(k->inputs[0], &x);
    oxp_shape_unknown(&s, x.dtype);
    bool unbind = oxp_kind_is(k, "aten::unbind");
    if (x.rank >= 0 && x.rank <= OXP_MAX_SHAPE_RANK) {
      s.rank = unbind ? x.rank - 1 : x.rank;
      for (int j = 0; j < s.rank; j++) s.d[j] = -1, s.p[j] = NULL;
    }
    /* chunk(x, chunks, dim) / split(x, size, dim) of a static dim: each
     * piece keeps the other dims; along dim, full pieces then the rest */
    int64_t cnt, dim, len = -1;
    bool chunk = oxp_kind_is(k, "aten::chunk"), split = oxp_kind_is(k, "aten::split");
    /* split(x, [sizes], dim): piece i is sizes[i] long */
    const oxp_node *sz = split && k->ninputs == 3 ? k->inputs[1]->producer : NULL;
    if (sz && oxp_kind_is(sz, "prim::ListConstruct") && sz->ninputs == n->noutputs &&
        const_int(k->inputs[2], &dim) && x.rank > 0 && !oxp_jit_list_mutated(k->inputs[1])) {
      if (dim < 0) dim += x.rank;
      for (int i = 0; i < n->noutputs && !st && dim >= 0 && dim < x.rank; i++) {
        int64_t len_i;
        for (int j = 0; j < x.rank; j++) s.d[j] = x.d[j], s.p[j] = x.p[j];
        s.d[dim] = const_int(sz->inputs[i], &len_i) && len_i >= 0 ? len_i : -1;
        s.p[dim] = NULL;
        st = give(t, n->outputs[i], &s);
      }
      return st;
    }
    if ((chunk || split) && k->ninputs == 3 && const_int(k->inputs[1], &cnt) &&
        const_int(k->inputs[2], &dim) && x.rank > 0 && cnt > 0) {
      if (dim < 0) dim += x.rank;
      if (dim >= 0 && dim < x.rank && x.d[dim] >= 0) {
        len = chunk ? x.d[dim] / cnt + (x.d[dim] % cnt != 0) : cnt;
        for (int j = 0; j < x.rank; j++) s.d[j] = x.d[j], s.p[j] = x.p[j];
      }
    }
    for (int i = 0; i < n->noutputs && !st; i++) {
      if (len > 0) {
        /* pieces before this one hold i * len, unless that passes the dim */
        int64_t before;
        bool past = __builtin_mul_overflow((int64_t)i, len, &before) || before >= x.d[dim];
        int64_t left = past ? 0 : x.d[dim] - before;
        s.d[dim] = left < len ? left : len;
      }
      st = give(t, n->outputs[i], &s);
    }
  }
  return st;
}

static OXP_OUT_OF_LINE oxp_status type_node(ti *t, oxp_node *n) {
  oxp_shape out[4];
  if (oxp_jit_type_rule(&t->rules, t->memo, n, out)) {
    for (int i = 0; i < n->noutputs; i++) {
      oxp_status st = give(t, n->outputs[i], &out[i]);
      if (st) return st;
    }
    return OXP_OK;
  }
  return type_structural(t, n);
}

/* Handles n; *next is where the walk goes on (inlined nodes first). */
static oxp_status visit(ti *t, oxp_node *n, oxp_node **next) {
  oxp_status st;
  t->budget--;
  if (oxp_kind_is(n, "prim::If") && n->nblocks == 2 && n->ninputs == 1) {
    bool cond;
    bool known = t->fold && const_cond(n->inputs[0], &cond);
    if (t->fold && !known) {
      bool r0 = raises(n->blocks[0]), r1 = raises(n->blocks[1]);
      if (r0 != r1) known = true, cond = r1;
    }
    if (known) {
      oxp_node *first = n->blocks[cond ? 0 : 1]->first;
      oxp_jit_inline_if(n, cond);
      if (first) *next = first;
      return OXP_OK;
    }
    return type_if(t, n);
  }
  if (oxp_kind_is(n, "prim::Loop") && n->nblocks == 1 && n->ninputs >= 2)
    return type_loop(t, n);
  for (int k = 0; k < n->nblocks; k++)
    if ((st = walk(t, n->blocks[k]))) return st;
  if (!t->fold) return type_node(t, n);
  /* warnings have no place in an ONNX model */
  if (oxp_kind_is(n, "aten::warn") && n->noutputs == 0) {
    oxp_node_destroy(n);
    return OXP_OK;
  }
  bool done;
  if ((st = fold_prim(t, n, &done)) || done) return st;
  if ((st = oxp_jit_fold_static(t->g, n, &done, next, t->d)) || done) return st;
  if ((st = oxp_jit_list_ssa(t->g, n, &done, t->d)) || done) return st;
  if (oxp_kind_is(n, "prim::ListUnpack") && n->noutputs > 0 &&
      ((st = split_sizes(t, n, &done, next)) || done))
    return st; /* the walk goes on at the new sizes */
  if ((st = type_node(t, n))) return st;
  return oxp_jit_constprop_node(t->g, n, t->d);
}

static oxp_status walk(ti *t, oxp_block *b) {
  for (oxp_node *n = b->first, *nx; n; n = nx) {
    nx = n->next;
    oxp_status st = visit(t, n, &nx);
    if (st) return st;
  }
  return OXP_OK;
}

static int count_nodes(const oxp_block *b) {
  int c = 0;
  for (const oxp_node *n = b->first; n; n = n->next) {
    c++;
    for (int k = 0; k < n->nblocks; k++) c += count_nodes(n->blocks[k]);
  }
  return c;
}

oxp_status oxp_jit_infer_types(oxp_graph *g, const oxp_options *o, oxp_diag *d) {
  ti t = {.g = g, .o = o, .d = d, .fold = true, .nids = g->nvalues};
  oxp_status st = oxp_jit_type_rules_init(&t.rules, g->arena, d);
  if (st) return st;
  t.orig = oxp_alloc(g->arena, sizeof *t.orig * (size_t)(t.nids + 1));
  t.touched = oxp_alloc(g->arena, sizeof *t.touched * (size_t)(t.nids + 1));
  if (!t.orig || !t.touched) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  /* Loops retry their bodies; past this many visits they assume nothing. */
  t.budget = 8L * count_nodes(g->top) + 10000;
  if ((st = resolve_attrs(&t, g->top))) return st;
  return walk(&t, g->top);
}
