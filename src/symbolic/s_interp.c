/* s_interp.c: resampling: upsample_* and __interpolate (Upsample at opset
 * 9, Resize from 10), grid_sampler (GridSample, 16+), pixel_shuffle
 * (DepthToSpace CRD from 11), pixel_unshuffle, im2col (patches gathered
 * by copy). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "s_nn_util.h"
#include "s_shape_util.h"

typedef enum { RS_NEAREST, RS_NEAREST_EXACT, RS_LINEAR, RS_CUBIC } rs_mode;

typedef struct {
  rs_mode mode;
  bool align;
  int k;                         /* spatial dims */
  bool by_size;                  /* sizes (else scales) */
  int64_t size[OXP_MAX_SPATIAL_DIMS];
  oxp_value *rt_size;            /* the sizes, when known only at run time */
  double scale[OXP_MAX_SPATIAL_DIMS];
} rs_spec;

/* [N, C, out...]: constants, or N and C, or the sizes (the FPN's
 * interpolate(x, size=y.shape[-2:])), read at run time. */
static oxp_value *full_sizes(oxp_sctx *c, oxp_value *x, const rs_spec *s) {
  int64_t v[OXP_MAX_SPATIAL_DIMS + 2];
  v[0] = oxp_nn_dim(x, 0);
  v[1] = oxp_nn_dim(x, 1);
  for (int j = 0; j < s->k; j++) v[2 + j] = s->size[j];
  if (v[0] >= 0 && v[1] >= 0 && !s->rt_size) return oxp_sym_const_i64s(c, v, s->k + 2);
  static const int64_t zero = 0, two = 2;
  oxp_value *parts[2] = {v[0] >= 0 && v[1] >= 0
                             ? oxp_sym_const_i64s(c, v, 2)
                             : oxp_sym_slice(c, oxp_sym_op1(c, "Shape", x), &zero,
                                             &zero, &two, NULL, 1),
                         s->rt_size ? s->rt_size : oxp_sym_const_i64s(c, v + 2, s->k)};
  if (!parts[0] || !parts[1]) return NULL;
  oxp_node *k = oxp_sym_op(c, "Concat", parts, 2, 1);
  if (!k) return NULL;
  oxp_attr_set_i(k, "axis", 0);
  return k->outputs[0];
}

static oxp_value *scales_const(oxp_sctx *c, const rs_spec *s) {
  float v[OXP_MAX_SPATIAL_DIMS + 2] = {1, 1};
  for (int j = 0; j < s->k; j++) v[2 + j] = (float)s->scale[j];
  return oxp_sym_const_f32s(c, v, s->k + 2);
}

/* Before opset 11 only floor-nearest matches torch; sizes must then be
 * whole multiples of static input sizes so the scale is exact. */
static oxp_value *resize_old(oxp_sctx *c, oxp_value *x, rs_spec *s) {
  if (s->mode != RS_NEAREST) {
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                 "%s: this interpolation mode is not supported at opset %d "
                 "(supported from opset 11)", "upsample", oxp_sym_opset(c));
    return NULL;
  }
  if (s->rt_size) {
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                 "upsample to a size known only at run time is not supported "
                 "at opset %d (supported from opset 11: %s takes only scales)",
                 oxp_sym_opset(c), oxp_sym_opset(c) < 10 ? "Upsample" : "Resize-10");
    return NULL;
  }
  if (s->by_size)
    for (int j = 0; j < s->k; j++) {
      int64_t in = oxp_nn_dim(x, 2 + j);
      if (in <= 0 || s->size[j] % in) {
        oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                     "upsample to a size that is not a whole multiple of a "
                     "static input size is not supported at opset %d "
                     "(supported from opset 11)", oxp_sym_opset(c));
        return NULL;
      }
      s->scale[j] = (double)(s->size[j] / in);
    }
  oxp_node *k = oxp_sym_op(c, oxp_sym_opset(c) < 10 ? "Upsample" : "Resize",
                           (oxp_value *[]){x, scales_const(c, s)}, 2, 1);
  if (!k) return NULL;
  oxp_attr_set_s(k, "mode", "nearest");
  /* As for Resize below: scripted graphs leave the output untyped. */
  oxp_sym_set_type(c, k->outputs[0], oxp_sym_dtype(x), s->k + 2, NULL);
  return k->outputs[0];
}

static oxp_value *resize(oxp_sctx *c, oxp_value *x, rs_spec *s) {
  if (!x) return NULL;
  if (oxp_sym_rank(x) >= 0 && oxp_sym_rank(x) != s->k + 2) {
    oxp_sym_unsupported(c, "interpolation of an input without batch and "
                           "channel dims");
    return NULL;
  }
  if (oxp_sym_opset(c) < 11) return resize_old(c, x, s);
  bool opt = oxp_sym_opset(c) >= 13; /* roi and scales may be absent */
  oxp_value *empty = opt ? NULL : oxp_sym_const_f32s(c, NULL, 0);
  oxp_value *in[4] = {x, empty, s->by_size ? empty : scales_const(c, s),
                      s->by_size ? full_sizes(c, x, s) : NULL};
  oxp_node *k = oxp_sym_op(c, "Resize", in, s->by_size ? 4 : 3, 1);
  if (!k) return NULL;
  /* Scripted graphs leave the output untyped; the element type and rank
   * are the input's. */
  oxp_sym_set_type(c, k->outputs[0], oxp_sym_dtype(x), s->k + 2, NULL);
  static const char *const modes[] = {"nearest", "nearest", "linear", "cubic"};
  oxp_attr_set_s(k, "mode", modes[s->mode]);
  if (s->mode == RS_NEAREST) {
    oxp_attr_set_s(k, "coordinate_transformation_mode", "asymmetric");
    oxp_attr_set_s(k, "nearest_mode", "floor");
  } else if (s->mode == RS_NEAREST_EXACT) {
    oxp_attr_set_s(k, "coordinate_transformation_mode", "half_pixel");
    oxp_attr_set_s(k, "nearest_mode", "round_prefer_ceil");
  } else {
    /* Not pytorch_half_pixel: that samples an output of length 1 at 0,
     * where torch's kernels (and half_pixel) sample the middle; the two
     * agree everywhere else (Keypoint R-CNN resizes heatmaps of thin
     * boxes to width 1). */
    oxp_attr_set_s(k, "coordinate_transformation_mode",
                   s->align ? "align_corners" : "half_pixel");
    if (s->mode == RS_CUBIC) oxp_attr_set_f(k, "cubic_coeff_a", -0.75);
  }
  return k->outputs[0];
}

/* The output sizes, input i: one int or k, constants or known only at
 * run time. */
static bool read_sizes(oxp_sctx *c, oxp_node *n, int i, rs_spec *s) {
  oxp_ilist l;
  s->by_size = true;
  if (!oxp_sym_ilist(c, n, i, &l)) return false;
  if (l.n >= 0 && l.n != 1 && l.n != s->k) {
    oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: argument %d has %d values for %d dims",
                 n->kind, i, l.n, s->k);
    return false;
  }
  if (l.known) {
    for (int j = 0; j < s->k; j++) s->size[j] = l.v[l.n == 1 ? 0 : j];
    return true;
  }
  s->rt_size = l.t;
  if (l.n == 1 && s->k > 1) {
    /* one size for every spatial dim */
    int64_t reps = s->k;
    s->rt_size = oxp_sym_op2(c, "Tile", l.t, oxp_sym_const_i64s(c, &reps, 1));
  }
  return s->rt_size != NULL;
}

static rs_mode name_mode(const oxp_node *n) {
  if (strstr(n->kind, "nearest_exact")) return RS_NEAREST_EXACT;
  if (strstr(n->kind, "nearest")) return RS_NEAREST;
  if (strstr(n->kind, "bicubic")) return RS_CUBIC;
  return RS_LINEAR;
}

/* upsample_<mode><k>d in both overloads: (input, output_size?[,
 * align_corners], scale_factors?) and (input, output_size[,
 * align_corners], scales_d?...). Scale factors win over sizes, as in
 * torch's kernels, which then compute source positions from them. */
oxp_status oxp_s_upsample(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  rs_spec s = {.mode = name_mode(n), .k = oxp_nn_name_dims(n, 2)};
  int i = 2;
  if (s.mode == RS_LINEAR || s.mode == RS_CUBIC) {
    if (!oxp_nn_bool_arg(c, n, 2, false, &s.align)) return oxp_sym_status(c);
    i = 3;
  }
  double *f;
  int cnt = 0;
  bool have_scales = false;
  const oxp_type *t = oxp_sym_in_type(n, i);
  if (i < n->ninputs && !oxp_sym_is_none(n, i) && t &&
      (t->kind == OXP_T_LIST || t->kind == OXP_T_OPTIONAL)) {
    if (!oxp_sym_floats(c, n, i, &f, &cnt) || (cnt != 1 && cnt != s.k))
      return oxp_sym_unsupported(c, "runtime scale factors");
    for (int j = 0; j < s.k; j++) s.scale[j] = f[cnt == 1 ? 0 : j];
    have_scales = true;
  } else if (i < n->ninputs) {
    have_scales = true;
    for (int j = 0; j < s.k; j++) {
      if (i + j >= n->ninputs || oxp_sym_is_none(n, i + j)) {
        have_scales = false;
        break;
      }
      if (!oxp_sym_float(n, i + j, &s.scale[j]))
        return oxp_sym_unsupported(c, "runtime scale factors");
    }
  }
  if (!have_scales) {
    if (oxp_sym_is_none(n, 1)) return oxp_sym_fail(c, OXP_ERR_GRAPH,
                                                   "%s: neither sizes nor scales", n->kind);
    if (!read_sizes(c, n, 1, &s)) return oxp_sym_status(c);
  }
  return oxp_sym_set_out(c, n, 0, resize(c, x, &s));
}

/* __interpolate(input, size, scale_factor, mode, align_corners,
 *               recompute_scale_factor, antialias), from scripted code. */
oxp_status oxp_s_interpolate(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  const char *mode = "nearest";
  if (!x) return oxp_sym_status(c);
  if (n->ninputs > 3 && !oxp_sym_is_none(n, 3) && !oxp_sym_str(n, 3, &mode))
    return oxp_sym_unsupported(c, "a runtime interpolation mode");
  int r = oxp_sym_rank(x);
  if (r < 3 || r > OXP_MAX_SPATIAL_DIMS)
    return oxp_sym_unsupported(c, "__interpolate of unknown rank");
  rs_spec s = {.k = r - 2};
  if (!strcmp(mode, "nearest")) s.mode = RS_NEAREST;
  else if (!strcmp(mode, "nearest-exact")) s.mode = RS_NEAREST_EXACT;
  else if (!strcmp(mode, "linear") || !strcmp(mode, "bilinear") ||
           !strcmp(mode, "trilinear")) s.mode = RS_LINEAR;
  else if (!strcmp(mode, "bicubic")) s.mode = RS_CUBIC;
  else return oxp_sym_unsupported(c, "__interpolate in this mode");
  bool recompute = false, aa = false;
  if (!oxp_nn_bool_arg(c, n, 4, false, &s.align) ||
      !oxp_nn_bool_arg(c, n, 5, false, &recompute) ||
      !oxp_nn_bool_arg(c, n, 6, false, &aa))
    return oxp_sym_status(c);
  if (aa) return oxp_sym_unsupported(c, "__interpolate with antialias");
  if (!oxp_sym_is_none(n, 1)) {
    if (!read_sizes(c, n, 1, &s)) return oxp_sym_status(c);
  } else {
    double *f;
    int cnt;
    if (!oxp_sym_floats(c, n, 2, &f, &cnt)) {
      if (!oxp_sym_float(n, 2, &s.scale[0]))
        return oxp_sym_unsupported(c, "runtime scale factors");
      f = s.scale;
      cnt = 1;
    }
    if (cnt != 1 && cnt != s.k) return oxp_sym_fail(c, OXP_ERR_GRAPH,
                                                    "__interpolate: bad scale_factor");
    for (int j = s.k - 1; j >= 0; j--) s.scale[j] = f[cnt == 1 ? 0 : j];
    if (recompute) {
      /* sizes floor(in * scale), positions from in / out */
      s.by_size = true;
      for (int j = 0; j < s.k; j++) {
        int64_t in = oxp_nn_dim(x, 2 + j);
        if (in < 0)
          return oxp_sym_unsupported(c, "recompute_scale_factor on a dynamic size");
        s.size[j] = (int64_t)floor((double)in * s.scale[j]);
      }
    }
  }
  return oxp_sym_set_out(c, n, 0, resize(c, x, &s));
}

/* grid_sampler(input, grid, interpolation_mode, padding_mode,
 *              align_corners): GridSample; opset 20 renamed the modes
 * and allows 5-D input. */
oxp_status oxp_s_grid_sampler(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0), *g = oxp_sym_in(c, n, 1);
  int64_t im, pm;
  bool align;
  if (!x || !g || !oxp_sym_need_int(c, n, 2, &im) ||
      !oxp_sym_need_int(c, n, 3, &pm) || !oxp_nn_bool_arg(c, n, 4, false, &align))
    return oxp_sym_status(c);
  bool v20 = oxp_sym_opset(c) >= 20;
  if (oxp_sym_rank(x) != 4 && !v20)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "%s of a non-4-D input is not supported at opset %d "
                        "(supported from opset 20)", n->kind, oxp_sym_opset(c));
  static const char *const m16[] = {"bilinear", "nearest", "bicubic"};
  static const char *const m20[] = {"linear", "nearest", "cubic"};
  static const char *const pads[] = {"zeros", "border", "reflection"};
  if (im < 0 || im > 2 || pm < 0 || pm > 2)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: unknown mode", n->kind);
  oxp_node *k = oxp_sym_op(c, "GridSample", (oxp_value *[]){x, g}, 2, 1);
  if (!k) return oxp_sym_status(c);
  oxp_attr_set_s(k, "mode", v20 ? m20[im] : m16[im]);
  oxp_attr_set_s(k, "padding_mode", pads[pm]);
  oxp_attr_set_i(k, "align_corners", align);
  return oxp_sym_set_out(c, n, 0, k->outputs[0]);
}

/* Static C, H, W of a 4-D input for the reshape forms. */
/* The factor from the IR divides and multiplies the sizes: it must be
 * positive, and the products must fit (they are tensor sizes). */
static bool factor_ok(oxp_sctx *c, int64_t r, const int64_t *d) {
  int64_t t;
  if (r <= 0) {
    oxp_sym_fail(c, OXP_ERR_GRAPH, "pixel (un)shuffle: the factor must be positive");
    return false;
  }
  if (__builtin_mul_overflow(r, r, &t) || __builtin_mul_overflow(d[0], t, &t) ||
      __builtin_mul_overflow(d[1], r, &t) || __builtin_mul_overflow(d[2], r, &t)) {
    oxp_sym_unsupported(c, "pixel (un)shuffle to sizes past int64");
    return false;
  }
  return true;
}

static bool chw(oxp_sctx *c, oxp_value *x, int64_t *d) {
  if (oxp_sym_rank(x) != 4) {
    oxp_sym_unsupported(c, "pixel (un)shuffle of a non-4-D input");
    return false;
  }
  for (int j = 0; j < 3; j++)
    if ((d[j] = oxp_nn_dim(x, 1 + j)) < 0) {
      oxp_sym_unsupported(c, "pixel (un)shuffle with dynamic channels or "
                             "spatial sizes at this opset");
      return false;
    }
  return true;
}

/* Pixel (un)shuffle of an x with a static 0 among C, H, W: no elements
 * to move, and the reshapes' 0s would copy dims; so the result is x
 * reshaped to [N, c, h, w] (sizes). NULL when x has elements there. */
static oxp_value *empty_shuffle(oxp_sctx *c, oxp_value *x, int64_t ch,
                                int64_t h, int64_t w) {
  int64_t cd, hd, wd;
  if (oxp_sym_rank(x) != 4 || (cd = oxp_nn_dim(x, 1)) < 0 ||
      (hd = oxp_nn_dim(x, 2)) < 0 || (wd = oxp_nn_dim(x, 3)) < 0 ||
      (cd != 0 && hd != 0 && wd != 0))
    return NULL;
  static const int64_t z = 0, one = 1;
  oxp_value *parts[2] = {oxp_sym_slice(c, oxp_sym_op1(c, "Shape", x), &z, &z, &one, NULL, 1),
                         oxp_sym_const_i64s(c, (int64_t[]){ch, h, w}, 3)};
  oxp_node *cat = parts[0] && parts[1] ? oxp_sym_op(c, "Concat", parts, 2, 1) : NULL;
  if (!cat) return NULL;
  oxp_attr_set_i(cat, "axis", 0);
  return oxp_sym_reshape_sizes(c, x, cat->outputs[0], OXP_ZERO_SURE);
}

/* pixel_shuffle(x, r): DepthToSpace in CRD order (opset 11), else
 * [N, C/r^2, r, r, H, W] -> [N, C/r^2, H, r, W, r]. */
oxp_status oxp_s_pixel_shuffle(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t r, d[3];
  if (!x || !oxp_sym_need_int(c, n, 1, &r)) return oxp_sym_status(c);
  if (r <= 0) return oxp_sym_fail(c, OXP_ERR_GRAPH, "pixel_shuffle: the factor must be positive");
  int64_t e[3] = {oxp_nn_dim(x, 1), oxp_nn_dim(x, 2), oxp_nn_dim(x, 3)};
  if (oxp_sym_rank(x) == 4 && e[0] >= 0 && e[1] >= 0 && e[2] >= 0) {
    if (!factor_ok(c, r, e)) return oxp_sym_status(c);
    if (e[0] == 0 || e[1] == 0 || e[2] == 0)
      return oxp_sym_set_out(c, n, 0, empty_shuffle(c, x, e[0] / (r * r), e[1] * r, e[2] * r));
  }
  if (oxp_sym_opset(c) >= 11 && oxp_sym_rank(x) == 4) {
    oxp_node *k = oxp_nn_op1(c, "DepthToSpace", x);
    if (!k) return oxp_sym_status(c);
    oxp_attr_set_i(k, "blocksize", r);
    oxp_attr_set_s(k, "mode", "CRD");
    return oxp_sym_set_out(c, n, 0, k->outputs[0]);
  }
  if (!chw(c, x, d) || !factor_ok(c, r, d)) return oxp_sym_status(c);
  int64_t s1[6] = {0, d[0] / (r * r), r, r, d[1], d[2]};
  static const int64_t perm[6] = {0, 1, 4, 2, 5, 3};
  int64_t s2[4] = {0, d[0] / (r * r), d[1] * r, d[2] * r};
  oxp_value *y = oxp_nn_transpose(c, oxp_nn_reshape(c, x, s1, 6), perm, 6);
  return oxp_sym_set_out(c, n, 0, oxp_nn_reshape(c, y, s2, 4));
}

/* pixel_unshuffle(x, r): SpaceToDepth orders channels block-first, torch
 * channel-first, so [N, C, H/r, r, W/r, r] -> [N, C, r, r, H/r, W/r]. */
oxp_status oxp_s_pixel_unshuffle(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t r, d[3];
  if (!x || !oxp_sym_need_int(c, n, 1, &r) || !chw(c, x, d) || !factor_ok(c, r, d))
    return oxp_sym_status(c);
  /* torch (1.13) returns an empty x as it is, whatever the factor */
  if (d[0] == 0 || d[1] == 0 || d[2] == 0 || oxp_nn_dim(x, 0) == 0)
    return oxp_sym_set_out(c, n, 0, x);
  int64_t s1[6] = {0, d[0], d[1] / r, r, d[2] / r, r};
  static const int64_t perm[6] = {0, 1, 3, 5, 2, 4};
  int64_t s2[4] = {0, d[0] * r * r, d[1] / r, d[2] / r};
  oxp_value *y = oxp_nn_transpose(c, oxp_nn_reshape(c, x, s1, 6), perm, 6);
  return oxp_sym_set_out(c, n, 0, oxp_nn_reshape(c, y, s2, 4));
}

/* Gather of x along axis by a constant index list. */
static oxp_value *gather_axis(oxp_sctx *c, oxp_value *x, int axis, const int64_t *idx,
                              int64_t n) {
  oxp_node *g = oxp_sym_op(c, "Gather", (oxp_value *[]){x, oxp_sym_const_i64s(c, idx, (int)n)},
                           2, 1);
  if (!g) return NULL;
  oxp_attr_set_i(g, "axis", axis);
  return g->outputs[0];
}

/* The rows (or columns) tap i reads at output position r: i * dil + r * st,
 * tap-major ([taps, out]). NULL (with a diagnostic) when too many. */
static int64_t *tap_index(oxp_sctx *c, int64_t k, int64_t out, int64_t dil, int64_t st) {
  int64_t cnt;
  if (__builtin_mul_overflow(k, out, &cnt) || cnt > (INT64_C(1) << 24)) {
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "im2col: %" PRId64 " taps over %" PRId64
                 " output positions need an index list of more than 2^24", k, out);
    return NULL;
  }
  int64_t *v = oxp_alloc(oxp_sym_arena(c), sizeof *v * (size_t)cnt);
  if (!v) return NULL;
  for (int64_t i = 0; i < k; i++)
    for (int64_t r = 0; r < out; r++) v[i * out + r] = i * dil + r * st;
  return v;
}

/* The zero padding of im2col's input (Pad's form by opset). */
static oxp_value *im2col_pad(oxp_sctx *c, oxp_value *x, const int64_t *pad) {
  if (!pad[0] && !pad[1]) return x;
  int64_t pads[8] = {0, 0, pad[0], pad[1], 0, 0, pad[0], pad[1]};
  oxp_node *p;
  if (oxp_sym_opset(c) < 11) {
    p = oxp_nn_op1(c, "Pad", x);
    if (p) oxp_attr_set_ints(p, "pads", pads, 8);
  } else {
    p = oxp_sym_op(c, "Pad", (oxp_value *[]){x, oxp_sym_const_i64s(c, pads, 8)}, 2, 1);
  }
  return p ? p->outputs[0] : NULL;
}

/* The [k, out] positions tap i reads along axis of the padded xp at
 * output position r, i * dil + r * st, with out = (L - dil * (k - 1) -
 * 1) / st + 1 from xp's run-time size L (*outn: out, 0-d int64). */
static oxp_value *tap_index_dyn(oxp_sctx *c, oxp_value *xp, int axis, int64_t k, int64_t dil,
                                int64_t st, oxp_value **outn) {
  oxp_value *len = oxp_sx_gather(c, oxp_sx_shape(c, xp), oxp_sym_const_scalar(c, axis, OXP_DT_INT64), 0);
  oxp_value *span = oxp_sym_op2(c, "Sub", len, oxp_sym_const_scalar(c, dil * (k - 1) + 1, OXP_DT_INT64));
  *outn = oxp_sym_op2(c, "Add", oxp_sym_op2(c, "Div", span, oxp_sym_const_scalar(c, st, OXP_DT_INT64)),
                      oxp_sym_const_scalar(c, 1, OXP_DT_INT64));
  oxp_value *r = oxp_sym_op(c, "Range", (oxp_value *[]){oxp_sym_const_scalar(c, 0, OXP_DT_INT64), *outn,
                                                          oxp_sym_const_scalar(c, 1, OXP_DT_INT64)}, 3, 1)
                     ->outputs[0];
  int64_t *taps = oxp_alloc(oxp_sym_arena(c), sizeof *taps * (size_t)k);
  if (!taps || !r) return NULL;
  for (int64_t i = 0; i < k; i++) taps[i] = i * dil;
  static const int64_t one = 1, zero = 0;
  oxp_value *rows = oxp_sym_unsqueeze(c, oxp_sym_const_i64s(c, taps, (int)k), &one, 1);
  oxp_value *cols = oxp_sym_unsqueeze(c, oxp_sym_op2(c, "Mul", r, oxp_sym_const_scalar(c, st, OXP_DT_INT64)),
                                      &zero, 1);
  return oxp_sym_op2(c, "Add", rows, cols);
}

/* im2col with a run-time height or width (opset 11: Range): the same
 * gathers by copy with index lists computed at run time, [k, out] each,
 * so Gather makes [N, C, kh, oh, kw, ow] itself; the last Reshape's
 * shape is computed too (N, C*kh*kw, oh*ow), so an empty batch works. */
static oxp_status im2col_dynamic(oxp_sctx *c, oxp_node *n, oxp_value *x, int64_t ch,
                                 const int64_t *ks, const int64_t *dil, const int64_t *pad,
                                 const int64_t *st) {
  (void)n;
  if (oxp_sym_opset(c) < 11)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "im2col of an input of run-time height or "
                        "width is not supported at opset %d (supported from opset 11)",
                        oxp_sym_opset(c));
  for (int d = 0; d < 2; d++)
    if (ks[d] < 1 || dil[d] < 1 || st[d] < 1 || pad[d] < 0 || ks[d] > (INT64_C(1) << 24) ||
        dil[d] > (INT64_C(1) << 24) || st[d] > (INT64_C(1) << 24))
      return oxp_sym_fail(c, OXP_ERR_GRAPH, "im2col: kernel, dilation and stride must be "
                          "positive, padding not negative");
  oxp_value *xp = im2col_pad(c, x, pad), *oh = NULL, *ow = NULL;
  oxp_value *ri = xp ? tap_index_dyn(c, xp, 2, ks[0], dil[0], st[0], &oh) : NULL;
  oxp_value *ci = ri ? tap_index_dyn(c, xp, 3, ks[1], dil[1], st[1], &ow) : NULL;
  oxp_value *y = ci ? oxp_sx_gather(c, xp, ri, 2) : NULL;
  y = y ? oxp_sx_gather(c, y, ci, 4) : NULL;
  static const int64_t perm[6] = {0, 1, 2, 4, 3, 5}, zero = 0;
  y = y ? oxp_nn_transpose(c, y, perm, 6) : NULL;
  if (!y) return oxp_sym_status(c);
  int64_t taps = ch * ks[0] * ks[1];
  oxp_value *parts[3] = {
      oxp_sx_slice_dyn(c, oxp_sx_shape(c, x), oxp_sym_const_i64s(c, &zero, 1),
                       oxp_sym_const_i64s(c, (int64_t[]){1}, 1), 0, 1),
      oxp_sym_const_i64s(c, &taps, 1), oxp_sym_unsqueeze(c, oxp_sym_op2(c, "Mul", oh, ow), &zero, 1)};
  oxp_value *shape = oxp_sx_concat(c, parts, 3, 0);
  return oxp_sym_set_out(c, n, 0, shape ? oxp_sym_op2(c, "Reshape", y, shape) : NULL);
}

/* im2col(input, kernel_size, dilation, padding, stride) -> [N, C*kh*kw, L]:
 * the zero-padded input's rows i*dh + r*sh gathered for every tap row i
 * and output row r, then its columns likewise, [N, C, kh, oh, kw, ow]
 * transposed to [N, C, kh, kw, oh, ow]. Gathers copy the values, so inf
 * and NaN stay where they are (a Conv with a one-hot kernel spread them:
 * 0 * inf). Every size but N is static, so the Reshapes write it out and
 * an empty batch reshapes. */
oxp_status oxp_s_im2col(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t ks[2], dil[2], pad[4], st[2];
  if (!x || !oxp_nn_spatial(c, n, 1, 2, 1, ks) ||
      !oxp_nn_spatial(c, n, 2, 2, 1, dil) || !oxp_nn_spatial(c, n, 3, 2, 0, pad) ||
      !oxp_nn_spatial(c, n, 4, 2, 1, st))
    return oxp_sym_status(c);
  int64_t ch = oxp_nn_dim(x, 1), hw[2] = {oxp_nn_dim(x, 2), oxp_nn_dim(x, 3)}, out[2];
  if (oxp_sym_rank(x) != 4 || ch < 0)
    return oxp_sym_unsupported(c, "im2col of an input without static channels");
  if (hw[0] < 0 || hw[1] < 0) return im2col_dynamic(c, n, x, ch, ks, dil, pad, st);
  for (int d = 0; d < 2; d++) {
    if (ks[d] < 1 || dil[d] < 1 || st[d] < 1 || pad[d] < 0 || ks[d] > (INT64_C(1) << 24) ||
        dil[d] > (INT64_C(1) << 24) || st[d] > (INT64_C(1) << 24) || pad[d] > (INT64_C(1) << 24))
      return oxp_sym_fail(c, OXP_ERR_GRAPH, "im2col: kernel, dilation and stride must be "
                          "positive, padding not negative");
    int64_t span = hw[d] + 2 * pad[d] - dil[d] * (ks[d] - 1) - 1;
    if (span < 0)
      return oxp_sym_fail(c, OXP_ERR_GRAPH, "im2col: the kernel is larger than the "
                          "padded input");
    out[d] = span / st[d] + 1;
  }
  int64_t taps;
  if (__builtin_mul_overflow(ks[0], ks[1], &taps) || __builtin_mul_overflow(ch, taps, &taps))
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "im2col: too many output channels");
  if (!(x = im2col_pad(c, x, pad))) return oxp_sym_status(c);
  int64_t *rows = tap_index(c, ks[0], out[0], dil[0], st[0]);
  int64_t *cols = rows ? tap_index(c, ks[1], out[1], dil[1], st[1]) : NULL;
  if (!cols) return oxp_sym_status(c);
  oxp_value *y = gather_axis(c, x, 2, rows, ks[0] * out[0]);
  y = y ? gather_axis(c, y, 3, cols, ks[1] * out[1]) : NULL;
  if (!y) return oxp_sym_status(c);
  int64_t s6[6] = {0, ch, ks[0], out[0], ks[1], out[1]};
  static const int64_t perm[6] = {0, 1, 2, 4, 3, 5};
  y = oxp_nn_transpose(c, oxp_nn_reshape(c, y, s6, 6), perm, 6);
  int64_t shape[3] = {0, taps, out[0] * out[1]};
  return oxp_sym_set_out(c, n, 0, oxp_nn_reshape(c, y, shape, 3));
}
