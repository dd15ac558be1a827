/* s_linalg.c: linear algebra beyond matmul/mm/bmm/addmm (s_arith.c): mv,
 * dot, outer, baddbmm, einsum, tensordot, cross, cdist,
 * pairwise_distance, cosine_similarity, det, logdet. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "s_shape_util.h"

/* mv / dot: MatMul handles the 2-D x 1-D and 1-D x 1-D cases. */
oxp_status oxp_s_mv(oxp_sctx *c, oxp_node *n) {
  oxp_value *a = oxp_sym_in(c, n, 0);
  oxp_value *b = a ? oxp_sym_in(c, n, 1) : NULL;
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "MatMul", a, b));
}

/* outer(a, b) = a[:, None] * b. */
oxp_status oxp_s_outer(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_sym_need_out_dtype(c, n, 0);
  static const int64_t one = 1;
  oxp_value *a = oxp_sym_in_as(c, n, 0, dt);
  oxp_value *b = a ? oxp_sym_in_as(c, n, 1, dt) : NULL;
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Mul", oxp_sym_unsqueeze(c, a, &one, 1), b));
}

/* baddbmm(input, b1, b2, beta, alpha) = beta * input + alpha * b1 @ b2. */
oxp_status oxp_s_baddbmm(oxp_sctx *c, oxp_node *n) {
  oxp_value *in = oxp_sym_in(c, n, 0);
  oxp_value *a = in ? oxp_sym_in(c, n, 1) : NULL, *b = a ? oxp_sym_in(c, n, 2) : NULL;
  if (!b) return oxp_sym_status(c);
  int dt = oxp_sym_out_dtype(n, 0, oxp_sym_dtype(a));
  double beta = 1, alpha = 1;
  if ((!oxp_sym_is_none(n, 3) && !oxp_sym_float(n, 3, &beta)) ||
      (!oxp_sym_is_none(n, 4) && !oxp_sym_float(n, 4, &alpha)))
    return oxp_sym_unsupported(c, "baddbmm with a runtime beta or alpha");
  oxp_value *p = oxp_sym_op2(c, "MatMul", a, b);
  if (alpha != 1) p = oxp_sym_op2(c, "Mul", p, oxp_sym_const_scalar(c, alpha, dt));
  if (beta == 0) return oxp_sym_set_out(c, n, 0, p);
  if (beta != 1) in = oxp_sym_op2(c, "Mul", in, oxp_sym_const_scalar(c, beta, dt));
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Add", in, p));
}

/* einsum(equation, tensors, path). */
/* The rank of einsum's result: its letters after "->", or without one the
 * letters that occur once; -1 with an ellipsis. */
static int einsum_rank(const char *eq) {
  if (strstr(eq, "...")) return -1;
  const char *arrow = strstr(eq, "->");
  int r = 0;
  if (arrow) {
    for (const char *p = arrow + 2; *p; p++) r += (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z');
    return r;
  }
  int seen[128] = {0};
  for (const char *p = eq; *p; p++)
    if ((unsigned char)*p < 128) seen[(unsigned char)*p]++;
  for (int ch = 0; ch < 128; ch++)
    r += seen[ch] == 1 && ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'));
  return r;
}

oxp_status oxp_s_einsum(oxp_sctx *c, oxp_node *n) {
  const char *eq;
  oxp_value **v;
  int cnt;
  if (!oxp_sym_str(n, 0, &eq)) return oxp_sym_unsupported(c, "einsum with a runtime equation");
  if (!oxp_sym_in_list(c, n, 1, &v, &cnt)) return oxp_sym_status(c);
  /* The result dtype: the declared one (operands cast to it), else the
   * operands' common one; a scripted einsum of operands of unknown or
   * different dtypes is an error, not a guess. */
  int dt = oxp_sym_out_dtype(n, 0, 0);
  for (int i = 0; !dt && i < cnt; i++) {
    int d = oxp_sym_dtype(v[i]);
    if (!d || (i > 0 && d != oxp_sym_dtype(v[0])))
      return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "aten::einsum: the result dtype is unknown "
                          "(operands of unknown or different dtypes)");
    if (i == cnt - 1) dt = d;
  }
  for (int i = 0; dt && i < cnt; i++)
    if (oxp_sym_dtype(v[i]) != dt && !(v[i] = oxp_sym_cast(c, v[i], dt))) return oxp_sym_status(c);
  oxp_node *e = oxp_sym_op(c, "Einsum", v, cnt, 1);
  if (!e) return oxp_sym_status(c);
  oxp_attr_set_s(e, "equation", eq);
  oxp_sym_set_type(c, e->outputs[0], dt, einsum_rank(eq), NULL);
  return oxp_sym_set_out(c, n, 0, e->outputs[0]);
}

/* tensordot(a, b, dims_a, dims_b) as an Einsum: a's dims get letters,
 * b's contracted dims reuse a's, the free dims follow in order. */
oxp_status oxp_s_tensordot(oxp_sctx *c, oxp_node *n) {
  oxp_value *a = oxp_sym_in(c, n, 0);
  oxp_value *b = a ? oxp_sym_in(c, n, 1) : NULL;
  int64_t *da, *db;
  int ka, kb;
  if (!b || !oxp_sym_need_ints(c, n, 2, &da, &ka) || !oxp_sym_need_ints(c, n, 3, &db, &kb))
    return oxp_sym_status(c);
  int ra = oxp_sym_rank(a), rb = oxp_sym_rank(b);
  if (ra < 0 || rb < 0 || ra + rb > 26 || ka != kb)
    return oxp_sym_unsupported(c, "tensordot of tensors of unknown or large rank");
  char la[27] = {0}, lb[27] = {0}, out[27] = {0}, eq[96];
  for (int i = 0; i < ra; i++) la[i] = (char)('a' + i);
  for (int i = 0; i < rb; i++) lb[i] = (char)('a' + ra + i);
  bool ca[26] = {0}, cb[26] = {0};
  for (int i = 0; i < ka; i++) {
    int64_t x, y;
    if (!oxp_sym_axis(da[i], ra, &x) || !oxp_sym_axis(db[i], rb, &y))
      return oxp_sym_fail(c, OXP_ERR_GRAPH, "tensordot: dim out of range");
    lb[y] = la[x];
    ca[x] = cb[y] = true;
  }
  int m = 0;
  for (int i = 0; i < ra; i++)
    if (!ca[i]) out[m++] = la[i];
  for (int i = 0; i < rb; i++)
    if (!cb[i]) out[m++] = lb[i];
  snprintf(eq, sizeof eq, "%s,%s->%s", la, lb, out);
  /* torch's tensordot takes operands of one dtype; typed here, as Einsum
   * has no rule in shape inference (a scripted graph's output came out
   * without an elem_type: difftest tensordot-script-type) */
  int dt = oxp_sym_out_dtype(n, 0, 0);
  if (!dt && oxp_sym_dtype(a) && oxp_sym_dtype(a) == oxp_sym_dtype(b)) dt = oxp_sym_dtype(a);
  if (!dt)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "aten::tensordot: the result dtype is unknown "
                        "(operands of unknown or different dtypes)");
  oxp_node *e = oxp_sym_op(c, "Einsum", (oxp_value *[]){a, b}, 2, 1);
  if (!e) return oxp_sym_status(c);
  oxp_attr_set_s(e, "equation", eq);
  oxp_sym_set_type(c, e->outputs[0], dt, m, NULL);
  return oxp_sym_set_out(c, n, 0, e->outputs[0]);
}

/* x rolled by s (1 or 2) along a dim of size 3: Gather [s, s+1, s+2] % 3. */
static oxp_value *rot3(oxp_sctx *c, oxp_value *x, int64_t dim, int s) {
  int64_t idx[3] = {s % 3, (s + 1) % 3, (s + 2) % 3};
  return oxp_sx_gather(c, x, oxp_sym_const_i64s(c, idx, 3), dim);
}

/* cross(a, b, dim) / linalg_cross: a[i+1] b[i+2] - a[i+2] b[i+1]. cross
 * with dim None takes the first dim of size 3. */
oxp_status oxp_s_cross(oxp_sctx *c, oxp_node *n) {
  oxp_value *a = oxp_sym_in(c, n, 0);
  oxp_value *b = a ? oxp_sym_in(c, n, 1) : NULL;
  if (!b) return oxp_sym_status(c);
  const oxp_type *ot = oxp_sym_out_type(n, 0);
  int r = ot && ot->kind == OXP_T_TENSOR ? ot->rank : oxp_sym_rank(a);
  int64_t dim = -1;
  if (oxp_sym_is_none(n, 2)) {
    for (int i = 0; ot && i < r && dim < 0; i++)
      if (ot->dims[i] == 3) dim = i;
    if (dim < 0) return oxp_sym_unsupported(c, "cross without a dim on unknown shapes");
  } else if (!oxp_sx_axis_arg(c, n, 2, r, &dim)) {
    return oxp_sym_status(c);
  }
  /* Broadcast first, so both Gathers see the same rank. */
  oxp_value *ae = oxp_sym_op2(c, "Expand", a, oxp_sx_shape(c, b));
  oxp_value *be = oxp_sym_op2(c, "Expand", b, oxp_sx_shape(c, ae));
  oxp_value *p = oxp_sym_op2(c, "Mul", rot3(c, ae, dim, 1), rot3(c, be, dim, 2));
  oxp_value *q = oxp_sym_op2(c, "Mul", rot3(c, ae, dim, 2), rot3(c, be, dim, 1));
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Sub", p, q));
}

/* The p-norm of d over axis (keepdims as given). */
static oxp_value *pnorm(oxp_sctx *c, oxp_value *d, double p, int64_t axis, bool keep, int dt) {
  if (p == 1) return oxp_sym_reduce(c, "ReduceL1", d, &axis, 1, keep);
  if (p == 2) return oxp_sym_reduce(c, "ReduceL2", d, &axis, 1, keep);
  oxp_value *ad = oxp_sym_op1(c, "Abs", d);
  if (isinf(p)) return oxp_sym_reduce(c, "ReduceMax", ad, &axis, 1, keep);
  if (p == 0) {
    oxp_value *nz = oxp_sym_cast(c, oxp_sym_op1(c, "Not", oxp_sym_op2(c, "Equal", ad,
                                 oxp_sym_const_scalar(c, 0, dt))), dt);
    return oxp_sym_reduce(c, "ReduceSum", nz, &axis, 1, keep);
  }
  oxp_value *s = oxp_sym_op2(c, "Pow", ad, oxp_sym_const_scalar(c, p, dt));
  s = oxp_sym_reduce(c, "ReduceSum", s, &axis, 1, keep);
  return oxp_sym_op2(c, "Pow", s, oxp_sym_const_scalar(c, 1 / p, dt));
}

/* cdist(x1 [.., P, M], x2 [.., R, M], p, mode): the p-norm of every
 * difference x1[:, i] - x2[:, j], computed directly (exact for any p). */
oxp_status oxp_s_cdist(oxp_sctx *c, oxp_node *n) {
  oxp_value *a = oxp_sym_in(c, n, 0);
  oxp_value *b = a ? oxp_sym_in(c, n, 1) : NULL;
  double p = 2;
  if (!b) return oxp_sym_status(c);
  if (!oxp_sym_float(n, 2, &p)) return oxp_sym_unsupported(c, "cdist with a runtime p");
  int ra = oxp_sym_rank(a), rb = oxp_sym_rank(b);
  if (ra < 2 || rb < 2) return oxp_sym_unsupported(c, "cdist of tensors of unknown rank");
  int64_t ax_a = ra - 1, ax_b = rb - 2;
  oxp_value *d = oxp_sym_op2(c, "Sub", oxp_sym_unsqueeze(c, a, &ax_a, 1), oxp_sym_unsqueeze(c, b, &ax_b, 1));
  int dt = oxp_sym_out_dtype(n, 0, oxp_sym_dtype(a));
  int rd = (ra > rb ? ra : rb) + 1; /* the differences' rank */
  return oxp_sym_set_out(c, n, 0, pnorm(c, d, p, rd - 1, false, dt));
}

/* pairwise_distance(x1, x2, p, eps, keepdim) = ||x1 - x2 + eps||_p. */
oxp_status oxp_s_pairwise_distance(oxp_sctx *c, oxp_node *n) {
  oxp_value *a = oxp_sym_in(c, n, 0);
  oxp_value *b = a ? oxp_sym_in(c, n, 1) : NULL;
  double p, eps;
  bool keep;
  if (!b) return oxp_sym_status(c);
  if (!oxp_sym_float(n, 2, &p) || !oxp_sym_float(n, 3, &eps) || !oxp_sym_bool(n, 4, &keep))
    return oxp_sym_unsupported(c, "pairwise_distance with runtime arguments");
  int dt = oxp_sym_out_dtype(n, 0, oxp_sym_dtype(a));
  oxp_value *d = oxp_sym_op2(c, "Add", oxp_sym_op2(c, "Sub", a, b), oxp_sym_const_scalar(c, eps, dt));
  int r = oxp_sym_rank(a) > oxp_sym_rank(b) ? oxp_sym_rank(a) : oxp_sym_rank(b);
  if (r < 0) return oxp_sym_unsupported(c, "pairwise_distance of unknown rank");
  return oxp_sym_set_out(c, n, 0, pnorm(c, d, p, r - 1, keep, dt));
}

/* cosine_similarity(x1, x2, dim, eps): each side divided by its norm
 * clamped to eps, then the sum of products (torch 1.13's formula). */
oxp_status oxp_s_cosine_similarity(oxp_sctx *c, oxp_node *n) {
  oxp_value *a = oxp_sym_in(c, n, 0);
  oxp_value *b = a ? oxp_sym_in(c, n, 1) : NULL;
  int64_t dim;
  double eps;
  if (!b || !oxp_sym_need_int(c, n, 2, &dim)) return oxp_sym_status(c);
  if (!oxp_sym_float(n, 3, &eps)) return oxp_sym_unsupported(c, "cosine_similarity with a runtime eps");
  int dt = oxp_sym_out_dtype(n, 0, oxp_sym_dtype(a));
  int r = oxp_sym_rank(a) > oxp_sym_rank(b) ? oxp_sym_rank(a) : oxp_sym_rank(b);
  if (dim < 0) {
    if (r < 0) return oxp_sym_unsupported(c, "cosine_similarity along a negative dim of unknown rank");
    dim += r;
  }
  /* torch broadcasts a and b before it takes their norms: a norm along
   * dim of a size-1 (or missing) dim is not the broadcast one's. */
  int64_t da[OXP_MAX_STATIC_RANK], db[OXP_MAX_STATIC_RANK];
  int ra, rb;
  bool same = oxp_sx_dims(a, da, &ra) && oxp_sx_dims(b, db, &rb) && ra == rb &&
              memcmp(da, db, sizeof *da * (size_t)ra) == 0;
  if (!same) {
    a = oxp_sym_op2(c, "Expand", a, oxp_sym_op1(c, "Shape", b));
    b = oxp_sym_op2(c, "Expand", b, oxp_sym_op1(c, "Shape", a));
  }
  oxp_value *e = oxp_sym_const_scalar(c, eps, dt);
  oxp_value *na = oxp_sym_op2(c, "Max", oxp_sym_reduce(c, "ReduceL2", a, &dim, 1, true), e);
  oxp_value *nb = oxp_sym_op2(c, "Max", oxp_sym_reduce(c, "ReduceL2", b, &dim, 1, true), e);
  oxp_value *prod = oxp_sym_op2(c, "Mul", oxp_sym_op2(c, "Div", a, na), oxp_sym_op2(c, "Div", b, nb));
  return oxp_sym_set_out(c, n, 0, oxp_sym_reduce(c, "ReduceSum", prod, &dim, 1, false));
}

/* linalg_det = Det (torch normalizes det to linalg_det when tracing and
 * scripting, so no aten::det reaches the exporter); logdet = Log(Det)
 * (NaN for a negative det, as in torch). */
oxp_status oxp_s_det(oxp_sctx *c, oxp_node *n) {
  oxp_value *d = oxp_sym_op1(c, "Det", oxp_sym_in(c, n, 0));
  if (oxp_kind_is(n, "aten::logdet")) d = oxp_sym_op1(c, "Log", d);
  return oxp_sym_set_out(c, n, 0, d);
}
