/* s_index.c: advanced indexing, aten::index (x[idx], x[mask], several
 * indexed dims, with the None slots torch traces for `:`/`...`) and
 * aten::index_put (x[idx] = v, accumulate or not). */
#include <limits.h>

#include "s_shape_util.h"

/* The indexed dims after expanding masks: dim[k] of x is indexed by
 * idx[k] (int64, not yet broadcast). */
typedef struct {
  int dims[OXP_MAX_STATIC_RANK];
  oxp_value *idx[OXP_MAX_STATIC_RANK];
  int k;
  /* The single-mask case, kept whole for Compress / Where. */
  oxp_value *mask;
  int mask_at, mask_rank;
} oxp_ix;

static bool is_mask(const oxp_value *v) {
  int dt = oxp_sym_dtype(v);
  return dt == OXP_DT_BOOL || dt == OXP_DT_UINT8;
}

/* Reads the Tensor?[] argument i. Masks become one index per dim they
 * cover (the rows of NonZero), except a lone mask, kept in ix->mask. */
static bool read_indices(oxp_sctx *c, oxp_node *n, int i, oxp_ix *ix) {
  oxp_value *src = oxp_sym_src(n, i);
  oxp_node *lc = src ? src->producer : NULL;
  ix->k = 0;
  ix->mask = NULL;
  if (!lc || !oxp_kind_is(lc, "prim::ListConstruct")) {
    oxp_sym_unsupported(c, "indexing with a runtime list of indices");
    return false;
  }
  int nt = 0, at = 0;
  for (int k = 0; k < lc->ninputs; k++) nt += !oxp_sym_is_none(lc, k);
  for (int k = 0; k < lc->ninputs; k++) {
    if (oxp_sym_is_none(lc, k)) { at++; continue; }
    oxp_value *v = oxp_sym_in(c, lc, k);
    if (!v) return false;
    if (!is_mask(v)) {
      if (ix->k >= OXP_MAX_STATIC_RANK) return false;
      ix->dims[ix->k] = at++;
      ix->idx[ix->k++] = oxp_sym_dtype(v) == OXP_DT_INT64 ? v : oxp_sym_cast(c, v, OXP_DT_INT64);
      continue;
    }
    int m = oxp_sym_rank(v);
    if (m < 0) { oxp_sym_unsupported(c, "a boolean index of unknown rank"); return false; }
    if (nt == 1) {
      ix->mask = oxp_sym_dtype(v) == OXP_DT_BOOL ? v : oxp_sym_cast(c, v, OXP_DT_BOOL);
      ix->mask_at = at;
      ix->mask_rank = m;
      at += m;
      continue;
    }
    oxp_value *nz = oxp_sym_op1(c, "NonZero", v); /* [m, N] */
    for (int r = 0; r < m; r++) {
      if (ix->k >= OXP_MAX_STATIC_RANK) return false;
      ix->dims[ix->k] = at++;
      ix->idx[ix->k] = oxp_sx_gather(c, nz, oxp_sym_const_i64(c, r), 0);
      oxp_sym_set_type(c, ix->idx[ix->k++], OXP_DT_INT64, 1, NULL);
    }
  }
  return true;
}

/* Size of dim a of x as a 0-d int64: constant when static. */
static oxp_value *dim_size(oxp_sctx *c, oxp_value *x, int a) {
  int64_t d = oxp_sx_dim(x, a);
  return d >= 0 ? oxp_sym_const_i64(c, d) : oxp_sym_size(c, x, a);
}

/* Negative indices count from the end: idx + d where idx < 0. */
static oxp_value *wrap(oxp_sctx *c, oxp_value *idx, oxp_value *d) {
  oxp_value *neg = oxp_sym_op2(c, "Less", idx, oxp_sym_const_i64(c, 0));
  oxp_value *w = oxp_sym_op3(c, "Where", neg, oxp_sym_op2(c, "Add", idx, d), idx);
  if (idx && idx->type) oxp_sym_set_type(c, w, OXP_DT_INT64, idx->type->rank, idx->type->dims);
  return w;
}

static bool adjacent(const oxp_ix *ix) {
  for (int k = 1; k < ix->k; k++)
    if (ix->dims[k] != ix->dims[k - 1] + 1) return false;
  return true;
}

/* perm: the indexed dims first, then the others in order. */
static int lead_perm(const oxp_ix *ix, int r, int64_t *perm) {
  bool used[OXP_MAX_STATIC_RANK] = {0};
  int m = 0;
  for (int k = 0; k < ix->k; k++) perm[m++] = ix->dims[k], used[ix->dims[k]] = true;
  for (int d = 0; d < r; d++)
    if (!used[d]) perm[m++] = d;
  return m;
}

/* x with dims [p, p + m) merged into one (m = 0, a 0-d mask: a new dim
 * of size 1 at p, as eager x[mask] adds): -1 while x has elements; an
 * empty x has no count for a -1 and its 0s must stay sizes (not copies of
 * the dim at that position), so static sizes when x is statically empty,
 * and with dims unknown (opset 14) the merged size as a product and
 * allowzero. */
static oxp_value *merge_dims(oxp_sctx *c, oxp_value *x, int p, int m) {
  int r = oxp_sym_rank(x);
  int64_t d[OXP_MAX_STATIC_RANK];
  int rd;
  bool fixed = oxp_sx_dims(x, d, &rd) && rd == r, empty = false;
  for (int i = 0; fixed && i < r; i++) empty |= d[i] == 0;
  if (empty) {
    int64_t out[OXP_MAX_STATIC_RANK];
    int k = 0;
    for (int i = 0; i < r; i++) {
      if (m == 0 && i == p) out[k++] = 1; /* no dims merged: a new one of size 1 */
      if (i <= p || i >= p + m) out[k++] = d[i];
      else out[k - 1] *= d[i];
    }
    if (m == 0 && p == r) out[k++] = 1;
    return oxp_sym_reshape_dims(c, x, out, k);
  }
  oxp_value *sh = oxp_sx_shape(c, x), *parts[3];
  int np = 0;
  static const int64_t zero = 0, m1 = -1, big = INT64_MAX;
  int64_t a = p, b = p + m;
  bool prod = !fixed && oxp_sym_opset(c) >= 14;
  if (p > 0) parts[np++] = oxp_sym_slice(c, sh, &zero, &zero, &a, NULL, 1);
  if (prod)
    parts[np++] = oxp_sym_reduce(c, "ReduceProd", oxp_sym_slice(c, sh, &zero, &a, &b, NULL, 1),
                                 &zero, 1, true);
  else
    parts[np++] = oxp_sym_const_i64s(c, &m1, 1);
  if (p + m < r) parts[np++] = oxp_sym_slice(c, sh, &zero, &b, &big, NULL, 1);
  return oxp_sym_reshape_sizes(c, x, oxp_sx_concat(c, parts, np, 0),
                               prod ? OXP_ZERO_MAYBE : OXP_ZERO_NONE);
}

/* Rank of the broadcast index shape. */
static int index_rank(const oxp_ix *ix) {
  int nb = 0;
  for (int k = 0; k < ix->k; k++)
    if (oxp_sym_rank(ix->idx[k]) > nb) nb = oxp_sym_rank(ix->idx[k]);
  return nb;
}

oxp_status oxp_s_index(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  oxp_ix ix;
  if (!x || !read_indices(c, n, 1, &ix)) return oxp_sym_status(c);
  int r = oxp_sym_rank(x);
  if (r < 0 || r > OXP_MAX_STATIC_RANK) return oxp_sym_unsupported(c, "indexing a tensor of unknown rank");
  if (ix.mask) {
    /* x[mask]: the masked dims flattened into one, then Compress. */
    static const int64_t m1 = -1;
    oxp_value *xm = ix.mask_rank == 1 ? x : merge_dims(c, x, ix.mask_at, ix.mask_rank);
    oxp_value *fm = ix.mask_rank == 1 ? ix.mask : oxp_sx_reshape(c, ix.mask, &m1, 1);
    oxp_node *k = xm && fm ? oxp_sym_op(c, "Compress", (oxp_value *[]){xm, fm}, 2, 1) : NULL;
    if (!k) return oxp_sym_status(c);
    oxp_attr_set_i(k, "axis", ix.mask_at);
    return oxp_sym_set_out(c, n, 0, k->outputs[0]);
  }
  if (ix.k == 0) return oxp_sym_set_out(c, n, 0, x);
  if (ix.k == 1) {
    oxp_value *idx = ix.idx[0];
    /* Gather takes negative indices from opset 11. */
    if (oxp_sym_opset(c) < 11 && !oxp_sym_is_const(n, 1))
      idx = wrap(c, idx, dim_size(c, x, ix.dims[0]));
    return oxp_sym_set_out(c, n, 0, oxp_sx_gather(c, x, idx, ix.dims[0]));
  }
  /* Several indexed dims: move them first, flatten them into one, and
   * Gather by the linear index sum(idx_k * stride_k). */
  int64_t perm[OXP_MAX_STATIC_RANK];
  lead_perm(&ix, r, perm);
  bool ident = true;
  for (int d = 0; d < r; d++) ident &= perm[d] == d;
  oxp_value *xt = ident ? x : oxp_sx_transpose(c, x, perm, r);
  oxp_value *flat = merge_dims(c, xt, 0, ix.k);
  oxp_value *lin = NULL;
  for (int k = 0; k < ix.k; k++) {
    oxp_value *d = dim_size(c, x, ix.dims[k]);
    oxp_value *t = wrap(c, ix.idx[k], d);
    lin = lin ? oxp_sym_op2(c, "Add", oxp_sym_op2(c, "Mul", lin, d), t) : t;
  }
  oxp_value *g = oxp_sx_gather(c, flat, lin, 0); /* B + others */
  int nb = index_rank(&ix), p0 = ix.dims[0];
  if (adjacent(&ix) && p0 > 0) {
    /* torch keeps the broadcast dims in place when the indexed dims are
     * adjacent: before + B + after. */
    int out_r = r - ix.k + nb;
    int64_t q[OXP_MAX_STATIC_RANK];
    int m = 0;
    for (int i = 0; i < p0; i++) q[m++] = nb + i;
    for (int i = 0; i < nb; i++) q[m++] = i;
    for (int i = nb + p0; i < out_r; i++) q[m++] = i;
    g = oxp_sx_transpose(c, g, q, out_r);
  }
  return oxp_sym_set_out(c, n, 0, g);
}

/* The mask aligned with x's trailing dims: mask covers [at, at + m). */
static oxp_value *align_mask(oxp_sctx *c, oxp_value *mask, int at, int m, int r) {
  int extra = r - at - m;
  if (extra <= 0) return mask;
  int64_t axes[OXP_MAX_STATIC_RANK];
  for (int i = 0; i < extra; i++) axes[i] = m + i;
  return oxp_sym_unsqueeze(c, mask, axes, extra);
}

/* index_put(x, indices, values, accumulate) and index_put_. */
oxp_status oxp_s_index_put(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  oxp_ix ix;
  bool acc = false;
  if (!x || !read_indices(c, n, 1, &ix)) return oxp_sym_status(c);
  if (n->ninputs > 3 && !oxp_sym_bool(n, 3, &acc))
    return oxp_sym_unsupported(c, "index_put with a runtime accumulate flag");
  int r = oxp_sym_rank(x), dt = oxp_sym_dtype(x);
  if (r < 0 || r > OXP_MAX_STATIC_RANK || !dt) return oxp_sym_unsupported(c, "index_put on a tensor of unknown rank");
  oxp_value *v = oxp_sym_in_as(c, n, 2, dt);
  if (!v) return oxp_sym_status(c);
  const oxp_type *vt = oxp_sym_in_type(n, 2);
  bool one = vt && (vt->kind != OXP_T_TENSOR || oxp_type_numel(vt) == 1);
  if (ix.mask && one) {
    /* x[mask] = scalar: Where, no opset limit. */
    oxp_value *m = align_mask(c, ix.mask, ix.mask_at, ix.mask_rank, r);
    oxp_value *nv = acc ? oxp_sym_op2(c, "Add", x, v) : v;
    return oxp_sym_set_out(c, n, 0, oxp_sym_op3(c, "Where", m, nv, x));
  }
  if (oxp_sym_opset(c) < 11)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "%s with tensor indices is not supported at opset %d "
                        "(supported from opset 11)", n->kind, oxp_sym_opset(c));
  if (acc && oxp_sym_opset(c) < 16)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "%s with accumulate=True is not supported at opset %d "
                        "(supported from opset 16)", n->kind, oxp_sym_opset(c));
  if (ix.mask) {
    /* Expand the lone mask into per-dim indices for ScatterND. */
    oxp_value *nz = oxp_sym_op1(c, "NonZero", ix.mask);
    int at = ix.mask_at;
    for (int k = 0; k < ix.mask_rank; k++) {
      ix.dims[ix.k] = at + k;
      ix.idx[ix.k] = oxp_sx_gather(c, nz, oxp_sym_const_i64(c, k), 0);
      oxp_sym_set_type(c, ix.idx[ix.k++], OXP_DT_INT64, 1, NULL);
    }
  }
  if (ix.k == 0) return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Expand", v, oxp_sx_shape(c, x)));
  /* Broadcast the indices to one shape B; wrap negatives. */
  int nb = index_rank(&ix), p0 = ix.dims[0];
  oxp_value *sum = NULL;
  for (int k = 0; k < ix.k; k++) {
    ix.idx[k] = wrap(c, ix.idx[k], dim_size(c, x, ix.dims[k]));
    sum = sum ? oxp_sym_op2(c, "Add", sum, ix.idx[k]) : ix.idx[k];
  }
  oxp_value *bshape = oxp_sx_shape(c, sum);
  oxp_value *cols[OXP_MAX_STATIC_RANK];
  static const int64_t last = -1;
  for (int k = 0; k < ix.k; k++)
    cols[k] = oxp_sym_unsqueeze(c, oxp_sym_op2(c, "Expand", ix.idx[k], bshape), &last, 1);
  oxp_value *nd = oxp_sx_concat(c, cols, ix.k, -1); /* [B..., k] */
  int64_t perm[OXP_MAX_STATIC_RANK], inv[OXP_MAX_STATIC_RANK];
  lead_perm(&ix, r, perm);
  bool ident = true;
  for (int d = 0; d < r; d++) ident &= perm[d] == d, inv[perm[d]] = d;
  oxp_value *xt = ident ? x : oxp_sx_transpose(c, x, perm, r);
  /* values broadcast to torch's result shape of x[indices] ... */
  bool adj = adjacent(&ix) && p0 > 0;
  oxp_value *xts = oxp_sx_shape(c, xt), *parts[3];
  static const int64_t zero = 0, big = INT64_MAX;
  int64_t kk = ix.k, pp = p0;
  oxp_value *rest = ix.k < r ? oxp_sym_slice(c, xts, &zero, &kk, &big, NULL, 1) : NULL;
  int np = 0;
  if (adj) {
    oxp_value *xs = oxp_sx_shape(c, x);
    int64_t e = p0 + ix.k;
    parts[np++] = oxp_sym_slice(c, xs, &zero, &zero, &pp, NULL, 1);
    parts[np++] = bshape;
    if (e < r) parts[np++] = oxp_sym_slice(c, xs, &zero, &e, &big, NULL, 1);
  } else {
    parts[np++] = bshape;
    if (rest) parts[np++] = rest;
  }
  oxp_value *vals = oxp_sym_op2(c, "Expand", v, oxp_sx_concat(c, parts, np, 0));
  if (adj) {
    /* ... then laid out as ScatterND wants: B + others. */
    int out_r = r - ix.k + nb;
    int64_t q[OXP_MAX_STATIC_RANK];
    int m = 0;
    for (int i = 0; i < nb; i++) q[m++] = p0 + i;
    for (int i = 0; i < p0; i++) q[m++] = i;
    for (int i = p0 + nb; i < out_r; i++) q[m++] = i;
    vals = oxp_sx_transpose(c, vals, q, out_r);
  }
  oxp_node *s = xt && nd && vals ? oxp_sym_op(c, "ScatterND", (oxp_value *[]){xt, nd, vals}, 3, 1) : NULL;
  if (!s) return oxp_sym_status(c);
  if (acc) oxp_attr_set_s(s, "reduction", "add");
  oxp_value *y = s->outputs[0];
  oxp_sym_set_type(c, y, dt, r, NULL);
  return oxp_sym_set_out(c, n, 0, ident ? y : oxp_sx_transpose(c, y, inv, r));
}
