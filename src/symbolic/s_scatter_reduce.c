/* s_scatter_reduce.c: scatter_reduce(self, dim, index, src, reduce,
 * include_self), which PyTorch main's exporter maps from opset 16 for
 * sum/prod/amax/amin with include_self only; torch 1.13's not at all.
 *
 * ScatterElements reduces add and mul from opset 16, max and min from 18.
 * include_self=False first overwrites the positions index hits (plain
 * ScatterElements): with 0 for sum, 1 for prod, and with src itself for
 * amax/amin (any member of a group is a neutral start for max and min),
 * so every dtype is exact. mean (float only) is the sum divided by the
 * count of what was summed, the count scattered the same way. A src
 * larger than index is cut to index's shape, as torch reads it. */
#include <string.h>

#include "s_shape_util.h"

static oxp_value *scatter(oxp_sctx *c, oxp_value *x, oxp_value *idx, oxp_value *src,
                          int64_t axis, const char *reduction) {
  oxp_node *s = x && idx && src
                    ? oxp_sym_op(c, "ScatterElements", (oxp_value *[]){x, idx, src}, 3, 1)
                    : NULL;
  if (!s) return NULL;
  oxp_attr_set_i(s, "axis", axis);
  if (reduction) oxp_attr_set_s(s, "reduction", reduction);
  oxp_sym_set_type(c, s->outputs[0], oxp_sym_dtype(x), oxp_sym_rank(x), x->type ? x->type->dims : NULL);
  return s->outputs[0];
}

/* src cut to idx's shape when their static shapes differ or are unknown. */
static oxp_value *fit_src(oxp_sctx *c, oxp_value *src, oxp_value *idx) {
  int64_t ds[OXP_MAX_STATIC_RANK], di[OXP_MAX_STATIC_RANK];
  int rs, ri;
  if (oxp_sx_dims(src, ds, &rs) && oxp_sx_dims(idx, di, &ri) && rs == ri &&
      memcmp(ds, di, sizeof *ds * (size_t)rs) == 0)
    return src;
  int r = oxp_sym_rank(idx);
  if (r < 0) return NULL;
  int64_t zeros[OXP_MAX_STATIC_RANK] = {0}, axes[OXP_MAX_STATIC_RANK];
  for (int i = 0; i < r; i++) axes[i] = i;
  oxp_value *in[4] = {src, oxp_sym_const_i64s(c, zeros, r), oxp_sx_shape(c, idx),
                      oxp_sym_const_i64s(c, axes, r)};
  oxp_node *s = oxp_sym_op(c, "Slice", in, 4, 1);
  return s ? s->outputs[0] : NULL;
}

static oxp_value *fill_like(oxp_sctx *c, oxp_value *like, double v, int dt) {
  return oxp_sx_fill(c, oxp_sx_shape(c, like), v, dt);
}

oxp_status oxp_s_scatter_reduce(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int r = oxp_sym_rank(x), dt = oxp_sym_need_dtype(c, x);
  if (!dt) return oxp_sym_status(c);
  if (r < 1) return oxp_sym_unsupported(c, "scatter_reduce of a 0-d or unknown-rank tensor");
  int64_t axis;
  const char *red;
  bool self = true;
  if (!oxp_sx_axis_arg(c, n, 1, r, &axis)) return oxp_sym_status(c);
  if (!oxp_sym_str(n, 4, &red)) return oxp_sym_unsupported(c, "scatter_reduce with a runtime reduce");
  if (n->ninputs > 5 && !oxp_sym_bool(n, 5, &self))
    return oxp_sym_unsupported(c, "scatter_reduce with a runtime include_self");
  bool mean = strcmp(red, "mean") == 0, maxmin = false;
  const char *onnx_red = strcmp(red, "sum") == 0 || mean ? "add"
                         : strcmp(red, "prod") == 0     ? "mul"
                         : strcmp(red, "amax") == 0     ? (maxmin = true, "max")
                         : strcmp(red, "amin") == 0     ? (maxmin = true, "min")
                                                        : NULL;
  if (!onnx_red) return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: unknown reduce '%s'", n->kind, red);
  int need = maxmin ? 18 : 16;
  if (oxp_sym_opset(c) < need)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "%s with reduce='%s' is not supported at opset %d (supported from opset %d)",
                        n->kind, red, oxp_sym_opset(c), need);
  if (mean && !oxp_dtype_is_float(dt))
    return oxp_sym_unsupported(c, "scatter_reduce mean of integer tensors (torch rounds the quotient)");
  oxp_value *idx = oxp_sym_in_as(c, n, 2, OXP_DT_INT64);
  oxp_value *src = idx ? oxp_sym_in_as(c, n, 3, dt) : NULL;
  if (!src) return oxp_sym_status(c);
  if (!(src = fit_src(c, src, idx)))
    return oxp_sym_unsupported(c, "scatter_reduce with an index of unknown rank");
  oxp_value *base = x;
  if (!self)
    base = scatter(c, x, idx, maxmin ? src : fill_like(c, idx, strcmp(red, "prod") == 0, dt), axis, NULL);
  oxp_value *y = scatter(c, base, idx, src, axis, onnx_red);
  if (mean) {
    oxp_value *cnt = fill_like(c, x, 1, dt);
    if (!self) cnt = scatter(c, cnt, idx, fill_like(c, idx, 0, dt), axis, NULL);
    cnt = scatter(c, cnt, idx, fill_like(c, idx, 1, dt), axis, "add");
    y = oxp_sym_op2(c, "Div", y, cnt);
  }
  return oxp_sym_set_out(c, n, 0, y);
}
