/* jit_peephole_size.c: sizes known at export time become constants.
 * aten::size(x, d) and aten::size(x) of a tensor whose traced shape is
 * static turn into int constants (a ListConstruct of them for the whole
 * shape, so a following ListUnpack vanishes too), and aten::dim(x) of a
 * tensor of known rank into its rank.
 *
 * With --dynamic-axes a traced size may be one the user declared
 * variable, so only sizes that no dynamic axis can reach fold: weights,
 * and graph inputs along axes not declared dynamic. Other sizes stay
 * nodes; the ONNX side folds those that shape inference proves static. */
#include <string.h>

#include "passes.h"

typedef struct {
  oxp_graph *g;
  const oxp_options *o;
  oxp_diag *d;
  const char **final_name; /* by top input index: name after renaming */
} ctx;

/* Is dim k of v fixed whatever sizes the dynamic inputs take? */
static bool fixed_dim(ctx *c, const oxp_value *v, int64_t k) {
  if (c->o->n_dynamic_axes == 0 || v->init) return true;
  if (v->producer || v->owner != c->g->top) return false;
  const char *name = c->final_name[v->index];
  for (int i = 0; i < c->o->n_dynamic_axes; i++) {
    const oxp_dyn_axis *ax = &c->o->dynamic_axes[i];
    if (name && strcmp(ax->input, name) == 0 && (k < 0 || ax->axis == k)) return false;
  }
  return true;
}

static oxp_node *int_const(ctx *c, oxp_node *before, int64_t v, oxp_kind kind) {
  oxp_node *k = oxp_node_new(c->g, "prim::Constant", 1);
  oxp_type *t = oxp_type_new(c->g->arena, kind);
  if (!k || !t) return NULL;
  oxp_attr_set_i(k, "value", v);
  k->outputs[0]->type = t;
  k->loc = before->loc;
  oxp_node_insert_before(before, k);
  return k;
}

static bool const_int(const oxp_value *v, int64_t *out) {
  const oxp_node *k = v->producer;
  const oxp_attr *a = k && oxp_kind_is(k, "prim::Constant") ? oxp_attr_get(k, "value") : NULL;
  if (!a || a->kind != OXP_A_INT) return false;
  *out = a->i;
  return true;
}

static oxp_status fold(ctx *c, oxp_node *n) {
  oxp_value *x = n->inputs[0];
  const oxp_type *t = x->type;
  if (!t || t->kind != OXP_T_TENSOR || t->rank < 0) return OXP_OK;
  oxp_node *k = NULL;
  if (oxp_kind_is(n, "aten::dim") && n->ninputs == 1) {
    k = int_const(c, n, t->rank, OXP_T_INT);
  } else if (n->ninputs == 2) {
    int64_t d;
    if (!const_int(n->inputs[1], &d)) return OXP_OK;
    if (d < 0) d += t->rank;
    if (d < 0 || d >= t->rank || t->dims[d] < 0 ||
        (t->dim_params && t->dim_params[d]) || !fixed_dim(c, x, d))
      return OXP_OK;
    k = int_const(c, n, t->dims[d], OXP_T_INT);
  } else if (n->ninputs == 1) {
    if (!oxp_type_is_static(t) || !fixed_dim(c, x, -1)) return OXP_OK;
    k = oxp_node_new(c->g, "prim::ListConstruct", 1);
    oxp_type *lt = oxp_type_new(c->g->arena, OXP_T_LIST);
    if (!k || !lt) return oxp_fail(c->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
    lt->elem = oxp_type_new(c->g->arena, OXP_T_INT);
    k->outputs[0]->type = lt;
    k->loc = n->loc;
    oxp_node_insert_before(n, k);
    for (int i = 0; i < t->rank; i++) {
      oxp_node *e = int_const(c, k, t->dims[i], OXP_T_INT);
      if (!e || !oxp_node_add_input(k, e->outputs[0]))
        return oxp_fail(c->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
    }
  } else {
    return OXP_OK;
  }
  if (!k) return oxp_fail(c->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  k->outputs[0]->name = n->outputs[0]->name;
  oxp_value_replace_uses(n->outputs[0], k->outputs[0]);
  oxp_node_destroy(n);
  return OXP_OK;
}

static oxp_status walk(ctx *c, oxp_block *b) {
  OXP_FOR_NODES(b, n, nx) {
    for (int k = 0; k < n->nblocks; k++) {
      oxp_status st = walk(c, n->blocks[k]);
      if (st) return st;
    }
    if ((oxp_kind_is(n, "aten::size") || oxp_kind_is(n, "aten::dim")) &&
        n->noutputs == 1 && n->ninputs >= 1) {
      oxp_status st = fold(c, n);
      if (st) return st;
    }
  }
  return OXP_OK;
}

oxp_status oxp_jit_peephole_size(oxp_graph *g, const oxp_options *o,
                                 oxp_diag *d) {
  ctx c = {g, o, d, NULL};
  oxp_block *top = g->top;
  c.final_name = oxp_alloc(g->arena, sizeof(char *) * (size_t)(top->ninputs + 1));
  if (!c.final_name) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  /* The names --dynamic-axes uses: user inputs renamed in order. */
  for (int i = 0, u = 0; i < top->ninputs; i++) {
    const oxp_value *v = top->inputs[i];
    c.final_name[i] = !v->init && u < o->n_input_names ? o->input_names[u++] : v->name;
  }
  return walk(&c, top);
}
