/* s_histogram.c: bincount, which no torch exporter maps: every element
 * is compared with every bin (an N x length one-hot) and summed. The
 * length, max(x) + 1 or minlength, is known only at run time, which ONNX
 * allows (Range, opset 11). (histc is not mapped: torch bins by its
 * linspace edges with a local search around the interpolated bin, see
 * docs/ops-notes/tensor.txt.) */
#include "s_math_util.h"

/* bincount(self, weights, minlength) */
oxp_status oxp_s_bincount(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in_as(c, n, 0, OXP_DT_INT64);
  int64_t minlength = 0;
  if (!x) return oxp_sym_status(c);
  if (n->ninputs > 2 && !oxp_sym_need_int(c, n, 2, &minlength)) return oxp_sym_status(c);
  if (oxp_sym_rank(x) != 1)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: needs a 1-d input", n->kind);
  /* max(x) + 1, 0 for an empty x, at least minlength */
  oxp_node *cat = oxp_sym_op(c, "Concat",
                             (oxp_value *[]){x, oxp_sym_const_i64s(c, (int64_t[]){-1}, 1)}, 2, 1);
  if (!cat) return oxp_sym_status(c);
  oxp_attr_set_i(cat, "axis", 0);
  int64_t ax = 0;
  oxp_value *len = oxp_sym_op2(c, "Add", oxp_sym_reduce(c, "ReduceMax", cat->outputs[0],
                                                        &ax, 1, false),
                               oxp_sym_const_i64(c, 1));
  len = oxp_m_maxmin(c, true, len, oxp_sym_const_i64(c, minlength), OXP_DT_INT64);
  oxp_value *bins = oxp_sym_op3(c, "Range", oxp_sym_const_i64(c, 0), len,
                                oxp_sym_const_i64(c, 1));
  int64_t a1 = 1;
  oxp_value *hit = oxp_m_compare(c, "Equal", oxp_sym_unsqueeze(c, x, &a1, 1), bins,
                                 OXP_DT_INT64);
  int out = oxp_sym_out_dtype(n, 0, 0);
  oxp_value *v;
  if (n->ninputs > 1 && !oxp_sym_is_none(n, 1)) {
    if (!out) return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: the result dtype is "
                                  "unknown", n->kind);
    oxp_value *w = oxp_sym_in_as(c, n, 1, OXP_DT_DOUBLE);
    /* torch sums the weights in double */
    v = oxp_sym_op3(c, "Where", hit, oxp_sym_unsqueeze(c, w, &a1, 1),
                    oxp_sym_const_scalar(c, 0, OXP_DT_DOUBLE));
    v = oxp_m_to(c, oxp_sym_reduce(c, "ReduceSum", v, &ax, 1, false), out);
  } else {
    v = oxp_sym_reduce(c, "ReduceSum", oxp_sym_cast(c, hit, OXP_DT_INT64), &ax, 1, false);
  }
  return oxp_m_set_out(c, n, 0, v);
}
