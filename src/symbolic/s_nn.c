/* s_nn.c: softmax and log_softmax (with dtype), _log_softmax, _softmax.
 * The rest of the layers live in s_conv.c, s_pool.c, s_norm.c, s_act.c,
 * s_pad.c, s_interp.c, s_embed.c and s_loss.c. */
#include "s_nn_util.h"

/* Softmax over dim, computed in the traced output dtype (softmax's dtype
 * argument, _log_softmax's half_to_float: torch converts first). Before
 * opset 13 Softmax flattens from axis on, so a dim that is not the last
 * is moved there and back. */
static oxp_status softmax_like(oxp_sctx *c, oxp_node *n, const char *op) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t dim;
  if (!x || !oxp_sym_need_int(c, n, 1, &dim)) return oxp_sym_status(c);
  int dt = oxp_sym_out_dtype(n, 0, 0);
  if (!dt && n->ninputs > 2 && !oxp_sym_is_none(n, 2) &&
      oxp_sym_in_type(n, 2) && oxp_sym_in_type(n, 2)->kind == OXP_T_INT) {
    int64_t st;
    if (!oxp_sym_int(n, 2, &st) || !oxp_dtype_from_scalar_type(st))
      return oxp_sym_unsupported(c, "a runtime dtype argument");
    dt = oxp_dtype_from_scalar_type(st);
  }
  if (dt && oxp_sym_dtype(x) && dt != oxp_sym_dtype(x)) x = oxp_sym_cast(c, x, dt);
  int r = oxp_sym_rank(x);
  int64_t ax = dim;
  if (r >= 0 && !oxp_sym_axis(dim, r, &ax))
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: dim %lld out of range",
                        n->kind, (long long)dim);
  bool last = r >= 0 && ax == r - 1;
  if (oxp_sym_opset(c) >= 13 || last || r == 0) {
    oxp_node *s = oxp_nn_op1(c, op, x);
    if (!s) return oxp_sym_status(c);
    oxp_attr_set_i(s, "axis", r == 0 ? 0 : ax);
    return oxp_sym_set_out(c, n, 0, s->outputs[0]);
  }
  if (r < 0 || r > 16)
    return oxp_sym_unsupported(c, "softmax over a dim of unknown rank");
  int64_t perm[16];
  for (int i = 0; i < r; i++) perm[i] = i;
  perm[ax] = r - 1;
  perm[r - 1] = ax;
  oxp_node *s = oxp_nn_op1(c, op, oxp_nn_transpose(c, x, perm, r));
  if (!s) return oxp_sym_status(c);
  oxp_attr_set_i(s, "axis", r - 1);
  return oxp_sym_set_out(c, n, 0, oxp_nn_transpose(c, s->outputs[0], perm, r));
}

oxp_status oxp_s_softmax(oxp_sctx *c, oxp_node *n) {
  return softmax_like(c, n, "Softmax");
}

oxp_status oxp_s_log_softmax(oxp_sctx *c, oxp_node *n) {
  return softmax_like(c, n, "LogSoftmax");
}
