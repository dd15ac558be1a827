/* s_loss.c: the losses torch's exporter maps: cross_entropy_loss
 * (SoftmaxCrossEntropyLoss), nll_loss / nll_loss2d / nll_loss_nd
 * (NegativeLogLikelihoodLoss), both from opset 12; and the formula forms
 * binary_cross_entropy_with_logits and kl_div. */
#include "s_nn_util.h"

static const char *const reductions[] = {"none", "mean", "sum"};

static bool reduction(oxp_sctx *c, oxp_node *n, int i, int64_t *r) {
  if (!oxp_nn_int_arg(c, n, i, 1, r)) return false;
  if (*r < 0 || *r > 2) {
    oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: unknown reduction %lld", n->kind,
                 (long long)*r);
    return false;
  }
  return true;
}

/* Class-index losses: (scores, target, weight, reduction, ignore_index). */
static oxp_status class_loss(oxp_sctx *c, oxp_node *n, const char *op) {
  oxp_value *x = oxp_sym_in(c, n, 0), *t = oxp_sym_in(c, n, 1);
  int64_t red, ignore;
  if (!x || !t || !reduction(c, n, 3, &red) ||
      !oxp_nn_int_arg(c, n, 4, -100, &ignore))
    return oxp_sym_status(c);
  if (oxp_dtype_is_float(oxp_sym_dtype(t)))
    return oxp_sym_unsupported(c, "class-probability targets");
  if (oxp_sym_rank(x) == 1)
    return oxp_sym_unsupported(c, "an unbatched input");
  bool w = !oxp_sym_is_none(n, 2);
  oxp_value *in[3] = {x, t, w ? oxp_sym_in_as(c, n, 2, oxp_nn_dtype(c, x)) : NULL};
  if (w && !in[2]) return oxp_sym_status(c);
  oxp_node *k = oxp_sym_op(c, op, in, w ? 3 : 2, 1);
  if (!k) return oxp_sym_status(c);
  oxp_attr_set_s(k, "reduction", reductions[red]);
  oxp_attr_set_i(k, "ignore_index", ignore);
  return oxp_sym_set_out(c, n, 0, k->outputs[0]);
}

/* cross_entropy_loss(self, target, weight, reduction, ignore_index,
 *                    label_smoothing) */
oxp_status oxp_s_cross_entropy_loss(oxp_sctx *c, oxp_node *n) {
  double ls;
  if (!oxp_nn_float_arg(c, n, 5, 0, &ls)) return oxp_sym_status(c);
  if (ls != 0) return oxp_sym_unsupported(c, "cross_entropy with label_smoothing");
  return class_loss(c, n, "SoftmaxCrossEntropyLoss");
}

oxp_status oxp_s_nll_loss(oxp_sctx *c, oxp_node *n) {
  return class_loss(c, n, "NegativeLogLikelihoodLoss");
}

static oxp_value *reduce_all(oxp_sctx *c, oxp_value *v, int64_t red) {
  if (red == 0) return v;
  return oxp_sym_reduce(c, red == 1 ? "ReduceMean" : "ReduceSum", v, NULL, 0,
                        false);
}

/* binary_cross_entropy_with_logits(x, t, weight, pos_weight, reduction):
 * (1 - t) x + (1 + (pw - 1) t) softplus(-x), torch's stable form. */
oxp_status oxp_s_bce_with_logits(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t red;
  if (!x || !reduction(c, n, 4, &red)) return oxp_sym_status(c);
  int dt = oxp_nn_dtype(c, x);
  oxp_value *t = oxp_sym_in_as(c, n, 1, dt), *one = oxp_sym_const_scalar(c, 1, dt);
  oxp_value *sp = oxp_sym_op1(c, "Softplus", oxp_sym_op1(c, "Neg", x));
  if (!oxp_sym_is_none(n, 3)) {
    oxp_value *pw = oxp_sym_in_as(c, n, 3, dt);
    oxp_value *lw = oxp_sym_op2(c, "Add", one, oxp_sym_op2(c, "Mul",
                                oxp_sym_op2(c, "Sub", pw, one), t));
    sp = oxp_sym_op2(c, "Mul", lw, sp);
  }
  oxp_value *y = oxp_sym_op2(c, "Add", oxp_sym_op2(c, "Mul",
                             oxp_sym_op2(c, "Sub", one, t), x), sp);
  if (!oxp_sym_is_none(n, 2)) y = oxp_sym_op2(c, "Mul", y, oxp_sym_in_as(c, n, 2, dt));
  return oxp_sym_set_out(c, n, 0, reduce_all(c, y, red));
}

/* kl_div(input, target, reduction, log_target): target * (log target -
 * input), 0 where target is 0 (torch's xlogy); exp(t) (t - input) for
 * log targets. 'batchmean' is a sum traced before a division. */
oxp_status oxp_s_kl_div(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t red;
  bool log_t;
  if (!x || !reduction(c, n, 2, &red) || !oxp_nn_bool_arg(c, n, 3, false, &log_t))
    return oxp_sym_status(c);
  int dt = oxp_nn_dtype(c, x);
  oxp_value *t = oxp_sym_in_as(c, n, 1, dt), *y;
  if (log_t) {
    y = oxp_sym_op2(c, "Mul", oxp_sym_op1(c, "Exp", t), oxp_sym_op2(c, "Sub", t, x));
  } else {
    oxp_value *zero = oxp_sym_const_scalar(c, 0, dt);
    oxp_value *v = oxp_sym_op2(c, "Mul", t, oxp_sym_op2(c, "Sub",
                               oxp_sym_op1(c, "Log", t), x));
    /* Equal takes floats from opset 11; before, t == 0 is !(t > 0 || t < 0). */
    oxp_value *is0 = oxp_sym_opset(c) >= 11
        ? oxp_sym_op2(c, "Equal", t, zero)
        : oxp_sym_op1(c, "Not", oxp_sym_op2(c, "Or", oxp_sym_op2(c, "Greater", t, zero),
                                            oxp_sym_op2(c, "Less", t, zero)));
    y = oxp_sym_op3(c, "Where", is0, zero, v);
  }
  return oxp_sym_set_out(c, n, 0, reduce_all(c, y, red));
}
