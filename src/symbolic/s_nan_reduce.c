/* s_nan_reduce.c: reductions that skip NaN (nansum, nanmean) and
 * count_nonzero, which no torch exporter maps: NaN becomes 0 before a
 * ReduceSum, and nanmean divides by the count of non-NaN elements (NaN
 * when there is none, as torch's 0 / 0). */
#include "s_math_util.h"

static oxp_value *k(oxp_sctx *c, double v, int dt) {
  return oxp_sym_const_scalar(c, v, dt);
}

/* (x, dim, keepdim, dtype): dims read, dtype applied. */
static bool args(oxp_sctx *c, oxp_node *n, oxp_value **x, int64_t **dims,
                 int *nd, bool *keep) {
  *x = oxp_sym_in(c, n, 0);
  *keep = false;
  if (!*x || !oxp_m_dims(c, n, 1, *x, true, dims, nd)) return false;
  if (n->ninputs > 2 && !oxp_sym_is_none(n, 2) && !oxp_sym_bool(n, 2, keep)) {
    oxp_sym_unsupported(c, "a runtime keepdim");
    return false;
  }
  return n->ninputs <= 3 || oxp_m_dtype_arg(c, n, 3, x);
}

static oxp_value *nan_to_zero(oxp_sctx *c, oxp_value *x, int dt) {
  if (!oxp_dtype_is_float(dt)) return x;
  return oxp_sym_op3(c, "Where", oxp_sym_op1(c, "IsNaN", x), k(c, 0, dt), x);
}

oxp_status oxp_s_nansum(oxp_sctx *c, oxp_node *n) {
  oxp_value *x;
  int64_t *dims;
  int nd;
  bool keep;
  if (!args(c, n, &x, &dims, &nd, &keep)) return oxp_sym_status(c);
  int dt = oxp_sym_out_dtype(n, 0, 0);
  if (!dt) {
    int in = oxp_sym_need_dtype(c, x);
    if (!in) return oxp_sym_status(c);
    dt = oxp_dtype_is_float(in) ? in : OXP_DT_INT64;
  }
  x = oxp_m_to(c, x, dt);
  int w = oxp_m_arith_dtype(c, dt);
  oxp_value *s = oxp_sym_reduce(c, "ReduceSum", oxp_m_to(c, nan_to_zero(c, x, dt), w),
                                dims, nd, keep);
  oxp_sym_set_type(c, s, w, -1, NULL);
  return oxp_m_set_out(c, n, 0, oxp_m_to(c, s, dt));
}

oxp_status oxp_s_nanmean(oxp_sctx *c, oxp_node *n) {
  oxp_value *x;
  int64_t *dims;
  int nd;
  bool keep;
  if (!args(c, n, &x, &dims, &nd, &keep)) return oxp_sym_status(c);
  int dt = oxp_sym_need_dtype(c, x);
  if (!dt) return oxp_sym_status(c);
  if (!oxp_dtype_is_float(dt))
    return oxp_sym_unsupported(c, "nanmean of a non-float tensor (torch refuses it too)");
  oxp_value *s = oxp_sym_reduce(c, "ReduceSum", nan_to_zero(c, x, dt), dims, nd, keep);
  oxp_value *cnt = oxp_sym_reduce(c, "ReduceSum",
      oxp_sym_cast(c, oxp_sym_op1(c, "Not", oxp_sym_op1(c, "IsNaN", x)), dt),
      dims, nd, keep);
  return oxp_m_set_out(c, n, 0, oxp_sym_op2(c, "Div", s, cnt));
}

/* count_nonzero(x, dim): int64 count of x != 0 (NaN counts). */
oxp_status oxp_s_count_nonzero(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int dt = x ? oxp_sym_need_dtype(c, x) : 0;
  int64_t *dims;
  int nd;
  if (!dt || !oxp_m_dims(c, n, 1, x, false, &dims, &nd)) return oxp_sym_status(c);
  oxp_value *nz;
  if (dt == OXP_DT_BOOL) nz = x;
  else nz = oxp_sym_op1(c, "Not", oxp_m_compare(c, "Equal", x, k(c, 0, dt), dt));
  return oxp_m_set_out(c, n, 0, oxp_sym_reduce(c, "ReduceSum",
                       oxp_sym_cast(c, nz, OXP_DT_INT64), dims, nd, false));
}
