/* s_seq.c: TorchScript lists. A list built and changed in straight-line
 * code stays static: the driver's packs (the ONNX values of its elements),
 * updated in place by append/insert/pop, so it costs no ONNX op and works
 * at every opset. A list that changes inside a loop or a branch, or that a
 * loop carries, becomes an ONNX sequence (opset 11 on): SequenceEmpty /
 * SequenceConstruct, SequenceInsert, SequenceErase, SequenceAt,
 * SequenceLength, ConcatFromSequence. */
#include <string.h>

#include "ops.h"
#include "s_control.h"

bool oxp_seq_is_list(const oxp_value *v) {
  return v && v->type && v->type->kind == OXP_T_LIST;
}

oxp_value *oxp_seq_bound(oxp_sctx *c, oxp_value *v) {
  oxp_value *lv = oxp_lower_lookup(c, v);
  return lv && lv->type && lv->type->kind == OXP_T_SEQUENCE ? lv : NULL;
}

void oxp_seq_rebind(oxp_sctx *c, oxp_value *v, oxp_value *s) {
  oxp_lower_bind_pack(c, v, NULL);
  oxp_lower_bind(c, v, s);
}

static void rebind_pack(oxp_sctx *c, oxp_value *v, oxp_pack *p) {
  oxp_lower_bind(c, v, NULL);
  oxp_lower_bind_pack(c, v, p);
}

static oxp_block *def_block(const oxp_value *v) {
  return v->producer ? v->producer->owner : v->owner;
}

/* May a lowered form of source list v made now be kept for later readers?
 * Only when it is made in v's own block (or the top one): a form made in
 * a subgraph for an outer list is invisible after that subgraph. */
static bool may_cache(oxp_sctx *c, const oxp_value *v) {
  oxp_block *d = def_block(v);
  if (!d || !d->owner) return c->cur == c->dst->top;
  return c->node && c->node->owner == d;
}

/* Element type of a list's elements, from its TorchScript type. */
static int elem_dtype(const oxp_value *v) {
  return v->type && v->type->elem ? oxp_lower_scalar_dtype(v->type->elem) : 0;
}

static oxp_type *seq_type(oxp_sctx *c, int dtype) {
  oxp_arena *a = oxp_sym_arena(c);
  oxp_type *t = oxp_type_new(a, OXP_T_SEQUENCE);
  if (t) t->elem = oxp_type_tensor(a, dtype, -1, NULL);
  return t;
}

/* Elements of a static list: its pack, or its prim::ListConstruct. */
static bool static_elems(oxp_sctx *c, oxp_value *v, oxp_value ***vals,
                         int *cnt) {
  oxp_pack *p = oxp_lower_pack(c, v);
  if (p) {
    *vals = p->vals;
    *cnt = p->n;
    return true;
  }
  if (!v->producer || !oxp_kind_is(v->producer, "prim::ListConstruct"))
    return false;
  oxp_node fake = {.kind = c->node ? c->node->kind : "prim::ListConstruct",
                   .inputs = &v, .ninputs = 1,
                   .owner = c->node ? c->node->owner : NULL};
  return oxp_sym_in_list(c, &fake, 0, vals, cnt);
}

static oxp_status need_seq(oxp_sctx *c, const oxp_value *v, const char *what) {
  return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                      "%s: %s (list %%%s) needs ONNX sequences, which start "
                      "at opset 11 (exporting at opset %d)",
                      c->node ? c->node->kind : "list", what,
                      v->name ? v->name : "?", oxp_sym_opset(c));
}

oxp_value *oxp_seq_of(oxp_sctx *c, oxp_value *v, const char *what) {
  oxp_value *s = oxp_seq_bound(c, v);
  if (s) return s;
  if (oxp_sym_opset(c) < 11) {
    need_seq(c, v, what);
    return NULL;
  }
  oxp_value **vals;
  int cnt;
  if (!static_elems(c, v, &vals, &cnt)) {
    if (!c->d->status)
      oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                   "%s: list %%%s is made by %s, which has no sequence form",
                   c->node ? c->node->kind : "list", v->name ? v->name : "?",
                   v->producer ? v->producer->kind : "a block input");
    return NULL;
  }
  int dt = elem_dtype(v);
  oxp_node *k;
  if (cnt == 0) {
    k = oxp_sym_op(c, "SequenceEmpty", NULL, 0, 1);
    if (k && dt) oxp_attr_set_i(k, "dtype", dt);
  } else {
    if (!dt) dt = oxp_ctl_dtype(vals[0]);
    k = oxp_sym_op(c, "SequenceConstruct", vals, cnt, 1);
  }
  if (!k) return NULL;
  s = k->outputs[0];
  s->type = seq_type(c, dt);
  if (may_cache(c, v)) oxp_seq_rebind(c, v, s);
  return s;
}

/* The SequenceEmpty a sequence chain starts from, if any. */
static oxp_node *chain_origin(oxp_value *v, int depth) {
  while (v && depth++ < 64) {
    oxp_node *p = v->producer;
    if (!p) {
      oxp_block *b = v->owner;
      if (b && b->owner && oxp_kind_is(b->owner, "onnx::Loop") &&
          v->index < b->owner->ninputs)
        v = b->owner->inputs[v->index];
      else
        return NULL;
      continue;
    }
    if (oxp_kind_is(p, "onnx::SequenceEmpty")) return p;
    if (oxp_kind_is(p, "onnx::Loop") && v->index + 2 < p->ninputs)
      v = p->inputs[v->index + 2];
    else if (oxp_kind_is(p, "onnx::If") && p->nblocks == 2)
      v = p->blocks[0]->outputs[v->index];
    else if (p->ninputs > 0 && (oxp_kind_is(p, "onnx::SequenceInsert") ||
                                oxp_kind_is(p, "onnx::SequenceErase") ||
                                oxp_kind_is(p, "onnx::Identity")))
      v = p->inputs[0];
    else
      return NULL;
  }
  return NULL;
}

void oxp_seq_note_elem(oxp_sctx *c, oxp_value *seq, int dtype) {
  if (!dtype || !seq) return;
  if (seq->type && seq->type->elem && !seq->type->elem->dtype)
    seq->type->elem->dtype = dtype;
  oxp_node *e = chain_origin(seq, 0);
  if (e && !oxp_attr_get(e, "dtype")) {
    oxp_attr_set_i(e, "dtype", dtype);
    if (e->outputs[0]->type && e->outputs[0]->type->elem)
      e->outputs[0]->type->elem->dtype = dtype;
  }
}

/* A new sequence value made from seq by op (same element type). */
static oxp_value *seq_op(oxp_sctx *c, const char *op, oxp_value *seq,
                         oxp_value *x, oxp_value *pos) {
  oxp_value *in[3] = {seq, x, pos};
  int nin = strcmp(op, "SequenceErase") == 0 ? (pos ? 2 : 1) : (pos ? 3 : 2);
  if (strcmp(op, "SequenceErase") == 0) in[1] = pos;
  oxp_node *k = oxp_sym_op(c, op, in, nin, 1);
  if (!k) return NULL;
  k->outputs[0]->type = oxp_type_copy(oxp_sym_arena(c), seq->type);
  if (x) oxp_seq_note_elem(c, k->outputs[0], oxp_ctl_dtype(x));
  return k->outputs[0];
}

oxp_value *oxp_seq_copy(oxp_sctx *c, oxp_value *seq) {
  if (oxp_sym_opset(c) >= 14) {
    oxp_value *id = oxp_sym_op1(c, "Identity", seq);
    if (id) id->type = oxp_type_copy(oxp_sym_arena(c), seq->type);
    return id;
  }
  /* Identity takes sequences only from opset 14: insert a placeholder
   * element and erase it again, which leaves the sequence as it was. */
  int dt = seq->type && seq->type->elem ? seq->type->elem->dtype : 0;
  oxp_value *z = oxp_sym_const_scalar(c, 0, dt ? dt : OXP_DT_FLOAT);
  oxp_value *grown = seq_op(c, "SequenceInsert", seq, z, NULL);
  return grown ? seq_op(c, "SequenceErase", grown, NULL,
                        oxp_sym_const_i64(c, -1)) : NULL;
}

static oxp_pack *new_pack(oxp_sctx *c, int n) {
  oxp_pack *p = oxp_alloc(oxp_sym_arena(c), sizeof *p);
  if (!p) return NULL;
  p->vals = oxp_alloc(oxp_sym_arena(c), sizeof *p->vals * (size_t)(n + 1));
  p->n = n;
  return p->vals ? p : NULL;
}

/* The list result of a mutating op: the list itself and the op's output
 * (an alias of it) both see the new state. */
static oxp_status set_list(oxp_sctx *c, oxp_node *n, oxp_value *s,
                           oxp_pack *p) {
  if (!s && !p) return oxp_sym_status(c);
  oxp_value *l = n->inputs[0];
  if (s) {
    oxp_seq_rebind(c, l, s);
    if (n->noutputs > 0 && oxp_seq_is_list(n->outputs[0]))
      oxp_seq_rebind(c, n->outputs[0], s);
  } else {
    rebind_pack(c, l, p);
    if (n->noutputs > 0 && oxp_seq_is_list(n->outputs[0]))
      rebind_pack(c, n->outputs[0], p);
  }
  return OXP_OK;
}

/* Python's index rule for a static list of cnt elements. */
static bool norm_index(int64_t i, int cnt, bool clamp, int64_t *out) {
  if (i < 0) i += cnt;
  if (clamp) i = i < 0 ? 0 : i > cnt ? cnt : i;
  if (!clamp && (i < 0 || i >= cnt)) return false;
  *out = i;
  return true;
}

static oxp_status bad_index(oxp_sctx *c, oxp_node *n, int64_t i, int cnt) {
  return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: index %lld is out of range for "
                      "a list of %d elements", n->kind, (long long)i, cnt);
}

/* The list operand: its sequence, or its static elements. */
static bool list_in(oxp_sctx *c, oxp_node *n, oxp_value **seq,
                    oxp_value ***vals, int *cnt) {
  *seq = oxp_seq_bound(c, n->inputs[0]);
  if (*seq) return true;
  if (static_elems(c, n->inputs[0], vals, cnt)) return true;
  if (!c->d->status) {
    if (oxp_sym_opset(c) < 11)
      need_seq(c, n->inputs[0], "a list made at run time");
    else
      oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                   "%s: list %%%s is made by %s, which is not supported",
                   n->kind, n->inputs[0]->name ? n->inputs[0]->name : "?",
                   n->inputs[0]->producer ? n->inputs[0]->producer->kind
                                          : "a block input");
  }
  return false;
}

/* Falls back to a sequence for a static list when an index is known only
 * at run time. */
static oxp_value *as_seq(oxp_sctx *c, oxp_node *n, const char *what) {
  return oxp_seq_of(c, n->inputs[0], what);
}

/* aten::append(list, x) */
oxp_status oxp_s_list_append(oxp_sctx *c, oxp_node *n) {
  oxp_value *seq, **vals;
  int cnt;
  if (!list_in(c, n, &seq, &vals, &cnt)) return oxp_sym_status(c);
  oxp_value *x = oxp_sym_in(c, n, 1);
  if (!x) return oxp_sym_status(c);
  if (seq) return set_list(c, n, seq_op(c, "SequenceInsert", seq, x, NULL), NULL);
  oxp_pack *p = new_pack(c, cnt + 1);
  if (!p) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  memcpy(p->vals, vals, sizeof *vals * (size_t)cnt);
  p->vals[cnt] = x;
  return set_list(c, n, NULL, p);
}

/* aten::insert(list, i, x) */
oxp_status oxp_s_list_insert(oxp_sctx *c, oxp_node *n) {
  oxp_value *seq, **vals;
  int cnt;
  int64_t i;
  if (!list_in(c, n, &seq, &vals, &cnt)) return oxp_sym_status(c);
  oxp_value *x = oxp_sym_in(c, n, 2);
  if (!x) return oxp_sym_status(c);
  bool ki = oxp_sym_int(n, 1, &i);
  if (!seq && ki) {
    int64_t at;
    norm_index(i, cnt, true, &at);
    oxp_pack *p = new_pack(c, cnt + 1);
    if (!p) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    for (int k = 0, j = 0; k <= cnt; k++)
      p->vals[k] = k == at ? x : vals[j++];
    return set_list(c, n, NULL, p);
  }
  if (!seq && !(seq = as_seq(c, n, "insert at a run-time index")))
    return oxp_sym_status(c);
  /* Python clamps an index past either end; ONNX rejects it. A position
   * past the end is an append; other out-of-range positions fail at run
   * time in onnxruntime rather than silently differ. */
  oxp_value *pos = oxp_sym_in_as(c, n, 1, OXP_DT_INT64);
  return set_list(c, n, seq_op(c, "SequenceInsert", seq, x, pos), NULL);
}

/* aten::pop(list, i=-1) -> element */
oxp_status oxp_s_list_pop(oxp_sctx *c, oxp_node *n) {
  oxp_value *seq, **vals;
  int cnt;
  int64_t i = -1;
  if (!list_in(c, n, &seq, &vals, &cnt)) return oxp_sym_status(c);
  bool ki = n->ninputs < 2 || oxp_sym_int(n, 1, &i);
  if (!seq && ki) {
    int64_t at;
    if (!norm_index(i, cnt, false, &at)) return bad_index(c, n, i, cnt);
    oxp_pack *p = new_pack(c, cnt - 1);
    if (!p) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    for (int k = 0, j = 0; k < cnt; k++)
      if (k != at) p->vals[j++] = vals[k];
    oxp_status st = oxp_sym_set_out(c, n, 0, vals[at]);
    if (st) return st;
    rebind_pack(c, n->inputs[0], p);
    return OXP_OK;
  }
  if (!seq && !(seq = as_seq(c, n, "pop at a run-time index")))
    return oxp_sym_status(c);
  oxp_value *pos = n->ninputs < 2 ? oxp_sym_const_i64(c, -1)
                                  : oxp_sym_in_as(c, n, 1, OXP_DT_INT64);
  if (!pos) return oxp_sym_status(c);
  oxp_value *at = oxp_sym_op2(c, "SequenceAt", seq, pos);
  if (at && seq->type && seq->type->elem)
    oxp_sym_set_type(c, at, seq->type->elem->dtype, -1, NULL);
  oxp_status st = oxp_sym_set_out(c, n, 0, at);
  if (st) return st;
  oxp_value *rest = seq_op(c, "SequenceErase", seq, NULL, pos);
  if (!rest) return oxp_sym_status(c);
  oxp_seq_rebind(c, n->inputs[0], rest);
  return OXP_OK;
}

/* aten::Delete(list, i) */
oxp_status oxp_s_list_delete(oxp_sctx *c, oxp_node *n) {
  oxp_value *seq, **vals;
  int cnt;
  int64_t i;
  if (!list_in(c, n, &seq, &vals, &cnt)) return oxp_sym_status(c);
  if (!seq && oxp_sym_int(n, 1, &i)) {
    int64_t at;
    if (!norm_index(i, cnt, false, &at)) return bad_index(c, n, i, cnt);
    oxp_pack *p = new_pack(c, cnt - 1);
    if (!p) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    for (int k = 0, j = 0; k < cnt; k++)
      if (k != at) p->vals[j++] = vals[k];
    return set_list(c, n, NULL, p);
  }
  if (!seq && !(seq = as_seq(c, n, "del at a run-time index")))
    return oxp_sym_status(c);
  oxp_value *pos = oxp_sym_in_as(c, n, 1, OXP_DT_INT64);
  if (!pos) return oxp_sym_status(c);
  return set_list(c, n, seq_op(c, "SequenceErase", seq, NULL, pos), NULL);
}

/* aten::_set_item(list, i, x): list[i] = x */
oxp_status oxp_s_list_set_item(oxp_sctx *c, oxp_node *n) {
  oxp_value *seq, **vals;
  int cnt;
  int64_t i;
  if (!list_in(c, n, &seq, &vals, &cnt)) return oxp_sym_status(c);
  oxp_value *x = oxp_sym_in(c, n, 2);
  if (!x) return oxp_sym_status(c);
  bool ki = oxp_sym_int(n, 1, &i);
  if (!seq && ki) {
    int64_t at;
    if (!norm_index(i, cnt, false, &at)) return bad_index(c, n, i, cnt);
    oxp_pack *p = new_pack(c, cnt);
    if (!p) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    memcpy(p->vals, vals, sizeof *vals * (size_t)cnt);
    p->vals[at] = x;
    return set_list(c, n, NULL, p);
  }
  if (!ki)
    return oxp_sym_unsupported(c, "assigning a list element at a run-time "
                                  "index");
  if (!seq && !(seq = as_seq(c, n, "list item assignment")))
    return oxp_sym_status(c);
  /* Erase then insert: after the erase, element i of the old list sits
   * where i + 1 counts from the end (i < 0), so -1 becomes an append. */
  oxp_value *erased = seq_op(c, "SequenceErase", seq, NULL,
                             oxp_sym_const_i64(c, i));
  oxp_value *pos = i >= 0 ? oxp_sym_const_i64(c, i)
                   : i == -1 ? NULL : oxp_sym_const_i64(c, i + 1);
  if (!erased) return oxp_sym_status(c);
  return set_list(c, n, seq_op(c, "SequenceInsert", erased, x, pos), NULL);
}

/* aten::clear(list) */
oxp_status oxp_s_list_clear(oxp_sctx *c, oxp_node *n) {
  if (!oxp_seq_bound(c, n->inputs[0])) {
    oxp_pack *p = new_pack(c, 0);
    return p ? set_list(c, n, NULL, p) : oxp_sym_fail(c, OXP_ERR_NOMEM, "oom");
  }
  oxp_value *old = oxp_seq_bound(c, n->inputs[0]);
  oxp_node *e = oxp_sym_op(c, "SequenceEmpty", NULL, 0, 1);
  if (!e) return oxp_sym_status(c);
  int dt = old->type && old->type->elem ? old->type->elem->dtype : 0;
  if (dt) oxp_attr_set_i(e, "dtype", dt);
  e->outputs[0]->type = oxp_type_copy(oxp_sym_arena(c), old->type);
  return set_list(c, n, e->outputs[0], NULL);
}

/* aten::list(list): a copy. Values are never changed in place (every
 * change rebinds the list that was changed), so the copy shares them. */
oxp_status oxp_s_list_copy(oxp_sctx *c, oxp_node *n) {
  if (!oxp_seq_is_list(n->inputs[0]))
    return oxp_sym_unsupported(c, "list() of a non-list value");
  oxp_value *seq, **vals;
  int cnt;
  if (!list_in(c, n, &seq, &vals, &cnt)) return oxp_sym_status(c);
  if (seq) {
    oxp_seq_rebind(c, n->outputs[0], seq);
    return OXP_OK;
  }
  oxp_pack *p = new_pack(c, cnt);
  if (!p) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  memcpy(p->vals, vals, sizeof *vals * (size_t)cnt);
  rebind_pack(c, n->outputs[0], p);
  return OXP_OK;
}

/* aten::len(list) -> int; aten::len(Tensor) -> size(0) */
oxp_status oxp_s_list_len(oxp_sctx *c, oxp_node *n) {
  if (!oxp_seq_is_list(n->inputs[0]))
    return oxp_sym_set_out(c, n, 0, oxp_sym_size(c, oxp_sym_in(c, n, 0), 0));
  oxp_value *seq, **vals;
  int cnt;
  if (!list_in(c, n, &seq, &vals, &cnt)) return oxp_sym_status(c);
  if (!seq) return oxp_sym_set_out(c, n, 0, oxp_sym_const_i64(c, cnt));
  oxp_value *l = oxp_sym_op1(c, "SequenceLength", seq);
  oxp_sym_set_type(c, l, OXP_DT_INT64, 0, NULL);
  return oxp_sym_set_out(c, n, 0, l);
}

/* aten::__getitem__(list, i) */
oxp_status oxp_s_list_getitem(oxp_sctx *c, oxp_node *n) {
  if (!oxp_seq_is_list(n->inputs[0]))
    return oxp_sym_unsupported(c, "__getitem__ of a non-list value");
  oxp_value *seq, **vals;
  int cnt;
  int64_t i;
  if (!list_in(c, n, &seq, &vals, &cnt)) return oxp_sym_status(c);
  if (!seq && oxp_sym_int(n, 1, &i)) {
    int64_t at;
    if (!norm_index(i, cnt, false, &at)) return bad_index(c, n, i, cnt);
    return oxp_sym_set_out(c, n, 0, vals[at]);
  }
  oxp_value *pos = oxp_sym_in_as(c, n, 1, OXP_DT_INT64);
  if (!pos) return oxp_sym_status(c);
  int edt = elem_dtype(n->inputs[0]);
  if (!seq && edt && n->inputs[0]->type->elem->kind != OXP_T_TENSOR) {
    /* A static list of numbers is one 1-D tensor: Gather works at every
     * opset. */
    oxp_value *t = oxp_sym_in(c, n, 0);
    oxp_node *g = t ? oxp_sym_op(c, "Gather", (oxp_value *[]){t, pos}, 2, 1)
                    : NULL;
    if (!g) return oxp_sym_status(c);
    oxp_attr_set_i(g, "axis", 0);
    oxp_sym_set_type(c, g->outputs[0], oxp_ctl_dtype(t), 0, NULL);
    return oxp_sym_set_out(c, n, 0, g->outputs[0]);
  }
  if (!seq && !(seq = as_seq(c, n, "indexing a list at a run-time index")))
    return oxp_sym_status(c);
  oxp_value *at = oxp_sym_op2(c, "SequenceAt", seq, pos);
  if (at && seq->type && seq->type->elem && seq->type->elem->dtype)
    oxp_sym_set_type(c, at, seq->type->elem->dtype, -1, NULL);
  return oxp_sym_set_out(c, n, 0, at);
}

/* ---- wrappers of other families' symbolics ------------------------------- */

oxp_status oxp_seq_concat(oxp_sctx *c, oxp_node *n, oxp_value *seq, bool new_axis) {
  int64_t dim = 0;
  if (n->ninputs > 1 && !oxp_sym_need_int(c, n, 1, &dim))
    return oxp_sym_status(c);
  oxp_node *k = oxp_sym_op(c, "ConcatFromSequence", &seq, 1, 1);
  if (!k) return oxp_sym_status(c);
  oxp_attr_set_i(k, "axis", dim);
  if (new_axis) oxp_attr_set_i(k, "new_axis", 1);
  if (seq->type && seq->type->elem && seq->type->elem->dtype)
    oxp_sym_set_type(c, k->outputs[0], seq->type->elem->dtype, -1, NULL);
  return oxp_sym_set_out(c, n, 0, k->outputs[0]);
}

bool oxp_seq_adds_lists(const oxp_node *n) {
  return n->ninputs == 2 && oxp_seq_is_list(n->inputs[0]);
}

/* aten::add(list, list): concatenation. */
oxp_status oxp_seq_add_lists(oxp_sctx *c, oxp_node *n) {
  oxp_value *a = oxp_seq_bound(c, n->inputs[0]);
  oxp_value *b = oxp_seq_bound(c, n->inputs[1]);
  oxp_value **va = NULL, **vb = NULL;
  int na = 0, nb = 0;
  if (!a && !static_elems(c, n->inputs[0], &va, &na)) return oxp_sym_status(c);
  if (!b && !static_elems(c, n->inputs[1], &vb, &nb)) return oxp_sym_status(c);
  oxp_value *out = n->outputs[0];
  if (!a && !b) {
    oxp_pack *p = new_pack(c, na + nb);
    if (!p) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    memcpy(p->vals, va, sizeof *va * (size_t)na);
    memcpy(p->vals + na, vb, sizeof *vb * (size_t)nb);
    rebind_pack(c, out, p);
    return OXP_OK;
  }
  if (a && b)
    return oxp_sym_unsupported(c, "concatenating two lists that are both "
                                  "built at run time");
  oxp_value *s = a ? a : b;
  for (int k = 0; k < (a ? nb : na) && s; k++) {
    /* a + [x...]: append; [x...] + b: insert at the front, in order. */
    oxp_value *pos = a ? NULL : oxp_sym_const_i64(c, k);
    s = seq_op(c, "SequenceInsert", s, a ? vb[k] : va[k], pos);
  }
  if (!s) return oxp_sym_status(c);
  oxp_seq_rebind(c, out, s);
  return OXP_OK;
}
