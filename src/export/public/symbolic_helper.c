/* symbolic_helper.c: register_custom_op_symbolic over the core registry
 * (custom.c), and the symbolic helpers a C callback needs, each one call
 * into sym.h. The graph context is the core's oxp_sctx. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

#define C(x) ((oxp_sctx *)(void *)(x))
#define N(x) ((oxp_node *)(void *)(x))
#define V(x) ((oxp_value *)(void *)(x))
#define PV(x) ((onnxexp_value *)(void *)(x))

/* A public callback and its user pointer, as the core registry's user
 * pointer. Bindings are interned and never freed: an export that looked
 * one up may still be calling it when another thread unregisters, and
 * there is one per distinct (fn, user) pair, so the set stays small. */
typedef struct binding {
  struct binding *next;
  onnxexp_symbolic_fn fn;
  void *user;
} binding;

static pthread_mutex_t bindings_lock = PTHREAD_MUTEX_INITIALIZER;
static binding *bindings;

static binding *intern(onnxexp_symbolic_fn fn, void *user) {
  pthread_mutex_lock(&bindings_lock);
  binding *b = bindings;
  while (b && !(b->fn == fn && b->user == user)) b = b->next;
  if (!b && (b = oxp_mem_alloc(sizeof *b))) {
    b->fn = fn;
    b->user = user;
    b->next = bindings;
    bindings = b;
  }
  pthread_mutex_unlock(&bindings_lock);
  return b;
}

static oxp_status trampoline(oxp_sctx *c, oxp_node *n, void *user) {
  const binding *b = user;
  onnxexp_status st = b->fn((onnxexp_graph_context *)(void *)c,
                            (const onnxexp_node *)(void *)n, b->user);
  if (st == ONNXEXP_OK) return OXP_OK;
  if ((unsigned)st > ONNXEXP_ERR_INTERNAL) st = ONNXEXP_ERR_INTERNAL;
  /* Records only when the callback did not say why itself. */
  return oxp_sym_fail(c, (oxp_status)st, "the custom symbolic for %s failed (%s)",
                      n->kind, onnxexp_status_string(st));
}

/* torch's _verify_custom_op_name: domain::name, word characters, and not
 * the onnx domain. "::name" means aten. out gets the full name. */
static onnxexp_status op_name(const char *op, char *out, size_t n, const char *fn,
                              oxp_diag *d) {
  if (!op) return oxp_shim_null(d, fn, "op");
  int w = strncmp(op, "::", 2) == 0 ? snprintf(out, n, "aten%s", op)
                                    : snprintf(out, n, "%s", op);
  const char *sep = strstr(out, "::");
  bool ok = w > 0 && (size_t)w < n && sep && sep > out;
  for (const char *p = out; ok && *p; p++) {
    bool word = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                (*p >= '0' && *p <= '9') || *p == '_' || *p == '-';
    if (p == sep || p == sep + 1) continue;
    ok = word && !(p == sep + 2 && *p >= '0' && *p <= '9');
  }
  ok = ok && sep[2] && !strstr(sep + 2, "::");
  if (!ok)
    return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, op,
                                    "%s: '%s' must be 'domain::name' of letters, "
                                    "digits, '_' and '-' (name starting with no "
                                    "digit)", fn, op);
  if (sep - out == 4 && strncmp(out, "onnx", 4) == 0)
    return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, op,
                                    "%s: the onnx domain cannot be modified (%s)", fn, op);
  return ONNXEXP_OK;
}

static onnxexp_status check_opset(int opset, const char *fn, oxp_diag *d) {
  if (opset >= 1 && opset <= OXP_OPSET_MAX) return ONNXEXP_OK;
  return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                                  "%s: opset %d is outside 1..%d", fn, opset,
                                  OXP_OPSET_MAX);
}

onnxexp_status onnxexp_register_custom_op_symbolic(const char *op, onnxexp_symbolic_fn fn,
                                                   void *user, int opset,
                                                   onnxexp_diag *diag) {
  oxp_diag scratch, *d = oxp_shim_diag(diag, &scratch);
  const char *f = "onnxexp_register_custom_op_symbolic";
  char name[256];
  onnxexp_status s = op_name(op, name, sizeof name, f, d);
  if (!s && !fn) s = oxp_shim_null(d, f, "fn");
  if (!s) s = check_opset(opset, f, d);
  if (s) return s;
  binding *b = intern(fn, user);
  if (!b) return (onnxexp_status)oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  return (onnxexp_status)oxp_custom_register(name, opset, trampoline, b, d);
}

onnxexp_status onnxexp_unregister_custom_op_symbolic(const char *op, int opset,
                                                     onnxexp_diag *diag) {
  oxp_diag scratch, *d = oxp_shim_diag(diag, &scratch);
  const char *f = "onnxexp_unregister_custom_op_symbolic";
  char name[256];
  onnxexp_status s = op_name(op, name, sizeof name, f, d);
  if (!s) s = check_opset(opset, f, d);
  if (s) return s;
  if (!oxp_custom_unregister(name, opset))
    return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, name,
                                    "%s: no custom symbolic is registered for %s "
                                    "at opset %d", f, name, opset);
  return ONNXEXP_OK;
}

/* ---- context ----------------------------------------------------------- */

int onnxexp_g_opset(const onnxexp_graph_context *ctx) {
  return ctx ? oxp_sym_opset(C(ctx)) : 0;
}

onnxexp_status onnxexp_g_fail(onnxexp_graph_context *ctx, onnxexp_status st,
                              const char *message) {
  if (!ctx) return ONNXEXP_ERR_USAGE;
  if (st == ONNXEXP_OK || (unsigned)st > ONNXEXP_ERR_INTERNAL) st = ONNXEXP_ERR_GRAPH;
  return (onnxexp_status)oxp_sym_fail(C(ctx), (oxp_status)st, "%s",
                                      message ? message : "custom symbolic failed");
}

/* A NULL context cannot record anything; a NULL node or out can. */
#define CHECK(ctx, node, out)                                               \
  do {                                                                      \
    if (!(ctx)) return ONNXEXP_ERR_USAGE;                                   \
    if (!(node) || !(out))                                                  \
      return (onnxexp_status)oxp_sym_fail(C(ctx), OXP_ERR_USAGE, "%s: %s",  \
                                          __func__, "NULL argument");       \
  } while (0)

static onnxexp_status not_const(onnxexp_graph_context *ctx, const onnxexp_node *node,
                                int i, const char *what) {
  return (onnxexp_status)oxp_sym_fail(C(ctx), OXP_ERR_GRAPH,
                                      "%s: input %d must be a constant %s",
                                      N(node)->kind, i, what);
}

int onnxexp_g_is_none(const onnxexp_node *node, int i) {
  return node && oxp_sym_is_none(N(node), i);
}

int onnxexp_g_is_constant(const onnxexp_node *node, int i) {
  return node && i >= 0 && i < N(node)->ninputs && oxp_sym_is_const(N(node), i);
}

onnxexp_status onnxexp_g_const_int(onnxexp_graph_context *ctx, const onnxexp_node *node,
                                   int i, int64_t *out) {
  CHECK(ctx, node, out);
  return oxp_sym_int(N(node), i, out) ? ONNXEXP_OK : not_const(ctx, node, i, "int");
}

onnxexp_status onnxexp_g_const_float(onnxexp_graph_context *ctx,
                                     const onnxexp_node *node, int i, double *out) {
  CHECK(ctx, node, out);
  return oxp_sym_float(N(node), i, out) ? ONNXEXP_OK : not_const(ctx, node, i, "float");
}

onnxexp_status onnxexp_g_const_bool(onnxexp_graph_context *ctx, const onnxexp_node *node,
                                    int i, int *out) {
  CHECK(ctx, node, out);
  bool b;
  if (!oxp_sym_bool(N(node), i, &b)) return not_const(ctx, node, i, "bool");
  *out = b;
  return ONNXEXP_OK;
}

onnxexp_status onnxexp_g_const_string(onnxexp_graph_context *ctx,
                                      const onnxexp_node *node, int i,
                                      const char **out) {
  CHECK(ctx, node, out);
  return oxp_sym_str(N(node), i, out) ? ONNXEXP_OK : not_const(ctx, node, i, "string");
}

onnxexp_status onnxexp_g_const_ints(onnxexp_graph_context *ctx, const onnxexp_node *node,
                                    int i, const int64_t **v, int *cnt) {
  CHECK(ctx, node, v);
  if (!cnt) return oxp_shim_null(NULL, __func__, "cnt");
  int64_t *p;
  if (!oxp_sym_ints(C(ctx), N(node), i, &p, cnt)) return not_const(ctx, node, i, "int[]");
  *v = p;
  return ONNXEXP_OK;
}

onnxexp_status onnxexp_g_const_floats(onnxexp_graph_context *ctx,
                                      const onnxexp_node *node, int i,
                                      const double **v, int *cnt) {
  CHECK(ctx, node, v);
  if (!cnt) return oxp_shim_null(NULL, __func__, "cnt");
  double *p;
  if (!oxp_sym_floats(C(ctx), N(node), i, &p, cnt))
    return not_const(ctx, node, i, "float[]");
  *v = p;
  return ONNXEXP_OK;
}

onnxexp_status onnxexp_g_input(onnxexp_graph_context *ctx, const onnxexp_node *node,
                               int i, onnxexp_value **out) {
  CHECK(ctx, node, out);
  oxp_value *v = oxp_sym_in(C(ctx), N(node), i);
  *out = PV(v);
  return v ? ONNXEXP_OK : (onnxexp_status)oxp_sym_status(C(ctx));
}

/* ---- values ---------------------------------------------------------------- */

static const oxp_type *tensor_type(const onnxexp_value *v) {
  const oxp_type *t = v ? V(v)->type : NULL;
  if (t && t->kind == OXP_T_OPTIONAL) t = t->elem;
  return t && t->kind == OXP_T_TENSOR ? t : NULL;
}

onnxexp_dtype onnxexp_value_dtype(const onnxexp_value *v) {
  const oxp_type *t = tensor_type(v);
  return t ? (onnxexp_dtype)t->dtype : ONNXEXP_DT_UNDEFINED;
}

int onnxexp_value_rank(const onnxexp_value *v) {
  const oxp_type *t = tensor_type(v);
  return t ? t->rank : -1;
}

int64_t onnxexp_value_dim(const onnxexp_value *v, int i) {
  const oxp_type *t = tensor_type(v);
  return t && i >= 0 && i < t->rank && t->dims ? t->dims[i] : -1;
}

/* ---- emitting ------------------------------------------------------------- */

onnxexp_status onnxexp_g_op(onnxexp_graph_context *ctx, const char *op,
                            onnxexp_value *const *inputs, int nin, int nout,
                            onnxexp_value **outputs, onnxexp_node **node) {
  if (node) *node = NULL;
  if (!ctx) return ONNXEXP_ERR_USAGE;
  if (!op || !*op || nin < 0 || nout < 0 || (nin && !inputs) || (nout && !outputs))
    return (onnxexp_status)oxp_sym_fail(C(ctx), OXP_ERR_USAGE,
                                        "onnxexp_g_op: needs an op name, nin inputs "
                                        "and room for nout outputs");
  oxp_node *n = oxp_sym_op(C(ctx), op, (oxp_value *const *)(const void *)inputs, nin, nout);
  if (!n) return (onnxexp_status)oxp_sym_status(C(ctx));
  for (int i = 0; i < nout; i++) outputs[i] = PV(n->outputs[i]);
  if (node) *node = (onnxexp_node *)(void *)n;
  return ONNXEXP_OK;
}

onnxexp_status onnxexp_g_set_output(onnxexp_graph_context *ctx, const onnxexp_node *node,
                                    int i, onnxexp_value *v) {
  CHECK(ctx, node, v);
  if (i < 0 || i >= N(node)->noutputs)
    return (onnxexp_status)oxp_sym_fail(C(ctx), OXP_ERR_USAGE,
                                        "onnxexp_g_set_output: %s has no output %d",
                                        N(node)->kind, i);
  return (onnxexp_status)oxp_sym_set_out(C(ctx), N(node), i, V(v));
}

onnxexp_status onnxexp_g_set_type(onnxexp_graph_context *ctx, onnxexp_value *v,
                                  onnxexp_dtype dtype, int rank, const int64_t *dims) {
  CHECK(ctx, v, v);
  oxp_diag scratch;
  oxp_diag_clear(&scratch);
  oxp_type *t = oxp_shim_type(oxp_sym_arena(C(ctx)), ONNXEXP_TYPE_TENSOR, dtype, rank,
                              dims, "onnxexp_g_set_type", &scratch);
  if (!t) return (onnxexp_status)oxp_sym_fail(C(ctx), scratch.status, "%s", scratch.message);
  V(v)->type = t;
  return ONNXEXP_OK;
}

static onnxexp_status result(onnxexp_graph_context *ctx, oxp_value *v,
                             onnxexp_value **out) {
  *out = PV(v);
  return v ? ONNXEXP_OK : (onnxexp_status)oxp_sym_status(C(ctx));
}

onnxexp_status onnxexp_g_cast(onnxexp_graph_context *ctx, onnxexp_value *v,
                              onnxexp_dtype dtype, onnxexp_value **out) {
  CHECK(ctx, v, out);
  if (!oxp_shim_dtype_ok(dtype) && dtype != ONNXEXP_DT_STRING)
    return (onnxexp_status)oxp_sym_fail(C(ctx), OXP_ERR_USAGE,
                                        "onnxexp_g_cast: dtype %d is not an element type",
                                        (int)dtype);
  return result(ctx, oxp_sym_cast(C(ctx), V(v), dtype), out);
}

onnxexp_status onnxexp_g_unsqueeze(onnxexp_graph_context *ctx, onnxexp_value *v,
                                   const int64_t *axes, int n, onnxexp_value **out) {
  CHECK(ctx, v, out);
  if (n <= 0 || !axes)
    return (onnxexp_status)oxp_sym_fail(C(ctx), OXP_ERR_USAGE,
                                        "onnxexp_g_unsqueeze: needs n > 0 axes");
  return result(ctx, oxp_sym_unsqueeze(C(ctx), V(v), axes, n), out);
}

onnxexp_status onnxexp_g_constant(onnxexp_graph_context *ctx, onnxexp_dtype dtype,
                                  int rank, const int64_t *dims, const void *data,
                                  size_t nbytes, onnxexp_value **out) {
  CHECK(ctx, ctx, out);
  *out = NULL;
  oxp_arena *a = oxp_sym_arena(C(ctx));
  uint64_t numel = 1;
  bool ok = oxp_shim_dtype_ok(dtype) && rank >= 0 && (rank == 0 || dims);
  for (int i = 0; ok && i < rank; i++) {
    ok = dims[i] >= 0;
    numel *= ok ? (uint64_t)dims[i] : 0;
  }
  if (!ok || numel * oxp_dtype_size(dtype) != nbytes || (nbytes && !data))
    return (onnxexp_status)oxp_sym_fail(C(ctx), OXP_ERR_USAGE,
                                        "onnxexp_g_constant: bad dtype, shape or "
                                        "byte count (%zu)", nbytes);
  oxp_tensor *t = oxp_tensor_alloc(a, dtype, rank, dims);
  if (!t) return (onnxexp_status)oxp_sym_fail(C(ctx), OXP_ERR_NOMEM, "out of memory");
  if (nbytes) memcpy((void *)t->data, data, nbytes);
  return result(ctx, oxp_sym_const(C(ctx), t), out);
}

onnxexp_status onnxexp_g_constant_ints(onnxexp_graph_context *ctx, const int64_t *v,
                                       int n, onnxexp_value **out) {
  CHECK(ctx, ctx, out);
  if (n < 0 || (n && !v))
    return (onnxexp_status)oxp_sym_fail(C(ctx), OXP_ERR_USAGE,
                                        "onnxexp_g_constant_ints: needs n >= 0 values");
  return result(ctx, oxp_sym_const_i64s(C(ctx), v, n), out);
}

onnxexp_status onnxexp_g_constant_scalar(onnxexp_graph_context *ctx, double v,
                                         onnxexp_dtype dtype, onnxexp_value **out) {
  CHECK(ctx, ctx, out);
  if (!oxp_shim_dtype_ok(dtype))
    return (onnxexp_status)oxp_sym_fail(C(ctx), OXP_ERR_USAGE,
                                        "onnxexp_g_constant_scalar: dtype %d is not "
                                        "a numeric element type", (int)dtype);
  return result(ctx, oxp_sym_const_scalar(C(ctx), v, dtype), out);
}
