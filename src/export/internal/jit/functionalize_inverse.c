/* functionalize_inverse.c: the nodes functionalization (jit_functionalize.c)
 * adds: the inverse of each view, which puts a new value of the view back
 * into its parent (slice_scatter, select_scatter, diagonal_scatter, the
 * inverse permutation, view_as, ...), and the conversion copy_ makes of
 * its source. Anything without an exact inverse is a named error. */
#include <string.h>

#include "functionalize.h"

/* A detached node located like `like`, typed t (copied) when t is set. */
oxp_node *oxp_fz_new_node(ctx *c, const char *kind, const oxp_node *like,
                          oxp_value *const *ins, int nin, const oxp_type *t) {
  oxp_node *k = oxp_node_new(c->g, kind, 1);
  if (!k) return oxp_fz_nomem(c), NULL;
  for (int i = 0; i < nin; i++)
    if (!oxp_node_add_input(k, ins[i])) return oxp_fz_nomem(c), NULL;
  if (t && !(k->outputs[0]->type = oxp_type_copy(c->g->arena, t))) return oxp_fz_nomem(c), NULL;
  k->loc = like->loc;
  k->scope = like->scope;
  k->source = like->source;
  return k;
}

bool oxp_fz_same_shape(const oxp_type *a, const oxp_type *b) {
  if (!oxp_type_is_static(a) || !oxp_type_is_static(b) || a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

/* New nodes of a write go one after another after *pos. */
oxp_node *oxp_fz_emit(ctx *c, oxp_node **pos, const char *kind, const oxp_node *like,
                      oxp_value *const *ins, int nin, const oxp_type *t) {
  oxp_node *k = oxp_fz_new_node(c, kind, like, ins, nin, t);
  if (!k) return NULL;
  oxp_node_insert_after(*pos, k);
  *pos = k;
  return k;
}

static oxp_value *const_ints_node(ctx *c, oxp_node **pos, const oxp_node *like,
                                  const int64_t *v, int n, bool list) {
  oxp_type *t = oxp_type_new(c->g->arena, list ? OXP_T_LIST : OXP_T_INT);
  if (t && list && !(t->elem = oxp_type_new(c->g->arena, OXP_T_INT))) t = NULL;
  if (!t) return oxp_fz_nomem(c), NULL;
  oxp_node *k = oxp_fz_emit(c, pos, "prim::Constant", like, NULL, 0, t);
  if (!k) return NULL;
  if (list) oxp_attr_set_ints(k, "value", v, n);
  else oxp_attr_set_i(k, "value", v[0]);
  return k->outputs[0];
}

/* An int list constant: prim::Constant[value=[...]] or a ListConstruct of
 * int constants. */
static bool const_int_list(const oxp_value *v, int64_t *out, int max, int *n) {
  const oxp_attr *a = oxp_fz_const_attr(v);
  if (a && a->kind == OXP_A_INTS && a->n <= max) {
    memcpy(out, a->ints, sizeof *out * (size_t)a->n);
    *n = a->n;
    return true;
  }
  const oxp_node *k = v ? v->producer : NULL;
  if (!k || !oxp_kind_is(k, "prim::ListConstruct") || k->ninputs > max) return false;
  for (int i = 0; i < k->ninputs; i++)
    if (!oxp_fz_const_int(k->inputs[i], &out[i])) return false;
  *n = k->ninputs;
  return true;
}

/* narrow(x, dim, start, length) as slice bounds, with a negative start
 * counted from the end of a dim of known size. */
static bool narrow_bounds(ctx *c, oxp_node *w, const oxp_node *pr, const oxp_type *t,
                          int64_t *start, int64_t *end) {
  int64_t dim, len;
  if (!oxp_fz_const_int(pr->inputs[1], &dim) || !oxp_fz_const_int(pr->inputs[2], start) ||
      !oxp_fz_const_int(pr->inputs[3], &len)) {
    oxp_fz_fail(c, w, "%s writes through %s with a dim, start or length known only at "
           "run time; write through a slice (x[:, i:i + n]) instead", w->kind, pr->kind);
    return false;
  }
  if (*start < 0) {
    int r = t ? t->rank : -1;
    if (dim < 0 && r > 0) dim += r;
    /* under --dynamic-axes a traced size may not be the run time's */
    if (r <= 0 || dim < 0 || dim >= r || t->dims[dim] < 0 || c->dynamic) {
      oxp_fz_fail(c, w, "%s writes through %s with a negative start on a dim of "
             "unknown size (or with --dynamic-axes)", w->kind, pr->kind);
      return false;
    }
    *start += t->dims[dim];
  }
  *end = *start + len;
  return true;
}

/* The new value of v's parent (current value pc) once v holds nv: the
 * inverse of the view that made v. NULL with a named error when ONNX
 * cannot express it exactly. */
oxp_value *oxp_fz_inverse(ctx *c, oxp_node *w, oxp_node **pos, const alias *a,
                          oxp_value *v, oxp_value *pc, oxp_value *nv) {
  const oxp_node *pr = v->producer;
  oxp_value *ins[6];
  int nin = 0;
  const char *kind = NULL;
  switch ((oxp_view_kind)a->vk) {
  case OXP_VIEW_IDENT:
    return nv;
  case OXP_VIEW_EXPAND:
    if (oxp_fz_same_shape(pr->inputs[0]->type, v->type)) return nv;
    oxp_fz_fail(c, w, "%s writes through %s of %%%s, which repeats elements (torch "
           "refuses such writes too)", w->kind, pr->kind, oxp_fz_name(a->parent));
    return NULL;
  case OXP_VIEW_SLICE:
    if (pr->ninputs != 5) break;
    kind = "aten::slice_scatter";
    ins[nin++] = pc, ins[nin++] = nv;
    for (int i = 1; i < 5; i++) ins[nin++] = pr->inputs[i];
    break;
  case OXP_VIEW_SELECT:
    if (pr->ninputs != 3) break;
    kind = "aten::select_scatter";
    ins[nin++] = pc, ins[nin++] = nv, ins[nin++] = pr->inputs[1], ins[nin++] = pr->inputs[2];
    break;
  case OXP_VIEW_DIAGONAL: /* diagonal(x, offset, dim1, dim2) */
    if (pr->ninputs != 4) break;
    kind = "aten::diagonal_scatter";
    ins[nin++] = pc, ins[nin++] = nv;
    for (int i = 1; i < 4; i++) ins[nin++] = pr->inputs[i];
    break;
  case OXP_VIEW_NARROW: {
    int64_t st, end, one = 1;
    if (pr->ninputs != 4 || !narrow_bounds(c, w, pr, pc->type, &st, &end)) {
      if (c->st) return NULL;
      break;
    }
    kind = "aten::slice_scatter";
    ins[nin++] = pc, ins[nin++] = nv, ins[nin++] = pr->inputs[1];
    if (!(ins[nin++] = const_ints_node(c, pos, w, &st, 1, false)) ||
        !(ins[nin++] = const_ints_node(c, pos, w, &end, 1, false)) ||
        !(ins[nin++] = const_ints_node(c, pos, w, &one, 1, false)))
      return NULL;
    break;
  }
  case OXP_VIEW_SELFINV: /* transpose(y, a, b), t(y), numpy_T(y) */
    kind = pr->kind;
    ins[nin++] = nv;
    for (int i = 1; i < pr->ninputs && nin < 6; i++) ins[nin++] = pr->inputs[i];
    break;
  case OXP_VIEW_SWAPARGS: /* movedim(y, b, a) */
    if (pr->ninputs != 3) break;
    kind = pr->kind;
    ins[nin++] = nv, ins[nin++] = pr->inputs[2], ins[nin++] = pr->inputs[1];
    break;
  case OXP_VIEW_PERMUTE: {
    int64_t p[OXP_MAX_TYPE_RANK], inv[OXP_MAX_TYPE_RANK];
    int r;
    if (pr->ninputs != 2 || !const_int_list(pr->inputs[1], p, OXP_MAX_TYPE_RANK, &r)) {
      oxp_fz_fail(c, w, "%s writes through %s with dims known only at run time",
             w->kind, pr->kind);
      return NULL;
    }
    for (int i = 0; i < r; i++) inv[i] = -1;
    for (int i = 0; i < r; i++) {
      int64_t d = p[i] < 0 ? p[i] + r : p[i];
      if (d < 0 || d >= r || inv[d] >= 0) {
        oxp_fz_fail(c, w, "%s writes through %s whose dims are no permutation",
               w->kind, pr->kind);
        return NULL;
      }
      inv[d] = i;
    }
    kind = "aten::permute";
    ins[nin++] = nv;
    if (!(ins[nin++] = const_ints_node(c, pos, w, inv, r, true))) return NULL;
    break;
  }
  case OXP_VIEW_RESHAPE:
    kind = "aten::view_as";
    ins[nin++] = nv, ins[nin++] = pc;
    break;
  default:
    break;
  }
  if (!kind) {
    oxp_fz_fail(c, w, "%s writes through %s of %%%s, which has no exact inverse in "
           "ONNX; this write is not supported", w->kind, pr->kind, oxp_fz_name(a->parent));
    return NULL;
  }
  oxp_node *k = oxp_fz_emit(c, pos, kind, w, ins, nin, a->parent->type);
  if (!k) return NULL;
  /* The parent's shape, the current parent's dtype: an in-place op that
   * promotes (half.add_(float)) left its original result typed with the
   * pure op's dtype, and the type_as after it holds self's again. */
  oxp_type *t = k->outputs[0]->type;
  int pd = oxp_fz_dtype(pc);
  if (t && t->kind == OXP_T_TENSOR && pd) t->dtype = pd;
  return k->outputs[0];
}

/* src converted to self's dtype and broadcast to its shape, as copy_ and
 * fill_ with a tensor do. */
oxp_value *oxp_fz_copy_value(ctx *c, oxp_node *w, oxp_node **pos, oxp_value *self,
                             oxp_value *src) {
  oxp_value *x = src;
  int sd = oxp_fz_dtype(self);
  if (!sd || oxp_fz_dtype(src) != sd) {
    oxp_type *t = oxp_type_copy(c->g->arena, src->type && src->type->kind == OXP_T_TENSOR
                                                  ? src->type : self->type);
    if (!t) return oxp_fz_nomem(c), NULL;
    t->dtype = sd;
    oxp_node *k = oxp_fz_emit(c, pos, "aten::type_as", w, (oxp_value *[]){x, self}, 2, t);
    if (!k) return NULL;
    x = k->outputs[0];
  }
  /* Equal traced shapes prove nothing under --dynamic-axes: a source
   * traced at self's size may be broadcast at run time (torch's tracer
   * bakes x[:, 1:] = y as copy_ of y expanded to the traced size). */
  if (c->dynamic || !oxp_fz_same_shape(src->type, self->type)) {
    oxp_node *k = oxp_fz_emit(c, pos, "aten::expand_as", w, (oxp_value *[]){x, self}, 2, self->type);
    if (!k) return NULL;
    x = k->outputs[0];
    /* copy_ also takes a source with more (size-1) dims than self, which
     * Expand keeps: then the shape is self's by a reshape */
    int rs = src->type && src->type->kind == OXP_T_TENSOR ? src->type->rank : -1;
    int rd = self->type && self->type->kind == OXP_T_TENSOR ? self->type->rank : -1;
    if (rs < 0 || rd < 0 || rs > rd) {
      if (!(k = oxp_fz_emit(c, pos, "aten::view_as", w, (oxp_value *[]){x, self}, 2, self->type)))
        return NULL;
      x = k->outputs[0];
    }
  }
  return x;
}
