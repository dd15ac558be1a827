/* fold_eval.c: small evaluators of ONNX ops on constant tensors, for
 * constant folding. Results live in the arena; inputs (often weights in
 * the read-only mmap) are only read. Ops that only relabel dims (Reshape,
 * Squeeze, Unsqueeze, Flatten, Identity) share their input's bytes, and a
 * big Transpose is lazy (tensor_bytes.c): it keeps a recipe, not a copy. An
 * op the evaluator does not know, or a dtype it cannot compute in, leaves
 * *out NULL: the node then simply stays. */
#include <math.h>
#include <string.h>

#include "passes.h"

#define MAXR OXP_MAX_SHAPE_RANK

typedef struct {
  oxp_pass *p;
  oxp_node *n;
  oxp_tensor **in;
  int nin;
} ev;

static oxp_tensor *IN(ev *e, int i) {
  return i < e->nin ? e->in[i] : NULL;
}

static int64_t attr_i(const oxp_node *n, const char *name, int64_t dflt) {
  const oxp_attr *a = oxp_attr_get(n, name);
  return a && a->kind == OXP_A_INT ? a->i : dflt;
}

/* Int values of an attribute, or else of input i; -1 if neither. */
static int ints_of(ev *e, const char *attr, int i, int64_t *v, int max) {
  const oxp_attr *a = attr ? oxp_attr_get(e->n, attr) : NULL;
  if (a && a->kind == OXP_A_INTS && a->n <= max) {
    memcpy(v, a->ints, sizeof(int64_t) * (size_t)a->n);
    return a->n;
  }
  oxp_tensor *t = IN(e, i);
  if (!t || !oxp_dtype_is_int(t->dtype) || t->rank > 1) return -1;
  int64_t m = oxp_tensor_numel(t);
  if (m > max) return -1;
  for (int64_t k = 0; k < m; k++) v[k] = oxp_tensor_get_i(t, k);
  return (int)m;
}

static bool computable(int dt) {
  return dt == OXP_DT_FLOAT || dt == OXP_DT_DOUBLE || dt == OXP_DT_BOOL ||
         oxp_dtype_is_int(dt);
}

static void put_f(oxp_tensor *t, int64_t i, double v) {
  unsigned char *p = (unsigned char *)t->data;
  if (t->dtype == OXP_DT_FLOAT) {
    float f = (float)v;
    memcpy(p + 4 * i, &f, 4);
  } else if (t->dtype == OXP_DT_DOUBLE) {
    memcpy(p + 8 * i, &v, 8);
  } else if (t->dtype == OXP_DT_BOOL) {
    p[i] = v != 0;
  } else {
    int64_t x = oxp_f2i(v);
    memcpy(p + oxp_dtype_size(t->dtype) * (size_t)i, &x, oxp_dtype_size(t->dtype));
  }
}

static void put_i(oxp_tensor *t, int64_t i, int64_t v) {
  if (oxp_dtype_is_float(t->dtype)) {
    put_f(t, i, (double)v);
    return;
  }
  unsigned char *p = (unsigned char *)t->data;
  if (t->dtype == OXP_DT_BOOL) v = v != 0;
  /* Little-endian truncation to the element width. */
  memcpy(p + oxp_dtype_size(t->dtype) * (size_t)i, &v, oxp_dtype_size(t->dtype));
}

/* A new tensor, unless it would pass the size limit while no input is as
 * big (folding must not blow up the file). */
static oxp_tensor *new_out(ev *e, int dt, int rank, const int64_t *dims) {
  int64_t m = 1;
  bool over = false;
  for (int i = 0; i < rank; i++) {
    if (dims[i] < 0) return NULL;
    over |= __builtin_mul_overflow(m, dims[i], &m);
  }
  size_t bytes, biggest = 0;
  if (over || __builtin_mul_overflow((size_t)m, oxp_dtype_size(dt), &bytes))
    return NULL; /* no tensor that size: the node stays */
  for (int i = 0; i < e->nin; i++)
    if (e->in[i] && e->in[i]->nbytes > biggest) biggest = e->in[i]->nbytes;
  if (m < 0 || (bytes > OXP_FOLD_LIMIT && bytes > biggest)) return NULL;
  return oxp_tensor_alloc(e->p->g->arena, dt, rank, dims);
}

static oxp_tensor *relabel(ev *e, const oxp_tensor *t, int rank,
                           const int64_t *dims) {
  oxp_tensor *o = oxp_tensor_new(e->p->g->arena, t->dtype, rank, dims,
                                 t->data, t->nbytes);
  if (o) o->lazy = t->lazy;
  return o;
}

static bool norm_axis(int64_t *a, int rank) {
  if (*a < 0) *a += rank;
  return *a >= 0 && *a < rank;
}

/* Offset into t of output element i (out dims od, rank r), with t
 * broadcast NumPy-style. */
static int64_t bcast_off(const oxp_tensor *t, int r, const int64_t *od,
                         int64_t i) {
  int64_t off = 0, stride = 1;
  for (int k = r - 1; k >= 0; k--) {
    int64_t idx = i % od[k];
    i /= od[k];
    int j = k - (r - t->rank);
    if (j < 0) continue;
    if (t->dims[j] != 1) off += idx * stride;
    stride *= t->dims[j];
  }
  return off;
}

/* ---- relabeling ops -------------------------------------------------------- */

static oxp_tensor *e_identity(ev *e) { return IN(e, 0); }

static oxp_tensor *e_reshape(ev *e) {
  oxp_tensor *x = IN(e, 0);
  int64_t s[MAXR];
  int k = ints_of(e, NULL, 1, s, MAXR);
  if (k < 0) return NULL;
  int64_t known = 1, total = oxp_tensor_numel(x);
  int neg = -1;
  bool allowzero = attr_i(e->n, "allowzero", 0) != 0;
  for (int i = 0; i < k; i++) {
    if (s[i] == 0 && !allowzero) {
      if (i >= x->rank) return NULL;
      s[i] = x->dims[i];
    }
    if (s[i] == -1) neg = i;
    else if (s[i] < 0) return NULL;
    else known *= s[i];
  }
  if (neg >= 0) {
    if (known == 0 || total % known) return NULL;
    s[neg] = total / known;
  } else if (known != total) {
    return NULL;
  }
  return relabel(e, x, k, s);
}

static oxp_tensor *e_flatten(ev *e) {
  oxp_tensor *x = IN(e, 0);
  int64_t axis = attr_i(e->n, "axis", 1), d[2] = {1, 1};
  if (axis < 0) axis += x->rank;
  if (axis < 0 || axis > x->rank) return NULL;
  for (int i = 0; i < x->rank; i++) d[i >= axis] *= x->dims[i];
  return relabel(e, x, 2, d);
}

static oxp_tensor *e_squeeze(ev *e) {
  oxp_tensor *x = IN(e, 0);
  int64_t axes[MAXR], d[MAXR];
  int k = ints_of(e, "axes", 1, axes, MAXR), r = 0;
  bool drop[MAXR] = {0};
  if (x->rank > MAXR) return NULL;
  for (int i = 0; i < k; i++) {
    if (!norm_axis(&axes[i], x->rank) || x->dims[axes[i]] != 1) return NULL;
    drop[axes[i]] = true;
  }
  for (int i = 0; i < x->rank; i++)
    if (!(k > 0 ? drop[i] : x->dims[i] == 1)) d[r++] = x->dims[i];
  return relabel(e, x, r, d);
}

static oxp_tensor *e_unsqueeze(ev *e) {
  oxp_tensor *x = IN(e, 0);
  int64_t axes[MAXR], d[MAXR];
  int k = ints_of(e, "axes", 1, axes, MAXR);
  if (k < 0 || x->rank + k > MAXR) return NULL;
  int r = x->rank + k;
  bool ins[MAXR] = {0};
  for (int i = 0; i < k; i++) {
    if (!norm_axis(&axes[i], r)) return NULL;
    ins[axes[i]] = true;
  }
  for (int i = 0, j = 0; i < r; i++) d[i] = ins[i] ? 1 : x->dims[j++];
  return relabel(e, x, r, d);
}

/* ---- data movement -------------------------------------------------------- */

/* Transposes from this size on are lazy: below it a copy costs less than
 * the recipe's bookkeeping, and nothing that small matters for memory. */
enum { LAZY_FROM = OXP_FOLD_LIMIT };

static oxp_tensor *e_transpose(ev *e) {
  oxp_tensor *x = IN(e, 0);
  int r = x->rank;
  int64_t perm[MAXR], d[MAXR], st[MAXR];
  if (r > MAXR) return NULL;
  int k = ints_of(e, "perm", -1, perm, MAXR);
  if (k < 0) {
    k = r;
    for (int i = 0; i < r; i++) perm[i] = r - 1 - i;
  }
  if (k != r) return NULL;
  int64_t s = 1;
  for (int i = r - 1; i >= 0; i--) st[i] = s, s *= x->dims[i];
  for (int i = 0; i < r; i++) {
    if (perm[i] < 0 || perm[i] >= r) return NULL;
    d[i] = x->dims[perm[i]];
  }
  oxp_tensor *o;
  if (x->nbytes >= LAZY_FROM &&
      (o = oxp_lazy_transpose(e->p->g->arena, x, perm)))
    return o;
  o = new_out(e, x->dtype, r, d);
  if (!o) return NULL;
  size_t es = oxp_dtype_size(x->dtype);
  for (int64_t i = 0, m = oxp_tensor_numel(o); i < m; i++) {
    int64_t rem = i, off = 0;
    for (int k2 = r - 1; k2 >= 0; k2--) {
      off += (rem % d[k2]) * st[perm[k2]];
      rem /= d[k2];
    }
    memcpy((char *)o->data + (size_t)i * es, (const char *)x->data + (size_t)off * es, es);
  }
  return o;
}

static oxp_tensor *e_concat(ev *e) {
  oxp_tensor *x = IN(e, 0);
  int64_t axis = attr_i(e->n, "axis", 0), d[MAXR];
  if (!x || x->rank > MAXR || !norm_axis(&axis, x->rank)) return NULL;
  memcpy(d, x->dims, sizeof(int64_t) * (size_t)x->rank);
  d[axis] = 0;
  for (int i = 0; i < e->nin; i++) {
    oxp_tensor *t = e->in[i];
    if (!t || t->dtype != x->dtype || t->rank != x->rank) return NULL;
    for (int k = 0; k < x->rank; k++)
      if (k != axis && t->dims[k] != x->dims[k]) return NULL;
    d[axis] += t->dims[axis];
  }
  oxp_tensor *o = new_out(e, x->dtype, x->rank, d);
  if (!o) return NULL;
  int64_t outer = 1, inner = (int64_t)oxp_dtype_size(x->dtype);
  for (int k = 0; k < axis; k++) outer *= d[k];
  for (int k = (int)axis + 1; k < x->rank; k++) inner *= d[k];
  char *dst = (char *)o->data;
  for (int64_t a = 0; a < outer; a++)
    for (int i = 0; i < e->nin; i++) {
      size_t chunk = (size_t)(e->in[i]->dims[axis] * inner);
      memcpy(dst, (const char *)e->in[i]->data + (size_t)a * chunk, chunk);
      dst += chunk;
    }
  return o;
}

static oxp_tensor *e_slice(ev *e) {
  oxp_tensor *x = IN(e, 0);
  int r = x->rank;
  int64_t st[MAXR], en[MAXR], ax[MAXR], sp[MAXR];
  int k, ke, ka, ks;
  if (r > MAXR) return NULL;
  if (e->p->o->opset < 10) {
    k = ints_of(e, "starts", -1, st, MAXR);
    ke = ints_of(e, "ends", -1, en, MAXR);
    ka = ints_of(e, "axes", -1, ax, MAXR);
    ks = -1;
  } else {
    k = ints_of(e, NULL, 1, st, MAXR);
    ke = ints_of(e, NULL, 2, en, MAXR);
    ka = ints_of(e, NULL, 3, ax, MAXR);
    ks = ints_of(e, NULL, 4, sp, MAXR);
  }
  if (k < 0 || ke != k || (ka >= 0 && ka != k) || (ks >= 0 && ks != k)) return NULL;
  int64_t start[MAXR], step[MAXR], d[MAXR], stride[MAXR];
  for (int i = 0; i < r; i++) start[i] = 0, step[i] = 1, d[i] = x->dims[i];
  for (int i = 0; i < k; i++) {
    int64_t a = ka >= 0 ? ax[i] : i, s = st[i], en_ = en[i], stp = ks >= 0 ? sp[i] : 1;
    if (!norm_axis(&a, r) || stp == 0) return NULL;
    int64_t dim = x->dims[a];
    if (s < 0) s += dim;
    if (en_ < 0) en_ += dim;
    int64_t len;
    if (stp > 0) {
      s = s < 0 ? 0 : s > dim ? dim : s;
      en_ = en_ < 0 ? 0 : en_ > dim ? dim : en_;
      len = oxp_range_len(s, en_, stp);
    } else {
      s = s < 0 ? -1 : s > dim - 1 ? dim - 1 : s;
      en_ = en_ < -1 ? -1 : en_ > dim - 1 ? dim - 1 : en_;
      len = oxp_range_len(s, en_, stp);
    }
    start[a] = s, step[a] = stp, d[a] = len;
  }
  int64_t s = 1;
  for (int i = r - 1; i >= 0; i--) stride[i] = s, s *= x->dims[i];
  oxp_tensor *o = new_out(e, x->dtype, r, d);
  if (!o) return NULL;
  size_t es = oxp_dtype_size(x->dtype);
  for (int64_t i = 0, m = oxp_tensor_numel(o); i < m; i++) {
    int64_t rem = i, off = 0;
    for (int a = r - 1; a >= 0; a--) {
      off += (start[a] + (rem % d[a]) * step[a]) * stride[a];
      rem /= d[a];
    }
    memcpy((char *)o->data + (size_t)i * es, (const char *)x->data + (size_t)off * es, es);
  }
  return o;
}

static oxp_tensor *e_gather(ev *e) {
  oxp_tensor *x = IN(e, 0), *idx = IN(e, 1);
  int64_t axis = attr_i(e->n, "axis", 0), d[MAXR];
  if (!idx || !oxp_dtype_is_int(idx->dtype) || !norm_axis(&axis, x->rank) ||
      x->rank - 1 + idx->rank > MAXR)
    return NULL;
  int r = 0;
  for (int i = 0; i < axis; i++) d[r++] = x->dims[i];
  for (int i = 0; i < idx->rank; i++) d[r++] = idx->dims[i];
  for (int i = (int)axis + 1; i < x->rank; i++) d[r++] = x->dims[i];
  oxp_tensor *o = new_out(e, x->dtype, r, d);
  if (!o) return NULL;
  int64_t outer = 1, inner = (int64_t)oxp_dtype_size(x->dtype), n = x->dims[axis];
  for (int i = 0; i < axis; i++) outer *= x->dims[i];
  for (int i = (int)axis + 1; i < x->rank; i++) inner *= x->dims[i];
  int64_t ni = oxp_tensor_numel(idx);
  char *dst = (char *)o->data;
  for (int64_t a = 0; a < outer; a++)
    for (int64_t j = 0; j < ni; j++) {
      int64_t k = oxp_tensor_get_i(idx, j);
      if (k < 0) k += n;
      if (k < 0 || k >= n) return NULL;
      memcpy(dst, (const char *)x->data + (size_t)((a * n + k) * inner), (size_t)inner);
      dst += inner;
    }
  return o;
}

static oxp_tensor *e_cast(ev *e) {
  oxp_tensor *x = IN(e, 0);
  int to = (int)attr_i(e->n, "to", 0);
  if (!computable(to) || (!computable(x->dtype) && !oxp_dtype_is_float(x->dtype)))
    return NULL;
  if (to == x->dtype) return x;
  oxp_tensor *o = new_out(e, to, x->rank, x->dims);
  if (!o) return NULL;
  bool from_float = oxp_dtype_is_float(x->dtype);
  for (int64_t i = 0, m = oxp_tensor_numel(x); i < m; i++) {
    if (from_float) {
      double v = oxp_tensor_get_f(x, i);
      if (!oxp_dtype_is_float(to) && to != OXP_DT_BOOL && !isfinite(v)) return NULL;
      put_f(o, i, v);
    } else {
      put_i(o, i, oxp_tensor_get_i(x, i));
    }
  }
  return o;
}

static oxp_tensor *e_shape(ev *e) {
  oxp_tensor *x = IN(e, 0);
  int64_t s = attr_i(e->n, "start", 0), en = attr_i(e->n, "end", x->rank);
  if (s < 0) s += x->rank;
  if (en < 0) en += x->rank;
  s = s < 0 ? 0 : s > x->rank ? x->rank : s;
  en = en < s ? s : en > x->rank ? x->rank : en;
  int64_t len = en - s;
  oxp_tensor *o = new_out(e, OXP_DT_INT64, 1, &len);
  for (int64_t i = 0; o && i < len; i++) put_i(o, i, x->dims[s + i]);
  return o;
}

/* ---- arithmetic ------------------------------------------------------------ */

/* Comparisons and the logical ops (bool only) yield bool: keep them last. */
typedef enum { ADD, SUB, MUL, DIV, POW, MAX, MIN, MOD, EQ, LT, GT, LE, GE, AND, OR, XOR } binop;

static oxp_tensor *e_binary(ev *e, binop op) {
  oxp_tensor *a = IN(e, 0), *b = IN(e, 1);
  if (!b || a->dtype != b->dtype || !computable(a->dtype) || a->rank > MAXR ||
      b->rank > MAXR)
    return NULL;
  if (op >= AND && a->dtype != OXP_DT_BOOL) return NULL;
  int r = a->rank > b->rank ? a->rank : b->rank;
  int64_t d[MAXR];
  for (int k = 0; k < r; k++) {
    int i = k - (r - a->rank), j = k - (r - b->rank);
    int64_t x = i >= 0 ? a->dims[i] : 1, y = j >= 0 ? b->dims[j] : 1;
    if (x != y && x != 1 && y != 1) return NULL;
    d[k] = x == 1 ? y : x;
  }
  bool cmp = op >= EQ;
  oxp_tensor *o = new_out(e, cmp ? OXP_DT_BOOL : a->dtype, r, d);
  if (!o) return NULL;
  bool fl = oxp_dtype_is_float(a->dtype);
  for (int64_t i = 0, m = oxp_tensor_numel(o); i < m; i++) {
    int64_t ia = bcast_off(a, r, d, i), ib = bcast_off(b, r, d, i);
    if (fl) {
      double x = oxp_tensor_get_f(a, ia), y = oxp_tensor_get_f(b, ib), v = 0;
      switch (op) {
      case ADD: v = x + y; break;
      case SUB: v = x - y; break;
      case MUL: v = x * y; break;
      case DIV: v = x / y; break;
      case POW: v = pow(x, y); break;
      case MAX: v = x > y || isnan(x) ? x : y; break;
      case MIN: v = x < y || isnan(x) ? x : y; break;
      case MOD: return NULL; /* float Mod: not needed for shapes */
      case EQ: v = x == y; break;
      case LT: v = x < y; break;
      case GT: v = x > y; break;
      case LE: v = x <= y; break;
      case GE: v = x >= y; break;
      case AND: case OR: case XOR: return NULL; /* bools take the int path */
      }
      put_f(o, i, v);
    } else {
      int64_t x = oxp_tensor_get_i(a, ia), y = oxp_tensor_get_i(b, ib), v = 0;
      switch (op) {
      case ADD: v = (int64_t)((uint64_t)x + (uint64_t)y); break;
      case SUB: v = (int64_t)((uint64_t)x - (uint64_t)y); break;
      case MUL: v = (int64_t)((uint64_t)x * (uint64_t)y); break;
      case DIV:
        if (y == 0 || (x == INT64_MIN && y == -1)) return NULL;
        v = x / y;
        break;
      case POW: return NULL;
      case MAX: v = x > y ? x : y; break;
      case MIN: v = x < y ? x : y; break;
      case MOD:
        /* shape arithmetic (pad to a multiple): fmod=0 takes the
         * divisor's sign, as Python's %, fmod=1 the dividend's */
        if (y == 0 || (x == INT64_MIN && y == -1)) return NULL;
        v = x % y;
        if (!attr_i(e->n, "fmod", 0) && v != 0 && (v < 0) != (y < 0)) v += y;
        break;
      case EQ: v = x == y; break;
      case LT: v = x < y; break;
      case GT: v = x > y; break;
      case LE: v = x <= y; break;
      case GE: v = x >= y; break;
      case AND: v = x && y; break;
      case OR: v = x || y; break;
      case XOR: v = !x != !y; break;
      }
      put_i(o, i, v);
    }
  }
  return o;
}

typedef enum { NEG, SQRT, ABS, RECIP, FLOOR, CEIL, NOT } unop;

static oxp_tensor *e_unary(ev *e, unop op) {
  oxp_tensor *x = IN(e, 0);
  if (!computable(x->dtype) || (op == NOT) != (x->dtype == OXP_DT_BOOL)) return NULL;
  bool fl = oxp_dtype_is_float(x->dtype);
  if (!fl && (op == SQRT || op == RECIP)) return NULL;
  oxp_tensor *o = new_out(e, x->dtype, x->rank, x->dims);
  if (!o) return NULL;
  for (int64_t i = 0, m = oxp_tensor_numel(x); i < m; i++) {
    if (fl) {
      double v = oxp_tensor_get_f(x, i);
      v = op == NEG ? -v : op == SQRT ? sqrt(v) : op == ABS ? fabs(v)
          : op == RECIP ? 1 / v : op == FLOOR ? floor(v) : ceil(v);
      put_f(o, i, v);
    } else {
      int64_t v = oxp_tensor_get_i(x, i);
      v = op == NEG ? (int64_t)(0 - (uint64_t)v) : op == ABS ? (v < 0 ? -v : v)
          : op == NOT ? !v : v;
      put_i(o, i, v);
    }
  }
  return o;
}

static oxp_tensor *e_where(ev *e) {
  oxp_tensor *c = IN(e, 0), *a = IN(e, 1), *b = IN(e, 2);
  if (!b || a->dtype != b->dtype || c->dtype != OXP_DT_BOOL) return NULL;
  int r = c->rank;
  if (a->rank > r) r = a->rank;
  if (b->rank > r) r = b->rank;
  if (r > MAXR) return NULL;
  int64_t d[MAXR];
  for (int k = 0; k < r; k++) {
    d[k] = 1;
    const oxp_tensor *ts[3] = {c, a, b};
    for (int t = 0; t < 3; t++) {
      int j = k - (r - ts[t]->rank);
      int64_t x = j >= 0 ? ts[t]->dims[j] : 1;
      if (x != 1 && d[k] != 1 && x != d[k]) return NULL;
      if (x != 1) d[k] = x;
    }
  }
  oxp_tensor *o = new_out(e, a->dtype, r, d);
  if (!o) return NULL;
  size_t es = oxp_dtype_size(a->dtype);
  for (int64_t i = 0, m = oxp_tensor_numel(o); i < m; i++) {
    const oxp_tensor *src = oxp_tensor_get_i(c, bcast_off(c, r, d, i)) ? a : b;
    memcpy((char *)o->data + (size_t)i * es,
           (const char *)src->data + (size_t)bcast_off(src, r, d, i) * es, es);
  }
  return o;
}

/* Expand/ConstantOfShape/Range make big tensors from small ones; new_out's
 * limit keeps them as nodes past OXP_FOLD_LIMIT. */
static oxp_tensor *e_expand(ev *e) {
  oxp_tensor *x = IN(e, 0);
  int64_t s[MAXR], d[MAXR];
  int k = ints_of(e, NULL, 1, s, MAXR);
  if (k < 0 || x->rank > MAXR) return NULL;
  int r = k > x->rank ? k : x->rank;
  for (int i = 0; i < r; i++) {
    int j = i - (r - x->rank), t = i - (r - k);
    int64_t a = j >= 0 ? x->dims[j] : 1, b = t >= 0 ? s[t] : 1;
    if (a != b && a != 1 && b != 1) return NULL;
    d[i] = a == 1 ? b : a;
  }
  oxp_tensor *o = new_out(e, x->dtype, r, d);
  if (!o) return NULL;
  size_t es = oxp_dtype_size(x->dtype);
  for (int64_t i = 0, m = oxp_tensor_numel(o); i < m; i++)
    memcpy((char *)o->data + (size_t)i * es,
           (const char *)x->data + (size_t)bcast_off(x, r, d, i) * es, es);
  return o;
}

static oxp_tensor *e_const_of_shape(ev *e) {
  int64_t s[MAXR];
  int k = ints_of(e, NULL, 0, s, MAXR);
  const oxp_attr *a = oxp_attr_get(e->n, "value");
  const oxp_tensor *v = a && a->kind == OXP_A_TENSOR ? a->t : NULL;
  if (k < 0 || (v && (!v->data || oxp_tensor_numel(v) != 1))) return NULL;
  int dt = v ? v->dtype : OXP_DT_FLOAT;
  oxp_tensor *o = new_out(e, dt, k, s);
  if (!o) return NULL;
  size_t es = oxp_dtype_size(dt);
  for (int64_t i = 0, m = oxp_tensor_numel(o); v && i < m; i++)
    memcpy((char *)o->data + (size_t)i * es, v->data, es);
  return o;
}

static oxp_tensor *e_range(ev *e) {
  oxp_tensor *s = IN(e, 0), *l = IN(e, 1), *dl = IN(e, 2);
  if (!dl || !l || !computable(s->dtype) || s->dtype == OXP_DT_BOOL ||
      oxp_tensor_numel(s) != 1 || oxp_tensor_numel(l) != 1 ||
      oxp_tensor_numel(dl) != 1)
    return NULL;
  double a = oxp_tensor_get_f(s, 0), b = oxp_tensor_get_f(l, 0), d = oxp_tensor_get_f(dl, 0);
  if (d == 0) return NULL;
  int64_t n = oxp_f2i(ceil((b - a) / d));
  if (n < 0) n = 0;
  oxp_tensor *o = new_out(e, s->dtype, 1, &n);
  int64_t s0 = oxp_tensor_get_i(s, 0), d0 = oxp_tensor_get_i(dl, 0);
  for (int64_t i = 0; o && i < n; i++) {
    if (oxp_dtype_is_float(s->dtype)) {
      put_f(o, i, a + (double)i * d);
    } else {
      int64_t v;
      /* Past int64 the op is undefined: leave it to the runtime. */
      if (__builtin_mul_overflow(i, d0, &v) || __builtin_add_overflow(s0, v, &v))
        return NULL;
      put_i(o, i, v);
    }
  }
  return o;
}

oxp_status oxp_fold_eval(oxp_pass *p, oxp_node *n, oxp_tensor **in,
                         oxp_tensor **out) {
  ev e = {p, n, in, n->ninputs};
  const char *op = oxp_pass_onnx_op(n);
  *out = NULL;
  if (!op || n->noutputs != 1 || n->ninputs == 0 || !in[0]) return OXP_OK;
  static const struct { const char *op; int code; } bin[] = {
      {"Add", ADD}, {"Sub", SUB}, {"Mul", MUL}, {"Div", DIV}, {"Pow", POW},
      {"Max", MAX}, {"Min", MIN}, {"Mod", MOD}, {"Equal", EQ}, {"Less", LT},
      {"Greater", GT}, {"LessOrEqual", LE}, {"GreaterOrEqual", GE},
      {"And", AND}, {"Or", OR}, {"Xor", XOR}};
  static const struct { const char *op; int code; } un[] = {
      {"Neg", NEG}, {"Sqrt", SQRT}, {"Abs", ABS}, {"Reciprocal", RECIP},
      {"Floor", FLOOR}, {"Ceil", CEIL}, {"Not", NOT}};
  for (size_t i = 0; i < sizeof bin / sizeof *bin; i++)
    if (strcmp(op, bin[i].op) == 0) {
      if (n->ninputs == 2) *out = e_binary(&e, (binop)bin[i].code);
      return OXP_OK;
    }
  for (size_t i = 0; i < sizeof un / sizeof *un; i++)
    if (strcmp(op, un[i].op) == 0) {
      *out = e_unary(&e, (unop)un[i].code);
      return OXP_OK;
    }
  /* bytes: reads its inputs' data directly, so lazy inputs are made
   * first (the rest read elements through the getters, or none). */
  static const struct {
    const char *op;
    oxp_tensor *(*fn)(ev *);
    bool bytes;
  } fns[] = {
      {"Identity", e_identity, false}, {"Reshape", e_reshape, false},
      {"Flatten", e_flatten, false}, {"Squeeze", e_squeeze, false},
      {"Unsqueeze", e_unsqueeze, false}, {"Transpose", e_transpose, true},
      {"Concat", e_concat, true}, {"Slice", e_slice, true},
      {"Gather", e_gather, true}, {"Cast", e_cast, false},
      {"Shape", e_shape, false}, {"Where", e_where, true},
      {"Expand", e_expand, true}, {"ConstantOfShape", e_const_of_shape, false},
      {"Range", e_range, false}};
  for (size_t i = 0; i < sizeof fns / sizeof *fns; i++)
    if (strcmp(op, fns[i].op) == 0) {
      for (int k = 0; fns[i].bytes && k < n->ninputs; k++)
        if (in[k] && oxp_tensor_is_lazy(in[k]) && !oxp_tensor_data(in[k]))
          return oxp_fail(p->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
      *out = fns[i].fn(&e);
      return OXP_OK;
    }
  return OXP_OK;
}
