/* s_unique.c: unique_consecutive, which no torch exporter maps (ONNX
 * Unique merges equal values anywhere, not runs). A run starts where an
 * element differs from the one before it (NaN differs from NaN, as in
 * torch); the output keeps the run starts, the inverse is the running
 * count of starts less one, the counts are the gaps between starts. */
#include "s_math_util.h"

/* unique_consecutive(self, return_inverse, return_counts, dim) ->
 * (output, inverse, counts); only dim=None (the flattened input). */
oxp_status oxp_s_unique_consecutive(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  bool inv = false, counts = false;
  if (!x) return oxp_sym_status(c);
  if ((n->ninputs > 1 && !oxp_sym_bool(n, 1, &inv)) ||
      (n->ninputs > 2 && !oxp_sym_bool(n, 2, &counts)))
    return oxp_sym_unsupported(c, "unique_consecutive with runtime flags");
  if (n->ninputs > 3 && !oxp_sym_is_none(n, 3))
    return oxp_sym_unsupported(c, "unique_consecutive along a dim");
  int dt = oxp_sym_need_dtype(c, x);
  if (!dt) return oxp_sym_status(c);
  oxp_value *f = oxp_sym_op2(c, "Reshape", x, oxp_sym_const_i64s(c, (int64_t[]){-1}, 1));
  int64_t ax = 0, s1 = 1, e1 = INT64_MAX, s0 = 0, e0 = -1;
  oxp_value *hi = oxp_sym_slice(c, f, &ax, &s1, &e1, NULL, 1);
  oxp_value *lo = oxp_sym_slice(c, f, &ax, &s0, &e0, NULL, 1);
  oxp_value *eq = dt == OXP_DT_BOOL
                      ? oxp_sym_op1(c, "Not", oxp_sym_op2(c, "Xor", hi, lo))
                      : oxp_m_compare(c, "Equal", hi, lo, dt);
  oxp_tensor *t = oxp_tensor_alloc(oxp_sym_arena(c), OXP_DT_BOOL, 1, (int64_t[]){1});
  if (!t) return oxp_sym_status(c);
  ((uint8_t *)t->data)[0] = 1;
  oxp_node *cat = oxp_sym_op(c, "Concat",
                             (oxp_value *[]){oxp_sym_const(c, t), oxp_sym_op1(c, "Not", eq)},
                             2, 1);
  if (!cat) return oxp_sym_status(c);
  oxp_attr_set_i(cat, "axis", 0);
  oxp_value *start = cat->outputs[0];
  /* an empty input has no first element: its start flag is dropped */
  oxp_value *zero1 = oxp_sym_const_i64s(c, (int64_t[]){0}, 1);
  oxp_node *sl = oxp_sym_op(c, "Slice", (oxp_value *[]){start, zero1,
                            oxp_sym_op1(c, "Shape", f), zero1}, 4, 1);
  if (!sl) return oxp_sym_status(c);
  start = sl->outputs[0];
  oxp_value *empty = oxp_sym_const_i64s(c, NULL, 0);
  oxp_node *cp = oxp_sym_op(c, "Compress", (oxp_value *[]){f, start}, 2, 1);
  if (!cp) return oxp_sym_status(c);
  oxp_attr_set_i(cp, "axis", 0);
  oxp_status st = oxp_m_set_out(c, n, 0, cp->outputs[0]);
  if (st) return st;
  if (n->noutputs > 1) {
    oxp_value *iv = empty;
    if (inv) {
      oxp_value *cs = oxp_sym_op2(c, "CumSum", oxp_sym_cast(c, start, OXP_DT_INT64),
                                  oxp_sym_const_i64(c, 0));
      iv = oxp_sym_op2(c, "Reshape", oxp_sym_op2(c, "Sub", cs, oxp_sym_const_i64(c, 1)),
                       oxp_sym_op1(c, "Shape", x));
    }
    if ((st = oxp_m_set_out(c, n, 1, iv))) return st;
  }
  if (n->noutputs > 2) {
    oxp_value *cv = empty;
    if (counts) {
      oxp_value *at = oxp_sym_squeeze(c, oxp_sym_op1(c, "NonZero", start), &ax, 1);
      oxp_value *next = oxp_sym_slice(c, at, &ax, &s1, &e1, NULL, 1);
      oxp_node *c2 = oxp_sym_op(c, "Concat",
                                (oxp_value *[]){next, oxp_sym_op1(c, "Shape", f)}, 2, 1);
      if (!c2) return oxp_sym_status(c);
      oxp_attr_set_i(c2, "axis", 0);
      cv = oxp_sym_op2(c, "Sub", c2->outputs[0], at);
    }
    if ((st = oxp_m_set_out(c, n, 2, cv))) return st;
  }
  return OXP_OK;
}
