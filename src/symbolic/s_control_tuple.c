/* s_control_tuple.c: prim::TupleIndex at an index only the run time
 * knows (a loop counter, arithmetic on sizes). Constant indices never
 * get here: type inference and tuple lowering take the element itself.
 *
 * TorchScript allows a run-time index only into a tuple whose elements
 * share one type, here tensors; ONNX needs them to share a dtype too.
 *   - from opset 11: SequenceConstruct of the elements, SequenceAt (its
 *     index may be negative, as TorchScript's; out of range fails at run
 *     time as torch raises);
 *   - opset 9 and 10: the elements stacked on a new first axis and
 *     Gather at the index made non-negative (Where on Less), which needs
 *     them all of one shape: a shape that differs where the export sees
 *     it is a named error, elsewhere Concat fails at run time.
 * Other tuples are named errors. */
#include <string.h>

#include "ops.h"
#include "s_control.h"

static oxp_status by_gather(oxp_sctx *c, oxp_value **vals, int cnt, oxp_value *pos,
                            int dtype, oxp_value **out) {
  const oxp_type *t0 = vals[0]->type;
  for (int k = 1; k < cnt; k++) {
    const oxp_type *t = vals[k]->type;
    if (!t0 || !t || t->rank != t0->rank) continue;
    for (int j = 0; j < t->rank; j++)
      if (t->dims[j] >= 0 && t0->dims[j] >= 0 && t->dims[j] != t0->dims[j])
        return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                            "prim::TupleIndex at a run-time index over tensors of different "
                            "shapes (element %d differs from element 0 in dim %d) needs "
                            "ONNX sequences: export at opset 11 or later", k, j);
  }
  oxp_value **parts = oxp_alloc(oxp_sym_arena(c), sizeof *parts * (size_t)cnt);
  if (!parts) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  const int64_t zero = 0;
  for (int k = 0; k < cnt; k++)
    if (!(parts[k] = oxp_sym_unsqueeze(c, vals[k], &zero, 1))) return oxp_sym_status(c);
  oxp_node *cat = oxp_sym_op(c, "Concat", parts, cnt, 1);
  if (!cat) return oxp_sym_status(c);
  oxp_attr_set_i(cat, "axis", 0);
  oxp_value *neg = oxp_sym_op2(c, "Less", pos, oxp_sym_const_i64(c, 0));
  oxp_value *wrapped = oxp_sym_op2(c, "Add", pos, oxp_sym_const_i64(c, cnt));
  oxp_value *at = oxp_sym_op3(c, "Where", neg, wrapped, pos);
  oxp_node *g = at ? oxp_sym_op(c, "Gather", (oxp_value *[]){cat->outputs[0], at}, 2, 1) : NULL;
  if (!g) return oxp_sym_status(c);
  oxp_attr_set_i(g, "axis", 0);
  oxp_sym_set_type(c, g->outputs[0], dtype, t0 ? t0->rank : -1, NULL);
  *out = g->outputs[0];
  return OXP_OK;
}

oxp_status oxp_s_tuple_index(oxp_sctx *c, oxp_node *n) {
  oxp_value *tup = oxp_sym_src(n, 0);
  oxp_node *tc = tup ? tup->producer : NULL;
  if (!tc || !oxp_kind_is(tc, "prim::TupleConstruct") || n->ninputs != 2)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "prim::TupleIndex of %%%s: the tuple is not built by "
                        "prim::TupleConstruct in the graph, so its elements are unknown",
                        tup && tup->name ? tup->name : "?");
  int cnt = tc->ninputs;
  int64_t i;
  if (oxp_sym_int(n, 1, &i)) {
    if (i < 0) i += cnt;
    if (i < 0 || i >= cnt)
      return oxp_sym_fail(c, OXP_ERR_GRAPH, "prim::TupleIndex: index out of range for a "
                          "tuple of %d", cnt);
    return oxp_sym_set_out(c, n, 0, oxp_sym_in(c, tc, (int)i));
  }
  if (cnt == 0)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "prim::TupleIndex into an empty tuple");
  oxp_value **vals = oxp_alloc(oxp_sym_arena(c), sizeof *vals * (size_t)cnt);
  if (!vals) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  int dtype = 0;
  for (int k = 0; k < cnt; k++) {
    const oxp_type *st = oxp_sym_in_type(tc, k);
    if (st && st->kind != OXP_T_TENSOR)
      return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                          "prim::TupleIndex at a run-time index: element %d of the tuple is "
                          "not a tensor; only tuples of tensors are supported", k);
    if (!(vals[k] = oxp_sym_in(c, tc, k))) return oxp_sym_status(c);
    int dt = oxp_sym_need_dtype(c, vals[k]);
    if (!dt) return oxp_sym_status(c);
    if (k && dt != dtype)
      return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                          "prim::TupleIndex at a run-time index over tensors of different "
                          "dtypes (%s and %s): an ONNX value has one dtype",
                          oxp_dtype_name(dtype), oxp_dtype_name(dt));
    dtype = dt;
  }
  oxp_value *pos = oxp_sym_in_as(c, n, 1, OXP_DT_INT64);
  if (!pos) return oxp_sym_status(c);
  oxp_value *out = NULL;
  if (oxp_sym_opset(c) < 11) {
    oxp_status st = by_gather(c, vals, cnt, pos, dtype, &out);
    if (st) return st;
    return oxp_sym_set_out(c, n, 0, out);
  }
  oxp_node *sc = oxp_sym_op(c, "SequenceConstruct", vals, cnt, 1);
  if (!sc) return oxp_sym_status(c);
  out = oxp_sym_op2(c, "SequenceAt", sc->outputs[0], pos);
  if (!out) return oxp_sym_status(c);
  int rank = vals[0]->type ? vals[0]->type->rank : -1;
  for (int k = 1; k < cnt; k++)
    if (!vals[k]->type || vals[k]->type->rank != rank) rank = -1;
  oxp_sym_set_type(c, out, dtype, rank, NULL);
  return oxp_sym_set_out(c, n, 0, out);
}
