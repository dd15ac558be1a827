/* s_rot90.c: rot90, which no torch exporter maps, in torch's own steps:
 * k = 1 flips dims[1] then swaps the two dims, k = 2 flips both, k = 3
 * flips dims[0] then swaps (k taken mod 4). A flip is a Slice with step
 * -1 (opset 10). */
#include <string.h>

#include "s_nn_util.h"

static oxp_value *flip(oxp_sctx *c, oxp_value *x, int64_t d) {
  int64_t s = -1, e = INT64_MIN, st = -1;
  return oxp_sym_slice(c, x, &d, &s, &e, &st, 1);
}

/* rot90(self, k, dims) */
oxp_status oxp_s_rot90(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t k = 1, *dims, d0, d1;
  int nd = 2, r = x ? oxp_sym_rank(x) : -1;
  int64_t def[2] = {0, 1};
  if (!x) return oxp_sym_status(c);
  if (n->ninputs > 1 && !oxp_sym_need_int(c, n, 1, &k)) return oxp_sym_status(c);
  dims = def;
  if (n->ninputs > 2 && !oxp_sym_need_ints(c, n, 2, &dims, &nd)) return oxp_sym_status(c);
  if (nd != 2 || r < 2 || r > OXP_MAX_SPATIAL_DIMS || !oxp_sym_axis(dims[0], r, &d0) ||
      !oxp_sym_axis(dims[1], r, &d1) || d0 == d1)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: needs two distinct dims of an input of "
                        "known rank (at least 2)", n->kind);
  k = ((k % 4) + 4) % 4;
  oxp_value *y = x;
  if (k == 2) y = flip(c, flip(c, x, d0), d1);
  if (k == 1 || k == 3) {
    int64_t perm[OXP_MAX_SPATIAL_DIMS];
    for (int j = 0; j < r; j++) perm[j] = j;
    perm[d0] = d1;
    perm[d1] = d0;
    y = oxp_nn_transpose(c, flip(c, x, k == 1 ? d1 : d0), perm, r);
  }
  return oxp_sym_set_out(c, n, 0, y);
}
