/* ir.c: building and editing the graph. Every edit keeps use lists exact,
 * so passes find a value's consumers in O(uses), never by scanning. */
#include <string.h>

#include "oxp.h"

/* Grows an arena array of elem-sized items to hold at least need, from
 * first items: most nodes have one output and most values one or two
 * uses, and an arena array's slack is never given back. */
static bool grow(oxp_arena *a, void **arr, int *cap, int need, size_t elem, int first) {
  if (need <= *cap) return true;
  int nc = *cap ? *cap * 2 : first;
  while (nc < need) nc *= 2;
  void *p = oxp_realloc(a, *arr, (size_t)*cap * elem, (size_t)nc * elem);
  if (!p) return false;
  *arr = p;
  *cap = nc;
  return true;
}
#define GROW_FROM(a, arr, cap, need, first) \
  grow((a), (void **)&(arr), &(cap), (need), sizeof *(arr), (first))
#define GROW(a, arr, cap, need) GROW_FROM(a, arr, cap, need, 4)

oxp_graph *oxp_graph_new(oxp_arena *a, const char *file) {
  oxp_graph *g = oxp_alloc(a, sizeof *g);
  if (!g) return NULL;
  g->arena = a;
  g->file = file;
  g->top = oxp_block_new(g, NULL);
  return g->top ? g : NULL;
}

oxp_block *oxp_block_new(oxp_graph *g, oxp_node *owner) {
  oxp_block *b = oxp_alloc(g->arena, sizeof *b);
  if (b) {
    b->graph = g;
    b->owner = owner;
  }
  return b;
}

oxp_value *oxp_value_new(oxp_graph *g, const char *name, oxp_type *t) {
  oxp_value *v = oxp_alloc(g->arena, sizeof *v);
  if (!v) return NULL;
  v->id = g->nvalues++;
  v->name = name;
  v->type = t;
  return v;
}

oxp_value *oxp_block_add_input(oxp_block *b, const char *name, oxp_type *t) {
  if (!GROW(b->graph->arena, b->inputs, b->capinputs, b->ninputs + 1))
    return NULL;
  oxp_value *v = oxp_value_new(b->graph, name, t);
  if (!v) return NULL;
  v->owner = b;
  v->index = b->ninputs;
  b->inputs[b->ninputs++] = v;
  return v;
}

bool oxp_block_add_output(oxp_block *b, oxp_value *v) {
  if (!GROW(b->graph->arena, b->outputs, b->capoutputs, b->noutputs + 1))
    return false;
  b->outputs[b->noutputs++] = v;
  if (v) v->nblockouts++;
  return true;
}

void oxp_block_set_output(oxp_block *b, int i, oxp_value *v) {
  oxp_value *old = b->outputs[i];
  if (old == v) return;
  if (old) old->nblockouts--;
  if (v) v->nblockouts++;
  b->outputs[i] = v;
}

bool oxp_block_add_init(oxp_block *b, oxp_value *v) {
  if (!GROW(b->graph->arena, b->inits, b->capinits, b->ninits + 1))
    return false;
  b->inits[b->ninits++] = v;
  return true;
}

oxp_node *oxp_node_new(oxp_graph *g, const char *kind, int noutputs) {
  oxp_node *n = oxp_alloc(g->arena, sizeof *n);
  if (!n) return NULL;
  n->graph = g;
  oxp_node_set_kind(n, kind);
  g->nnodes++;
  for (int i = 0; i < noutputs; i++)
    if (!oxp_node_add_output(n)) return NULL;
  return n;
}

static oxp_graph *graph_of(oxp_node *n) { return n->graph; }

static bool add_use(oxp_arena *a, oxp_value *v, oxp_node *n, int i) {
  if (!GROW_FROM(a, v->uses, v->capuses, v->nuses + 1, 2)) return false;
  v->uses[v->nuses++] = (oxp_use){n, i};
  return true;
}

static void drop_use(oxp_value *v, oxp_node *n, int i) {
  for (int k = 0; k < v->nuses; k++) {
    if (v->uses[k].node == n && v->uses[k].index == i) {
      v->uses[k] = v->uses[--v->nuses];
      return;
    }
  }
}

bool oxp_node_add_input(oxp_node *n, oxp_value *v) {
  oxp_arena *a = graph_of(n)->arena;
  if (!GROW(a, n->inputs, n->capinputs, n->ninputs + 1)) return false;
  n->inputs[n->ninputs] = v;
  if (v && !add_use(a, v, n, n->ninputs)) return false;
  n->ninputs++;
  return true;
}

oxp_value *oxp_node_add_output(oxp_node *n) {
  oxp_graph *g = graph_of(n);
  if (!GROW_FROM(g->arena, n->outputs, n->capoutputs, n->noutputs + 1, 1))
    return NULL;
  oxp_value *v = oxp_value_new(g, NULL, NULL);
  if (!v) return NULL;
  v->producer = n;
  v->index = n->noutputs;
  n->outputs[n->noutputs++] = v;
  return v;
}

oxp_block *oxp_node_add_block(oxp_node *n) {
  oxp_graph *g = graph_of(n);
  oxp_block **nb = oxp_realloc(g->arena, n->blocks,
                               sizeof *nb * (size_t)n->nblocks,
                               sizeof *nb * (size_t)(n->nblocks + 1));
  if (!nb) return NULL;
  n->blocks = nb;
  oxp_block *b = oxp_block_new(g, n);
  if (b) n->blocks[n->nblocks++] = b;
  return b;
}

void oxp_node_set_input(oxp_node *n, int i, oxp_value *v) {
  if (n->inputs[i] == v) return;
  if (n->inputs[i]) drop_use(n->inputs[i], n, i);
  n->inputs[i] = v;
  if (v) add_use(graph_of(n)->arena, v, n, i);
}

static void link_before(oxp_block *b, oxp_node *pos, oxp_node *n) {
  n->owner = b;
  n->next = pos;
  n->prev = pos ? pos->prev : b->last;
  if (n->prev) n->prev->next = n;
  else b->first = n;
  if (pos) pos->prev = n;
  else b->last = n;
}

void oxp_block_append(oxp_block *b, oxp_node *n) { link_before(b, NULL, n); }

void oxp_node_insert_before(oxp_node *pos, oxp_node *n) {
  link_before(pos->owner, pos, n);
}

void oxp_node_insert_after(oxp_node *pos, oxp_node *n) {
  link_before(pos->owner, pos->next, n);
}

void oxp_node_destroy(oxp_node *n) {
  for (int i = 0; i < n->ninputs; i++)
    if (n->inputs[i]) drop_use(n->inputs[i], n, i);
  n->ninputs = 0;
  oxp_block *b = n->owner;
  if (b) {
    if (n->prev) n->prev->next = n->next;
    else b->first = n->next;
    if (n->next) n->next->prev = n->prev;
    else b->last = n->prev;
    graph_of(n)->nnodes--;
  }
  n->owner = NULL;
  n->prev = n->next = NULL;
}

/* Stops once from->nblockouts says no slot can hold from any more: a
 * walk per replaced value would make passes over big graphs quadratic. */
static void replace_in_block_outputs(oxp_block *b, oxp_value *from,
                                     oxp_value *to) {
  for (int i = 0; i < b->noutputs; i++)
    if (b->outputs[i] == from) oxp_block_set_output(b, i, to);
  for (oxp_node *n = b->first; n && from->nblockouts > 0; n = n->next)
    for (int k = 0; k < n->nblocks; k++)
      replace_in_block_outputs(n->blocks[k], from, to);
}

void oxp_value_replace_uses(oxp_value *from, oxp_value *to) {
  while (from->nuses > 0) {
    oxp_use u = from->uses[from->nuses - 1];
    oxp_node_set_input(u.node, u.index, to);
  }
  /* Block outputs are not uses (they have no node); walk from the block
   * that defines from, since only it and blocks nested in it can see it. */
  oxp_block *b = from->producer ? from->producer->owner : from->owner;
  if (b && from->nblockouts > 0 && from != to)
    replace_in_block_outputs(b, from, to);
}

static bool in_outputs(const oxp_block *b, const oxp_value *v) {
  for (int i = 0; i < b->noutputs; i++)
    if (b->outputs[i] == v) return true;
  for (const oxp_node *n = b->first; n; n = n->next)
    for (int k = 0; k < n->nblocks; k++)
      if (in_outputs(n->blocks[k], v)) return true;
  return false;
}

bool oxp_value_is_block_output(const oxp_value *v) {
  const oxp_block *b = v->producer ? v->producer->owner : v->owner;
  return b && v->nblockouts > 0 && in_outputs(b, v);
}

oxp_attr *oxp_attr_get(const oxp_node *n, const char *name) {
  for (oxp_attr *a = n->attrs; a; a = a->next)
    if (strcmp(a->name, name) == 0) return a;
  return NULL;
}

oxp_attr *oxp_attr_set(oxp_node *n, const char *name, oxp_attr_kind k) {
  oxp_attr *a = oxp_attr_get(n, name);
  if (!a) {
    oxp_arena *ar = graph_of(n)->arena;
    a = oxp_alloc(ar, sizeof *a);
    if (!a || !(a->name = oxp_strdup(ar, name))) return NULL;
    oxp_attr **p = &n->attrs;
    while (*p) p = &(*p)->next;
    *p = a;
  }
  oxp_attr *next = a->next;
  const char *nm = a->name;
  memset(a, 0, sizeof *a);
  a->name = nm;
  a->next = next;
  a->kind = k;
  return a;
}

void oxp_attr_set_i(oxp_node *n, const char *name, int64_t v) {
  oxp_attr *a = oxp_attr_set(n, name, OXP_A_INT);
  if (a) a->i = v;
}

void oxp_attr_set_f(oxp_node *n, const char *name, double v) {
  oxp_attr *a = oxp_attr_set(n, name, OXP_A_FLOAT);
  if (a) a->f = v;
}

/* The setters return nothing: a failed allocation is left in the arena
 * (oxp_arena_failed) for the pipeline to report, and what they leave
 * behind meanwhile is consistent (an empty list, an empty string), never
 * a count without its array nor a NULL array, so readers until then stay
 * in bounds (memcpy of 0 bytes from NULL is undefined too). */
static int64_t no_ints[1];
static double no_floats[1];
static const char *no_strs[1];

void oxp_attr_set_s(oxp_node *n, const char *name, const char *v) {
  oxp_attr *a = oxp_attr_set(n, name, OXP_A_STR);
  if (a && !(a->s = oxp_strdup(graph_of(n)->arena, v))) a->s = "";
}

void oxp_attr_set_t(oxp_node *n, const char *name, oxp_tensor *t) {
  oxp_attr *a = oxp_attr_set(n, name, OXP_A_TENSOR);
  if (a) a->t = t;
}

void oxp_attr_set_ints(oxp_node *n, const char *name, const int64_t *v,
                       int cnt) {
  oxp_attr *a = oxp_attr_set(n, name, OXP_A_INTS);
  if (!a) return;
  a->ints = oxp_alloc(graph_of(n)->arena, sizeof(int64_t) * (size_t)(cnt + 1));
  if (!a->ints) {
    a->ints = no_ints;
    return;
  }
  if (cnt) memcpy(a->ints, v, sizeof(int64_t) * (size_t)cnt);
  a->n = cnt;
}

void oxp_attr_set_floats(oxp_node *n, const char *name, const double *v,
                         int cnt) {
  oxp_attr *a = oxp_attr_set(n, name, OXP_A_FLOATS);
  if (!a) return;
  a->floats = oxp_alloc(graph_of(n)->arena, sizeof(double) * (size_t)(cnt + 1));
  if (!a->floats) {
    a->floats = no_floats;
    return;
  }
  if (cnt) memcpy(a->floats, v, sizeof(double) * (size_t)cnt);
  a->n = cnt;
}

void oxp_attr_set_strs(oxp_node *n, const char *name, const char **v,
                       int cnt) {
  oxp_attr *a = oxp_attr_set(n, name, OXP_A_STRS);
  if (!a) return;
  oxp_arena *ar = graph_of(n)->arena;
  a->strs = oxp_alloc(ar, sizeof(char *) * (size_t)(cnt + 1));
  if (!a->strs) {
    a->strs = no_strs;
    return;
  }
  for (int i = 0; i < cnt; i++)
    if (!(a->strs[i] = oxp_strdup(ar, v[i]))) return;
  a->n = cnt;
}
