/* s_embed.c: embedding, embedding_bag, embedding_renorm. embedding_bag is
 * vectorized (a bag-membership matrix and one MatMul / ReduceMax) rather
 * than torch's exporter's Loop over bags. */
#include <math.h>

#include "s_nn_util.h"

/* embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse):
 * padding_idx only affects gradients. */
oxp_status oxp_s_embedding(oxp_sctx *c, oxp_node *n) {
  oxp_value *w = oxp_sym_in(c, n, 0), *idx = oxp_sym_in(c, n, 1);
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Gather", w, idx));
}

/* 0, 1, ..., len-1 as int64: a constant when len is static, else Range. */
static oxp_value *iota(oxp_sctx *c, oxp_value *of, int64_t len) {
  if (len >= 0) {
    int64_t *v = oxp_alloc(oxp_sym_arena(c), sizeof(int64_t) * (size_t)(len + 1));
    if (!v) return NULL;
    for (int64_t i = 0; i < len; i++) v[i] = i;
    return oxp_sym_const_i64s(c, v, (int)len);
  }
  if (oxp_sym_opset(c) < 11) {
    oxp_sym_unsupported(c, "embedding_bag with a dynamic number of indices "
                           "or bags (supported from opset 11)");
    return NULL;
  }
  return oxp_sym_op3(c, "Range", oxp_sym_const_i64(c, 0), oxp_sym_size(c, of, 0),
                     oxp_sym_const_i64(c, 1));
}

/* The [B, L] bag-membership matrix of 1-D indices split by offsets. */
static oxp_value *bag_matrix(oxp_sctx *c, oxp_value *idx, oxp_value *off,
                             bool last_offset) {
  int64_t l = oxp_nn_dim(idx, 0), nb = oxp_nn_dim(off, 0);
  static const int64_t ax0 = 0, ax1 = 1;
  oxp_value *pos = iota(c, idx, l);
  if (last_offset) {
    static const int64_t zero = 0, m1 = -1;
    off = oxp_sym_slice(c, off, &zero, &zero, &m1, NULL, 1);
    if (nb >= 0) nb--;
  }
  oxp_value *bags = nb >= 0 ? iota(c, NULL, nb) : iota(c, off, -1);
  /* seg[j] = (number of offsets <= j) - 1: the bag position j is in. */
  oxp_value *le = oxp_sym_op2(c, "Greater", oxp_sym_unsqueeze(c, pos, &ax1, 1),
                              oxp_sym_op2(c, "Sub", oxp_sym_unsqueeze(c, off, &ax0, 1),
                                          oxp_sym_const_i64(c, 1)));
  oxp_value *seg = oxp_sym_reduce(c, "ReduceSum", oxp_sym_cast(c, le, OXP_DT_INT64),
                                  &ax1, 1, false);
  seg = oxp_sym_op2(c, "Sub", seg, oxp_sym_const_i64(c, 1));
  return oxp_sym_op2(c, "Equal", oxp_sym_unsqueeze(c, seg, &ax0, 1),
                     oxp_sym_unsqueeze(c, bags, &ax1, 1));
}

/* embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode,
 *               sparse, per_sample_weights, include_last_offset,
 *               padding_idx) -> (out, offset2bag, bag_size, max_indices);
 * mode 0 sum, 1 mean, 2 max; only the first output is exported. Empty
 * bags give zeros, as in torch. */
oxp_status oxp_s_embedding_bag(oxp_sctx *c, oxp_node *n) {
  oxp_value *w = oxp_sym_in(c, n, 0), *idx = oxp_sym_in(c, n, 1);
  int64_t mode, pad = -1;
  bool last;
  if (!w || !idx || !oxp_nn_int_arg(c, n, 4, 0, &mode) ||
      !oxp_nn_bool_arg(c, n, 7, false, &last) ||
      !oxp_nn_int_arg(c, n, 8, -1, &pad))
    return oxp_sym_status(c);
  for (int i = 1; i < 4; i++)
    if (oxp_nn_out_used(n, i))
      return oxp_sym_unsupported(c, "embedding_bag's offset2bag, bag_size "
                                    "and max_indices outputs");
  bool psw = n->ninputs > 6 && !oxp_sym_is_none(n, 6);
  if (psw && mode != 0)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "embedding_bag: per_sample_weights "
                        "need mode 'sum'");
  int dt = oxp_nn_dtype(c, w), ir = oxp_sym_rank(idx);
  /* Unsqueeze takes no negative axes before opset 11: trailing axes are
   * spelled out (psw has the rank of indices, member is 2-D). */
  static const int64_t ax0 = 0, ax1 = 1, ax2 = 2;
  int64_t ax_last = ir;
  oxp_value *e = oxp_sym_op2(c, "Gather", w, idx); /* [L, D] or [B, L, D] */
  if (psw)
    e = oxp_sym_op2(c, "Mul", e, oxp_sym_unsqueeze(c, oxp_sym_in_as(c, n, 6, dt),
                                                   &ax_last, 1));
  oxp_value *member; /* [B, L] bool: which positions feed which bag */
  if (ir == 2) {
    if (pad < 0) {
      const char *red = mode == 0 ? "ReduceSum" : mode == 1 ? "ReduceMean" : "ReduceMax";
      return oxp_sym_set_out(c, n, 0, oxp_sym_reduce(c, red, e, &ax1, 1, false));
    }
    member = NULL;
  } else if (ir == 1) {
    oxp_value *off = oxp_sym_is_none(n, 2) ? NULL : oxp_sym_in_as(c, n, 2, OXP_DT_INT64);
    if (!off) return oxp_sym_unsupported(c, "1-D embedding_bag indices without offsets");
    member = bag_matrix(c, oxp_sym_cast(c, idx, OXP_DT_INT64), off, last);
  } else {
    return oxp_sym_unsupported(c, "embedding_bag indices of this rank");
  }
  if (pad >= 0) {
    oxp_value *keep = oxp_sym_op1(c, "Not", oxp_sym_op2(c, "Equal", idx,
                                  oxp_sym_const_scalar(c, (double)pad, oxp_sym_dtype(idx))));
    if (ir == 2) {
      /* rows are bags: membership is the non-padding mask itself */
      member = keep;
    } else {
      member = oxp_sym_op2(c, "And", member, oxp_sym_unsqueeze(c, keep, &ax0, 1));
    }
  }
  oxp_value *mf = oxp_sym_cast(c, member, dt);
  oxp_value *count = oxp_sym_reduce(c, "ReduceSum", mf, &ax1, 1, true); /* [B,1] */
  oxp_value *y;
  if (mode == 2) {
    /* Max over members: non-members become -inf; empty bags then 0. */
    oxp_value *m3 = oxp_sym_unsqueeze(c, member, &ax2, 1);
    oxp_value *e3 = ir == 1 ? oxp_sym_unsqueeze(c, e, &ax0, 1) : e;
    oxp_value *masked = oxp_sym_op3(c, "Where", m3, e3,
                                    oxp_sym_const_scalar(c, -INFINITY, dt));
    y = oxp_sym_reduce(c, "ReduceMax", masked, &ax1, 1, false);
    y = oxp_sym_op3(c, "Where", oxp_sym_op2(c, "Greater", count,
                                            oxp_sym_const_scalar(c, 0, dt)),
                    y, oxp_sym_const_scalar(c, 0, dt));
  } else {
    if (ir == 1) {
      y = oxp_sym_op2(c, "MatMul", mf, e);
    } else {
      oxp_value *e0 = oxp_sym_op2(c, "Mul", e, oxp_sym_unsqueeze(c, mf, &ax2, 1));
      y = oxp_sym_reduce(c, "ReduceSum", e0, &ax1, 1, false);
    }
    if (mode == 1)
      y = oxp_sym_op2(c, "Div", y, oxp_sym_op2(c, "Max", count,
                                               oxp_sym_const_scalar(c, 1, dt)));
  }
  return oxp_sym_set_out(c, n, 0, y);
}

/* embedding_renorm(weight, indices, max_norm, norm_type): rows named by
 * indices whose p-norm exceeds max_norm are scaled by
 * max_norm / (norm + 1e-7), as torch's kernel does. The rows touched are
 * marked by a ScatterElements (opset 11). */
oxp_status oxp_s_embedding_renorm(oxp_sctx *c, oxp_node *n) {
  oxp_value *w = oxp_sym_in(c, n, 0), *idx = oxp_sym_in_as(c, n, 1, OXP_DT_INT64);
  double max_norm, p;
  if (!w || !idx || !oxp_nn_float_arg(c, n, 2, 1, &max_norm) ||
      !oxp_nn_float_arg(c, n, 3, 2, &p))
    return oxp_sym_status(c);
  int dt = oxp_nn_dtype(c, w);
  int64_t rows = oxp_nn_dim(w, 0);
  if (rows < 0) return oxp_sym_unsupported(c, "embedding_renorm of a weight of unknown size");
  static const int64_t ax1 = 1, flat = -1;
  oxp_value *norm;
  if (p == 2) norm = oxp_sym_reduce(c, "ReduceL2", w, &ax1, 1, true);
  else if (p == 1) norm = oxp_sym_reduce(c, "ReduceL1", w, &ax1, 1, true);
  else
    norm = oxp_sym_op2(c, "Pow",
        oxp_sym_reduce(c, "ReduceSum", oxp_sym_op2(c, "Pow", oxp_sym_op1(c, "Abs", w),
                                                   oxp_sym_const_scalar(c, p, dt)),
                       &ax1, 1, true),
        oxp_sym_const_scalar(c, 1 / p, dt));
  oxp_value *mn = oxp_sym_const_scalar(c, max_norm, dt);
  oxp_value *scale = oxp_sym_op2(c, "Div", mn, oxp_sym_op2(c, "Add", norm,
                                 oxp_sym_const_scalar(c, 1e-7, dt)));
  oxp_value *one = oxp_sym_const_scalar(c, 1, dt);
  scale = oxp_sym_op3(c, "Where", oxp_sym_op2(c, "Greater", norm, mn), scale, one);
  oxp_value *fi = oxp_nn_reshape(c, idx, &flat, 1);
  oxp_value *ones = oxp_sym_op2(c, "Expand", oxp_sym_const_scalar(c, 1, OXP_DT_FLOAT),
                                oxp_sym_op1(c, "Shape", fi));
  oxp_value *in[3] = {oxp_nn_filled(c, rows, 0, OXP_DT_FLOAT), fi, ones};
  if (!in[0] || !in[1] || !in[2]) return oxp_sym_status(c);
  oxp_node *sc = oxp_sym_op(c, "ScatterElements", in, 3, 1);
  if (!sc) return oxp_sym_status(c);
  oxp_attr_set_i(sc, "axis", 0);
  oxp_value *hit = oxp_sym_op2(c, "Greater", oxp_sym_unsqueeze(c, sc->outputs[0], &ax1, 1),
                               oxp_sym_const_scalar(c, 0, OXP_DT_FLOAT));
  scale = oxp_sym_op3(c, "Where", hit, scale, one);
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Mul", w, scale));
}
