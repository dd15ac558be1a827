/* s_create_randint.c: randint and randint_like, which PyTorch main's
 * exporter maps from opset 9 and torch 1.13's does not. A uniform double
 * in [low, high), floored, is an integer uniform in [low, high - 1] as
 * torch draws it (torch's exporter casts instead, which truncates toward
 * zero and so skews negative ranges); then cast to the traced dtype. The
 * values differ from torch's by nature: the round trip checks shape,
 * dtype and range. */
#include "s_shape_util.h"

static bool is_list(oxp_node *n, int i) {
  const oxp_type *t = oxp_sym_in_type(n, i);
  return t && t->kind == OXP_T_LIST;
}

/* Floor(RandomUniformLike(like, low, high)) in dtype dt. */
static oxp_value *draw(oxp_sctx *c, oxp_value *like, int64_t low, int64_t high, int dt) {
  oxp_node *r = like ? oxp_sym_op(c, "RandomUniformLike", &like, 1, 1) : NULL;
  if (!r) return NULL;
  oxp_attr_set_i(r, "dtype", OXP_DT_DOUBLE);
  oxp_attr_set_f(r, "low", (double)low);
  oxp_attr_set_f(r, "high", (double)high);
  oxp_value *u = r->outputs[0];
  if (like->type) oxp_sym_set_type(c, u, OXP_DT_DOUBLE, like->type->rank, like->type->dims);
  oxp_value *f = oxp_sym_op1(c, "Floor", u);
  if (f && like->type) oxp_sym_set_type(c, f, OXP_DT_DOUBLE, like->type->rank, like->type->dims);
  return oxp_sym_cast(c, f, dt);
}

/* randint(high, size, ...), randint(high, size, generator, ...),
 * randint(low, high, size, ...), randint(low, high, size, generator, ...);
 * randint_like(x, high, ...), randint_like(x, low, high, ...). */
oxp_status oxp_s_randint(oxp_sctx *c, oxp_node *n) {
  bool like = oxp_kind_is(n, "aten::randint_like");
  int dt = oxp_sym_need_out_dtype(c, n, 0);
  if (!dt) return oxp_sym_status(c);
  int first = like ? 1 : 0;
  /* with a low: randint's size is input 2 (a list), randint_like has 8 inputs */
  bool has_low = like ? n->ninputs >= 8 : !is_list(n, 1);
  int64_t low = 0, high;
  if ((has_low && !oxp_sym_int(n, first, &low)) || !oxp_sym_int(n, first + has_low, &high))
    return oxp_sym_unsupported(c, "randint with a runtime low or high");
  if (high <= low)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: empty range [%lld, %lld)", n->kind, (long long)low,
                        (long long)high);
  oxp_value *shape_of;
  if (like) {
    shape_of = oxp_sym_in(c, n, 0);
  } else {
    oxp_value *size = oxp_sym_in_ilist(c, n, has_low ? 2 : 1);
    shape_of = size ? oxp_sx_fill(c, size, 0, OXP_DT_DOUBLE) : NULL;
  }
  if (!shape_of) return oxp_sym_status(c);
  return oxp_sym_set_out(c, n, 0, draw(c, shape_of, low, high, dt));
}
