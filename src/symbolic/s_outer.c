/* s_outer.c: addr, the scaled outer-product update no torch exporter
 * maps: beta * self + alpha * (vec1 x vec2), where beta == 0 ignores
 * self entirely (its NaN and inf do not pass), as torch does. */
#include "s_math_util.h"

/* addr(self, vec1, vec2, beta, alpha) */
oxp_status oxp_s_addr(oxp_sctx *c, oxp_node *n) {
  double beta = 1, alpha = 1;
  if ((n->ninputs > 3 && !oxp_sym_float(n, 3, &beta)) ||
      (n->ninputs > 4 && !oxp_sym_float(n, 4, &alpha)))
    return oxp_sym_unsupported(c, "addr with a runtime beta or alpha");
  int dt = oxp_sym_out_dtype(n, 0, 0);
  if (!dt) return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: the result dtype is "
                               "unknown", n->kind);
  if (dt == OXP_DT_BOOL) return oxp_sym_unsupported(c, "addr of bool tensors");
  oxp_value *v1 = oxp_sym_in_as(c, n, 1, dt), *v2 = oxp_sym_in_as(c, n, 2, dt);
  if (!v1 || !v2) return oxp_sym_status(c);
  int64_t a1 = 1, a0 = 0;
  oxp_value *o = oxp_m_arith(c, "Mul", oxp_sym_unsqueeze(c, v1, &a1, 1),
                             oxp_sym_unsqueeze(c, v2, &a0, 1), dt);
  if (alpha != 1) o = oxp_m_arith(c, "Mul", o, oxp_sym_const_scalar(c, alpha, dt), dt);
  if (beta == 0) {
    /* still shaped like the broadcast of self with the product */
    oxp_value *s = oxp_sym_in_as(c, n, 0, dt);
    oxp_value *z = oxp_sym_op1(c, "Shape", oxp_m_arith(c, "Mul", s,
                               oxp_sym_const_scalar(c, 0, dt), dt));
    return oxp_m_set_out(c, n, 0, oxp_sym_op2(c, "Expand", o, z));
  }
  oxp_value *s = oxp_sym_in_as(c, n, 0, dt);
  if (beta != 1) s = oxp_m_arith(c, "Mul", s, oxp_sym_const_scalar(c, beta, dt), dt);
  return oxp_m_set_out(c, n, 0, oxp_m_arith(c, "Add", s, o, dt));
}
