/* jit_type_rules.c: the result rule of each aten op, for the type
 * inference of jit_infer_types.c. A scripted graph types only its inputs;
 * these rules say what torch's schemas say about an output from the
 * inputs: dtype (type promotion, a dtype argument, comparisons give bool,
 * indices int64, float functions float), rank, and the dims that follow
 * from static ones. A rule that cannot be sure leaves a part unknown:
 * an unknown dtype stays unknown and lowering names it, never guesses. */
#include <string.h>

#include "passes.h"

typedef bool (*rule_fn)(const oxp_node *n, oxp_shape *out);

/* ---- reading inputs ------------------------------------------------------ */

static const oxp_attr *cattr(const oxp_value *v) {
  const oxp_node *k = v ? v->producer : NULL;
  return k && oxp_kind_is(k, "prim::Constant") ? oxp_attr_get(k, "value") : NULL;
}

static bool is_none(const oxp_node *n, int i) {
  if (i >= n->ninputs) return true;
  const oxp_value *v = n->inputs[i];
  if (!v || (v->type && v->type->kind == OXP_T_NONE)) return true;
  const oxp_node *k = v->producer;
  return k && oxp_kind_is(k, "prim::Constant") && !k->attrs;
}

static bool cint(const oxp_node *n, int i, int64_t *out) {
  const oxp_attr *a = i < n->ninputs ? cattr(n->inputs[i]) : NULL;
  if (!a || a->kind != OXP_A_INT) return false;
  *out = a->i;
  return true;
}

/* An int[] constant, a ListConstruct of int constants, or one int. */
static int cints(const oxp_node *n, int i, int64_t *v, int max) {
  if (i >= n->ninputs) return -1;
  const oxp_value *x = n->inputs[i];
  const oxp_attr *a = cattr(x);
  if (a && a->kind == OXP_A_INTS && a->n <= max) {
    memcpy(v, a->ints, sizeof *v * (size_t)a->n);
    return a->n;
  }
  if (a && a->kind == OXP_A_INT && max >= 1) return v[0] = a->i, 1;
  const oxp_node *k = x->producer;
  if (!k || !oxp_kind_is(k, "prim::ListConstruct") || k->ninputs > max ||
      oxp_jit_list_mutated(x))
    return -1;
  for (int j = 0; j < k->ninputs; j++)
    if (!cint(k, j, &v[j])) return -1;
  return k->ninputs;
}

/* Like cints, but runtime elements read as -1 (an unknown dim). */
static int sizes(const oxp_node *n, int i, int64_t *v, int max) {
  int c = cints(n, i, v, max);
  if (c >= 0 || i >= n->ninputs) return c;
  const oxp_node *k = n->inputs[i]->producer;
  if (!k || !oxp_kind_is(k, "prim::ListConstruct") || k->ninputs > max ||
      oxp_jit_list_mutated(n->inputs[i]))
    return -1;
  for (int j = 0; j < k->ninputs; j++)
    if (!cint(k, j, &v[j])) v[j] = -1;
  return k->ninputs;
}

static void in(const oxp_node *n, int i, oxp_shape *s) {
  oxp_shape_of(i < n->ninputs ? n->inputs[i] : NULL, s);
}

static int in_dt(const oxp_node *n, int i) {
  oxp_shape s;
  in(n, i, &s);
  return s.dtype;
}

/* An explicit dtype argument: its dtype, 0 when None, -1 when not known. */
static int dtype_arg(const oxp_node *n, int i) {
  int64_t st;
  if (is_none(n, i)) return 0;
  if (!cint(n, i, &st)) return -1;
  int dt = oxp_dtype_from_scalar_type(st);
  return dt ? dt : -1;
}

/* torch.result_type of inputs i and j (j < 0: only i); 0 if unknown. */
static int promote(const oxp_node *n, int i, int j) {
  oxp_operand o[2];
  int cnt = j < 0 ? 1 : 2;
  if (i >= n->ninputs || (j >= 0 && j >= n->ninputs)) return 0;
  if (!oxp_operand_of(n->inputs[i], &o[0])) return 0;
  if (cnt == 2 && !oxp_operand_of(n->inputs[j], &o[1])) return 0;
  return oxp_result_type(o, cnt);
}

static int float_of(int dt) {
  return !dt ? 0 : oxp_dtype_is_float(dt) ? dt : OXP_DT_FLOAT;
}

static int norm_axis(int64_t a, int rank) {
  if (rank < 0) return -1;
  if (a < 0) a += rank;
  return a >= 0 && a < rank ? (int)a : -1;
}

/* ---- shape helpers ------------------------------------------------------- */

/* Dim arithmetic: IR text may hold any int64, and a result past it (or
 * from an unknown -1) is an unknown dim, never undefined behaviour. */
static int64_t dim_add(int64_t a, int64_t b) {
  int64_t r;
  return a < 0 || b < 0 || __builtin_add_overflow(a, b, &r) ? -1 : r;
}

static int64_t dim_mul(int64_t a, int64_t b) {
  int64_t r;
  return a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r) ? -1 : r;
}

/* floor((i + 2 p - d (k - 1) - 1) / s) + 1 (ceil with ceil_mode), the
 * output length of a convolution or pooling window; -1 when it is not
 * a valid length. */
static int64_t window_len(int64_t i, int64_t p, int64_t d, int64_t k, int64_t s, bool ceil) {
  if (i < 0 || p < 0 || d < 1 || k < 1 || s < 1) return -1;
  __int128 num = (__int128)i + 2 * (__int128)p - (__int128)d * (k - 1) - 1;
  if (num < 0) return -1;
  __int128 o = (ceil ? (num + s - 1) / s : num / s) + 1;
  /* the last window must start inside the input or its left padding */
  if (ceil && (o - 1) * s >= (__int128)i + p) o--;
  return o > INT64_MAX ? -1 : (int64_t)o;
}

static void set_rank(oxp_shape *s, int rank) {
  s->rank = rank >= 0 && rank <= OXP_MAX_SHAPE_RANK ? rank : -1;
  for (int i = 0; i < OXP_MAX_SHAPE_RANK; i++) s->d[i] = -1, s->p[i] = NULL;
}

static void shape_like(oxp_shape *out, const oxp_shape *x, int dtype) {
  *out = *x;
  out->dtype = dtype;
}

static void bcast(const oxp_node *n, int i, int j, oxp_shape *out, int dtype) {
  oxp_shape a, b;
  in(n, i, &a);
  in(n, j, &b);
  /* a Python number broadcasts as a 0-d tensor */
  if (j < n->ninputs && n->inputs[j]->type && n->inputs[j]->type->kind != OXP_T_TENSOR)
    set_rank(&b, 0);
  if (!oxp_broadcast(&a, &b, out)) oxp_shape_unknown(out, 0);
  out->dtype = dtype;
}

/* The dims of a reduction over dims argument i (all when None or
 * empty), keepdim argument k (k < 0: false). */
static void reduced(const oxp_node *n, int i, int k, const oxp_shape *x,
                    oxp_shape *out) {
  int64_t dims[OXP_MAX_SHAPE_RANK], keep = 0;
  int c = is_none(n, i) ? 0 : cints(n, i, dims, OXP_MAX_SHAPE_RANK);
  if (k >= 0 && !is_none(n, k) && !cint(n, k, &keep)) c = -1;
  set_rank(out, -1);
  if (c < 0 || x->rank < 0) return;
  bool drop[OXP_MAX_SHAPE_RANK] = {0};
  for (int j = 0; j < c; j++) {
    int a = norm_axis(dims[j], x->rank);
    if (a < 0) return;
    drop[a] = true;
  }
  for (int j = 0; j < x->rank && c == 0; j++) drop[j] = true;
  int r = 0;
  for (int j = 0; j < x->rank; j++) {
    if (!drop[j]) out->d[r] = x->d[j], out->p[r++] = x->p[j];
    else if (keep) out->d[r] = 1, out->p[r++] = NULL;
  }
  out->rank = r;
}

/* ---- elementwise --------------------------------------------------------- */

static bool r_same(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  shape_like(out, &x, x.dtype);
  return true;
}

/* _native_multi_head_attention(query, ...): the output is shaped like
 * the query (its last dim is embed_dim, as the query's); the weights
 * keep the dtype only (their shape hangs on need_weights). */
static bool r_native_mha(const oxp_node *n, oxp_shape *out) {
  oxp_shape q;
  in(n, 0, &q);
  shape_like(&out[0], &q, q.dtype);
  oxp_shape_unknown(&out[1], q.dtype);
  return n->noutputs == 2;
}

/* diagonal(x, offset, d1, d2) drops two dims and adds one: x's dtype,
 * dims left unknown. */
static bool r_diagonal(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  set_rank(out, x.rank >= 2 ? x.rank - 1 : -1);
  out->dtype = x.dtype;
  return true;
}

/* sqrt, exp, sigmoid...: ints and bools compute in the default float */
static bool r_float(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  shape_like(out, &x, float_of(x.dtype));
  return true;
}

static bool r_bool1(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  shape_like(out, &x, OXP_DT_BOOL);
  return true;
}

static bool r_binary(const oxp_node *n, oxp_shape *out) {
  bcast(n, 0, 1, out, promote(n, 0, 1));
  return true;
}

static bool r_binary_float(const oxp_node *n, oxp_shape *out) {
  bcast(n, 0, 1, out, float_of(promote(n, 0, 1)));
  return true;
}

/* div: true division unless a rounding mode is given */
static bool r_div(const oxp_node *n, oxp_shape *out) {
  int dt = promote(n, 0, 1);
  bool mode = n->ninputs > 2 && !is_none(n, 2);
  bcast(n, 0, 1, out, mode ? dt : float_of(dt));
  return true;
}

static bool r_compare(const oxp_node *n, oxp_shape *out) {
  bcast(n, 0, 1, out, OXP_DT_BOOL);
  return true;
}

static bool r_where(const oxp_node *n, oxp_shape *out) {
  if (n->ninputs != 3) return false;
  oxp_shape c, ab;
  bcast(n, 1, 2, &ab, promote(n, 1, 2));
  in(n, 0, &c);
  if (!oxp_broadcast(&c, &ab, out)) oxp_shape_unknown(out, 0);
  out->dtype = ab.dtype;
  return true;
}

/* masked_fill(self, mask, value): self's dtype */
static bool r_masked_fill(const oxp_node *n, oxp_shape *out) {
  bcast(n, 0, 1, out, in_dt(n, 0));
  return true;
}

/* clamp(x, min, max), clamp_min/clamp_max(x, bound): torch's result type
 * over x and the bounds present (a float64 tensor bound widens a float32
 * x; a 0-d one does not), shaped as x broadcast with tensor bounds
 * (clamp of [4] by a [1, 4] min is [1, 4]: difftest seed 9201 program
 * 16548 squeezed the scripted result as if it were x's shape). */
static bool r_clamp(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  oxp_operand ops[3];
  int cnt = 0;
  bool ok = true;
  for (int i = 0; i < n->ninputs && i < 3 && ok; i++)
    if (i == 0 || !is_none(n, i)) ok = oxp_operand_of(n->inputs[i], &ops[cnt++]);
  int dt = ok ? oxp_result_type(ops, cnt) : 0;
  shape_like(out, &x, dt);
  for (int i = 1; i < n->ninputs && i < 3; i++) {
    if (is_none(n, i) || !n->inputs[i]->type || n->inputs[i]->type->kind != OXP_T_TENSOR)
      continue;
    oxp_shape b, acc = *out;
    in(n, i, &b);
    if (!oxp_broadcast(&acc, &b, out)) oxp_shape_unknown(out, 0);
  }
  out->dtype = dt;
  return true;
}

/* ---- reductions ---------------------------------------------------------- */

/* sum/prod/mean/nansum(x, dtype) or (x, dims, keepdim, dtype) */
static bool r_sum(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  bool whole = n->ninputs <= 2;
  int dt = dtype_arg(n, whole ? 1 : n->ninputs - 1);
  if (dt < 0) dt = 0;
  else if (!dt) {
    dt = x.dtype;
    bool widen = !oxp_kind_is(n, "aten::mean");
    if (widen && dt && !oxp_dtype_is_float(dt)) dt = OXP_DT_INT64;
  }
  if (whole) set_rank(out, 0);
  else reduced(n, 1, 2, &x, out);
  out->dtype = dt;
  return true;
}

/* amax/amin/logsumexp/std/var/norm-like (x, dims, keepdim...) */
static bool r_reduce(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  int keep = n->ninputs > 2 ? 2 : -1;
  if (oxp_kind_is(n, "aten::std") || oxp_kind_is(n, "aten::var"))
    keep = n->ninputs >= 4 ? 3 : -1;
  if (n->ninputs <= 2 && !(oxp_kind_is(n, "aten::amax") || oxp_kind_is(n, "aten::amin") ||
                           oxp_kind_is(n, "aten::logsumexp")))
    set_rank(out, oxp_kind_is(n, "aten::std") || oxp_kind_is(n, "aten::var") ? 0 : -1);
  else reduced(n, 1, keep, &x, out);
  bool fl = !oxp_kind_is(n, "aten::amax") && !oxp_kind_is(n, "aten::amin");
  out->dtype = fl ? float_of(x.dtype) : x.dtype;
  return true;
}

/* max/min: whole (0-d), binary (maximum), or along a dim (values, indices) */
static bool r_minmax(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  if (n->ninputs == 1) {
    set_rank(out, 0);
    out->dtype = x.dtype;
    return true;
  }
  const oxp_type *t = n->inputs[1]->type;
  if (t && t->kind == OXP_T_TENSOR) return r_binary(n, out);
  if (n->noutputs != 2) return false;
  reduced(n, 1, 2, &x, &out[0]);
  out[0].dtype = x.dtype;
  out[1] = out[0];
  out[1].dtype = OXP_DT_INT64;
  return true;
}

/* norm(x, p) | norm(x, p, dims, keepdim[, dtype]) and
 * linalg_vector_norm(x, ord, dims, keepdim, dtype): x's real float
 * dtype unless dtype is given; torch refuses integer x. */
static bool r_norm(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  const oxp_type *t2 = n->ninputs == 3 ? n->inputs[2]->type : NULL;
  bool dt_only = t2 && t2->kind == OXP_T_INT; /* norm(x, p, dtype) */
  if (n->ninputs <= 2 || dt_only) set_rank(out, 0);
  else reduced(n, 2, n->ninputs > 3 ? 3 : -1, &x, out);
  int dt = n->ninputs > 4 ? dtype_arg(n, 4) : dt_only ? dtype_arg(n, 2) : 0;
  if (!dt) dt = x.dtype == OXP_DT_FLOAT || x.dtype == OXP_DT_DOUBLE || x.dtype == OXP_DT_FLOAT16 ||
                        x.dtype == OXP_DT_BFLOAT16 ? x.dtype : 0;
  out->dtype = dt < 0 ? 0 : dt;
  return true;
}

static bool r_arg(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  if (is_none(n, 1)) set_rank(out, 0);
  else reduced(n, 1, 2, &x, out);
  out->dtype = OXP_DT_INT64;
  return true;
}

static bool r_bool_reduce(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  if (n->ninputs == 1) set_rank(out, 0);
  else reduced(n, 1, 2, &x, out);
  out->dtype = x.dtype == OXP_DT_UINT8 ? x.dtype : OXP_DT_BOOL;
  return true;
}

/* softmax/log_softmax(x, dim, dtype), cumsum/cumprod(x, dim, dtype) */
static bool r_dim_dtype(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  int dt = n->ninputs > 2 ? dtype_arg(n, 2) : 0;
  bool cum = strncmp(n->kind, "aten::cum", 9) == 0;
  if (!dt) dt = cum && x.dtype && !oxp_dtype_is_float(x.dtype) ? OXP_DT_INT64 : x.dtype;
  if (!cum && dt > 0 && !oxp_dtype_is_float(dt)) dt = 0; /* torch refuses */
  shape_like(out, &x, dt < 0 ? 0 : dt);
  return true;
}

/* ---- casts ------------------------------------------------------------- */

/* to(x, dtype, ...), to(x, device, dtype, ...), to(x, other, ...) */
static bool r_to(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  int dt = -1;
  for (int i = 1; i < n->ninputs && i <= 2 && dt < 0; i++) {
    const oxp_type *t = n->inputs[i]->type;
    if (!t) break;
    if (t->kind == OXP_T_TENSOR) {
      dt = t->dtype ? t->dtype : -1;
      break;
    }
    if (t->kind == OXP_T_INT || (t->kind == OXP_T_OPTIONAL && t->elem &&
                                 t->elem->kind == OXP_T_INT))
      dt = dtype_arg(n, i);
    else if (t->kind == OXP_T_NONE && i == 2)
      dt = 0;
    else if (t->kind != OXP_T_DEVICE && t->kind != OXP_T_NONE &&
             t->kind != OXP_T_STR && t->kind != OXP_T_OPTIONAL)
      break;
  }
  if (n->ninputs == 5 && dt < 0 && n->inputs[1]->type &&
      n->inputs[1]->type->kind == OXP_T_BOOL)
    dt = 0; /* to(x, non_blocking, copy, memory_format) */
  shape_like(out, &x, dt < 0 ? 0 : dt ? dt : x.dtype);
  return true;
}

static bool r_type_as(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  shape_like(out, &x, in_dt(n, 1));
  return true;
}

/* ---- linear algebra ------------------------------------------------------ */

static bool r_linear(const oxp_node *n, oxp_shape *out) {
  oxp_shape x, w;
  in(n, 0, &x);
  in(n, 1, &w);
  shape_like(out, &x, promote(n, 0, 1));
  if (out->rank > 0) {
    out->d[out->rank - 1] = w.rank == 2 ? w.d[0] : -1;
    out->p[out->rank - 1] = NULL;
    if (w.rank == 1) out->rank--;
  }
  return true;
}

static bool r_matmul(const oxp_node *n, oxp_shape *out) {
  oxp_shape a, b;
  in(n, 0, &a);
  in(n, 1, &b);
  int dt = promote(n, 0, 1);
  set_rank(out, -1);
  out->dtype = dt;
  if (a.rank < 1 || b.rank < 1) return true;
  if (a.rank == 1 && b.rank == 1) return set_rank(out, 0), true;
  if (a.rank >= 2 && b.rank >= 2) {
    oxp_shape ba = a, bb = b;
    ba.rank -= 2, bb.rank -= 2;
    if (!oxp_broadcast(&ba, &bb, out)) return oxp_shape_unknown(out, dt), true;
    if (out->rank + 2 > OXP_MAX_SHAPE_RANK) return oxp_shape_unknown(out, dt), true;
    out->d[out->rank] = a.d[a.rank - 2], out->p[out->rank++] = NULL;
    out->d[out->rank] = b.d[b.rank - 1], out->p[out->rank++] = NULL;
  } else if (a.rank == 1) {
    *out = b;
    out->rank--;
    out->d[out->rank - 1] = b.d[b.rank - 1];
  } else {
    *out = a;
    out->rank--;
  }
  out->dtype = dt;
  return true;
}

/* mm / bmm / addmm / baddbmm: the last two dims come from the factors */
static bool r_mm(const oxp_node *n, oxp_shape *out) {
  bool add = oxp_kind_is(n, "aten::addmm") || oxp_kind_is(n, "aten::baddbmm");
  int i = add ? 1 : 0;
  oxp_shape a, b;
  in(n, i, &a);
  in(n, i + 1, &b);
  int r = oxp_kind_is(n, "aten::bmm") || oxp_kind_is(n, "aten::baddbmm") ? 3 : 2;
  set_rank(out, r);
  if (a.rank == r && b.rank == r) {
    for (int k = 0; k < r - 1; k++) out->d[k] = a.d[k];
    out->d[r - 1] = b.d[r - 1];
  }
  out->dtype = add ? (in_dt(n, 0) == a.dtype ? a.dtype : 0) : promote(n, i, i + 1);
  return true;
}

/* conv1d/2d/3d(x, w, b, stride, padding, dilation, groups) and
 * _convolution(x, w, b, stride, padding, dilation, transposed, ...) */
static bool r_conv(const oxp_node *n, oxp_shape *out) {
  oxp_shape x, w;
  in(n, 0, &x);
  in(n, 1, &w);
  shape_like(out, &x, x.dtype == w.dtype ? x.dtype : 0);
  int64_t tr = 0;
  bool full = oxp_kind_is(n, "aten::_convolution");
  if (full && !cint(n, 6, &tr)) tr = 1;
  bool transposed = tr || strstr(n->kind, "transpose") != NULL;
  if (x.rank < 3) return true;
  int sp = x.rank - 2;
  for (int k = 0; k < x.rank; k++) out->d[k] = -1, out->p[k] = NULL;
  out->d[0] = x.d[0], out->p[0] = x.p[0];
  if (transposed) return true;
  if (w.rank == x.rank) out->d[1] = w.d[0];
  int64_t st[OXP_MAX_SHAPE_RANK], pd[OXP_MAX_SHAPE_RANK], dl[OXP_MAX_SHAPE_RANK];
  int cs = cints(n, 3, st, OXP_MAX_SHAPE_RANK), cp = cints(n, 4, pd, OXP_MAX_SHAPE_RANK),
      cd = cints(n, 5, dl, OXP_MAX_SHAPE_RANK);
  if (cs < 1 || cp < 1 || cd < 1 || w.rank != x.rank) return true;
  for (int k = 0; k < sp; k++) {
    int64_t s = st[cs == 1 ? 0 : k < cs ? k : 0], p = pd[cp == 1 ? 0 : k < cp ? k : 0],
            d = dl[cd == 1 ? 0 : k < cd ? k : 0], kk = w.d[2 + k], i = x.d[2 + k];
    if ((cs != 1 && cs != sp) || (cp != 1 && cp != sp) || (cd != 1 && cd != sp)) continue;
    out->d[2 + k] = window_len(i, p, d, kk, s, false);
  }
  return true;
}

/* ---- pooling -------------------------------------------------------------- */

/* max_poolNd(x, k, stride, pad, dil, ceil), avg_poolNd(x, k, stride, pad, ceil, ...) */
static bool r_pool(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  shape_like(out, &x, x.dtype);
  bool mx = strstr(n->kind, "max_pool") != NULL;
  int sp = n->kind[strlen(n->kind) - 2] - '0';
  if (x.rank < sp || sp < 1 || sp > 3) return true;
  int64_t k[4], s[4], p[4], dl[4] = {1, 1, 1, 1}, ceil = 0;
  int ck = cints(n, 1, k, 3), cs = cints(n, 2, s, 3), cp = cints(n, 3, p, 3);
  int cd = mx ? cints(n, 4, dl, 3) : 1;
  bool ok = cint(n, mx ? 5 : 4, &ceil);
  if (cs == 0) memcpy(s, k, sizeof s), cs = ck;
  for (int j = 0; j < sp; j++) {
    int a = x.rank - sp + j;
    out->d[a] = -1, out->p[a] = NULL;
    if (!ok || ck < 1 || cs < 1 || cp < 1 || cd < 1) continue;
    int64_t kk = k[ck == 1 ? 0 : j], ss = s[cs == 1 ? 0 : j], pp = p[cp == 1 ? 0 : j],
            dd = dl[cd == 1 ? 0 : j], i = x.d[a];
    out->d[a] = window_len(i, pp, dd, kk, ss, ceil != 0);
  }
  return true;
}

/* adaptive_{avg,max}_poolNd(x, output_size) */
static bool r_adaptive(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  shape_like(out, &x, x.dtype);
  int64_t o[3];
  int c = cints(n, 1, o, 3);
  if (c > 0 && x.rank >= c)
    for (int j = 0; j < c; j++) out->d[x.rank - c + j] = o[j], out->p[x.rank - c + j] = NULL;
  else if (x.rank > 0)
    for (int j = 1; j < x.rank; j++) out->d[j] = -1, out->p[j] = NULL;
  if (n->noutputs == 2) out[1] = out[0], out[1].dtype = OXP_DT_INT64;
  return true;
}

/* ---- shapes --------------------------------------------------------------- */

static bool r_view(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  int64_t v[OXP_MAX_SHAPE_RANK];
  int c = sizes(n, 1, v, OXP_MAX_SHAPE_RANK);
  set_rank(out, c);
  out->dtype = x.dtype;
  if (c < 0) return true;
  int64_t total = oxp_type_numel(n->inputs[0]->type), known = 1;
  int64_t lit[OXP_MAX_SHAPE_RANK];
  bool literal = cints(n, 1, lit, OXP_MAX_SHAPE_RANK) == c; /* -1 is the hole, not unknown */
  int hole = -1, unknown = 0;
  for (int j = 0; j < c; j++) {
    out->d[j] = v[j] >= 0 ? v[j] : -1;
    if (v[j] == -1 && literal) hole = j;
    if (v[j] >= 0) known = dim_mul(known, v[j]);
    else unknown++;
  }
  if (hole >= 0 && unknown == 1 && total >= 0 && known > 0 && total % known == 0)
    out->d[hole] = total / known;
  return true;
}

static bool r_flatten(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  int64_t s = 0, e = -1;
  out->dtype = x.dtype;
  if (!cint(n, 1, &s) || !cint(n, 2, &e) || x.rank < 0) return set_rank(out, -1), true;
  if (x.rank == 0) return shape_like(out, &x, x.dtype), out->rank = 1, out->d[0] = 1, true;
  int a = norm_axis(s, x.rank), b = norm_axis(e, x.rank);
  if (a < 0 || b < a) return set_rank(out, -1), true;
  set_rank(out, x.rank - (b - a));
  int64_t prod = 1;
  for (int j = a; j <= b; j++) prod = dim_mul(prod, x.d[j]);
  for (int j = 0, r = 0; j < x.rank; j++) {
    if (j > a && j <= b) continue;
    out->d[r++] = j == a ? prod : x.d[j];
  }
  out->dtype = x.dtype;
  return true;
}

static bool r_permute(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  int64_t p[OXP_MAX_SHAPE_RANK];
  int c = cints(n, 1, p, OXP_MAX_SHAPE_RANK);
  set_rank(out, x.rank >= 0 ? x.rank : c);
  out->dtype = x.dtype;
  if (c != x.rank) return true;
  for (int j = 0; j < c; j++) {
    int a = norm_axis(p[j], x.rank);
    if (a >= 0) out->d[j] = x.d[a], out->p[j] = x.p[a];
  }
  return true;
}

static bool r_transpose(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  shape_like(out, &x, x.dtype);
  int64_t a = 0, b = 1;
  if (oxp_kind_is(n, "aten::t")) {
    if (x.rank < 2) return true;
  } else if (!cint(n, 1, &a) || !cint(n, 2, &b)) {
    for (int j = 0; j < OXP_MAX_SHAPE_RANK; j++) out->d[j] = -1, out->p[j] = NULL;
    return true;
  }
  int i = norm_axis(a, x.rank), j = norm_axis(b, x.rank);
  if (i < 0 || j < 0) return true;
  out->d[i] = x.d[j], out->p[i] = x.p[j];
  out->d[j] = x.d[i], out->p[j] = x.p[i];
  return true;
}

static bool r_unsqueeze(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  int64_t d;
  set_rank(out, x.rank >= 0 ? x.rank + 1 : -1);
  out->dtype = x.dtype;
  int a = cint(n, 1, &d) ? norm_axis(d, x.rank + 1) : -1;
  if (a < 0 || out->rank < 0) return true;
  for (int j = 0, r = 0; j < out->rank; j++)
    out->d[j] = j == a ? 1 : x.d[r], out->p[j] = j == a ? NULL : x.p[r], r += j != a;
  return true;
}

static bool r_squeeze(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  set_rank(out, -1);
  out->dtype = x.dtype;
  if (x.rank < 0) return true;
  int64_t dims[OXP_MAX_SHAPE_RANK];
  int c = n->ninputs > 1 ? cints(n, 1, dims, OXP_MAX_SHAPE_RANK) : 0;
  bool drop[OXP_MAX_SHAPE_RANK] = {0};
  if (c < 0) return true;
  for (int j = 0; j < c; j++) {
    int a = norm_axis(dims[j], x.rank);
    if (a < 0 && x.rank > 0) return true;
    if (a >= 0 && x.d[a] == 1) drop[a] = true;
    else if (a >= 0 && x.d[a] < 0) return true;
  }
  for (int j = 0; j < x.rank && c == 0; j++) {
    if (x.d[j] < 0) return true;
    drop[j] = x.d[j] == 1;
  }
  int r = 0;
  for (int j = 0; j < x.rank; j++)
    if (!drop[j]) out->d[r] = x.d[j], out->p[r++] = x.p[j];
  out->rank = r;
  return true;
}

/* select(x, dim, i) drops dim; slice/narrow keep the rank */
static bool r_select(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  int64_t d;
  set_rank(out, x.rank > 0 ? x.rank - 1 : -1);
  out->dtype = x.dtype;
  int a = cint(n, 1, &d) ? norm_axis(d, x.rank) : -1;
  for (int j = 0, r = 0; a >= 0 && j < x.rank; j++)
    if (j != a) out->d[r] = x.d[j], out->p[r++] = x.p[j];
  return true;
}

static bool r_slice(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  shape_like(out, &x, x.dtype);
  int64_t d = 0, s = 0, e = INT64_MAX, st = 1;
  int a = n->ninputs >= 2 && cint(n, 1, &d) ? norm_axis(d, x.rank) : -1;
  if (a < 0) {
    for (int j = 0; j < OXP_MAX_SHAPE_RANK; j++) out->d[j] = -1, out->p[j] = NULL;
    return true;
  }
  out->d[a] = -1, out->p[a] = NULL;
  bool ks = is_none(n, 2) || cint(n, 2, &s), ke = is_none(n, 3) || cint(n, 3, &e),
       kt = n->ninputs < 5 || cint(n, 4, &st);
  int64_t len = x.d[a];
  if (!ks || !ke || !kt || len < 0 || st < 1) return true;
  if (s < 0) s = s + len < 0 ? 0 : s + len;
  if (e < 0) e = e + len < 0 ? 0 : e + len;
  if (s > len) s = len;
  if (e > len) e = len;
  out->d[a] = oxp_range_len(s, e, st);
  return true;
}

/* narrow(x, dim, start, length): the dim becomes length */
static bool r_narrow(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  shape_like(out, &x, x.dtype);
  int64_t d, len;
  int a = n->ninputs == 4 && cint(n, 1, &d) ? norm_axis(d, x.rank) : -1;
  if (a < 0) {
    for (int j = 0; j < OXP_MAX_SHAPE_RANK; j++) out->d[j] = -1, out->p[j] = NULL;
    return true;
  }
  out->d[a] = cint(n, 3, &len) && len >= 0 ? len : -1;
  out->p[a] = NULL;
  return true;
}

static bool r_expand(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  int64_t v[OXP_MAX_SHAPE_RANK];
  int c = sizes(n, 1, v, OXP_MAX_SHAPE_RANK);
  set_rank(out, c);
  out->dtype = x.dtype;
  for (int j = 0; j < c; j++) {
    int xi = j - (c - x.rank);
    out->d[j] = v[j] >= 0 ? v[j] : x.rank >= 0 && xi >= 0 && v[j] == -1 ? x.d[xi] : -1;
  }
  return true;
}

static bool r_expand_as(const oxp_node *n, oxp_shape *out) {
  oxp_shape y;
  in(n, 1, &y);
  shape_like(out, &y, in_dt(n, 0));
  return true;
}

static bool r_keep_rank(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  shape_like(out, &x, x.dtype);
  for (int j = 0; j < OXP_MAX_SHAPE_RANK; j++) out->d[j] = -1, out->p[j] = NULL;
  return true;
}

/* pad(x, pad, ...) and the *_pad* ops: pad holds (before, after) pairs
 * from the last dim back; a dim and both its pads known give its size
 * (negative pads crop). */
static bool r_pad(const oxp_node *n, oxp_shape *out) {
  r_keep_rank(n, out);
  oxp_shape x;
  in(n, 0, &x);
  int64_t pad[2 * OXP_MAX_SHAPE_RANK];
  int c = sizes(n, 1, pad, 2 * OXP_MAX_SHAPE_RANK);
  if (x.rank < 0 || c < 0 || c % 2 || c / 2 > x.rank) return true;
  for (int j = 0; j < x.rank; j++) out->d[j] = x.d[j], out->p[j] = x.p[j];
  for (int j = 0; j < c / 2; j++) {
    int dim = x.rank - 1 - j;
    int64_t a = pad[2 * j], b = pad[2 * j + 1], r;
    out->p[dim] = NULL;
    if (x.d[dim] < 0 || a == -1 || b == -1 || __builtin_add_overflow(x.d[dim], a, &r) ||
        __builtin_add_overflow(r, b, &r) || r < 0)
      out->d[dim] = -1;
    else
      out->d[dim] = r;
  }
  return true;
}

/* gather(x, dim, index): x's dtype, index's shape */
static bool r_gather(const oxp_node *n, oxp_shape *out) {
  oxp_shape i;
  in(n, 2, &i);
  shape_like(out, &i, in_dt(n, 0));
  return true;
}

static bool r_embedding(const oxp_node *n, oxp_shape *out) {
  oxp_shape w, i;
  in(n, 0, &w);
  in(n, 1, &i);
  set_rank(out, i.rank >= 0 ? i.rank + 1 : -1);
  out->dtype = w.dtype;
  for (int j = 0; j < i.rank && out->rank > 0; j++) out->d[j] = i.d[j], out->p[j] = i.p[j];
  if (out->rank > 0 && w.rank == 2) out->d[out->rank - 1] = w.d[1];
  return true;
}

static bool r_dtype_only(const oxp_node *n, oxp_shape *out) {
  oxp_shape_unknown(out, in_dt(n, 0));
  return true;
}

/* dot/vdot of two 1-d tensors: a 0-d result (its rank decides how it
 * promotes with other operands), of their common dtype. */
static bool r_dot(const oxp_node *n, oxp_shape *out) {
  oxp_shape_unknown(out, in_dt(n, 0) == in_dt(n, 1) ? in_dt(n, 0) : 0);
  set_rank(out, 0);
  return true;
}

static bool r_nonzero(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  set_rank(out, 2);
  out->d[1] = x.rank >= 0 ? x.rank : -1;
  out->dtype = OXP_DT_INT64;
  return true;
}

/* sort/topk/kthvalue/mode: (values, indices) */
static bool r_values_indices(const oxp_node *n, oxp_shape *out) {
  if (n->noutputs != 2) return false;
  oxp_shape x;
  in(n, 0, &x);
  if (oxp_kind_is(n, "aten::sort")) shape_like(&out[0], &x, x.dtype);
  else r_keep_rank(n, &out[0]);
  out[1] = out[0];
  out[1].dtype = OXP_DT_INT64;
  return true;
}

static bool r_i64_same(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  shape_like(out, &x, OXP_DT_INT64);
  return true;
}

/* ---- lists of tensors ------------------------------------------------------ */

/* The element type of a Tensor[] value: what its ListConstruct holds and
 * what is appended, inserted or stored into it, joined; unknown parts
 * stay unknown. */
static bool list_elem(const oxp_value *l, oxp_shape *e) {
  oxp_shape_unknown(e, 0);
  const oxp_node *k = l ? l->producer : NULL;
  if (k && oxp_jit_is_split(k) && !oxp_jit_list_mutated(l)) {
    oxp_shape x;
    oxp_shape_of(k->inputs[0], &x);
    set_rank(e, oxp_kind_is(k, "aten::unbind") && x.rank > 0 ? x.rank - 1 : x.rank);
    e->dtype = x.dtype;
    return true;
  }
  if (!k || !oxp_kind_is(k, "prim::ListConstruct")) return false;
  bool first = true;
  oxp_shape s;
#define JOIN(v)                                                              \
  do {                                                                       \
    oxp_shape_of(v, &s);                                                     \
    if (first) *e = s, first = false;                                        \
    else {                                                                   \
      if (e->dtype != s.dtype) e->dtype = 0;                                 \
      if (e->rank != s.rank) set_rank(e, -1);                                \
      for (int j = 0; j < e->rank; j++)                                      \
        if (e->d[j] != s.d[j]) e->d[j] = -1, e->p[j] = NULL;                 \
    }                                                                        \
  } while (0)
  for (int i = 0; i < k->ninputs; i++) JOIN(k->inputs[i]);
  for (int u = 0; u < l->nuses; u++) {
    const oxp_node *m = l->uses[u].node;
    if (l->uses[u].index != 0) {
      /* handed to something that may change it: nothing is sure */
      if (oxp_kind_is(m, "prim::Loop") || oxp_kind_is(m, "aten::extend")) return false;
      continue;
    }
    if (oxp_kind_is(m, "aten::append") && m->ninputs == 2) JOIN(m->inputs[1]);
    else if ((oxp_kind_is(m, "aten::insert") || oxp_kind_is(m, "aten::_set_item")) &&
             m->ninputs == 3)
      JOIN(m->inputs[2]);
    else if (oxp_kind_is(m, "aten::extend")) return false;
  }
#undef JOIN
  return !first;
}

static bool r_getitem(const oxp_node *n, oxp_shape *out) {
  const oxp_type *t = n->inputs[0]->type;
  if (!t || t->kind != OXP_T_LIST) return false;
  list_elem(n->inputs[0], out);
  return true;
}

/* cat(list, dim) / stack(list, dim) */
static bool r_cat(const oxp_node *n, oxp_shape *out) {
  const oxp_value *l = n->inputs[0];
  const oxp_node *k = l->producer;
  oxp_shape e;
  if (!list_elem(l, &e)) return false;
  bool stack = oxp_kind_is(n, "aten::stack");
  int64_t d = 0;
  bool kd = cint(n, 1, &d);
  /* cat and stack promote their operands */
  if (!oxp_jit_list_mutated(l) && k->ninputs > 0 && k->ninputs <= 64) {
    oxp_operand ops[64];
    bool ok = true;
    for (int i = 0; i < k->ninputs && ok; i++) ok = oxp_operand_of(k->inputs[i], &ops[i]);
    int dt = ok ? oxp_result_type(ops, k->ninputs) : 0;
    if (dt) e.dtype = dt;
  }
  if (stack) {
    int a = kd && e.rank >= 0 ? norm_axis(d, e.rank + 1) : -1;
    set_rank(out, e.rank >= 0 ? e.rank + 1 : -1);
    out->dtype = e.dtype;
    if (a < 0) return true;
    bool exact = !oxp_jit_list_mutated(l);
    for (int j = 0, r = 0; j < out->rank; j++) {
      if (j == a) out->d[j] = exact ? k->ninputs : -1;
      else out->d[j] = e.d[r], out->p[j] = e.p[r], r++;
    }
    return true;
  }
  *out = e;
  int a = kd ? norm_axis(d, e.rank) : -1;
  if (a < 0) {
    if (e.rank > 0) for (int j = 0; j < e.rank; j++) out->d[j] = -1, out->p[j] = NULL;
    return true;
  }
  int64_t sum = oxp_jit_list_mutated(l) ? -1 : 0;
  for (int i = 0; i < k->ninputs && sum >= 0; i++) {
    oxp_shape s;
    oxp_shape_of(k->inputs[i], &s);
    sum = s.rank == e.rank ? dim_add(sum, s.d[a]) : -1;
  }
  out->d[a] = sum, out->p[a] = NULL;
  return true;
}

/* ---- creation ------------------------------------------------------------ */

/* zeros/ones/empty/rand/randn(size, dtype, layout, device, pin) and
 * full(size, value, dtype, ...): the default float unless told */
static bool r_factory(const oxp_node *n, oxp_shape *out) {
  bool full = oxp_kind_is(n, "aten::full");
  int at = full ? 2 : 1;
  if (n->ninputs < at + 4) return false;
  int dt = dtype_arg(n, at);
  if (!dt && full) {
    const oxp_type *t = n->inputs[1]->type;
    dt = !t ? -1 : t->kind == OXP_T_INT ? OXP_DT_INT64 : t->kind == OXP_T_BOOL ? OXP_DT_BOOL
         : t->kind == OXP_T_FLOAT ? OXP_DT_FLOAT : -1;
  }
  if (!dt) dt = OXP_DT_FLOAT;
  int64_t v[OXP_MAX_SHAPE_RANK];
  int c = sizes(n, 0, v, OXP_MAX_SHAPE_RANK);
  set_rank(out, c);
  for (int j = 0; j < c; j++) out->d[j] = v[j];
  out->dtype = dt < 0 ? 0 : dt;
  return true;
}

/* zeros_like(x, dtype, ...) / full_like(x, value, dtype, ...) / rand_like */
static bool r_like(const oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  in(n, 0, &x);
  int dt = dtype_arg(n, oxp_kind_is(n, "aten::full_like") ? 2 : 1);
  shape_like(out, &x, dt < 0 ? 0 : dt ? dt : x.dtype);
  return true;
}

/* new_zeros(x, size, dtype, ...) / new_full(x, size, value, dtype, ...) */
static bool r_new(const oxp_node *n, oxp_shape *out) {
  int dt = dtype_arg(n, oxp_kind_is(n, "aten::new_full") ? 3 : 2);
  int64_t v[OXP_MAX_SHAPE_RANK];
  int c = sizes(n, 1, v, OXP_MAX_SHAPE_RANK);
  set_rank(out, c);
  for (int j = 0; j < c; j++) out->d[j] = v[j];
  out->dtype = dt < 0 ? 0 : dt ? dt : in_dt(n, 0);
  return true;
}

/* arange(end | start, end | start, end, step; dtype, layout, device, pin) */
static bool r_arange(const oxp_node *n, oxp_shape *out) {
  int nums = n->ninputs - 4;
  if (nums < 1 || nums > 3) return false;
  int dt = dtype_arg(n, nums);
  if (!dt) {
    dt = OXP_DT_INT64;
    for (int i = 0; i < nums; i++) {
      const oxp_type *t = n->inputs[i]->type;
      if (!t || (t->kind != OXP_T_INT && t->kind != OXP_T_FLOAT)) dt = -1;
      else if (t->kind == OXP_T_FLOAT && dt > 0) dt = OXP_DT_FLOAT;
    }
  }
  set_rank(out, 1);
  out->dtype = dt < 0 ? 0 : dt;
  return true;
}

/* linspace/logspace(start, end, steps, [base,] dtype, ...) */
static bool r_space(const oxp_node *n, oxp_shape *out) {
  int at = oxp_kind_is(n, "aten::logspace") ? 4 : 3;
  int dt = dtype_arg(n, at);
  int64_t steps;
  set_rank(out, 1);
  if (cint(n, 2, &steps)) out->d[0] = steps;
  out->dtype = dt < 0 ? 0 : dt ? dt : OXP_DT_FLOAT;
  return true;
}

/* tensor(data, dtype, device, requires_grad) / as_tensor(data, dtype, device) */
static bool r_tensor(const oxp_node *n, oxp_shape *out) {
  int dt = dtype_arg(n, 1);
  const oxp_type *t = n->inputs[0]->type;
  int rank = 0;
  while (t && t->kind == OXP_T_LIST) t = t->elem, rank++;
  if (!dt && t)
    dt = t->kind == OXP_T_INT ? OXP_DT_INT64 : t->kind == OXP_T_FLOAT ? OXP_DT_FLOAT
         : t->kind == OXP_T_BOOL ? OXP_DT_BOOL : t->kind == OXP_T_TENSOR && t->dtype ? t->dtype
         : -1;
  oxp_shape_unknown(out, dt < 0 ? 0 : dt);
  if (t && t->kind != OXP_T_TENSOR) set_rank(out, rank);
  const oxp_node *k = n->inputs[0]->producer;
  if (rank == 1 && k && oxp_kind_is(k, "prim::ListConstruct")) out->d[0] = k->ninputs;
  out->dtype = dt < 0 ? 0 : dt;
  return true;
}

static bool r_scalar_tensor(const oxp_node *n, oxp_shape *out) {
  int dt = dtype_arg(n, 1);
  set_rank(out, 0);
  out->dtype = dt < 0 ? 0 : dt ? dt : OXP_DT_FLOAT;
  return true;
}

/* NumToTensor: int -> int64, float -> double, bool -> bool, 0-d */
static bool r_num_to_tensor(const oxp_node *n, oxp_shape *out) {
  const oxp_type *t = n->inputs[0]->type;
  set_rank(out, 0);
  out->dtype = !t ? 0 : t->kind == OXP_T_INT ? OXP_DT_INT64 : t->kind == OXP_T_FLOAT
               ? OXP_DT_DOUBLE : t->kind == OXP_T_BOOL ? OXP_DT_BOOL
               : t->kind == OXP_T_TENSOR ? t->dtype : 0;
  return true;
}

/* ---- recurrent layers ----------------------------------------------------- */

/* lstm(x, hx[], params[], has_biases, layers, dropout, train, bidir,
 * batch_first) -> (out, h, c); gru / rnn_* -> (out, h). x's dtype, rank 3. */
static bool r_rnn(const oxp_node *n, oxp_shape *out) {
  int dt = in_dt(n, 0);
  for (int i = 0; i < n->noutputs; i++) {
    set_rank(&out[i], 3);
    out[i].dtype = dt;
  }
  return true;
}

/* ---- the table --------------------------------------------------------------- */

static const struct {
  const char *op;
  rule_fn fn;
} RULES[] = {
#define SAME(op) {"aten::" op, r_same}
    SAME("relu"), SAME("neg"), SAME("abs"), SAME("clone"), SAME("contiguous"),
    SAME("detach"), SAME("dropout"), SAME("feature_dropout"), SAME("alpha_dropout"),
    SAME("feature_alpha_dropout"), SAME("hardtanh"), SAME("relu6"), SAME("leaky_relu"),
    SAME("threshold"), SAME("batch_norm"), SAME("layer_norm"), SAME("group_norm"),
    SAME("instance_norm"), SAME("floor"), SAME("ceil"), SAME("round"), SAME("trunc"),
    SAME("sign"), SAME("tril"), SAME("triu"), SAME("flip"), SAME("roll"), SAME("alias"),
    SAME("lift"), SAME("fill"), SAME("zero"), SAME("bitwise_not"), SAME("square"),
    SAME("hardshrink"), SAME("softshrink"), SAME("prelu"), SAME("frac"), SAME("elu"),
    SAME("selu"), SAME("celu"), SAME("gelu"), SAME("silu"), SAME("mish"),
    SAME("hardswish"), SAME("hardsigmoid"), SAME("softplus"), SAME("nan_to_num"),
    SAME("channel_shuffle"), SAME("native_channel_shuffle"), SAME("dropout_"),
    SAME("slice_scatter"), SAME("select_scatter"), SAME("diagonal_scatter"),
    SAME("index_put"), SAME("scatter"), SAME("scatter_add"), SAME("masked_scatter"),
    SAME("index_fill"), SAME("index_copy"), SAME("index_add"), SAME("scatter_reduce"),
    SAME("local_response_norm"), SAME("renorm"),
    SAME("_transformer_encoder_layer_fwd"),
#undef SAME
#define FLT(op) {"aten::" op, r_float}
    FLT("sigmoid"), FLT("tanh"), FLT("exp"), FLT("exp2"), FLT("expm1"), FLT("log"),
    FLT("log2"), FLT("log10"), FLT("log1p"), FLT("sqrt"), FLT("rsqrt"), FLT("sin"),
    FLT("cos"), FLT("tan"), FLT("asin"), FLT("acos"), FLT("atan"), FLT("sinh"),
    FLT("cosh"), FLT("asinh"), FLT("acosh"), FLT("atanh"), FLT("erf"), FLT("erfc"),
    FLT("reciprocal"), FLT("logit"), FLT("softsign"), FLT("log_sigmoid"),
#undef FLT
    {"aten::isnan", r_bool1}, {"aten::isinf", r_bool1}, {"aten::isfinite", r_bool1},
    {"aten::logical_not", r_bool1},
#define BIN(op) {"aten::" op, r_binary}
    BIN("add"), BIN("sub"), BIN("mul"), BIN("rsub"), BIN("remainder"), BIN("fmod"),
    BIN("maximum"), BIN("minimum"), BIN("pow"), BIN("floor_divide"), BIN("bitwise_and"),
    BIN("bitwise_or"), BIN("bitwise_xor"), BIN("__and__"), BIN("__or__"), BIN("__xor__"),
    BIN("fmax"), BIN("fmin"),
#undef BIN
    {"aten::atan2", r_binary_float}, {"aten::div", r_div}, {"aten::true_divide", r_div},
#define CMP(op) {"aten::" op, r_compare}
    CMP("eq"), CMP("ne"), CMP("lt"), CMP("gt"), CMP("le"), CMP("ge"),
    CMP("logical_and"), CMP("logical_or"), CMP("logical_xor"), CMP("greater"),
    CMP("less"), CMP("greater_equal"), CMP("less_equal"), CMP("not_equal"),
#undef CMP
    {"aten::_native_multi_head_attention", r_native_mha},
    {"aten::where", r_where}, {"aten::masked_fill", r_masked_fill},
    {"aten::clamp", r_clamp}, {"aten::clip", r_clamp},
    {"aten::clamp_min", r_clamp}, {"aten::clamp_max", r_clamp},
    {"aten::sum", r_sum}, {"aten::prod", r_sum}, {"aten::mean", r_sum},
    {"aten::nansum", r_sum},
    {"aten::amax", r_reduce}, {"aten::amin", r_reduce}, {"aten::logsumexp", r_reduce},
    {"aten::std", r_reduce}, {"aten::var", r_reduce},
    {"aten::norm", r_norm}, {"aten::linalg_vector_norm", r_norm},
    {"aten::max", r_minmax}, {"aten::min", r_minmax},
    {"aten::argmax", r_arg}, {"aten::argmin", r_arg},
    {"aten::all", r_bool_reduce}, {"aten::any", r_bool_reduce},
    {"aten::softmax", r_dim_dtype}, {"aten::log_softmax", r_dim_dtype},
    {"aten::cumsum", r_dim_dtype}, {"aten::cumprod", r_dim_dtype},
    {"aten::to", r_to}, {"aten::type_as", r_type_as},
    {"aten::linear", r_linear}, {"aten::matmul", r_matmul}, {"aten::mm", r_mm},
    {"aten::bmm", r_mm}, {"aten::addmm", r_mm}, {"aten::baddbmm", r_mm},
    {"aten::conv1d", r_conv}, {"aten::conv2d", r_conv}, {"aten::conv3d", r_conv},
    {"aten::_convolution", r_conv}, {"aten::conv_transpose1d", r_conv},
    {"aten::conv_transpose2d", r_conv}, {"aten::conv_transpose3d", r_conv},
    {"aten::max_pool1d", r_pool}, {"aten::max_pool2d", r_pool},
    {"aten::max_pool3d", r_pool}, {"aten::avg_pool1d", r_pool},
    {"aten::avg_pool2d", r_pool}, {"aten::avg_pool3d", r_pool},
    {"aten::adaptive_avg_pool1d", r_adaptive}, {"aten::adaptive_avg_pool2d", r_adaptive},
    {"aten::adaptive_avg_pool3d", r_adaptive}, {"aten::adaptive_max_pool1d", r_adaptive},
    {"aten::adaptive_max_pool2d", r_adaptive}, {"aten::adaptive_max_pool3d", r_adaptive},
    {"aten::view", r_view}, {"aten::reshape", r_view}, {"aten::flatten", r_flatten},
    {"aten::permute", r_permute}, {"aten::transpose", r_transpose}, {"aten::t", r_transpose},
    {"aten::unsqueeze", r_unsqueeze}, {"aten::squeeze", r_squeeze},
    {"aten::select", r_select}, {"aten::slice", r_slice}, {"aten::narrow", r_narrow},
    {"aten::expand", r_expand}, {"aten::expand_as", r_expand_as},
    {"aten::diagonal", r_diagonal}, {"aten::movedim", r_keep_rank},
    {"aten::moveaxis", r_keep_rank},
    {"aten::view_as", r_expand_as}, {"aten::reshape_as", r_expand_as},
    {"aten::repeat", r_dtype_only}, {"aten::pad", r_pad},
    {"aten::constant_pad_nd", r_pad}, {"aten::reflection_pad1d", r_pad},
    {"aten::reflection_pad2d", r_pad}, {"aten::replication_pad1d", r_pad},
    {"aten::replication_pad2d", r_pad}, {"aten::__interpolate", r_keep_rank},
    {"aten::upsample_nearest2d", r_keep_rank}, {"aten::upsample_bilinear2d", r_keep_rank},
    {"aten::pixel_shuffle", r_keep_rank}, {"aten::pixel_unshuffle", r_keep_rank},
    {"aten::index_select", r_keep_rank}, {"aten::gather", r_gather},
    {"aten::index", r_dtype_only}, {"aten::masked_select", r_dtype_only},
    {"aten::einsum", r_dtype_only}, {"aten::dot", r_dot}, {"aten::vdot", r_dot}, {"aten::embedding", r_embedding},
    {"aten::nonzero", r_nonzero}, {"aten::sort", r_values_indices},
    {"aten::topk", r_values_indices}, {"aten::kthvalue", r_values_indices},
    {"aten::argsort", r_i64_same},
    {"aten::__getitem__", r_getitem}, {"aten::cat", r_cat}, {"aten::stack", r_cat},
    {"aten::concat", r_cat},
    {"aten::zeros", r_factory}, {"aten::ones", r_factory}, {"aten::empty", r_factory},
    {"aten::rand", r_factory}, {"aten::randn", r_factory}, {"aten::full", r_factory},
    {"aten::zeros_like", r_like}, {"aten::ones_like", r_like}, {"aten::empty_like", r_like},
    {"aten::rand_like", r_like}, {"aten::randn_like", r_like}, {"aten::full_like", r_like},
    {"aten::new_zeros", r_new}, {"aten::new_ones", r_new}, {"aten::new_empty", r_new},
    {"aten::new_full", r_new},
    {"aten::arange", r_arange}, {"aten::linspace", r_space}, {"aten::logspace", r_space},
    {"aten::tensor", r_tensor}, {"aten::as_tensor", r_tensor},
    {"aten::scalar_tensor", r_scalar_tensor}, {"prim::NumToTensor", r_num_to_tensor},
    {"aten::lstm", r_rnn}, {"aten::gru", r_rnn}, {"aten::rnn_tanh", r_rnn},
    {"aten::rnn_relu", r_rnn},
};

oxp_status oxp_jit_type_rules_init(oxp_map *m, oxp_arena *a, oxp_diag *d) {
  oxp_map_init(m, a);
  for (size_t i = 0; i < sizeof RULES / sizeof *RULES; i++)
    if (!oxp_map_put(m, RULES[i].op, (void *)RULES[i].fn))
      return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  return OXP_OK;
}

bool oxp_jit_is_split(const oxp_node *k) {
  static const char *const ops[] = {"aten::split", "aten::chunk", "aten::unbind",
                                    "aten::split_with_sizes", "aten::unsafe_split",
                                    "aten::unsafe_split_with_sizes", "aten::unsafe_chunk",
                                    "aten::tensor_split"};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (oxp_kind_is(k, ops[i])) return k->ninputs > 0;
  return false;
}

bool oxp_jit_type_rule(const oxp_map *m, oxp_jit_rule_memo *memo,
                       const oxp_node *n, oxp_shape *out) {
  oxp_jit_rule_memo *e = &memo[((uintptr_t)n->kind >> 4) % OXP_JIT_RULE_MEMO];
  if (e->kind != n->kind) e->kind = n->kind, e->rule = oxp_map_get(m, n->kind);
  rule_fn fn = (rule_fn)e->rule;
  if (!fn || n->ninputs < 1 || n->noutputs < 1 || n->noutputs > 4) return false;
  for (int i = 0; i < n->noutputs; i++) oxp_shape_unknown(&out[i], 0);
  return fn(n, out);
}
