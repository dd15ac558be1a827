/* s_take_along.c: take_along_dim, which no torch exporter maps: a
 * GatherElements after torch's broadcast of input and indices over every
 * dim but the gathered one (static sizes), or over the flattened input
 * when no dim is given. */
#include "s_math_util.h"
#include "s_nn_util.h"

/* take_along_dim(self, indices, dim) */
oxp_status oxp_s_take_along_dim(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0), *ix = oxp_sym_in_as(c, n, 1, OXP_DT_INT64);
  if (!x || !ix) return oxp_sym_status(c);
  int64_t dim, d = 0;
  if (n->ninputs < 3 || oxp_sym_is_none(n, 2)) {
    oxp_value *flat = oxp_sym_const_i64s(c, (int64_t[]){-1}, 1);
    x = oxp_sym_op2(c, "Reshape", x, flat);
    ix = oxp_sym_op2(c, "Reshape", ix, flat);
  } else {
    if (!oxp_sym_need_int(c, n, 2, &dim)) return oxp_sym_status(c);
    int r = oxp_sym_rank(x);
    if (r < 1 || r != oxp_sym_rank(ix) || r > OXP_MAX_SPATIAL_DIMS || !oxp_sym_axis(dim, r, &d))
      return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: needs input and indices of "
                          "one known rank and a dim inside it", n->kind);
    int64_t sx[OXP_MAX_SPATIAL_DIMS], si[OXP_MAX_SPATIAL_DIMS];
    bool differ = false;
    for (int j = 0; j < r; j++) {
      int64_t a = oxp_nn_dim(x, j), b = oxp_nn_dim(ix, j);
      if (a < 0 || b < 0)
        return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: needs static shapes to "
                            "broadcast input and indices", n->kind);
      if (j == d) { sx[j] = a; si[j] = b; continue; }
      if (a != b && a != 1 && b != 1)
        return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: shapes do not broadcast at dim %d",
                            n->kind, j);
      sx[j] = si[j] = a > b ? a : b;
      differ |= a != b;
    }
    if (differ) {
      x = oxp_sym_op2(c, "Expand", x, oxp_sym_const_i64s(c, sx, r));
      ix = oxp_sym_op2(c, "Expand", ix, oxp_sym_const_i64s(c, si, r));
    }
  }
  oxp_node *g = oxp_sym_op(c, "GatherElements", (oxp_value *[]){x, ix}, 2, 1);
  if (!g) return oxp_sym_status(c);
  oxp_attr_set_i(g, "axis", d);
  return oxp_m_set_out(c, n, 0, g->outputs[0]);
}
