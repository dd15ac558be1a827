/* s_pool.c: max and average pooling, with indices, and the adaptive forms
 * whose windows are regular (global, or an input size that is a multiple
 * of the output size). Each is one MaxPool / AveragePool / Global*Pool.
 * Uneven adaptive windows: s_adaptive_pool.c. */
#include <string.h>

#include "s_nn_util.h"

typedef struct {
  int k;                       /* spatial dims */
  int64_t kernel[OXP_MAX_SPATIAL_DIMS], stride[OXP_MAX_SPATIAL_DIMS], dil[OXP_MAX_SPATIAL_DIMS];
  int64_t pad[2 * OXP_MAX_SPATIAL_DIMS]; /* begins, then ends */
  bool ceil;
  /* ceil_mode on a dim known only at run time: floor mode over an end
   * padding grown by stride - 1, then sliced to torch's size there. */
  bool cut[OXP_MAX_SPATIAL_DIMS];
} pool_geo;

/* Geometry and (for ceil_mode) input sizes stay below this, so that the
 * size arithmetic below cannot overflow whatever the IR says. */
#define GEO_MAX INT64_C(0x7fffffff)

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* torch's output size (its ceil mode drops a last window that would start
 * in the right padding); ONNX's ceil_mode has no such rule before opset
 * 19, so sizes are compared before relying on it. */
static int64_t torch_out(int64_t len, const pool_geo *g, int j) {
  int64_t num = len + 2 * g->pad[j] - g->dil[j] * (g->kernel[j] - 1) - 1;
  int64_t o = (g->ceil ? ceil_div(num, g->stride[j]) : num / g->stride[j]) + 1;
  if (g->ceil && (o - 1) * g->stride[j] >= len + g->pad[j]) o--;
  return o;
}

static int64_t onnx_out(int64_t len, const pool_geo *g, int j, bool ceil) {
  int64_t num = len + g->pad[j] + g->pad[g->k + j] -
                g->dil[j] * (g->kernel[j] - 1) - 1;
  return (ceil ? ceil_div(num, g->stride[j]) : num / g->stride[j]) + 1;
}

/* The least end padding of dim j whose floor-mode size reaches torch's
 * ceil-mode size, at once (growing it by one would take up to a stride
 * of turns): the numerator of onnx_out must reach w * s, or pass
 * (w - 1) * s when w <= 0, as C division truncates. */
static void grow_end_pad(pool_geo *g, int j, int64_t len) {
  int64_t want = torch_out(len, g, j), w = want - 1, s = g->stride[j];
  int64_t num = w >= 1 ? w * s : w * s - s + 1;
  int64_t need = num - len - g->pad[j] + g->dil[j] * (g->kernel[j] - 1) + 1;
  if (need > g->pad[g->k + j]) g->pad[g->k + j] = need;
  while (onnx_out(len, g, j, false) < want) g->pad[g->k + j]++;
}

/* Resolves ceil_mode: native where ONNX computes torch's sizes, else by
 * extending the end padding so a floor-mode pool yields torch's sizes (pads
 * never win a MaxPool, and are not counted by an AveragePool without
 * count_include_pad). Sets *native. */
static bool resolve_ceil(oxp_sctx *c, oxp_node *n, oxp_value *x, pool_geo *g,
                         bool allow_native, bool *native) {
  *native = false;
  if (!g->ceil) return true;
  bool known = true;
  int64_t len[OXP_MAX_SPATIAL_DIMS];
  for (int j = 0; j < g->k; j++) known &= (len[j] = oxp_nn_dim(x, 2 + j)) >= 0;
  if (!known) {
    /* ceil_mode, then each dim where the sizes may differ cut to torch's
     * size at run time: before opset 19 ONNX keeps a last window starting
     * in the end padding (onnx's shape inference does; onnxruntime drops
     * it), and onnxruntime keeps it at 21 although the spec drops it. */
    if (oxp_sym_opset(c) >= 10 && allow_native) {
      for (int j = 0; j < g->k; j++)
        g->cut[j] = len[j] < 0 || len[j] > GEO_MAX || torch_out(len[j], g, j) != onnx_out(len[j], g, j, true);
      *native = true;
      return true;
    }
    if (!allow_native) {
      oxp_sym_unsupported(c, "ceil_mode with count_include_pad and padding on "
                             "an input of unknown size");
      return false;
    }
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                 "%s: ceil_mode on an input of unknown size is not supported "
                 "at opset %d (supported from opset 10)", n->kind,
                 oxp_sym_opset(c));
    return false;
  }
  for (int j = 0; j < g->k; j++)
    if (len[j] > GEO_MAX) {
      oxp_sym_unsupported(c, "ceil_mode on an input dim above 2^31");
      return false;
    }
  bool same = true;
  for (int j = 0; j < g->k; j++)
    same &= torch_out(len[j], g, j) == onnx_out(len[j], g, j, true);
  if (same && oxp_sym_opset(c) >= 10 && allow_native) {
    *native = true;
    return true;
  }
  for (int j = 0; j < g->k; j++) grow_end_pad(g, j, len[j]);
  return true;
}

/* torch's ceil-mode size at run time along spatial dim j of x: a 1-element
 * int64 (the numerator is not negative where torch accepts the input). */
static oxp_value *torch_out_rt(oxp_sctx *c, oxp_value *x, const pool_geo *g, int j) {
  static const int64_t zero = 0;
  int64_t s = g->stride[j];
  oxp_value *len = oxp_sym_unsqueeze(c, oxp_sym_size(c, x, 2 + j), &zero, 1);
  int64_t off = 2 * g->pad[j] - g->dil[j] * (g->kernel[j] - 1) - 1 + s - 1, one = 1;
  oxp_value *num = oxp_sym_op2(c, "Add", len, oxp_sym_const_i64s(c, &off, 1));
  oxp_value *o = oxp_sym_op2(c, "Add", oxp_sym_op2(c, "Div", num, oxp_sym_const_i64s(c, &s, 1)),
                             oxp_sym_const_i64s(c, &one, 1));
  /* a last window starting at or past the input's end is dropped */
  oxp_value *start = oxp_sym_op2(c, "Mul", oxp_sym_op2(c, "Sub", o, oxp_sym_const_i64s(c, &one, 1)),
                                 oxp_sym_const_i64s(c, &s, 1));
  oxp_value *lim = oxp_sym_op2(c, "Add", len, oxp_sym_const_i64s(c, &g->pad[j], 1));
  oxp_value *drop = oxp_sym_op1(c, "Not", oxp_sym_op2(c, "Less", start, lim));
  return oxp_sym_op2(c, "Sub", o, oxp_sym_cast(c, drop, OXP_DT_INT64));
}

/* y (a pool of x) sliced to torch's sizes along the dims marked cut. */
static oxp_value *cut_windows(oxp_sctx *c, oxp_value *x, const pool_geo *g, oxp_value *y) {
  for (int j = 0; j < g->k && y; j++) {
    if (!g->cut[j]) continue;
    int64_t z = 0, ax = 2 + j;
    oxp_value *in[4] = {y, oxp_sym_const_i64s(c, &z, 1), torch_out_rt(c, x, g, j),
                        oxp_sym_const_i64s(c, &ax, 1)};
    oxp_node *sl = in[1] && in[2] && in[3] ? oxp_sym_op(c, "Slice", in, 4, 1) : NULL;
    y = sl ? sl->outputs[0] : NULL;
  }
  return y;
}

/* count_include_pad with ceil_mode: torch divides a window overhanging the
 * padding by its part inside input + padding; ONNX leaves that case
 * loose (onnxruntime divides by the whole window, and fuses an explicit
 * Pad into the pool). With the end padding grown so every window is
 * whole, AveragePool's include-pad result is sum / kernel volume by the
 * spec; a constant [1, 1, out...] factor then makes it torch's divisor. */
static oxp_value *include_pad_factor(oxp_sctx *c, oxp_value *x,
                                     const pool_geo *g, const int64_t *pad0) {
  int k = g->k;
  int64_t dims[OXP_MAX_SPATIAL_DIMS + 2] = {1, 1}, total = 1;
  for (int j = 0; j < k; j++) {
    dims[2 + j] = torch_out(oxp_nn_dim(x, 2 + j), g, j);
    if (dims[2 + j] < 0 || __builtin_mul_overflow(total, dims[2 + j], &total)) {
      oxp_sym_unsupported(c, "count_include_pad with ceil_mode on this size");
      return NULL;
    }
  }
  oxp_tensor *t = oxp_tensor_alloc(oxp_sym_arena(c), OXP_DT_FLOAT, k + 2, dims);
  if (!t) return NULL;
  float *f = (float *)t->data;
  for (int64_t e = 0; e < total; e++) {
    double factor = 1;
    int64_t rest = e;
    for (int j = k - 1; j >= 0; j--) {
      int64_t o = rest % dims[2 + j];
      rest /= dims[2 + j];
      int64_t start = o * g->stride[j] - pad0[j];
      int64_t end = start + g->kernel[j];
      int64_t lim = oxp_nn_dim(x, 2 + j) + pad0[j];
      if (end > lim) end = lim;
      factor *= (double)g->kernel[j] / (double)(end - start);
    }
    f[e] = (float)factor;
  }
  oxp_value *v = oxp_sym_const(c, t);
  int dt = oxp_nn_dtype(c, x);
  return v && dt != OXP_DT_FLOAT ? oxp_sym_cast(c, v, dt) : v;
}

static bool read_geo(oxp_sctx *c, oxp_node *n, pool_geo *g, int i_dil,
                     int i_ceil) {
  memset(g->cut, 0, sizeof g->cut);
  g->k = oxp_nn_name_dims(n, 2);
  if (!oxp_nn_spatial(c, n, 1, g->k, 1, g->kernel) ||
      !oxp_nn_spatial(c, n, 2, g->k, -1, g->stride) ||
      !oxp_nn_spatial(c, n, 3, g->k, 0, g->pad) ||
      !oxp_nn_spatial(c, n, i_dil, g->k, 1, g->dil) ||
      !oxp_nn_bool_arg(c, n, i_ceil, false, &g->ceil))
    return false;
  if (g->stride[0] < 0) memcpy(g->stride, g->kernel, sizeof(int64_t) * (size_t)g->k);
  for (int j = 0; j < g->k; j++) {
    g->pad[g->k + j] = g->pad[j];
    /* torch refuses these too ("stride should not be zero") */
    if (g->stride[j] <= 0 || g->kernel[j] <= 0 || g->dil[j] <= 0) {
      oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: kernel, stride and dilation must be "
                   "positive", n->kind);
      return false;
    }
    if (g->stride[j] > GEO_MAX || g->kernel[j] > GEO_MAX || g->dil[j] > GEO_MAX ||
        g->pad[j] > GEO_MAX || g->pad[j] < -GEO_MAX) {
      oxp_sym_unsupported(c, "a pooling kernel, stride, dilation or padding "
                             "above 2^31");
      return false;
    }
  }
  return true;
}

/* Torch's indices count within each (n, c) plane, ONNX's over the whole
 * tensor: subtract each plane's first flat index, read off a MaxPool of
 * kernel 1 (as torch's exporter does). */
static oxp_value *plane_indices(oxp_sctx *c, oxp_value *x, oxp_value *idx,
                                int k) {
  oxp_node *p = oxp_sym_op(c, "MaxPool", &x, 1, 2);
  if (!p) return NULL;
  int64_t ones[OXP_MAX_SPATIAL_DIMS], axes[OXP_MAX_SPATIAL_DIMS], st[OXP_MAX_SPATIAL_DIMS], en[OXP_MAX_SPATIAL_DIMS];
  for (int j = 0; j < k; j++) ones[j] = 1, axes[j] = 2 + j, st[j] = 0, en[j] = 1;
  oxp_attr_set_ints(p, "kernel_shape", ones, k);
  oxp_attr_set_ints(p, "strides", ones, k);
  oxp_value *first = oxp_sym_slice(c, p->outputs[1], axes, st, en, NULL, k);
  return oxp_sym_op2(c, "Sub", idx, first);
}

static oxp_status emit_max_pool(oxp_sctx *c, oxp_node *n, oxp_value *x,
                                pool_geo *g, bool native_ceil) {
  bool want_idx = oxp_nn_out_used(n, 1);
  int k = g->k;
  if (oxp_sym_opset(c) < 10 && !oxp_nn_all_eq(g->dil, k, 1))
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "%s with dilation is not supported at opset %d "
                        "(supported from opset 10)", n->kind, oxp_sym_opset(c));
  oxp_node *p = oxp_sym_op(c, "MaxPool", &x, 1, want_idx ? 2 : 1);
  if (!p) return oxp_sym_status(c);
  oxp_attr_set_ints(p, "kernel_shape", g->kernel, k);
  oxp_attr_set_ints(p, "strides", g->stride, k);
  oxp_attr_set_ints(p, "pads", g->pad, 2 * k);
  if (!oxp_nn_all_eq(g->dil, k, 1)) oxp_attr_set_ints(p, "dilations", g->dil, k);
  if (native_ceil) oxp_attr_set_i(p, "ceil_mode", 1);
  oxp_status st = oxp_sym_set_out(c, n, 0, cut_windows(c, x, g, p->outputs[0]));
  if (st || !want_idx) return st;
  return oxp_sym_set_out(c, n, 1, cut_windows(c, x, g, plane_indices(c, x, p->outputs[1], k)));
}

/* A kernel larger than the padded input: torch gives an empty result
 * (the traced type has a 0 among its spatial sizes, which are static when
 * x's are), ONNX's pools a negative size. The result (and the indices)
 * is a ConstantOfShape of [N, C, traced spatial sizes]. */
static bool empty_pool(oxp_sctx *c, oxp_node *n, oxp_value *x, const pool_geo *g,
                       oxp_status *st) {
  const oxp_type *t = oxp_sym_out_type(n, 0);
  int k = g->k;
  bool typed = t && t->kind == OXP_T_TENSOR && t->rank == k + 2;
  if (oxp_sym_rank(x) != k + 2) return false;
  bool empty = false;
  int64_t o[OXP_MAX_SPATIAL_DIMS];
  for (int j = 0; j < k; j++) {
    int64_t len = oxp_nn_dim(x, 2 + j);
    if (len < 0) return false;
    /* torch_out with torch's rounding of a negative quotient (floor) */
    int64_t num = len + 2 * g->pad[j] - g->dil[j] * (g->kernel[j] - 1) - 1;
    o[j] = typed && t->dims[2 + j] >= 0 ? t->dims[2 + j]
           : num < 0 && !g->ceil ? (num - g->stride[j] + 1) / g->stride[j] + 1
                                 : torch_out(len, g, j);
    if (o[j] < 0) o[j] = 0;
    empty |= o[j] == 0;
  }
  if (!empty) return false;
  static const int64_t z = 0, two = 2;
  oxp_value *parts[2] = {oxp_sym_slice(c, oxp_sym_op1(c, "Shape", x), &z, &z, &two, NULL, 1),
                         oxp_sym_const_i64s(c, o, k)};
  oxp_node *cat = parts[0] && parts[1] ? oxp_sym_op(c, "Concat", parts, 2, 1) : NULL;
  oxp_value *shape = cat ? cat->outputs[0] : NULL;
  if (cat) oxp_attr_set_i(cat, "axis", 0);
  *st = OXP_OK;
  for (int i = 0; i < 2 && !*st; i++) {
    if (i == 1 && !oxp_nn_out_used(n, 1)) break;
    int dt = i ? OXP_DT_INT64 : oxp_nn_dtype(c, x);
    oxp_tensor *v = oxp_tensor_alloc(oxp_sym_arena(c), dt, 1, (int64_t[]){1});
    oxp_node *f = v && shape ? oxp_sym_op(c, "ConstantOfShape", &shape, 1, 1) : NULL;
    if (f) oxp_attr_set_t(f, "value", v);
    *st = oxp_sym_set_out(c, n, i, f ? f->outputs[0] : NULL);
  }
  return true;
}

/* max_pool{1,2,3}d[_with_indices](input, kernel_size, stride, padding,
 * dilation, ceil_mode) */
oxp_status oxp_s_max_pool(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  pool_geo g;
  bool native;
  oxp_status st;
  if (!x || !read_geo(c, n, &g, 4, 5)) return oxp_sym_status(c);
  if (empty_pool(c, n, x, &g, &st)) return st;
  if (!resolve_ceil(c, n, x, &g, true, &native)) return oxp_sym_status(c);
  return emit_max_pool(c, n, x, &g, native);
}

/* avg_pool{1,2,3}d(input, kernel, stride, padding, ceil_mode,
 * count_include_pad[, divisor_override]). A divisor_override d is the
 * window sum over d: the include-pad average times the kernel volume
 * over d, exact when no window overhangs (no ceil overhang). */
oxp_status oxp_s_avg_pool(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  pool_geo g;
  bool include, native;
  int64_t divisor = 0;
  if (!x || !read_geo(c, n, &g, -1, 4) ||
      !oxp_nn_bool_arg(c, n, 5, true, &include) ||
      !oxp_nn_int_arg(c, n, 6, 0, &divisor))
    return oxp_sym_status(c);
  oxp_status est;
  if (empty_pool(c, n, x, &g, &est)) return est;
  if (divisor) include = true;
  /* Without begin padding torch's ceil-mode divisor is the window inside
   * the input: count_include_pad=0 exactly. */
  if (include && g.ceil && oxp_nn_all_eq(g.pad, g.k, 0)) include = false;
  bool fix = include && g.ceil;
  int64_t pad0[OXP_MAX_SPATIAL_DIMS];
  memcpy(pad0, g.pad, sizeof(int64_t) * (size_t)g.k);
  if (!resolve_ceil(c, n, x, &g, !fix, &native)) return oxp_sym_status(c);
  bool grown = false;
  for (int j = 0; j < g.k; j++) grown |= g.pad[g.k + j] != g.pad[j];
  if (divisor && (native || grown))
    return oxp_sym_unsupported(c, "avg_pool with divisor_override and "
                                  "ceil_mode windows that overhang");
  oxp_node *p = oxp_sym_op(c, "AveragePool", &x, 1, 1);
  if (!p) return oxp_sym_status(c);
  int k = g.k;
  oxp_attr_set_ints(p, "kernel_shape", g.kernel, k);
  oxp_attr_set_ints(p, "strides", g.stride, k);
  oxp_attr_set_ints(p, "pads", g.pad, 2 * k);
  if (include && !oxp_nn_all_eq(g.pad, 2 * k, 0))
    oxp_attr_set_i(p, "count_include_pad", 1);
  if (native) oxp_attr_set_i(p, "ceil_mode", 1);
  oxp_value *y = cut_windows(c, x, &g, p->outputs[0]);
  if (fix && grown) y = oxp_sym_op2(c, "Mul", y, include_pad_factor(c, x, &g, pad0));
  if (divisor) {
    double vol = 1;
    for (int j = 0; j < k; j++) vol *= (double)g.kernel[j];
    if (vol != (double)divisor)
      y = oxp_sym_op2(c, "Mul", y, oxp_sym_const_scalar(c, vol / (double)divisor,
                                                         oxp_nn_dtype(c, x)));
  }
  return oxp_sym_set_out(c, n, 0, y);
}

/* output_size: ints, where None (-1 here) keeps that input size. */
static bool output_sizes(oxp_sctx *c, oxp_node *n, int64_t *out, int *cnt) {
  int64_t *v;
  if (oxp_sym_ints(c, n, 1, &v, cnt)) {
    if (*cnt > OXP_MAX_SPATIAL_DIMS) *cnt = OXP_MAX_SPATIAL_DIMS;
    memcpy(out, v, sizeof(int64_t) * (size_t)*cnt);
    return true;
  }
  oxp_value *src = oxp_sym_src(n, 1);
  oxp_node *lc = src ? src->producer : NULL;
  if (!lc || !oxp_kind_is(lc, "prim::ListConstruct") || lc->ninputs > OXP_MAX_SPATIAL_DIMS)
    return oxp_sym_need_ints(c, n, 1, &v, cnt);
  for (int k = 0; k < lc->ninputs; k++)
    if (oxp_sym_is_none(lc, k)) out[k] = -1;
    else if (!oxp_sym_int(lc, k, &out[k]))
      return oxp_sym_need_ints(c, n, 1, &v, cnt);
  *cnt = lc->ninputs;
  return true;
}

/* Regular windows of an adaptive pool: kernel = stride = in / out. */
static bool adaptive_geo(oxp_sctx *c, oxp_node *n, oxp_value *x, pool_geo *g,
                         bool *global) {
  int64_t out[OXP_MAX_SPATIAL_DIMS];
  int cnt;
  memset(g, 0, sizeof *g);
  memset(g->cut, 0, sizeof g->cut);
  g->k = oxp_nn_name_dims(n, 2);
  if (!output_sizes(c, n, out, &cnt)) return false;
  *global = true;
  for (int j = 0; j < g->k; j++) {
    int64_t o = cnt == 1 ? out[0] : j < cnt ? out[j] : -1;
    int64_t in = oxp_nn_dim(x, 2 + j);
    if (o < 0) o = in; /* None keeps the input size */
    *global &= o == 1;
    if (in < 0 || o <= 0 || in % o != 0) {
      g->kernel[0] = 0;
      continue;
    }
    g->kernel[j] = g->stride[j] = in / o;
    g->dil[j] = 1;
  }
  if (g->kernel[0] == 0 && !*global) {
    oxp_sym_unsupported(c, "an adaptive pool whose input size is not a "
                           "static multiple of its output size");
    return false;
  }
  return true;
}

/* adaptive_avg_pool{1,2,3}d(input, output_size) */
oxp_status oxp_s_adaptive_avg_pool(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  pool_geo g;
  bool global;
  oxp_status st;
  if (x && oxp_nn_adaptive_uneven(c, n, x, false, &st)) return st;
  if (!x || !adaptive_geo(c, n, x, &g, &global)) return oxp_sym_status(c);
  if (global)
    return oxp_sym_set_out(c, n, 0, oxp_sym_op1(c, "GlobalAveragePool", x));
  oxp_node *p = oxp_sym_op(c, "AveragePool", &x, 1, 1);
  if (!p) return oxp_sym_status(c);
  oxp_attr_set_ints(p, "kernel_shape", g.kernel, g.k);
  oxp_attr_set_ints(p, "strides", g.stride, g.k);
  return oxp_sym_set_out(c, n, 0, p->outputs[0]);
}

/* adaptive_max_pool{1,2,3}d(input, output_size) -> (values, indices) */
oxp_status oxp_s_adaptive_max_pool(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  pool_geo g;
  bool global;
  oxp_status st;
  if (x && oxp_nn_adaptive_uneven(c, n, x, true, &st)) return st;
  if (!x || !adaptive_geo(c, n, x, &g, &global)) return oxp_sym_status(c);
  if (global && !oxp_nn_out_used(n, 1))
    return oxp_sym_set_out(c, n, 0, oxp_sym_op1(c, "GlobalMaxPool", x));
  if (g.kernel[0] == 0)
    return oxp_sym_unsupported(c, "adaptive_max_pool indices on an input of "
                                  "unknown size");
  return emit_max_pool(c, n, x, &g, false);
}
