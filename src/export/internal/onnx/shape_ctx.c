/* shape_ctx.c: what a shape rule may read and write: an input's shape,
 * the opset, the diagnostic sink, and the small int tensors inference
 * tracks symbolically (constants read directly, others as recorded by an
 * earlier rule). In a file of its own so that the rules (shape_rules*.c)
 * call these without calling back into the walk that calls them. */
#include "shape_ctx.h"

void oxp_si_in(oxp_sictx *c, const oxp_node *n, int i, oxp_shape *s) {
  if (i < n->ninputs && n->inputs[i]) oxp_shape_of(n->inputs[i], s);
  else oxp_shape_unknown(s, 0);
}

int oxp_si_opset(const oxp_sictx *c) { return c->p->o->opset; }
oxp_diag *oxp_si_diag(oxp_sictx *c) { return c->p->d; }

/* Constant int tensors read directly; at most OXP_MAX_SHAPE_RANK elements. */
static bool const_data(const oxp_sictx *c, const oxp_value *v, symdata *out) {
  if (!oxp_pass_is_const(c->p, v)) return false;
  const oxp_tensor *t = v->init;
  if (!oxp_dtype_is_int(t->dtype) || t->rank > 1) return false;
  int64_t m = oxp_tensor_numel(t);
  if (m > OXP_MAX_SHAPE_RANK) return false;
  out->n = (int)m;
  out->rank0 = t->rank == 0;
  for (int64_t k = 0; k < m; k++) {
    out->v[k] = oxp_tensor_get_i(t, k);
    if (out->v[k] == OXP_SYM_UNKNOWN) return false;
    out->p[k] = NULL;
  }
  return true;
}

const symdata *oxp_si_data(const oxp_sictx *c, const oxp_value *v,
                           symdata *tmp) {
  const symdata *s = v->id < c->ndata ? c->data[v->id] : NULL;
  return s ? s : const_data(c, v, tmp) ? tmp : NULL;
}

int oxp_si_ints(oxp_sictx *c, const oxp_node *n, int i, int64_t *v,
                const char **p, bool *rank0) {
  if (i >= n->ninputs || !n->inputs[i]) return -1;
  symdata tmp;
  const symdata *s = oxp_si_data(c, n->inputs[i], &tmp);
  if (!s) return -1;
  for (int k = 0; k < s->n; k++) {
    v[k] = s->v[k];
    if (p) p[k] = s->p[k];
    else if (s->p[k]) v[k] = OXP_SYM_UNKNOWN;
  }
  if (rank0) *rank0 = s->rank0;
  return s->n;
}

void oxp_si_set_data(oxp_sictx *c, oxp_node *n, int k, int cnt,
                     const int64_t *v, const char *const *p, bool rank0) {
  oxp_value *o = n->outputs[k];
  if (cnt < 0 || cnt > OXP_MAX_SHAPE_RANK) return;
  if (o->id >= c->ndata) {
    /* Lowering keeps making values while it infers: grow by doubling. */
    int nd = c->ndata * 2 > o->id ? c->ndata * 2 : o->id + 64;
    symdata **d = oxp_realloc(c->p->g->arena, c->data,
                              sizeof *d * (size_t)c->ndata, sizeof *d * (size_t)nd);
    if (!d) return;
    c->data = d;
    c->ndata = nd;
  }
  symdata *s = oxp_alloc(c->p->g->arena, sizeof *s);
  if (!s) return;
  s->n = cnt;
  s->rank0 = rank0;
  for (int j = 0; j < cnt; j++) {
    s->v[j] = v[j];
    s->p[j] = p ? p[j] : NULL;
  }
  c->data[o->id] = s;
}
