/* s_adaptive_pool.c: adaptive pools whose input size is not a multiple
 * of the output size, which no torch exporter maps: their windows have
 * uneven sizes and overlap, so no single MaxPool / AveragePool matches.
 * With static sizes, output i along a dim pools input
 * [floor(i * In / Out), ceil((i + 1) * In / Out)), torch's bins: one
 * Slice and ReduceMean / ReduceMax per output position, dim after dim
 * (a box mean or max is the same taken one dim at a time), joined by
 * Concat. Only the values: adaptive_max_pool's indices on such windows
 * are refused. */
#include "s_nn_util.h"

/* Output positions at most this per dim (each is two nodes). */
#define UNEVEN_MAX 512

bool oxp_nn_adaptive_uneven(oxp_sctx *c, oxp_node *n, oxp_value *x, bool is_max,
                            oxp_status *st) {
  int k = oxp_nn_name_dims(n, 2), r = oxp_sym_rank(x);
  int64_t *out, in[OXP_MAX_SPATIAL_DIMS], o[OXP_MAX_SPATIAL_DIMS];
  int cnt;
  oxp_ilist l;
  if (r < k + 1 || k > OXP_MAX_SPATIAL_DIMS) return false;
  if (!oxp_sym_ints(c, n, 1, &out, &cnt)) {
    /* sizes read off the input (traced None sizes); lists holding None
     * itself are s_pool.c's */
    oxp_value *src = oxp_sym_src(n, 1);
    oxp_node *lc = src ? src->producer : NULL;
    if (!lc || !oxp_kind_is(lc, "prim::ListConstruct")) return false;
    for (int i = 0; i < lc->ninputs; i++)
      if (oxp_sym_is_none(lc, i)) return false;
    if (!oxp_sym_ilist(c, n, 1, &l)) {
      *st = oxp_sym_status(c);
      return true;
    }
    if (!l.known) return false;
    out = l.v;
    cnt = l.n;
  }
  if (cnt != 1 && cnt != k) return false;
  bool uneven = false;
  for (int j = 0; j < k; j++) {
    in[j] = oxp_nn_dim(x, r - k + j);
    o[j] = cnt == 1 ? out[0] : out[j];
    if (in[j] < 1 || o[j] < 1 || o[j] > UNEVEN_MAX || in[j] > (INT64_C(1) << 31))
      return false;
    uneven |= in[j] % o[j] != 0;
  }
  if (!uneven) return false;
  if (is_max && oxp_nn_out_used(n, 1)) {
    *st = oxp_sym_unsupported(c, "adaptive_max_pool indices when the input size "
                                 "is not a multiple of the output size");
    return true;
  }
  const char *op = is_max ? "ReduceMax" : "ReduceMean";
  for (int j = 0; j < k; j++) {
    if (in[j] == o[j]) continue; /* nothing to pool along it */
    int64_t ax = r - k + j;
    oxp_value **parts = oxp_alloc(oxp_sym_arena(c), sizeof *parts * (size_t)o[j]);
    if (!parts) { *st = oxp_sym_status(c); return true; }
    for (int64_t i = 0; i < o[j]; i++) {
      int64_t s = i * in[j] / o[j], e = ((i + 1) * in[j] + o[j] - 1) / o[j];
      parts[i] = oxp_sym_reduce(c, op, oxp_sym_slice(c, x, &ax, &s, &e, NULL, 1),
                                &ax, 1, true);
    }
    oxp_node *cat = oxp_sym_op(c, "Concat", parts, (int)o[j], 1);
    if (!cat) { *st = oxp_sym_status(c); return true; }
    oxp_attr_set_i(cat, "axis", ax);
    x = cat->outputs[0];
  }
  *st = oxp_sym_set_out(c, n, 0, x);
  return true;
}
