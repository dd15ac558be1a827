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
  int64_t shape[OXP_MAX_STATIC_RANK];
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
  if (*r <= 0 || *r > OXP_MAX_STATIC_RANK) {
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

/* diagonal_scatter(base, src, offset, dim1, dim2), for dims of known
 * size: src's last axis gathered onto an (a, b) grid by a constant index,
 * moved to dim1/dim2, then Where(on the diagonal, that, base). */
oxp_status oxp_s_diagonal_scatter(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t off, d1, d2, dims[OXP_MAX_STATIC_RANK];
  int r;
  if (!x || !oxp_sym_need_int(c, n, 2, &off) || !oxp_sym_need_int(c, n, 3, &d1) ||
      !oxp_sym_need_int(c, n, 4, &d2))
    return oxp_sym_status(c);
  r = oxp_sym_rank(x);
  if (r < 2 || r > OXP_MAX_STATIC_RANK || !oxp_sym_axis(d1, r, &d1) || !oxp_sym_axis(d2, r, &d2) ||
      d1 == d2)
    return oxp_sym_unsupported(c, "these dims (a base of rank 2 or more, two distinct dims)");
  int64_t a = oxp_sx_dim(x, (int)d1), b = oxp_sx_dim(x, (int)d2);
  if (a < 0 || b < 0 || a * b > (1 << 24))
    return oxp_sym_unsupported(c, "diagonal dims of unknown (or huge) size");
  int64_t len = off >= 0 ? (a < b - off ? a : b - off) : (a + off < b ? a + off : b);
  if (len <= 0) return oxp_sym_set_out(c, n, 0, x);
  /* K picks the diagonal element each grid cell would hold; M marks the
   * diagonal; both laid out in the order dims d1, d2 appear in x. */
  bool swap = d1 > d2;
  int64_t gd[2] = {swap ? b : a, swap ? a : b};
  oxp_arena *ar = oxp_sym_arena(c);
  oxp_tensor *k = oxp_tensor_alloc(ar, OXP_DT_INT64, 2, (int64_t[]){a, b});
  oxp_tensor *m = oxp_tensor_alloc(ar, OXP_DT_BOOL, 2, gd);
  if (!k || !m) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  int64_t *kv = (int64_t *)k->data;
  uint8_t *mv = (uint8_t *)m->data;
  for (int64_t i = 0; i < a; i++)
    for (int64_t j = 0; j < b; j++) {
      int64_t e = off >= 0 ? i : j;
      kv[i * b + j] = e < len ? e : len - 1;
      mv[swap ? j * a + i : i * b + j] = j - i == off;
    }
  oxp_value *src = oxp_sym_in_as(c, n, 1, oxp_sym_dtype(x));
  oxp_node *g = src ? oxp_sym_op(c, "Gather", (oxp_value *[]){src, oxp_sym_const(c, k)}, 2, 1) : NULL;
  if (!g) return oxp_sym_status(c);
  oxp_attr_set_i(g, "axis", r - 2);
  int64_t perm[OXP_MAX_STATIC_RANK];
  for (int p = 0, rest = 0; p < r; p++) {
    perm[p] = p == d1 ? r - 2 : p == d2 ? r - 1 : rest++;
    dims[p] = p == d1 ? gd[swap] : p == d2 ? gd[!swap] : 1;
  }
  oxp_value *grid = oxp_sx_transpose(c, g->outputs[0], perm, r);
  oxp_value *mask = oxp_sx_reshape(c, oxp_sym_const(c, m), dims, r);
  return oxp_sym_set_out(c, n, 0, oxp_sym_op3(c, "Where", mask, grid, x));
}
