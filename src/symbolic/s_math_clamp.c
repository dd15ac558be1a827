/* s_math_clamp.c: clamping, elementwise max/min and where. Clip is the
 * natural form but changes twice: bounds are float attributes before
 * opset 11, scalar inputs from 11, and integer tensors only from 12;
 * tensor bounds broadcast, so they take Max/Min (or, for integers before
 * opset 12, Where of a comparison). */
#include <math.h>

#include "s_math_util.h"

/* A bound that Clip can take: a scalar or 0-d tensor. */
static bool scalar_arg(oxp_node *n, int i) {
  const oxp_type *t = oxp_sym_in_type(n, i);
  return !t || t->kind != OXP_T_TENSOR || t->rank == 0;
}

static bool present(oxp_node *n, int i) {
  return i >= 0 && i < n->ninputs && !oxp_sym_is_none(n, i);
}

/* A bound that is a constant NaN. torch's clamp then gives NaN in every
 * element; Clip ignores a NaN bound in onnxruntime (as numpy's clip does)
 * and Clip-6 refuses one at load. */
static bool nan_bound(oxp_node *n, int i) {
  double v;
  return present(n, i) && scalar_arg(n, i) && oxp_sym_float(n, i, &v) && isnan(v);
}

/* Clip with float attributes (opset < 11): float and half only, bounds
 * constant; a float attribute would round a double's bound. */
static oxp_value *clip_attrs(oxp_sctx *c, oxp_node *n, oxp_value *x, int lo,
                             int hi) {
  double a = 0, b = 0;
  bool has_a = present(n, lo) && oxp_sym_float(n, lo, &a);
  bool has_b = present(n, hi) && oxp_sym_float(n, hi, &b);
  oxp_node *k = oxp_sym_op(c, "Clip", &x, 1, 1);
  if (!k) return NULL;
  /* Clip-6 rejects min > max; torch then gives max everywhere. */
  if (has_a && has_b && a > b) a = b;
  if (has_a) oxp_attr_set_f(k, "min", a);
  if (has_b) oxp_attr_set_f(k, "max", b);
  return k->outputs[0];
}

static bool clip_attrs_ok(oxp_node *n, int dt, int lo, int hi) {
  double v;
  if (dt != OXP_DT_FLOAT && dt != OXP_DT_FLOAT16) return false;
  if (present(n, lo) && !(scalar_arg(n, lo) && oxp_sym_float(n, lo, &v)))
    return false;
  return !present(n, hi) || (scalar_arg(n, hi) && oxp_sym_float(n, hi, &v));
}

static bool clip_inputs_ok(oxp_sctx *c, oxp_node *n, int dt, int lo, int hi) {
  int opset = oxp_sym_opset(c);
  bool typed = oxp_dtype_is_float(dt) ? dt != OXP_DT_BFLOAT16 || opset >= 13
                                      : opset >= 12 && dt != OXP_DT_BOOL;
  return typed && (!present(n, lo) || scalar_arg(n, lo)) &&
         (!present(n, hi) || scalar_arg(n, hi));
}

/* clamp(x, lo, hi) with bounds at inputs lo and hi (-1: none). */
static oxp_status clamp(oxp_sctx *c, oxp_node *n, int lo, int hi) {
  /* An untyped (scripted) result: torch's result type over x and both
   * bounds (clamp(int32 0-d, int32 0-d, float32 [2]) is float32). */
  int idx[3] = {0, present(n, lo) ? lo : -1, present(n, hi) ? hi : -1};
  int dt = oxp_sym_out_dtype(n, 0, 0);
  if (!dt && !(dt = oxp_m_result_dtype_n(c, n, idx, 3)))
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: the result dtype is unknown", n->kind);
  oxp_value *x = oxp_sym_in_as(c, n, 0, dt);
  if (!x) return oxp_sym_status(c);
  if (!present(n, lo) && !present(n, hi)) return oxp_m_set_out(c, n, 0, x);
  if (oxp_dtype_is_float(dt) && (nan_bound(n, lo) || nan_bound(n, hi))) {
    int b = nan_bound(n, lo) ? lo : hi; /* x + NaN: NaN in x's shape */
    return oxp_m_set_out(c, n, 0, oxp_sym_op2(c, "Add", x, oxp_sym_in_as(c, n, b, dt)));
  }
  /* One bound: Max or Min. Clip-6's absent bound is the type's largest
   * finite value, and onnxruntime's Clip-11 reads an absent bound so
   * too, so either would turn inf into 3.4e38 (clamp_min(inf) is inf). */
  bool both = present(n, lo) && present(n, hi);
  if (both && oxp_sym_opset(c) < 11 && clip_attrs_ok(n, dt, lo, hi))
    return oxp_m_set_out(c, n, 0, clip_attrs(c, n, x, lo, hi));
  if (both && oxp_sym_opset(c) >= 11 && clip_inputs_ok(c, n, dt, lo, hi)) {
    oxp_value *in[3] = {x, oxp_sym_in_as(c, n, lo, dt), oxp_sym_in_as(c, n, hi, dt)};
    if (!in[1] || !in[2]) return oxp_sym_status(c);
    oxp_node *k = oxp_sym_op(c, "Clip", in, 3, 1);
    return oxp_m_set_out(c, n, 0, k ? k->outputs[0] : NULL);
  }
  /* max then min, as torch: a lower bound above the upper gives hi. */
  oxp_value *y = x;
  if (present(n, lo)) y = oxp_m_maxmin(c, true, y, oxp_sym_in_as(c, n, lo, dt), dt);
  if (present(n, hi)) y = oxp_m_maxmin(c, false, y, oxp_sym_in_as(c, n, hi, dt), dt);
  return oxp_m_set_out(c, n, 0, y);
}

oxp_status oxp_s_clamp(oxp_sctx *c, oxp_node *n) { return clamp(c, n, 1, 2); }
oxp_status oxp_s_clamp_min(oxp_sctx *c, oxp_node *n) { return clamp(c, n, 1, -1); }
oxp_status oxp_s_clamp_max(oxp_sctx *c, oxp_node *n) { return clamp(c, n, -1, 1); }

static oxp_status maxmin(oxp_sctx *c, oxp_node *n, bool is_max) {
  int dt = oxp_m_out_dtype(c, n);
  oxp_value *a, *b;
  if (!oxp_m_pair(c, n, 0, 1, dt, &a, &b)) return oxp_sym_status(c);
  return oxp_m_set_out(c, n, 0, oxp_m_maxmin(c, is_max, a, b, dt));
}

oxp_status oxp_s_maximum(oxp_sctx *c, oxp_node *n) { return maxmin(c, n, true); }
oxp_status oxp_s_minimum(oxp_sctx *c, oxp_node *n) { return maxmin(c, n, false); }

/* prim::max / prim::min of scalars (scripted code): of two values, or
 * of the elements of one int list. */
static oxp_status prim_maxmin(oxp_sctx *c, oxp_node *n, bool is_max) {
  if (n->ninputs == 2) return maxmin(c, n, is_max);
  oxp_value *v = oxp_sym_in(c, n, 0);
  if (!v) return oxp_sym_status(c);
  return oxp_m_set_out(c, n, 0, oxp_sym_reduce(c, is_max ? "ReduceMax" : "ReduceMin",
                                                 v, NULL, 0, false));
}

oxp_status oxp_s_prim_max(oxp_sctx *c, oxp_node *n) { return prim_maxmin(c, n, true); }
oxp_status oxp_s_prim_min(oxp_sctx *c, oxp_node *n) { return prim_maxmin(c, n, false); }

/* where(cond, a, b). The one-argument form is nonzero(as_tuple=True). */
oxp_status oxp_s_where(oxp_sctx *c, oxp_node *n) {
  /* where(condition) is nonzero(condition, as_tuple=True) */
  if (n->ninputs == 1) return oxp_s_nonzero_numpy(c, n);
  if (n->ninputs < 3) return oxp_sym_unsupported(c, "where with two arguments");
  int dt = oxp_sym_out_dtype(n, 0, 0);
  if (!dt) dt = oxp_m_result_dtype(c, n, 1, 2);
  oxp_value *k = oxp_sym_in_as(c, n, 0, OXP_DT_BOOL), *a, *b;
  if (!k || !oxp_m_pair(c, n, 1, 2, dt, &a, &b)) return oxp_sym_status(c);
  return oxp_m_set_out(c, n, 0, oxp_sym_op3(c, "Where", k, a, b));
}
