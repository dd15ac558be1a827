/* s_reduce.c: reductions over dims (mean, sum), with keepdim and dtype. */
#include "ops.h"

/* mean/sum(x, dtype) over everything, or (x, dims, keepdim, dtype). */
static oxp_status reduce(oxp_sctx *c, oxp_node *n, const char *op) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int64_t *dims = NULL;
  int k = 0;
  bool keep = false;
  int i_dtype = 1;
  const oxp_type *t1 = oxp_sym_in_type(n, 1);
  bool has_dims = n->ninputs >= 3 && t1 &&
                  (t1->kind == OXP_T_LIST || t1->kind == OXP_T_OPTIONAL ||
                   t1->kind == OXP_T_NONE || (t1->kind == OXP_T_INT && n->ninputs == 4));
  if (has_dims) {
    if (!oxp_sym_is_none(n, 1) && !oxp_sym_need_ints(c, n, 1, &dims, &k))
      return oxp_sym_status(c);
    if (!oxp_sym_bool(n, 2, &keep))
      return oxp_sym_unsupported(c, "a runtime keepdim");
    i_dtype = 3;
  }
  int64_t st;
  if (i_dtype < n->ninputs && !oxp_sym_is_none(n, i_dtype)) {
    if (!oxp_sym_int(n, i_dtype, &st) || !oxp_dtype_from_scalar_type(st))
      return oxp_sym_unsupported(c, "a runtime dtype argument");
    x = oxp_sym_cast(c, x, oxp_dtype_from_scalar_type(st));
  }
  /* torch sums bools and small ints in int64; the traced type says so. */
  int out_dt = oxp_sym_out_dtype(n, 0, 0);
  int in_dt = oxp_sym_dtype(x);
  if (out_dt && in_dt && in_dt != out_dt &&
      (in_dt == OXP_DT_BOOL || oxp_dtype_is_int(in_dt)))
    x = oxp_sym_cast(c, x, out_dt);
  return oxp_sym_set_out(c, n, 0, oxp_sym_reduce(c, op, x, dims, k, keep));
}

oxp_status oxp_s_mean(oxp_sctx *c, oxp_node *n) { return reduce(c, n, "ReduceMean"); }
oxp_status oxp_s_sum(oxp_sctx *c, oxp_node *n) { return reduce(c, n, "ReduceSum"); }
