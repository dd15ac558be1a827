/* s_loss_pointwise.c: elementwise losses no torch exporter maps
 * (l1_loss, huber_loss, smooth_l1_loss, margin_ranking_loss,
 * hinge_embedding_loss), each with torch's formula and its reduction
 * (none, mean, sum). */
#include "s_math_util.h"
#include "s_nn_util.h"

static oxp_value *k(oxp_sctx *c, double v, int dt) {
  return oxp_sym_const_scalar(c, v, dt);
}

static oxp_status reduced(oxp_sctx *c, oxp_node *n, int i_red, oxp_value *l) {
  int64_t red;
  if (!oxp_nn_int_arg(c, n, i_red, 1, &red)) return oxp_sym_status(c);
  if (red < 0 || red > 2)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: unknown reduction %lld", n->kind,
                        (long long)red);
  if (red == 1) l = oxp_sym_reduce(c, "ReduceMean", l, NULL, 0, false);
  if (red == 2) l = oxp_sym_reduce(c, "ReduceSum", l, NULL, 0, false);
  return oxp_m_set_out(c, n, 0, l);
}

/* |x - y| of inputs 0 and 1 in the float result dtype. */
static oxp_value *abs_diff(oxp_sctx *c, oxp_node *n, int *dt, oxp_value **d) {
  oxp_value *x, *y;
  *dt = oxp_m_float_dtype(c, n, 1);
  if (!*dt || !oxp_m_pair(c, n, 0, 1, *dt, &x, &y)) return NULL;
  *d = oxp_sym_op2(c, "Sub", x, y);
  return oxp_sym_op1(c, "Abs", *d);
}

oxp_status oxp_s_l1_loss(oxp_sctx *c, oxp_node *n) {
  int dt;
  oxp_value *d, *a = abs_diff(c, n, &dt, &d);
  if (!a) return oxp_sym_status(c);
  return reduced(c, n, 2, a);
}

/* huber_loss(self, target, reduction, delta):
 * 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta). */
oxp_status oxp_s_huber_loss(oxp_sctx *c, oxp_node *n) {
  int dt;
  double delta = 1;
  oxp_value *d, *a = abs_diff(c, n, &dt, &d);
  if (!a || !oxp_nn_float_arg(c, n, 3, 1, &delta)) return oxp_sym_status(c);
  oxp_value *q = oxp_sym_op2(c, "Mul", k(c, 0.5, dt), oxp_sym_op2(c, "Mul", d, d));
  oxp_value *l = oxp_sym_op2(c, "Mul", k(c, delta, dt),
                             oxp_sym_op2(c, "Sub", a, k(c, 0.5 * delta, dt)));
  l = oxp_sym_op3(c, "Where", oxp_m_compare(c, "Less", a, k(c, delta, dt), dt), q, l);
  return reduced(c, n, 2, l);
}

/* smooth_l1_loss(self, target, reduction, beta): |d| for beta 0, else
 * 0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta elsewhere. */
oxp_status oxp_s_smooth_l1_loss(oxp_sctx *c, oxp_node *n) {
  int dt;
  double beta = 1;
  oxp_value *d, *a = abs_diff(c, n, &dt, &d);
  if (!a || !oxp_nn_float_arg(c, n, 3, 1, &beta)) return oxp_sym_status(c);
  if (beta == 0) return reduced(c, n, 2, a);
  oxp_value *q = oxp_sym_op2(c, "Div", oxp_sym_op2(c, "Mul", k(c, 0.5, dt),
                                                   oxp_sym_op2(c, "Mul", d, d)),
                             k(c, beta, dt));
  oxp_value *l = oxp_sym_op2(c, "Sub", a, k(c, 0.5 * beta, dt));
  l = oxp_sym_op3(c, "Where", oxp_m_compare(c, "Less", a, k(c, beta, dt), dt), q, l);
  return reduced(c, n, 2, l);
}

/* margin_ranking_loss(x1, x2, target, margin, reduction):
 * max(0, -target (x1 - x2) + margin). */
oxp_status oxp_s_margin_ranking_loss(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_m_float_dtype(c, n, 1);
  double margin = 0;
  oxp_value *a, *b;
  if (!dt || !oxp_m_pair(c, n, 0, 1, dt, &a, &b) ||
      !oxp_nn_float_arg(c, n, 3, 0, &margin))
    return oxp_sym_status(c);
  oxp_value *t = oxp_sym_in_as(c, n, 2, dt);
  oxp_value *v = oxp_sym_op2(c, "Add", oxp_sym_op2(c, "Mul", oxp_sym_op1(c, "Neg", t),
                                                   oxp_sym_op2(c, "Sub", a, b)),
                             k(c, margin, dt));
  return reduced(c, n, 4, oxp_m_maxmin(c, true, v, k(c, 0, dt), dt));
}

/* hinge_embedding_loss(self, target, margin, reduction), torch's form:
 * (target != 1 ? max(0, margin - x) : 0) + (target != -1 ? x : 0). */
oxp_status oxp_s_hinge_embedding_loss(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_m_float_dtype(c, n, 1);
  double margin = 1;
  oxp_value *x, *t;
  if (!dt || !oxp_m_pair(c, n, 0, 1, dt, &x, &t) ||
      !oxp_nn_float_arg(c, n, 2, 1, &margin))
    return oxp_sym_status(c);
  oxp_value *z = k(c, 0, dt);
  oxp_value *mc = oxp_m_maxmin(c, true, oxp_sym_op2(c, "Sub", k(c, margin, dt), x), z, dt);
  oxp_value *om = oxp_sym_op3(c, "Where", oxp_m_compare(c, "Equal", t, k(c, 1, dt), dt),
                              z, mc);
  oxp_value *os = oxp_sym_op3(c, "Where", oxp_m_compare(c, "Equal", t, k(c, -1, dt), dt),
                              z, x);
  return reduced(c, n, 3, oxp_sym_op2(c, "Add", om, os));
}
