/* s_control_scalar.c: the Python-level values scripted code computes
 * around its control flow: range bookkeeping (__range_length,
 * __derive_index), None tests (__is__, __isnot__), __not__, module
 * attributes (prim::GetAttr of a frozen module's parameters), casts the
 * type checker inserted (prim::unchecked_cast) and placeholders
 * (prim::Uninitialized, prim::RaiseException). Scalars are 0-d tensors:
 * int as int64, float as float, bool as bool. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ops.h"
#include "s_control.h"

static oxp_value *i64(oxp_sctx *c, oxp_node *n, int i) {
  return oxp_sym_in_as(c, n, i, OXP_DT_INT64);
}

static oxp_value *typed(oxp_sctx *c, oxp_value *v, int dtype) {
  oxp_sym_set_type(c, v, dtype, 0, NULL);
  return v;
}

/* max(v, 0) for int64 (Max takes integers only from opset 12). */
static oxp_value *clamp0(oxp_sctx *c, oxp_value *v) {
  oxp_value *zero = oxp_sym_const_i64(c, 0);
  oxp_value *neg = typed(c, oxp_sym_op2(c, "Less", v, zero), OXP_DT_BOOL);
  return typed(c, oxp_sym_op3(c, "Where", neg, zero, v), OXP_DT_INT64);
}

/* aten::__range_length(lo, hi, step): the trip count of range(lo, hi,
 * step), max(0, ceil((hi - lo) / step)). */
oxp_status oxp_s_range_length(oxp_sctx *c, oxp_node *n) {
  int64_t lo, hi, step;
  bool klo = oxp_sym_int(n, 0, &lo), khi = oxp_sym_int(n, 1, &hi);
  if (!oxp_sym_int(n, 2, &step)) {
    /* A run-time step: in floating point, as torch's own symbolic does. */
    oxp_value *d = oxp_sym_op2(c, "Sub", i64(c, n, 1), i64(c, n, 0));
    oxp_value *q = oxp_sym_op2(c, "Div", oxp_sym_cast(c, d, OXP_DT_DOUBLE),
                               oxp_sym_in_as(c, n, 2, OXP_DT_DOUBLE));
    oxp_value *r = oxp_sym_cast(c, oxp_sym_op1(c, "Ceil", q), OXP_DT_INT64);
    return oxp_sym_set_out(c, n, 0, r ? clamp0(c, r) : NULL);
  }
  if (step == 0) return oxp_sym_fail(c, OXP_ERR_GRAPH, "range() step is zero");
  if (klo && khi)
    return oxp_sym_set_out(c, n, 0, oxp_sym_const_i64(c, oxp_range_len(lo, hi, step)));
  /* |step| below must exist, and d + |step| - 1 must not wrap for any
   * real trip count. */
  if (step == INT64_MIN || step == INT64_MAX)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "range() with a run-time bound and step %" PRId64, step);
  /* ceil(d / s) for s > 0 is (d + s - 1) / s once d + s - 1 >= 0; a
   * negative step mirrors it. */
  int64_t s = step > 0 ? step : -step;
  oxp_value *d = step > 0 ? oxp_sym_op2(c, "Sub", i64(c, n, 1), i64(c, n, 0))
                          : oxp_sym_op2(c, "Sub", i64(c, n, 0), i64(c, n, 1));
  typed(c, d, OXP_DT_INT64);
  if (s != 1)
    d = typed(c, oxp_sym_op2(c, "Add", d, oxp_sym_const_i64(c, s - 1)),
              OXP_DT_INT64);
  d = d ? clamp0(c, d) : NULL;
  if (s != 1)
    d = typed(c, oxp_sym_op2(c, "Div", d, oxp_sym_const_i64(c, s)),
              OXP_DT_INT64);
  return oxp_sym_set_out(c, n, 0, d);
}

/* aten::__derive_index(index, start, step) = start + index * step */
oxp_status oxp_s_derive_index(oxp_sctx *c, oxp_node *n) {
  int64_t idx, start, step;
  if (oxp_sym_int(n, 0, &idx) && oxp_sym_int(n, 1, &start) &&
      oxp_sym_int(n, 2, &step))
    /* TorchScript ints wrap; in C only unsigned arithmetic may. */
    return oxp_sym_set_out(c, n, 0, oxp_sym_const_i64(c, (int64_t)((uint64_t)start +
                                                                   (uint64_t)idx * (uint64_t)step)));
  oxp_value *v = i64(c, n, 0);
  if (!oxp_sym_int(n, 2, &step) || step != 1)
    v = typed(c, oxp_sym_op2(c, "Mul", v, i64(c, n, 2)), OXP_DT_INT64);
  if (!oxp_sym_int(n, 1, &start) || start != 0)
    v = typed(c, oxp_sym_op2(c, "Add", i64(c, n, 1), v), OXP_DT_INT64);
  return oxp_sym_set_out(c, n, 0, v);
}

/* Is input i None for sure (-1 not None for sure, 0 unknown)? */
static int noneness(oxp_sctx *c, oxp_node *n, int i) {
  if (oxp_sym_is_none(n, i)) return 1;
  oxp_value *v = oxp_sym_src(n, i);
  const oxp_type *t = v->type;
  if (!t || t->kind != OXP_T_OPTIONAL) return -1;
  /* An Optional with a lowered value or a constant is that value: ONNX
   * graphs here never carry a run-time None. */
  if (oxp_lower_lookup(c, v) || oxp_lower_pack(c, v) || oxp_sym_is_const(n, i))
    return -1;
  return 0;
}

static oxp_status identity_test(oxp_sctx *c, oxp_node *n, bool negate) {
  int a = noneness(c, n, 0), b = noneness(c, n, 1);
  bool r;
  if (a == 1 && b == 1) r = true;
  else if ((a == 1 && b == -1) || (a == -1 && b == 1)) r = false;
  else if (n->inputs[0] == n->inputs[1]) r = true;
  else
    return oxp_sym_unsupported(c, "an identity test whose result is known "
                                  "only at run time");
  return oxp_sym_set_out(c, n, 0, oxp_sym_const_scalar(c, r != negate,
                                                       OXP_DT_BOOL));
}

oxp_status oxp_s_is(oxp_sctx *c, oxp_node *n) {
  return identity_test(c, n, false);
}

oxp_status oxp_s_isnot(oxp_sctx *c, oxp_node *n) {
  return identity_test(c, n, true);
}

/* aten::__not__(bool) */
oxp_status oxp_s_not(oxp_sctx *c, oxp_node *n) {
  bool b;
  if (oxp_sym_bool(n, 0, &b))
    return oxp_sym_set_out(c, n, 0, oxp_sym_const_scalar(c, !b, OXP_DT_BOOL));
  oxp_value *v = oxp_sym_in_as(c, n, 0, OXP_DT_BOOL);
  return oxp_sym_set_out(c, n, 0, typed(c, oxp_sym_op1(c, "Not", v),
                                        OXP_DT_BOOL));
}

/* Objects (the module, its submodules) have no ONNX value; an empty pack
 * marks them bound so their readers (prim::GetAttr) can run. */
static oxp_status bind_object(oxp_sctx *c, oxp_node *n) {
  for (int i = 0; i < n->noutputs; i++) {
    oxp_pack *p = oxp_alloc(oxp_sym_arena(c), sizeof *p);
    if (!p) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    oxp_lower_bind_pack(c, n->outputs[i], p);
  }
  return OXP_OK;
}

oxp_status oxp_s_create_object(oxp_sctx *c, oxp_node *n) {
  return bind_object(c, n);
}

/* prim::GetAttr[name=...](obj): a submodule, or a parameter the exporter
 * lifted to a graph input named by its dotted path ("fc.weight"). Frozen
 * scripted modules keep these chains inside loop bodies. */
oxp_status oxp_s_getattr(oxp_sctx *c, oxp_node *n) {
  const oxp_type *t = oxp_sym_out_type(n, 0);
  if (t && t->kind == OXP_T_OTHER) return bind_object(c, n);
  char path[512];
  size_t len = 0;
  const char *parts[32];
  int np = 0;
  for (oxp_node *k = n; k && oxp_kind_is(k, "prim::GetAttr") && np < 32;
       k = k->ninputs ? k->inputs[0]->producer : NULL) {
    oxp_attr *a = oxp_attr_get(k, "name");
    if (!a || a->kind != OXP_A_STR)
      return oxp_sym_fail(c, OXP_ERR_GRAPH, "prim::GetAttr without a name");
    parts[np++] = a->s;
  }
  path[0] = 0;
  for (int i = np - 1; i >= 0; i--) {
    int w = snprintf(path + len, sizeof path - len, "%s%s",
                     i == np - 1 ? "" : ".", parts[i]);
    if (w < 0 || (size_t)w >= sizeof path - len)
      return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "prim::GetAttr: path too long");
    len += (size_t)w;
  }
  oxp_block *top = c->src->top;
  for (int i = 0; i < top->ninputs; i++) {
    oxp_value *in = top->inputs[i];
    if (in->name && strcmp(in->name, path) == 0) {
      oxp_value *lv = oxp_lower_lookup(c, in);
      if (lv) return oxp_sym_set_out(c, n, 0, lv);
    }
  }
  return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                      "prim::GetAttr: module attribute '%s' is not a lifted "
                      "parameter (no graph input of that name)", path);
}

/* prim::unchecked_cast: the type checker's refinement (Optional[T] -> T). */
oxp_status oxp_s_unchecked_cast(oxp_sctx *c, oxp_node *n) {
  oxp_value *src = n->inputs[0];
  oxp_pack *p = oxp_lower_pack(c, src);
  if (p) {
    oxp_lower_bind_pack(c, n->outputs[0], p);
    return OXP_OK;
  }
  if (oxp_seq_is_list(src) && oxp_seq_bound(c, src)) {
    oxp_seq_rebind(c, n->outputs[0], oxp_seq_bound(c, src));
    return OXP_OK;
  }
  return oxp_sym_set_out(c, n, 0, oxp_sym_in(c, n, 0));
}

/* prim::Uninitialized: the value of a variable on a path that never reads
 * it. prim::If replaces it by a value of the other branch's type; any
 * other reader gets a zero of the declared scalar type. */
oxp_status oxp_s_uninitialized(oxp_sctx *c, oxp_node *n) {
  /* Only returned from a branch: prim::If puts the other branch's type
   * there, so an unknown dtype is no matter here. */
  if (!oxp_sym_out_dtype(n, 0, 0) && n->outputs[0]->nuses == 0) {
    oxp_pack *p = oxp_alloc(oxp_sym_arena(c), sizeof *p);
    if (!p) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    oxp_lower_bind_pack(c, n->outputs[0], p);
    return OXP_OK;
  }
  int dt = oxp_sym_need_out_dtype(c, n, 0);
  return oxp_sym_set_out(c, n, 0, oxp_sym_const_scalar(c, 0, dt));
}

/* prim::RaiseException: ONNX has no exceptions; the path that raises is
 * dropped, as the legacy exporter does (docs/ops-notes/control.txt). */
oxp_status oxp_s_raise(oxp_sctx *c, oxp_node *n) {
  (void)c;
  (void)n;
  return OXP_OK;
}
