/* jit_functionalize.c: every in-place write becomes a pure op whose
 * result lands in the tensor it aliases, and every later read of that
 * tensor or of any view of it sees the new value (DESIGN.md, "Data
 * flow"). ONNX has no mutation, so this is what makes
 * `y[:, 0] = 0`, `pe[:, 0::2] = sin(...)` or `acc[i] = v` in a loop
 * exportable at all; a write that is dropped gives a model that runs and
 * computes wrong values, so anything not followed exactly is a named
 * error at the node.
 *
 * Two walks. The first (analysis) gives every value its alias facts:
 * a view of a parent (jit_alias.c says which ops are views and how to
 * invert them), a root (a new tensor), or opaque (may alias a root, but
 * not in a way that can be followed: a reshape whose strides are not
 * printed, an If output that is an outer tensor in one branch, a tensor
 * taken out of a list). It also lists, per prim::Loop, the roots defined
 * outside the loop that its body writes.
 *
 * The second walk, in graph order, keeps the current value of each root.
 * A write to v (a chain of views v_k ... v_1 of root r) runs the pure op
 * on v's current value, then carries the result back through the chain
 * by the inverse of each view (select_scatter, slice_scatter, the
 * inverse permutation, view_as ...) into a new value of r. A read of a
 * view made before the last write of its root is re-made from the root's
 * current value (cached per view and version). Writes inside If branches
 * leave the If as new outputs; writes inside a loop body to outer roots
 * become loop-carried values. Linear in the graph: each stale view is
 * re-made at most once per version of its root and block. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "functionalize.h"

enum { A_ROOT, A_VIEW, A_OPAQUE };

typedef struct capture capture;
struct capture { /* a tensor a list or tuple holds, at the version held */
  int root, ver;
  capture *next;
};

typedef struct {
  unsigned char kind;  /* A_* */
  unsigned char vk;    /* A_VIEW: oxp_view_kind */
  bool contig;         /* known to be laid out contiguously */
  oxp_value *parent;   /* A_VIEW: the value it views */
  oxp_value *root;     /* A_VIEW: the root of the chain */
  oxp_value *shadow[4];/* A_OPAQUE: roots it may alias */
  int nshadow;         /* -1: may alias something not known */
  const oxp_node *why; /* A_OPAQUE: the node that made it so */
  capture *caps;       /* list and tuple values: what they hold */
} alias;

typedef struct {
  oxp_value **roots;
  int n, cap;
} rootlist;

typedef struct {
  oxp_value *root, *cur;
  int ver;
} undo;

typedef struct {
  oxp_graph *g;
  oxp_diag *d;
  oxp_status st;
  int n0;            /* values below this id are the input graph's */
  alias *info;
  /* per Loop node, the roots outside it that its body writes */
  oxp_node **loops;
  rootlist *loop_writes;
  int nloops, caploops;
  /* state of the second walk, by value id below n0 */
  oxp_value **cur;   /* current value of a root, NULL: itself */
  int *ver;          /* version stamp of a root's current value */
  int *born;         /* stamp when a value was made (-1: never current) */
  int *nviews;       /* views made of a root so far */
  oxp_value **fresh; /* a view re-made from its root's current value */
  int *fresh_ver;
  oxp_block **fresh_blk;
  const oxp_node **poisoned; /* written through an opaque alias there */
  const char **poison_kind;  /* by that write (renamed pure since) */
  int stamp;
  undo *log;
  int nlog, caplog;
  oxp_node **loopstack; /* Loop nodes around the node being rewritten */
  int depth, capdepth;
  oxp_node **inplace;   /* rewritten writes, for the final check */
  int ninplace, capinplace;
} ctx;

static oxp_status nomem(ctx *c) {
  return c->st = oxp_fail(c->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
}

static bool grow(ctx *c, void **p, int *cap, int need, size_t elem) {
  if (need <= *cap) return true;
  int nc = *cap ? *cap * 2 : 16;
  while (nc < need) nc *= 2;
  void *q = oxp_realloc(c->g->arena, *p, elem * (size_t)*cap, elem * (size_t)nc);
  if (!q) return nomem(c), false;
  *p = q, *cap = nc;
  return true;
}

static const char *vname(const oxp_value *v) { return v && v->name ? v->name : "?"; }

static bool original(const ctx *c, const oxp_value *v) { return v && v->id < c->n0; }

static oxp_block *def_block(const oxp_value *v) {
  return v->producer ? v->producer->owner : v->owner;
}

/* Is block b inside (a block of) node n? */
static bool inside(const oxp_block *b, const oxp_node *n) {
  for (; b; b = b->owner ? b->owner->owner : NULL)
    if (b->owner == n) return true;
  return false;
}

/* Is block a the block b or one around it? */
static bool encloses(const oxp_block *a, const oxp_block *b) {
  for (; b; b = b->owner ? b->owner->owner : NULL)
    if (a == b) return true;
  return false;
}

/* The value whose current version stands for v's data. */
static oxp_value *froot(const ctx *c, oxp_value *v) {
  if (!original(c, v)) return v;
  const alias *a = &c->info[v->id];
  return a->kind == A_VIEW ? a->root : v;
}

static __attribute__((format(printf, 3, 4))) oxp_status
failat(ctx *c, const oxp_node *n, const char *fmt, ...) {
  char msg[640];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return c->st = oxp_fail(c->d, OXP_ERR_UNSUPPORTED, n ? &n->loc : NULL,
                          n ? n->kind : NULL, "%s", msg);
}

/* ---- analysis ---------------------------------------------------------- */

static bool const_int(const oxp_value *v, int64_t *out);
static bool tensor_contig(const ctx *c, const oxp_value *v);

static void set_view(ctx *c, oxp_value *out, oxp_value *parent, oxp_view_kind k) {
  alias *a = &c->info[out->id];
  a->kind = A_VIEW;
  a->vk = (unsigned char)k;
  a->parent = parent;
  a->root = froot(c, parent);
}

static void add_root(alias *a, oxp_value *r) {
  if (a->nshadow < 0) return;
  for (int i = 0; i < a->nshadow; i++)
    if (a->shadow[i] == r) return;
  if (a->nshadow == 4) { a->nshadow = -1; return; }
  a->shadow[a->nshadow++] = r;
}

/* out may alias what v stands for (v itself, or the roots v may alias). */
static void add_shadow(ctx *c, alias *a, oxp_value *v) {
  if (a->nshadow < 0) return;
  if (!original(c, v)) { a->nshadow = -1; return; }
  oxp_value *r = froot(c, v);
  const alias *ra = &c->info[r->id];
  /* what r may alias, out may alias too */
  if (ra->kind == A_OPAQUE && ra != a) {
    if (ra->nshadow < 0) { a->nshadow = -1; return; }
    for (int i = 0; i < ra->nshadow && a->nshadow >= 0; i++) add_root(a, ra->shadow[i]);
  }
  add_root(a, r);
}

static void set_opaque(ctx *c, oxp_value *out, const oxp_node *why) {
  alias *a = &c->info[out->id];
  a->kind = A_OPAQUE;
  a->why = why;
  a->nshadow = 0;
}

/* A list or tuple value's maker, when it is a Construct of known items. */
static const oxp_node *construct(const oxp_value *l) {
  const oxp_node *k = l ? l->producer : NULL;
  return k && (oxp_kind_is(k, "prim::ListConstruct") || oxp_kind_is(k, "prim::TupleConstruct"))
             ? k : NULL;
}

static bool note_loop_write(ctx *c, oxp_node *loop, oxp_value *r) {
  int i = 0;
  while (i < c->nloops && c->loops[i] != loop) i++;
  if (i == c->nloops) {
    if (!grow(c, (void **)&c->loops, &c->caploops, i + 1, sizeof *c->loops)) return false;
    int cap = c->caploops;
    /* loop_writes grows with loops: same capacity */
    rootlist *lw = oxp_realloc(c->g->arena, c->loop_writes, sizeof *lw * (size_t)c->nloops,
                               sizeof *lw * (size_t)cap);
    if (!lw) return nomem(c), false;
    c->loop_writes = lw;
    c->loops[i] = loop;
    memset(&c->loop_writes[i], 0, sizeof *lw);
    c->nloops++;
  }
  rootlist *w = &c->loop_writes[i];
  for (int k = 0; k < w->n; k++)
    if (w->roots[k] == r) return true;
  if (!grow(c, (void **)&w->roots, &w->cap, w->n + 1, sizeof *w->roots)) return false;
  w->roots[w->n++] = r;
  return true;
}

static rootlist *loop_writes(ctx *c, const oxp_node *loop) {
  for (int i = 0; i < c->nloops; i++)
    if (c->loops[i] == loop) return &c->loop_writes[i];
  return NULL;
}

static bool analyse(ctx *c, oxp_block *b, oxp_node **loops, int nl);

static OXP_OUT_OF_LINE bool analyse_node(ctx *c, oxp_node *n, oxp_node **loops, int nl) {
  bool is_loop = oxp_kind_is(n, "prim::Loop") && n->nblocks == 1;
  bool is_if = oxp_kind_is(n, "prim::If");
  if (is_loop) {
    /* A carried parameter is the entry value in the first trip. */
    oxp_block *body = n->blocks[0];
    for (int i = 1; i < body->ninputs && i + 1 < n->ninputs; i++) {
      set_opaque(c, body->inputs[i], n);
      add_shadow(c, &c->info[body->inputs[i]->id], n->inputs[i + 1]);
    }
    loops[nl] = n;
  }
  for (int k = 0; k < n->nblocks; k++)
    if (!analyse(c, n->blocks[k], loops, nl + is_loop)) return false;
  if ((is_if || is_loop) && n->nblocks) {
    int off = is_loop ? 1 : 0;
    for (int i = 0; i < n->noutputs; i++) {
      oxp_value *o = n->outputs[i];
      set_opaque(c, o, n);
      alias *a = &c->info[o->id];
      for (int k = 0; k < n->nblocks; k++) {
        oxp_block *bk = n->blocks[k];
        if (i + off >= bk->noutputs) continue;
        oxp_value *v = bk->outputs[i + off];
        oxp_value *r = froot(c, v);
        if (!inside(def_block(r), n)) add_shadow(c, a, r);
        else if (original(c, r) && c->info[r->id].kind == A_OPAQUE) {
          const alias *ra = &c->info[r->id];
          if (ra->nshadow < 0) a->nshadow = -1;
          for (int s = 0; s < ra->nshadow; s++)
            if (!inside(def_block(ra->shadow[s]), n)) add_shadow(c, a, ra->shadow[s]);
        }
      }
      if (is_loop && i + 2 < n->ninputs) add_shadow(c, a, n->inputs[i + 2]);
      if (a->nshadow == 0) a->kind = A_ROOT; /* new in every branch */
    }
    return true;
  }
  if (n->noutputs < 1) return true;
  if (oxp_is_inplace(n)) {
    oxp_value *self = n->inputs[0];
    set_view(c, n->outputs[0], self, OXP_VIEW_IDENT);
    oxp_value *r = froot(c, self);
    for (int i = nl - 1; i >= 0; i--)
      if (!inside(def_block(r), loops[i]) && !note_loop_write(c, loops[i], r)) return false;
    return true;
  }
  oxp_view_kind k = oxp_view_kind_of(n, n->ninputs > 0 && tensor_contig(c, n->inputs[0]));
  if (k == OXP_VIEW_NONE) {
    bool unpack = oxp_kind_is(n, "prim::ListUnpack") || oxp_kind_is(n, "prim::TupleUnpack");
    bool index = oxp_kind_is(n, "aten::__getitem__") || oxp_kind_is(n, "prim::TupleIndex");
    if (!(unpack || index) || n->ninputs < 1) return true;
    const oxp_node *k2 = construct(n->inputs[0]);
    for (int i = 0; i < n->noutputs; i++) {
      if (unpack && k2 && k2->ninputs == n->noutputs) {
        set_view(c, n->outputs[i], k2->inputs[i], OXP_VIEW_IDENT);
        continue;
      }
      set_opaque(c, n->outputs[i], n);
      alias *a = &c->info[n->outputs[i]->id];
      const alias *la = original(c, n->inputs[0]) ? &c->info[n->inputs[0]->id] : NULL;
      if (k2 && k2->ninputs <= 2) {
        for (int j = 0; j < k2->ninputs; j++) add_shadow(c, a, k2->inputs[j]);
      } else if (la && la->kind == A_OPAQUE) {
        a->nshadow = la->nshadow;
        memcpy(a->shadow, la->shadow, sizeof a->shadow);
      } else {
        a->nshadow = -1;
      }
    }
    return true;
  }
  if (k == OXP_VIEW_MAYBE || k == OXP_VIEW_LIST) {
    set_opaque(c, n->outputs[0], n);
    add_shadow(c, &c->info[n->outputs[0]->id], n->inputs[0]);
    return true;
  }
  set_view(c, n->outputs[0], n->inputs[0], k);
  return true;
}

static bool tensor_contig(const ctx *c, const oxp_value *v) {
  if (!v || !original(c, v)) return false;
  if (c->info[v->id].contig) return true;
  const oxp_type *t = v->type;
  if (!t) return false;
  if (t->kind == OXP_T_TENSOR) return t->rank == 0;
  if (t->kind != OXP_T_LIST) return true; /* ints, floats, None: no layout */
  const oxp_node *k = v->producer;
  if (!k || !oxp_kind_is(k, "prim::ListConstruct")) return false;
  for (int i = 0; i < k->ninputs; i++)
    if (!tensor_contig(c, k->inputs[i])) return false;
  return true;
}

/* Whether n's outputs are laid out contiguously (printed strides win). */
static OXP_OUT_OF_LINE void layout(ctx *c, oxp_node *n) {
  for (int i = 0; i < n->noutputs; i++) {
    oxp_value *o = n->outputs[i];
    alias *a = &c->info[o->id];
    if (o->type && o->type->kind == OXP_T_TENSOR && o->type->strides) {
      a->contig = oxp_type_contiguous(o->type);
      continue;
    }
    if (i > 0 || n->ninputs < 1) continue;
    oxp_value *in = n->inputs[0];
    bool in_c = tensor_contig(c, in);
    int64_t dim = -1, step = 1;
    if (a->kind == A_VIEW) {
      switch ((oxp_view_kind)a->vk) {
      case OXP_VIEW_IDENT: case OXP_VIEW_RESHAPE: a->contig = in_c; break;
      case OXP_VIEW_SLICE: case OXP_VIEW_SELECT: case OXP_VIEW_NARROW:
        /* a window of the first dim of a contiguous tensor is contiguous */
        if (n->ninputs > 1 && const_int(n->inputs[1], &dim) && dim == 0 &&
            (a->vk != OXP_VIEW_SLICE || n->ninputs < 5 || const_int(n->inputs[4], &step)))
          a->contig = in_c && step == 1;
        break;
      default: break;
      }
      continue;
    }
    int rc = oxp_result_contiguous(n);
    bool all = rc == 1;
    if (rc == 2) {
      all = true;
      for (int k = 0; k < n->ninputs && all; k++) all = tensor_contig(c, n->inputs[k]);
    }
    a->contig = all;
  }
}

static bool analyse(ctx *c, oxp_block *b, oxp_node **loops, int nl) {
  for (oxp_node *n = b->first; n; n = n->next) {
    if (!analyse_node(c, n, loops, nl)) return false;
    layout(c, n);
  }
  return true;
}

/* ---- the current value of anything ------------------------------------ */

static bool set_cur(ctx *c, oxp_value *r, oxp_value *v) {
  if (!grow(c, (void **)&c->log, &c->caplog, c->nlog + 1, sizeof *c->log)) return false;
  c->log[c->nlog++] = (undo){r, c->cur[r->id], c->ver[r->id]};
  c->cur[r->id] = v;
  c->ver[r->id] = ++c->stamp;
  return true;
}

static void undo_to(ctx *c, int mark) {
  while (c->nlog > mark) {
    undo u = c->log[--c->nlog];
    c->cur[u.root->id] = u.cur;
    c->ver[u.root->id] = u.ver;
  }
}

static oxp_node *new_node(ctx *c, const char *kind, const oxp_node *like,
                          oxp_value *const *ins, int nin, const oxp_type *t) {
  oxp_node *k = oxp_node_new(c->g, kind, 1);
  if (!k) return nomem(c), NULL;
  for (int i = 0; i < nin; i++)
    if (!oxp_node_add_input(k, ins[i])) return nomem(c), NULL;
  if (t && !(k->outputs[0]->type = oxp_type_copy(c->g->arena, t))) return nomem(c), NULL;
  k->loc = like->loc;
  k->scope = like->scope;
  k->source = like->source;
  return k;
}

static void place(oxp_block *b, oxp_node *at, oxp_node *k) {
  if (at) oxp_node_insert_before(at, k);
  else oxp_block_append(b, k);
}

static oxp_value *resolve(ctx *c, oxp_value *v, oxp_node *at, oxp_block *b);

static bool check_caps(ctx *c, oxp_value *v, oxp_node *at) {
  for (const capture *p = c->info[v->id].caps; p; p = p->next)
    if (c->ver[p->root] > p->ver) {
      failat(c, at, "%%%s holds a tensor that was written after it was built "
             "(through an alias); a list or tuple that sees later writes to "
             "its items is not supported", vname(v));
      return false;
    }
  return true;
}

static bool stale_opaque(ctx *c, oxp_value *v, oxp_node *at) {
  const alias *a = &c->info[v->id];
  for (int i = 0; i < a->nshadow; i++) {
    oxp_value *s = a->shadow[i];
    if (c->ver[s->id] > c->born[v->id]) {
      failat(c, at, "%%%s may alias %%%s (it comes from %s), which was written "
             "after it was made; whether it sees the write is not known from "
             "the graph, so this is not supported", vname(v), vname(s),
             a->why ? a->why->kind : "?");
      return true;
    }
  }
  return false;
}

/* A view re-made on its parent's current value. */
static oxp_value *remake(ctx *c, oxp_value *v, oxp_node *at, oxp_block *b) {
  const alias *a = &c->info[v->id];
  oxp_value *p = resolve(c, a->parent, at, b);
  if (!p) return NULL;
  if (a->vk == OXP_VIEW_IDENT) return p;
  const oxp_node *pr = v->producer;
  oxp_node *k = new_node(c, pr->kind, pr, NULL, 0, v->type);
  if (!k) return NULL;
  k->overload = pr->overload;
  for (oxp_attr *at2 = pr->attrs; at2; at2 = at2->next) {
    oxp_attr *na = oxp_attr_set(k, at2->name, at2->kind);
    if (!na) return nomem(c), NULL;
    oxp_attr *next = na->next;
    *na = *at2;
    na->next = next;
  }
  for (int i = 0; i < pr->ninputs; i++) {
    oxp_value *x = i == 0 ? p : pr->inputs[i] ? resolve(c, pr->inputs[i], at, b) : NULL;
    if (i > 0 && pr->inputs[i] && !x) return NULL;
    if (!oxp_node_add_input(k, x)) return nomem(c), NULL;
  }
  place(b, at, k);
  return k->outputs[0];
}

/* The value that stands for original value v when read at node at (or
 * at the end of block b when at is NULL). */
static oxp_value *resolve(ctx *c, oxp_value *v, oxp_node *at, oxp_block *b) {
  if (!original(c, v)) return v;
  const alias *a = &c->info[v->id];
  if (a->caps && !check_caps(c, v, at)) return NULL;
  oxp_value *r = froot(c, v);
  if (c->poisoned[r->id]) {
    const oxp_node *w = c->poisoned[r->id];
    char where[64];
    snprintf(where, sizeof where, "%d:%d", w->loc.line, w->loc.col);
    failat(c, at, "%%%s is read after %s wrote through a value that may "
           "alias it (at %s); whether the write reached it is not known "
           "from the graph, so this is not supported", vname(v),
           c->poison_kind[r->id], where);
    return NULL;
  }
  if (a->kind == A_OPAQUE && stale_opaque(c, v, at)) return NULL;
  if (a->kind != A_VIEW) return c->cur[v->id] ? c->cur[v->id] : v;
  if (c->ver[r->id] <= c->born[v->id]) return v;
  if (c->fresh[v->id] && c->fresh_ver[v->id] == c->ver[r->id] &&
      encloses(c->fresh_blk[v->id], b))
    return c->fresh[v->id];
  oxp_value *f = remake(c, v, at, b);
  if (!f) return NULL;
  c->fresh[v->id] = f;
  c->fresh_ver[v->id] = c->ver[r->id];
  c->fresh_blk[v->id] = b;
  return f;
}

/* ---- writes -------------------------------------------------------------- */

static bool same_shape_types(const oxp_type *a, const oxp_type *b) {
  if (!oxp_type_is_static(a) || !oxp_type_is_static(b) || a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

static int dtype_of(const oxp_value *v) {
  return v && v->type && v->type->kind == OXP_T_TENSOR ? v->type->dtype : 0;
}

/* New nodes of a write go one after another after *pos. */
static oxp_node *emit(ctx *c, oxp_node **pos, const char *kind, const oxp_node *like,
                      oxp_value *const *ins, int nin, const oxp_type *t) {
  oxp_node *k = new_node(c, kind, like, ins, nin, t);
  if (!k) return NULL;
  oxp_node_insert_after(*pos, k);
  *pos = k;
  return k;
}

static oxp_value *const_ints_node(ctx *c, oxp_node **pos, const oxp_node *like,
                                  const int64_t *v, int n, bool list) {
  oxp_type *t = oxp_type_new(c->g->arena, list ? OXP_T_LIST : OXP_T_INT);
  if (t && list && !(t->elem = oxp_type_new(c->g->arena, OXP_T_INT))) t = NULL;
  if (!t) return nomem(c), NULL;
  oxp_node *k = emit(c, pos, "prim::Constant", like, NULL, 0, t);
  if (!k) return NULL;
  if (list) oxp_attr_set_ints(k, "value", v, n);
  else oxp_attr_set_i(k, "value", v[0]);
  return k->outputs[0];
}

static const oxp_attr *const_attr(const oxp_value *v) {
  const oxp_node *k = v ? v->producer : NULL;
  return k && oxp_kind_is(k, "prim::Constant") ? oxp_attr_get(k, "value") : NULL;
}

static bool const_int(const oxp_value *v, int64_t *out) {
  const oxp_attr *a = const_attr(v);
  if (!a || a->kind != OXP_A_INT) return false;
  *out = a->i;
  return true;
}

/* An int list constant: prim::Constant[value=[...]] or a ListConstruct of
 * int constants. */
static bool const_int_list(const oxp_value *v, int64_t *out, int max, int *n) {
  const oxp_attr *a = const_attr(v);
  if (a && a->kind == OXP_A_INTS && a->n <= max) {
    memcpy(out, a->ints, sizeof *out * (size_t)a->n);
    *n = a->n;
    return true;
  }
  const oxp_node *k = v ? v->producer : NULL;
  if (!k || !oxp_kind_is(k, "prim::ListConstruct") || k->ninputs > max) return false;
  for (int i = 0; i < k->ninputs; i++)
    if (!const_int(k->inputs[i], &out[i])) return false;
  *n = k->ninputs;
  return true;
}

/* narrow(x, dim, start, length) as slice bounds, with a negative start
 * counted from the end of a dim of known size. */
static bool narrow_bounds(ctx *c, oxp_node *w, const oxp_node *pr, const oxp_type *t,
                          int64_t *start, int64_t *end) {
  int64_t dim, len;
  if (!const_int(pr->inputs[1], &dim) || !const_int(pr->inputs[2], start) ||
      !const_int(pr->inputs[3], &len)) {
    failat(c, w, "%s writes through %s with a dim, start or length known only at "
           "run time; write through a slice (x[:, i:i + n]) instead", w->kind, pr->kind);
    return false;
  }
  if (*start < 0) {
    int r = t ? t->rank : -1;
    if (dim < 0 && r > 0) dim += r;
    if (r <= 0 || dim < 0 || dim >= r || t->dims[dim] < 0) {
      failat(c, w, "%s writes through %s with a negative start on a dim of "
             "unknown size", w->kind, pr->kind);
      return false;
    }
    *start += t->dims[dim];
  }
  *end = *start + len;
  return true;
}

/* The new value of v's parent (current value pc) once v holds nv: the
 * inverse of the view that made v. NULL with a named error when ONNX
 * cannot express it exactly. */
static oxp_value *inverse(ctx *c, oxp_node *w, oxp_node **pos, const alias *a,
                          oxp_value *v, oxp_value *pc, oxp_value *nv) {
  const oxp_node *pr = v->producer;
  oxp_value *ins[6];
  int nin = 0;
  const char *kind = NULL;
  switch ((oxp_view_kind)a->vk) {
  case OXP_VIEW_IDENT:
    return nv;
  case OXP_VIEW_EXPAND:
    if (same_shape_types(pr->inputs[0]->type, v->type)) return nv;
    failat(c, w, "%s writes through %s of %%%s, which repeats elements (torch "
           "refuses such writes too)", w->kind, pr->kind, vname(a->parent));
    return NULL;
  case OXP_VIEW_SLICE:
    if (pr->ninputs != 5) break;
    kind = "aten::slice_scatter";
    ins[nin++] = pc, ins[nin++] = nv;
    for (int i = 1; i < 5; i++) ins[nin++] = pr->inputs[i];
    break;
  case OXP_VIEW_SELECT:
    if (pr->ninputs != 3) break;
    kind = "aten::select_scatter";
    ins[nin++] = pc, ins[nin++] = nv, ins[nin++] = pr->inputs[1], ins[nin++] = pr->inputs[2];
    break;
  case OXP_VIEW_DIAGONAL: /* diagonal(x, offset, dim1, dim2) */
    if (pr->ninputs != 4) break;
    kind = "aten::diagonal_scatter";
    ins[nin++] = pc, ins[nin++] = nv;
    for (int i = 1; i < 4; i++) ins[nin++] = pr->inputs[i];
    break;
  case OXP_VIEW_NARROW: {
    int64_t st, end, one = 1;
    if (pr->ninputs != 4 || !narrow_bounds(c, w, pr, pc->type, &st, &end)) {
      if (c->st) return NULL;
      break;
    }
    kind = "aten::slice_scatter";
    ins[nin++] = pc, ins[nin++] = nv, ins[nin++] = pr->inputs[1];
    if (!(ins[nin++] = const_ints_node(c, pos, w, &st, 1, false)) ||
        !(ins[nin++] = const_ints_node(c, pos, w, &end, 1, false)) ||
        !(ins[nin++] = const_ints_node(c, pos, w, &one, 1, false)))
      return NULL;
    break;
  }
  case OXP_VIEW_SELFINV: /* transpose(y, a, b), t(y), numpy_T(y) */
    kind = pr->kind;
    ins[nin++] = nv;
    for (int i = 1; i < pr->ninputs && nin < 6; i++) ins[nin++] = pr->inputs[i];
    break;
  case OXP_VIEW_SWAPARGS: /* movedim(y, b, a) */
    if (pr->ninputs != 3) break;
    kind = pr->kind;
    ins[nin++] = nv, ins[nin++] = pr->inputs[2], ins[nin++] = pr->inputs[1];
    break;
  case OXP_VIEW_PERMUTE: {
    int64_t p[OXP_MAX_RANK], inv[OXP_MAX_RANK];
    int r;
    if (pr->ninputs != 2 || !const_int_list(pr->inputs[1], p, OXP_MAX_RANK, &r)) {
      failat(c, w, "%s writes through %s with dims known only at run time",
             w->kind, pr->kind);
      return NULL;
    }
    for (int i = 0; i < r; i++) inv[i] = -1;
    for (int i = 0; i < r; i++) {
      int64_t d = p[i] < 0 ? p[i] + r : p[i];
      if (d < 0 || d >= r || inv[d] >= 0) {
        failat(c, w, "%s writes through %s whose dims are no permutation",
               w->kind, pr->kind);
        return NULL;
      }
      inv[d] = i;
    }
    kind = "aten::permute";
    ins[nin++] = nv;
    if (!(ins[nin++] = const_ints_node(c, pos, w, inv, r, true))) return NULL;
    break;
  }
  case OXP_VIEW_RESHAPE:
    kind = "aten::view_as";
    ins[nin++] = nv, ins[nin++] = pc;
    break;
  default:
    break;
  }
  if (!kind) {
    failat(c, w, "%s writes through %s of %%%s, which has no exact inverse in "
           "ONNX; this write is not supported", w->kind, pr->kind, vname(a->parent));
    return NULL;
  }
  oxp_node *k = emit(c, pos, kind, w, ins, nin, a->parent->type);
  return k ? k->outputs[0] : NULL;
}

/* src converted to self's dtype and broadcast to its shape, as copy_ and
 * fill_ with a tensor do. */
static oxp_value *copy_value(ctx *c, oxp_node *w, oxp_node **pos, oxp_value *self,
                             oxp_value *src) {
  oxp_value *x = src;
  int sd = dtype_of(self);
  if (!sd || dtype_of(src) != sd) {
    oxp_type *t = oxp_type_copy(c->g->arena, src->type && src->type->kind == OXP_T_TENSOR
                                                  ? src->type : self->type);
    if (!t) return nomem(c), NULL;
    t->dtype = sd;
    oxp_node *k = emit(c, pos, "aten::type_as", w, (oxp_value *[]){x, self}, 2, t);
    if (!k) return NULL;
    x = k->outputs[0];
  }
  if (!same_shape_types(src->type, self->type)) {
    oxp_node *k = emit(c, pos, "aten::expand_as", w, (oxp_value *[]){x, self}, 2, self->type);
    if (!k) return NULL;
    x = k->outputs[0];
  }
  return x;
}

static bool is_tensor(const oxp_value *v) {
  return v && v->type && v->type->kind == OXP_T_TENSOR;
}

/* A write through an opaque alias: the roots it may share can no longer
 * be read (their version moves, and a read of them is an error). */
static bool poison(ctx *c, oxp_node *w, const alias *a) {
  if (a->nshadow < 0) {
    failat(c, w, "%s writes to a tensor that may alias others not known from "
           "the graph (it comes from %s); this is not supported", w->kind,
           a->why ? a->why->kind : "?");
    return false;
  }
  for (int i = 0; i < a->nshadow; i++) {
    oxp_value *s = a->shadow[i];
    c->poisoned[s->id] = w;
    c->poison_kind[s->id] = w->kind;
    c->ver[s->id] = ++c->stamp;
    for (int l = 0; l < c->depth; l++) {
      oxp_node *loop = c->loopstack[l];
      if (inside(def_block(s), loop)) continue;
      /* a read of s earlier in the body would see the write next trip */
      for (oxp_node *n = loop->blocks[0]->first; n; n = n->next)
        for (int k = 0; k < n->ninputs; k++)
          if (original(c, n->inputs[k]) && froot(c, n->inputs[k]) == s) {
            failat(c, w, "%s in a loop writes through a value that may alias "
                   "%%%s, which the loop also reads; this is not supported",
                   w->kind, vname(s));
            return false;
          }
    }
  }
  return true;
}

static oxp_value *strip_ident(const ctx *c, oxp_value *v) {
  while (original(c, v) && c->info[v->id].kind == A_VIEW &&
         c->info[v->id].vk == OXP_VIEW_IDENT)
    v = c->info[v->id].parent;
  return v;
}

static bool same_arg(const oxp_value *a, const oxp_value *b) {
  int64_t x, y;
  return a == b || (const_int(a, &x) && const_int(b, &y) && x == y);
}

/* Do views a and b of one root name exactly the same elements? */
static bool same_view(const ctx *c, oxp_value *a, oxp_value *b) {
  a = strip_ident(c, a), b = strip_ident(c, b);
  if (a == b) return true;
  if (!original(c, a) || !original(c, b)) return false;
  const alias *x = &c->info[a->id], *y = &c->info[b->id];
  if (x->kind != A_VIEW || y->kind != A_VIEW || x->vk != y->vk) return false;
  const oxp_node *p = a->producer, *q = b->producer;
  if (!p || !q || !oxp_kind_is(p, q->kind) || p->ninputs != q->ninputs) return false;
  for (int i = 1; i < p->ninputs; i++)
    if (!same_arg(p->inputs[i], q->inputs[i])) return false;
  return same_view(c, x->parent, y->parent);
}

/* An operand that overlaps the tensor an in-place op writes, other than
 * being that very tensor, gives torch a result that depends on the order
 * it visits elements in (x.add_(x.t()), y.add_(y[..., :1])), which no
 * ONNX graph reproduces. Two selects along one dim of the same view are
 * the same tensor or disjoint, so acc[i] = acc[i - 1] is fine. */
static bool overlap_ok(ctx *c, oxp_node *n, oxp_value *self, oxp_value *u) {
  if (!original(c, u) || !is_tensor(u) || froot(c, u) != froot(c, self) ||
      same_view(c, u, self))
    return true;
  oxp_value *a = strip_ident(c, u), *b = strip_ident(c, self);
  if (original(c, a) && original(c, b) && c->info[a->id].kind == A_VIEW &&
      c->info[b->id].kind == A_VIEW && c->info[a->id].vk == OXP_VIEW_SELECT &&
      c->info[b->id].vk == OXP_VIEW_SELECT &&
      same_arg(a->producer->inputs[1], b->producer->inputs[1]) &&
      same_view(c, c->info[a->id].parent, c->info[b->id].parent))
    return true;
  failat(c, n, "%s reads %%%s, which overlaps the tensor it writes (%%%s) without "
         "being it; torch's result then depends on the order it computes "
         "elements in, so this is not supported (write to a copy: .clone())",
         n->kind, vname(u), vname(self));
  return false;
}

/* n writes its input 0; self is that input as the graph names it, and
 * n's inputs already hold current values. */
static OXP_OUT_OF_LINE bool rewrite_write(ctx *c, oxp_node *n, oxp_value *const *orig,
                                          oxp_block *b) {
  oxp_value *self = orig[0], *out = n->outputs[0], *sc = n->inputs[0];
  for (int i = 1; i < n->ninputs; i++)
    if (!overlap_ok(c, n, self, orig[i])) return false;
  oxp_value *r = self;
  while (original(c, r) && c->info[r->id].kind == A_VIEW) r = c->info[r->id].parent;
  if (original(c, r) && c->info[r->id].kind == A_OPAQUE && !poison(c, n, &c->info[r->id]))
    return false;
  if (oxp_inplace_is_meta(n) && (r != self || c->nviews[r->id] > 0)) {
    failat(c, n, "%s changes the shape of %%%s in place while another view of "
           "it exists; this is not supported", n->kind, vname(self));
    return false;
  }
  oxp_node *pos = n;
  oxp_value *nv;
  bool keep = !oxp_kind_is(n, "aten::copy_") &&
              !(oxp_kind_is(n, "aten::fill_") && n->ninputs >= 2 && is_tensor(n->inputs[1]));
  if (!keep) {
    if (n->ninputs < 2) {
      failat(c, n, "%s without a source", n->kind);
      return false;
    }
    if (!(nv = copy_value(c, n, &pos, sc, n->inputs[1]))) return false;
  } else {
    int sd = dtype_of(sc);
    bool promotes = oxp_inplace_promotes(n) && !oxp_inplace_is_meta(n) &&
                    is_tensor(self); /* add_ of a list is list += list */
    int pd = promotes ? oxp_inplace_pure_dtype(n, sd) : sd;
    const oxp_type *st = self->type ? self->type : out->type;
    if (st && !oxp_inplace_is_meta(n)) {
      if (!(out->type = oxp_type_copy(c->g->arena, st))) return nomem(c), false;
      if (out->type->kind == OXP_T_TENSOR) out->type->dtype = pd;
    }
    nv = out;
    if (promotes && (pd != sd || !pd)) {
      /* an in-place op keeps self's dtype; its pure form may promote */
      oxp_node *k = emit(c, &pos, "aten::type_as", n, (oxp_value *[]){out, sc}, 2, st);
      if (!k) return false;
      nv = k->outputs[0];
    }
  }
  /* A write to an empty view changes no element of its base, and its
   * result is the (empty) view itself. */
  bool empty = oxp_type_numel(self->type) == 0 && !oxp_inplace_is_meta(n);
  if (empty) nv = sc;
  oxp_value *nself = nv;
  const char *pure = keep ? oxp_inplace_pure_kind(c->g->arena, n) : NULL;
  if (keep && !pure) return nomem(c), false;
  oxp_value *v = self;
  while (!empty && original(c, v) && c->info[v->id].kind == A_VIEW) {
    const alias *a = &c->info[v->id];
    oxp_value *pc = resolve(c, a->parent, n, b);
    if (!pc || !(nv = inverse(c, n, &pos, a, v, pc, nv))) return false;
    v = a->parent;
  }
  while (empty && original(c, v) && c->info[v->id].kind == A_VIEW)
    v = c->info[v->id].parent;
  if (!empty && !set_cur(c, v, nv)) return false;
  /* An opaque value written through is current itself: only its other
   * aliases went stale (poison moved their roots' versions). */
  if (original(c, v) && c->info[v->id].kind == A_OPAQUE) c->born[v->id] = c->stamp;
  if (keep) n->kind = pure; /* renamed last: errors above name the write */
  /* From now on the op's own result stands for self. */
  c->born[out->id] = -1;
  c->fresh[out->id] = nself;
  c->fresh_ver[out->id] = c->ver[v->id];
  c->fresh_blk[out->id] = b;
  if (!grow(c, (void **)&c->inplace, &c->capinplace, c->ninplace + 1, sizeof *c->inplace))
    return false;
  c->inplace[c->ninplace++] = keep ? NULL : n;
  if (!keep) oxp_node_destroy(n);
  return true;
}

/* Containers record the versions of the tensors they hold. */
static bool capture_items(ctx *c, oxp_node *n, oxp_value *const *orig) {
  oxp_value *l;
  int from = 0;
  if (oxp_kind_is(n, "aten::append") && n->ninputs == 2) {
    l = orig[0], from = 1;
  } else if ((oxp_kind_is(n, "prim::ListConstruct") ||
              oxp_kind_is(n, "prim::TupleConstruct")) && n->noutputs == 1) {
    l = n->outputs[0];
  } else {
    return true;
  }
  if (!original(c, l)) return true;
  for (int i = from; i < n->ninputs; i++) {
    oxp_value *v = orig[i];
    if (!original(c, v)) continue;
    for (const capture *p = c->info[v->id].caps; p; p = p->next) {
      capture *q = oxp_alloc(c->g->arena, sizeof *q);
      if (!q) return nomem(c), false;
      *q = *p;
      q->next = c->info[l->id].caps, c->info[l->id].caps = q;
    }
    if (!is_tensor(v)) continue;
    oxp_value *r = froot(c, v);
    capture *q = oxp_alloc(c->g->arena, sizeof *q);
    if (!q) return nomem(c), false;
    *q = (capture){r->id, c->ver[r->id], c->info[l->id].caps};
    c->info[l->id].caps = q;
  }
  return true;
}

static bool walk(ctx *c, oxp_block *b);

/* Roots defined outside n whose value the log since mark changed, in
 * the order first changed, with their values at the end of the block. */
static bool changed_roots(ctx *c, const oxp_node *n, int mark, rootlist *roots,
                          rootlist *vals) {
  for (int i = mark; i < c->nlog; i++) {
    oxp_value *r = c->log[i].root;
    if (inside(def_block(r), n)) continue;
    int k = 0;
    while (k < roots->n && roots->roots[k] != r) k++;
    if (k < roots->n) continue;
    if (!grow(c, (void **)&roots->roots, &roots->cap, k + 1, sizeof *roots->roots) ||
        !grow(c, (void **)&vals->roots, &vals->cap, k + 1, sizeof *vals->roots))
      return false;
    roots->roots[k] = r, roots->n = k + 1;
    vals->roots[k] = c->cur[r->id] ? c->cur[r->id] : r, vals->n = k + 1;
  }
  return true;
}

static oxp_type *type_of_root(ctx *c, oxp_value *r) {
  return r->type ? oxp_type_copy(c->g->arena, r->type) : NULL;
}

/* Writes in the branches of an If to tensors from outside it leave the
 * If as new outputs: each branch yields its own value (or the one from
 * before the If when it wrote nothing). */
static OXP_OUT_OF_LINE bool rewrite_if(ctx *c, oxp_node *n) {
  rootlist roots[2] = {{0}}, vals[2] = {{0}}, all = {0};
  for (int k = 0; k < n->nblocks && k < 2; k++) {
    int mark = c->nlog;
    if (!walk(c, n->blocks[k]) || !changed_roots(c, n, mark, &roots[k], &vals[k]))
      return false;
    undo_to(c, mark);
    for (int i = 0; i < roots[k].n; i++) {
      int j = 0;
      while (j < all.n && all.roots[j] != roots[k].roots[i]) j++;
      if (j < all.n) continue;
      if (!grow(c, (void **)&all.roots, &all.cap, all.n + 1, sizeof *all.roots)) return false;
      all.roots[all.n++] = roots[k].roots[i];
    }
  }
  if (n->nblocks > 2 && all.n) {
    failat(c, n, "a write inside a node with %d blocks", n->nblocks);
    return false;
  }
  for (int j = 0; j < all.n; j++) {
    oxp_value *r = all.roots[j];
    oxp_value *before = c->cur[r->id] ? c->cur[r->id] : r;
    for (int k = 0; k < n->nblocks; k++) {
      oxp_value *v = before;
      for (int i = 0; i < roots[k].n; i++)
        if (roots[k].roots[i] == r) v = vals[k].roots[i];
      if (!oxp_block_add_output(n->blocks[k], v)) return nomem(c), false;
    }
    oxp_value *o = oxp_node_add_output(n);
    if (!o) return nomem(c), false;
    o->type = type_of_root(c, r);
    if (!set_cur(c, r, o)) return false;
  }
  return true;
}

/* Writes in a loop body to tensors from outside the loop become
 * loop-carried values: the body starts from the value of the previous
 * trip and hands its last value on. */
static OXP_OUT_OF_LINE bool rewrite_loop(ctx *c, oxp_node *n, oxp_block *b) {
  oxp_block *body = n->blocks[0];
  const rootlist *w = loop_writes(c, n);
  int nw = w ? w->n : 0;
  int first_out = n->noutputs;
  int mark = c->nlog;
  for (int j = 0; j < nw; j++) {
    oxp_value *r = w->roots[j];
    oxp_value *init = resolve(c, r, n, b);
    if (!init) return false;
    if (!oxp_node_add_input(n, init)) return nomem(c), false;
    oxp_value *p = oxp_block_add_input(body, NULL, type_of_root(c, r));
    if (!p || !set_cur(c, r, p)) return p ? false : (nomem(c), false);
  }
  for (int i = 0; i < body->ninputs; i++)
    if (original(c, body->inputs[i])) c->born[body->inputs[i]->id] = c->stamp;
  if (!grow(c, (void **)&c->loopstack, &c->capdepth, c->depth + 1, sizeof *c->loopstack))
    return false;
  c->loopstack[c->depth++] = n;
  bool ok = walk(c, body);
  c->depth--;
  if (!ok) return false;
  for (int i = mark + nw; i < c->nlog; i++) {
    oxp_value *r = c->log[i].root;
    bool listed = false;
    for (int j = 0; j < nw; j++) listed |= w->roots[j] == r;
    if (!listed && !inside(def_block(r), n)) {
      c->st = oxp_fail(c->d, OXP_ERR_INTERNAL, &n->loc, n->kind,
                       "functionalization: a write in this loop to %%%s was not "
                       "foreseen", vname(r));
      return false;
    }
  }
  for (int j = 0; j < nw; j++) {
    oxp_value *r = w->roots[j];
    if (!oxp_block_add_output(body, c->cur[r->id] ? c->cur[r->id] : r)) return nomem(c), false;
  }
  undo_to(c, mark);
  for (int j = 0; j < nw; j++) {
    oxp_value *o = oxp_node_add_output(n);
    if (!o) return nomem(c), false;
    o->type = type_of_root(c, w->roots[j]);
    if (!set_cur(c, w->roots[j], o)) return false;
  }
  (void)first_out;
  return true;
}

static OXP_OUT_OF_LINE bool rewrite_node(ctx *c, oxp_node *n, oxp_block *b) {
  oxp_value *orig_buf[8], **orig = orig_buf;
  if (n->ninputs > 8 && !(orig = oxp_alloc(c->g->arena, sizeof *orig * (size_t)n->ninputs)))
    return nomem(c), false;
  for (int i = 0; i < n->ninputs; i++) orig[i] = n->inputs[i];
  if (!capture_items(c, n, orig)) return false;
  for (int i = 0; i < n->ninputs; i++) {
    if (!n->inputs[i]) continue;
    oxp_value *v = resolve(c, n->inputs[i], n, b);
    if (!v) return false;
    if (v != n->inputs[i]) oxp_node_set_input(n, i, v);
  }
  bool is_loop = oxp_kind_is(n, "prim::Loop") && n->nblocks == 1;
  if (oxp_kind_is(n, "prim::If")) {
    if (!rewrite_if(c, n)) return false;
  } else if (is_loop) {
    if (!rewrite_loop(c, n, b)) return false;
  } else {
    for (int k = 0; k < n->nblocks; k++)
      if (!walk(c, n->blocks[k])) return false;
  }
  if (oxp_is_inplace(n) && !(oxp_kind_is(n, "prim::If") || is_loop))
    return rewrite_write(c, n, orig, b);
  for (int i = 0; i < n->noutputs; i++) {
    oxp_value *o = n->outputs[i];
    if (!original(c, o)) continue;
    c->born[o->id] = c->stamp;
    if (c->info[o->id].kind == A_VIEW) c->nviews[froot(c, o)->id]++;
  }
  return true;
}

static bool walk(ctx *c, oxp_block *b) {
  OXP_FOR_NODES(b, n, nx)
    if (!rewrite_node(c, n, b)) return false;
  for (int i = 0; i < b->noutputs; i++) {
    oxp_value *v = resolve(c, b->outputs[i], NULL, b);
    if (!v) return false;
    if (v != b->outputs[i]) oxp_block_set_output(b, i, v);
  }
  return true;
}

/* Every write was turned into a pure op, or its node is gone with
 * nothing left reading its result: none can have been dropped. */
static bool check_writes(ctx *c, oxp_block *b) {
  for (oxp_node *n = b->first; n; n = n->next) {
    if (oxp_is_inplace(n)) {
      c->st = oxp_fail(c->d, OXP_ERR_INTERNAL, &n->loc, n->kind,
                       "functionalization left an in-place op");
      return false;
    }
    for (int k = 0; k < n->nblocks; k++)
      if (!check_writes(c, n->blocks[k])) return false;
  }
  return true;
}

oxp_status oxp_jit_functionalize(oxp_graph *g, oxp_diag *d) {
  ctx c = {.g = g, .d = d, .n0 = g->nvalues};
  size_t n = (size_t)c.n0 + 1;
  oxp_arena *a = g->arena;
  c.info = oxp_alloc(a, sizeof *c.info * n);
  c.cur = oxp_alloc(a, sizeof *c.cur * n);
  c.ver = oxp_alloc(a, sizeof *c.ver * n);
  c.born = oxp_alloc(a, sizeof *c.born * n);
  c.nviews = oxp_alloc(a, sizeof *c.nviews * n);
  c.fresh = oxp_alloc(a, sizeof *c.fresh * n);
  c.fresh_ver = oxp_alloc(a, sizeof *c.fresh_ver * n);
  c.fresh_blk = oxp_alloc(a, sizeof *c.fresh_blk * n);
  c.poisoned = oxp_alloc(a, sizeof *c.poisoned * n);
  c.poison_kind = oxp_alloc(a, sizeof *c.poison_kind * n);
  oxp_node **loops = oxp_alloc(a, sizeof *loops * (OXP_MAX_BLOCK_DEPTH + 1));
  if (!c.info || !c.cur || !c.ver || !c.born || !c.nviews || !c.fresh ||
      !c.fresh_ver || !c.fresh_blk || !c.poisoned || !c.poison_kind || !loops)
    return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  for (int i = 0; i < g->top->ninputs; i++)
    c.info[g->top->inputs[i]->id].contig = oxp_type_contiguous(g->top->inputs[i]->type);
  if (!analyse(&c, g->top, loops, 0) || !walk(&c, g->top)) return c.st;
  for (int i = 0; i < c.ninplace; i++) {
    const oxp_node *w = c.inplace[i];
    if (w && (w->outputs[0]->nuses > 0 || oxp_value_is_block_output(w->outputs[0])))
      return oxp_fail(d, OXP_ERR_INTERNAL, &w->loc, w->kind,
                      "functionalization: the result of this write is still read");
  }
  if (!check_writes(&c, g->top)) return c.st;
  return OXP_OK;
}
