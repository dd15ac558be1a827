/* s_bitwise_int.c: integer &, |, ^ below opset 18, where ONNX has no
 * BitwiseAnd/Or/Xor. With one operand a constant m the result is plain
 * integer arithmetic, exact in two's complement: a & m sums, for each
 * run of set bits [lo, hi) of m, floor(a / 2^lo) mod 2^(hi - lo) scaled
 * back by 2^lo (a negative m clears the bits of ~m instead); then
 * a | m = (a - (a & m)) + m and a ^ m = (a - (a & m)) + (m - (a & m)),
 * sums of disjoint bits that cannot overflow. Two runtime operands, and
 * masks reaching the bit below the sign, are refused with a named error
 * naming opset 18. */
#include "s_math_util.h"

static int width(int dt) {
  switch (dt) {
  case OXP_DT_INT8: case OXP_DT_UINT8: return 8;
  case OXP_DT_INT16: case OXP_DT_UINT16: return 16;
  case OXP_DT_INT32: return 32;
  case OXP_DT_INT64: return 64;
  default: return 0;  /* uint32, uint64: refused */
  }
}

static bool is_unsigned(int dt) {
  return dt == OXP_DT_UINT8 || dt == OXP_DT_UINT16;
}

/* The constant v in dt: int64 ones built exactly (a double holds 53
 * bits); narrower ones fit a double. */
static oxp_value *kint(oxp_sctx *c, int64_t v, int dt) {
  return dt == OXP_DT_INT64 ? oxp_sym_const_i64(c, v)
                            : oxp_sym_const_scalar(c, (double)v, dt);
}

/* Bits [lo, hi) of a, as a number shifted down by lo: floor(a / 2^lo)
 * mod 2^(hi - lo) (floor division, so negative a reads its two's
 * complement bits). */
static oxp_value *bit_run(oxp_sctx *c, oxp_value *a, int lo, int hi, int dt) {
  oxp_value *q = lo ? oxp_m_floor_div_int(c, a, kint(c, INT64_C(1) << lo, dt), dt)
                    : a;
  oxp_value *p = kint(c, INT64_C(1) << (hi - lo), dt);
  oxp_value *f = oxp_m_floor_div_int(c, q, p, dt);
  return oxp_m_arith(c, "Sub", q, oxp_m_arith(c, "Mul", f, p, dt), dt);
}

/* a & m for a constant m >= 0 whose set bits lie below bit w - 1. */
static oxp_value *and_pos(oxp_sctx *c, oxp_value *a, uint64_t m, int dt) {
  oxp_value *sum = NULL;
  for (int lo = 0; lo < 63 && (m >> lo); lo++) {
    if (!((m >> lo) & 1)) continue;
    int hi = lo;
    while (hi < 63 && ((m >> hi) & 1)) hi++;
    oxp_value *r = bit_run(c, a, lo, hi, dt);
    if (lo) r = oxp_m_arith(c, "Mul", r, kint(c, INT64_C(1) << lo, dt), dt);
    sum = sum ? oxp_m_arith(c, "Add", sum, r, dt) : r;
    lo = hi;
  }
  return sum ? sum : oxp_m_arith(c, "Mul", a, kint(c, 0, dt), dt);
}

/* The constant is one element, read as a number; a tensor constant of
 * rank k (torch.ones([1], dtype=torch.long) | x for a 0-d x) still
 * broadcasts the result to rank k. */
static oxp_value *broadcast_const(oxp_sctx *c, oxp_node *n, int ci, oxp_value *a,
                                  oxp_value *r) {
  const oxp_type *t = oxp_sym_in_type(n, ci);
  int k = t && t->kind == OXP_T_TENSOR ? t->rank : -1, ra = oxp_sym_rank(a);
  if (!r || k <= 0 || (ra >= 0 && ra >= k)) return r;
  int64_t ones[OXP_MAX_SHAPE_RANK];
  for (int i = 0; i < k && i < OXP_MAX_SHAPE_RANK; i++) ones[i] = 1;
  return oxp_sym_op2(c, "Expand", r, oxp_sym_const_i64s(c, ones, k));
}

oxp_status oxp_bitwise_int_below18(oxp_sctx *c, oxp_node *n, char op, int dt) {
  int64_t m;
  int ci = oxp_sym_int(n, 1, &m) ? 1 : oxp_sym_int(n, 0, &m) ? 0 : -1;
  int w = width(dt);
  const char *why = NULL;
  if (ci < 0) why = "with two runtime operands";
  else if (!w) why = "of this integer type";
  /* the mask (complemented when negative) must lie below the highest
   * value bit: 2^(hi - lo) and 2^lo are constants of dt */
  int64_t pos = m < 0 ? -1 - m : m;
  int top = is_unsigned(dt) ? w : w - 1;
  if (!why && (uint64_t)pos >= (UINT64_C(1) << (top - 1)))
    why = "with a mask reaching the highest value bit";
  if (!why && is_unsigned(dt) && m < 0) why = "with a negative mask on an unsigned type";
  if (why)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: bitwise ops on integer tensors "
                        "%s are not supported at opset %d (supported from opset 18; "
                        "below it one operand must be a constant)", n->kind, why,
                        oxp_sym_opset(c));
  oxp_value *a = oxp_sym_in_as(c, n, 1 - ci, dt);
  if (!a) return oxp_sym_status(c);
  oxp_value *am = m >= 0 ? and_pos(c, a, (uint64_t)m, dt)
                         : oxp_m_arith(c, "Sub", a, and_pos(c, a, (uint64_t)pos, dt), dt);
  oxp_value *r = am;
  if (op != 'a') {
    oxp_value *mk = kint(c, m, dt);
    oxp_value *a_only = oxp_m_arith(c, "Sub", a, am, dt);
    oxp_value *m_only = op == 'o' ? mk : oxp_m_arith(c, "Sub", mk, am, dt);
    r = oxp_m_arith(c, "Add", a_only, m_only, dt);
  }
  return oxp_m_set_out(c, n, 0, broadcast_const(c, n, ci, a, r));
}
