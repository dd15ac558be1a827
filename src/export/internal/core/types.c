/* types.c: value types, and the tensor record (its bytes are read in
 * tensor_bytes.c). */
#include <stdio.h>
#include <string.h>

#include "oxp.h"

oxp_type *oxp_type_new(oxp_arena *a, oxp_kind k) {
  oxp_type *t = oxp_alloc(a, sizeof *t);
  if (t) {
    t->kind = k;
    t->rank = -1;
  }
  return t;
}

/* An arena copy of rank dims; unknown (-1) ones when dims is NULL. */
static int64_t *copy_dims(oxp_arena *a, const int64_t *dims, int rank) {
  int64_t *d = oxp_alloc(a, sizeof(int64_t) * (size_t)rank);
  for (int i = 0; d && i < rank; i++) d[i] = dims ? dims[i] : -1;
  return d;
}

void oxp_dims_print(const int64_t *dims, int rank, char *buf, size_t n) {
  if (!n) return;
  size_t at = (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < rank && at < n; i++)
    at += (size_t)snprintf(buf + at, n - at, "%s%lld", i ? ", " : "",
                           (long long)dims[i]);
  if (at < n) snprintf(buf + at, n - at, "]");
}

oxp_type *oxp_type_tensor(oxp_arena *a, int dtype, int rank,
                          const int64_t *dims) {
  oxp_type *t = oxp_type_new(a, OXP_T_TENSOR);
  if (!t) return NULL;
  t->dtype = dtype;
  t->rank = rank;
  if (rank > 0 && !(t->dims = copy_dims(a, dims, rank))) return NULL;
  return t;
}

oxp_type *oxp_type_copy(oxp_arena *a, const oxp_type *s) {
  if (!s) return NULL;
  oxp_type *t = oxp_alloc(a, sizeof *t);
  if (!t) return NULL;
  *t = *s;
  if (s->rank > 0 && s->dims) {
    t->dims = oxp_alloc(a, sizeof(int64_t) * (size_t)s->rank);
    if (!t->dims) return NULL;
    memcpy(t->dims, s->dims, sizeof(int64_t) * (size_t)s->rank);
    if (s->dim_params) {
      t->dim_params = oxp_alloc(a, sizeof(char *) * (size_t)s->rank);
      if (!t->dim_params) return NULL;
      memcpy(t->dim_params, s->dim_params, sizeof(char *) * (size_t)s->rank);
    }
  }
  return t;
}

bool oxp_type_is_static(const oxp_type *t) {
  if (!t || t->kind != OXP_T_TENSOR || t->rank < 0) return false;
  for (int i = 0; i < t->rank; i++)
    if (t->dims[i] < 0 || (t->dim_params && t->dim_params[i])) return false;
  return true;
}

int64_t oxp_type_numel(const oxp_type *t) {
  if (!oxp_type_is_static(t)) return -1;
  int64_t n = 1;
  bool over = false;
  for (int i = 0; i < t->rank; i++) {
    if (t->dims[i] == 0) return 0;
    over |= __builtin_mul_overflow(n, t->dims[i], &n);
  }
  return over ? -1 : n;
}

static size_t put(char *buf, size_t n, size_t at, const char *s) {
  size_t l = strlen(s);
  if (at < n) snprintf(buf + at, n - at, "%s", s);
  return at + l;
}

static size_t print_type(const oxp_type *t, char *buf, size_t n, size_t at) {
  char tmp[32];
  switch (t->kind) {
  case OXP_T_TENSOR:
    at = put(buf, n, at, t->dtype ? oxp_dtype_torch_name(t->dtype) : "Tensor");
    if (t->rank < 0) return at;
    at = put(buf, n, at, "(");
    for (int i = 0; i < t->rank; i++) {
      if (i) at = put(buf, n, at, ", ");
      if (t->dim_params && t->dim_params[i])
        at = put(buf, n, at, t->dim_params[i]);
      else if (t->dims[i] < 0)
        at = put(buf, n, at, "*");
      else {
        snprintf(tmp, sizeof tmp, "%lld", (long long)t->dims[i]);
        at = put(buf, n, at, tmp);
      }
    }
    return put(buf, n, at, ")");
  case OXP_T_INT: return put(buf, n, at, "int");
  case OXP_T_FLOAT: return put(buf, n, at, "float");
  case OXP_T_BOOL: return put(buf, n, at, "bool");
  case OXP_T_NUMBER: return put(buf, n, at, "Scalar");
  case OXP_T_STR: return put(buf, n, at, "str");
  case OXP_T_NONE: return put(buf, n, at, "NoneType");
  case OXP_T_DEVICE: return put(buf, n, at, "Device");
  case OXP_T_LIST:
    at = print_type(t->elem, buf, n, at);
    return put(buf, n, at, "[]");
  case OXP_T_OPTIONAL:
    at = print_type(t->elem, buf, n, at);
    return put(buf, n, at, "?");
  case OXP_T_SEQUENCE:
    at = put(buf, n, at, "seq(");
    at = print_type(t->elem, buf, n, at);
    return put(buf, n, at, ")");
  case OXP_T_TUPLE:
    at = put(buf, n, at, "(");
    for (int i = 0; i < t->nelems; i++) {
      if (i) at = put(buf, n, at, ", ");
      at = print_type(t->elems[i], buf, n, at);
    }
    return put(buf, n, at, ")");
  case OXP_T_OTHER: return put(buf, n, at, t->name ? t->name : "?");
  }
  return at;
}

void oxp_type_print(const oxp_type *t, char *buf, size_t n) {
  if (n) buf[0] = 0;
  if (t) print_type(t, buf, n, 0);
  else put(buf, n, 0, "?");
}

oxp_tensor *oxp_tensor_new(oxp_arena *a, int dtype, int rank,
                           const int64_t *dims, const void *data,
                           size_t nbytes) {
  oxp_tensor *t = oxp_alloc(a, sizeof *t);
  if (!t) return NULL;
  t->dtype = dtype;
  t->rank = rank;
  if (rank > 0 && !(t->dims = copy_dims(a, dims, rank))) return NULL;
  t->data = data;
  t->nbytes = nbytes;
  return t;
}

int64_t oxp_tensor_numel(const oxp_tensor *t) {
  int64_t n = 1;
  bool over = false;
  for (int i = 0; i < t->rank; i++) {
    if (t->dims[i] == 0) return 0;
    over |= __builtin_mul_overflow(n, t->dims[i], &n);
  }
  return over ? INT64_MAX : n;
}

oxp_tensor *oxp_tensor_alloc(oxp_arena *a, int dtype, int rank,
                             const int64_t *dims) {
  oxp_tensor *t = oxp_tensor_new(a, dtype, rank, dims, NULL, 0);
  if (!t) return NULL;
  int64_t n = oxp_tensor_numel(t);
  if (n < 0 || n == INT64_MAX ||
      __builtin_mul_overflow((size_t)n, oxp_dtype_size(dtype), &t->nbytes))
    return NULL;
  void *p = oxp_alloc(a, t->nbytes ? t->nbytes : 1);
  if (!p) return NULL;
  t->data = p;
  return t;
}
