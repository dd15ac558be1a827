/* s_math_util.c: type promotion over a node's inputs (the rules are
 * dtype_promote.c's), opset-aware elementwise forms and
 * reduction dims shared by the math, comparison and reduction symbolics.
 * Older opsets define many ops only for float or for int32/int64, so the
 * forms here pick the op (or a wider compute type) the opset allows. */
#include <string.h>

#include "s_math_util.h"

/* ---- dtypes ---------------------------------------------------------------- */

/* Type promotion is dtype_promote.c's; here a pair it refuses becomes
 * the located error. */
static int refused(oxp_sctx *c, int a, int b) {
  char why[160];
  oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s", oxp_promote_why(a, b, why, sizeof why));
  return 0;
}

int oxp_m_promote(oxp_sctx *c, int a, int b) {
  int dt = oxp_promote_types(a, b);
  return dt == OXP_DT_REFUSED ? refused(c, a, b) : dt;
}

/* The element type of an ONNX value built here, read off the ops that
 * made it (the symbolics' outputs are often untyped intermediates). */
static int value_dtype(const oxp_value *v, int depth) {
  if (!v || depth > 32) return 0;
  if (v->type && v->type->kind == OXP_T_TENSOR && v->type->dtype)
    return v->type->dtype;
  const oxp_node *p = v->producer;
  if (!p || strncmp(p->kind, "onnx::", 6) != 0) return 0;
  static const char *const bools[] = {
      "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Not",
      "And", "Or", "Xor", "IsNaN", "IsInf", NULL};
  static const char *const longs[] = {"ArgMax", "ArgMin", "Shape", "Size",
                                      "NonZero", NULL};
  const char *op = p->kind + 6;
  for (int k = 0; bools[k]; k++)
    if (strcmp(op, bools[k]) == 0) return OXP_DT_BOOL;
  for (int k = 0; longs[k]; k++)
    if (strcmp(op, longs[k]) == 0) return OXP_DT_INT64;
  if (strcmp(op, "Cast") == 0) {
    const oxp_attr *a = oxp_attr_get(p, "to");
    return a && a->kind == OXP_A_INT ? (int)a->i : 0;
  }
  if (strcmp(op, "ConstantOfShape") == 0) {
    const oxp_attr *a = oxp_attr_get(p, "value");
    return a && a->kind == OXP_A_TENSOR && a->t ? a->t->dtype : OXP_DT_FLOAT;
  }
  if (strcmp(op, "Where") == 0)  /* the branches' type */
    return p->ninputs > 1 ? value_dtype(p->inputs[1], depth + 1) : 0;
  /* Ops whose (first) output has their first input's type. */
  static const char *const same[] = {
      "Add", "Sub", "Mul", "Div", "Neg", "Abs", "Pow", "Mod", "Max", "Min",
      "Sum", "Mean", "Clip", "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt",
      "Reciprocal", "Floor", "Ceil", "Round", "Sign", "Erf", "Sin", "Cos",
      "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh",
      "Atanh", "Softmax", "LogSoftmax", "Identity", "Reshape", "Transpose",
      "Squeeze", "Unsqueeze", "Flatten", "Expand", "Tile", "Slice", "Gather",
      "GatherElements", "GatherND", "Concat", "ScatterElements", "ScatterND",
      "CumSum", "MatMul", "Gemm", "Trilu", "BitShift", "BitwiseAnd",
      "BitwiseOr", "BitwiseXor", "BitwiseNot", "Pad", "Dropout", "TopK",
      NULL};
  bool keeps = strncmp(op, "Reduce", 6) == 0;
  for (int k = 0; !keeps && same[k]; k++) keeps = strcmp(op, same[k]) == 0;
  return keeps && p->ninputs > 0 ? value_dtype(p->inputs[0], depth + 1) : 0;
}

int oxp_m_in_dtype(oxp_sctx *c, oxp_node *n, int i) {
  const oxp_type *t = oxp_sym_in_type(n, i);
  if (t) {
    switch (t->kind) {
    case OXP_T_INT: return OXP_DT_INT64;
    case OXP_T_FLOAT: return OXP_DT_FLOAT;
    case OXP_T_BOOL: return OXP_DT_BOOL;
    case OXP_T_TENSOR: if (t->dtype) return t->dtype; break;
    default: break;
    }
  }
  if (oxp_sym_is_none(n, i)) return 0;
  return value_dtype(oxp_sym_in(c, n, i), 0);
}

/* 0: dimensioned tensor, 1: 0-d tensor, 2: Python scalar; -1: a tensor
 * of unknown rank (scripted graphs), which may be either of the first two. */
static int priority(oxp_sctx *c, oxp_node *n, int i) {
  const oxp_type *t = oxp_sym_in_type(n, i);
  if (t && t->kind != OXP_T_TENSOR) return 2;
  int rank = t ? t->rank : -1;
  if (rank < 0) { /* the lowered value may know it */
    const oxp_value *v = oxp_sym_in(c, n, i);
    if (v && v->type && v->type->kind == OXP_T_TENSOR) rank = v->type->rank;
  }
  return rank < 0 ? -1 : rank == 0 ? 1 : 0;
}

int oxp_m_result_dtype(oxp_sctx *c, oxp_node *n, int i, int j) {
  int idx[2] = {i, j};
  return oxp_m_result_dtype_n(c, n, idx, 2);
}

int oxp_m_result_dtype_n(oxp_sctx *c, oxp_node *n, const int *idx, int cnt) {
  enum { MAXOPS = 8 };
  oxp_operand ops[MAXOPS];
  int m = 0;
  for (int k = 0; k < cnt; k++) {
    if (idx[k] < 0 || oxp_sym_is_none(n, idx[k])) continue;
    if (m == MAXOPS) return 0;
    int p = priority(c, n, idx[k]);
    ops[m] = (oxp_operand){.dtype = oxp_m_in_dtype(c, n, idx[k]), .zero_dim = p == 1,
                           .scalar = p == 2, .unranked = p < 0};
    /* A tensor of unknown dtype: guessing from the other operand would
     * cast it wrongly; leave the types as they are. */
    if (!ops[m++].dtype) return 0;
  }
  int pair[2];
  int dt = oxp_result_type_why(ops, m, pair);
  if (dt == OXP_DT_REFUSED) return refused(c, pair[0], pair[1]);
  if (dt == OXP_DT_AMBIGUOUS) {
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                 "%s: the result dtype depends on whether an operand of unknown rank is 0-d "
                 "(%s or %s); give the value a shape",
                 n->kind, oxp_dtype_name(pair[0]), oxp_dtype_name(pair[1]));
    return 0;
  }
  return dt;
}

int oxp_m_out_dtype(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_sym_out_dtype(n, 0, 0);
  return dt ? dt : oxp_m_result_dtype(c, n, 0, n->ninputs > 1 ? 1 : -1);
}

int oxp_m_float_dtype(oxp_sctx *c, oxp_node *n, int j) {
  int dt = oxp_sym_out_dtype(n, 0, 0);
  if (oxp_dtype_is_float(dt)) return dt;
  dt = oxp_m_result_dtype(c, n, 0, j);
  if (!dt) {
    for (int k = 0; k < 2; k++) {
      int i = k ? j : 0;
      if (i >= 0 && !oxp_m_in_dtype(c, n, i) &&
          !oxp_sym_need_dtype(c, oxp_sym_in(c, n, i)))
        return 0;
    }
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: the result dtype is unknown",
                 n->kind);
    return 0;
  }
  return oxp_dtype_is_float(dt) ? dt : OXP_DT_FLOAT;
}

bool oxp_m_pair(oxp_sctx *c, oxp_node *n, int i, int j, int dt, oxp_value **a,
                oxp_value **b) {
  *a = oxp_sym_in_as(c, n, i, dt);
  *b = *a ? oxp_sym_in_as(c, n, j, dt) : NULL;
  return *a && *b;
}

int oxp_m_arith_dtype(oxp_sctx *c, int dt) {
  (void)c;
  /* The spec allows 8/16-bit types from opset 14, but onnxruntime's CPU
   * kernels implement only float, double, int32 and int64. */
  switch (dt) {
  case OXP_DT_INT8: case OXP_DT_INT16: case OXP_DT_UINT8: case OXP_DT_UINT16:
    return OXP_DT_INT32;
  case OXP_DT_UINT32: case OXP_DT_UINT64:
    return OXP_DT_INT64;
  default:
    return dt;
  }
}

oxp_value *oxp_m_to(oxp_sctx *c, oxp_value *v, int dt) {
  if (!v || !dt || oxp_sym_dtype(v) == dt) return v;
  return oxp_sym_cast(c, v, dt);
}

oxp_status oxp_m_set_out(oxp_sctx *c, oxp_node *n, int i, oxp_value *v) {
  const oxp_type *t = oxp_sym_out_type(n, i);
  int dt = oxp_sym_out_dtype(n, i, 0);
  if (!dt) dt = value_dtype(v, 0);
  bool ranked = t && t->kind == OXP_T_TENSOR && t->rank >= 0;
  if (v && v->type && v->type->kind == OXP_T_TENSOR && v->type->rank < 0 &&
      ranked) {
    /* The traced rank and dims, kept only when no axis is dynamic. */
    if (v->type->dtype) dt = v->type->dtype;
    bool fixed = oxp_sym_options(c)->n_dynamic_axes == 0;
    v->type = oxp_type_tensor(oxp_sym_arena(c), dt, t->rank, NULL);
    for (int k = 0; v->type && k < t->rank; k++)
      v->type->dims[k] = fixed && t->dims ? t->dims[k] : -1;
  } else if (v && !v->type && dt &&
             (!t || (t->kind == OXP_T_TENSOR && t->rank < 0))) {
    /* An untyped (scripted) output: at least its element type. */
    v->type = oxp_type_tensor(oxp_sym_arena(c), dt, -1, NULL);
  } else if (v && v->type && v->type->kind == OXP_T_TENSOR && !v->type->dtype) {
    v->type->dtype = dt;
  }
  return oxp_sym_set_out(c, n, i, v);
}

/* ---- elementwise forms ----------------------------------------------------- */

oxp_value *oxp_m_arith(oxp_sctx *c, const char *op, oxp_value *a,
                       oxp_value *b, int dt) {
  int w = oxp_m_arith_dtype(c, dt);
  /* torch adds bools as or and multiplies them as and; Add/Mul have no
   * bool form. */
  if (dt == OXP_DT_BOOL && (strcmp(op, "Add") == 0 || strcmp(op, "Mul") == 0))
    op = op[0] == 'A' ? "Or" : "And";
  oxp_value *r = oxp_sym_op2(c, op, oxp_m_to(c, a, w), oxp_m_to(c, b, w));
  oxp_sym_set_type(c, r, w, -1, NULL);
  return oxp_m_to(c, r, dt);
}

oxp_value *oxp_m_floor_div_int(oxp_sctx *c, oxp_value *a, oxp_value *b,
                               int dt) {
  /* In int64 where the opset's Div/Equal lack the type. */
  int w = oxp_m_arith_dtype(c, dt);
  if (w == dt && oxp_sym_opset(c) < 11 && dt != OXP_DT_INT32 &&
      dt != OXP_DT_INT64)
    w = OXP_DT_INT64;
  a = oxp_m_to(c, a, w);
  b = oxp_m_to(c, b, w);
  oxp_value *q = oxp_sym_op2(c, "Div", a, b);
  oxp_sym_set_type(c, q, w, -1, NULL);
  oxp_value *r = oxp_sym_op2(c, "Sub", a, oxp_sym_op2(c, "Mul", q, b));
  oxp_sym_set_type(c, r, w, -1, NULL);
  oxp_value *zero = oxp_sym_const_scalar(c, 0, w);
  /* A nonzero remainder whose sign differs from the divisor's means the
   * truncated quotient is one above the floor. */
  oxp_value *fix = oxp_sym_op2(c, "And",
      oxp_sym_op1(c, "Not", oxp_sym_op2(c, "Equal", r, zero)),
      oxp_sym_op2(c, "Xor", oxp_sym_op2(c, "Less", r, zero),
                  oxp_sym_op2(c, "Less", b, zero)));
  oxp_value *q1 = oxp_sym_op2(c, "Sub", q, oxp_sym_const_scalar(c, 1, w));
  oxp_value *y = oxp_sym_op3(c, "Where", fix, q1, q);
  oxp_sym_set_type(c, y, w, -1, NULL);
  return oxp_m_to(c, y, dt);
}

/* torch 1.13's div_floor for floats, step by step: b == 0 gives a / b;
 * else m = fmod(a, b), d = (a - m) / b, one less where m is nonzero and
 * its sign differs from b's, then floor(d) rounded up when d is more
 * than half above it; a zero result has the sign of a / b. Floor(a / b)
 * is not that where a / b rounds onto an integer (1.0 // 0.1 is 9) or
 * an operand is infinite (inf // 2 is NaN). float16 computes in float32,
 * as torch's scalar loop does (its vectorized loop rounds each step to
 * float16: the two differ from quotients of 512 on). The sign is applied
 * last as a factor of 1 or -1: onnxruntime's Floor and Where drop the
 * sign of a -0.0 (see oxp_m_trunc). */
oxp_value *oxp_m_floor_div_float(oxp_sctx *c, oxp_value *a, oxp_value *b,
                                 int dt) {
  int w = dt == OXP_DT_FLOAT16 || dt == OXP_DT_BFLOAT16 ? OXP_DT_FLOAT : dt;
  a = oxp_m_to(c, a, w);
  b = oxp_m_to(c, b, w);
  oxp_value *zero = oxp_sym_const_scalar(c, 0, w), *one = oxp_sym_const_scalar(c, 1, w);
  oxp_value *q = oxp_sym_op2(c, "Div", a, b);
  oxp_sym_set_type(c, q, w, -1, NULL);
  oxp_node *mn = oxp_sym_op(c, "Mod", (oxp_value *[]){a, b}, 2, 1);
  if (!mn) return NULL;
  oxp_attr_set_i(mn, "fmod", 1);
  oxp_value *m = mn->outputs[0];
  oxp_sym_set_type(c, m, w, -1, NULL);
  oxp_value *d = oxp_m_arith(c, "Div", oxp_m_arith(c, "Sub", a, m, w), b, w);
  oxp_value *fix = oxp_sym_op2(c, "And",
      oxp_sym_op1(c, "Not", oxp_m_compare(c, "Equal", m, zero, w)),
      oxp_sym_op2(c, "Xor", oxp_m_compare(c, "Less", b, zero, w),
                  oxp_m_compare(c, "Less", m, zero, w)));
  d = oxp_m_arith(c, "Sub", d, oxp_sym_cast(c, fix, w), w);
  oxp_value *f = oxp_sym_op1(c, "Floor", d);
  oxp_sym_set_type(c, f, w, -1, NULL);
  oxp_value *up = oxp_m_compare(c, "Greater", oxp_m_arith(c, "Sub", d, f, w),
                                oxp_sym_const_scalar(c, 0.5, w), w);
  f = oxp_m_arith(c, "Add", f, oxp_sym_cast(c, up, w), w);
  /* |result|, a / b where b is zero; its sign is a / b's sign bit. */
  oxp_value *mag = oxp_sym_op1(c, "Abs", oxp_sym_op3(c, "Where",
      oxp_m_compare(c, "Equal", b, zero, w), q, f));
  oxp_sym_set_type(c, mag, w, -1, NULL);
  oxp_value *inv = oxp_m_arith(c, "Div", one, q, w);
  oxp_value *neg = oxp_sym_op2(c, "Or", oxp_m_compare(c, "Less", q, zero, w),
                               oxp_m_compare(c, "Less", inv, zero, w));
  oxp_value *y = oxp_sym_op2(c, "Mul", mag, oxp_sym_op3(c, "Where", neg,
      oxp_sym_const_scalar(c, -1, w), one));
  oxp_sym_set_type(c, y, w, -1, NULL);
  return oxp_m_to(c, y, dt);
}

oxp_value *oxp_m_trunc(oxp_sctx *c, oxp_value *v, int dt) {
  /* Floor(|x|) times -1 or 1 by x's sign bit: Sign(x) * Floor(|x|) makes
   * -0.0 and (-1, 0) +0.0, onnxruntime's Floor and Ceil drop the sign of
   * a zero result, and its Where that of a selected -0.0. The sign bit is
   * x < 0 or 1 / x < 0 (-0.0). */
  oxp_value *zero = oxp_sym_const_scalar(c, 0, dt);
  oxp_value *m = oxp_sym_op1(c, "Floor", oxp_sym_op1(c, "Abs", v));
  oxp_value *inv = oxp_sym_op2(c, "Div", oxp_sym_const_scalar(c, 1, dt), v);
  oxp_sym_set_type(c, inv, dt, -1, NULL);
  oxp_value *neg = oxp_sym_op2(c, "Or", oxp_m_compare(c, "Less", v, zero, dt),
                               oxp_m_compare(c, "Less", inv, zero, dt));
  oxp_value *y = oxp_sym_op2(c, "Mul", m, oxp_sym_op3(c, "Where", neg,
      oxp_sym_const_scalar(c, -1, dt), oxp_sym_const_scalar(c, 1, dt)));
  oxp_sym_set_type(c, y, dt, -1, NULL);
  return y;
}

static oxp_value *is_nan_either(oxp_sctx *c, oxp_value *a, oxp_value *b) {
  return oxp_sym_op2(c, "Or", oxp_sym_op1(c, "IsNaN", a),
                     oxp_sym_op1(c, "IsNaN", b));
}

oxp_value *oxp_m_compare(oxp_sctx *c, const char *op, oxp_value *a,
                         oxp_value *b, int dt) {
  int opset = oxp_sym_opset(c);
  bool fl = oxp_dtype_is_float(dt);
  bool eq = strcmp(op, "Equal") == 0;
  bool or_eq = strstr(op, "OrEqual") != NULL;
  if (dt == OXP_DT_BOOL && !eq) {
    /* Greater/Less have no bool form. */
    a = oxp_m_to(c, a, OXP_DT_INT32);
    b = oxp_m_to(c, b, OXP_DT_INT32);
    dt = OXP_DT_INT32;
  } else if (!fl && dt != OXP_DT_BOOL && opset < 11 && dt != OXP_DT_INT32 &&
             dt != OXP_DT_INT64) {
    /* Equal-7 knows bool/int32/int64 only. */
    a = oxp_m_to(c, a, OXP_DT_INT32);
    b = oxp_m_to(c, b, OXP_DT_INT32);
  }
  if (eq && fl && opset < 11) {
    /* Equal-7 has no float form: neither less nor greater, nor NaN. */
    oxp_value *ne = oxp_sym_op2(c, "Or", oxp_sym_op2(c, "Less", a, b),
                                oxp_sym_op2(c, "Greater", a, b));
    return oxp_sym_op1(c, "Not", oxp_sym_op2(c, "Or", ne, is_nan_either(c, a, b)));
  }
  if (or_eq && opset < 12) {
    /* a >= b is not (a < b), except that NaN compares false. */
    const char *inv = op[0] == 'G' ? "Less" : "Greater";
    oxp_value *bad = oxp_sym_op2(c, inv, a, b);
    if (fl) bad = oxp_sym_op2(c, "Or", bad, is_nan_either(c, a, b));
    return oxp_sym_op1(c, "Not", bad);
  }
  return oxp_sym_op2(c, op, a, b);
}

oxp_value *oxp_m_maxmin(oxp_sctx *c, bool is_max, oxp_value *a, oxp_value *b,
                        int dt) {
  if (dt == OXP_DT_BOOL)
    return oxp_sym_op2(c, is_max ? "Or" : "And", a, b);
  if (oxp_dtype_is_float(dt) || oxp_sym_opset(c) >= 12)
    return oxp_sym_op2(c, is_max ? "Max" : "Min", a, b);
  /* Max-8/Min-8 are float-only. */
  oxp_value *pick = oxp_m_compare(c, is_max ? "Greater" : "Less", a, b, dt);
  return oxp_sym_op3(c, "Where", pick, a, b);
}

oxp_value *oxp_m_fill_bool(oxp_sctx *c, oxp_value *x, bool v) {
  oxp_value *shape = oxp_sym_op1(c, "Shape", x);
  oxp_node *k = shape ? oxp_sym_op(c, "ConstantOfShape", &shape, 1, 1) : NULL;
  if (!k) return NULL;
  oxp_tensor *t = oxp_tensor_alloc(oxp_sym_arena(c), OXP_DT_BOOL, 1,
                                   (int64_t[]){1});
  if (!t) return NULL;
  ((uint8_t *)t->data)[0] = v;
  oxp_attr_set_t(k, "value", t);
  oxp_sym_set_type(c, k->outputs[0], OXP_DT_BOOL, oxp_sym_rank(x), NULL);
  return k->outputs[0];
}

/* ---- reductions ----------------------------------------------------------- */

bool oxp_m_dims(oxp_sctx *c, oxp_node *n, int i, oxp_value *x, bool empty_all,
                int64_t **dims, int *k) {
  *dims = NULL;
  *k = 0;
  if (i >= n->ninputs || oxp_sym_is_none(n, i)) return true;
  int64_t *d;
  int m;
  if (!oxp_sym_need_ints(c, n, i, &d, &m)) return false;
  if (m == 0 && !empty_all) {
    oxp_sym_unsupported(c, "an empty dim list");
    return false;
  }
  int r = oxp_sym_rank(x);
  int64_t *out = oxp_alloc(oxp_sym_arena(c), sizeof *out * (size_t)(m + 1));
  if (!out) return false;
  for (int j = 0; j < m; j++) {
    out[j] = d[j];
    /* A 0-d tensor reduces over dim 0 or -1 as over nothing. */
    if (r == 0 && (d[j] == 0 || d[j] == -1)) { m = 0; break; }
    if (r > 0 && !oxp_sym_axis(d[j], r, &out[j])) {
      oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: dim %lld out of range for rank %d",
                   n->kind, (long long)d[j], r);
      return false;
    }
    if (r < 0 && d[j] < 0 && oxp_sym_opset(c) < 11) {
      oxp_sym_unsupported(c, "a negative dim on a tensor of unknown rank");
      return false;
    }
  }
  *dims = out;
  *k = m;
  return true;
}

bool oxp_m_dtype_arg(oxp_sctx *c, oxp_node *n, int i, oxp_value **x) {
  if (i >= n->ninputs || oxp_sym_is_none(n, i)) return true;
  int64_t st;
  int dt;
  if (!oxp_sym_int(n, i, &st) || !(dt = oxp_dtype_from_scalar_type(st))) {
    oxp_sym_unsupported(c, "a runtime or unknown dtype argument");
    return false;
  }
  *x = oxp_m_to(c, *x, dt);
  return *x != NULL;
}

bool oxp_m_static_count(oxp_sctx *c, oxp_value *x, const int64_t *dims,
                        int k, double *cnt) {
  int r = oxp_sym_rank(x);
  const oxp_type *t = x ? x->type : NULL;
  bool fixed = r >= 0 && t && t->dims && oxp_sym_options(c)->n_dynamic_axes == 0;
  *cnt = 1;
  for (int j = 0; fixed && j < (k ? k : r); j++) {
    int64_t d = t->dims[k ? dims[j] : j];
    if (d < 0) fixed = false;
    *cnt *= (double)d;
  }
  return fixed;
}

oxp_value *oxp_m_count(oxp_sctx *c, oxp_value *x, const int64_t *dims, int k,
                       int dt) {
  double cnt;
  if (oxp_m_static_count(c, x, dims, k, &cnt))
    return oxp_sym_const_scalar(c, cnt, dt);
  oxp_value *shape = oxp_sym_op1(c, "Shape", x);
  oxp_sym_set_type(c, shape, OXP_DT_INT64, 1, NULL);
  if (k) {
    oxp_value *idx = oxp_sym_const_i64s(c, dims, k);
    oxp_node *g = shape ? oxp_sym_op(c, "Gather", (oxp_value *[]){shape, idx},
                                     2, 1) : NULL;
    if (!g) return NULL;
    oxp_attr_set_i(g, "axis", 0);
    shape = g->outputs[0];
    oxp_sym_set_type(c, shape, OXP_DT_INT64, 1, NULL);
  }
  oxp_value *p = oxp_sym_reduce(c, "ReduceProd", shape, NULL, 0, false);
  oxp_sym_set_type(c, p, OXP_DT_INT64, 0, NULL);
  return oxp_m_to(c, p, dt);
}

oxp_value *oxp_m_mean(oxp_sctx *c, oxp_value *x, const int64_t *dims, int k,
                      bool keep, int dt) {
  double cnt;
  if (oxp_m_static_count(c, x, dims, k, &cnt) && cnt > 0)
    return oxp_sym_reduce(c, "ReduceMean", x, dims, k, keep);
  /* Over no elements torch's mean is 0/0, NaN; onnxruntime's ReduceMean
   * gives 0. The sum over the count is NaN there and the mean elsewhere. */
  oxp_value *s = oxp_sym_reduce(c, "ReduceSum", x, dims, k, keep);
  oxp_sym_set_type(c, s, dt, -1, NULL);
  return oxp_sym_op2(c, "Div", s, oxp_m_count(c, x, dims, k, dt));
}
