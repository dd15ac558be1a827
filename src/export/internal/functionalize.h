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

#endif
