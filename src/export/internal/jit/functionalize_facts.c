/* functionalize_facts.c: the first walk of functionalization
 * (jit_functionalize.c): what every value of the input graph is to the
 * tensors it may share memory with. A view of a parent (jit_alias.c says
 * which ops are views), a root (a new tensor), or opaque: it may alias a
 * root, but not in a way that can be followed (a reshape of a tensor
 * whose layout is unknown, an If output that is an outer tensor in one
 * branch, a tensor taken out of a list). Whether a value is laid out
 * contiguously is tracked too, since that decides whether a reshape
 * aliases. And per prim::Loop, the roots from outside it that its body
 * writes, which become loop-carried values. */
#include <string.h>

#include "functionalize.h"

static bool tensor_contig(const ctx *c, const oxp_value *v);

static void set_view(ctx *c, oxp_value *out, oxp_value *parent, oxp_view_kind k) {
  alias *a = &c->info[out->id];
  a->kind = A_VIEW;
  a->vk = (unsigned char)k;
  a->parent = parent;
  a->root = oxp_fz_root(c, parent);
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
  if (!oxp_fz_original(c, v)) { a->nshadow = -1; return; }
  oxp_value *r = oxp_fz_root(c, v);
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
    if (!oxp_fz_grow(c, (void **)&c->loops, &c->caploops, i + 1, sizeof *c->loops)) return false;
    int cap = c->caploops;
    /* loop_writes grows with loops: same capacity */
    rootlist *lw = oxp_realloc(c->g->arena, c->loop_writes, sizeof *lw * (size_t)c->nloops,
                               sizeof *lw * (size_t)cap);
    if (!lw) return oxp_fz_nomem(c), false;
    c->loop_writes = lw;
    c->loops[i] = loop;
    memset(&c->loop_writes[i], 0, sizeof *lw);
    c->nloops++;
  }
  rootlist *w = &c->loop_writes[i];
  for (int k = 0; k < w->n; k++)
    if (w->roots[k] == r) return true;
  if (!oxp_fz_grow(c, (void **)&w->roots, &w->cap, w->n + 1, sizeof *w->roots)) return false;
  w->roots[w->n++] = r;
  return true;
}

const rootlist *oxp_fz_loop_writes(ctx *c, const oxp_node *loop) {
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
        oxp_value *r = oxp_fz_root(c, v);
        if (!oxp_fz_inside(oxp_fz_def_block(r), n)) add_shadow(c, a, r);
        else if (oxp_fz_original(c, r) && c->info[r->id].kind == A_OPAQUE) {
          const alias *ra = &c->info[r->id];
          if (ra->nshadow < 0) a->nshadow = -1;
          for (int s = 0; s < ra->nshadow; s++)
            if (!oxp_fz_inside(oxp_fz_def_block(ra->shadow[s]), n)) add_shadow(c, a, ra->shadow[s]);
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
    oxp_value *r = oxp_fz_root(c, self);
    for (int i = nl - 1; i >= 0; i--)
      if (!oxp_fz_inside(oxp_fz_def_block(r), loops[i]) && !note_loop_write(c, loops[i], r)) return false;
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
      const alias *la = oxp_fz_original(c, n->inputs[0]) ? &c->info[n->inputs[0]->id] : NULL;
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
  if (!v || !oxp_fz_original(c, v)) return false;
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
        if (n->ninputs > 1 && oxp_fz_const_int(n->inputs[1], &dim) && dim == 0 &&
            (a->vk != OXP_VIEW_SLICE || n->ninputs < 5 || oxp_fz_const_int(n->inputs[4], &step)))
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

bool oxp_fz_analyse(ctx *c) {
  oxp_graph *g = c->g;
  oxp_node **loops = oxp_alloc(g->arena, sizeof *loops * (OXP_MAX_BLOCK_DEPTH + 1));
  if (!loops) return oxp_fz_nomem(c), false;
  for (int i = 0; i < g->top->ninputs; i++)
    c->info[g->top->inputs[i]->id].contig = oxp_type_contiguous(g->top->inputs[i]->type);
  return analyse(c, g->top, loops, 0);
}
