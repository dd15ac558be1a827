/* jit_functionalize.c: every in-place write becomes a pure op whose
 * result lands in the tensor it aliases, and every later read of that
 * tensor or of any view of it sees the new value (DESIGN.md, "Data
 * flow"). ONNX has no mutation, so this is what makes
 * `y[:, 0] = 0`, `pe[:, 0::2] = sin(...)` or `acc[i] = v` in a loop
 * exportable at all; a write that is dropped gives a model that runs and
 * computes wrong values, so anything not followed exactly is a named
 * error at the node.
 *
 * Two walks. The first (functionalize_facts.c) gives every value its
 * alias facts: a view of a parent, a root (a new tensor), or opaque (may
 * alias a root in a way that cannot be followed), and lists, per
 * prim::Loop, the roots defined outside the loop that its body writes.
 *
 * The second walk, in graph order, keeps the current value of each root.
 * A write to v (a chain of views v_k ... v_1 of root r) runs the pure op
 * on v's current value, then carries the result back through the chain
 * by the inverse of each view (functionalize_inverse.c) into a new value
 * of r. A read of a
 * view made before the last write of its root is re-made from the root's
 * current value (cached per view and version). Writes inside If branches
 * leave the If as new outputs; writes inside a loop body to outer roots
 * become loop-carried values. Linear in the graph: each stale view is
 * re-made at most once per version of its root and block. */
#include <stdio.h>
#include <string.h>

#include "functionalize.h"

/* Is block a the block b or one around it? */
static bool encloses(const oxp_block *a, const oxp_block *b) {
  for (; b; b = b->owner ? b->owner->owner : NULL)
    if (a == b) return true;
  return false;
}

/* ---- the current value of anything ------------------------------------ */

static bool set_cur(ctx *c, oxp_value *r, oxp_value *v) {
  if (!oxp_fz_grow(c, (void **)&c->log, &c->caplog, c->nlog + 1, sizeof *c->log)) return false;
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


static void place(oxp_block *b, oxp_node *at, oxp_node *k) {
  if (at) oxp_node_insert_before(at, k);
  else oxp_block_append(b, k);
}

static oxp_value *resolve(ctx *c, oxp_value *v, oxp_node *at, oxp_block *b);

static bool check_caps(ctx *c, oxp_value *v, oxp_node *at) {
  for (const capture *p = c->info[v->id].caps; p; p = p->next)
    if (c->ver[p->root] > p->ver) {
      oxp_fz_fail(c, at, "%%%s holds a tensor that was written after it was built "
             "(through an alias); a list or tuple that sees later writes to "
             "its items is not supported", oxp_fz_name(v));
      return false;
    }
  return true;
}

static bool stale_opaque(ctx *c, oxp_value *v, oxp_node *at) {
  const alias *a = &c->info[v->id];
  for (int i = 0; i < a->nshadow; i++) {
    oxp_value *s = a->shadow[i];
    if (c->ver[s->id] > c->born[v->id]) {
      oxp_fz_fail(c, at, "%%%s may alias %%%s (it comes from %s), which was written "
             "after it was made; whether it sees the write is not known from "
             "the graph, so this is not supported", oxp_fz_name(v), oxp_fz_name(s),
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
  oxp_node *k = oxp_fz_new_node(c, pr->kind, pr, NULL, 0, v->type);
  if (!k) return NULL;
  k->overload = pr->overload;
  for (oxp_attr *at2 = pr->attrs; at2; at2 = at2->next) {
    oxp_attr *na = oxp_attr_set(k, at2->name, at2->kind);
    if (!na) return oxp_fz_nomem(c), NULL;
    oxp_attr *next = na->next;
    *na = *at2;
    na->next = next;
  }
  for (int i = 0; i < pr->ninputs; i++) {
    oxp_value *x = i == 0 ? p : pr->inputs[i] ? resolve(c, pr->inputs[i], at, b) : NULL;
    if (i > 0 && pr->inputs[i] && !x) return NULL;
    if (!oxp_node_add_input(k, x)) return oxp_fz_nomem(c), NULL;
  }
  place(b, at, k);
  return k->outputs[0];
}

/* The value that stands for original value v when read at node at (or
 * at the end of block b when at is NULL). */
static oxp_value *resolve(ctx *c, oxp_value *v, oxp_node *at, oxp_block *b) {
  if (!oxp_fz_original(c, v)) return v;
  const alias *a = &c->info[v->id];
  if (a->caps && !check_caps(c, v, at)) return NULL;
  oxp_value *r = oxp_fz_root(c, v);
  if (c->poisoned[r->id]) {
    const oxp_node *w = c->poisoned[r->id];
    char where[64];
    snprintf(where, sizeof where, "%d:%d", w->loc.line, w->loc.col);
    oxp_fz_fail(c, at, "%%%s is read after %s wrote through a value that may "
           "alias it (at %s); whether the write reached it is not known "
           "from the graph, so this is not supported", oxp_fz_name(v),
           c->poison_kind[r->id], where);
    return NULL;
  }
  if (a->kind == A_OPAQUE && stale_opaque(c, v, at)) return NULL;
  /* A view of an opaque value is as stale as that value (a scripted
   * flatten of a select, then a write to the select: views seed 9202
   * program 27325 read the flatten's view without the write). */
  if (a->kind == A_VIEW && c->info[r->id].kind == A_OPAQUE && stale_opaque(c, r, at)) return NULL;
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

/* A write through an opaque alias: the roots it may share can no longer
 * be read (their version moves, and a read of them is an error). */
static bool poison(ctx *c, oxp_node *w, const alias *a) {
  if (a->nshadow < 0) {
    oxp_fz_fail(c, w, "%s writes to a tensor that may alias others not known from "
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
      if (oxp_fz_inside(oxp_fz_def_block(s), loop)) continue;
      /* a read of s earlier in the body would see the write next trip */
      for (oxp_node *n = loop->blocks[0]->first; n; n = n->next)
        for (int k = 0; k < n->ninputs; k++)
          if (oxp_fz_original(c, n->inputs[k]) && oxp_fz_root(c, n->inputs[k]) == s) {
            oxp_fz_fail(c, w, "%s in a loop writes through a value that may alias "
                   "%%%s, which the loop also reads; this is not supported",
                   w->kind, oxp_fz_name(s));
            return false;
          }
    }
  }
  return true;
}

static oxp_value *strip_ident(const ctx *c, oxp_value *v) {
  while (oxp_fz_original(c, v) && c->info[v->id].kind == A_VIEW &&
         c->info[v->id].vk == OXP_VIEW_IDENT)
    v = c->info[v->id].parent;
  return v;
}

static bool same_arg(const oxp_value *a, const oxp_value *b) {
  int64_t x, y;
  return a == b || (oxp_fz_const_int(a, &x) && oxp_fz_const_int(b, &y) && x == y);
}

/* Do views a and b of one root name exactly the same elements? */
static bool same_view(const ctx *c, oxp_value *a, oxp_value *b) {
  a = strip_ident(c, a), b = strip_ident(c, b);
  if (a == b) return true;
  if (!oxp_fz_original(c, a) || !oxp_fz_original(c, b)) return false;
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
  if (!oxp_fz_original(c, u) || !oxp_fz_is_tensor(u) || oxp_fz_root(c, u) != oxp_fz_root(c, self) ||
      same_view(c, u, self))
    return true;
  oxp_value *a = strip_ident(c, u), *b = strip_ident(c, self);
  if (oxp_fz_original(c, a) && oxp_fz_original(c, b) && c->info[a->id].kind == A_VIEW &&
      c->info[b->id].kind == A_VIEW && c->info[a->id].vk == OXP_VIEW_SELECT &&
      c->info[b->id].vk == OXP_VIEW_SELECT &&
      same_arg(a->producer->inputs[1], b->producer->inputs[1]) &&
      same_view(c, c->info[a->id].parent, c->info[b->id].parent))
    return true;
  oxp_fz_fail(c, n, "%s reads %%%s, which overlaps the tensor it writes (%%%s) without "
         "being it; torch's result then depends on the order it computes "
         "elements in, so this is not supported (write to a copy: .clone())",
         n->kind, oxp_fz_name(u), oxp_fz_name(self));
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
  while (oxp_fz_original(c, r) && c->info[r->id].kind == A_VIEW) r = c->info[r->id].parent;
  if (oxp_fz_original(c, r) && c->info[r->id].kind == A_OPAQUE && !poison(c, n, &c->info[r->id]))
    return false;
  if (oxp_inplace_is_meta(n) && (r != self || c->nviews[r->id] > 0)) {
    oxp_fz_fail(c, n, "%s changes the shape of %%%s in place while another view of "
           "it exists; this is not supported", n->kind, oxp_fz_name(self));
    return false;
  }
  oxp_node *pos = n;
  oxp_value *nv;
  bool keep = !oxp_kind_is(n, "aten::copy_") &&
              !(oxp_kind_is(n, "aten::fill_") && n->ninputs >= 2 && oxp_fz_is_tensor(n->inputs[1]));
  if (!keep) {
    if (n->ninputs < 2) {
      oxp_fz_fail(c, n, "%s without a source", n->kind);
      return false;
    }
    if (!(nv = oxp_fz_copy_value(c, n, &pos, sc, n->inputs[1]))) return false;
  } else {
    int sd = oxp_fz_dtype(sc);
    bool promotes = oxp_inplace_promotes(n) && !oxp_inplace_is_meta(n) &&
                    oxp_fz_is_tensor(self); /* add_ of a list is list += list */
    int pd = promotes ? oxp_inplace_pure_dtype(n, sd) : sd;
    /* self may be an earlier in-place op's result, which that op retyped
     * as its pure form (which may promote): self's own dtype is that of
     * its current value (mul_ of a double into a float, then sub_ of a
     * double: difftest views seed 9201 program 7961). */
    oxp_type *st = NULL;
    const oxp_type *st0 = self->type ? self->type : out->type;
    if (st0 && !(st = oxp_type_copy(c->g->arena, st0))) return oxp_fz_nomem(c), false;
    if (st && st->kind == OXP_T_TENSOR && sd && c->born[self->id] == -1) st->dtype = sd;
    if (st && !oxp_inplace_is_meta(n)) {
      if (!(out->type = oxp_type_copy(c->g->arena, st))) return oxp_fz_nomem(c), false;
      if (out->type->kind == OXP_T_TENSOR) out->type->dtype = pd;
    }
    nv = out;
    if (promotes && (pd != sd || !pd)) {
      /* an in-place op keeps self's dtype; its pure form may promote */
      oxp_node *k = oxp_fz_emit(c, &pos, "aten::type_as", n, (oxp_value *[]){out, sc}, 2, st);
      if (!k) return false;
      nv = k->outputs[0];
    }
  }
  /* A write to an empty view changes no element of its base, and its
   * result is the (empty) view itself. */
  bool empty = oxp_type_numel(self->type) == 0 && !oxp_inplace_is_meta(n);
  /* Empty at the traced sizes is not empty at every size when an axis is
   * dynamic (x[..., :-7] of a dim traced at 6, run at 9), and the general
   * form's Expand to a 0-size shape gives 1 in onnxruntime: refuse. */
  if (empty && c->dynamic)
    return oxp_fz_fail(c, n, "%s writes to %%%s, which is empty at the traced sizes; with "
                       "--dynamic-axes it may not be empty at run time, and such a write "
                       "is not supported", n->kind, self->name ? self->name : "?"), false;
  if (empty) nv = sc;
  oxp_value *nself = nv;
  const char *pure = keep ? oxp_inplace_pure_kind(c->g->arena, n) : NULL;
  if (keep && !pure) return oxp_fz_nomem(c), false;
  oxp_value *v = self;
  while (!empty && oxp_fz_original(c, v) && c->info[v->id].kind == A_VIEW) {
    const alias *a = &c->info[v->id];
    oxp_value *pc = resolve(c, a->parent, n, b);
    if (!pc || !(nv = oxp_fz_inverse(c, n, &pos, a, v, pc, nv))) return false;
    v = a->parent;
  }
  while (empty && oxp_fz_original(c, v) && c->info[v->id].kind == A_VIEW)
    v = c->info[v->id].parent;
  if (!empty && !set_cur(c, v, nv)) return false;
  /* An opaque value written through is current itself: only its other
   * aliases went stale (poison moved their roots' versions). */
  if (oxp_fz_original(c, v) && c->info[v->id].kind == A_OPAQUE) c->born[v->id] = c->stamp;
  if (keep) oxp_node_set_kind(n, pure); /* renamed last: errors above name the write */
  /* From now on the op's own result stands for self. */
  c->born[out->id] = -1;
  c->fresh[out->id] = nself;
  c->fresh_ver[out->id] = c->ver[v->id];
  c->fresh_blk[out->id] = b;
  if (!oxp_fz_grow(c, (void **)&c->inplace, &c->capinplace, c->ninplace + 1, sizeof *c->inplace))
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
  if (!oxp_fz_original(c, l)) return true;
  for (int i = from; i < n->ninputs; i++) {
    oxp_value *v = orig[i];
    if (!oxp_fz_original(c, v)) continue;
    for (const capture *p = c->info[v->id].caps; p; p = p->next) {
      capture *q = oxp_alloc(c->g->arena, sizeof *q);
      if (!q) return oxp_fz_nomem(c), false;
      *q = *p;
      q->next = c->info[l->id].caps, c->info[l->id].caps = q;
    }
    if (!oxp_fz_is_tensor(v)) continue;
    oxp_value *r = oxp_fz_root(c, v);
    capture *q = oxp_alloc(c->g->arena, sizeof *q);
    if (!q) return oxp_fz_nomem(c), false;
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
    if (oxp_fz_inside(oxp_fz_def_block(r), n)) continue;
    int k = 0;
    while (k < roots->n && roots->roots[k] != r) k++;
    if (k < roots->n) continue;
    if (!oxp_fz_grow(c, (void **)&roots->roots, &roots->cap, k + 1, sizeof *roots->roots) ||
        !oxp_fz_grow(c, (void **)&vals->roots, &vals->cap, k + 1, sizeof *vals->roots))
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
      if (!oxp_fz_grow(c, (void **)&all.roots, &all.cap, all.n + 1, sizeof *all.roots)) return false;
      all.roots[all.n++] = roots[k].roots[i];
    }
  }
  if (n->nblocks > 2 && all.n) {
    oxp_fz_fail(c, n, "a write inside a node with %d blocks", n->nblocks);
    return false;
  }
  for (int j = 0; j < all.n; j++) {
    oxp_value *r = all.roots[j];
    oxp_value *before = c->cur[r->id] ? c->cur[r->id] : r;
    for (int k = 0; k < n->nblocks; k++) {
      oxp_value *v = before;
      for (int i = 0; i < roots[k].n; i++)
        if (roots[k].roots[i] == r) v = vals[k].roots[i];
      if (!oxp_block_add_output(n->blocks[k], v)) return oxp_fz_nomem(c), false;
    }
    oxp_value *o = oxp_node_add_output(n);
    if (!o) return oxp_fz_nomem(c), false;
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
  const rootlist *w = oxp_fz_loop_writes(c, n);
  int nw = w ? w->n : 0;
  int first_out = n->noutputs;
  int mark = c->nlog;
  for (int j = 0; j < nw; j++) {
    oxp_value *r = w->roots[j];
    oxp_value *init = resolve(c, r, n, b);
    if (!init) return false;
    if (!oxp_node_add_input(n, init)) return oxp_fz_nomem(c), false;
    oxp_value *p = oxp_block_add_input(body, NULL, type_of_root(c, r));
    if (!p || !set_cur(c, r, p)) return p ? false : (oxp_fz_nomem(c), false);
  }
  for (int i = 0; i < body->ninputs; i++)
    if (oxp_fz_original(c, body->inputs[i])) c->born[body->inputs[i]->id] = c->stamp;
  if (!oxp_fz_grow(c, (void **)&c->loopstack, &c->capdepth, c->depth + 1, sizeof *c->loopstack))
    return false;
  c->loopstack[c->depth++] = n;
  bool ok = walk(c, body);
  c->depth--;
  if (!ok) return false;
  for (int i = mark + nw; i < c->nlog; i++) {
    oxp_value *r = c->log[i].root;
    bool listed = false;
    for (int j = 0; j < nw; j++) listed |= w->roots[j] == r;
    if (!listed && !oxp_fz_inside(oxp_fz_def_block(r), n)) {
      c->st = oxp_fail(c->d, OXP_ERR_INTERNAL, &n->loc, n->kind,
                       "functionalization: a write in this loop to %%%s was not "
                       "foreseen", oxp_fz_name(r));
      return false;
    }
  }
  for (int j = 0; j < nw; j++) {
    oxp_value *r = w->roots[j];
    if (!oxp_block_add_output(body, c->cur[r->id] ? c->cur[r->id] : r)) return oxp_fz_nomem(c), false;
  }
  undo_to(c, mark);
  for (int j = 0; j < nw; j++) {
    oxp_value *o = oxp_node_add_output(n);
    if (!o) return oxp_fz_nomem(c), false;
    o->type = type_of_root(c, w->roots[j]);
    if (!set_cur(c, w->roots[j], o)) return false;
  }
  (void)first_out;
  return true;
}

static OXP_OUT_OF_LINE bool rewrite_node(ctx *c, oxp_node *n, oxp_block *b) {
  oxp_value *orig_buf[8], **orig = orig_buf;
  if (n->ninputs > 8 && !(orig = oxp_alloc(c->g->arena, sizeof *orig * (size_t)n->ninputs)))
    return oxp_fz_nomem(c), false;
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
    if (!oxp_fz_original(c, o)) continue;
    c->born[o->id] = c->stamp;
    if (c->info[o->id].kind == A_VIEW) c->nviews[oxp_fz_root(c, o)->id]++;
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

oxp_status oxp_jit_functionalize(oxp_graph *g, const oxp_options *o, oxp_diag *d) {
  ctx c = {.g = g, .d = d, .n0 = g->nvalues, .dynamic = o && o->n_dynamic_axes > 0};
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
  if (!c.info || !c.cur || !c.ver || !c.born || !c.nviews || !c.fresh ||
      !c.fresh_ver || !c.fresh_blk || !c.poisoned || !c.poison_kind)
    return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  if (!oxp_fz_analyse(&c) || !walk(&c, g->top)) return c.st;
  for (int i = 0; i < c.ninplace; i++) {
    const oxp_node *w = c.inplace[i];
    if (w && (w->outputs[0]->nuses > 0 || oxp_value_is_block_output(w->outputs[0])))
      return oxp_fail(d, OXP_ERR_INTERNAL, &w->loc, w->kind,
                      "functionalization: the result of this write is still read");
  }
  if (!check_writes(&c, g->top)) return c.st;
  return OXP_OK;
}
