/* functionalize.h: the alias facts of jit_alias.c, shared with the
 * functionalization pass (jit_functionalize.c). */
#ifndef OXP_FUNCTIONALIZE_H
#define OXP_FUNCTIONALIZE_H

#include "passes.h"

typedef enum {
  OXP_VIEW_NONE,     /* a new tensor */
  OXP_VIEW_SLICE,
  OXP_VIEW_SELECT,
  OXP_VIEW_NARROW,
  OXP_VIEW_DIAGONAL,
  OXP_VIEW_SELFINV,
  OXP_VIEW_PERMUTE,
  OXP_VIEW_SWAPARGS,
  OXP_VIEW_RESHAPE,
  OXP_VIEW_IDENT,
  OXP_VIEW_EXPAND,
  OXP_VIEW_OPAQUE,   /* an alias with no exact inverse */
  OXP_VIEW_LIST,     /* a list of aliases (split, chunk, unbind) */
  OXP_VIEW_MAYBE,    /* may alias or copy: not knowable from the text */
  /* Row kinds that oxp_view_kind_of resolves into the ones above: */
  OXP_VIEW_RESHAPE_MAYBE,
  OXP_VIEW_CONTIG_MAYBE,
  OXP_VIEW_TO_MAYBE
} oxp_view_kind;

/* How output 0 of n relates to its input 0; in_contig: input 0 is known
 * to be contiguous (when its type prints no strides). */
oxp_view_kind oxp_view_kind_of(const oxp_node *n, bool in_contig);
/* Strides printed and contiguous. */
bool oxp_type_contiguous(const oxp_type *t);
/* 1: n's result is contiguous; 2: it is when its tensor inputs are
 * (cat and stack: their list's items); 0: not known. */
int oxp_result_contiguous(const oxp_node *n);

/* The view table is in strcmp order (it is binary-searched); for tests. */
bool oxp_alias_table_sorted(void);
/* aten::add_, aten::__iand__, ...: writes its input 0 and returns it. */
bool oxp_is_inplace(const oxp_node *n);
/* squeeze_, transpose_, resize_, ...: change shape or strides in place. */
bool oxp_inplace_is_meta(const oxp_node *n);
/* The pure op of an in-place one (aten::add for aten::add_). */
const char *oxp_inplace_pure_kind(oxp_arena *a, const oxp_node *n);
/* The dtype the pure op computes when input 0 has self_dtype (an
 * in-place op keeps self's): 0 when an operand's dtype is unknown. */
int oxp_inplace_pure_dtype(const oxp_node *n, int self_dtype);
/* Does the pure op's dtype come from promotion (add, mul, eq, ...)? */
bool oxp_inplace_promotes(const oxp_node *n);

/* ---- the pass's private state (jit_functionalize.c and its two helpers:
 * functionalize_facts.c, the alias analysis; functionalize_inverse.c,
 * the inverse of each view) ---------------------------------------------- */

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
  bool dynamic;      /* --dynamic-axes: a traced size may change at run time */
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

/* functionalize_util.c: statuses, array growth, block nesting, constants. */
oxp_status oxp_fz_nomem(ctx *c);
bool oxp_fz_grow(ctx *c, void **p, int *cap, int need, size_t elem);
oxp_status oxp_fz_fail(ctx *c, const oxp_node *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Is block b inside (a block of) node n? */
bool oxp_fz_inside(const oxp_block *b, const oxp_node *n);
bool oxp_fz_const_int(const oxp_value *v, int64_t *out);
const oxp_attr *oxp_fz_const_attr(const oxp_value *v);

/* Inline helpers over the side tables. */
static inline const char *oxp_fz_name(const oxp_value *v) {
  return v && v->name ? v->name : "?";
}
/* A value of the input graph (side tables cover only those). */
static inline bool oxp_fz_original(const ctx *c, const oxp_value *v) {
  return v && v->id < c->n0;
}
static inline oxp_block *oxp_fz_def_block(const oxp_value *v) {
  return v->producer ? v->producer->owner : v->owner;
}
/* The value whose current version stands for v's data. */
static inline oxp_value *oxp_fz_root(const ctx *c, oxp_value *v) {
  if (!oxp_fz_original(c, v)) return v;
  const alias *a = &c->info[v->id];
  return a->kind == A_VIEW ? a->root : v;
}
static inline bool oxp_fz_is_tensor(const oxp_value *v) {
  return v && v->type && v->type->kind == OXP_T_TENSOR;
}
static inline int oxp_fz_dtype(const oxp_value *v) {
  return oxp_fz_is_tensor(v) ? v->type->dtype : 0;
}

/* functionalize_facts.c: alias facts of every value, and per loop the
 * outer roots its body writes. */
bool oxp_fz_analyse(ctx *c);
const rootlist *oxp_fz_loop_writes(ctx *c, const oxp_node *loop);

/* functionalize_inverse.c: new nodes, and the inverse of a view. */
bool oxp_fz_same_shape(const oxp_type *a, const oxp_type *b);
oxp_node *oxp_fz_new_node(ctx *c, const char *kind, const oxp_node *like,
                          oxp_value *const *ins, int nin, const oxp_type *t);
oxp_node *oxp_fz_emit(ctx *c, oxp_node **pos, const char *kind, const oxp_node *like,
                      oxp_value *const *ins, int nin, const oxp_type *t);
oxp_value *oxp_fz_inverse(ctx *c, oxp_node *w, oxp_node **pos, const alias *a,
                          oxp_value *v, oxp_value *pc, oxp_value *nv);
oxp_value *oxp_fz_copy_value(ctx *c, oxp_node *w, oxp_node **pos, oxp_value *self,
                             oxp_value *src);

#endif
