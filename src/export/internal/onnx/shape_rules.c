/* shape_rules.c: one shape/type rule per ONNX op, in one table that
 * shape_infer.c drives. A rule never fails for lack of knowledge (it
 * leaves dims or the rank unknown); it fails only on a real error, such
 * as shapes that cannot broadcast. */
#include <string.h>

#include "shape_rules.h"

/* ---- elementwise --------------------------------------------------------- */

oxp_status oxp_r_same(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  IN(0, &out[0]);
  for (int i = 1; i < n->noutputs; i++) out[i] = out[0];
  int64_t v[MAXR];
  const char *p[MAXR];
  bool r0;
  int k = oxp_si_ints(c, n, 0, v, p, &r0);
  if (k >= 0 && oxp_kind_is(n, "onnx::Identity")) oxp_si_set_data(c, n, 0, k, v, p, r0);
  return OXP_OK;
}

/* Abs keeps shape data: expand's target shape is Abs(list) (-1 keeps a
 * dim as 1 does), and a named dim, a size, is its own Abs. */
static oxp_status r_abs(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  IN(0, &out[0]);
  int64_t v[MAXR];
  const char *p[MAXR];
  bool r0;
  int k = oxp_si_ints(c, n, 0, v, p, &r0);
  if (k < 0 || !oxp_dtype_is_int(out[0].dtype)) return OXP_OK;
  for (int i = 0; i < k; i++)
    if (!p[i] && v[i] != OXP_SYM_UNKNOWN && v[i] < 0) v[i] = -v[i];
  oxp_si_set_data(c, n, 0, k, v, p, r0);
  return OXP_OK;
}

static oxp_status r_bool_same(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  IN(0, &out[0]);
  out[0].dtype = OXP_DT_BOOL;
  return OXP_OK;
}

static oxp_status r_cast(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  IN(0, &out[0]);
  out[0].dtype = (int)attr_i(n, "to", 0);
  int64_t v[MAXR];
  const char *p[MAXR];
  bool r0;
  int k = oxp_si_ints(c, n, 0, v, p, &r0);
  if (k >= 0 && oxp_dtype_is_int(out[0].dtype)) oxp_si_set_data(c, n, 0, k, v, p, r0);
  return OXP_OK;
}

static oxp_status r_castlike(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape t;
  IN(0, &out[0]);
  IN(1, &t);
  out[0].dtype = t.dtype;
  return OXP_OK;
}

/* Symbolic arithmetic on shape data, so Mul(Gather(Shape), 4) is known. */
static void arith_data(oxp_sictx *c, oxp_node *n) {
  int64_t a[MAXR], b[MAXR], r[MAXR];
  const char *pa[MAXR], *pb[MAXR], *pr[MAXR];
  bool a0, b0;
  int ka = oxp_si_ints(c, n, 0, a, pa, &a0), kb = oxp_si_ints(c, n, 1, b, pb, &b0);
  if (ka < 0 || kb < 0 || (ka != kb && ka != 1 && kb != 1)) return;
  const char *op = oxp_pass_onnx_op(n);
  int k = ka > kb ? ka : kb;
  for (int i = 0; i < k; i++) {
    int ia = ka == 1 ? 0 : i, ib = kb == 1 ? 0 : i;
    int64_t x = a[ia], y = b[ib];
    const char *px = pa[ia], *py = pb[ib];
    pr[i] = NULL;
    r[i] = OXP_SYM_UNKNOWN;
    bool kx = !px && x != OXP_SYM_UNKNOWN, ky = !py && y != OXP_SYM_UNKNOWN;
    if (kx && ky) {
      /* Sizes from the IR can be any int64: an overflow stays unknown. */
      int64_t v;
      bool over = true, div_ok = y != 0 && !(y == -1 && x == INT64_MIN);
      if (!strcmp(op, "Add")) over = __builtin_add_overflow(x, y, &v);
      else if (!strcmp(op, "Sub")) over = __builtin_sub_overflow(x, y, &v);
      else if (!strcmp(op, "Mul")) over = __builtin_mul_overflow(x, y, &v);
      else if (!strcmp(op, "Div") && div_ok) over = false, v = x / y;
      else if (!strcmp(op, "Max")) over = false, v = x > y ? x : y;
      else if (!strcmp(op, "Min")) over = false, v = x < y ? x : y;
      else if (!strcmp(op, "Mod") && div_ok) {
        /* fmod=0 (ints): the result takes the divisor's sign, as in
         * Python; fmod=1: the dividend's, as C's %. */
        over = false, v = x % y;
        if (!attr_i(n, "fmod", 0) && v != 0 && (v < 0) != (y < 0)) v += y;
      }
      if (!over) r[i] = v;
    } else if (!strcmp(op, "Mul") && ky && y == 1) r[i] = x, pr[i] = px;
    else if (!strcmp(op, "Mul") && kx && x == 1) r[i] = y, pr[i] = py;
    else if ((!strcmp(op, "Add") || !strcmp(op, "Sub")) && ky && y == 0) r[i] = x, pr[i] = px;
    else if (!strcmp(op, "Div") && ky && y == 1) r[i] = x, pr[i] = px;
  }
  oxp_si_set_data(c, n, 0, k, r, pr, a0 && b0);
}

/* Add, Mul, Where, comparisons...: all inputs broadcast together. */
static oxp_status bcast_all(oxp_sictx *c, oxp_node *n, oxp_shape *out,
                            int from) {
  IN(from, &out[0]);
  for (int i = from + 1; i < n->ninputs; i++) {
    oxp_shape b, r;
    IN(i, &b);
    if (!oxp_broadcast(&out[0], &b, &r))
      return oxp_broadcast_fail(oxp_si_diag(c), n, &out[0], &b);
    out[0] = r;
  }
  return OXP_OK;
}

oxp_status oxp_r_arith(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_status st = bcast_all(c, n, out, 0);
  if (!st && n->ninputs == 2) arith_data(c, n);
  return st;
}

static oxp_status r_compare(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_status st = bcast_all(c, n, out, 0);
  out[0].dtype = OXP_DT_BOOL;
  return st;
}

static oxp_status r_where(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  oxp_status st = bcast_all(c, n, out, 0);
  IN(1, &x);
  out[0].dtype = x.dtype;
  return st;
}

/* ---- linear algebra ------------------------------------------------------ */

static oxp_status r_matmul(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape a, b;
  IN(0, &a);
  IN(1, &b);
  oxp_shape_unknown(&out[0], a.dtype);
  if (a.rank < 1 || b.rank < 1) return OXP_OK;
  oxp_shape ba = a, bb = b, batch;
  ba.rank = a.rank >= 2 ? a.rank - 2 : 0;
  bb.rank = b.rank >= 2 ? b.rank - 2 : 0;
  if (!oxp_broadcast(&ba, &bb, &batch)) return oxp_broadcast_fail(oxp_si_diag(c), n, &a, &b);
  int r = batch.rank;
  if (r + 2 > MAXR) return OXP_OK;
  out[0] = batch;
  out[0].dtype = a.dtype;
  if (a.rank >= 2) copy_dim(&out[0], r++, &a, a.rank - 2);
  if (b.rank >= 2) copy_dim(&out[0], r++, &b, b.rank - 1);
  out[0].rank = r;
  /* The contracted dims must agree when both are static. */
  int64_t ka = a.p[a.rank - 1] ? -1 : a.d[a.rank - 1];
  int kb_i = b.rank >= 2 ? b.rank - 2 : 0;
  int64_t kb = b.p[kb_i] ? -1 : b.d[kb_i];
  if (ka >= 0 && kb >= 0 && ka != kb) {
    char sa[128], sb[128];
    oxp_shape_print(&a, sa, sizeof sa);
    oxp_shape_print(&b, sb, sizeof sb);
    return oxp_fail(oxp_si_diag(c), OXP_ERR_GRAPH, &n->loc, n->kind,
                    "MatMul: shapes %s and %s cannot be multiplied (%lld != %lld)",
                    sa, sb, (long long)ka, (long long)kb);
  }
  return OXP_OK;
}

/* MatMulInteger: MatMul's shape, int32 values. */
static oxp_status r_matmul_integer(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_status st = r_matmul(c, n, out);
  out[0].dtype = OXP_DT_INT32;
  return st;
}

static oxp_status r_gemm(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape a, b;
  IN(0, &a);
  IN(1, &b);
  unknown_dims(&out[0], a.dtype, 2);
  if (a.rank == 2) copy_dim(&out[0], 0, &a, attr_i(n, "transA", 0) ? 1 : 0);
  if (b.rank == 2) copy_dim(&out[0], 1, &b, attr_i(n, "transB", 0) ? 0 : 1);
  return OXP_OK;
}

/* ---- layout -------------------------------------------------------------- */

static oxp_status r_transpose(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  IN(0, &x);
  oxp_shape_unknown(&out[0], x.dtype);
  if (x.rank < 0) return OXP_OK;
  int64_t perm[MAXR];
  int k = attr_ints(n, "perm", perm);
  if (k < 0) {
    k = x.rank;
    for (int i = 0; i < k; i++) perm[i] = k - 1 - i;
  }
  if (k != x.rank) return OXP_OK;
  out[0].rank = k;
  for (int i = 0; i < k; i++) {
    if (perm[i] < 0 || perm[i] >= k) return oxp_shape_unknown(&out[0], x.dtype), OXP_OK;
    copy_dim(&out[0], i, &x, (int)perm[i]);
  }
  return OXP_OK;
}

/* -1 in a Reshape target: what is left of the input's size after the
 * other target dims, counting names like factors. */
static void infer_minus1(const oxp_shape *x, oxp_shape *o, int at) {
  const char *names[MAXR];
  int nn = 0;
  int64_t pin = 1, pout = 1;
  for (int i = 0; i < x->rank; i++) {
    if (x->p[i]) names[nn++] = x->p[i];
    else if (x->d[i] < 0) return;
    else if (__builtin_mul_overflow(pin, x->d[i], &pin)) return;
  }
  for (int i = 0; i < o->rank; i++) {
    if (i == at) continue;
    if (o->p[i]) {
      int j = 0;
      while (j < nn && strcmp(names[j], o->p[i]) != 0) j++;
      if (j == nn) return;
      names[j] = names[--nn];
    } else if (o->d[i] < 0) return;
    else if (__builtin_mul_overflow(pout, o->d[i], &pout)) return;
  }
  if (nn == 0 && pout > 0 && pin % pout == 0) set_dim(o, at, pin / pout, NULL);
  else if (nn == 1 && pin == pout) set_dim(o, at, -1, names[0]);
}

static oxp_status r_reshape(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x, s;
  IN(0, &x);
  IN(1, &s);
  int64_t v[MAXR];
  const char *p[MAXR];
  int k = oxp_si_ints(c, n, 1, v, p, NULL);
  oxp_shape_unknown(&out[0], x.dtype);
  if (k < 0) {
    if (s.rank == 1 && s.d[0] >= 0 && s.d[0] <= MAXR) unknown_dims(&out[0], x.dtype, (int)s.d[0]);
    return OXP_OK;
  }
  bool allowzero = attr_i(n, "allowzero", 0) != 0;
  int minus1 = -1;
  unknown_dims(&out[0], x.dtype, k);
  for (int i = 0; i < k; i++) {
    if (p[i]) set_dim(&out[0], i, -1, p[i]);
    else if (v[i] == 0 && !allowzero) {
      if (i < x.rank) copy_dim(&out[0], i, &x, i);
    } else if (v[i] == -1) minus1 = i;
    else if (v[i] >= 0) set_dim(&out[0], i, v[i], NULL);
  }
  if (minus1 >= 0 && x.rank >= 0) infer_minus1(&x, &out[0], minus1);
  return OXP_OK;
}

static oxp_status r_flatten(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  IN(0, &x);
  unknown_dims(&out[0], x.dtype, 2);
  if (x.rank < 0) return OXP_OK;
  int64_t axis = attr_i(n, "axis", 1);
  if (axis < 0) axis += x.rank;
  if (axis < 0 || axis > x.rank) return OXP_OK;
  product(&x, 0, (int)axis, &out[0].d[0], &out[0].p[0]);
  product(&x, (int)axis, x.rank, &out[0].d[1], &out[0].p[1]);
  return OXP_OK;
}

static void concat_data(oxp_sictx *c, oxp_node *n) {
  int64_t v[MAXR], part[MAXR];
  const char *p[MAXR], *pp[MAXR];
  int total = 0;
  for (int i = 0; i < n->ninputs; i++) {
    int k = oxp_si_ints(c, n, i, part, pp, NULL);
    if (k < 0) {
      /* A piece of known length whose values are unknown still keeps the
       * other pieces' dims known: Reshape reads them element by element. */
      oxp_shape s;
      IN(i, &s);
      if (s.rank != 1 || s.p[0] || s.d[0] < 0 || s.d[0] > MAXR) return;
      k = (int)s.d[0];
      for (int j = 0; j < k; j++) part[j] = OXP_SYM_UNKNOWN, pp[j] = NULL;
    }
    if (total + k > MAXR) return;
    memcpy(v + total, part, sizeof(int64_t) * (size_t)k);
    memcpy(p + total, pp, sizeof(char *) * (size_t)k);
    total += k;
  }
  oxp_si_set_data(c, n, 0, total, v, p, false);
}

static oxp_status r_concat(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape first;
  IN(0, &first);
  oxp_shape_unknown(&out[0], first.dtype);
  int rank = -1;
  for (int i = 0; i < n->ninputs && rank < 0; i++) {
    oxp_shape s;
    IN(i, &s);
    rank = s.rank;
  }
  if (rank < 0) return OXP_OK;
  int64_t axis = attr_i(n, "axis", 0);
  if (!norm_axis(&axis, rank)) return OXP_OK;
  unknown_dims(&out[0], first.dtype, rank);
  int64_t sum = 0;
  for (int i = 0; i < n->ninputs; i++) {
    oxp_shape s;
    IN(i, &s);
    if (s.rank != rank) {
      sum = -1;
      continue;
    }
    for (int k = 0; k < rank; k++) {
      if (k == axis) continue;
      if (out[0].d[k] < 0 && !out[0].p[k]) copy_dim(&out[0], k, &s, k);
      else if (s.d[k] >= 0 && out[0].d[k] < 0) copy_dim(&out[0], k, &s, k);
    }
    if (sum >= 0 && s.d[axis] >= 0 && !s.p[axis]) sum = dadd(sum, s.d[axis]);
    else sum = -1;
    if (sum == DIM_OVER) sum = -1;
  }
  set_dim(&out[0], (int)axis, sum, NULL);
  if (axis == 0 && rank == 1) concat_data(c, n);
  return OXP_OK;
}

static oxp_status r_squeeze(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  IN(0, &x);
  oxp_shape_unknown(&out[0], x.dtype);
  if (x.rank < 0) return OXP_OK;
  int64_t axes[MAXR];
  int k = axes_of(c, n, 1, axes);
  bool drop[MAXR] = {0};
  if (k < 0 && n->ninputs > 1 && n->inputs[1]) return OXP_OK; /* runtime axes */
  if (k <= 0) {
    for (int i = 0; i < x.rank; i++) {
      if (x.p[i] || x.d[i] < 0) return OXP_OK;
      drop[i] = x.d[i] == 1;
    }
  }
  for (int i = 0; i < k; i++) {
    if (!norm_axis(&axes[i], x.rank)) return OXP_OK;
    drop[axes[i]] = true;
  }
  out[0].rank = 0;
  for (int i = 0; i < x.rank; i++)
    if (!drop[i]) copy_dim(&out[0], out[0].rank++, &x, i);
  int64_t v[MAXR];
  const char *p[MAXR];
  if (oxp_si_ints(c, n, 0, v, p, NULL) == 1 && x.rank == 1 && out[0].rank == 0)
    oxp_si_set_data(c, n, 0, 1, v, p, true);
  return OXP_OK;
}

static oxp_status r_unsqueeze(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  IN(0, &x);
  oxp_shape_unknown(&out[0], x.dtype);
  int64_t axes[MAXR];
  int k = axes_of(c, n, 1, axes);
  if (x.rank < 0 || k < 0 || x.rank + k > MAXR) return OXP_OK;
  int r = x.rank + k;
  bool ins[MAXR] = {0};
  for (int i = 0; i < k; i++) {
    if (!norm_axis(&axes[i], r)) return OXP_OK;
    ins[axes[i]] = true;
  }
  out[0].rank = r;
  for (int i = 0, j = 0; i < r; i++) {
    if (ins[i]) set_dim(&out[0], i, 1, NULL);
    else copy_dim(&out[0], i, &x, j++);
  }
  int64_t v[MAXR];
  const char *p[MAXR];
  bool r0;
  if (oxp_si_ints(c, n, 0, v, p, &r0) == 1 && r0 && r == 1)
    oxp_si_set_data(c, n, 0, 1, v, p, false);
  return OXP_OK;
}

/* Length of x[start:end:step] along a dim of size dim (ONNX clamping). */
static int64_t slice_len(int64_t dim, int64_t s, int64_t e, int64_t step) {
  if (s < 0) s += dim;
  if (e < 0) e += dim;
  /* Once clamped, e - s is at most dim + 1: only the step can be huge. */
  if (step > 0) {
    s = s < 0 ? 0 : s > dim ? dim : s;
    e = e < 0 ? 0 : e > dim ? dim : e;
    return e > s ? (e - s - 1) / step + 1 : 0;
  }
  s = s < 0 ? -1 : s > dim - 1 ? dim - 1 : s;
  e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
  /* -INT64_MIN does not exist; INT64_MAX divides as 2^63 would here. */
  int64_t q = step == INT64_MIN ? INT64_MAX : -step;
  return s > e ? (s - e - 1) / q + 1 : 0;
}

static oxp_status r_slice(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  IN(0, &x);
  oxp_shape_unknown(&out[0], x.dtype);
  if (x.rank < 0) return OXP_OK;
  int64_t st[MAXR], en[MAXR], ax[MAXR], sp[MAXR];
  int k, ke, ka, ks;
  if (oxp_si_opset(c) < 10) {
    k = attr_ints(n, "starts", st);
    ke = attr_ints(n, "ends", en);
    ka = attr_ints(n, "axes", ax);
    ks = -1;
  } else {
    k = input_ints(c, n, 1, st);
    ke = input_ints(c, n, 2, en);
    ka = n->ninputs > 3 && n->inputs[3] ? input_ints(c, n, 3, ax) : -2;
    ks = n->ninputs > 4 && n->inputs[4] ? input_ints(c, n, 4, sp) : -2;
    if (ka == -1 || ks == -1) k = -1;
  }
  /* Bounds known only at run time along constant axes: the other dims stay
   * (a roll along a dynamic axis slices this way). */
  if ((k < 0 || ke < 0) && ka > 0 && (ks < 0 || ks == ka)) {
    out[0] = x;
    for (int i = 0; i < ka; i++) {
      if (!norm_axis(&ax[i], x.rank)) return oxp_shape_unknown(&out[0], x.dtype), OXP_OK;
      set_dim(&out[0], (int)ax[i], -1, NULL);
    }
    return OXP_OK;
  }
  if (ka < 0)
    for (int i = 0; i < k; i++) ax[i] = i;
  if (ks < 0)
    for (int i = 0; i < k; i++) sp[i] = 1;
  out[0] = x;
  if (k < 0 || ke != k || (ka >= 0 && ka != k) || (ks >= 0 && ks != k)) {
    unknown_dims(&out[0], x.dtype, x.rank);
    return OXP_OK;
  }
  for (int i = 0; i < k; i++) {
    if (!norm_axis(&ax[i], x.rank) || sp[i] == 0) return oxp_shape_unknown(&out[0], x.dtype), OXP_OK;
    int a = (int)ax[i];
    bool full = st[i] == 0 && en[i] >= INT_MAX && sp[i] == 1;
    if (x.d[a] >= 0) set_dim(&out[0], a, slice_len(x.d[a], st[i], en[i], sp[i]), NULL);
    else if (!full) set_dim(&out[0], a, -1, NULL);
  }
  /* Slicing shape data along its only axis (flatten lowers this way). */
  int64_t v[MAXR], r[MAXR];
  const char *p[MAXR], *pr[MAXR];
  int m = oxp_si_ints(c, n, 0, v, p, NULL);
  if (m >= 0 && x.rank == 1 && k == 1) {
    int64_t s = st[0], e = en[0];
    if (s < 0) s += m;
    if (e < 0) e += m;
    s = s < 0 ? 0 : s > m ? m : s;
    e = e < 0 ? 0 : e > m ? m : e;
    int cnt = 0;
    for (int64_t i = s; sp[0] > 0 && i < e; i = e - i > sp[0] ? i + sp[0] : e)
      r[cnt] = v[i], pr[cnt++] = p[i];
    if (sp[0] > 0) oxp_si_set_data(c, n, 0, cnt, r, pr, false);
  }
  return OXP_OK;
}

static oxp_status r_gather(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x, idx;
  IN(0, &x);
  IN(1, &idx);
  oxp_shape_unknown(&out[0], x.dtype);
  int64_t axis = attr_i(n, "axis", 0);
  if (x.rank < 0 || idx.rank < 0 || !norm_axis(&axis, x.rank) ||
      x.rank - 1 + idx.rank > MAXR)
    return OXP_OK;
  int r = 0;
  for (int i = 0; i < axis; i++) copy_dim(&out[0], r++, &x, i);
  for (int i = 0; i < idx.rank; i++) copy_dim(&out[0], r++, &idx, i);
  for (int i = (int)axis + 1; i < x.rank; i++) copy_dim(&out[0], r++, &x, i);
  out[0].rank = r;
  int64_t v[MAXR], iv[MAXR], res[MAXR];
  const char *p[MAXR], *pr[MAXR];
  bool i0;
  int m = oxp_si_ints(c, n, 0, v, p, NULL);
  int k = input_ints(c, n, 1, iv);
  oxp_si_ints(c, n, 1, iv, NULL, &i0);
  if (m < 0 || k < 0 || x.rank != 1) return OXP_OK;
  for (int i = 0; i < k; i++) {
    int64_t j = iv[i] < 0 ? iv[i] + m : iv[i];
    if (j < 0 || j >= m) return OXP_OK;
    res[i] = v[j];
    pr[i] = p[j];
  }
  oxp_si_set_data(c, n, 0, k, res, pr, i0);
  return OXP_OK;
}

static oxp_status r_shape(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  IN(0, &x);
  unknown_dims(&out[0], OXP_DT_INT64, 1);
  if (x.rank < 0) return OXP_OK;
  int64_t s = attr_i(n, "start", 0), e = attr_i(n, "end", x.rank);
  if (s < 0) s += x.rank;
  if (e < 0) e += x.rank;
  s = s < 0 ? 0 : s > x.rank ? x.rank : s;
  e = e < s ? s : e > x.rank ? x.rank : e;
  set_dim(&out[0], 0, e - s, NULL);
  int64_t v[MAXR];
  for (int64_t i = s; i < e; i++)
    v[i - s] = x.p[i] || x.d[i] < 0 ? OXP_SYM_UNKNOWN : x.d[i];
  oxp_si_set_data(c, n, 0, (int)(e - s), v, x.p + s, false);
  return OXP_OK;
}

static oxp_status r_size(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  IN(0, &x);
  unknown_dims(&out[0], OXP_DT_INT64, 0);
  int64_t d;
  const char *p;
  if (x.rank < 0) return OXP_OK;
  product(&x, 0, x.rank, &d, &p);
  int64_t v = d >= 0 ? d : OXP_SYM_UNKNOWN;
  oxp_si_set_data(c, n, 0, 1, &v, &p, true);
  return OXP_OK;
}

static oxp_status r_expand(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x, t;
  IN(0, &x);
  int64_t v[MAXR];
  const char *p[MAXR];
  int k = oxp_si_ints(c, n, 1, v, p, NULL);
  oxp_shape_unknown(&out[0], x.dtype);
  if (k < 0) {
    oxp_shape s;
    IN(1, &s);
    if (s.rank == 1 && s.d[0] >= 0 && x.rank >= 0 && s.d[0] <= MAXR)
      unknown_dims(&out[0], x.dtype, (int)(s.d[0] > x.rank ? s.d[0] : x.rank));
    return OXP_OK;
  }
  unknown_dims(&t, x.dtype, k);
  for (int i = 0; i < k; i++)
    if (p[i] || v[i] != OXP_SYM_UNKNOWN) set_dim(&t, i, v[i], p[i]);
  if (!oxp_broadcast(&x, &t, &out[0])) return oxp_broadcast_fail(oxp_si_diag(c), n, &x, &t);
  return OXP_OK;
}

static oxp_status r_tile(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  IN(0, &x);
  int64_t v[MAXR];
  int k = input_ints(c, n, 1, v);
  out[0] = x;
  if (x.rank < 0) return OXP_OK;
  for (int i = 0; i < x.rank; i++) {
    if (k != x.rank) set_dim(&out[0], i, -1, NULL);
    else if (v[i] != 1) {
      int64_t d;
      bool ok = x.d[i] >= 0 && v[i] >= 0 && !__builtin_mul_overflow(x.d[i], v[i], &d);
      set_dim(&out[0], i, ok ? d : -1, NULL);
    }
  }
  return OXP_OK;
}

static oxp_status r_const_of_shape(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  const oxp_attr *a = oxp_attr_get(n, "value");
  int dt = a && a->kind == OXP_A_TENSOR && a->t ? a->t->dtype : OXP_DT_FLOAT;
  int64_t v[MAXR];
  const char *p[MAXR];
  int k = oxp_si_ints(c, n, 0, v, p, NULL);
  oxp_shape_unknown(&out[0], dt);
  if (k < 0) return OXP_OK;
  unknown_dims(&out[0], dt, k);
  for (int i = 0; i < k; i++)
    if (p[i] || v[i] != OXP_SYM_UNKNOWN) set_dim(&out[0], i, v[i], p[i]);
  return OXP_OK;
}

static oxp_status r_constant(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  const oxp_attr *a = n->attrs;
  if (!a) return OXP_OK;
  if (a->kind == OXP_A_TENSOR && a->t) {
    const oxp_tensor *t = a->t;
    unknown_dims(&out[0], t->dtype, t->rank);
    for (int i = 0; i < t->rank && i < MAXR; i++) out[0].d[i] = t->dims[i];
    int64_t m = oxp_tensor_numel(t), v[MAXR];
    if (t->data && oxp_dtype_is_int(t->dtype) && t->rank <= 1 && m <= MAXR) {
      for (int64_t i = 0; i < m; i++) v[i] = oxp_tensor_get_i(t, i);
      oxp_si_set_data(c, n, 0, (int)m, v, NULL, t->rank == 0);
    }
  } else if (a->kind == OXP_A_INT || a->kind == OXP_A_FLOAT) {
    unknown_dims(&out[0], a->kind == OXP_A_INT ? OXP_DT_INT64 : OXP_DT_FLOAT, 0);
  } else if (a->kind == OXP_A_INTS || a->kind == OXP_A_FLOATS) {
    unknown_dims(&out[0], a->kind == OXP_A_INTS ? OXP_DT_INT64 : OXP_DT_FLOAT, 1);
    out[0].d[0] = a->n;
  }
  return OXP_OK;
}

static oxp_status r_range(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape s;
  IN(0, &s);
  unknown_dims(&out[0], s.dtype, 1);
  int64_t a, b, d;
  if (input_int1(c, n, 0, &a) && input_int1(c, n, 1, &b) &&
      input_int1(c, n, 2, &d) && d != 0) {
    int64_t nd = dsub(0, d);
    int64_t len = d > 0 ? ddiv(dsub(dadd(dsub(b, a), d), 1), d)
                        : ddiv(dsub(dadd(dsub(a, b), nd), 1), nd);
    out[0].d[0] = len == DIM_OVER ? -1 : len > 0 ? len : 0;
  }
  return OXP_OK;
}

static oxp_status r_nonzero(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  IN(0, &x);
  unknown_dims(&out[0], OXP_DT_INT64, 2);
  out[0].d[0] = x.rank;
  return OXP_OK;
}

/* Unique: Y, indices, inverse_indices, counts. Only the inverse has a
 * known length: one entry per element (per slice along axis). */
static oxp_status r_unique(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  IN(0, &x);
  const oxp_attr *ax = oxp_attr_get(n, "axis");
  if (ax && x.rank >= 0) unknown_dims(&out[0], x.dtype, x.rank);
  else unknown_dims(&out[0], x.dtype, ax ? -1 : 1);
  for (int i = 1; i < n->noutputs && i < 4; i++) unknown_dims(&out[i], OXP_DT_INT64, 1);
  if (n->noutputs < 3 || x.rank < 0) return OXP_OK;
  int64_t a = ax ? ax->i : 0;
  if (ax && !norm_axis(&a, x.rank)) return OXP_OK;
  if (ax) copy_dim(&out[2], 0, &x, (int)a);
  else product(&x, 0, x.rank, &out[2].d[0], &out[2].p[0]);
  return OXP_OK;
}

/* ---- reductions ------------------------------------------------------------ */

static oxp_status reduce_like(oxp_sictx *c, oxp_node *n, oxp_shape *out,
                              int input_from) {
  oxp_shape x;
  IN(0, &x);
  oxp_shape_unknown(&out[0], x.dtype);
  if (x.rank < 0) return OXP_OK;
  bool keep = attr_i(n, "keepdims", 1) != 0;
  int64_t axes[MAXR];
  int k = attr_ints(n, "axes", axes);
  if (k < 0 && oxp_si_opset(c) >= input_from && n->ninputs > 1 && n->inputs[1]) {
    k = input_ints(c, n, 1, axes);
    if (k < 0) {
      if (keep) unknown_dims(&out[0], x.dtype, x.rank);
      return OXP_OK;
    }
  }
  bool red[MAXR] = {0};
  if (k <= 0) {
    if (attr_i(n, "noop_with_empty_axes", 0)) return out[0] = x, OXP_OK;
    for (int i = 0; i < x.rank; i++) red[i] = true;
  }
  for (int i = 0; i < k; i++) {
    if (!norm_axis(&axes[i], x.rank)) return OXP_OK;
    red[axes[i]] = true;
  }
  out[0].rank = 0;
  for (int i = 0; i < x.rank; i++) {
    if (!red[i]) copy_dim(&out[0], out[0].rank++, &x, i);
    else if (keep) set_dim(&out[0], out[0].rank++, 1, NULL);
  }
  return OXP_OK;
}

static oxp_status r_reduce(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  return reduce_like(c, n, out, 18);
}

static oxp_status r_reduce_sum(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  return reduce_like(c, n, out, 13);
}

static oxp_status r_argmax(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  IN(0, &x);
  oxp_shape_unknown(&out[0], OXP_DT_INT64);
  int64_t axis = attr_i(n, "axis", 0);
  if (x.rank < 0 || !norm_axis(&axis, x.rank)) return OXP_OK;
  bool keep = attr_i(n, "keepdims", 1) != 0;
  out[0].rank = 0;
  for (int i = 0; i < x.rank; i++) {
    if (i != axis) copy_dim(&out[0], out[0].rank++, &x, i);
    else if (keep) set_dim(&out[0], out[0].rank++, 1, NULL);
  }
  return OXP_OK;
}

/* ---- convolution and pooling ------------------------------------------------ */

/* Spatial output dims of Conv/MaxPool/AveragePool from input x. */
static void spatial(const oxp_node *n, const oxp_shape *x, const int64_t *kern,
                    int k, bool ceil_mode, bool drop_last, oxp_shape *o) {
  int64_t strides[MAXR], pads[2 * MAXR], dil[MAXR];
  if (attr_ints(n, "strides", strides) != k)
    for (int i = 0; i < k; i++) strides[i] = 1;
  for (int i = 0; i < k; i++)
    if (strides[i] <= 0) {
      /* A malformed graph; the output size is undefined. */
      unknown_dims(o, x->dtype, x->rank);
      return;
    }
  if (attr_ints(n, "dilations", dil) != k)
    for (int i = 0; i < k; i++) dil[i] = 1;
  const oxp_attr *ap = oxp_attr_get(n, "pads");
  for (int i = 0; i < 2 * k; i++)
    pads[i] = ap && ap->kind == OXP_A_INTS && ap->n == 2 * k ? ap->ints[i] : 0;
  const oxp_attr *au = oxp_attr_get(n, "auto_pad");
  bool same = au && au->kind == OXP_A_STR && strncmp(au->s, "SAME", 4) == 0;
  bool valid = au && au->kind == OXP_A_STR && strcmp(au->s, "VALID") == 0;
  for (int i = 0; i < k; i++) {
    int a = i + 2;
    int64_t in = x->d[a], eff = dadd(dmul(dil[i], dsub(kern[i], 1)), 1);
    int64_t pad = dadd(pads[i], pads[k + i]);
    if (in < 0) {
      bool ident = eff == 1 && strides[i] == 1 && pad == 0;
      set_dim(o, a, -1, ident || (same && strides[i] == 1) ? x->p[a] : NULL);
      continue;
    }
    int64_t r;
    if (same) r = ddiv(dsub(dadd(in, strides[i]), 1), strides[i]);
    else {
      int64_t span = dsub(dadd(in, valid ? 0 : pad), eff);
      if (span == DIM_OVER) r = DIM_OVER;
      /* a window wider than the (padded) input: none fits, but in ceil
       * mode one that starts at 0 still counts while span > -stride
       * (torch and ONNX: width 2, kernel 3, stride 2 gives 1) */
      else if (span < 0 && !(ceil_mode && span + strides[i] - 1 >= 0)) r = 0;
      else r = dadd(ceil_mode ? ddiv(dsub(dadd(span, strides[i]), 1), strides[i])
                              : ddiv(span, strides[i]), 1);
      /* ceil mode from opset 19: the last window must start inside the
       * input or its begin padding (before 19 ONNX keeps it) */
      int64_t last = dmul(dsub(r, 1), strides[i]), end = dadd(in, pads[i]);
      if (ceil_mode && drop_last && r != DIM_OVER && last != DIM_OVER && end != DIM_OVER &&
          last >= end)
        r--;
    }
    set_dim_or_unknown(o, a, r);
  }
}

static oxp_status r_conv(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x, w;
  IN(0, &x);
  IN(1, &w);
  oxp_shape_unknown(&out[0], x.dtype);
  int r = x.rank >= 0 ? x.rank : w.rank;
  if (r < 3) return OXP_OK;
  int k = r - 2;
  unknown_dims(&out[0], x.dtype, r);
  if (x.rank == r) copy_dim(&out[0], 0, &x, 0);
  if (w.rank == r) copy_dim(&out[0], 1, &w, 0);
  int64_t kern[MAXR];
  if (attr_ints(n, "kernel_shape", kern) != k) {
    if (w.rank != r) return OXP_OK;
    for (int i = 0; i < k; i++) {
      if (w.d[i + 2] < 0) return OXP_OK;
      kern[i] = w.d[i + 2];
    }
  }
  if (x.rank == r) spatial(n, &x, kern, k, false, false, &out[0]);
  return OXP_OK;
}

static oxp_status r_conv_transpose(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x, w;
  IN(0, &x);
  IN(1, &w);
  oxp_shape_unknown(&out[0], x.dtype);
  if (x.rank < 3) return OXP_OK;
  int k = x.rank - 2;
  unknown_dims(&out[0], x.dtype, x.rank);
  copy_dim(&out[0], 0, &x, 0);
  int64_t group = attr_i(n, "group", 1);
  if (w.rank == x.rank && w.d[1] >= 0) set_dim_or_unknown(&out[0], 1, dmul(w.d[1], group));
  int64_t kern[MAXR], strides[MAXR], dil[MAXR], opad[MAXR], oshape[MAXR],
      pads[2 * MAXR];
  if (attr_ints(n, "output_shape", oshape) == k) {
    for (int i = 0; i < k; i++) set_dim(&out[0], i + 2, oshape[i], NULL);
    return OXP_OK;
  }
  if (attr_ints(n, "kernel_shape", kern) != k) {
    if (w.rank != x.rank) return OXP_OK;
    for (int i = 0; i < k; i++) kern[i] = w.d[i + 2];
  }
  if (attr_ints(n, "strides", strides) != k)
    for (int i = 0; i < k; i++) strides[i] = 1;
  if (attr_ints(n, "dilations", dil) != k)
    for (int i = 0; i < k; i++) dil[i] = 1;
  if (attr_ints(n, "output_padding", opad) != k)
    for (int i = 0; i < k; i++) opad[i] = 0;
  const oxp_attr *ap = oxp_attr_get(n, "pads");
  for (int i = 0; i < 2 * k; i++)
    pads[i] = ap && ap->kind == OXP_A_INTS && ap->n == 2 * k ? ap->ints[i] : 0;
  for (int i = 0; i < k; i++) {
    int64_t in = x.d[i + 2];
    if (in < 0 || kern[i] < 0) continue;
    int64_t d = dadd(dmul(strides[i], in - 1), opad[i]);
    d = dadd(d, dadd(dmul(dsub(kern[i], 1), dil[i]), 1));
    set_dim_or_unknown(&out[0], i + 2, dsub(dsub(d, pads[i]), pads[k + i]));
  }
  return OXP_OK;
}

static oxp_status r_pool(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape x;
  IN(0, &x);
  oxp_shape_unknown(&out[0], x.dtype);
  int64_t kern[MAXR];
  int k = attr_ints(n, "kernel_shape", kern);
  if (x.rank < 3 || k != x.rank - 2) return OXP_OK;
  out[0] = x;
  spatial(n, &x, kern, k, attr_i(n, "ceil_mode", 0) != 0, oxp_si_opset(c) >= 19, &out[0]);
  if (n->noutputs > 1) out[1] = out[0], out[1].dtype = OXP_DT_INT64;
  return OXP_OK;
}

static oxp_status r_global_pool(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  IN(0, &out[0]);
  for (int i = 2; i < out[0].rank; i++) set_dim(&out[0], i, 1, NULL);
  return OXP_OK;
}

/* ---- normalization ---------------------------------------------------------- */

static oxp_status r_batch_norm(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  IN(0, &out[0]);
  for (int i = 1; i < n->noutputs; i++) IN(3, &out[i]);
  return OXP_OK;
}

static oxp_status r_layer_norm(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  IN(0, &out[0]);
  int64_t axis = attr_i(n, "axis", -1);
  for (int i = 1; i < n->noutputs; i++) {
    out[i] = out[0];
    out[i].dtype = attr_i(n, "stash_type", 1) == 1 ? OXP_DT_FLOAT : out[0].dtype;
    if (out[0].rank >= 0 && norm_axis(&axis, out[0].rank))
      for (int k = (int)axis; k < out[0].rank; k++) set_dim(&out[i], k, 1, NULL);
  }
  return OXP_OK;
}

static oxp_status r_dropout(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  IN(0, &out[0]);
  if (n->noutputs > 1) out[1] = out[0], out[1].dtype = OXP_DT_BOOL;
  return OXP_OK;
}

/* ---- quantization ------------------------------------------------------------ */

/* QuantizeLinear: input 0's shape in the zero point's type (uint8 when
 * absent); DequantizeLinear: input 0's shape in the scale's type. */
static oxp_status r_quantize(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape zp;
  IN(0, &out[0]);
  if (n->ninputs > 2 && n->inputs[2]) {
    IN(2, &zp);
    out[0].dtype = zp.dtype;
  } else {
    out[0].dtype = OXP_DT_UINT8;
  }
  return OXP_OK;
}

static oxp_status r_dequantize(oxp_sictx *c, oxp_node *n, oxp_shape *out) {
  oxp_shape sc;
  IN(0, &out[0]);
  IN(1, &sc);
  out[0].dtype = sc.dtype;
  return OXP_OK;
}

/* ---- the table ----------------------------------------------------------------- */

const oxp_shape_rule_entry oxp_shape_rules[] = {
    /* same shape and dtype as input 0 */
    {"Identity", oxp_r_same}, {"Relu", oxp_r_same}, {"Sigmoid", oxp_r_same},
    {"Tanh", oxp_r_same}, {"Erf", oxp_r_same}, {"Neg", oxp_r_same}, {"Sqrt", oxp_r_same},
    {"Abs", r_abs}, {"Exp", oxp_r_same}, {"Log", oxp_r_same}, {"Floor", oxp_r_same},
    {"Ceil", oxp_r_same}, {"Round", oxp_r_same}, {"Sign", oxp_r_same},
    {"Reciprocal", oxp_r_same}, {"Softplus", oxp_r_same}, {"LeakyRelu", oxp_r_same},
    {"Elu", oxp_r_same}, {"Selu", oxp_r_same}, {"Celu", oxp_r_same},
    {"HardSigmoid", oxp_r_same}, {"HardSwish", oxp_r_same}, {"Gelu", oxp_r_same},
    {"Sin", oxp_r_same}, {"Cos", oxp_r_same}, {"Softmax", oxp_r_same},
    {"LogSoftmax", oxp_r_same}, {"Hardmax", oxp_r_same}, {"Clip", oxp_r_same},
    {"Trilu", oxp_r_same}, {"CumSum", oxp_r_same}, {"Mish", oxp_r_same},
    {"Not", r_bool_same}, {"IsNaN", r_bool_same}, {"IsInf", r_bool_same},
    {"Cast", r_cast}, {"CastLike", r_castlike},
    /* broadcasting */
    {"Add", oxp_r_arith}, {"Sub", oxp_r_arith}, {"Mul", oxp_r_arith}, {"Div", oxp_r_arith},
    {"Pow", oxp_r_arith}, {"Mod", oxp_r_arith}, {"Max", oxp_r_arith}, {"Min", oxp_r_arith},
    {"Sum", oxp_r_arith}, {"Mean", oxp_r_arith}, {"PRelu", oxp_r_arith},
    {"BitShift", oxp_r_arith},
    {"Equal", r_compare}, {"Less", r_compare}, {"Greater", r_compare},
    {"LessOrEqual", r_compare}, {"GreaterOrEqual", r_compare},
    {"And", r_compare}, {"Or", r_compare}, {"Xor", r_compare},
    {"Where", r_where},
    /* linear algebra, layout, indexing */
    {"MatMul", r_matmul}, {"MatMulInteger", r_matmul_integer}, {"Gemm", r_gemm}, {"Transpose", r_transpose},
    {"Reshape", r_reshape}, {"Flatten", r_flatten}, {"Concat", r_concat},
    {"Squeeze", r_squeeze}, {"Unsqueeze", r_unsqueeze}, {"Slice", r_slice},
    {"Gather", r_gather}, {"Shape", r_shape}, {"Size", r_size},
    {"Expand", r_expand}, {"Tile", r_tile},
    {"ConstantOfShape", r_const_of_shape}, {"Constant", r_constant},
    {"Range", r_range}, {"NonZero", r_nonzero}, {"Unique", r_unique},
    /* reductions */
    {"ReduceMean", r_reduce}, {"ReduceMax", r_reduce}, {"ReduceMin", r_reduce},
    {"ReduceProd", r_reduce}, {"ReduceL1", r_reduce}, {"ReduceL2", r_reduce},
    {"ReduceLogSum", r_reduce}, {"ReduceLogSumExp", r_reduce},
    {"ReduceSumSquare", r_reduce}, {"ReduceSum", r_reduce_sum},
    {"ArgMax", r_argmax}, {"ArgMin", r_argmax},
    /* convolution, pooling, normalization */
    {"Conv", r_conv}, {"ConvTranspose", r_conv_transpose},
    {"MaxPool", r_pool}, {"AveragePool", r_pool}, {"LpPool", r_pool},
    {"GlobalAveragePool", r_global_pool}, {"GlobalMaxPool", r_global_pool},
    {"BatchNormalization", r_batch_norm},
    {"InstanceNormalization", oxp_r_same},
    {"LayerNormalization", r_layer_norm}, {"Dropout", r_dropout},
    {"QuantizeLinear", r_quantize}, {"DequantizeLinear", r_dequantize},
};
const int oxp_nshape_rules = sizeof oxp_shape_rules / sizeof oxp_shape_rules[0];
