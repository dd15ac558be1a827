/* s_reduce_norm.c: norm, frobenius_norm and the linalg_*norm ops.
 * Vector p-norms map to ReduceL1 / ReduceL2 / Max|Min of |x| / a count
 * of nonzeros, else (sum |x|^p)^(1/p); matrix norms of order +-1 and
 * +-inf are a max/min of absolute row or column sums. Norms that need
 * singular values (2, -2, 'nuc') have no ONNX form. */
#include <math.h>
#include <string.h>

#include "s_math_util.h"

/* aten::norm over no elements is 0 for every p (torch 1.13's norm kernel
 * fills an empty reduction with zeros; linalg_vector_norm refuses p <= 0
 * or inf there instead). Over nothing onnxruntime's ReduceMax fails,
 * ReduceMin gives inf (ONNX 18's rule), and Pow(0, 1/p) of p < 0 is inf:
 * r is replaced by 0 where the run-time count is 0. */
static oxp_value *zero_if_empty(oxp_sctx *c, oxp_value *x, const int64_t *dims,
                                int k, oxp_value *r) {
  oxp_value *none = oxp_m_compare(c, "Equal", oxp_m_count(c, x, dims, k, OXP_DT_INT64),
                                  oxp_sym_const_i64(c, 0), OXP_DT_INT64);
  return oxp_sym_op3(c, "Where", none, oxp_sym_const_scalar(c, 0, oxp_sym_dtype(x)), r);
}

/* The p-norm of x over dims (k == 0: all), in x's float dtype; empty_zero:
 * aten::norm's 0 over no elements. */
static oxp_value *vector_norm(oxp_sctx *c, oxp_value *x, double p,
                              const int64_t *dims, int k, bool keep,
                              bool empty_zero) {
  int dt = oxp_sym_dtype(x);
  if (p == 2) return oxp_sym_reduce(c, "ReduceL2", x, dims, k, keep);
  if (p == 1) return oxp_sym_reduce(c, "ReduceL1", x, dims, k, keep);
  double cnt;
  bool may_be_empty = empty_zero && (p < 0 || isinf(p)) &&
                      !(oxp_m_static_count(c, x, dims, k, &cnt) && cnt > 0);
  oxp_value *ax = oxp_sym_op1(c, "Abs", x);
  oxp_sym_set_type(c, ax, dt, oxp_sym_rank(x), NULL);
  if (isinf(p) && p > 0 && may_be_empty) {
    /* max|x| as -min(-|x|): ReduceMin runs over nothing */
    oxp_value *neg = oxp_sym_op1(c, "Neg", ax);
    oxp_sym_set_type(c, neg, dt, oxp_sym_rank(x), NULL);
    oxp_value *m = oxp_sym_op1(c, "Neg", oxp_sym_reduce(c, "ReduceMin", neg, dims, k, keep));
    return zero_if_empty(c, x, dims, k, m);
  }
  if (isinf(p)) {
    oxp_value *m = oxp_sym_reduce(c, p > 0 ? "ReduceMax" : "ReduceMin", ax, dims, k, keep);
    return may_be_empty ? zero_if_empty(c, x, dims, k, m) : m;
  }
  if (p == 0) {
    oxp_value *nz = oxp_sym_op1(c, "Not", oxp_m_compare(c, "Equal", x,
                                oxp_sym_const_scalar(c, 0, dt), dt));
    return oxp_sym_reduce(c, "ReduceSum", oxp_sym_cast(c, nz, dt), dims, k, keep);
  }
  oxp_value *s = oxp_sym_reduce(c, "ReduceSum",
      oxp_sym_op2(c, "Pow", ax, oxp_sym_const_scalar(c, p, dt)), dims, k, keep);
  oxp_value *r = oxp_sym_op2(c, "Pow", s, oxp_sym_const_scalar(c, 1 / p, dt));
  return may_be_empty ? zero_if_empty(c, x, dims, k, r) : r;
}

/* Matrix norm of order p (+-1, +-inf, or 0 for Frobenius) over the two
 * dims d. */
static oxp_value *matrix_norm(oxp_sctx *c, oxp_node *n, oxp_value *x, double p,
                              const int64_t *d, int k, bool keep) {
  if (k != 2) {
    oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: a matrix norm needs two dims, got %d",
                 n->kind, k);
    return NULL;
  }
  if (d[0] == d[1]) {
    oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: the two dims must differ", n->kind);
    return NULL;
  }
  if (p == 0) return oxp_sym_reduce(c, "ReduceL2", x, d, 2, keep);
  if (fabs(p) != 1 && !isinf(p)) {
    oxp_sym_unsupported(c, "a matrix norm of order 2, -2 or 'nuc' (needs singular values)");
    return NULL;
  }
  /* ord 1: columns summed over d[0], then extreme over d[1]; inf: rows. */
  int64_t sum_ax = isinf(p) ? d[1] : d[0], ext_ax = isinf(p) ? d[0] : d[1];
  oxp_value *ax = oxp_sym_op1(c, "Abs", x);
  oxp_sym_set_type(c, ax, oxp_sym_dtype(x), oxp_sym_rank(x), NULL);
  oxp_value *s = oxp_sym_reduce(c, "ReduceSum", ax, &sum_ax, 1, true);
  oxp_value *e = oxp_sym_reduce(c, p > 0 ? "ReduceMax" : "ReduceMin", s, &ext_ax, 1, true);
  if (keep) return e;
  /* Sorted: onnx's Squeeze-1 shape inference assumes ascending axes. */
  int64_t sq[2] = {d[0] < d[1] ? d[0] : d[1], d[0] < d[1] ? d[1] : d[0]};
  return oxp_sym_squeeze(c, e, sq, 2);
}

/* Input i as a norm order: a number, a string ('fro' -> 0 with
 * *matrix set, 'nuc' -> NAN), or None (def). */
static bool order_arg(oxp_sctx *c, oxp_node *n, int i, double def, double *p,
                      bool *matrix) {
  const char *s;
  *p = def;
  if (i >= n->ninputs || oxp_sym_is_none(n, i)) return true;
  if (oxp_sym_str(n, i, &s)) {
    *matrix = true;
    if (strcmp(s, "fro") == 0) { *p = 0; return true; }
    if (strcmp(s, "nuc") == 0) { *p = NAN; return true; }
    oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: unknown norm order '%s'", n->kind, s);
    return false;
  }
  if (oxp_sym_float(n, i, p)) return true;
  oxp_sym_unsupported(c, "a runtime norm order");
  return false;
}

/* x in the output's float dtype after an optional dtype argument. */
static oxp_value *norm_input(oxp_sctx *c, oxp_node *n, int i_dtype) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x || !oxp_m_dtype_arg(c, n, i_dtype, &x)) return NULL;
  return oxp_m_to(c, x, oxp_sym_out_dtype(n, 0, oxp_sym_dtype(x)));
}

static bool keep_arg(oxp_sctx *c, oxp_node *n, int i, bool *keep) {
  *keep = false;
  if (i >= n->ninputs || oxp_sym_bool(n, i, keep)) return true;
  oxp_sym_unsupported(c, "a runtime keepdim");
  return false;
}

/* norm(x, p) | (x, p, dtype) | (x, p, dims, keepdim[, dtype]). */
oxp_status oxp_s_norm(oxp_sctx *c, oxp_node *n) {
  bool with_dims = n->ninputs >= 4;
  oxp_value *x = norm_input(c, n, with_dims ? 4 : 2);
  double p;
  bool matrix = false, keep = false;
  int64_t *dims = NULL;
  int k = 0;
  if (!x || !order_arg(c, n, 1, 2, &p, &matrix)) return oxp_sym_status(c);
  if (with_dims && (!oxp_m_dims(c, n, 2, x, true, &dims, &k) ||
                    !keep_arg(c, n, 3, &keep)))
    return oxp_sym_status(c);
  if (matrix && p == 0) p = 2;  /* 'fro' over any dims is the 2-norm */
  if (isnan(p)) return oxp_sym_unsupported(c, "the nuclear norm");
  return oxp_m_set_out(c, n, 0, vector_norm(c, x, p, dims, k, keep, true));
}

/* frobenius_norm(x, dims, keepdim). */
oxp_status oxp_s_frobenius_norm(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = norm_input(c, n, -1);
  bool keep;
  int64_t *dims;
  int k;
  if (!x || !oxp_m_dims(c, n, 1, x, true, &dims, &k) || !keep_arg(c, n, 2, &keep))
    return oxp_sym_status(c);
  return oxp_m_set_out(c, n, 0, oxp_sym_reduce(c, "ReduceL2", x, dims, k, keep));
}

/* linalg_vector_norm(x, ord, dim?, keepdim, dtype?). */
oxp_status oxp_s_linalg_vector_norm(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = norm_input(c, n, 4);
  double p;
  bool matrix = false, keep;
  int64_t *dims;
  int k;
  if (!x || !order_arg(c, n, 1, 2, &p, &matrix) ||
      !oxp_m_dims(c, n, 2, x, true, &dims, &k) || !keep_arg(c, n, 3, &keep))
    return oxp_sym_status(c);
  if (matrix) return oxp_sym_unsupported(c, "a string order for a vector norm");
  return oxp_m_set_out(c, n, 0, vector_norm(c, x, p, dims, k, keep, false));
}

static const int64_t last_two[2] = {-2, -1};

/* Dims of a matrix norm (default the last two), normalized. */
static bool matrix_dims(oxp_sctx *c, oxp_node *n, int i, oxp_value *x,
                        int64_t **dims, int *k) {
  if (i < n->ninputs && !oxp_sym_is_none(n, i))
    return oxp_m_dims(c, n, i, x, false, dims, k);
  int r = oxp_sym_rank(x);
  if (r < 2) {
    oxp_sym_unsupported(c, "a matrix norm of a tensor of unknown rank or rank below 2");
    return false;
  }
  *dims = oxp_alloc(oxp_sym_arena(c), 2 * sizeof **dims);
  if (!*dims) return false;
  (*dims)[0] = r + last_two[0];
  (*dims)[1] = r + last_two[1];
  *k = 2;
  return true;
}

/* linalg_matrix_norm(x, ord, dim, keepdim, dtype?). */
oxp_status oxp_s_linalg_matrix_norm(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = norm_input(c, n, 4);
  double p;
  bool matrix = false, keep;
  int64_t *dims;
  int k;
  if (!x || !order_arg(c, n, 1, 0, &p, &matrix) ||
      !matrix_dims(c, n, 2, x, &dims, &k) || !keep_arg(c, n, 3, &keep))
    return oxp_sym_status(c);
  if (!matrix && p == 0)
    return oxp_sym_unsupported(c, "a matrix norm of order 0");
  if (isnan(p)) return oxp_sym_unsupported(c, "the nuclear norm");
  return oxp_m_set_out(c, n, 0, matrix_norm(c, n, x, p, dims, k, keep));
}

/* linalg_norm(x, ord?, dim?, keepdim, dtype?): without ord the 2-norm of
 * the flattened input (or over dim); a numeric ord is a vector norm over
 * one dim (or of a 1-D input) and a matrix norm over two. */
oxp_status oxp_s_linalg_norm(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = norm_input(c, n, 4);
  double p;
  bool matrix = false, keep;
  if (!x || !order_arg(c, n, 1, NAN, &p, &matrix) || !keep_arg(c, n, 3, &keep))
    return oxp_sym_status(c);
  bool no_ord = !matrix && isnan(p);
  bool no_dim = 2 >= n->ninputs || oxp_sym_is_none(n, 2);
  int64_t *dims = NULL;
  int k = 0;
  if (!no_dim && !oxp_m_dims(c, n, 2, x, false, &dims, &k))
    return oxp_sym_status(c);
  if (no_ord)
    return oxp_m_set_out(c, n, 0, oxp_sym_reduce(c, "ReduceL2", x, dims, k, keep));
  int r = oxp_sym_rank(x);
  if (matrix || (no_dim ? r == 2 : k == 2)) {
    if (isnan(p)) return oxp_sym_unsupported(c, "the nuclear norm");
    if (!matrix && p == 0) return oxp_sym_unsupported(c, "a matrix norm of order 0");
    if (no_dim && !matrix_dims(c, n, 2, x, &dims, &k)) return oxp_sym_status(c);
    return oxp_m_set_out(c, n, 0, matrix_norm(c, n, x, p, dims, k, keep));
  }
  if (no_dim && r != 1)
    return oxp_sym_fail(c, OXP_ERR_GRAPH,
                        "%s: a numeric ord without dim needs a 1-D or 2-D input",
                        n->kind);
  return oxp_m_set_out(c, n, 0, vector_norm(c, x, p, dims, k, keep, false));
}
