/* bind.c: joins the weights sidecar to the parsed graph. Graph inputs named
 * like a tensor become initializers; `constant:NAME` tensors supply the
 * data that the IR printer dropped or rounded. Mismatches stop the export
 * here, where the message can name both the file and the declaration,
 * rather than later as a confusing shape error inside some op. */
#include <stdio.h>
#include <string.h>

#include "oxp.h"

#define CONST_PREFIX "constant:"

typedef struct {
  oxp_graph *g;
  const oxp_safetensors *st; /* may be NULL: no weights file */
  bool *used;                /* per st entry: bound to something */
  oxp_diag *d;
} binder;

static void shape_str(const oxp_tensor *t, char *buf, size_t n) {
  oxp_dims_print(t->dims, t->rank, buf, n);
}

/* The tensor type a value is declared with, seeing through `Tensor?`
 * (a bound weight is never None). NULL if the declaration is not a tensor. */
static const oxp_type *tensor_type(const oxp_type *t) {
  if (t && t->kind == OXP_T_OPTIONAL) t = t->elem;
  return t && t->kind == OXP_T_TENSOR ? t : NULL;
}

static bool shape_matches(const oxp_type *t, const oxp_tensor *w) {
  if (t->rank < 0) return true;
  if (t->rank != w->rank) return false;
  for (int i = 0; i < t->rank; i++) {
    bool dynamic = t->dims[i] < 0 || (t->dim_params && t->dim_params[i]);
    if (!dynamic && t->dims[i] != w->dims[i]) return false;
  }
  return true;
}

/* Checks weight e against value v's declaration; what is "graph input" or
 * "constant" for the message, loc where to point. */
static oxp_status check_decl(binder *b, const oxp_st_entry *e,
                             const oxp_value *v, const char *what,
                             const oxp_loc *loc) {
  if (!v->type) return OXP_OK;
  const oxp_type *t = tensor_type(v->type);
  if (t && (!t->dtype || t->dtype == e->t.dtype) && shape_matches(t, &e->t))
    return OXP_OK;
  /* Only a mismatch pays for printing the declaration. */
  char decl[256], shape[256];
  oxp_type_print(v->type, decl, sizeof decl);
  if (!t)
    return oxp_fail(b->d, OXP_ERR_WEIGHTS, loc, NULL,
                    "weight '%s' is a tensor but %s %%%s is declared %s",
                    e->name, what, v->name, decl);
  if (t->dtype && t->dtype != e->t.dtype)
    return oxp_fail(b->d, OXP_ERR_WEIGHTS, loc, NULL,
                    "weight '%s' has dtype %s but %s %%%s is declared %s",
                    e->name, oxp_dtype_name(e->t.dtype), what, v->name, decl);
  if (!shape_matches(t, &e->t)) {
    shape_str(&e->t, shape, sizeof shape);
    return oxp_fail(b->d, OXP_ERR_WEIGHTS, loc, NULL,
                    "weight '%s' has shape %s but %s %%%s is declared %s",
                    e->name, shape, what, v->name, decl);
  }
  return OXP_OK;
}

/* A graph-arena copy of the entry's tensor (data stays in the mapping), so
 * the graph does not depend on the sidecar's arena for its dims. Also makes
 * a partial declaration (`Tensor`, `Float(*, 3)`) exact: weights are
 * static, and later shape inference wants their dims. */
static oxp_tensor *adopt(binder *b, const oxp_st_entry *e, oxp_value *v) {
  oxp_arena *a = b->g->arena;
  oxp_tensor *t = oxp_tensor_new(a, e->t.dtype, e->t.rank, e->t.dims,
                                 e->t.data, e->t.nbytes);
  if (!t) return NULL;
  t->src_path = e->t.src_path ? oxp_strdup(a, e->t.src_path) : NULL;
  t->src_offset = e->t.src_offset;
  const oxp_type *old = tensor_type(v->type);
  if (!old || !old->dtype || !oxp_type_is_static(old) ||
      v->type->kind != OXP_T_TENSOR) {
    oxp_type *nt = oxp_type_tensor(a, t->dtype, t->rank, t->dims);
    if (!nt) return NULL;
    nt->requires_grad = old && old->requires_grad;
    v->type = nt;
  }
  b->used[e - b->st->entries] = true;
  return t;
}

static oxp_status nomem(binder *b) {
  return oxp_fail(b->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
}

/* User inputs come first and parameters after them, so once one input is
 * a weight every later one is a parameter too: without a weight it would
 * quietly become an extra input the caller never meant to feed. Before the
 * first weight, a user input and a parameter the caller feeds look alike. */
static oxp_status missing_weight(binder *b, const oxp_value *v,
                                 const oxp_value *first, const oxp_loc *loc) {
  return oxp_fail(b->d, OXP_ERR_WEIGHTS, loc, NULL,
                  "no tensor '%s' for graph input %%%s: it follows the weight "
                  "input %%%s, so it is a parameter, but the weights file "
                  "lacks it", v->name, v->name, first->name);
}

static oxp_status bind_inputs(binder *b) {
  oxp_block *top = b->g->top;
  oxp_loc loc = {b->st->path, 0, 0};
  const oxp_value *first = NULL; /* the first input bound to a weight */
  for (int i = 0; i < top->ninputs; i++) {
    oxp_value *v = top->inputs[i];
    const oxp_st_entry *e = oxp_st_find(b->st, v->name);
    if (!e && first) return missing_weight(b, v, first, &loc);
    if (!e) continue; /* a user input, or a parameter the caller feeds */
    oxp_status s = check_decl(b, e, v, "graph input", &loc);
    if (s) return s;
    if (!(v->init = adopt(b, e, v))) return nomem(b);
    if (!first) first = v;
  }
  return OXP_OK;
}

static oxp_loc node_loc(const binder *b, const oxp_node *n) {
  oxp_loc loc = n->loc;
  if (!loc.file) loc.file = b->g->file;
  return loc;
}

/* Overrides a constant's value from `constant:NAME`, then insists that it
 * has data: a `<Tensor>` placeholder cannot be exported. */
static oxp_status bind_constant(binder *b, oxp_node *n) {
  if (n->noutputs != 1 || !n->outputs[0]->name) return OXP_OK;
  oxp_value *v = n->outputs[0];
  oxp_loc loc = node_loc(b, n);
  /* `constant:NAME`, on the stack unless long: every constant asks */
  char buf[256];
  size_t nl = strlen(v->name);
  char *key = nl + sizeof CONST_PREFIX <= sizeof buf ? buf
              : oxp_alloc(b->g->arena, nl + sizeof CONST_PREFIX);
  if (!key) return nomem(b);
  memcpy(key, CONST_PREFIX, sizeof CONST_PREFIX - 1);
  memcpy(key + sizeof CONST_PREFIX - 1, v->name, nl + 1);
  const oxp_st_entry *e = b->st ? oxp_st_find(b->st, key) : NULL;
  if (e) {
    oxp_status s = check_decl(b, e, v, "constant", &loc);
    if (s) return s;
    oxp_tensor *t = adopt(b, e, v);
    if (!t) return nomem(b);
    oxp_attr_set_t(n, "value", t);
    if (!oxp_attr_get(n, "value")) return nomem(b);
  }
  const oxp_attr *a = oxp_attr_get(n, "value");
  if (!a || a->kind != OXP_A_TENSOR) return OXP_OK;
  const oxp_tensor *t = a->t;
  /* An empty tensor has no bytes to print, so NULL data is its true value
   * when its shape says so. */
  bool empty = t && t->rank > 0 && oxp_tensor_numel(t) == 0;
  if (!t || (!t->data && !empty))
    return oxp_fail(b->d, OXP_ERR_WEIGHTS, &loc, "prim::Constant",
                    "constant %%%s is printed as <Tensor> with no data; the "
                    "weights file needs a tensor '%s'", v->name, key);
  if (!e && t->rounded)
    return oxp_fail(b->d, OXP_ERR_WEIGHTS, &loc, "prim::Constant",
                    "constant %%%s is printed rounded (to the printer's six "
                    "significant digits, or four decimals), so its value is "
                    "not known; the weights file needs a tensor '%s' with its "
                    "data (onnxexp.dump writes one for every constant)",
                    v->name, key);
  return OXP_OK;
}

static bool tensor_list_type(const oxp_type *t) {
  if (!t || t->kind != OXP_T_LIST || !t->elem) return false;
  const oxp_type *e = t->elem->kind == OXP_T_OPTIONAL ? t->elem->elem : t->elem;
  return e && e->kind == OXP_T_TENSOR;
}

/* Items of a printed list, `annotate(List[Optional[Tensor]], [{1}, None])`
 * or `[{1}, {2}]`: how many, and which are None (bit k of *none, k < 64).
 * -1 for `[<Tensors>]`, which hides the count. */
static int printed_items(const char *s, uint64_t *none) {
  *none = 0;
  if (strstr(s, "<Tensors>")) return -1;
  const char *open = s[0] == '[' ? s : NULL;
  for (const char *q = s; (q = strstr(q, ", [")) != NULL; q++) open = q + 2;
  if (!open) return -1;
  int n = 0, depth = 0;
  const char *start = open + 1;
  for (const char *q = open + 1; *q; q++) {
    if (strchr("[{(", *q)) depth++;
    else if (depth > 0 && strchr("]})", *q)) depth--;
    else if (*q == ',' || *q == ']') {
      while (*start == ' ') start++;
      if (start < q) {
        if (strncmp(start, "None", 4) == 0 && n < 64) *none |= 1ull << n;
        n++;
      }
      start = q + 1;
      if (*q == ']') break;
    }
  }
  return n;
}

/* A constant list of tensors (`[<Tensors>]`, `annotate(List[Tensor],
 * [...])`: module lists a scripted graph froze, such as an LSTM's flat
 * weights) becomes a ListConstruct of tensor constants, each from the
 * sidecar key `constant:NAME.K`. */
static oxp_status bind_tensor_list(binder *b, oxp_node *n) {
  oxp_value *v = n->outputs[0];
  const oxp_attr *a = oxp_attr_get(n, "value");
  if (!a || a->kind != OXP_A_STR) return OXP_OK;
  oxp_loc loc = node_loc(b, n);
  uint64_t none;
  int cnt = printed_items(a->s, &none);
  oxp_node *lc = oxp_node_new(b->g, "prim::ListConstruct", 1);
  if (!lc) return nomem(b);
  lc->loc = n->loc;
  lc->outputs[0]->type = v->type;
  for (int k = 0; cnt < 0 || k < cnt; k++) {
    oxp_node *e = oxp_node_new(b->g, "prim::Constant", 1);
    if (!e) return nomem(b);
    e->loc = n->loc;
    if (k < 64 && (none >> k & 1)) {
      e->outputs[0]->type = oxp_type_new(b->g->arena, OXP_T_NONE);
    } else {
      const char *key = oxp_sprintf(b->g->arena, CONST_PREFIX "%s.%d", v->name, k);
      const oxp_st_entry *w = key && b->st ? oxp_st_find(b->st, key) : NULL;
      if (!key) return nomem(b);
      if (!w && cnt < 0 && k > 0) break; /* [<Tensors>]: keys 0..K-1 */
      if (!w)
        return oxp_fail(b->d, OXP_ERR_WEIGHTS, &loc, "prim::Constant",
                        "constant %%%s is a list of tensors printed without their "
                        "data; the weights file needs a tensor '%s'", v->name, key);
      e->outputs[0]->name = oxp_sprintf(b->g->arena, "%s.%d", v->name, k);
      oxp_tensor *t = adopt(b, w, e->outputs[0]);
      if (!t || !e->outputs[0]->name) return nomem(b);
      oxp_attr_set_t(e, "value", t);
    }
    oxp_node_insert_before(n, e);
    if (!oxp_node_add_input(lc, e->outputs[0])) return nomem(b);
  }
  oxp_node_insert_before(n, lc);
  oxp_value_replace_uses(v, lc->outputs[0]);
  lc->outputs[0]->name = v->name;
  oxp_node_destroy(n);
  return OXP_OK;
}

static oxp_status bind_block(binder *b, oxp_block *blk) {
  OXP_FOR_NODES(blk, n, nx) {
    oxp_status s = OXP_OK;
    if (oxp_kind_is(n, "prim::Constant") && n->noutputs == 1 && n->outputs[0]->name &&
        tensor_list_type(n->outputs[0]->type))
      s = bind_tensor_list(b, n);
    else if (oxp_kind_is(n, "prim::Constant")) s = bind_constant(b, n);
    for (int k = 0; k < n->nblocks && !s; k++) s = bind_block(b, n->blocks[k]);
    if (s) return s;
  }
  return OXP_OK;
}

static void warn_unbound(const binder *b, oxp_warn_fn warn, void *user) {
  char msg[1024];
  for (int i = 0; i < b->st->nentries; i++) {
    if (b->used[i]) continue;
    const char *name = b->st->entries[i].name;
    bool is_const = strncmp(name, CONST_PREFIX, strlen(CONST_PREFIX)) == 0;
    snprintf(msg, sizeof msg, "weight '%s' in %s binds to no graph input%s",
             name, b->st->path, is_const ? " or constant" : "");
    warn(user, msg);
  }
}

oxp_status oxp_bind_weights(oxp_graph *g, const oxp_safetensors *st,
                            oxp_warn_fn warn, void *warn_user, oxp_diag *d) {
  binder b = {g, st, NULL, d};
  oxp_status s;
  if (st) {
    b.used = oxp_alloc(g->arena, sizeof *b.used * (size_t)(st->nentries + 1));
    if (!b.used) return nomem(&b);
  }
  /* Packed params first: their class-typed inputs then leave the graph. */
  if ((s = oxp_bind_packed(g, st, b.used, d))) return s;
  if (st && (s = bind_inputs(&b))) return s;
  if ((s = bind_block(&b, g->top))) return s;
  if (st && warn) warn_unbound(&b, warn, warn_user);
  return OXP_OK;
}
