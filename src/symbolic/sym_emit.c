/* sym_emit.c: how a symbolic emits ONNX: nodes, constants, and the small
 * opset-dependent forms (Cast, Unsqueeze, Squeeze, Reduce*, Slice) that
 * many symbolics share, so each opset difference is written once. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "lower_ctx.h"

int oxp_sym_opset(const oxp_sctx *c) { return c->opset; }
const oxp_options *oxp_sym_options(const oxp_sctx *c) { return c->o; }
oxp_arena *oxp_sym_arena(const oxp_sctx *c) { return c->dst->arena; }
oxp_status oxp_sym_status(const oxp_sctx *c) {
  return c->d->status ? c->d->status : OXP_ERR_INTERNAL;
}

oxp_status oxp_sym_fail(oxp_sctx *c, oxp_status st, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  oxp_node *n = c->node;
  return oxp_fail(c->d, st, n ? &n->loc : NULL, n ? n->kind : NULL, "%s",
                  msg);
}

oxp_status oxp_sym_unsupported(oxp_sctx *c, const char *what) {
  return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: %s is not supported at opset %d",
                      c->node ? c->node->kind : "?", what, c->opset);
}

/* "onnx::<op>", made once per op type of an export: kinds are only read. */
static const char *onnx_kind(oxp_sctx *c, const char *op) {
  char *k = oxp_map_get(&c->kinds, op);
  if (k) return k;
  size_t n = strlen(op);
  if (!(k = oxp_alloc(c->dst->arena, n + 7))) return NULL;
  memcpy(k, "onnx::", 6);
  memcpy(k + 6, op, n + 1);
  return oxp_map_put(&c->kinds, k + 6, k) ? k : NULL;
}

oxp_node *oxp_sym_op(oxp_sctx *c, const char *op, oxp_value *const *ins,
                     int nin, int nout) {
  if (c->d->status) return NULL;
  const char *kind = strstr(op, "::") ? oxp_strdup(c->dst->arena, op) : onnx_kind(c, op);
  oxp_node *n = kind ? oxp_node_new(c->dst, kind, nout) : NULL;
  for (int i = 0; n && i < nin; i++)
    if (!oxp_node_add_input(n, ins[i])) {
      oxp_node_destroy(n); /* never half a node, nor its uses */
      n = NULL;
    }
  if (!n) {
    oxp_fail(c->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
    return NULL;
  }
  if (c->node) {
    n->loc = c->node->loc;
    n->scope = c->node->scope;
    n->source = c->node->source;
  }
  oxp_block_append(c->cur, n);
  return n;
}

oxp_value *oxp_sym_op1(oxp_sctx *c, const char *op, oxp_value *a) {
  if (!a) return NULL;
  oxp_node *n = oxp_sym_op(c, op, &a, 1, 1);
  return n ? n->outputs[0] : NULL;
}

oxp_value *oxp_sym_op2(oxp_sctx *c, const char *op, oxp_value *a,
                       oxp_value *b) {
  if (!a || !b) return NULL;
  oxp_value *in[2] = {a, b};
  oxp_node *n = oxp_sym_op(c, op, in, 2, 1);
  return n ? n->outputs[0] : NULL;
}

oxp_value *oxp_sym_op3(oxp_sctx *c, const char *op, oxp_value *a,
                       oxp_value *b, oxp_value *x) {
  if (!a || !b || !x) return NULL;
  oxp_value *in[3] = {a, b, x};
  oxp_node *n = oxp_sym_op(c, op, in, 3, 1);
  return n ? n->outputs[0] : NULL;
}

void oxp_sym_set_type(oxp_sctx *c, oxp_value *v, int dtype, int rank,
                      const int64_t *dims) {
  if (!v || v->type) return;
  v->type = oxp_type_tensor(c->dst->arena, dtype, rank, dims);
}

/* The ONNX type of a lowered TorchScript value: scalars are 0-d tensors,
 * and traced dims are kept only when no axis was declared dynamic. */
static oxp_type *lowered_type(oxp_sctx *c, const oxp_type *t) {
  if (!t) return NULL;
  int dt = oxp_lower_scalar_dtype(t);
  if (t->kind != OXP_T_TENSOR)
    return dt ? oxp_type_tensor(c->dst->arena, dt, 0, NULL) : NULL;
  oxp_type *r = oxp_type_copy(c->dst->arena, t);
  if (r && !c->static_shapes) {
    for (int i = 0; i < r->rank; i++) r->dims[i] = -1;
    r->dim_params = NULL;
  }
  return r;
}

oxp_status oxp_sym_set_out(oxp_sctx *c, oxp_node *n, int i, oxp_value *v) {
  if (!v) return oxp_sym_status(c);
  if (i >= n->noutputs)
    return oxp_sym_fail(c, OXP_ERR_INTERNAL, "%s has no output %d", n->kind, i);
  oxp_value *src = n->outputs[i];
  oxp_type *traced = lowered_type(c, src->type);
  if (!v->type) v->type = traced;
  else if (v->type->kind == OXP_T_TENSOR && traced &&
           traced->kind == OXP_T_TENSOR) {
    /* What the helpers guessed gives way to what the trace knows. */
    if (!v->type->dtype) v->type->dtype = traced->dtype;
    if (v->type->rank < 0 && traced->rank >= 0) {
      int dt = v->type->dtype;
      v->type = traced;
      v->type->dtype = dt;
    }
  }
  /* The first binding names the ONNX value after the TorchScript one, so
   * exported names can be traced back to the IR. */
  if (!v->name && !v->init) v->name = src->name;
  oxp_lower_bind(c, src, v);
  return OXP_OK;
}

oxp_value *oxp_sym_const(oxp_sctx *c, oxp_tensor *t) {
  if (!t || c->d->status) return NULL;
  oxp_type *ty = oxp_type_tensor(c->dst->arena, t->dtype, t->rank, t->dims);
  oxp_value *v = oxp_value_new(c->dst, NULL, ty);
  if (!v || !ty) return NULL;
  v->init = t;
  v->name = oxp_strnum(c->dst->arena, "onnxexp::const_", c->nconsts++);
  oxp_block_add_init(c->cur, v);
  return v;
}

oxp_value *oxp_sym_const_i64s(oxp_sctx *c, const int64_t *v, int n) {
  int64_t dim = n;
  oxp_tensor *t = oxp_tensor_alloc(c->dst->arena, OXP_DT_INT64, 1, &dim);
  if (!t) return NULL;
  if (n) memcpy((void *)t->data, v, sizeof(int64_t) * (size_t)n);
  return oxp_sym_const(c, t);
}

oxp_value *oxp_sym_const_i64(oxp_sctx *c, int64_t v) {
  oxp_tensor *t = oxp_tensor_alloc(c->dst->arena, OXP_DT_INT64, 0, NULL);
  if (!t) return NULL;
  memcpy((void *)t->data, &v, 8);
  return oxp_sym_const(c, t);
}

oxp_value *oxp_sym_const_f32s(oxp_sctx *c, const float *v, int n) {
  int64_t dim = n;
  oxp_tensor *t = oxp_tensor_alloc(c->dst->arena, OXP_DT_FLOAT, 1, &dim);
  if (!t) return NULL;
  if (n) memcpy((void *)t->data, v, sizeof(float) * (size_t)n);
  return oxp_sym_const(c, t);
}

oxp_value *oxp_sym_const_scalar(oxp_sctx *c, double v, int dtype) {
  oxp_tensor *t = oxp_tensor_alloc(c->dst->arena, dtype, 0, NULL);
  if (!t) return NULL;
  void *p = (void *)t->data;
  switch (dtype) {
  case OXP_DT_FLOAT: { float f = (float)v; memcpy(p, &f, 4); break; }
  case OXP_DT_DOUBLE: memcpy(p, &v, 8); break;
  case OXP_DT_FLOAT16: case OXP_DT_BFLOAT16: {
    /* Route through a float tensor and the generic converter. */
    oxp_value *f = oxp_sym_const_scalar(c, v, OXP_DT_FLOAT);
    return oxp_sym_cast(c, f, dtype);
  }
  case OXP_DT_BOOL: { uint8_t b = v != 0; memcpy(p, &b, 1); break; }
  default: {
    int64_t i = oxp_f2i(v);
    memcpy(p, &i, oxp_dtype_size(dtype));
  }
  }
  return oxp_sym_const(c, t);
}

oxp_value *oxp_sym_cast(oxp_sctx *c, oxp_value *v, int dtype) {
  if (!v) return NULL;
  oxp_node *n = oxp_sym_op(c, "Cast", &v, 1, 1);
  if (!n) return NULL;
  oxp_attr_set_i(n, "to", dtype);
  const oxp_type *t = v->type;
  oxp_sym_set_type(c, n->outputs[0], dtype, t ? t->rank : -1,
                   t ? t->dims : NULL);
  return n->outputs[0];
}

/* Axes as an attribute before opset, as an int64 input from it on.
 * Negative axes are spelled out only from opset 11: before, they are
 * resolved against the rank (of the output, for Unsqueeze) when known. */
static oxp_node *axes_op(oxp_sctx *c, const char *op, oxp_value *v,
                         const int64_t *axes, int n, int input_from) {
  if (!v) return NULL;
  int64_t fixed[16];
  if (n > 16) {
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s over more than 16 axes", op);
    return NULL;
  }
  int r = oxp_sym_rank(v);
  if (r >= 0 && strcmp(op, "Unsqueeze") == 0) r += n;
  for (int i = 0; i < n; i++) {
    fixed[i] = axes[i];
    /* With the rank unknown a negative axis stays: onnxruntime and the
     * checker resolve it at every opset, only the spec text predates it. */
    if (axes[i] >= 0 || c->opset >= 11 || r < 0) continue;
    fixed[i] += r;
  }
  /* Ascending, as Squeeze-1's checker wants; order means nothing to any
   * of these ops. */
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && fixed[j - 1] > fixed[j]; j--) {
      int64_t t = fixed[j];
      fixed[j] = fixed[j - 1];
      fixed[j - 1] = t;
    }
  axes = fixed;
  oxp_node *node;
  if (c->opset >= input_from) {
    oxp_value *in[2] = {v, n ? oxp_sym_const_i64s(c, axes, n) : NULL};
    node = oxp_sym_op(c, op, in, n ? 2 : 1, 1);
  } else {
    node = oxp_sym_op(c, op, &v, 1, 1);
    if (node && n) oxp_attr_set_ints(node, "axes", axes, n);
  }
  return node;
}

oxp_value *oxp_sym_unsqueeze(oxp_sctx *c, oxp_value *v, const int64_t *axes,
                             int n) {
  oxp_node *node = axes_op(c, "Unsqueeze", v, axes, n, 13);
  if (!node) return NULL;
  int r = oxp_sym_rank(v);
  if (r >= 0 && r + n <= 8 && v->type) {
    int64_t dims[16];
    int64_t rr = r + n, k = 0;
    bool used[16] = {0};
    for (int i = 0; i < n; i++) {
      int64_t a = axes[i] < 0 ? axes[i] + rr : axes[i];
      if (a >= 0 && a < rr) used[a] = true;
    }
    for (int64_t i = 0; i < rr; i++)
      dims[i] = used[i] ? 1 : (k < r ? v->type->dims[k++] : -1);
    oxp_sym_set_type(c, node->outputs[0], oxp_sym_dtype(v), (int)rr, dims);
  }
  return node->outputs[0];
}

oxp_value *oxp_sym_squeeze(oxp_sctx *c, oxp_value *v, const int64_t *axes,
                           int n) {
  oxp_node *node = axes_op(c, "Squeeze", v, axes, n, 13);
  return node ? node->outputs[0] : NULL;
}

oxp_value *oxp_sym_reduce(oxp_sctx *c, const char *op, oxp_value *v,
                          const int64_t *axes, int n, bool keepdims) {
  /* ReduceSum took axes as an input at 13, the others at 18. */
  int from = strcmp(op, "ReduceSum") == 0 ? 13 : 18;
  oxp_node *node = axes_op(c, op, v, axes, n, from);
  if (!node) return NULL;
  oxp_attr_set_i(node, "keepdims", keepdims);
  return node->outputs[0];
}

oxp_value *oxp_sym_slice(oxp_sctx *c, oxp_value *v, const int64_t *axes,
                         const int64_t *starts, const int64_t *ends,
                         const int64_t *steps, int n) {
  if (!v) return NULL;
  if (c->opset < 10) {
    for (int i = 0; i < n; i++)
      if (steps && steps[i] != 1) {
        oxp_sym_unsupported(c, "slicing with a step other than 1");
        return NULL;
      }
    oxp_node *node = oxp_sym_op(c, "Slice", &v, 1, 1);
    if (!node) return NULL;
    oxp_attr_set_ints(node, "axes", axes, n);
    oxp_attr_set_ints(node, "starts", starts, n);
    oxp_attr_set_ints(node, "ends", ends, n);
    return node->outputs[0];
  }
  oxp_value *in[5] = {v, oxp_sym_const_i64s(c, starts, n),
                      oxp_sym_const_i64s(c, ends, n),
                      oxp_sym_const_i64s(c, axes, n),
                      steps ? oxp_sym_const_i64s(c, steps, n) : NULL};
  oxp_node *node = oxp_sym_op(c, "Slice", in, steps ? 5 : 4, 1);
  return node ? node->outputs[0] : NULL;
}

bool oxp_sym_axis(int64_t axis, int rank, int64_t *out) {
  if (axis < 0) {
    if (rank < 0) return false;
    axis += rank;
  }
  if (axis < 0 || (rank >= 0 && axis >= rank && !(rank == 0 && axis == 0)))
    return false;
  *out = axis;
  return true;
}

oxp_value *oxp_sym_size(oxp_sctx *c, oxp_value *v, int64_t dim) {
  if (!v) return NULL;
  int r = oxp_sym_rank(v);
  int64_t ax;
  if (!oxp_sym_axis(dim, r, &ax)) {
    oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: dim %lld out of range for rank %d",
                 c->node ? c->node->kind : "size", (long long)dim, r);
    return NULL;
  }
  oxp_value *shape = oxp_sym_op1(c, "Shape", v);
  int64_t rd = r;
  oxp_sym_set_type(c, shape, OXP_DT_INT64, 1, r >= 0 ? &rd : NULL);
  oxp_node *g = shape ? oxp_sym_op(c, "Gather", (oxp_value *[]){shape,
                                   oxp_sym_const_i64(c, ax)}, 2, 1) : NULL;
  if (!g) return NULL;
  oxp_attr_set_i(g, "axis", 0);
  oxp_sym_set_type(c, g->outputs[0], OXP_DT_INT64, 0, NULL);
  return g->outputs[0];
}

oxp_value *oxp_sym_reshape_sizes(oxp_sctx *c, oxp_value *x, oxp_value *shape,
                                 int zero) {
  if (!x || !shape) return NULL;
  if (zero == OXP_ZERO_NONE || (zero == OXP_ZERO_MAYBE && c->opset < 14))
    return oxp_sym_op2(c, "Reshape", x, shape);
  if (c->opset >= 14) {
    oxp_node *k = oxp_sym_op(c, "Reshape", (oxp_value *[]){x, shape}, 2, 1);
    if (!k) return NULL;
    oxp_attr_set_i(k, "allowzero", 1);
    return k->outputs[0];
  }
  /* Before allowzero a 0 in Reshape's shape copies the input's dim; the
   * result of a 0 size has no elements, so a ConstantOfShape of x's type
   * (zero bytes) is it. */
  int dt = oxp_sym_dtype(x);
  if (!dt) {
    oxp_sym_unsupported(c, "a reshape to a 0 size of a tensor of unknown dtype");
    return NULL;
  }
  oxp_tensor *t = oxp_tensor_alloc(c->dst->arena, dt, 1, (int64_t[]){1});
  oxp_node *k = t ? oxp_sym_op(c, "ConstantOfShape", &shape, 1, 1) : NULL;
  if (!k) return NULL;
  oxp_attr_set_t(k, "value", t);
  return k->outputs[0];
}

oxp_value *oxp_sym_reshape_dims(oxp_sctx *c, oxp_value *x, const int64_t *dims,
                                int r) {
  bool zero = false;
  for (int i = 0; i < r; i++) zero |= dims[i] == 0;
  return oxp_sym_reshape_sizes(c, x, oxp_sym_const_i64s(c, dims, r),
                               zero ? OXP_ZERO_SURE : OXP_ZERO_NONE);
}
