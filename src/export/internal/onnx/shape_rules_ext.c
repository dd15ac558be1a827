/* shape_rules_ext.c: shape rules for the ONNX ops beyond the core set:
 * splits and top-k, recurrent layers, padding and resampling, scatter and
 * gather variants, random and utility ops. Same contract as
 * shape_rules.c: unknown stays unknown, and dims a rule does not touch
 * keep their dim_params, so dynamic axes reach the outputs. */
#include "shape_rules.h"

static const char *attr_s(const oxp_node *n, const char *name) {
  const oxp_attr *a = oxp_attr_get(n, name);
  return a && a->kind == OXP_A_STR ? a->s : NULL;
}

/* Split(input[, split]) along axis: the split sizes from the attribute
 * (before 13) or the input, else equal parts of a known dim. */
static oxp_status r_split(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  IN(0, &x);
  int64_t axis = attr_i(n, "axis", 0), sizes[MAXR];
  const char *names[MAXR] = {0};
  int k = attr_ints(n, "split", sizes);
  /* sizes from an input may be known only at run time (then not even
   * parts), or be dims of a dynamic axis (then named) */
  bool given = k >= 0 || (n->ninputs > 1 && n->inputs[1]);
  if (k < 0 && given) k = oxp_si_ints(c, n, 1, sizes, names, NULL);
  for (int i = 0; i < n->noutputs; i++) out[i] = x;
  if (x.rank < 0 || !norm_axis(&axis, x.rank)) return OXP_OK;
  int64_t d = x.p[axis] ? -1 : x.d[axis], parts = n->noutputs;
  for (int i = 0; i < n->noutputs; i++) {
    int64_t len = -1;
    if (k == n->noutputs) {
      if (names[i]) {
        set_dim(&out[i], (int)axis, -1, names[i]);
        continue;
      }
      len = sizes[i] == OXP_SYM_UNKNOWN ? -1 : sizes[i];
    } else if (!given && d >= 0 && parts > 0) {
      /* num_outputs (18) rounds the part size up; the last takes the rest */
      int64_t part = (d + parts - 1) / parts;
      len = i < parts - 1 ? part : d - part * (parts - 1);
    }
    set_dim(&out[i], (int)axis, len, NULL);
  }
  return OXP_OK;
}

/* TopK(X, K): values and int64 indices, K along axis. */
static oxp_status r_topk(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  IN(0, &out[0]);
  int64_t axis = attr_i(n, "axis", -1), kv[MAXR];
  int64_t k = attr_i(n, "k", -1);
  if (k < 0 && input_ints(c, n, 1, kv) == 1) k = kv[0];
  if (out[0].rank >= 0 && norm_axis(&axis, out[0].rank))
    set_dim(&out[0], (int)axis, k, NULL);
  if (n->noutputs > 1) out[1] = out[0], out[1].dtype = OXP_DT_INT64;
  return OXP_OK;
}

/* LSTM / GRU / RNN: X is [seq, batch, input] ([batch, seq, input] with
 * layout=1); Y is [seq, dirs, batch, hidden], Y_h and Y_c [dirs, batch,
 * hidden] (batch first with layout=1). */
static oxp_status r_rnn(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  IN(0, &x);
  if (x.rank != 3) {
    for (int i = 0; i < n->noutputs; i++) oxp_shape_unknown(&out[i], x.dtype);
    return OXP_OK;
  }
  const char *dir = attr_s(n, "direction");
  int64_t dirs = dir && strcmp(dir, "bidirectional") == 0 ? 2 : 1;
  int64_t hidden = attr_i(n, "hidden_size", -1);
  bool bf = attr_i(n, "layout", 0) == 1;
  int si = bf ? 1 : 0, bi = bf ? 0 : 1;
  unknown_dims(&out[0], x.dtype, 4);
  copy_dim(&out[0], bf ? 1 : 0, &x, si);
  set_dim(&out[0], bf ? 2 : 1, dirs, NULL);
  copy_dim(&out[0], bf ? 0 : 2, &x, bi);
  set_dim(&out[0], 3, hidden, NULL);
  for (int i = 1; i < n->noutputs; i++) {
    unknown_dims(&out[i], x.dtype, 3);
    set_dim(&out[i], bf ? 1 : 0, dirs, NULL);
    copy_dim(&out[i], bf ? 0 : 1, &x, bi);
    set_dim(&out[i], 2, hidden, NULL);
  }
  return OXP_OK;
}

/* Pad: each dim grows by its two pads when they are known; unpadded dims
 * (including named ones) pass through. */
static oxp_status r_pad(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  IN(0, &out[0]);
  int r = out[0].rank;
  if (r < 0) return OXP_OK;
  int64_t pads[2 * MAXR], axes[MAXR];
  /* pads: the attribute before opset 11, a small int input after. */
  int k = attr_ints(n, "pads", pads);
  if (k < 0) k = oxp_si_ints(c, n, 1, pads, NULL, NULL);
  int na = n->ninputs > 3 && n->inputs[3] ? input_ints(c, n, 3, axes) : -2;
  if (na == -2) {
    na = r;
    for (int i = 0; i < r; i++) axes[i] = i;
  }
  if (k != 2 * na) {
    unknown_dims(&out[0], out[0].dtype, r);
    return OXP_OK;
  }
  for (int j = 0; j < na; j++) {
    int64_t a = axes[j];
    if (!norm_axis(&a, r)) continue;
    int64_t grow = dadd(pads[j], pads[na + j]);
    if (pads[j] == OXP_SYM_UNKNOWN || pads[na + j] == OXP_SYM_UNKNOWN)
      set_dim(&out[0], (int)a, -1, NULL);
    else if (grow != 0)
      set_dim_or_unknown(&out[0], (int)a, out[0].p[a] || out[0].d[a] < 0 ? -1
                                          : dadd(out[0].d[a], grow));
  }
  return OXP_OK;
}

/* Resize(X, roi, scales, sizes) / Upsample(X, scales): sizes when given,
 * else floor(dim * scale); a scale of 1 keeps the dim as it is. */
static oxp_status r_resize(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  IN(0, &out[0]);
  int r = out[0].rank;
  if (r < 0) return OXP_OK;
  int64_t sizes[MAXR];
  const char *names[MAXR];
  bool up = oxp_kind_is(n, "onnx::Upsample");
  if (!up && n->ninputs > 3 && n->inputs[3]) {
    /* sizes, maybe dims of dynamic axes (the FPN's size=y.shape[-2:]) */
    bool all = oxp_si_ints(c, n, 3, sizes, names, NULL) == r;
    for (int i = 0; i < r; i++)
      set_dim(&out[0], i, all && !names[i] && sizes[i] != OXP_SYM_UNKNOWN ? sizes[i] : -1,
              all ? names[i] : NULL);
    return OXP_OK;
  }
  /* scales: input 1 of Upsample and Resize-10, input 2 from Resize-11 */
  int si = up || n->ninputs < 3 ? 1 : 2;
  const oxp_value *sv = si < n->ninputs ? n->inputs[si] : NULL;
  const oxp_attr *sa = oxp_attr_get(n, "scales");
  const oxp_tensor *t = sv && sv->init && !sv->producer ? sv->init : NULL;
  int64_t m = t && t->data ? oxp_tensor_numel(t) : sa && sa->kind == OXP_A_FLOATS ? sa->n : -1;
  for (int i = 0; i < r; i++) {
    double s = m == r ? (t && t->data ? oxp_tensor_get_f(t, i) : sa->floats[i]) : -1;
    if (s == 1) continue;
    bool known = s > 0 && !out[0].p[i] && out[0].d[i] >= 0;
    set_dim(&out[0], i, known ? oxp_f2i((double)out[0].d[i] * s) : -1, NULL);
  }
  return OXP_OK;
}

/* DepthToSpace / SpaceToDepth on [N, C, H, W]. */
static oxp_status r_depth_space(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  IN(0, &out[0]);
  int64_t b = attr_i(n, "blocksize", -1);
  if (out[0].rank != 4 || b <= 0) return OXP_OK;
  bool to_space = oxp_kind_is(n, "onnx::DepthToSpace");
  int64_t bb = dmul(b, b);
  if (bb == DIM_OVER) return unknown_dims(&out[0], out[0].dtype, 4), OXP_OK;
  int64_t f[4] = {1, to_space ? -bb : bb, to_space ? b : -b, to_space ? b : -b};
  for (int i = 1; i < 4; i++) {
    int64_t d = out[0].p[i] ? -1 : out[0].d[i];
    if (d >= 0) d = f[i] > 0 ? dmul(d, f[i]) : d / -f[i];
    set_dim_or_unknown(&out[0], i, d);
  }
  return OXP_OK;
}

/* GatherElements: the indices' shape, the data's dtype. */
static oxp_status r_gather_elements(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  IN(0, &x);
  IN(1, &out[0]);
  out[0].dtype = x.dtype;
  return OXP_OK;
}

/* OneHot(indices, depth, values): a new axis of size depth. */
static oxp_status r_one_hot(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape idx, vals;
  IN(0, &idx);
  IN(2, &vals);
  if (idx.rank < 0 || idx.rank + 1 > MAXR) {
    oxp_shape_unknown(&out[0], vals.dtype);
    return OXP_OK;
  }
  int r = idx.rank + 1;
  int64_t axis = attr_i(n, "axis", -1), depth[MAXR];
  if (!norm_axis(&axis, r)) return OXP_OK;
  unknown_dims(&out[0], vals.dtype, r);
  for (int i = 0, j = 0; i < r; i++)
    if (i != axis) copy_dim(&out[0], i, &idx, j++);
  set_dim(&out[0], (int)axis, input_ints(c, n, 1, depth) == 1 ? depth[0] : -1, NULL);
  return OXP_OK;
}

/* GridSample(X [N, C, H, W], grid [N, Ho, Wo, 2]) -> [N, C, Ho, Wo]. */
static oxp_status r_grid_sample(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x, g;
  IN(0, &x);
  IN(1, &g);
  if (x.rank < 3 || g.rank != x.rank) {
    oxp_shape_unknown(&out[0], x.dtype);
    return OXP_OK;
  }
  unknown_dims(&out[0], x.dtype, x.rank);
  copy_dim(&out[0], 0, &x, 0);
  copy_dim(&out[0], 1, &x, 1);
  for (int i = 2; i < x.rank; i++) copy_dim(&out[0], i, &g, i - 1);
  return OXP_OK;
}

/* Same shape; the dtype attribute (or the input's) sets the type. */
static oxp_status r_like(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  IN(0, &out[0]);
  int64_t dt = attr_i(n, "dtype", 0);
  if (dt > 0) out[0].dtype = (int)dt;
  return OXP_OK;
}

/* Det: the matrices' batch dims. */
static oxp_status r_det(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  IN(0, &x);
  out[0] = x;
  if (x.rank >= 2) out[0].rank = x.rank - 2;
  return OXP_OK;
}

/* Compress: one dim of unknown length (or a 1-D result without axis). */
static oxp_status r_compress(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  IN(0, &out[0]);
  const oxp_attr *a = oxp_attr_get(n, "axis");
  int64_t axis = a ? a->i : 0;
  if (!a) unknown_dims(&out[0], out[0].dtype, 1);
  else if (out[0].rank >= 0 && norm_axis(&axis, out[0].rank))
    set_dim(&out[0], (int)axis, -1, NULL);
  return OXP_OK;
}

/* NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss: the target's shape
 * with reduction "none", else a scalar; SCE's log_prob is the input's. */
static oxp_status r_loss(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x, t;
  IN(0, &x);
  IN(1, &t);
  const char *red = attr_s(n, "reduction");
  if (red && strcmp(red, "none") == 0) out[0] = t;
  else unknown_dims(&out[0], x.dtype, 0);
  out[0].dtype = x.dtype;
  if (n->noutputs > 1) out[1] = x;
  return OXP_OK;
}

/* Multinomial(input [batch, classes]) -> [batch, sample_size]. */
static oxp_status r_multinomial(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  IN(0, &x);
  unknown_dims(&out[0], (int)attr_i(n, "dtype", OXP_DT_INT32), 2);
  if (x.rank == 2) copy_dim(&out[0], 0, &x, 0);
  set_dim(&out[0], 1, attr_i(n, "sample_size", 1), NULL);
  return OXP_OK;
}

const oxp_shape_rule_entry oxp_shape_rules_ext[] = {
    {"Split", r_split}, {"TopK", r_topk},
    {"LSTM", r_rnn}, {"GRU", r_rnn}, {"RNN", r_rnn},
    {"Pad", r_pad}, {"Resize", r_resize}, {"Upsample", r_resize},
    {"DepthToSpace", r_depth_space}, {"SpaceToDepth", r_depth_space},
    {"GatherElements", r_gather_elements},
    {"ScatterElements", oxp_r_same}, {"ScatterND", oxp_r_same},
    {"OneHot", r_one_hot}, {"GridSample", r_grid_sample},
    {"GroupNormalization", oxp_r_same}, {"Shrink", oxp_r_same},
    {"Acos", oxp_r_same}, {"Acosh", oxp_r_same}, {"Asin", oxp_r_same},
    {"Asinh", oxp_r_same}, {"Atan", oxp_r_same}, {"Atanh", oxp_r_same},
    {"Cosh", oxp_r_same}, {"Sinh", oxp_r_same}, {"Tan", oxp_r_same},
    {"BitwiseNot", oxp_r_same}, {"BitwiseAnd", oxp_r_arith},
    {"BitwiseOr", oxp_r_arith}, {"BitwiseXor", oxp_r_arith},
    {"EyeLike", r_like}, {"RandomNormalLike", r_like},
    {"RandomUniformLike", r_like}, {"Bernoulli", r_like},
    {"Det", r_det}, {"Compress", r_compress},
    {"NegativeLogLikelihoodLoss", r_loss}, {"SoftmaxCrossEntropyLoss", r_loss},
    {"Multinomial", r_multinomial},
};
const int oxp_nshape_rules_ext =
    sizeof oxp_shape_rules_ext / sizeof oxp_shape_rules_ext[0];
