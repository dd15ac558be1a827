/* s_sort.c: sorting and selection: sort, argsort, topk (TopK: k as an
 * attribute at 9, an input from 10, `largest` from 11), and the unique
 * variants (Unique, 11). */
#include "s_shape_util.h"

/* TopK of x along axis; k a constant (k >= 0) or the value kv. */
static oxp_node *topk(oxp_sctx *c, oxp_value *x, int64_t k, oxp_value *kv,
                      int64_t axis, bool largest, bool sorted) {
  oxp_node *t;
  if (oxp_sym_opset(c) < 10) {
    if (kv) {
      oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s with a runtime k is not supported at opset 9 "
                   "(supported from opset 10)", "aten::topk");
      return NULL;
    }
    t = oxp_sym_op(c, "TopK", &x, 1, 2);
    if (t) oxp_attr_set_i(t, "k", k);
  } else {
    static const int64_t z = 0;
    oxp_value *kin = kv ? oxp_sym_unsqueeze(c, kv, &z, 1) : oxp_sym_const_i64s(c, &k, 1);
    t = kin ? oxp_sym_op(c, "TopK", (oxp_value *[]){x, kin}, 2, 2) : NULL;
  }
  if (!t) return NULL;
  oxp_attr_set_i(t, "axis", axis);
  if (oxp_sym_opset(c) >= 11) {
    oxp_attr_set_i(t, "largest", largest);
    oxp_attr_set_i(t, "sorted", sorted);
  }
  return t;
}

static bool need_largest(oxp_sctx *c, oxp_node *n, bool largest) {
  if (largest || oxp_sym_opset(c) >= 11) return true;
  oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s in ascending order (smallest first) is not "
               "supported at opset %d (supported from opset 11)", n->kind, oxp_sym_opset(c));
  return false;
}

/* sort(x, dim, descending) / sort(x, stable, dim, descending) and
 * argsort(x, dim, descending): TopK of the whole dim. */
oxp_status oxp_s_sort(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  /* sort.stable(x, stable, dim, descending) has one more input. */
  int base = n->ninputs >= 4 && !oxp_kind_is(n, "aten::argsort") ? 2 : 1;
  int64_t axis;
  bool desc = false;
  if (!oxp_sx_axis_arg(c, n, base, oxp_sym_rank(x), &axis)) return oxp_sym_status(c);
  if (!oxp_sym_bool(n, base + 1, &desc)) return oxp_sym_unsupported(c, "sort with a runtime order");
  if (!need_largest(c, n, desc)) return oxp_sym_status(c);
  int64_t d = oxp_sx_dim(x, (int)axis);
  oxp_value *kv = d < 0 ? oxp_sym_size(c, x, axis) : NULL;
  oxp_node *k = topk(c, x, d, kv, axis, desc, true);
  if (!k) return oxp_sym_status(c);
  if (oxp_kind_is(n, "aten::argsort")) return oxp_sym_set_out(c, n, 0, k->outputs[1]);
  oxp_status st = oxp_sym_set_out(c, n, 0, k->outputs[0]);
  return st ? st : oxp_sym_set_out(c, n, 1, k->outputs[1]);
}

/* topk(x, k, dim, largest, sorted). */
oxp_status oxp_s_topk(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t k = 0, axis;
  bool largest = true, sorted = true;
  if (!x || !oxp_sx_axis_arg(c, n, 2, oxp_sym_rank(x), &axis)) return oxp_sym_status(c);
  if (!oxp_sym_bool(n, 3, &largest) || !oxp_sym_bool(n, 4, &sorted))
    return oxp_sym_unsupported(c, "topk with runtime flags");
  if (!need_largest(c, n, largest)) return oxp_sym_status(c);
  oxp_value *kv = oxp_sym_int(n, 1, &k) ? NULL : oxp_sym_in_as(c, n, 1, OXP_DT_INT64);
  if (!kv && !oxp_sym_int(n, 1, &k)) return oxp_sym_status(c);
  oxp_node *t = topk(c, x, k, kv, axis, largest, sorted);
  if (!t) return oxp_sym_status(c);
  oxp_status st = oxp_sym_set_out(c, n, 0, t->outputs[0]);
  return st ? st : oxp_sym_set_out(c, n, 1, t->outputs[1]);
}

/* _unique(x, sorted, return_inverse) -> (values, inverse);
 * _unique2(x, sorted, return_inverse, return_counts) -> (values, inverse,
 * counts); unique_dim(x, dim, sorted, return_inverse, return_counts).
 * Unique's outputs: Y, indices, inverse_indices, counts. Without a dim
 * the inverse takes x's shape, as in torch. */
oxp_status oxp_s_unique(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  bool with_dim = oxp_kind_is(n, "aten::unique_dim");
  int64_t axis = 0;
  if (with_dim && !oxp_sx_axis_arg(c, n, 1, oxp_sym_rank(x), &axis)) return oxp_sym_status(c);
  bool sorted = true;
  if (!oxp_sym_bool(n, with_dim ? 2 : 1, &sorted)) return oxp_sym_unsupported(c, "unique with a runtime sorted flag");
  /* torch sorts the unique values even for sorted=False on CPU. */
  oxp_node *u = oxp_sym_op(c, "Unique", &x, 1, 4);
  if (!u) return oxp_sym_status(c);
  oxp_attr_set_i(u, "sorted", 1);
  if (with_dim) oxp_attr_set_i(u, "axis", axis);
  oxp_value *inv = u->outputs[2];
  if (!with_dim) inv = oxp_sym_op2(c, "Reshape", inv, oxp_sx_shape(c, x));
  oxp_value *outs[3] = {u->outputs[0], inv, u->outputs[3]};
  for (int i = 0; i < n->noutputs && i < 3; i++) {
    oxp_status st = oxp_sym_set_out(c, n, i, outs[i]);
    if (st) return st;
  }
  return OXP_OK;
}
