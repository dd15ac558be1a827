/* s_create_range.c: sequences: arange (every arity), _dim_arange,
 * linspace, hann_window. Before Range (opset 11) a run of 0..count-1 is
 * NonZero of a ones vector, as torch's opset 9 arange does. */
#include <math.h>

#include "s_shape_util.h"

/* 0, 1, ..., count - 1 as int64 ([count]); count is a 0-d int64. */
static oxp_value *iota(oxp_sctx *c, oxp_value *count) {
  static const int64_t z = 0;
  oxp_value *r;
  if (oxp_sym_opset(c) >= 11) {
    r = oxp_sym_op3(c, "Range", oxp_sym_const_i64(c, 0), count, oxp_sym_const_i64(c, 1));
  } else {
    oxp_value *ones = oxp_sx_fill(c, oxp_sym_unsqueeze(c, count, &z, 1), 1, OXP_DT_INT64);
    r = oxp_sym_squeeze(c, oxp_sym_op1(c, "NonZero", ones), &z, 1);
  }
  /* The length is known for a constant count. */
  int64_t k = count && count->init ? oxp_tensor_get_i(count->init, 0) : -1;
  oxp_sym_set_type(c, r, OXP_DT_INT64, 1, &k);
  return r;
}

/* start + step * iota(ceil((end - start) / step)), in double for the
 * count, in the output type for the values. */
static oxp_value *arange(oxp_sctx *c, oxp_node *n, int is, int ie, int ip, int dt) {
  double s = 0, e, p = 1;
  bool cs = is < 0 || oxp_sym_float(n, is, &s), ce = oxp_sym_float(n, ie, &e),
       cp = ip < 0 || oxp_sym_float(n, ip, &p);
  if (cs && ce && cp) {
    /* All constant: the count is known and only iota is emitted. */
    double cnt = ceil((e - s) / p);
    int64_t k = cnt > 0 ? oxp_f2i(cnt) : 0;
    oxp_value *r = iota(c, oxp_sym_const_i64(c, k));
    if (s == 0 && p == 1) return dt == OXP_DT_INT64 ? r : oxp_sym_cast(c, r, dt);
    oxp_value *v = oxp_sym_op2(c, "Mul", oxp_sym_cast(c, r, dt), oxp_sym_const_scalar(c, p, dt));
    return oxp_sym_op2(c, "Add", v, oxp_sym_const_scalar(c, s, dt));
  }
  int wide = oxp_dtype_is_float(dt) ? dt : OXP_DT_DOUBLE;
  oxp_value *S = is < 0 ? oxp_sym_const_scalar(c, 0, wide) : oxp_sym_in_as(c, n, is, wide);
  oxp_value *E = oxp_sym_in_as(c, n, ie, wide);
  oxp_value *P = ip < 0 ? oxp_sym_const_scalar(c, 1, wide) : oxp_sym_in_as(c, n, ip, wide);
  oxp_value *cnt = oxp_sym_op1(c, "Ceil", oxp_sym_op2(c, "Div", oxp_sym_op2(c, "Sub", E, S), P));
  oxp_value *r = oxp_sym_cast(c, iota(c, oxp_sym_cast(c, cnt, OXP_DT_INT64)), wide);
  oxp_value *v = oxp_sym_op2(c, "Add", oxp_sym_op2(c, "Mul", r, P), S);
  oxp_sym_set_type(c, v, wide, 1, NULL); /* the Cast copies it */
  return wide == dt ? v : oxp_sym_cast(c, v, dt);
}

/* arange(end, dtype, layout, device, pin) | arange(start, end, <4>) |
 * arange(start, end, step, <4>); scripted graphs may drop the trailing
 * four, so count the number arguments by their types. */
/* arange's own rule for dtype=None: int64 when every number is an
 * integer, else the default float; 0 when a number's type is unknown. A
 * scripted helper's Scalar (ScalarImplicit of a 0-d tensor, Keypoint
 * R-CNN's heatmaps_to_keypoints) has its tensor's dtype once lowered. */
static int default_dtype(oxp_sctx *c, oxp_node *n, int nums) {
  if (nums < n->ninputs && !oxp_sym_is_none(n, nums)) return 0;
  bool fl = false;
  for (int i = 0; i < nums; i++) {
    const oxp_type *t = oxp_sym_in_type(n, i);
    int dt = t && t->kind == OXP_T_INT ? OXP_DT_INT64 : t && t->kind == OXP_T_FLOAT ? OXP_DT_FLOAT : 0;
    /* a constant lowers to int64 or float as its value is written */
    if (!dt) dt = oxp_sym_dtype(oxp_sym_in(c, n, i));
    if (!dt) return 0;
    fl |= oxp_dtype_is_float(dt);
  }
  return fl ? OXP_DT_FLOAT : OXP_DT_INT64;
}

oxp_status oxp_s_arange(oxp_sctx *c, oxp_node *n) {
  int nums = n->ninputs - 4;
  if (nums < 1 || nums > 3) {
    nums = 0;
    for (int i = 0; i < n->ninputs && i < 3; i++) {
      const oxp_type *t = oxp_sym_in_type(n, i);
      if (t && (t->kind == OXP_T_INT || t->kind == OXP_T_FLOAT || t->kind == OXP_T_NUMBER ||
                t->kind == OXP_T_TENSOR))
        nums++;
    }
  }
  int dt = oxp_sym_out_dtype(n, 0, 0);
  if (!dt && !(dt = default_dtype(c, n, nums)) && !(dt = oxp_sym_need_out_dtype(c, n, 0)))
    return oxp_sym_status(c);
  oxp_value *v = nums == 1   ? arange(c, n, -1, 0, -1, dt)
                 : nums == 2 ? arange(c, n, 0, 1, -1, dt)
                             : arange(c, n, 0, 1, 2, dt);
  return oxp_sym_set_out(c, n, 0, v);
}

/* _dim_arange(like, dim) = arange(like.size(dim)). */
oxp_status oxp_s_dim_arange(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t d;
  if (!x || !oxp_sym_need_int(c, n, 1, &d)) return oxp_sym_status(c);
  return oxp_sym_set_out(c, n, 0, iota(c, oxp_sym_size(c, x, d)));
}

/* linspace(start, end, steps, dtype, ...): start + i * (end - start) /
 * (steps - 1), computed in float or double. */
oxp_status oxp_s_linspace(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_sym_need_out_dtype(c, n, 0);
  int64_t steps;
  if (!oxp_sym_need_int(c, n, 2, &steps)) return oxp_sym_status(c);
  int wide = dt == OXP_DT_DOUBLE ? dt : OXP_DT_FLOAT;
  oxp_value *S = oxp_sym_in_as(c, n, 0, wide), *E = oxp_sym_in_as(c, n, 1, wide);
  oxp_value *i = oxp_sym_cast(c, iota(c, oxp_sym_const_i64(c, steps)), wide);
  oxp_value *step = oxp_sym_op2(c, "Div", oxp_sym_op2(c, "Sub", E, S),
                                oxp_sym_const_scalar(c, steps > 1 ? (double)(steps - 1) : 1, wide));
  oxp_value *v = oxp_sym_op2(c, "Add", S, oxp_sym_op2(c, "Mul", i, step));
  oxp_sym_set_type(c, v, wide, 1, (int64_t[]){steps});
  return oxp_sym_set_out(c, n, 0, dt == wide ? v : oxp_sym_cast(c, v, dt));
}

/* hann_window(N, [periodic], dtype, ...): 0.5 - 0.5 cos(2 pi i / M),
 * M = N when periodic, else N - 1. */
oxp_status oxp_s_hann_window(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_sym_need_out_dtype(c, n, 0);
  bool periodic = true;
  /* hann_window(N, dtype, layout, device, pin) has 5 inputs. */
  if (n->ninputs >= 6 && !oxp_sym_bool(n, 1, &periodic))
    return oxp_sym_unsupported(c, "hann_window with a runtime periodic flag");
  /* A constant length: the window itself, computed in double and rounded
   * once (torch.onnx.export folds it to a constant too; a run-time length
   * needs Cos, which onnxruntime has in float only). torch's window of
   * length 1 is [1] either way (the formula gives 0, or 0 / 0). */
  int64_t len;
  if (oxp_sym_int(n, 0, &len) && len >= 0 && len <= (INT64_C(1) << 20)) {
    int cdt = dt == OXP_DT_DOUBLE ? OXP_DT_DOUBLE : OXP_DT_FLOAT;
    oxp_tensor *t = oxp_tensor_alloc(oxp_sym_arena(c), cdt, 1, &len);
    if (!t) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    double m = (double)(periodic ? len : len - 1);
    for (int64_t k = 0; k < len; k++) {
      double w = len == 1 ? 1.0 : 0.5 - 0.5 * cos(2 * M_PI * (double)k / m);
      if (cdt == OXP_DT_DOUBLE) ((double *)t->data)[k] = w;
      else ((float *)t->data)[k] = (float)w;
    }
    oxp_value *w = oxp_sym_const(c, t);
    return oxp_sym_set_out(c, n, 0, !w || dt == cdt ? w : oxp_sym_cast(c, w, dt));
  }
  /* Float math even for a double window: onnxruntime has no double Cos. */
  int wide = OXP_DT_FLOAT;
  oxp_value *N = oxp_sym_in_as(c, n, 0, OXP_DT_INT64);
  oxp_value *i = oxp_sym_cast(c, iota(c, N), wide);
  oxp_value *M = oxp_sym_cast(c, N, wide);
  if (!periodic) M = oxp_sym_op2(c, "Sub", M, oxp_sym_const_scalar(c, 1, wide));
  oxp_value *ang = oxp_sym_op2(c, "Div", oxp_sym_op2(c, "Mul", i, oxp_sym_const_scalar(c, 2 * M_PI, wide)), M);
  oxp_value *half = oxp_sym_const_scalar(c, 0.5, wide);
  oxp_value *w = oxp_sym_op2(c, "Sub", half, oxp_sym_op2(c, "Mul", half, oxp_sym_op1(c, "Cos", ang)));
  oxp_value *one = oxp_sym_op2(c, "Equal", N, oxp_sym_const_i64(c, 1));
  w = oxp_sym_op3(c, "Where", one, oxp_sym_const_scalar(c, 1, wide), w);
  if (!w) return oxp_sym_status(c);
  oxp_sym_set_type(c, w, wide, 1, NULL);
  return oxp_sym_set_out(c, n, 0, dt == wide ? w : oxp_sym_cast(c, w, dt));
}
