/* s_reduce.c: reductions over dims (sum, mean, prod, amax/amin, max/min
 * with indices, argmax/argmin, all/any, logsumexp) and cumsum, with
 * keepdim, dim lists and dtype arguments. oxp_sym_reduce emits the
 * opset's Reduce* form (axes as attribute, or as input from 13 for
 * ReduceSum and from 18 for the rest). */
#include <string.h>

#include "s_math_util.h"

/* Bring x to the traced output dtype when torch widened it (sums and
 * products of bools and small ints are int64). */
static oxp_value *to_out(oxp_sctx *c, oxp_node *n, int i, oxp_value *x) {
  int out = oxp_sym_out_dtype(n, i, 0);
  if (!out && x && (oxp_kind_is(n, "aten::sum") || oxp_kind_is(n, "aten::prod") ||
                    oxp_kind_is(n, "aten::cumsum"))) {
    /* untyped output: the schema's rule on the input's dtype */
    int in = oxp_sym_need_dtype(c, x);
    if (!in) return NULL;
    out = oxp_dtype_is_float(in) ? in : OXP_DT_INT64;
  }
  return out ? oxp_m_to(c, x, out) : x;
}

/* ReduceMax/Min/ArgMax know no bool, and int8/uint8 only from 12: such
 * inputs go through int32. */
static int order_dtype(oxp_sctx *c, int dt) {
  if (dt == OXP_DT_BOOL || dt == OXP_DT_INT16 || dt == OXP_DT_UINT16 ||
      ((dt == OXP_DT_INT8 || dt == OXP_DT_UINT8) && oxp_sym_opset(c) < 12))
    return OXP_DT_INT32;
  return dt;
}

/* sum/mean/prod(x, dtype) over everything, or (x, dims, keepdim, dtype);
 * an empty dim list reduces everything too. prod takes one dim at most. */
static oxp_status reduce_dims(oxp_sctx *c, oxp_node *n, const char *op,
                              bool many_dims) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int64_t *dims = NULL;
  int k = 0;
  bool keep = false;
  int i_dtype = 1;
  if (n->ninputs >= 4) {
    if (!oxp_m_dims(c, n, 1, x, many_dims, &dims, &k)) return oxp_sym_status(c);
    if (!oxp_sym_bool(n, 2, &keep))
      return oxp_sym_unsupported(c, "a runtime keepdim");
    i_dtype = 3;
  }
  if (!oxp_m_dtype_arg(c, n, i_dtype, &x)) return oxp_sym_status(c);
  x = to_out(c, n, 0, x);
  if (x && strcmp(op, "ReduceMean") == 0) {
    int dt = oxp_sym_need_dtype(c, x);
    if (!dt) return oxp_sym_status(c);
    return oxp_m_set_out(c, n, 0, oxp_m_mean(c, x, dims, k, keep, dt));
  }
  return oxp_m_set_out(c, n, 0, oxp_sym_reduce(c, op, x, dims, k, keep));
}

oxp_status oxp_s_mean(oxp_sctx *c, oxp_node *n) { return reduce_dims(c, n, "ReduceMean", true); }
oxp_status oxp_s_sum(oxp_sctx *c, oxp_node *n) { return reduce_dims(c, n, "ReduceSum", true); }
oxp_status oxp_s_prod(oxp_sctx *c, oxp_node *n) { return reduce_dims(c, n, "ReduceProd", false); }

/* Max or min of x over dims, in x's own dtype. */
static oxp_value *order_reduce(oxp_sctx *c, bool is_max, oxp_value *x,
                               const int64_t *dims, int k, bool keep) {
  int dt = oxp_sym_dtype(x), w = order_dtype(c, dt);
  oxp_value *r = oxp_sym_reduce(c, is_max ? "ReduceMax" : "ReduceMin",
                                oxp_m_to(c, x, w), dims, k, keep);
  oxp_sym_set_type(c, r, w, -1, NULL);
  return oxp_m_to(c, r, dt);
}

/* amax/amin(x, dims, keepdim): an empty dim list means every dim. */
static oxp_status amaxmin(oxp_sctx *c, oxp_node *n, bool is_max) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int64_t *dims;
  int k;
  bool keep = false;
  if (!oxp_m_dims(c, n, 1, x, true, &dims, &k)) return oxp_sym_status(c);
  if (n->ninputs > 2 && !oxp_sym_bool(n, 2, &keep))
    return oxp_sym_unsupported(c, "a runtime keepdim");
  return oxp_m_set_out(c, n, 0, order_reduce(c, is_max, x, dims, k, keep));
}

oxp_status oxp_s_amax(oxp_sctx *c, oxp_node *n) { return amaxmin(c, n, true); }
oxp_status oxp_s_amin(oxp_sctx *c, oxp_node *n) { return amaxmin(c, n, false); }

/* aminmax(x, dim?, keepdim) -> (min, max). */
oxp_status oxp_s_aminmax(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int64_t *dims;
  int k;
  bool keep = false;
  if (!oxp_m_dims(c, n, 1, x, false, &dims, &k)) return oxp_sym_status(c);
  if (n->ninputs > 2 && !oxp_sym_bool(n, 2, &keep))
    return oxp_sym_unsupported(c, "a runtime keepdim");
  oxp_status st = oxp_m_set_out(c, n, 0, order_reduce(c, false, x, dims, k, keep));
  if (st) return st;
  return oxp_m_set_out(c, n, 1, order_reduce(c, true, x, dims, k, keep));
}

/* ArgMax/ArgMin of x along axis. */
static oxp_value *arg_reduce(oxp_sctx *c, bool is_max, oxp_value *x,
                             int64_t axis, bool keep) {
  x = oxp_m_to(c, x, order_dtype(c, oxp_sym_dtype(x)));
  oxp_node *a = x ? oxp_sym_op(c, is_max ? "ArgMax" : "ArgMin", &x, 1, 1) : NULL;
  if (!a) return NULL;
  oxp_attr_set_i(a, "axis", axis);
  oxp_attr_set_i(a, "keepdims", keep);
  oxp_sym_set_type(c, a->outputs[0], OXP_DT_INT64, -1, NULL);
  return a->outputs[0];
}

/* max/min(x) over everything; (x, other) elementwise; (x, dim, keepdim)
 * -> (values, indices). */
static oxp_status maxmin(oxp_sctx *c, oxp_node *n, bool is_max) {
  if (n->ninputs == 2)
    return is_max ? oxp_s_maximum(c, n) : oxp_s_minimum(c, n);
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  if (n->ninputs == 1)
    return oxp_m_set_out(c, n, 0, order_reduce(c, is_max, x, NULL, 0, false));
  int64_t *dims;
  int k;
  bool keep = false;
  if (!oxp_m_dims(c, n, 1, x, false, &dims, &k)) return oxp_sym_status(c);
  if (!oxp_sym_bool(n, 2, &keep)) return oxp_sym_unsupported(c, "a runtime keepdim");
  int64_t axis = k ? dims[0] : 0;
  oxp_status st = oxp_m_set_out(c, n, 0, order_reduce(c, is_max, x, dims, k, keep));
  if (st || n->noutputs < 2) return st;
  if (!k) return oxp_m_set_out(c, n, 1, oxp_sym_const_i64(c, 0));
  return oxp_m_set_out(c, n, 1, arg_reduce(c, is_max, x, axis, keep));
}

oxp_status oxp_s_max(oxp_sctx *c, oxp_node *n) { return maxmin(c, n, true); }
oxp_status oxp_s_min(oxp_sctx *c, oxp_node *n) { return maxmin(c, n, false); }

/* argmax/argmin(x, dim?, keepdim). Without a dim torch flattens; keepdim
 * then keeps every dim as 1. */
static oxp_status argmaxmin(oxp_sctx *c, oxp_node *n, bool is_max) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  bool keep = false;
  if (n->ninputs > 2 && !oxp_sym_bool(n, 2, &keep))
    return oxp_sym_unsupported(c, "a runtime keepdim");
  int64_t *dims;
  int k;
  if (!oxp_m_dims(c, n, 1, x, false, &dims, &k)) return oxp_sym_status(c);
  if (k) return oxp_m_set_out(c, n, 0, arg_reduce(c, is_max, x, dims[0], keep));
  int r = oxp_sym_rank(x);
  static const int64_t flat = -1;
  oxp_value *f = oxp_sym_op2(c, "Reshape", x, oxp_sym_const_i64s(c, &flat, 1));
  oxp_sym_set_type(c, f, oxp_sym_dtype(x), 1, NULL);
  oxp_value *y = arg_reduce(c, is_max, f, 0, false);
  if (!keep || r == 0) return oxp_m_set_out(c, n, 0, y);
  if (r < 0) return oxp_sym_unsupported(c, "keepdim without dim on a tensor of unknown rank");
  if (r > 16) return oxp_sym_unsupported(c, "keepdim without dim on a tensor of rank above 16");
  int64_t ones[16];
  for (int i = 0; i < r; i++) ones[i] = 1;
  return oxp_m_set_out(c, n, 0,
      oxp_sym_op2(c, "Reshape", y, oxp_sym_const_i64s(c, ones, r)));
}

oxp_status oxp_s_argmax(oxp_sctx *c, oxp_node *n) { return argmaxmin(c, n, true); }
oxp_status oxp_s_argmin(oxp_sctx *c, oxp_node *n) { return argmaxmin(c, n, false); }

/* all/any(x[, dim, keepdim]): any is "the count of true values is
 * positive"; all is not any of the negation (so empty tensors give
 * torch's true / false). */
static oxp_status all_any(oxp_sctx *c, oxp_node *n, bool all) {
  oxp_value *b = oxp_sym_in_as(c, n, 0, OXP_DT_BOOL);
  if (!b) return oxp_sym_status(c);
  int64_t *dims = NULL;
  int k = 0;
  bool keep = false;
  if (n->ninputs >= 3) {
    if (!oxp_m_dims(c, n, 1, b, false, &dims, &k)) return oxp_sym_status(c);
    if (!oxp_sym_bool(n, 2, &keep)) return oxp_sym_unsupported(c, "a runtime keepdim");
  }
  if (all) b = oxp_sym_op1(c, "Not", b);
  oxp_value *cnt = oxp_sym_reduce(c, "ReduceSum", oxp_sym_cast(c, b, OXP_DT_INT32),
                                  dims, k, keep);
  oxp_value *y = oxp_sym_op2(c, "Greater", cnt, oxp_sym_const_scalar(c, 0, OXP_DT_INT32));
  if (all) y = oxp_sym_op1(c, "Not", y);
  oxp_sym_set_type(c, y, OXP_DT_BOOL, -1, NULL);
  return oxp_m_set_out(c, n, 0, to_out(c, n, 0, y));
}

oxp_status oxp_s_all(oxp_sctx *c, oxp_node *n) { return all_any(c, n, true); }
oxp_status oxp_s_any(oxp_sctx *c, oxp_node *n) { return all_any(c, n, false); }

/* logsumexp(x, dims, keepdim), in the (float) output dtype. */
oxp_status oxp_s_logsumexp(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_sym_need_out_dtype(c, n, 0);
  oxp_value *x = oxp_sym_in_as(c, n, 0, dt);
  if (!x) return oxp_sym_status(c);
  int64_t *dims;
  int k;
  bool keep = false;
  if (!oxp_m_dims(c, n, 1, x, false, &dims, &k)) return oxp_sym_status(c);
  if (n->ninputs > 2 && !oxp_sym_bool(n, 2, &keep))
    return oxp_sym_unsupported(c, "a runtime keepdim");
  return oxp_m_set_out(c, n, 0, oxp_sym_reduce(c, "ReduceLogSumExp", x, dims, k, keep));
}

/* cumsum(x, dim, dtype): CumSum (opset 11) takes the axis as a tensor. */
oxp_status oxp_s_cumsum(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int64_t *dims;
  int k;
  if (!oxp_m_dims(c, n, 1, x, false, &dims, &k)) return oxp_sym_status(c);
  if (!oxp_m_dtype_arg(c, n, 2, &x)) return oxp_sym_status(c);
  x = to_out(c, n, 0, x);
  if (!k) return oxp_m_set_out(c, n, 0, x);  /* a 0-d tensor */
  return oxp_m_set_out(c, n, 0,
      oxp_sym_op2(c, "CumSum", x, oxp_sym_const_i64(c, dims[0])));
}
