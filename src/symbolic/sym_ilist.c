/* sym_ilist.c: int-list arguments that ONNX takes as an input tensor
 * (Resize sizes, Pad pads, Split sizes, Reshape/Expand/Tile shapes,
 * Slice bounds, factory sizes...). In a traced model such a list is
 * often a prim::ListConstruct of aten::size results and arithmetic on
 * them; in a scripted one it may come out of an If or a Loop (an ONNX
 * sequence) or from a tensor (prim::tolist). Every form becomes one 1-D
 * int64 tensor, and the elements that shape inference proves static are
 * read as constants, so a list of static sizes folds now and a symbolic
 * that needs a count (Split's outputs, Pad's rank) has it. */
#include <string.h>

#include "s_control.h"
#include "../export/internal/passes.h"

static const char *src_name(oxp_node *n, int i) {
  oxp_value *v = oxp_sym_src(n, i);
  return v && v->name ? v->name : "?";
}

/* An ONNX sequence of int scalars (a list out of If / Loop / append) as
 * one 1-D tensor: each element a new axis-0 entry. */
static oxp_value *from_sequence(oxp_sctx *c, oxp_value *seq) {
  oxp_node *k = oxp_sym_op(c, "ConcatFromSequence", &seq, 1, 1);
  if (!k) return NULL;
  oxp_attr_set_i(k, "axis", 0);
  oxp_attr_set_i(k, "new_axis", 1);
  oxp_value *t = k->outputs[0];
  int dt = seq->type && seq->type->elem ? seq->type->elem->dtype : 0;
  oxp_sym_set_type(c, t, dt ? dt : OXP_DT_INT64, 1, NULL);
  return dt && dt != OXP_DT_INT64 ? oxp_sym_cast(c, t, OXP_DT_INT64) : t;
}

/* The length of source list v when the graph fixes it: a list built
 * once, or an If whose branches all return lists of one length. -1 when
 * only run time knows (a loop appends). */
static int static_len(const oxp_value *v, int depth) {
  oxp_node *k = v ? v->producer : NULL;
  if (!k || depth > OXP_MAX_BLOCK_DEPTH || oxp_jit_list_mutated(v)) return -1;
  if (oxp_kind_is(k, "prim::ListConstruct")) return k->ninputs;
  if (!oxp_kind_is(k, "prim::If") || k->nblocks != 2) return -1;
  int at = -1;
  for (int i = 0; i < k->noutputs; i++)
    if (k->outputs[i] == v) at = i;
  int a = at >= 0 && at < k->blocks[0]->noutputs
              ? static_len(k->blocks[0]->outputs[at], depth + 1) : -1;
  int b = at >= 0 && at < k->blocks[1]->noutputs
              ? static_len(k->blocks[1]->outputs[at], depth + 1) : -1;
  return a == b ? a : -1;
}

/* Input i of n as a 1-D int64 tensor, whatever form the list has. */
static oxp_value *list_tensor(oxp_sctx *c, oxp_node *n, int i) {
  oxp_value *src = oxp_sym_src(n, i);
  oxp_value *seq = src && oxp_seq_is_list(src) ? oxp_seq_bound(c, src) : NULL;
  oxp_value *t = seq ? from_sequence(c, seq) : oxp_sym_in_as(c, n, i, OXP_DT_INT64);
  if (!t) return NULL;
  int len = seq ? static_len(src, 0) : -1;
  if (len >= 0 && t->type && t->type->rank == 1) t->type->dims[0] = len;
  int r = oxp_sym_rank(t);
  if (r == 0) {
    /* one int standing for the whole list (torch allows it) */
    static const int64_t zero = 0;
    t = oxp_sym_unsqueeze(c, t, &zero, 1);
    oxp_sym_set_type(c, t, OXP_DT_INT64, 1, (int64_t[]){1});
  } else if (r > 1) {
    oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: argument %d (%%%s) is an int list, "
                 "but it is a tensor of rank %d", n->kind, i, src_name(n, i), r);
    return NULL;
  }
  return t;
}

bool oxp_sym_ilist(oxp_sctx *c, oxp_node *n, int i, oxp_ilist *l) {
  memset(l, 0, sizeof *l);
  int64_t *v;
  int cnt;
  if (oxp_sym_ints(c, n, i, &v, &cnt)) {
    l->n = cnt;
    l->v = v;
    l->known = true;
    return true;
  }
  oxp_value *t = list_tensor(c, n, i);
  if (!t) return false;
  l->t = t;
  l->n = -1;
  int64_t d[OXP_MAX_SHAPE_RANK];
  const char *p[OXP_MAX_SHAPE_RANK];
  int k = oxp_si_live_ints(c->live, t, d, p);
  if (k < 0) {
    /* nothing known of the elements; the count may still be */
    int64_t len = oxp_sym_rank(t) == 1 ? t->type->dims[0] : -1;
    bool named = t->type->dim_params && t->type->dim_params[0];
    if (len < 0 || named || len > INT32_MAX) return true;
    k = (int)len;
    for (int j = 0; j < k && j < OXP_MAX_SHAPE_RANK; j++) d[j] = OXP_SYM_UNKNOWN, p[j] = NULL;
  }
  l->n = k;
  l->v = oxp_alloc(oxp_sym_arena(c), sizeof *l->v * (size_t)(k + 1));
  if (!l->v) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory"), false;
  l->known = k <= OXP_MAX_SHAPE_RANK;
  for (int j = 0; j < k; j++) {
    bool known = j < OXP_MAX_SHAPE_RANK && !p[j] && d[j] != OXP_SYM_UNKNOWN;
    l->v[j] = known ? d[j] : OXP_ILIST_RUNTIME;
    l->known &= known;
  }
  return true;
}

oxp_value *oxp_sym_ilist_tensor(oxp_sctx *c, const oxp_ilist *l) {
  if (l->known) return oxp_sym_const_i64s(c, l->v, l->n);
  return l->t;
}

oxp_value *oxp_sym_in_ilist(oxp_sctx *c, oxp_node *n, int i) {
  oxp_ilist l;
  return oxp_sym_ilist(c, n, i, &l) ? oxp_sym_ilist_tensor(c, &l) : NULL;
}

bool oxp_sym_ilist_count(oxp_sctx *c, oxp_node *n, int i, const oxp_ilist *l,
                         const char *why) {
  if (l->n >= 0) return true;
  oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
               "%s: the length of argument %d (%%%s) is known only at run "
               "time, and %s", n->kind, i, src_name(n, i), why);
  return false;
}

oxp_status oxp_sym_runtime_arg(oxp_sctx *c, oxp_node *n, int i,
                               const char *why) {
  return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                      "%s: argument %d (%%%s) is known only at run time, "
                      "and %s", n->kind, i, src_name(n, i), why);
}
