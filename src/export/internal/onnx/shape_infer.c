/* shape_infer.c: ONNX shape and type inference over the lowered graph,
 * one walk in graph order. Each op's rule (shape_rules.c, one table entry
 * per op) computes output shapes from input shapes, attributes and small
 * int tensors known at export time. Those int tensors are tracked
 * symbolically, as ONNX's data propagation does: Shape of a [batch, 4]
 * tensor is the data {batch, 4}, so a Reshape fed by Shape/Gather/Concat
 * still gets named dims and --dynamic-axes reach the outputs.
 *
 * Results overwrite the types lowering copied from the trace: inference
 * knows the ONNX op, the trace knew the aten op. Where inference does not
 * know a dim, a traced static dim is kept, unless dynamic axes are in use
 * (then a traced size may be the one the user declared variable). */
#include <string.h>

#include "serialize.h"
#include "shape_ctx.h"

/* Is t the tensor type store() would make? Only a plain one counts:
 * strides (of a traced type) and the like would be dropped by a new one. */
static bool same_type(const oxp_type *t, int dt, int rank, const int64_t *dims,
                      const char *const *params) {
  if (!t || t->kind != OXP_T_TENSOR || t->strides || t->dtype != dt || t->rank != rank)
    return false;
  for (int i = 0; i < rank; i++) {
    const char *p = t->dim_params ? t->dim_params[i] : NULL;
    if (t->dims[i] != dims[i] || p != params[i]) return false;
  }
  return true;
}

/* Writes an inferred shape into v's type, merging with what is there. */
static void store(oxp_sictx *c, oxp_value *v, const oxp_shape *s) {
  oxp_arena *a = c->p->g->arena;
  oxp_shape old;
  oxp_shape_of(v, &old);
  bool dynamic = c->p->o->n_dynamic_axes > 0;
  int dt = s->dtype ? s->dtype : old.dtype;
  int rank = s->rank >= 0 ? s->rank : old.rank;
  if (rank < 0 && v->type && v->type->kind != OXP_T_TENSOR) return;
  /* A declared rank above what an oxp_shape holds is known all the same:
   * losing it would leave the model's outputs without a shape. */
  if (rank < 0 && v->type && v->type->rank > OXP_MAX_SHAPE_RANK) {
    if (dt == v->type->dtype) return;
    oxp_type *t = oxp_type_copy(a, v->type);
    if (t) t->dtype = dt, v->type = t;
    return;
  }
  bool keep_old = !dynamic && old.rank == rank;
  int64_t dims[OXP_MAX_SHAPE_RANK];
  const char *params[OXP_MAX_SHAPE_RANK];
  for (int i = 0; i < rank; i++) {
    const char *pn = s->rank >= 0 ? s->p[i] : NULL;
    int64_t dv = s->rank >= 0 ? s->d[i] : -1;
    if (dv < 0 && !pn && keep_old) dv = old.d[i], pn = old.p[i];
    /* A named dim stays named: names come only from declared dynamic
     * axes, and a declared one (also on an output) wins over a size. */
    if (old.rank == rank && old.p[i]) pn = old.p[i];
    dims[i] = pn ? -1 : dv;
    params[i] = pn;
  }
  /* The same type again (the common case, and every value on the later
   * runs) keeps the one there: no pass after lowering writes into a
   * type, so it may be shared. */
  if (same_type(v->type, dt, rank, dims, params)) return;
  oxp_type *t = oxp_type_tensor(a, dt, rank, NULL);
  if (!t) return;
  for (int i = 0; i < rank; i++) {
    t->dims[i] = dims[i];
    if (params[i]) {
      if (!t->dim_params) t->dim_params = oxp_alloc(a, sizeof(char *) * (size_t)rank);
      if (t->dim_params) t->dim_params[i] = params[i];
    }
  }
  if (v->type) t->requires_grad = v->type->requires_grad;
  v->type = t;
}

static oxp_shape_rule rule_of(oxp_sictx *c, const char *op) {
  size_t i = ((uintptr_t)op >> 4) % (sizeof c->recent / sizeof *c->recent);
  if (c->recent[i].op != op) {
    c->recent[i].op = op;
    c->recent[i].fn = (oxp_shape_rule)oxp_map_get(&c->rules, op);
  }
  return c->recent[i].fn;
}

/* Runs n's rule and stores its outputs' types. */
static oxp_status infer_node(oxp_sictx *c, oxp_node *n) {
  const char *op = oxp_pass_onnx_op(n);
  oxp_shape_rule fn = op ? rule_of(c, op) : NULL;
  if (!fn || n->noutputs > 8) return OXP_OK;
  oxp_shape out[8];
  for (int i = 0; i < n->noutputs; i++) oxp_shape_unknown(&out[i], 0);
  oxp_status st = fn(c, n, out);
  if (st) return st;
  for (int i = 0; i < n->noutputs; i++) store(c, n->outputs[i], &out[i]);
  return OXP_OK;
}

static oxp_status infer_block(oxp_sictx *c, oxp_block *b) {
  for (oxp_node *n = b->first; n; n = n->next) {
    for (int k = 0; k < n->nblocks; k++) {
      oxp_status st = infer_block(c, n->blocks[k]);
      if (st) return st;
    }
    oxp_status st = infer_node(c, n);
    if (st) return st;
  }
  return OXP_OK;
}

static oxp_status load_rules(oxp_sictx *c) {
  oxp_map_init(&c->rules, c->p->g->arena);
  const oxp_shape_rule_entry *tabs[2] = {oxp_shape_rules, oxp_shape_rules_ext};
  int lens[2] = {oxp_nshape_rules, oxp_nshape_rules_ext};
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < lens[t]; i++)
      if (!oxp_map_put(&c->rules, tabs[t][i].op, (void *)tabs[t][i].fn))
        return oxp_fail(c->p->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  return OXP_OK;
}

oxp_status oxp_shape_infer(oxp_pass *p) {
  oxp_sictx c = {.p = p, .ndata = p->g->nvalues};
  c.data = oxp_alloc(p->g->arena, sizeof *c.data * (size_t)(c.ndata + 1));
  if (!c.data) return oxp_fail(p->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  oxp_status st = load_rules(&c);
  return st ? st : infer_block(&c, p->g->top);
}

/* ---- while lowering ---------------------------------------------------------- */

struct oxp_si_live {
  oxp_pass pass;
  oxp_diag scratch;
  oxp_sictx c;
};

oxp_si_live *oxp_si_live_open(oxp_graph *g, const oxp_options *o) {
  oxp_si_live *l = oxp_alloc(g->arena, sizeof *l);
  if (!l) return NULL;
  /* No output marks: rules never ask for them, and values keep coming. */
  l->pass.g = g;
  l->pass.o = o;
  l->pass.d = &l->scratch;
  l->c.p = &l->pass;
  l->c.ndata = g->nvalues + 64;
  l->c.data = oxp_alloc(g->arena, sizeof *l->c.data * (size_t)l->c.ndata);
  if (!l->c.data || load_rules(&l->c)) return NULL;
  return l;
}

static bool untyped(const oxp_value *v) {
  return !v->type || (v->type->kind == OXP_T_TENSOR &&
                      (v->type->rank < 0 || !v->type->dtype));
}

void oxp_si_live_node(oxp_si_live *l, oxp_node *n) {
  if (n->flags & OXP_NODE_INFERRED) return;
  n->flags |= OXP_NODE_INFERRED;
  /* Inputs made earlier in the same symbolic may not be typed yet; the
   * chain is short because every finished symbolic's nodes are typed. */
  for (int i = 0; i < n->ninputs; i++) {
    oxp_value *v = n->inputs[i];
    if (v && v->producer && untyped(v)) oxp_si_live_node(l, v->producer);
  }
  if (infer_node(&l->c, n)) oxp_diag_clear(&l->scratch);
}

/* Infers n after every input made by a node not yet inferred. Those are
 * nodes of the symbolic being lowered (the driver infers each finished
 * symbolic's nodes): typed ones too, since their symbolic data is what is
 * asked for. depth bounds the stack; beyond it data is merely missing. */
static void live_chain(oxp_si_live *l, oxp_node *n, int depth) {
  if (n->flags & OXP_NODE_INFERRED) return;
  for (int i = 0; i < n->ninputs && depth < 64; i++) {
    oxp_value *v = n->inputs[i];
    if (v && v->producer) live_chain(l, v->producer, depth + 1);
  }
  oxp_si_live_node(l, n);
}

int oxp_si_live_ints(oxp_si_live *l, const oxp_value *v, int64_t *vals,
                     const char **p) {
  if (!v) return -1;
  if (v->producer) live_chain(l, v->producer, 0);
  symdata tmp;
  const symdata *s = oxp_si_data(&l->c, v, &tmp);
  if (!s) return -1;
  for (int k = 0; k < s->n; k++) {
    vals[k] = s->v[k];
    p[k] = s->p[k];
  }
  return s->n;
}
