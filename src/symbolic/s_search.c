/* s_search.c: searchsorted and isin, which no torch exporter maps. The insertion
 * point is a count, not a binary search: for a sorted sequence the
 * number of elements s with !(s >= v) (left) or !(s > v) (right) is
 * exactly where torch's binary search lands, NaN values included (they
 * go past the end, since every test with NaN is false). */
#include "s_math_util.h"

/* searchsorted(sorted_sequence, self, out_int32, right, side, sorter);
 * self may be a scalar (searchsorted.Scalar). */
oxp_status oxp_s_searchsorted(oxp_sctx *c, oxp_node *n) {
  bool i32 = false, right = false;
  const char *side = NULL;
  if ((n->ninputs > 2 && !oxp_sym_bool(n, 2, &i32)) ||
      (n->ninputs > 3 && !oxp_sym_bool(n, 3, &right)) ||
      (n->ninputs > 4 && !oxp_sym_is_none(n, 4) && !oxp_sym_str(n, 4, &side)))
    return oxp_sym_unsupported(c, "searchsorted with runtime flags");
  if (side) right = side[0] == 'r';
  int dt = oxp_m_result_dtype(c, n, 0, 1);
  if (!dt) return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: the operands' dtype "
                               "is unknown", n->kind);
  oxp_value *s, *v;
  if (!oxp_m_pair(c, n, 0, 1, dt, &s, &v)) return oxp_sym_status(c);
  int rs = oxp_sym_rank(s), rv = oxp_sym_rank(v);
  if (rs < 1 || rv < 0)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: needs the operands' ranks",
                        n->kind);
  if (rs > 1 && rs != rv)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: a %d-d sorted_sequence needs "
                        "values of the same rank", n->kind, rs);
  if (n->ninputs > 5 && !oxp_sym_is_none(n, 5)) {
    if (oxp_sym_opset(c) < 11)
      return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: a sorter is not supported "
                          "at opset %d (supported from opset 11)", n->kind,
                          oxp_sym_opset(c));
    oxp_node *g = oxp_sym_op(c, "GatherElements",
                             (oxp_value *[]){s, oxp_sym_in_as(c, n, 5, OXP_DT_INT64)}, 2, 1);
    if (!g) return oxp_sym_status(c);
    oxp_attr_set_i(g, "axis", rs - 1);
    s = g->outputs[0];
  }
  int64_t av = rv, as = rs - 1;
  oxp_value *vu = oxp_sym_unsqueeze(c, v, &av, 1);
  if (rs > 1) s = oxp_sym_unsqueeze(c, s, &as, 1);
  /* s >= v (left) or s > v (right), negated: true for NaN either side */
  oxp_value *past = oxp_sym_op1(c, "Not", oxp_m_compare(c, right ? "Greater" : "GreaterOrEqual",
                                                        s, vu, dt));
  oxp_value *cnt = oxp_sym_reduce(c, "ReduceSum", oxp_sym_cast(c, past, OXP_DT_INT64),
                                  &av, 1, false);
  return oxp_m_set_out(c, n, 0, i32 ? oxp_sym_cast(c, cnt, OXP_DT_INT32) : cnt);
}

/* isin(elements, test_elements, assume_unique, invert): any equal test
 * element, by an elements x tests comparison (NaN is in nothing, as in
 * torch). Elements or tests may be scalars. */
oxp_status oxp_s_isin(oxp_sctx *c, oxp_node *n) {
  bool invert = false;
  if (n->ninputs > 3 && !oxp_sym_bool(n, 3, &invert))
    return oxp_sym_unsupported(c, "isin with a runtime invert");
  int dt = oxp_m_result_dtype(c, n, 0, 1);
  if (!dt) return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: the operands' dtype "
                               "is unknown", n->kind);
  oxp_value *e, *t;
  if (!oxp_m_pair(c, n, 0, 1, dt, &e, &t)) return oxp_sym_status(c);
  int r = oxp_sym_rank(e);
  if (r < 0) return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: needs the rank of the "
                                 "elements", n->kind);
  t = oxp_sym_op2(c, "Reshape", t, oxp_sym_const_i64s(c, (int64_t[]){-1}, 1));
  int64_t ax = r;
  oxp_value *eq = oxp_m_compare(c, "Equal", oxp_sym_unsqueeze(c, e, &ax, 1), t, dt);
  oxp_value *cnt = oxp_sym_reduce(c, "ReduceSum", oxp_sym_cast(c, eq, OXP_DT_INT64),
                                  &ax, 1, false);
  oxp_value *none = oxp_m_compare(c, "Equal", cnt, oxp_sym_const_i64(c, 0), OXP_DT_INT64);
  return oxp_m_set_out(c, n, 0, invert ? none : oxp_sym_op1(c, "Not", none));
}
