/* s_cmp.c: comparisons, logical and bitwise ops, shifts. The output is
 * bool (or the operands' type for bitwise ops), so the dtype both sides
 * meet in comes from torch's promotion over the inputs, not from the
 * traced output. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "s_math_util.h"

/* The dtype of a binary op's operands after promotion. */
static int operand_dtype(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_m_result_dtype(c, n, 0, 1);
  return dt ? dt : oxp_m_in_dtype(c, n, 0);
}

static bool both_str(oxp_node *n, const char **a, const char **b) {
  return oxp_sym_str(n, 0, a) && oxp_sym_str(n, 1, b);
}

static oxp_status compare(oxp_sctx *c, oxp_node *n, const char *op,
                          bool negate) {
  const char *sa, *sb;
  if (both_str(n, &sa, &sb)) {
    /* Strings have no ONNX form; constant ones compare now. */
    bool eq = strcmp(sa, sb) == 0;
    return oxp_m_set_out(c, n, 0,
                           oxp_sym_const_scalar(c, eq != negate, OXP_DT_BOOL));
  }
  const oxp_type *ta = oxp_sym_in_type(n, 0), *tb = oxp_sym_in_type(n, 1);
  if (ta && tb && ta->kind == OXP_T_DEVICE && tb->kind == OXP_T_DEVICE)
    /* ONNX has no devices: all are equal, as in torch's exporter. */
    return oxp_m_set_out(c, n, 0, oxp_sym_const_scalar(c, !negate, OXP_DT_BOOL));
  int dt = operand_dtype(c, n);
  oxp_value *a, *b;
  if (!oxp_m_pair(c, n, 0, 1, dt, &a, &b)) return oxp_sym_status(c);
  oxp_value *y = oxp_m_compare(c, op, a, b, dt);
  if (negate) y = oxp_sym_op1(c, "Not", y);
  int out = oxp_sym_out_dtype(n, 0, OXP_DT_BOOL);
  return oxp_m_set_out(c, n, 0, oxp_m_to(c, y, out));
}

oxp_status oxp_s_eq(oxp_sctx *c, oxp_node *n) { return compare(c, n, "Equal", false); }
oxp_status oxp_s_ne(oxp_sctx *c, oxp_node *n) { return compare(c, n, "Equal", true); }
oxp_status oxp_s_lt(oxp_sctx *c, oxp_node *n) { return compare(c, n, "Less", false); }
oxp_status oxp_s_gt(oxp_sctx *c, oxp_node *n) { return compare(c, n, "Greater", false); }
oxp_status oxp_s_le(oxp_sctx *c, oxp_node *n) { return compare(c, n, "LessOrEqual", false); }
oxp_status oxp_s_ge(oxp_sctx *c, oxp_node *n) { return compare(c, n, "GreaterOrEqual", false); }

/* ---- logical ---------------------------------------------------------------- */

/* Operand i as a truth value in the dtype dt both operands meet in:
 * torch converts a float operand to a narrower common float first, and
 * what rounds to 0 there is false (a float64 1e-300 beside a float32
 * tensor, a float32 1e-8 beside a float16 one). That is |x| <= half of
 * dt's smallest subnormal (ties round to the even 0), compared in x's own
 * dtype: a Cast to dt and on to bool loses its middle in onnxruntime
 * (difftest known ort-cast-chain), and a float16 compare after the Cast
 * runs in float32 there (ort-f16-chain-underflow). NaN stays true. */
static oxp_value *truth(oxp_sctx *c, oxp_node *n, int i, int dt) {
  int di = oxp_m_in_dtype(c, n, i);
  double half_min = dt == OXP_DT_FLOAT ? ldexp(1, -150) : dt == OXP_DT_FLOAT16 ? ldexp(1, -25) : 0;
  if (!half_min || oxp_dtype_size(di) <= oxp_dtype_size(dt))
    return oxp_sym_in_as(c, n, i, OXP_DT_BOOL);
  oxp_value *x = oxp_sym_in(c, n, i);
  oxp_value *zero = x ? oxp_m_compare(c, "LessOrEqual", oxp_sym_op1(c, "Abs", x),
                                      oxp_sym_const_scalar(c, half_min, di), di)
                      : NULL;
  return zero ? oxp_sym_op1(c, "Not", zero) : NULL;
}

/* logical_*: operands are truth values (nonzero is true). */
static oxp_status logical(oxp_sctx *c, oxp_node *n, const char *op) {
  int d0 = oxp_m_in_dtype(c, n, 0), d1 = op ? oxp_m_in_dtype(c, n, 1) : 0;
  int dt = 0;
  if (oxp_dtype_is_float(d0) && oxp_dtype_is_float(d1) && d0 != d1) {
    dt = oxp_m_result_dtype(c, n, 0, 1);
    if (!dt && oxp_sym_status(c)) return oxp_sym_status(c);
  }
  oxp_value *a = truth(c, n, 0, dt);
  oxp_value *y;
  if (!op) y = oxp_sym_op1(c, "Not", a);
  else y = oxp_sym_op2(c, op, a, a ? truth(c, n, 1, dt) : NULL);
  int out = oxp_sym_out_dtype(n, 0, OXP_DT_BOOL);
  return oxp_m_set_out(c, n, 0, oxp_m_to(c, y, out));
}

oxp_status oxp_s_logical_and(oxp_sctx *c, oxp_node *n) { return logical(c, n, "And"); }
oxp_status oxp_s_logical_or(oxp_sctx *c, oxp_node *n) { return logical(c, n, "Or"); }
oxp_status oxp_s_logical_xor(oxp_sctx *c, oxp_node *n) { return logical(c, n, "Xor"); }
oxp_status oxp_s_logical_not(oxp_sctx *c, oxp_node *n) { return logical(c, n, NULL); }

/* ---- bitwise ---------------------------------------------------------------- */

/* &, |, ^: logical on bool; BitwiseAnd/Or/Xor on integers exist only
 * from opset 18 (below it, s_bitwise_int.c). */
static oxp_status bitwise(oxp_sctx *c, oxp_node *n, const char *op) {
  int dt = operand_dtype(c, n);
  oxp_value *a, *b;
  if (!oxp_m_pair(c, n, 0, 1, dt, &a, &b)) return oxp_sym_status(c);
  if (dt == OXP_DT_BOOL) return oxp_m_set_out(c, n, 0, oxp_sym_op2(c, op, a, b));
  if (!oxp_dtype_is_int(dt))
    return oxp_sym_unsupported(c, "a bitwise op on non-integer tensors");
  if (oxp_sym_opset(c) < 18) /* arithmetic, with a constant operand */
    return oxp_bitwise_int_below18(c, n, op[0] == 'A' ? 'a' : op[0] == 'O' ? 'o' : 'x',
                                   dt);
  char name[16];
  snprintf(name, sizeof name, "Bitwise%s", op);
  return oxp_m_set_out(c, n, 0, oxp_sym_op2(c, name, a, b));
}

oxp_status oxp_s_bitwise_and(oxp_sctx *c, oxp_node *n) { return bitwise(c, n, "And"); }
oxp_status oxp_s_bitwise_or(oxp_sctx *c, oxp_node *n) { return bitwise(c, n, "Or"); }
oxp_status oxp_s_bitwise_xor(oxp_sctx *c, oxp_node *n) { return bitwise(c, n, "Xor"); }

/* ~x: Not on bool; BitwiseNot from opset 18; before it, -1 - x for
 * signed (two's complement) and max - x for unsigned integers. */
oxp_status oxp_s_bitwise_not(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int dt = oxp_m_in_dtype(c, n, 0);
  if (dt == OXP_DT_BOOL) return oxp_m_set_out(c, n, 0, oxp_sym_op1(c, "Not", x));
  if (!oxp_dtype_is_int(dt))
    return oxp_sym_unsupported(c, "bitwise_not of a non-integer tensor");
  if (oxp_sym_opset(c) >= 18)
    return oxp_m_set_out(c, n, 0, oxp_sym_op1(c, "BitwiseNot", x));
  double top;
  switch (dt) {
  case OXP_DT_UINT8: top = 255; break;
  case OXP_DT_UINT16: top = 65535; break;
  case OXP_DT_UINT32: top = 4294967295.0; break;
  case OXP_DT_UINT64:
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "%s: bitwise_not of uint64 is not supported at opset %d "
                        "(supported from opset 18)", n->kind, oxp_sym_opset(c));
  default: top = -1;
  }
  oxp_value *k = oxp_sym_const_scalar(c, top, dt);
  return oxp_m_set_out(c, n, 0, oxp_m_arith(c, "Sub", k, x, dt));
}

/* ---- shifts ----------------------------------------------------------------- */

/* 2^y in dtype dt: a constant for a constant y, else Pow in double. */
static oxp_value *pow2(oxp_sctx *c, oxp_node *n, int dt) {
  int64_t y;
  if (oxp_sym_int(n, 1, &y) && y >= 0 && y < 63)
    return oxp_sym_const_scalar(c, ldexp(1, (int)y), dt);
  oxp_value *e = oxp_sym_in_as(c, n, 1, OXP_DT_DOUBLE);
  oxp_value *p = oxp_sym_op2(c, "Pow", oxp_sym_const_scalar(c, 2, OXP_DT_DOUBLE), e);
  oxp_sym_set_type(c, p, OXP_DT_DOUBLE, -1, NULL);
  return oxp_m_to(c, p, dt);
}

static bool is_unsigned(int dt) {
  return dt == OXP_DT_UINT8 || dt == OXP_DT_UINT16 || dt == OXP_DT_UINT32 ||
         dt == OXP_DT_UINT64;
}

/* x << y = x * 2^y and x >> y = floor(x / 2^y) (arithmetic shift);
 * BitShift (opset 11) is unsigned-only. */
static oxp_status shift(oxp_sctx *c, oxp_node *n, bool left) {
  int dt = oxp_sym_out_dtype(n, 0, 0);
  if (!dt) dt = operand_dtype(c, n);
  oxp_value *x = oxp_sym_in_as(c, n, 0, dt);
  if (!x) return oxp_sym_status(c);
  if (is_unsigned(dt) && oxp_sym_opset(c) >= 11) {
    oxp_node *k = oxp_sym_op(c, "BitShift",
                             (oxp_value *[]){x, oxp_sym_in_as(c, n, 1, dt)}, 2, 1);
    if (!k) return oxp_sym_status(c);
    oxp_attr_set_s(k, "direction", left ? "LEFT" : "RIGHT");
    return oxp_m_set_out(c, n, 0, k->outputs[0]);
  }
  oxp_value *y;
  int64_t k;
  if (left) y = oxp_m_arith(c, "Mul", x, pow2(c, n, dt), dt);
  else if (oxp_dtype_is_float(dt)) y = oxp_sym_op2(c, "Div", x, pow2(c, n, dt));
  else {
    /* 2^y must fit the divisor's type (int8 >> 7 divides by 128): in
     * int64 unless it does; the quotient fits dt again. */
    if (!(oxp_sym_int(n, 1, &k) && k >= 0 &&
          k < 8 * (int64_t)oxp_dtype_size(dt) - 1)) {
      y = oxp_m_floor_div_int(c, oxp_m_to(c, x, OXP_DT_INT64),
                              pow2(c, n, OXP_DT_INT64), OXP_DT_INT64);
      y = oxp_m_to(c, y, dt);
    } else {
      y = oxp_m_floor_div_int(c, x, pow2(c, n, dt), dt);
    }
  }
  return oxp_m_set_out(c, n, 0, y);
}

oxp_status oxp_s_lshift(oxp_sctx *c, oxp_node *n) { return shift(c, n, true); }
oxp_status oxp_s_rshift(oxp_sctx *c, oxp_node *n) { return shift(c, n, false); }
