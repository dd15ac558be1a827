/* s_pad.c: padding: constant_pad_nd, pad (constant / reflect / replicate
 * / circular), reflection_pad*, replication_pad*, _pad_circular. One ONNX
 * Pad (attributes before opset 11, inputs from 11); circular is Pad
 * mode "wrap" from opset 19, slices and Concat before. */
#include <string.h>

#include "s_nn_util.h"

/* torch's pad list runs from the last dim backwards, (begin, end) pairs;
 * ONNX's is all begins, then all ends, from dim 0. Pads known only at run
 * time (amounts computed from shapes) are reordered by one Gather over
 * the list with a 0 appended for the dims torch's list leaves out. */
static bool onnx_pads(oxp_sctx *c, oxp_node *n, int i, int r, int64_t *pads,
                      oxp_value **rt) {
  oxp_ilist l;
  *rt = NULL;
  if (!oxp_sym_ilist(c, n, i, &l) ||
      !oxp_sym_ilist_count(c, n, i, &l, "the pads' order cannot be built without it"))
    return false;
  int cnt = l.n;
  if (cnt % 2 || cnt / 2 > r) {
    oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: %d pad values for a rank-%d input",
                 n->kind, cnt, r);
    return false;
  }
  int64_t src[2 * OXP_MAX_SPATIAL_DIMS];
  for (int j = 0; j < 2 * r; j++) src[j] = cnt; /* the appended 0 */
  for (int j = 0; j < cnt / 2; j++) {
    src[r - 1 - j] = 2 * j;
    src[2 * r - 1 - j] = 2 * j + 1;
  }
  for (int j = 0; j < 2 * r; j++) pads[j] = src[j] < cnt ? l.v[src[j]] : 0;
  if (l.known) return true;
  if (oxp_sym_opset(c) < 11) {
    oxp_sym_runtime_arg(c, n, i, "ONNX Pad takes the pads as an attribute "
                        "before opset 11");
    return false;
  }
  static const int64_t zero = 0;
  oxp_value *parts[2] = {l.t, oxp_sym_const_i64s(c, &zero, 1)};
  oxp_node *cat = parts[1] ? oxp_sym_op(c, "Concat", parts, 2, 1) : NULL;
  if (!cat) return false;
  oxp_attr_set_i(cat, "axis", 0);
  *rt = oxp_sym_op2(c, "Gather", cat->outputs[0], oxp_sym_const_i64s(c, src, 2 * r));
  oxp_sym_set_type(c, *rt, OXP_DT_INT64, 1, (int64_t[]){2 * r});
  return *rt != NULL;
}

static oxp_value *emit_pad(oxp_sctx *c, oxp_value *x, const int64_t *pads,
                           oxp_value *rt, int r, const char *mode,
                           double value, bool has_value) {
  oxp_node *p;
  if (oxp_sym_opset(c) < 11) {
    p = oxp_nn_op1(c, "Pad", x);
    if (!p) return NULL;
    oxp_attr_set_ints(p, "pads", pads, 2 * r);
    if (has_value && value != 0) oxp_attr_set_f(p, "value", value);
  } else {
    oxp_value *in[3] = {x, rt ? rt : oxp_sym_const_i64s(c, pads, 2 * r),
                        has_value && value != 0
                            ? oxp_sym_const_scalar(c, value, oxp_nn_dtype(c, x))
                            : NULL};
    p = oxp_sym_op(c, "Pad", in, in[2] ? 3 : 2, 1);
    if (!p) return NULL;
  }
  if (strcmp(mode, "constant") != 0) oxp_attr_set_s(p, "mode", mode);
  return p->outputs[0];
}

/* Circular padding before opset 19: per dim, Concat(x[-b:], x, x[:e]). */
static oxp_value *circular(oxp_sctx *c, oxp_value *x, const int64_t *pads,
                           int r) {
  for (int d = 0; d < r && x; d++) {
    int64_t b = pads[d], e = pads[r + d];
    if (!b && !e) continue;
    if (b < 0 || e < 0) {
      oxp_sym_unsupported(c, "negative circular padding");
      return NULL;
    }
    oxp_value *parts[3];
    int np = 0;
    int64_t ax = d, big = INT64_MAX, zero = 0, mb = -b;
    if (b) parts[np++] = oxp_sym_slice(c, x, &ax, &mb, &big, NULL, 1);
    parts[np++] = x;
    if (e) parts[np++] = oxp_sym_slice(c, x, &ax, &zero, &e, NULL, 1);
    oxp_node *k = oxp_sym_op(c, "Concat", parts, np, 1);
    if (!k) return NULL;
    oxp_attr_set_i(k, "axis", d);
    x = k->outputs[0];
  }
  return x;
}

static oxp_status pad_mode(oxp_sctx *c, oxp_node *n, const char *mode,
                           int i_value) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int r = oxp_sym_rank(x);
  if (r < 0 || r > OXP_MAX_SPATIAL_DIMS)
    return oxp_sym_unsupported(c, "padding an input of unknown rank");
  int64_t pads[2 * OXP_MAX_SPATIAL_DIMS];
  oxp_value *rt;
  double value = 0;
  if (!onnx_pads(c, n, 1, r, pads, &rt) ||
      (i_value >= 0 && !oxp_nn_float_arg(c, n, i_value, 0, &value)))
    return oxp_sym_status(c);
  if (strcmp(mode, "circular") == 0) {
    if (oxp_sym_opset(c) < 19 && rt)
      return oxp_sym_runtime_arg(c, n, 1, "circular padding slices by the pads "
                                 "before opset 19 (Pad mode wrap)");
    if (oxp_sym_opset(c) < 19) return oxp_sym_set_out(c, n, 0, circular(c, x, pads, r));
    mode = "wrap";
  } else if (strcmp(mode, "replicate") == 0) {
    mode = "edge";
  } else if (strcmp(mode, "reflect") != 0 && strcmp(mode, "constant") != 0) {
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: unknown padding mode '%s'",
                        n->kind, mode);
  }
  return oxp_sym_set_out(c, n, 0, emit_pad(c, x, pads, rt, r, mode, value,
                                           i_value >= 0));
}

/* constant_pad_nd(input, pad, value) */
oxp_status oxp_s_constant_pad_nd(oxp_sctx *c, oxp_node *n) {
  return pad_mode(c, n, "constant", 2);
}

/* pad(input, pad, mode, value) */
oxp_status oxp_s_pad(oxp_sctx *c, oxp_node *n) {
  const char *mode = "constant";
  if (n->ninputs > 2 && !oxp_sym_is_none(n, 2) && !oxp_sym_str(n, 2, &mode))
    return oxp_sym_unsupported(c, "a runtime padding mode");
  return pad_mode(c, n, mode, strcmp(mode, "constant") == 0 ? 3 : -1);
}

oxp_status oxp_s_reflection_pad(oxp_sctx *c, oxp_node *n) {
  return pad_mode(c, n, "reflect", -1);
}
oxp_status oxp_s_replication_pad(oxp_sctx *c, oxp_node *n) {
  return pad_mode(c, n, "replicate", -1);
}
oxp_status oxp_s_pad_circular(oxp_sctx *c, oxp_node *n) {
  return pad_mode(c, n, "circular", -1);
}
