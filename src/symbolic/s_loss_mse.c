/* s_loss_mse.c: mse_loss, which PyTorch main's exporter maps from opset 9
 * and torch 1.13's does not: (input - target)^2, then the reduction
 * (0 none, 1 mean, 2 sum) over every element, as torch reduces it. */
#include "s_math_util.h"

oxp_status oxp_s_mse_loss(oxp_sctx *c, oxp_node *n) {
  int64_t red = 1;
  if (n->ninputs > 2 && !oxp_sym_int(n, 2, &red))
    return oxp_sym_unsupported(c, "mse_loss with a runtime reduction");
  if (red < 0 || red > 2)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: unknown reduction %lld", n->kind, (long long)red);
  int dt = oxp_m_result_dtype(c, n, 0, 1);
  if (!dt) dt = oxp_sym_need_out_dtype(c, n, 0);
  if (!dt) return oxp_sym_status(c);
  if (!oxp_dtype_is_float(dt))
    return oxp_sym_unsupported(c, "mse_loss of non-float tensors (torch refuses it too)");
  oxp_value *a, *b;
  if (!oxp_m_pair(c, n, 0, 1, dt, &a, &b)) return oxp_sym_status(c);
  oxp_value *d = oxp_sym_op2(c, "Sub", a, b);
  oxp_value *sq = oxp_sym_op2(c, "Mul", d, d);
  if (red == 0) return oxp_m_set_out(c, n, 0, sq);
  return oxp_m_set_out(c, n, 0, oxp_sym_reduce(c, red == 1 ? "ReduceMean" : "ReduceSum", sq,
                                               NULL, 0, false));
}
