/* s_nn_util.c: helpers shared by the layer symbolics (s_nn_util.h). */
#include <math.h>
#include <string.h>

#include "s_nn_util.h"

bool oxp_nn_spatial(oxp_sctx *c, oxp_node *n, int i, int k, int64_t dflt,
                    int64_t *out) {
  int64_t *v;
  int cnt;
  if (i < 0 || i >= n->ninputs || oxp_sym_is_none(n, i)) {
    for (int j = 0; j < k; j++) out[j] = dflt;
    return true;
  }
  if (!oxp_sym_need_ints(c, n, i, &v, &cnt)) return false;
  if (cnt == 0) {
    for (int j = 0; j < k; j++) out[j] = dflt;
    return true;
  }
  if (cnt != 1 && cnt != k) {
    oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: argument %d has %d values for %d dims",
                 n->kind, i, cnt, k);
    return false;
  }
  for (int j = 0; j < k; j++) out[j] = v[cnt == 1 ? 0 : j];
  return true;
}

bool oxp_nn_all_eq(const int64_t *v, int k, int64_t x) {
  for (int i = 0; i < k; i++)
    if (v[i] != x) return false;
  return true;
}

int oxp_nn_name_dims(const oxp_node *n, int dflt) {
  const char *k = n->kind;
  for (const char *p = k; *p; p++)
    if (p[0] >= '1' && p[0] <= '3' && p[1] == 'd' && p > k && p[-1] != '_' &&
        (p[2] == 0 || p[2] == '_'))
      return p[0] - '0';
  return dflt;
}

int oxp_nn_dtype(oxp_sctx *c, const oxp_value *v) {
  return oxp_sym_need_dtype(c, v);
}

int64_t oxp_nn_dim(const oxp_value *v, int i) {
  int r = oxp_sym_rank(v);
  if (r < 0 || !v->type->dims) return -1;
  if (i < 0) i += r;
  if (i < 0 || i >= r) return -1;
  if (v->type->dim_params && v->type->dim_params[i]) return -1;
  return v->type->dims[i];
}

oxp_value *oxp_nn_filled(oxp_sctx *c, int64_t count, double val, int dtype) {
  if (count < 0) return NULL;
  /* count comes from the IR (num_groups, channels): bound the constant. */
  if (count > INT64_C(1) << 28) {
    oxp_sym_unsupported(c, "a constant of more than 2^28 elements");
    return NULL;
  }
  oxp_tensor *t = oxp_tensor_alloc(oxp_sym_arena(c), dtype, 1, &count);
  if (!t) {
    oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    return NULL;
  }
  unsigned char *p = (unsigned char *)t->data;
  size_t sz = oxp_dtype_size(dtype);
  if (dtype == OXP_DT_FLOAT) {
    float f = (float)val;
    for (int64_t i = 0; i < count; i++) memcpy(p + 4 * i, &f, 4);
  } else if (dtype == OXP_DT_DOUBLE) {
    for (int64_t i = 0; i < count; i++) memcpy(p + 8 * i, &val, 8);
  } else if (oxp_dtype_is_float(dtype)) {
    /* half types: build in float, Cast. */
    oxp_value *f = oxp_nn_filled(c, count, val, OXP_DT_FLOAT);
    return oxp_sym_cast(c, f, dtype);
  } else {
    int64_t iv = oxp_f2i(val);
    for (int64_t i = 0; i < count; i++) memcpy(p + sz * i, &iv, sz);
  }
  return oxp_sym_const(c, t);
}

oxp_node *oxp_nn_op1(oxp_sctx *c, const char *op, oxp_value *x) {
  return x ? oxp_sym_op(c, op, &x, 1, 1) : NULL;
}

oxp_value *oxp_nn_transpose(oxp_sctx *c, oxp_value *x, const int64_t *perm,
                            int r) {
  oxp_node *t = oxp_nn_op1(c, "Transpose", x);
  if (!t) return NULL;
  oxp_attr_set_ints(t, "perm", perm, r);
  return t->outputs[0];
}

oxp_value *oxp_nn_reshape(oxp_sctx *c, oxp_value *x, const int64_t *shape,
                          int r) {
  return oxp_sym_op2(c, "Reshape", x, oxp_sym_const_i64s(c, shape, r));
}

oxp_value *oxp_nn_clip(oxp_sctx *c, oxp_value *x, double lo, double hi) {
  if (!x) return NULL;
  if (oxp_sym_opset(c) < 11) {
    oxp_node *k = oxp_nn_op1(c, "Clip", x);
    if (!k) return NULL;
    if (!isnan(lo)) oxp_attr_set_f(k, "min", lo);
    if (!isnan(hi)) oxp_attr_set_f(k, "max", hi);
    return k->outputs[0];
  }
  int dt = oxp_nn_dtype(c, x);
  oxp_value *in[3] = {x, isnan(lo) ? NULL : oxp_sym_const_scalar(c, lo, dt),
                      isnan(hi) ? NULL : oxp_sym_const_scalar(c, hi, dt)};
  oxp_node *k = oxp_sym_op(c, "Clip", in, isnan(hi) ? 2 : 3, 1);
  return k ? k->outputs[0] : NULL;
}

bool oxp_nn_float_arg(oxp_sctx *c, oxp_node *n, int i, double dflt,
                      double *out) {
  *out = dflt;
  if (i >= n->ninputs || oxp_sym_is_none(n, i)) return true;
  if (oxp_sym_float(n, i, out)) return true;
  oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
               "%s: argument %d must be a constant number", n->kind, i);
  return false;
}

bool oxp_nn_int_arg(oxp_sctx *c, oxp_node *n, int i, int64_t dflt,
                    int64_t *out) {
  *out = dflt;
  if (i >= n->ninputs || oxp_sym_is_none(n, i)) return true;
  return oxp_sym_need_int(c, n, i, out);
}

bool oxp_nn_bool_arg(oxp_sctx *c, oxp_node *n, int i, bool dflt, bool *out) {
  *out = dflt;
  if (i >= n->ninputs || oxp_sym_is_none(n, i)) return true;
  if (oxp_sym_bool(n, i, out)) return true;
  oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
               "%s: argument %d must be a constant bool", n->kind, i);
  return false;
}

bool oxp_nn_out_used(const oxp_node *n, int i) {
  if (i >= n->noutputs) return false;
  const oxp_value *o = n->outputs[i];
  return o->nuses > 0 || oxp_value_is_block_output(o);
}

bool oxp_nn_training(oxp_sctx *c, bool train) {
  switch (oxp_sym_options(c)->training) {
  case OXP_TRAIN_EVAL: return false;
  case OXP_TRAIN_TRAIN: return true;
  default: return train;
  }
}
