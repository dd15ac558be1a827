/* s_shape_window.c: ops that read a window or a band of a tensor:
 * narrow, unfold, diagonal, tril/triu, and meshgrid. */
#include <limits.h>

#include "s_shape_util.h"

/* narrow(x, dim, start, length) = slice [start, start + length). */
oxp_status oxp_s_narrow(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t dim, start, len;
  if (!x || !oxp_sx_axis_arg(c, n, 1, oxp_sym_rank(x), &dim)) return oxp_sym_status(c);
  bool cs = oxp_sym_int(n, 2, &start), cl = oxp_sym_int(n, 3, &len);
  if (cs && start < 0) {
    int64_t size = oxp_sx_dim(x, (int)dim);
    if (size < 0) return oxp_sym_unsupported(c, "narrow from a negative start on a dim of unknown size");
    start += size;
  }
  if (cs && cl) {
    int64_t end = start + len;
    return oxp_sym_set_out(c, n, 0, oxp_sym_slice(c, x, &dim, &start, &end, NULL, 1));
  }
  if (oxp_sym_opset(c) < 10)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "aten::narrow with runtime bounds is not supported at "
                        "opset %d (supported from opset 10)", oxp_sym_opset(c));
  static const int64_t zero = 0;
  oxp_value *s = cs ? oxp_sym_const_i64s(c, &start, 1)
                    : oxp_sym_unsqueeze(c, oxp_sym_in_as(c, n, 2, OXP_DT_INT64), &zero, 1);
  oxp_value *l = cl ? oxp_sym_const_i64s(c, &len, 1)
                    : oxp_sym_unsqueeze(c, oxp_sym_in_as(c, n, 3, OXP_DT_INT64), &zero, 1);
  return oxp_sym_set_out(c, n, 0, oxp_sx_slice_dyn(c, x, s, oxp_sym_op2(c, "Add", s, l), dim, 1));
}

/* unfold(x, dim, size, step): Gather with an [n, size] index along dim,
 * then the window axis moved last. Needs the dim's size. */
oxp_status oxp_s_unfold(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t dim, size, step;
  int r = oxp_sym_rank(x);
  if (!x || !oxp_sx_axis_arg(c, n, 1, r, &dim) || !oxp_sym_need_int(c, n, 2, &size) ||
      !oxp_sym_need_int(c, n, 3, &step))
    return oxp_sym_status(c);
  if (r == 0) r = 1, x = oxp_sym_unsqueeze(c, x, (int64_t[]){0}, 1);
  int64_t d = oxp_sx_dim(x, (int)dim);
  if (d < 0) return oxp_sym_unsupported(c, "unfold of a dim of unknown size");
  if (r >= OXP_MAX_STATIC_RANK) return oxp_sym_unsupported(c, "unfold beyond 15 dims");
  if (step <= 0 || size > d) return oxp_sym_fail(c, OXP_ERR_GRAPH, "unfold: bad size or step");
  int64_t nw = (d - size) / step + 1;
  oxp_tensor *t = oxp_tensor_alloc(oxp_sym_arena(c), OXP_DT_INT64, 2, (int64_t[]){nw, size});
  if (!t) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  int64_t *p = (int64_t *)t->data;
  for (int64_t w = 0; w < nw; w++)
    for (int64_t k = 0; k < size; k++) p[w * size + k] = w * step + k;
  oxp_value *g = oxp_sx_gather(c, x, oxp_sym_const(c, t), dim);
  /* g: x.shape[:dim] + [nw, size] + x.shape[dim+1:]; size goes last. */
  int64_t perm[OXP_MAX_STATIC_RANK];
  int m = 0;
  for (int i = 0; i <= r; i++)
    if (i != dim + 1) perm[m++] = i;
  perm[m++] = dim + 1;
  return oxp_sym_set_out(c, n, 0, oxp_sx_transpose(c, g, perm, r + 1));
}

/* diagonal(x, offset, dim1, dim2): dim1 and dim2 moved last, flattened
 * into one, and the diagonal's flat positions gathered (static sizes of
 * the two dims). The result's diagonal axis is last, as in torch. */
oxp_status oxp_s_diagonal(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int r = oxp_sym_rank(x);
  int64_t off, d1, d2;
  if (!x || !oxp_sym_need_int(c, n, 1, &off) || !oxp_sx_axis_arg(c, n, 2, r, &d1) ||
      !oxp_sx_axis_arg(c, n, 3, r, &d2))
    return oxp_sym_status(c);
  if (d1 == d2 || r < 2) return oxp_sym_fail(c, OXP_ERR_GRAPH, "diagonal: dims must differ");
  int64_t a = oxp_sx_dim(x, (int)d1), b = oxp_sx_dim(x, (int)d2);
  if (a < 0 || b < 0) return oxp_sym_unsupported(c, "diagonal of dims of unknown size");
  int64_t perm[OXP_MAX_STATIC_RANK], shape[OXP_MAX_STATIC_RANK];
  int m = 0;
  for (int i = 0; i < r; i++)
    if (i != d1 && i != d2) perm[m++] = i;
  perm[m++] = d1;
  perm[m++] = d2;
  bool ident = true;
  for (int i = 0; i < r; i++) ident &= perm[i] == i;
  oxp_value *y = ident ? x : oxp_sx_transpose(c, x, perm, r);
  for (int i = 0; i < r - 2; i++) shape[i] = 0;
  shape[r - 2] = a * b;
  y = oxp_sx_reshape(c, y, shape, r - 1);
  int64_t idx[4096];
  int k = 0;
  for (int64_t i = 0; i < a && k < 4096; i++) {
    int64_t j = i + off;
    if (j >= 0 && j < b) idx[k++] = i * b + j;
  }
  if (k >= 4096) return oxp_sym_unsupported(c, "diagonal longer than 4096");
  if (k == 0) {
    /* an empty diagonal: x's other dims and a last one of 0 */
    int64_t d[OXP_MAX_STATIC_RANK];
    int rr;
    if (!oxp_sx_dims(x, d, &rr))
      return oxp_sym_unsupported(c, "an empty diagonal of a tensor of unknown shape");
    for (int i = 0, m2 = 0; i < r; i++)
      if (i != d1 && i != d2) shape[m2++] = d[i];
    shape[r - 2] = 0;
    int dt = oxp_sym_need_dtype(c, x);
    if (!dt) return oxp_sym_status(c);
    return oxp_sym_set_out(c, n, 0, oxp_sx_fill(c, oxp_sym_const_i64s(c, shape, r - 1), 0, dt));
  }
  return oxp_sym_set_out(c, n, 0, oxp_sx_gather(c, y, oxp_sym_const_i64s(c, idx, k), r - 2));
}

/* tril / triu. Trilu from opset 14; before it, a constant band mask over
 * the last two (static) dims and Where. */
oxp_status oxp_s_trilu(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t k = 0;
  if (!x) return oxp_sym_status(c);
  if (!oxp_sym_is_none(n, 1) && !oxp_sym_need_int(c, n, 1, &k)) return oxp_sym_status(c);
  bool upper = oxp_kind_is(n, "aten::triu");
  int64_t h = oxp_sx_dim(x, -2), w = oxp_sx_dim(x, -1);
  bool known = oxp_sym_rank(x) >= 2 && h >= 0 && w >= 0;
  /* onnxruntime implements Trilu for float, double and int64 only; other
   * types take the mask form when the matrix size is known. */
  int dt = oxp_sym_dtype(x);
  bool ort_type = dt == OXP_DT_FLOAT || dt == OXP_DT_DOUBLE || dt == OXP_DT_INT64;
  if (oxp_sym_opset(c) >= 14 && (ort_type || !known)) {
    oxp_node *t = oxp_sym_op(c, "Trilu", (oxp_value *[]){x, oxp_sym_const_i64(c, k)}, 2, 1);
    if (!t) return oxp_sym_status(c);
    oxp_attr_set_i(t, "upper", upper);
    return oxp_sym_set_out(c, n, 0, t->outputs[0]);
  }
  if (!known)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "%s of a matrix of unknown size is not supported at "
                        "opset %d (supported from opset 14)", n->kind, oxp_sym_opset(c));
  int64_t hw;
  if (__builtin_mul_overflow(h, w, &hw) || hw > INT64_C(1) << 30)
    return oxp_sym_unsupported(c, "a triangle mask of more than 2^30 elements "
                                  "before opset 14");
  oxp_tensor *t = oxp_tensor_alloc(oxp_sym_arena(c), OXP_DT_BOOL, 2, (int64_t[]){h, w});
  if (!t) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  uint8_t *p = (uint8_t *)t->data;
  for (int64_t i = 0; i < h; i++)
    for (int64_t j = 0; j < w; j++) p[i * w + j] = upper ? j - i >= k : j - i <= k;
  oxp_value *zero = oxp_sym_const_scalar(c, 0, oxp_sym_dtype(x) ? oxp_sym_dtype(x) : OXP_DT_FLOAT);
  return oxp_sym_set_out(c, n, 0, oxp_sym_op3(c, "Where", oxp_sym_const(c, t), x, zero));
}

/* meshgrid(tensors, indexing): input i reshaped to lie along its output
 * axis, then expanded to the full grid. "xy" swaps the first two axes. */
oxp_status oxp_s_meshgrid(oxp_sctx *c, oxp_node *n) {
  oxp_value **v;
  int cnt;
  if (!oxp_sym_in_list(c, n, 0, &v, &cnt)) return oxp_sym_status(c);
  const char *ix = "ij";
  if (n->ninputs > 1 && !oxp_sym_is_none(n, 1) && !oxp_sym_str(n, 1, &ix))
    return oxp_sym_unsupported(c, "meshgrid with a runtime indexing");
  bool xy = ix[0] == 'x' && cnt >= 2;
  if (cnt > OXP_MAX_STATIC_RANK) return oxp_sym_unsupported(c, "meshgrid of more than 16 tensors");
  oxp_value *sizes[OXP_MAX_STATIC_RANK];
  static const int64_t m1 = -1;
  for (int i = 0; i < cnt; i++) {
    v[i] = oxp_sx_reshape(c, v[i], &m1, 1);
    sizes[i] = oxp_sx_shape(c, v[i]);
  }
  int pos[OXP_MAX_STATIC_RANK];
  for (int i = 0; i < cnt; i++) pos[i] = i;
  if (xy) pos[0] = 1, pos[1] = 0;
  oxp_value *order[OXP_MAX_STATIC_RANK];
  for (int i = 0; i < cnt; i++) order[pos[i]] = sizes[i];
  oxp_value *full = oxp_sx_concat(c, order, cnt, 0);
  oxp_value **res = oxp_alloc(oxp_sym_arena(c), sizeof *res * (size_t)(cnt + 1));
  if (!res) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  for (int i = 0; i < cnt; i++) {
    int64_t shape[OXP_MAX_STATIC_RANK];
    for (int k = 0; k < cnt; k++) shape[k] = k == pos[i] ? -1 : 1;
    res[i] = oxp_sym_op2(c, "Expand", oxp_sx_reshape(c, v[i], shape, cnt), full);
  }
  return oxp_sx_set_list(c, n, 0, res, cnt);
}
