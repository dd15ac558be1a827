/* names.c: unique value and node names for the ONNX graph.
 *
 * ONNX values live in one namespace per model: a subgraph may not reuse a
 * name of its enclosing graphs, and every name is defined once. So names are
 * made unique across the whole graph, nested blocks included.
 *
 * Two passes. The first walks definitions in graph order and lets each
 * value claim its existing name if nobody claimed it before; that way a
 * user-visible name (a graph input, an --output-names output) is never lost
 * to a generated name made earlier in the walk. The second pass walks again
 * and generates names for the values that have none or lost their claim,
 * skipping every name already taken. Nodes get the same treatment in their
 * own namespace. */
#include <stdio.h>
#include <string.h>

#include "serialize.h"

typedef struct {
  oxp_graph *g;
  oxp_diag *d;
  oxp_map vals;      /* value name -> owning oxp_value */
  oxp_map nodes;     /* node name -> owning oxp_node */
  bool *defined;     /* by value id: seen as a definition */
  int nnode;         /* running node number for generated names */
  oxp_status st;
} namer;

static char oom_key[] = ""; /* marks a failed put without a real owner */

const char *oxp_op_type(const char *kind) {
  const char *p = strstr(kind, "::");
  return p ? p + 2 : kind;
}

const char *oxp_op_domain(oxp_arena *a, const char *kind) {
  const char *p = strstr(kind, "::");
  if (!p) return "";
  size_t n = (size_t)(p - kind);
  if ((n == 4 && memcmp(kind, "onnx", 4) == 0) ||
      (n == 7 && memcmp(kind, "ai.onnx", 7) == 0))
    return "";
  return oxp_strndup(a, kind, n);
}

static bool has_name(const char *s) { return s && *s; }

static void nomem(namer *nm) {
  if (nm->st == OXP_OK)
    nm->st = oxp_fail(nm->d, OXP_ERR_NOMEM, NULL, NULL,
                      "out of memory while naming values");
}

/* ---- pass 1: claim existing names ---------------------------------- */

static void claim_value(namer *nm, oxp_value *v) {
  if (v->id >= 0 && v->id < nm->g->nvalues) nm->defined[v->id] = true;
  if (!has_name(v->name) || oxp_map_get(&nm->vals, v->name)) return;
  if (!oxp_map_put(&nm->vals, v->name, v)) nomem(nm);
}

static void claim_block(namer *nm, oxp_block *b) {
  for (int i = 0; i < b->ninputs; i++) claim_value(nm, b->inputs[i]);
  for (int i = 0; i < b->ninits; i++) claim_value(nm, b->inits[i]);
  for (oxp_node *n = b->first; n; n = n->next) {
    if (has_name(n->name) && !oxp_map_get(&nm->nodes, n->name) &&
        !oxp_map_put(&nm->nodes, n->name, n))
      nomem(nm);
    for (int i = 0; i < n->noutputs; i++) claim_value(nm, n->outputs[i]);
    for (int k = 0; k < n->nblocks; k++) claim_block(nm, n->blocks[k]);
  }
}

/* ---- pass 2: generate the missing ones ------------------------------- */

/* base if free, else base_1, base_2, ...; claimed for owner in m. */
static const char *fresh(namer *nm, oxp_map *m, const char *base,
                         void *owner) {
  oxp_arena *a = nm->g->arena;
  const char *s = oxp_map_get(m, base) ? NULL : oxp_strdup(a, base);
  for (int k = 1; !s || oxp_map_get(m, s); k++) {
    s = oxp_sprintf(a, "%s_%d", base, k);
    if (!s) break;
  }
  if (!s || !oxp_map_put(m, s, owner)) {
    nomem(nm);
    return oom_key;
  }
  return s;
}

/* A value keeps its name only if it won the claim in pass 1. */
static bool owns_name(namer *nm, const oxp_value *v) {
  return has_name(v->name) && oxp_map_get(&nm->vals, v->name) == v;
}

/* stem (at most max bytes of it), tag and k into buf: "If_3_b0" "_in" 2.
 * By hand, not snprintf: it runs for every value of big graphs. */
static const char *compose(char *buf, const char *stem, size_t max, const char *tag,
                           int k) {
  size_t n = strnlen(stem, max), t = strlen(tag);
  memcpy(buf, stem, n);
  memcpy(buf + n, tag, t);
  n += t;
  char digits[12];
  int d = 0;
  unsigned u = (unsigned)k;
  do digits[d++] = (char)('0' + u % 10); while ((u /= 10) > 0);
  while (d > 0) buf[n++] = digits[--d];
  buf[n] = 0;
  return buf;
}

/* Renamed values keep their old name as a stem so the text stays
 * recognisable ("x" -> "x_1"); unnamed ones get the fallback, stem + tag +
 * k, made only when needed. */
static void name_value(namer *nm, oxp_value *v, const char *stem, size_t max,
                       const char *tag, int k) {
  if (owns_name(nm, v)) return;
  char buf[160];
  v->name = fresh(nm, &nm->vals,
                  has_name(v->name) ? v->name : compose(buf, stem, max, tag, k), v);
}

/* prefix is NULL for the top block ("input_0", "const_0"), else the
 * owning node's name and block number ("If_3_b0_in0"). */
static void name_block(namer *nm, oxp_block *b, const char *prefix) {
  char buf[160];
  for (int i = 0; i < b->ninputs; i++)
    name_value(nm, b->inputs[i], prefix ? prefix : "input", 130, prefix ? "_in" : "_", i);
  for (int i = 0; i < b->ninits; i++)
    name_value(nm, b->inits[i], prefix ? prefix : "const", 130, prefix ? "_const" : "_", i);
  for (oxp_node *n = b->first; n && nm->st == OXP_OK; n = n->next) {
    int num = nm->nnode++;
    if (!has_name(n->name) || oxp_map_get(&nm->nodes, n->name) != n)
      n->name = fresh(nm, &nm->nodes, compose(buf, oxp_op_type(n->kind), 100, "_", num), n);
    /* The node name is unique, so "<node>_out<k>" usually is too. */
    for (int i = 0; i < n->noutputs; i++)
      name_value(nm, n->outputs[i], n->name, 120, "_out", i);
    for (int k = 0; k < n->nblocks; k++) {
      char *p = oxp_strdup(nm->g->arena, compose(buf, n->name, 120, "_b", k));
      if (!p) {
        nomem(nm);
        return;
      }
      name_block(nm, n->blocks[k], p);
    }
  }
}

/* ---- check: every used value is defined somewhere -------------------- */

static void check_used(namer *nm, const oxp_value *v, const oxp_node *user) {
  if (!v || nm->st != OXP_OK) return;
  if (v->id >= 0 && v->id < nm->g->nvalues && nm->defined[v->id]) return;
  nm->st = oxp_fail(nm->d, OXP_ERR_GRAPH, user ? &user->loc : NULL,
                    user ? user->kind : NULL,
                    "value %s%s (id %d) is used by %s but defined by no "
                    "block of the graph",
                    has_name(v->name) ? "%" : "",
                    has_name(v->name) ? v->name : "<unnamed>", v->id,
                    user ? user->kind : "a block output");
}

static void check_block(namer *nm, const oxp_block *b) {
  for (const oxp_node *n = b->first; n; n = n->next) {
    for (int i = 0; i < n->ninputs; i++) check_used(nm, n->inputs[i], n);
    for (int k = 0; k < n->nblocks; k++) check_block(nm, n->blocks[k]);
  }
  for (int i = 0; i < b->noutputs && nm->st == OXP_OK; i++) {
    if (!b->outputs[i])
      nm->st = oxp_fail(nm->d, OXP_ERR_GRAPH, b->owner ? &b->owner->loc : NULL,
                        b->owner ? b->owner->kind : NULL,
                        "output %d of a %s block is missing", i,
                        b->owner ? b->owner->kind : "top");
    check_used(nm, b->outputs[i], NULL);
  }
}

oxp_status oxp_assign_names(oxp_graph *g, oxp_diag *d) {
  namer nm = {.g = g, .d = d};
  oxp_map_init(&nm.vals, g->arena);
  oxp_map_init(&nm.nodes, g->arena);
  nm.defined = oxp_alloc(g->arena, sizeof(bool) * (size_t)(g->nvalues + 1));
  if (!nm.defined)
    return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL,
                    "out of memory while naming values");
  claim_block(&nm, g->top);
  if (nm.st == OXP_OK) check_block(&nm, g->top);
  if (nm.st == OXP_OK) name_block(&nm, g->top, NULL);
  return nm.st;
}
