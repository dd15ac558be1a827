/* s_view_scatter.c: slice_scatter and select_scatter, the inverses of
 * slice and select. Functionalization (jit_functionalize.c) emits them
 * to carry a write through a view back into its base; users may call
 * them too. Both are one ScatterElements of the window into the base,
 * with the window's positions along the dim spread over its shape: exact
 * for every bound and step torch allows, static or known only at run
 * time (ScatterElements takes negative indices). */
#include <limits.h>

#include "s_shape_util.h"

/* positions (1-D int64) along axis, expanded to like's shape */
static oxp_value *spread(oxp_sctx *c, oxp_value *pos, int64_t axis, int r,
                         oxp_value *like) {
  int64_t shape[OXP_SX_MAXRANK];
  for (int i = 0; i < r; i++) shape[i] = i == axis ? -1 : 1;
  return oxp_sym_op2(c, "Expand", oxp_sx_reshape(c, pos, shape, r), oxp_sx_shape(c, like));
}

static oxp_status scatter_window(oxp_sctx *c, oxp_node *n, oxp_value *x,
                                 oxp_value *pos, oxp_value *src, int64_t axis,
                                 int r) {
  oxp_value *idx = pos && src ? spread(c, pos, axis, r, src) : NULL;
  oxp_node *s = idx ? oxp_sym_op(c, "ScatterElements", (oxp_value *[]){x, idx, src}, 3, 1)
                    : NULL;
  if (!s) return oxp_sym_status(c);
  oxp_attr_set_i(s, "axis", axis);
  return oxp_sym_set_out(c, n, 0, s->outputs[0]);
}

static bool base_and_axis(oxp_sctx *c, oxp_node *n, oxp_value **x, int *r,
                          int64_t *axis) {
  int64_t d;
  if (!(*x = oxp_sym_in(c, n, 0))) return false;
  *r = oxp_sym_rank(*x);
  if (*r <= 0 || *r > OXP_SX_MAXRANK) {
    oxp_sym_unsupported(c, *r == 0 ? "a 0-d base" : "a base of unknown rank");
    return false;
  }
  if (!oxp_sym_need_int(c, n, 2, &d)) return false;
  if (!oxp_sym_axis(d, *r, axis)) {
    oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: dim %lld out of range for rank %d",
                 n->kind, (long long)d, *r);
    return false;
  }
  return true;
}

/* slice_scatter(base, src, dim, start, end, step) */
oxp_status oxp_s_slice_scatter(oxp_sctx *c, oxp_node *n) {
  oxp_value *x;
  int r;
  int64_t axis, start = 0, end = INT64_MAX, step = 1;
  if (!base_and_axis(c, n, &x, &r, &axis)) return oxp_sym_status(c);
  if (!oxp_sym_is_none(n, 5) && !oxp_sym_need_int(c, n, 5, &step)) return oxp_sym_status(c);
  if (step <= 0) return oxp_sym_unsupported(c, "a non-positive step");
  bool dyn_start = !oxp_sym_is_none(n, 3) && !oxp_sym_int(n, 3, &start);
  bool dyn_end = !oxp_sym_is_none(n, 4) && !oxp_sym_int(n, 4, &end);
  int64_t size = oxp_sx_dim(x, (int)axis);
  oxp_value *pos;
  if (!dyn_start && !dyn_end && size >= 0) {
    /* torch's bounds: negative ones count from the end, all clamp */
    if (start < 0) start = start + size < 0 ? 0 : start + size;
    if (end < 0) end = end + size < 0 ? 0 : end + size;
    if (start > size) start = size;
    if (end > size) end = size;
    int64_t cnt = oxp_range_len(start, end, step);
    int64_t *v = oxp_alloc(oxp_sym_arena(c), sizeof *v * (size_t)(cnt ? cnt : 1));
    if (!v) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < cnt; i++) v[i] = start + i * step;
    pos = oxp_sym_const_i64s(c, v, (int)cnt);
  } else {
    if (oxp_sym_opset(c) < 11)
      return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                          "%s with bounds or a size known only at run time is not "
                          "supported at opset %d (supported from opset 11)",
                          n->kind, oxp_sym_opset(c));
    static const int64_t zero = 0;
    oxp_value *all = oxp_sym_op3(c, "Range", oxp_sym_const_i64(c, 0),
                                 oxp_sym_size(c, x, axis), oxp_sym_const_i64(c, 1));
    oxp_value *s = dyn_start ? oxp_sym_unsqueeze(c, oxp_sym_in_as(c, n, 3, OXP_DT_INT64), &zero, 1)
                             : oxp_sym_const_i64s(c, &start, 1);
    oxp_value *e = dyn_end ? oxp_sym_unsqueeze(c, oxp_sym_in_as(c, n, 4, OXP_DT_INT64), &zero, 1)
                           : oxp_sym_const_i64s(c, &end, 1);
    pos = all && s && e ? oxp_sx_slice_dyn(c, all, s, e, 0, step) : NULL;
  }
  oxp_value *src = pos ? oxp_sym_in_as(c, n, 1, oxp_sym_dtype(x)) : NULL;
  return scatter_window(c, n, x, pos, src, axis, r);
}

/* select_scatter(base, src, dim, index) */
oxp_status oxp_s_select_scatter(oxp_sctx *c, oxp_node *n) {
  oxp_value *x;
  int r;
  int64_t axis, index;
  if (!base_and_axis(c, n, &x, &r, &axis)) return oxp_sym_status(c);
  oxp_value *pos;
  if (oxp_sym_int(n, 3, &index)) {
    pos = oxp_sym_const_i64s(c, &index, 1);
  } else {
    static const int64_t one = 1;
    pos = oxp_sx_reshape(c, oxp_sym_in_as(c, n, 3, OXP_DT_INT64), &one, 1);
  }
  oxp_value *src = oxp_sym_in_as(c, n, 1, oxp_sym_dtype(x));
  src = src ? oxp_sym_unsqueeze(c, src, &axis, 1) : NULL;
  return scatter_window(c, n, x, pos, src, axis, r);
}
