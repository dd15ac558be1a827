/* s_stack.c: atleast_1d/2d/3d, hstack and vstack, which PyTorch main's
 * exporter maps from opset 11 (through sequences) and torch 1.13's does
 * not. Each is a rank lift (Unsqueeze / Reshape) of tensors whose rank is
 * known at export time, and a Concat of a static list, so every opset
 * from 9 has them. */
#include "s_shape_util.h"

/* x lifted to rank at least k as torch's atleast_kd does: a scalar becomes
 * [1] / [1, 1] / [1, 1, 1]; a vector of n [1, n] (2d) or [1, n, 1] (3d);
 * a matrix [a, b, 1] (3d); higher ranks are unchanged. */
static oxp_value *atleast(oxp_sctx *c, oxp_value *x, int k) {
  int r = oxp_sym_rank(x);
  if (r < 0) {
    oxp_sym_unsupported(c, "atleast_1d/2d/3d of a tensor of unknown rank");
    return NULL;
  }
  static const int64_t front = 0, back3[] = {0, 2}, last = 2, ones[] = {1, 1, 1};
  if (r >= k) return x;
  if (r == 0) return oxp_sx_reshape(c, x, ones, k);
  if (k == 2) return oxp_sym_unsqueeze(c, x, &front, 1);
  return r == 1 ? oxp_sym_unsqueeze(c, x, back3, 2) : oxp_sym_unsqueeze(c, x, &last, 1);
}

static int rank_of(const char *kind) {
  return kind[14] - '0'; /* "aten::atleast_Nd" */
}

/* atleast_kd(Tensor) -> Tensor, or atleast_kd(Tensor[]) -> Tensor[]. */
oxp_status oxp_s_atleast(oxp_sctx *c, oxp_node *n) {
  int k = rank_of(n->kind);
  const oxp_type *t = oxp_sym_in_type(n, 0);
  if (t && t->kind == OXP_T_LIST) {
    oxp_value **v;
    int cnt;
    if (!oxp_sym_in_list(c, n, 0, &v, &cnt)) return oxp_sym_status(c);
    oxp_value **u = oxp_alloc(oxp_sym_arena(c), sizeof *u * (size_t)(cnt + 1));
    if (!u) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    for (int i = 0; i < cnt; i++)
      if (!(u[i] = atleast(c, v[i], k))) return oxp_sym_status(c);
    return oxp_sx_set_list(c, n, 0, u, cnt);
  }
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  return oxp_sym_set_out(c, n, 0, atleast(c, x, k));
}

/* hstack: Concat along dim 1 of the tensors made at least 1-d, along dim
 * 0 when the first of them is 1-d; vstack: along dim 0 of the tensors made
 * at least 2-d. Elements meet in the output's dtype, as torch.cat's. */
static oxp_status stack_dims(oxp_sctx *c, oxp_node *n, bool vertical) {
  oxp_value **v;
  int cnt;
  if (!oxp_sym_in_list(c, n, 0, &v, &cnt)) return oxp_sym_status(c);
  if (cnt == 0) return oxp_sym_unsupported(c, "hstack/vstack of an empty list");
  int dt = oxp_sym_need_out_dtype(c, n, 0);
  if (!dt) return oxp_sym_status(c);
  oxp_value **u = oxp_alloc(oxp_sym_arena(c), sizeof *u * (size_t)(cnt + 1));
  if (!u) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  for (int i = 0; i < cnt; i++) {
    oxp_value *e = atleast(c, v[i], vertical ? 2 : 1);
    if (e && oxp_sym_dtype(e) != dt) e = oxp_sym_cast(c, e, dt);
    if (!(u[i] = e)) return oxp_sym_status(c);
  }
  int64_t axis = vertical || oxp_sym_rank(u[0]) == 1 ? 0 : 1;
  return oxp_sym_set_out(c, n, 0, oxp_sx_concat(c, u, cnt, axis));
}

oxp_status oxp_s_hstack(oxp_sctx *c, oxp_node *n) { return stack_dims(c, n, false); }
oxp_status oxp_s_vstack(oxp_sctx *c, oxp_node *n) { return stack_dims(c, n, true); }

/* unflatten(x, dim, sizes): Reshape to x's shape with dim replaced by
 * sizes (which may hold one -1, as Reshape's). A 0 in sizes would mean
 * "copy the dim" to Reshape, so a known 0 is refused. */
oxp_status oxp_s_unflatten(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int r = oxp_sym_rank(x);
  if (r < 0) return oxp_sym_unsupported(c, "unflatten of a tensor of unknown rank");
  int64_t dim;
  if (!oxp_sx_axis_arg(c, n, 1, r, &dim)) return oxp_sym_status(c);
  oxp_ilist l;
  if (!oxp_sym_ilist(c, n, 2, &l)) return oxp_sym_status(c);
  /* torch's -1 is x.size(dim) over the other sizes, and its 0 a size;
   * Reshape's -1 comes from the element count (none in an empty x) and
   * its 0 copies a dim. So: static sizes when x's dims are static, else
   * the -1 computed and allowzero (opset 14) for the dims copied from x. */
  int64_t d[OXP_MAX_STATIC_RANK], out[OXP_MAX_STATIC_RANK];
  int rd, m1 = -1;
  int64_t prod = 1;
  bool zero = false;
  for (int i = 0; l.known && i < l.n; i++) {
    if (l.v[i] == -1) m1 = i;
    else prod *= l.v[i];
    zero |= l.v[i] == 0;
  }
  bool fixed = oxp_sx_dims(x, d, &rd), empty = zero;
  for (int i = 0; fixed && i < rd; i++) empty |= d[i] == 0;
  if (fixed && !empty)
    return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Reshape", x,
                           oxp_sx_shape_with(c, x, (int)dim, oxp_sym_ilist_tensor(c, &l))));
  if (l.known && r - 1 + l.n <= OXP_MAX_STATIC_RANK && fixed) {
    int k = 0;
    for (int i = 0; i < r; i++) {
      if (i != dim) {
        out[k++] = d[i];
        continue;
      }
      for (int j = 0; j < l.n; j++)
        out[k++] = j == m1 ? (prod > 0 ? d[i] / prod : 0) : l.v[j];
    }
    return oxp_sym_set_out(c, n, 0, oxp_sym_reshape_dims(c, x, out, k));
  }
  oxp_value *sizes = oxp_sym_ilist_tensor(c, &l);
  if (l.known && m1 >= 0 && oxp_sym_opset(c) >= 14) {
    /* x.size(dim) / prod in place of the -1 */
    oxp_value *sz = oxp_sym_unsqueeze(c, oxp_sym_size(c, x, dim), (int64_t[]){0}, 1);
    oxp_value *q = oxp_sym_op2(c, "Div", sz, oxp_sym_const_i64s(c, &prod, 1));
    oxp_value *parts[3];
    int np = 0;
    if (m1 > 0) parts[np++] = oxp_sym_const_i64s(c, l.v, m1);
    parts[np++] = q;
    if (m1 < l.n - 1) parts[np++] = oxp_sym_const_i64s(c, l.v + m1 + 1, l.n - m1 - 1);
    sizes = np > 1 ? oxp_sx_concat(c, parts, np, 0) : q;
  }
  if (!sizes) return oxp_sym_status(c);
  oxp_value *shape = oxp_sx_shape_with(c, x, (int)dim, sizes);
  return oxp_sym_set_out(c, n, 0, oxp_sym_reshape_sizes(
                                      c, x, shape, zero ? OXP_ZERO_SURE : OXP_ZERO_MAYBE));
}
