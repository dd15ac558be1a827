/* s_control_types.c: types around ONNX subgraphs. Scripted graphs say
 * little more than `Tensor`, and shape inference (shape_infer.c) has no
 * rules for If, Loop or sequences, while an ONNX main graph needs every
 * output typed and onnxruntime needs the branches and carried values to
 * agree. So after lowering, inference runs over the graph and this file
 * completes what flows through control flow: If outputs from both
 * branches, Loop carried values from what they are fed and what the body
 * returns (dims kept only when loop-invariant), sequence element types
 * from what goes in. A few rounds settle nested constructs. */
#include <string.h>

#include "passes.h"
#include "s_control.h"

/* ---- element types ----------------------------------------------------------- */

static bool op_in(const char *op, const char *const *set) {
  for (int i = 0; set[i]; i++)
    if (strcmp(op, set[i]) == 0) return true;
  return false;
}

static int guess(const oxp_value *v, int depth);

/* What an op's output element type is, from its inputs, for the ops
 * lowering emits most; 0 when the op is not one of them. */
static int op_dtype(const oxp_node *n, int idx, int depth) {
  static const char *const as_bool[] = {
      "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Not",
      "And", "Or", "Xor", "IsNaN", "IsInf", NULL};
  static const char *const as_i64[] = {
      "Shape", "Size", "ArgMax", "ArgMin", "NonZero", "SequenceLength", NULL};
  static const char *const as_in0[] = {
      "Identity", "Add", "Sub", "Mul", "Div", "Neg", "Abs", "Relu", "Tanh",
      "Sigmoid", "Exp", "Log", "Sqrt", "Pow", "Max", "Min", "Sum", "Mean",
      "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten", "Concat",
      "Gather", "GatherElements", "Slice", "Expand", "Tile", "Softmax",
      "LogSoftmax", "MatMul", "Gemm", "ReduceSum", "ReduceMean", "ReduceMax",
      "ReduceMin", "ReduceProd", "Clip", "Floor", "Ceil", "Round", "Sign",
      "Erf", "Reciprocal", "LeakyRelu", "Elu", "Selu", "Softplus", "Mod",
      "CumSum", "Pad", "Resize", "Split", "Conv", "BatchNormalization",
      "LayerNormalization", "MaxPool", "AveragePool", "GlobalAveragePool",
      "Dropout", "TopK", "Trilu", "ScatterElements", "ScatterND",
      "GatherND", "Range", NULL};
  const char *k = n->kind;
  if (strncmp(k, "onnx::", 6) != 0) return 0;
  const char *op = k + 6;
  if (op_in(op, as_bool)) return OXP_DT_BOOL;
  if (op_in(op, as_i64)) return OXP_DT_INT64;
  if (strcmp(op, "Cast") == 0) {
    oxp_attr *a = oxp_attr_get(n, "to");
    return a ? (int)a->i : 0;
  }
  if (strcmp(op, "ConstantOfShape") == 0) {
    oxp_attr *a = oxp_attr_get(n, "value");
    return a && a->t ? a->t->dtype : OXP_DT_FLOAT;
  }
  if (strcmp(op, "Where") == 0)
    return n->ninputs > 1 ? guess(n->inputs[1], depth + 1) : 0;
  if (strcmp(op, "TopK") == 0 && idx == 1) return OXP_DT_INT64;
  if (strcmp(op, "SequenceAt") == 0 && n->ninputs > 0) {
    const oxp_type *t = n->inputs[0]->type;
    return t && t->kind == OXP_T_SEQUENCE && t->elem ? t->elem->dtype : 0;
  }
  if (strcmp(op, "Loop") == 0 && n->nblocks == 1 &&
      idx + 2 < n->blocks[0]->ninputs)
    return guess(n->blocks[0]->inputs[idx + 2], depth + 1);
  if (strcmp(op, "If") == 0 && n->nblocks == 2) {
    for (int k2 = 0; k2 < 2; k2++)
      if (idx < n->blocks[k2]->noutputs) {
        int dt = guess(n->blocks[k2]->outputs[idx], depth + 1);
        if (dt) return dt;
      }
    return 0;
  }
  if (op_in(op, as_in0) && n->ninputs > 0)
    return guess(n->inputs[0], depth + 1);
  return 0;
}

static int guess(const oxp_value *v, int depth) {
  if (!v || depth > 48) return 0;
  if (v->type && v->type->kind == OXP_T_TENSOR && v->type->dtype)
    return v->type->dtype;
  if (v->init) return v->init->dtype;
  if (v->producer) return op_dtype(v->producer, v->index, depth);
  /* A Loop body's carried input has the type of what the Loop is fed. */
  oxp_block *b = v->owner;
  if (b && b->owner && oxp_kind_is(b->owner, "onnx::Loop") && v->index >= 2 &&
      v->index < b->owner->ninputs)
    return guess(b->owner->inputs[v->index], depth + 1);
  return 0;
}

int oxp_ctl_dtype(const oxp_value *v) { return guess(v, 0); }

oxp_type *oxp_ctl_carried_type(oxp_sctx *c, const oxp_value *init,
                               const oxp_type *src) {
  oxp_arena *a = oxp_sym_arena(c);
  if (init && init->type && init->type->kind == OXP_T_SEQUENCE) {
    oxp_type *t = oxp_type_new(a, OXP_T_SEQUENCE);
    if (t) t->elem = oxp_type_copy(a, init->type->elem);
    return t;
  }
  int dt = oxp_ctl_dtype(init);
  if (!dt) dt = oxp_lower_scalar_dtype(src);
  int rank = oxp_sym_rank(init);
  if (rank < 0 && src && src->kind != OXP_T_TENSOR && oxp_lower_scalar_dtype(src))
    rank = 0;
  return oxp_type_tensor(a, dt, rank, NULL);
}

/* ---- completion after lowering ----------------------------------------- */

static bool same_type(const oxp_type *a, const oxp_type *b) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind) return false;
  if (a->kind == OXP_T_SEQUENCE) return same_type(a->elem, b->elem);
  if (a->kind != OXP_T_TENSOR) return true;
  if (a->dtype != b->dtype || a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++) {
    if (a->dims[i] != b->dims[i]) return false;
    const char *pa = a->dim_params ? a->dim_params[i] : NULL;
    const char *pb = b->dim_params ? b->dim_params[i] : NULL;
    if ((pa || pb) && (!pa || !pb || strcmp(pa, pb) != 0)) return false;
  }
  return true;
}

/* What two values that meet (two branches, a loop's entry and its back
 * edge) have in common. guess_rank: with one rank unknown, take the
 * other (a main-graph output needs a shape; a wrong rank fails loudly in
 * onnxruntime, none fails the checker). */
static oxp_type *meet(oxp_arena *a, const oxp_type *x, const oxp_type *y,
                      bool guess_rank) {
  if (!x || !y) {
    const oxp_type *k = x ? x : y;
    if (!k) return NULL;
    oxp_type *r = oxp_type_copy(a, k);
    if (r && r->kind == OXP_T_TENSOR)
      for (int i = 0; i < r->rank; i++) r->dims[i] = -1, r->dim_params = NULL;
    return r;
  }
  if (x->kind == OXP_T_SEQUENCE || y->kind == OXP_T_SEQUENCE) {
    oxp_type *r = oxp_type_new(a, OXP_T_SEQUENCE);
    if (!r) return NULL;
    /* An element rank unknown here mostly means "no element yet" (an
     * empty sequence), so the other side's rank is taken. */
    r->elem = meet(a, x->kind == OXP_T_SEQUENCE ? x->elem : NULL,
                   y->kind == OXP_T_SEQUENCE ? y->elem : NULL, true);
    return r;
  }
  if (x->kind != OXP_T_TENSOR || y->kind != OXP_T_TENSOR)
    return oxp_type_copy(a, x);
  int dt = x->dtype ? x->dtype : y->dtype;
  int rank = x->rank == y->rank ? x->rank : -1;
  if (guess_rank && rank < 0) rank = x->rank >= 0 ? x->rank : y->rank;
  oxp_type *r = oxp_type_tensor(a, dt, rank, NULL);
  if (!r || x->rank != y->rank) return r;
  for (int i = 0; i < rank; i++) {
    const char *px = x->dim_params ? x->dim_params[i] : NULL;
    const char *py = y->dim_params ? y->dim_params[i] : NULL;
    if (px && py && strcmp(px, py) == 0) {
      if (!r->dim_params) r->dim_params = oxp_alloc(a, sizeof(char *) * (size_t)rank);
      if (r->dim_params) r->dim_params[i] = px;
    } else if (!px && !py && x->dims[i] == y->dims[i]) {
      r->dims[i] = x->dims[i];
    }
  }
  return r;
}

/* Sets v's type to t when that says more; true when it changed. */
static bool update(oxp_value *v, oxp_type *t) {
  if (!t || same_type(v->type, t)) return false;
  v->type = t;
  return true;
}

static oxp_type *elem_of(const oxp_value *v) {
  return v && v->type && v->type->kind == OXP_T_SEQUENCE ? v->type->elem : NULL;
}

static oxp_type *seq_of(oxp_arena *a, oxp_type *elem) {
  oxp_type *t = oxp_type_new(a, OXP_T_SEQUENCE);
  if (t) t->elem = elem;
  return t;
}

static bool complete_seq(oxp_arena *a, oxp_node *n) {
  const char *op = n->kind + 6;
  oxp_value *o = n->outputs[0];
  if (strcmp(op, "SequenceConstruct") == 0) {
    oxp_type *e = n->ninputs ? oxp_type_copy(a, n->inputs[0]->type) : NULL;
    for (int i = 1; i < n->ninputs && e; i++) e = meet(a, e, n->inputs[i]->type, false);
    return update(o, seq_of(a, e));
  }
  if (strcmp(op, "SequenceInsert") == 0 && n->ninputs >= 2) {
    oxp_type *e = elem_of(n->inputs[0]);
    /* An empty sequence has no shape to meet: the element's type is it. */
    bool empty = n->inputs[0]->producer &&
                 oxp_kind_is(n->inputs[0]->producer, "onnx::SequenceEmpty");
    e = empty ? oxp_type_copy(a, n->inputs[1]->type)
              : meet(a, e, n->inputs[1]->type, true);
    return update(o, seq_of(a, e));
  }
  if (strcmp(op, "SequenceErase") == 0)
    return update(o, oxp_type_copy(a, n->inputs[0]->type));
  if (strcmp(op, "SequenceAt") == 0)
    return update(o, oxp_type_copy(a, elem_of(n->inputs[0])));
  if (strcmp(op, "SequenceLength") == 0)
    return update(o, oxp_type_tensor(a, OXP_DT_INT64, 0, NULL));
  if (strcmp(op, "ConcatFromSequence") == 0) {
    oxp_type *e = elem_of(n->inputs[0]);
    if (!e || e->kind != OXP_T_TENSOR) return false;
    oxp_attr *na = oxp_attr_get(n, "new_axis");
    int extra = na && na->i ? 1 : 0;
    return update(o, oxp_type_tensor(a, e->dtype, e->rank < 0 ? -1 : e->rank + extra,
                                     NULL));
  }
  return false;
}

static bool complete_block(oxp_arena *a, oxp_block *b) {
  bool changed = false;
  for (oxp_node *n = b->first; n; n = n->next) {
    for (int k = 0; k < n->nblocks; k++) changed |= complete_block(a, n->blocks[k]);
    if (oxp_kind_is(n, "onnx::If") && n->nblocks == 2) {
      for (int i = 0; i < n->noutputs; i++)
        changed |= update(n->outputs[i],
                          meet(a, n->blocks[0]->outputs[i]->type,
                               n->blocks[1]->outputs[i]->type, true));
    } else if (oxp_kind_is(n, "onnx::Loop") && n->nblocks == 1) {
      oxp_block *body = n->blocks[0];
      for (int k = 0; k < n->noutputs && 2 + k < body->ninputs; k++) {
        oxp_type *t = meet(a, n->inputs[2 + k]->type,
                           body->outputs[1 + k]->type, true);
        changed |= update(body->inputs[2 + k], t);
        changed |= update(n->outputs[k], oxp_type_copy(a, t));
      }
    } else if (strncmp(n->kind, "onnx::Sequence", 14) == 0 ||
               oxp_kind_is(n, "onnx::ConcatFromSequence")) {
      changed |= complete_seq(a, n);
    }
  }
  return changed;
}

static bool has_blocks(const oxp_block *b) {
  for (const oxp_node *n = b->first; n; n = n->next)
    if (n->nblocks || strncmp(n->kind, "onnx::Sequence", 14) == 0) return true;
  return false;
}

static bool unknown(const oxp_type *t) {
  if (!t) return false;
  if (t->kind == OXP_T_TENSOR) return !t->dtype;
  if (t->kind == OXP_T_SEQUENCE) return !t->elem || unknown(t->elem);
  return false;
}

/* onnxruntime infers a subgraph value's type from the outer graph when
 * none is given, but rejects elem_type 0. */
static void strip_unknown(oxp_block *b) {
  for (oxp_node *n = b->first; n; n = n->next)
    for (int k = 0; k < n->nblocks; k++) {
      oxp_block *s = n->blocks[k];
      for (int i = 0; i < s->ninputs; i++)
        if (unknown(s->inputs[i]->type)) s->inputs[i]->type = NULL;
      for (int i = 0; i < s->noutputs; i++)
        if (unknown(s->outputs[i]->type)) s->outputs[i]->type = NULL;
      strip_unknown(s);
    }
}

oxp_status oxp_control_types(oxp_graph *g, const oxp_options *o,
                             oxp_diag *d) {
  if (!has_blocks(g->top)) return OXP_OK;
  oxp_pass p;
  oxp_status st = oxp_pass_init(&p, g, o, d);
  for (int round = 0; !st && round < 4; round++) {
    if ((st = oxp_shape_infer(&p))) break;
    if (!complete_block(g->arena, g->top)) break;
  }
  if (!st) strip_unknown(g->top);
  return st;
}
