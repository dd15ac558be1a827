/* dtype_promote.c: torch's type promotion, once, for every caller (the JIT
 * scalar-type analysis in type_promotion.c and jit_type_rules.c, the
 * symbolics through s_math_util.c). Two rules of c10:
 *
 * - promote_types(a, b): the smallest dtype of the highest category
 *   (bool < integer < floating < complex) that holds both;
 * - combine_categories(higher, lower): how a lower-priority operand (a 0-d
 *   tensor beside a dimensioned one, a Python scalar beside a tensor)
 *   changes the result: only when it is of a higher category.
 *
 * tests/unit/test_promote.c checks both over every pair of dtypes against
 * tables torch.promote_types and torch.result_type wrote
 * (tests/tools/gen_promote_table.py). Where torch refuses a pair (uint16,
 * uint32, uint64 with anything but a floating type; float8 with another
 * dtype) or the result is a dtype ONNX has none of (complex32, from a
 * float16 tensor with a 0-d complex one), the answer is OXP_DT_REFUSED and
 * oxp_promote_why names the pair: never a guess. */
#include <stdio.h>

#include "oxp.h"

/* bool 0 < integers 1 < floating 2 < complex 3; -1 for a dtype torch has no
 * promotion for (string). float8 counts as floating, as in c10. */
static int category(int dt) {
  switch (dt) {
  case OXP_DT_BOOL: return 0;
  case OXP_DT_UINT8: case OXP_DT_INT8: case OXP_DT_INT16: case OXP_DT_INT32:
  case OXP_DT_INT64: case OXP_DT_UINT16: case OXP_DT_UINT32: case OXP_DT_UINT64:
    return 1;
  case OXP_DT_FLOAT16: case OXP_DT_BFLOAT16: case OXP_DT_FLOAT: case OXP_DT_DOUBLE:
  case OXP_DT_FLOAT8E4M3FN: case OXP_DT_FLOAT8E4M3FNUZ: case OXP_DT_FLOAT8E5M2:
  case OXP_DT_FLOAT8E5M2FNUZ:
    return 2;
  case OXP_DT_COMPLEX64: case OXP_DT_COMPLEX128: return 3;
  default: return -1;
  }
}

static bool is_float8(int dt) {
  return dt == OXP_DT_FLOAT8E4M3FN || dt == OXP_DT_FLOAT8E4M3FNUZ || dt == OXP_DT_FLOAT8E5M2 ||
         dt == OXP_DT_FLOAT8E5M2FNUZ;
}

/* c10's "barebones unsigned" types, which it promotes only with floats. */
static bool wide_unsigned(int dt) {
  return dt == OXP_DT_UINT16 || dt == OXP_DT_UINT32 || dt == OXP_DT_UINT64;
}

/* Rank within the integers (uint8 aside) and within the floats. */
static int int_rank(int dt) {
  switch (dt) {
  case OXP_DT_INT8: return 1;
  case OXP_DT_INT16: return 2;
  case OXP_DT_INT32: return 3;
  case OXP_DT_INT64: return 4;
  default: return 0;
  }
}

static int float_rank(int dt) {
  switch (dt) {
  case OXP_DT_FLOAT16: case OXP_DT_BFLOAT16: return 1;
  case OXP_DT_FLOAT: return 2;
  case OXP_DT_DOUBLE: return 3;
  default: return 0;
  }
}

int oxp_promote_types(int a, int b) {
  if (!a) return b;
  if (!b) return a;
  int ca = category(a), cb = category(b);
  if (ca < 0 || cb < 0) return OXP_DT_REFUSED;
  if (a == b) return a;
  if (is_float8(a) || is_float8(b)) return OXP_DT_REFUSED;
  if (wide_unsigned(a) || wide_unsigned(b)) {
    if (ca == 2) return a;
    if (cb == 2) return b;
    return OXP_DT_REFUSED;
  }
  if (ca != cb) {
    int hi = ca > cb ? a : b, lo = ca > cb ? b : a;
    /* complex64 with float64 needs complex128. */
    return hi == OXP_DT_COMPLEX64 && lo == OXP_DT_DOUBLE ? OXP_DT_COMPLEX128 : hi;
  }
  switch (ca) {
  case 3: return OXP_DT_COMPLEX128; /* complex64 with complex128 */
  case 2:
    /* float16 with bfloat16 meet in float32. */
    if (float_rank(a) == 1 && float_rank(b) == 1) return OXP_DT_FLOAT;
    return float_rank(a) > float_rank(b) ? a : b;
  case 1:
    /* uint8 with a signed type: the next signed type holding both. */
    if (a == OXP_DT_UINT8 || b == OXP_DT_UINT8) {
      int s = a == OXP_DT_UINT8 ? b : a;
      return s == OXP_DT_INT8 ? OXP_DT_INT16 : s;
    }
    return int_rank(a) > int_rank(b) ? a : b;
  default: return a; /* bool with bool: equal, handled above */
  }
}

/* c10's toComplexType for a floating dtype; float16's (complex32) has no
 * ONNX type. */
static int to_complex(int dt) {
  switch (dt) {
  case OXP_DT_BFLOAT16: case OXP_DT_FLOAT: return OXP_DT_COMPLEX64;
  case OXP_DT_DOUBLE: return OXP_DT_COMPLEX128;
  default: return OXP_DT_REFUSED;
  }
}

int oxp_combine_categories(int higher, int lower) {
  if (higher == OXP_DT_REFUSED || lower == OXP_DT_REFUSED) return OXP_DT_REFUSED;
  if (!higher) return lower;
  if (!lower) return higher;
  int ch = category(higher), cl = category(lower);
  if (ch < 0 || cl < 0) return OXP_DT_REFUSED;
  if (ch == 3) return higher;
  if (cl == 3) return ch == 2 ? to_complex(higher) : lower;
  if (ch == 2) return higher;
  if (higher == OXP_DT_BOOL || cl == 2) return oxp_promote_types(higher, lower);
  return higher;
}

const char *oxp_promote_why(int a, int b, char *buf, size_t n) {
  const char *an = oxp_dtype_name(a), *bn = oxp_dtype_name(b);
  if (category(a) < 0 || category(b) < 0)
    snprintf(buf, n, "%s has no torch type promotion (with %s)", category(a) < 0 ? an : bn,
             category(a) < 0 ? bn : an);
  else if ((is_float8(a) || is_float8(b)) && a != b)
    snprintf(buf, n, "torch does not promote float8 types: %s with %s", an, bn);
  else if ((wide_unsigned(a) || wide_unsigned(b)) && a != b)
    snprintf(buf, n,
             "torch does not promote uint16, uint32 or uint64 with a non-floating type: "
             "%s with %s",
             an, bn);
  else if (a == OXP_DT_FLOAT16 || b == OXP_DT_FLOAT16)
    snprintf(buf, n, "%s with %s gives complex32, which ONNX has no type for", an, bn);
  else
    snprintf(buf, n, "%s with %s has no promoted type", an, bn);
  return buf;
}

/* Promotion within each priority class (dimensioned tensors, 0-d tensors,
 * Python scalars), then c10's combination from the highest class down. */
static int result_type(const oxp_operand *ops, int n, int pair[2]) {
  int r[3] = {0, 0, 0};
  for (int i = 0; i < n; i++) {
    int dt = ops[i].dtype;
    if (!dt) return 0;
    /* A Python float counts as the default dtype. */
    if (ops[i].scalar && oxp_dtype_is_float(dt)) dt = OXP_DT_FLOAT;
    int c = ops[i].scalar ? 2 : ops[i].zero_dim ? 1 : 0;
    int p = oxp_promote_types(r[c], dt);
    if (p == OXP_DT_REFUSED) return pair[0] = r[c], pair[1] = dt, p;
    r[c] = p;
  }
  int lower = oxp_combine_categories(r[1], r[2]);
  if (lower == OXP_DT_REFUSED) return pair[0] = r[1], pair[1] = r[2], lower;
  int dt = oxp_combine_categories(r[0], lower);
  if (dt == OXP_DT_REFUSED) pair[0] = r[0], pair[1] = lower;
  return dt;
}

int oxp_result_type_why(const oxp_operand *ops, int n, int pair[2]) {
  enum { MAXOPS = 64, MAXUNRANKED = 4 };
  int spare[2], unranked[MAXUNRANKED], k = 0;
  if (!pair) pair = spare;
  for (int i = 0; i < n; i++)
    if (ops[i].unranked && !ops[i].scalar) {
      if (k == MAXUNRANKED) return 0;
      unranked[k++] = i;
    }
  if (!k) return result_type(ops, n, pair);
  if (n > MAXOPS) return 0;
  /* Each unranked tensor as 0-d and as dimensioned. */
  oxp_operand tmp[MAXOPS];
  for (int i = 0; i < n; i++) tmp[i] = ops[i];
  int dt = 0;
  for (int m = 0; m < 1 << k; m++) {
    for (int j = 0; j < k; j++) tmp[unranked[j]].zero_dim = (m >> j) & 1;
    int r = result_type(tmp, n, pair);
    if (r <= 0) return r;
    if (m && r != dt) return pair[0] = dt, pair[1] = r, OXP_DT_AMBIGUOUS;
    dt = r;
  }
  return dt;
}
