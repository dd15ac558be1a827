/* s_shape_util.c: small emitters shared by the shape, index, create, sort
 * and linalg families (see s_shape_util.h). */
#include <limits.h>
#include <string.h>

#include "lower_ctx.h" /* oxp_pack, to bind list results */
#include "s_shape_util.h"

bool oxp_sx_dims(const oxp_value *v, int64_t *dims, int *r) {
  int k = oxp_sym_rank(v);
  if (k < 0 || k > OXP_MAX_STATIC_RANK) return false;
  for (int i = 0; i < k; i++) {
    if (v->type->dims[i] < 0) return false;
    dims[i] = v->type->dims[i];
  }
  *r = k;
  return true;
}

int64_t oxp_sx_dim(const oxp_value *v, int axis) {
  int k = oxp_sym_rank(v);
  if (axis < 0) axis += k;
  return k >= 0 && axis >= 0 && axis < k ? v->type->dims[axis] : -1;
}

oxp_value *oxp_sx_transpose(oxp_sctx *c, oxp_value *x, const int64_t *perm,
                            int r) {
  oxp_node *t = x ? oxp_sym_op(c, "Transpose", &x, 1, 1) : NULL;
  if (!t) return NULL;
  oxp_attr_set_ints(t, "perm", perm, r);
  int xr = oxp_sym_rank(x);
  if (xr == r && x->type->dtype) {
    int64_t d[OXP_MAX_STATIC_RANK];
    for (int i = 0; i < r && r <= OXP_MAX_STATIC_RANK; i++) d[i] = x->type->dims[perm[i]];
    if (r <= OXP_MAX_STATIC_RANK) oxp_sym_set_type(c, t->outputs[0], x->type->dtype, r, d);
  }
  return t->outputs[0];
}

oxp_value *oxp_sx_concat(oxp_sctx *c, oxp_value *const *vals, int n,
                         int64_t axis) {
  for (int i = 0; i < n; i++)
    if (!vals[i]) return NULL;
  if (n == 1) return vals[0];
  oxp_node *k = oxp_sym_op(c, "Concat", vals, n, 1);
  if (!k) return NULL;
  oxp_attr_set_i(k, "axis", axis);
  return k->outputs[0];
}

oxp_value *oxp_sx_gather(oxp_sctx *c, oxp_value *x, oxp_value *idx,
                         int64_t axis) {
  oxp_node *g = x && idx ? oxp_sym_op(c, "Gather", (oxp_value *[]){x, idx}, 2, 1)
                         : NULL;
  if (!g) return NULL;
  oxp_attr_set_i(g, "axis", axis);
  return g->outputs[0];
}

oxp_value *oxp_sx_shape(oxp_sctx *c, oxp_value *x) {
  oxp_value *s = oxp_sym_op1(c, "Shape", x);
  int64_t r = oxp_sym_rank(x);
  oxp_sym_set_type(c, s, OXP_DT_INT64, 1, r >= 0 ? &r : NULL);
  return s;
}

oxp_value *oxp_sx_reshape(oxp_sctx *c, oxp_value *x, const int64_t *dims,
                          int r) {
  return oxp_sym_op2(c, "Reshape", x, oxp_sym_const_i64s(c, dims, r));
}

oxp_value *oxp_sx_slice_dyn(oxp_sctx *c, oxp_value *x, oxp_value *start,
                            oxp_value *end, int64_t axis, int64_t step) {
  oxp_value *in[5] = {x, start, end, oxp_sym_const_i64s(c, &axis, 1),
                      oxp_sym_const_i64s(c, &step, 1)};
  for (int i = 0; i < 5; i++)
    if (!in[i]) return NULL;
  oxp_node *s = oxp_sym_op(c, "Slice", in, 5, 1);
  return s ? s->outputs[0] : NULL;
}

bool oxp_sx_split(oxp_sctx *c, oxp_value *x, int64_t axis,
                  const int64_t *sizes, int k, oxp_value **outs) {
  if (!x) return false;
  if (k == 1) {
    outs[0] = x;
    return true;
  }
  oxp_node *s;
  if (oxp_sym_opset(c) >= 13) {
    oxp_value *in[2] = {x, oxp_sym_const_i64s(c, sizes, k)};
    s = in[1] ? oxp_sym_op(c, "Split", in, 2, k) : NULL;
  } else {
    s = oxp_sym_op(c, "Split", &x, 1, k);
    if (s) oxp_attr_set_ints(s, "split", sizes, k);
  }
  if (!s) return false;
  oxp_attr_set_i(s, "axis", axis);
  for (int i = 0; i < k; i++) outs[i] = s->outputs[i];
  return true;
}

/* Writes v as the single element of t (float, double, ints, bool). */
static void put_scalar(oxp_tensor *t, double v) {
  void *p = (void *)t->data;
  switch (t->dtype) {
  case OXP_DT_FLOAT: { float f = (float)v; memcpy(p, &f, 4); break; }
  case OXP_DT_DOUBLE: memcpy(p, &v, 8); break;
  case OXP_DT_BOOL: { uint8_t b = v != 0; memcpy(p, &b, 1); break; }
  default: {
    int64_t i = oxp_f2i(v);
    memcpy(p, &i, oxp_dtype_size(t->dtype)); /* little-endian truncation */
  }
  }
}

oxp_value *oxp_sx_fill(oxp_sctx *c, oxp_value *shape, double value,
                       int dtype) {
  oxp_node *k = shape ? oxp_sym_op(c, "ConstantOfShape", &shape, 1, 1) : NULL;
  if (!k) return NULL;
  /* Half types go through float: the converter for them lives in
   * sym_read.c, and a Cast is exact for the values used here. */
  bool half = dtype == OXP_DT_FLOAT16 || dtype == OXP_DT_BFLOAT16;
  oxp_tensor *t = oxp_tensor_alloc(oxp_sym_arena(c), half ? OXP_DT_FLOAT : dtype,
                                   1, (int64_t[]){1});
  if (!t) return NULL;
  put_scalar(t, value);
  oxp_attr_set_t(k, "value", t);
  /* Typed only when the shape is a constant: a type with unknown dims
   * would keep set_out from giving the value its (static) traced type. */
  int64_t r = oxp_sx_dim(shape, 0);
  if (shape->init && r >= 0 && r <= OXP_MAX_STATIC_RANK) {
    int64_t d[OXP_MAX_STATIC_RANK];
    for (int i = 0; i < r; i++) d[i] = oxp_tensor_get_i(shape->init, i);
    oxp_sym_set_type(c, k->outputs[0], t->dtype, (int)r, d);
  }
  return half ? oxp_sym_cast(c, k->outputs[0], dtype) : k->outputs[0];
}

oxp_status oxp_sx_set_list(oxp_sctx *c, oxp_node *n, int i, oxp_value **vals,
                           int cnt) {
  for (int k = 0; k < cnt; k++)
    if (!vals[k]) return oxp_sym_status(c);
  oxp_pack *p = oxp_alloc(oxp_sym_arena(c), sizeof *p);
  if (!p) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  p->vals = vals;
  p->n = cnt;
  oxp_lower_bind_pack(c, n->outputs[i], p);
  return OXP_OK;
}

int oxp_sx_list_len(oxp_node *n, int i) {
  oxp_value *o = i < n->noutputs ? n->outputs[i] : NULL;
  for (int k = 0; o && k < o->nuses; k++)
    if (oxp_kind_is(o->uses[k].node, "prim::ListUnpack"))
      return o->uses[k].node->noutputs;
  return -1;
}

int oxp_sx_dtype_arg(oxp_node *n, int i, int fallback) {
  int64_t st;
  if (oxp_sym_is_none(n, i) || !oxp_sym_int(n, i, &st)) return fallback;
  int dt = oxp_dtype_from_scalar_type(st);
  return dt ? dt : fallback;
}

bool oxp_sx_axis_arg(oxp_sctx *c, oxp_node *n, int i, int r, int64_t *axis) {
  int64_t a;
  if (!oxp_sym_need_int(c, n, i, &a)) return false;
  if (!oxp_sym_axis(a, r, axis)) {
    oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: dim %lld out of range for rank %d",
                 n->kind, (long long)a, r);
    return false;
  }
  return true;
}

oxp_value *oxp_sx_shape_with(oxp_sctx *c, oxp_value *x, int axis,
                             oxp_value *mid) {
  int r = oxp_sym_rank(x);
  oxp_value *sh = oxp_sx_shape(c, x), *parts[3];
  int np = 0;
  static const int64_t zero = 0;
  int64_t a = axis, b = axis + 1, big = INT64_MAX;
  if (axis > 0) parts[np++] = oxp_sym_slice(c, sh, &zero, &zero, &a, NULL, 1);
  parts[np++] = mid;
  if (axis < r - 1) parts[np++] = oxp_sym_slice(c, sh, &zero, &b, &big, NULL, 1);
  oxp_value *s = oxp_sx_concat(c, parts, np, 0);
  oxp_sym_set_type(c, s, OXP_DT_INT64, 1, (int64_t[]){r});
  return s;
}

int oxp_sx_list_dtype(oxp_value *const *v, int cnt) {
  int dt = 0;
  for (int i = 0; i < cnt; i++) {
    int d = v[i] ? oxp_sym_dtype(v[i]) : 0;
    if (!d) return 0;
    dt = i ? oxp_promote_types(dt, d) : d;
    if (dt == OXP_DT_REFUSED) return 0;
  }
  return dt;
}
