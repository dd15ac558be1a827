/* s_reduce_stat.c: std, var, std_mean, var_mean. The variance is the sum
 * of squared deviations over N - correction, where torch's unbiased=True
 * is correction 1 and False is 0; the std is its square root. */
#include "s_math_util.h"

typedef struct {
  int64_t *dims;
  int k;
  bool keep;
  double corr;
} stat_args;

/* (x, unbiased) | (x, dims, unbiased, keepdim) |
 * (x, dims?, correction?, keepdim): input 2 is a bool for unbiased, an
 * int (or None, meaning 1) for correction. */
static bool parse(oxp_sctx *c, oxp_node *n, oxp_value *x, stat_args *a) {
  a->dims = NULL;
  a->k = 0;
  a->keep = false;
  a->corr = 1;
  int iu = 1;
  if (n->ninputs >= 4) {
    if (!oxp_m_dims(c, n, 1, x, true, &a->dims, &a->k)) return false;
    if (!oxp_sym_bool(n, 3, &a->keep)) {
      oxp_sym_unsupported(c, "a runtime keepdim");
      return false;
    }
    iu = 2;
  }
  if (iu >= n->ninputs || oxp_sym_is_none(n, iu)) return true;
  const oxp_type *t = oxp_sym_in_type(n, iu);
  bool unbiased;
  if (t && t->kind == OXP_T_BOOL && oxp_sym_bool(n, iu, &unbiased)) {
    a->corr = unbiased;
    return true;
  }
  if (oxp_sym_float(n, iu, &a->corr)) return true;
  oxp_sym_unsupported(c, "a runtime correction");
  return false;
}

/* torch's mean here is Welford's, taken in the order the elements are
 * stored: an infinite element followed by any other makes it NaN
 * (inf - inf), where ReduceMean gives inf, while an infinity that comes
 * last stays (measured in torch 1.13 at every position of rows of 2 to
 * 40). So the NaN comes only from the elements before the last one: in
 * row-major order those below the end of at least one reduced dim, one
 * Slice each (all dims: the flattened tensor less its last element, a 0-d sum).
 * x - x is 0 where x is finite and NaN where it is not (x, not x less
 * its mean: that is infinite everywhere once the mean is), so the sums
 * add just that NaN, in x's shape reduced with keepdims. */
static oxp_value *welford_nan(oxp_sctx *c, oxp_value *x, const stat_args *a) {
  static const int64_t zero = 0, before_last = -1, one = 1;
  if (a->k == 0) {
    oxp_node *f = oxp_sym_op(c, "Flatten", &x, 1, 1); /* [1, N] */
    if (!f) return NULL;
    oxp_attr_set_i(f, "axis", 0);
    oxp_value *head = oxp_sym_slice(c, f->outputs[0], &one, &zero, &before_last, &one, 1);
    return oxp_sym_reduce(c, "ReduceSum", oxp_sym_op2(c, "Sub", head, head), NULL, 0, false);
  }
  oxp_value *sum = NULL;
  for (int j = 0; j < a->k; j++) {
    oxp_value *head = oxp_sym_slice(c, x, &a->dims[j], &zero, &before_last, &one, 1);
    oxp_value *t = oxp_sym_reduce(c, "ReduceSum", oxp_sym_op2(c, "Sub", head, head), a->dims, a->k, true);
    sum = sum ? oxp_sym_op2(c, "Add", sum, t) : t;
  }
  return sum;
}

/* Emits the variance (and, if mean is non-NULL, the mean kept as the
 * keepdim argument says). */
static oxp_value *variance(oxp_sctx *c, oxp_value *x, const stat_args *a,
                           int dt, oxp_value **mean) {
  oxp_value *m = oxp_m_mean(c, x, a->dims, a->k, true, dt);
  oxp_value *d = oxp_sym_op2(c, "Sub", x, m);
  oxp_value *s = oxp_sym_reduce(c, "ReduceSum", oxp_sym_op2(c, "Mul", d, d),
                                a->dims, a->k, a->keep);
  oxp_value *cnt = oxp_m_count(c, x, a->dims, a->k, dt);
  double known;
  /* torch divides by max(N - correction, 0): 0/0, NaN, when N is too
   * small. */
  bool fixed = oxp_m_static_count(c, x, a->dims, a->k, &known);
  if (fixed && known - a->corr <= 0)
    cnt = oxp_sym_const_scalar(c, 0, dt);
  else if (a->corr != 0)
    cnt = oxp_sym_op2(c, "Sub", cnt, oxp_sym_const_scalar(c, a->corr, dt));
  if (!fixed && a->corr != 0)
    cnt = oxp_sym_op2(c, "Max", cnt, oxp_sym_const_scalar(c, 0, dt));
  double n1;
  bool single = oxp_m_static_count(c, x, a->dims, a->k, &n1) && n1 <= 1;
  if (mean && !single) {
    oxp_value *nan = welford_nan(c, x, a);
    oxp_value *mn = oxp_sym_op2(c, "Add", m, nan);
    if (oxp_m_static_count(c, x, a->dims, a->k, &n1)) {
      m = mn;
    } else { /* a run-time count: one element keeps its value */
      oxp_value *many = oxp_m_compare(c, "Greater", oxp_m_count(c, x, a->dims, a->k, dt),
                                      oxp_sym_const_scalar(c, 1, dt), dt);
      m = oxp_sym_op3(c, "Where", many, mn, m);
    }
  }
  if (mean && a->keep) *mean = m;
  if (mean && !a->keep) {
    /* Sorted: onnx's Squeeze-1 shape inference assumes ascending axes. */
    int64_t sq[16];
    int k = a->k < 16 ? a->k : 16;
    for (int i = 0; i < k; i++) {
      int j = i;
      for (; j > 0 && sq[j - 1] > a->dims[i]; j--) sq[j] = sq[j - 1];
      sq[j] = a->dims[i];
    }
    *mean = oxp_sym_squeeze(c, m, sq, k);
  }
  return oxp_sym_op2(c, "Div", s, cnt);
}

static oxp_status std_or_var(oxp_sctx *c, oxp_node *n, bool is_std, bool with_mean) {
  int dt = oxp_sym_need_out_dtype(c, n, 0);
  oxp_value *x = oxp_sym_in_as(c, n, 0, dt);
  stat_args a;
  if (!x || !parse(c, n, x, &a)) return oxp_sym_status(c);
  oxp_value *mean = NULL;
  oxp_value *v = variance(c, x, &a, dt, with_mean ? &mean : NULL);
  if (is_std) v = oxp_sym_op1(c, "Sqrt", v);
  oxp_status st = oxp_m_set_out(c, n, 0, v);
  if (st || !with_mean) return st;
  return oxp_m_set_out(c, n, 1, mean);
}

oxp_status oxp_s_std(oxp_sctx *c, oxp_node *n) { return std_or_var(c, n, true, false); }
oxp_status oxp_s_var(oxp_sctx *c, oxp_node *n) { return std_or_var(c, n, false, false); }
oxp_status oxp_s_std_mean(oxp_sctx *c, oxp_node *n) { return std_or_var(c, n, true, true); }
oxp_status oxp_s_var_mean(oxp_sctx *c, oxp_node *n) { return std_or_var(c, n, false, true); }
