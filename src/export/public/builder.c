/* builder.c: a TorchScript graph built in memory with the core's own IR
 * calls (oxp_graph_new, oxp_node_new, oxp_attr_set_*), so it reaches the
 * pipeline exactly as a parsed graph does. */
#include <stdio.h>
#include <string.h>

#include "shim.h"

#define G(x) ((oxp_graph *)(void *)(x))
#define B(x) ((oxp_block *)(void *)(x))
#define N(x) ((oxp_node *)(void *)(x))
#define V(x) ((oxp_value *)(void *)(x))

static onnxexp_status nomem(oxp_diag *d) {
  return (onnxexp_status)oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
}

static onnxexp_status usage(oxp_diag *d, const char *fn, const char *what) {
  return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, NULL, "%s: %s", fn, what);
}

#define BEGIN(fn)                                         \
  oxp_diag scratch, *d = oxp_shim_diag(diag, &scratch);   \
  const char *fname = fn

bool oxp_shim_dtype_ok(int dt) {
  return dt > 0 && dt <= ONNXEXP_DT_BFLOAT16 && dt != OXP_DT_STRING &&
         oxp_dtype_size(dt) > 0;
}

static bool dims_ok(int rank, const int64_t *dims, bool allow_unknown) {
  if (rank < (allow_unknown ? -1 : 0) || rank > OXP_MAX_TYPE_RANK) return false;
  if (rank > 0 && !dims) return false;
  for (int i = 0; i < rank; i++)
    if (dims[i] < (allow_unknown ? -1 : 0)) return false;
  return true;
}

oxp_type *oxp_shim_type(oxp_arena *a, onnxexp_type_kind kind, onnxexp_dtype dtype,
                        int rank, const int64_t *dims, const char *fn, oxp_diag *d) {
  oxp_kind k;
  switch (kind) {
  case ONNXEXP_TYPE_TENSOR:
  case ONNXEXP_TYPE_OPTIONAL_TENSOR: {
    if (dtype != ONNXEXP_DT_UNDEFINED && !oxp_shim_dtype_ok(dtype)) {
      usage(d, fn, "dtype is not a known tensor element type");
      return NULL;
    }
    if (!dims_ok(rank, dims, true)) {
      usage(d, fn, "rank must be -1..64 with rank dims, each >= -1");
      return NULL;
    }
    oxp_type *t = oxp_type_tensor(a, dtype, rank, rank > 0 ? dims : NULL);
    if (t && kind == ONNXEXP_TYPE_OPTIONAL_TENSOR) {
      oxp_type *o = oxp_type_new(a, OXP_T_OPTIONAL);
      if (o) o->elem = t;
      t = o;
    }
    if (!t) nomem(d);
    return t;
  }
  case ONNXEXP_TYPE_INT: k = OXP_T_INT; break;
  case ONNXEXP_TYPE_FLOAT: k = OXP_T_FLOAT; break;
  case ONNXEXP_TYPE_BOOL: k = OXP_T_BOOL; break;
  case ONNXEXP_TYPE_STR: k = OXP_T_STR; break;
  case ONNXEXP_TYPE_NONE: k = OXP_T_NONE; break;
  case ONNXEXP_TYPE_DEVICE: k = OXP_T_DEVICE; break;
  case ONNXEXP_TYPE_NUMBER: k = OXP_T_NUMBER; break;
  case ONNXEXP_TYPE_INT_LIST:
  case ONNXEXP_TYPE_FLOAT_LIST:
  case ONNXEXP_TYPE_BOOL_LIST:
  case ONNXEXP_TYPE_TENSOR_LIST: {
    oxp_type *l = oxp_type_new(a, OXP_T_LIST);
    oxp_type *e = kind == ONNXEXP_TYPE_TENSOR_LIST ? oxp_type_tensor(a, 0, -1, NULL)
                  : oxp_type_new(a, kind == ONNXEXP_TYPE_INT_LIST ? OXP_T_INT
                                    : kind == ONNXEXP_TYPE_FLOAT_LIST ? OXP_T_FLOAT
                                                                      : OXP_T_BOOL);
    if (!l || !e) return nomem(d), NULL;
    l->elem = e;
    return l;
  }
  default:
    usage(d, fn, "kind is not an onnxexp_type_kind");
    return NULL;
  }
  oxp_type *t = oxp_type_new(a, k);
  if (!t) nomem(d);
  return t;
}

onnxexp_status onnxexp_graph_create(const char *name, onnxexp_graph **out,
                                    onnxexp_diag *diag) {
  BEGIN("onnxexp_graph_create");
  if (!out) return oxp_shim_null(d, fname, "out");
  *out = NULL;
  oxp_arena *a = oxp_arena_new();
  onnxexp_graph *g = a ? oxp_alloc(a, sizeof *g) : NULL;
  const char *file = g ? oxp_strdup(a, name ? name : "<builder>") : NULL;
  if (!file || !(g->g = oxp_graph_new(a, file))) {
    oxp_arena_free(a);
    return nomem(d);
  }
  g->arena = a;
  *out = g;
  return ONNXEXP_OK;
}

void onnxexp_graph_free(onnxexp_graph *g) {
  if (g) oxp_arena_free(g->arena); /* g itself lives in its arena */
}

onnxexp_block *onnxexp_graph_block(onnxexp_graph *g) {
  return g ? (onnxexp_block *)(void *)g->g->top : NULL;
}

onnxexp_status onnxexp_block_add_input(onnxexp_block *b, const char *name,
                                       onnxexp_type_kind kind, onnxexp_dtype dtype,
                                       int rank, const int64_t *dims,
                                       onnxexp_value **out, onnxexp_diag *diag) {
  BEGIN("onnxexp_block_add_input");
  if (out) *out = NULL;
  if (!b) return oxp_shim_null(d, fname, "block");
  if (!name || !*name) return usage(d, fname, "an input needs a name");
  oxp_arena *a = B(b)->graph->arena;
  oxp_type *t = oxp_shim_type(a, kind, dtype, rank, dims, fname, d);
  if (!t) return (onnxexp_status)d->status;
  oxp_value *v = oxp_block_add_input(B(b), oxp_strdup(a, name), t);
  if (!v || !v->name) return nomem(d);
  if (out) *out = (onnxexp_value *)(void *)v;
  return ONNXEXP_OK;
}

onnxexp_status onnxexp_graph_add_input(onnxexp_graph *g, const char *name,
                                       onnxexp_dtype dtype, int rank,
                                       const int64_t *dims, onnxexp_value **out,
                                       onnxexp_diag *diag) {
  if (!g) {
    BEGIN("onnxexp_graph_add_input");
    if (out) *out = NULL;
    return oxp_shim_null(d, fname, "graph");
  }
  return onnxexp_block_add_input(onnxexp_graph_block(g), name, ONNXEXP_TYPE_TENSOR,
                                 dtype, rank, dims, out, diag);
}

/* The graph a value belongs to. */
static oxp_graph *graph_of_value(const oxp_value *v) {
  return v->producer ? v->producer->graph : v->owner ? v->owner->graph : NULL;
}

/* "ns::name" or "ns::name.overload", as the parser splits it. */
static bool split_kind(oxp_arena *a, const char *op, oxp_node *n) {
  const char *sep = strstr(op, "::");
  const char *dot = strchr(sep + 2, '.');
  oxp_node_set_kind(n, dot ? oxp_strndup(a, op, (size_t)(dot - op)) : oxp_strdup(a, op));
  n->overload = dot ? oxp_strdup(a, dot + 1) : NULL;
  return n->kind && (!dot || n->overload);
}

static bool kind_ok(const char *op) {
  const char *sep = strstr(op, "::");
  if (!sep || sep == op || !sep[2] || sep[2] == '.') return false;
  for (const char *p = op; *p; p++)
    if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '%' || *p == '(') return false;
  return true;
}

onnxexp_status onnxexp_block_add_node(onnxexp_block *b, const char *op,
                                      onnxexp_value *const *inputs, int nin, int nout,
                                      onnxexp_node **out, onnxexp_diag *diag) {
  BEGIN("onnxexp_block_add_node");
  if (out) *out = NULL;
  if (!b) return oxp_shim_null(d, fname, "block");
  if (!op) return oxp_shim_null(d, fname, "op");
  if (!kind_ok(op))
    return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, op,
                                    "%s: op '%s' is not of the form "
                                    "'namespace::name[.overload]'", fname, op);
  if (nin < 0 || nout < 0 || (nin > 0 && !inputs))
    return usage(d, fname, "nin/nout must be >= 0, with nin inputs");
  oxp_graph *g = B(b)->graph;
  for (int i = 0; i < nin; i++)
    if (inputs[i] && graph_of_value(V(inputs[i])) != g)
      return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, op,
                                      "%s: input %d of %s belongs to another graph",
                                      fname, i, op);
  oxp_node *n = oxp_node_new(g, "", nout);
  if (!n || !split_kind(g->arena, op, n)) return nomem(d);
  for (int i = 0; i < nin; i++)
    if (!oxp_node_add_input(n, inputs ? V(inputs[i]) : NULL)) return nomem(d);
  for (int i = 0; i < nout; i++)
    if (!(n->outputs[i]->name = oxp_sprintf(g->arena, "%d", n->outputs[i]->id)))
      return nomem(d);
  oxp_block_append(B(b), n);
  if (out) *out = (onnxexp_node *)(void *)n;
  return ONNXEXP_OK;
}

onnxexp_value *onnxexp_node_output(const onnxexp_node *n, int i) {
  return n && i >= 0 && i < N(n)->noutputs ? (onnxexp_value *)(void *)N(n)->outputs[i]
                                           : NULL;
}

onnxexp_value *onnxexp_node_input(const onnxexp_node *n, int i) {
  return n && i >= 0 && i < N(n)->ninputs ? (onnxexp_value *)(void *)N(n)->inputs[i]
                                          : NULL;
}

int onnxexp_node_num_inputs(const onnxexp_node *n) { return n ? N(n)->ninputs : 0; }

int onnxexp_node_num_outputs(const onnxexp_node *n) { return n ? N(n)->noutputs : 0; }

const char *onnxexp_node_kind(const onnxexp_node *n) { return n ? N(n)->kind : NULL; }

onnxexp_status onnxexp_node_add_block(onnxexp_node *n, onnxexp_block **out,
                                      onnxexp_diag *diag) {
  BEGIN("onnxexp_node_add_block");
  if (!out) return oxp_shim_null(d, fname, "out");
  *out = NULL;
  if (!n) return oxp_shim_null(d, fname, "node");
  /* As the parser does: the passes recurse once per level. */
  int depth = 1;
  for (const oxp_block *o = N(n)->owner; o && o->owner; o = o->owner->owner)
    depth++;
  if (depth > OXP_MAX_BLOCK_DEPTH)
    return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, N(n)->kind,
                                    "%s: blocks nested deeper than %d "
                                    "(onnxexp's limit)", fname,
                                    OXP_MAX_BLOCK_DEPTH);
  oxp_block *b = oxp_node_add_block(N(n));
  if (!b) return nomem(d);
  *out = (onnxexp_block *)(void *)b;
  return ONNXEXP_OK;
}

onnxexp_status onnxexp_node_set_source(onnxexp_node *n, const char *text,
                                       onnxexp_diag *diag) {
  BEGIN("onnxexp_node_set_source");
  if (!n) return oxp_shim_null(d, fname, "node");
  if (!text) return oxp_shim_null(d, fname, "text");
  if (!(N(n)->source = oxp_strdup(N(n)->graph->arena, text))) return nomem(d);
  return ONNXEXP_OK;
}

/* Common checks of the attribute setters; then the set must show. */
#define ATTR_BEGIN(fn)                                   \
  BEGIN(fn);                                             \
  if (!n) return oxp_shim_null(d, fname, "node");        \
  if (!name || !*name) return usage(d, fname, "an attribute needs a name")

static onnxexp_status attr_done(oxp_node *n, const char *name, oxp_attr_kind k,
                                oxp_diag *d) {
  const oxp_attr *a = oxp_attr_get(n, name);
  return a && a->kind == k ? ONNXEXP_OK : nomem(d);
}

onnxexp_status onnxexp_node_set_int(onnxexp_node *n, const char *name, int64_t v,
                                    onnxexp_diag *diag) {
  ATTR_BEGIN("onnxexp_node_set_int");
  oxp_attr_set_i(N(n), name, v);
  return attr_done(N(n), name, OXP_A_INT, d);
}

onnxexp_status onnxexp_node_set_float(onnxexp_node *n, const char *name, double v,
                                      onnxexp_diag *diag) {
  ATTR_BEGIN("onnxexp_node_set_float");
  oxp_attr_set_f(N(n), name, v);
  return attr_done(N(n), name, OXP_A_FLOAT, d);
}

onnxexp_status onnxexp_node_set_string(onnxexp_node *n, const char *name,
                                       const char *v, onnxexp_diag *diag) {
  ATTR_BEGIN("onnxexp_node_set_string");
  if (!v) return oxp_shim_null(d, fname, "v");
  oxp_attr_set_s(N(n), name, v);
  onnxexp_status s = attr_done(N(n), name, OXP_A_STR, d);
  return s || oxp_attr_get(N(n), name)->s ? s : nomem(d);
}

onnxexp_status onnxexp_node_set_ints(onnxexp_node *n, const char *name,
                                     const int64_t *v, int cnt, onnxexp_diag *diag) {
  ATTR_BEGIN("onnxexp_node_set_ints");
  if (cnt < 0 || (cnt > 0 && !v)) return usage(d, fname, "v must hold cnt >= 0 values");
  oxp_attr_set_ints(N(n), name, v, cnt);
  onnxexp_status s = attr_done(N(n), name, OXP_A_INTS, d);
  return s || oxp_attr_get(N(n), name)->ints ? s : nomem(d);
}

onnxexp_status onnxexp_node_set_floats(onnxexp_node *n, const char *name,
                                       const double *v, int cnt, onnxexp_diag *diag) {
  ATTR_BEGIN("onnxexp_node_set_floats");
  if (cnt < 0 || (cnt > 0 && !v)) return usage(d, fname, "v must hold cnt >= 0 values");
  oxp_attr_set_floats(N(n), name, v, cnt);
  onnxexp_status s = attr_done(N(n), name, OXP_A_FLOATS, d);
  return s || oxp_attr_get(N(n), name)->floats ? s : nomem(d);
}

onnxexp_status onnxexp_node_set_strings(onnxexp_node *n, const char *name,
                                        const char *const *v, int cnt,
                                        onnxexp_diag *diag) {
  ATTR_BEGIN("onnxexp_node_set_strings");
  if (cnt < 0 || (cnt > 0 && !v)) return usage(d, fname, "v must hold cnt >= 0 strings");
  for (int i = 0; i < cnt; i++)
    if (!v[i]) return usage(d, fname, "v must not hold NULL strings");
  oxp_attr_set_strs(N(n), name, (const char **)v, cnt);
  onnxexp_status s = attr_done(N(n), name, OXP_A_STRS, d);
  return s || oxp_attr_get(N(n), name)->n == cnt ? s : nomem(d);
}

/* A tensor in arena a: dims and data copied, or borrowed when copy is
 * false (weights). */
static oxp_tensor *make_tensor(oxp_arena *a, onnxexp_dtype dtype, int rank,
                               const int64_t *dims, const void *data, size_t nbytes,
                               bool copy, const char *fn, oxp_diag *d) {
  if (!oxp_shim_dtype_ok(dtype)) {
    usage(d, fn, "dtype is not a known tensor element type");
    return NULL;
  }
  if (!dims_ok(rank, dims, false)) {
    usage(d, fn, "rank must be 0..64 with rank dims, each >= 0");
    return NULL;
  }
  uint64_t numel = 1;
  for (int i = 0; i < rank; i++) numel *= (uint64_t)dims[i];
  if (numel * oxp_dtype_size(dtype) != nbytes || (nbytes && !data)) {
    oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
             "%s: %zu bytes of data for %llu elements of %s", fn, nbytes,
             (unsigned long long)numel, oxp_dtype_name(dtype));
    return NULL;
  }
  oxp_tensor *t = copy ? oxp_tensor_alloc(a, dtype, rank, dims)
                       : oxp_tensor_new(a, dtype, rank, dims, data, nbytes);
  if (!t) return nomem(d), NULL;
  if (copy && nbytes) memcpy((void *)t->data, data, nbytes);
  return t;
}

onnxexp_status onnxexp_node_set_tensor(onnxexp_node *n, const char *name,
                                       onnxexp_dtype dtype, int rank,
                                       const int64_t *dims, const void *data,
                                       size_t nbytes, onnxexp_diag *diag) {
  ATTR_BEGIN("onnxexp_node_set_tensor");
  oxp_tensor *t = make_tensor(N(n)->graph->arena, dtype, rank, dims, data, nbytes,
                              true, fname, d);
  if (!t) return (onnxexp_status)d->status;
  oxp_attr_set_t(N(n), name, t);
  return attr_done(N(n), name, OXP_A_TENSOR, d);
}

onnxexp_status onnxexp_value_set_name(onnxexp_value *v, const char *name,
                                      onnxexp_diag *diag) {
  BEGIN("onnxexp_value_set_name");
  if (!v) return oxp_shim_null(d, fname, "value");
  if (!name || !*name) return usage(d, fname, "a value needs a non-empty name");
  oxp_graph *g = graph_of_value(V(v));
  const char *s = g ? oxp_strdup(g->arena, name) : NULL;
  if (!s) return nomem(d);
  V(v)->name = s;
  return ONNXEXP_OK;
}

onnxexp_status onnxexp_value_set_type(onnxexp_value *v, onnxexp_type_kind kind,
                                      onnxexp_dtype dtype, int rank,
                                      const int64_t *dims, onnxexp_diag *diag) {
  BEGIN("onnxexp_value_set_type");
  if (!v) return oxp_shim_null(d, fname, "value");
  oxp_graph *g = graph_of_value(V(v));
  if (!g) return usage(d, fname, "the value belongs to no graph");
  oxp_type *t = oxp_shim_type(g->arena, kind, dtype, rank, dims, fname, d);
  if (!t) return (onnxexp_status)d->status;
  V(v)->type = t;
  return ONNXEXP_OK;
}

const char *onnxexp_value_name(const onnxexp_value *v) { return v ? V(v)->name : NULL; }

onnxexp_status onnxexp_block_add_output(onnxexp_block *b, onnxexp_value *v,
                                        onnxexp_diag *diag) {
  BEGIN("onnxexp_block_add_output");
  if (!b) return oxp_shim_null(d, fname, "block");
  if (!v) return oxp_shim_null(d, fname, "value");
  if (graph_of_value(V(v)) != B(b)->graph)
    return usage(d, fname, "the value belongs to another graph");
  return oxp_block_add_output(B(b), V(v)) ? ONNXEXP_OK : nomem(d);
}

onnxexp_status onnxexp_graph_attach_weight(onnxexp_graph *g, const char *name,
                                           onnxexp_dtype dtype, int rank,
                                           const int64_t *dims, const void *data,
                                           size_t nbytes, onnxexp_diag *diag) {
  BEGIN("onnxexp_graph_attach_weight");
  if (!g) return oxp_shim_null(d, fname, "graph");
  if (!name || !*name) return usage(d, fname, "a weight needs a name");
  if (g->consumed) return usage(d, fname, "the graph was already exported");
  for (int i = 0; i < g->nweights; i++)
    if (strcmp(g->weights[i].name, name) == 0)
      return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                                      "%s: weight '%s' is already attached", fname, name);
  oxp_tensor *t = make_tensor(g->arena, dtype, rank, dims, data, nbytes, false, fname, d);
  if (!t) return (onnxexp_status)d->status;
  if (g->nweights == g->capweights) {
    int nc = g->capweights ? g->capweights * 2 : 8;
    oxp_st_entry *ne = oxp_realloc(g->arena, g->weights,
                                   sizeof *ne * (size_t)g->capweights,
                                   sizeof *ne * (size_t)nc);
    if (!ne) return nomem(d);
    g->weights = ne;
    g->capweights = nc;
  }
  oxp_st_entry *e = &g->weights[g->nweights];
  if (!(e->name = oxp_strdup(g->arena, name))) return nomem(d);
  e->t = *t;
  g->nweights++;
  return ONNXEXP_OK;
}
