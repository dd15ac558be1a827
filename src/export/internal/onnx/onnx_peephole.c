/* onnx_peephole.c: local rewrites of the ONNX graph, each looking back
 * from the node being visited at its producers (so the walk never loses
 * its next node):
 *   - no-op Identity / Cast / Transpose / Reshape / Expand / Flatten and
 *     scatters of nothing go
 *     (graph outputs keep their names, see oxp_pass_bypass);
 *   - Transpose(Transpose(x)) becomes one Transpose; Reshape(Reshape(x))
 *     one Reshape;
 *   - MatMul(A, W) + C with A 2-D and W a 2-D constant becomes Gemm; a
 *     Transpose of the weight becomes transB=1 instead of a copy;
 *   - Conv + BatchNormalization (inference form) fold into new Conv
 *     weights and bias;
 *   - NegativeLogLikelihoodLoss(LogSoftmax(x, axis=1)) becomes one
 *     SoftmaxCrossEntropyLoss, as torch exports cross_entropy.
 * Needs inferred shapes (oxp_shape_infer) for ranks and no-op tests. */
#include <math.h>
#include <string.h>

#include "passes.h"

static bool is(const oxp_node *n, const char *op) {
  const char *o = n ? oxp_pass_onnx_op(n) : NULL;
  return o && strcmp(o, op) == 0;
}

/* The only consumer of v is one node, and v is no output. */
static bool single_use(oxp_pass *p, const oxp_value *v) {
  return v->nuses == 1 && !oxp_pass_is_out(p, v);
}

/* Node m takes over v (an output of a node about to be destroyed) as its
 * output k, so v keeps its name, type and consumers. */
static void take_output(oxp_node *m, int k, oxp_value *v) {
  m->outputs[k] = v;
  v->producer = m;
  v->index = k;
}

/* m takes n's place: where it stands, its location and its output. */
static void replace_node(oxp_node *n, oxp_node *m) {
  m->loc = n->loc;
  m->scope = n->scope;
  m->source = n->source;
  oxp_node_insert_before(n, m);
  oxp_value *out = n->outputs[0];
  oxp_node_destroy(n);
  take_output(m, 0, out);
}

static int rank_of(const oxp_value *v) {
  oxp_shape s;
  oxp_shape_of(v, &s);
  return s.rank;
}

static bool same_shape(const oxp_value *a, const oxp_value *b) {
  oxp_shape x, y;
  oxp_shape_of(a, &x);
  oxp_shape_of(b, &y);
  if (x.rank < 0 || x.rank != y.rank) return false;
  for (int i = 0; i < x.rank; i++)
    if (!oxp_shape_dim_eq(&x, i, &y, i)) return false;
  return true;
}

static int perm_of(const oxp_node *t, int64_t *perm) {
  const oxp_attr *a = oxp_attr_get(t, "perm");
  if (a && a->kind == OXP_A_INTS && a->n <= OXP_MAX_SHAPE_RANK) {
    memcpy(perm, a->ints, sizeof(int64_t) * (size_t)a->n);
    return a->n;
  }
  int r = rank_of(t->inputs[0]);
  for (int i = 0; i < r && i < OXP_MAX_SHAPE_RANK; i++) perm[i] = r - 1 - i;
  return r <= OXP_MAX_SHAPE_RANK ? r : -1;
}

/* ---- no-ops and chains ------------------------------------------------------ */

static bool peep_transpose(oxp_pass *p, oxp_node *n) {
  int64_t q[OXP_MAX_SHAPE_RANK], pi[OXP_MAX_SHAPE_RANK];
  int k = perm_of(n, q);
  if (k < 0) return false;
  oxp_node *in = n->inputs[0]->producer;
  if (is(in, "Transpose")) {
    int k2 = perm_of(in, pi);
    if (k2 != k) return false;
    int64_t r[OXP_MAX_SHAPE_RANK];
    for (int i = 0; i < k; i++) {
      if (q[i] < 0 || q[i] >= k) return false;
      r[i] = pi[q[i]];
    }
    oxp_attr_set_ints(n, "perm", r, k);
    oxp_node_set_input(n, 0, in->inputs[0]);
    memcpy(q, r, sizeof r);
  }
  for (int i = 0; i < k; i++)
    if (q[i] != i) return false;
  return oxp_pass_bypass(p, n, n->inputs[0], n->outputs[0]);
}

static bool peep_reshape(oxp_pass *p, oxp_node *n) {
  oxp_node *in = n->inputs[0]->producer;
  const oxp_value *s = n->ninputs > 1 ? n->inputs[1] : NULL;
  if (is(in, "Reshape") && oxp_pass_is_const(p, s)) {
    bool zero = false;
    for (int64_t i = 0, m = oxp_tensor_numel(s->init); i < m; i++)
      zero |= oxp_tensor_get_i(s->init, i) == 0;
    if (!zero || oxp_attr_get(n, "allowzero")) oxp_node_set_input(n, 0, in->inputs[0]);
  }
  return same_shape(n->inputs[0], n->outputs[0]) &&
         oxp_pass_bypass(p, n, n->inputs[0], n->outputs[0]);
}

static bool peep_cast(oxp_pass *p, oxp_node *n) {
  const oxp_attr *to = oxp_attr_get(n, "to");
  oxp_shape x;
  oxp_shape_of(n->inputs[0], &x);
  return to && x.dtype && to->i == x.dtype &&
         oxp_pass_bypass(p, n, n->inputs[0], n->outputs[0]);
}

/* ScatterElements / ScatterND with no index (a write to an empty view)
 * leave their data as it is. Kept, onnxruntime's optimizer mis-sizes the
 * Expand feeding the empty updates (1 for a 0 dim) and fails the run. */
static bool peep_scatter(oxp_pass *p, oxp_node *n) {
  oxp_shape idx;
  if (n->ninputs < 3) return false;
  oxp_shape_of(n->inputs[1], &idx);
  /* ScatterND's last index dim is the depth of each index: a 0 there
   * addresses the whole tensor */
  int k = idx.rank - (strcmp(oxp_pass_onnx_op(n), "ScatterND") == 0);
  bool empty = false;
  for (int i = 0; i < k; i++) empty |= idx.d[i] == 0;
  return empty && oxp_pass_bypass(p, n, n->inputs[0], n->outputs[0]);
}

/* ---- Gemm --------------------------------------------------------------------- */

static bool gemm_dtype(int dt) {
  return dt == OXP_DT_FLOAT || dt == OXP_DT_DOUBLE || dt == OXP_DT_FLOAT16;
}

/* W for Gemm: a 2-D constant, or the constant under a 2-D Transpose. */
static oxp_value *gemm_weight(oxp_pass *p, oxp_value *b, bool *trans) {
  *trans = false;
  if (oxp_pass_is_const(p, b) && b->init->rank == 2) return b;
  oxp_node *t = b->producer;
  int64_t perm[OXP_MAX_SHAPE_RANK];
  if (is(t, "Transpose") && perm_of(t, perm) == 2 && perm[0] == 1 &&
      oxp_pass_is_const(p, t->inputs[0]) && t->inputs[0]->init->rank == 2) {
    *trans = true;
    return t->inputs[0];
  }
  return NULL;
}

/* Does C broadcast one way to (M, N) = out's shape? */
static bool bias_fits(const oxp_value *c, const oxp_value *mm) {
  oxp_shape s, o;
  oxp_shape_of(c, &s);
  oxp_shape_of(mm, &o);
  if (s.rank < 0 || s.rank > 2 || o.rank != 2) return false;
  for (int i = 0; i < s.rank; i++) {
    int j = i + 2 - s.rank;
    if (!(s.d[i] == 1 && !s.p[i]) && !oxp_shape_dim_eq(&s, i, &o, j)) return false;
  }
  return true;
}

/* Gemm(A, W, C) replacing node at (whose output it takes). */
static bool make_gemm(oxp_pass *p, oxp_node *at, oxp_node *mm, oxp_value *c) {
  bool trans;
  oxp_value *a = mm->inputs[0], *w = gemm_weight(p, mm->inputs[1], &trans);
  oxp_shape sa;
  oxp_shape_of(a, &sa);
  if (!w || sa.rank != 2 || !gemm_dtype(sa.dtype) || w->init->dtype != sa.dtype)
    return false;
  if (c && !bias_fits(c, mm->outputs[0])) return false;
  oxp_node *g = oxp_node_new(p->g, "onnx::Gemm", 1);
  if (!g || !oxp_node_add_input(g, a) || !oxp_node_add_input(g, w) ||
      (c && !oxp_node_add_input(g, c)))
    return false;
  if (trans) oxp_attr_set_i(g, "transB", 1);
  g->loc = mm->loc;
  g->scope = mm->scope;
  g->source = mm->source;
  oxp_node_insert_before(at, g);
  oxp_value *out = at->outputs[0];
  oxp_node_destroy(at);
  if (at != mm) oxp_node_destroy(mm);
  take_output(g, 0, out);
  return true;
}

static bool peep_add(oxp_pass *p, oxp_node *n) {
  for (int i = 0; i < 2 && n->ninputs == 2; i++) {
    oxp_value *mv = n->inputs[i], *c = n->inputs[1 - i];
    if (is(mv->producer, "MatMul") && single_use(p, mv) &&
        mv->producer->owner == n->owner && make_gemm(p, n, mv->producer, c))
      return true;
  }
  return false;
}

/* MatMul(A, Transpose(W)) alone: Gemm with transB, no transposed copy. */
static bool peep_matmul(oxp_pass *p, oxp_node *n) {
  bool trans;
  if (n->outputs[0]->nuses == 1 && is(n->outputs[0]->uses[0].node, "Add"))
    return false; /* the Add takes it with its bias */
  return gemm_weight(p, n->inputs[1], &trans) && trans && make_gemm(p, n, n, NULL);
}

/* ---- Conv + BatchNormalization ---------------------------------------------- */

static bool const_vec(oxp_pass *p, const oxp_value *v, int dt, int64_t c) {
  return oxp_pass_is_const(p, v) && v->init->dtype == dt &&
         oxp_tensor_numel(v->init) == c && v->init->rank == 1;
}

static void put(oxp_tensor *t, int64_t i, double v) {
  if (t->dtype == OXP_DT_FLOAT) {
    float f = (float)v;
    memcpy((char *)t->data + 4 * i, &f, 4);
  } else {
    memcpy((char *)t->data + 8 * i, &v, 8);
  }
}

static oxp_status peep_bn(oxp_pass *p, oxp_node *n, bool *done) {
  *done = false;
  oxp_value *x = n->inputs[0];
  oxp_node *cv = x->producer;
  const oxp_attr *tm = oxp_attr_get(n, "training_mode");
  if (!is(cv, "Conv") || !single_use(p, x) || n->noutputs != 1 ||
      n->ninputs != 5 || (tm && tm->i) || p->o->training == OXP_TRAIN_TRAIN ||
      cv->owner != n->owner)
    return OXP_OK;
  oxp_value *w = cv->inputs[1], *b = cv->ninputs > 2 ? cv->inputs[2] : NULL;
  if (!oxp_pass_is_const(p, w) || w->init->rank < 3) return OXP_OK;
  int dt = w->init->dtype;
  int64_t ch = w->init->dims[0];
  if ((dt != OXP_DT_FLOAT && dt != OXP_DT_DOUBLE) || (b && !const_vec(p, b, dt, ch)))
    return OXP_OK;
  for (int i = 1; i < 5; i++)
    if (!const_vec(p, n->inputs[i], dt, ch)) return OXP_OK;
  const oxp_attr *ea = oxp_attr_get(n, "epsilon");
  double eps = ea ? ea->f : 1e-5;
  const oxp_tensor *sc = n->inputs[1]->init, *bb = n->inputs[2]->init,
                   *mean = n->inputs[3]->init, *var = n->inputs[4]->init;
  oxp_tensor *nw = oxp_tensor_alloc(p->g->arena, dt, w->init->rank, w->init->dims);
  oxp_tensor *nb = oxp_tensor_alloc(p->g->arena, dt, 1, &ch);
  if (!nw || !nb) return oxp_fail(p->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  int64_t per = ch ? oxp_tensor_numel(w->init) / ch : 0;
  for (int64_t c = 0; c < ch; c++) {
    double alpha = oxp_tensor_get_f(sc, c) / sqrt(oxp_tensor_get_f(var, c) + eps);
    for (int64_t k = 0; k < per; k++)
      put(nw, c * per + k, oxp_tensor_get_f(w->init, c * per + k) * alpha);
    double b0 = b ? oxp_tensor_get_f(b->init, c) : 0;
    put(nb, c, (b0 - oxp_tensor_get_f(mean, c)) * alpha + oxp_tensor_get_f(bb, c));
  }
  oxp_value *vw = oxp_pass_new_const(p, cv->owner, nw, "bnfold_w");
  oxp_value *vb = oxp_pass_new_const(p, cv->owner, nb, "bnfold_b");
  if (!vw || !vb) return oxp_fail(p->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  oxp_node_set_input(cv, 1, vw);
  if (b) oxp_node_set_input(cv, 2, vb);
  else oxp_node_add_input(cv, vb);
  oxp_value *y = n->outputs[0];
  oxp_node_destroy(n);
  take_output(cv, 0, y);
  *done = true;
  return OXP_OK;
}

/* ---- NLL over LogSoftmax ------------------------------------------------------ */

static bool peep_nll(oxp_pass *p, oxp_node *n) {
  oxp_node *ls = n->inputs[0]->producer;
  if (!is(ls, "LogSoftmax") || p->o->opset < 12 || n->noutputs != 1 ||
      ls->owner != n->owner || oxp_pass_is_out(p, n->inputs[0]))
    return false;
  int r = rank_of(ls->inputs[0]);
  const oxp_attr *ax = oxp_attr_get(ls, "axis");
  int64_t axis = ax ? ax->i : (p->o->opset >= 13 ? -1 : 1);
  if (axis < 0 && r >= 0) axis += r;
  /* Before opset 13 LogSoftmax flattens from axis on: equal only in 2-D. */
  if (axis != 1 || r < 2 || (p->o->opset < 13 && r != 2)) return false;
  oxp_node *sce = oxp_node_new(p->g, "onnx::SoftmaxCrossEntropyLoss", 1);
  if (!sce || !oxp_node_add_input(sce, ls->inputs[0])) return false;
  for (int i = 1; i < n->ninputs; i++)
    if (!oxp_node_add_input(sce, n->inputs[i])) return false;
  for (const oxp_attr *a = n->attrs; a; a = a->next) {
    if (a->kind == OXP_A_INT) oxp_attr_set_i(sce, a->name, a->i);
    else if (a->kind == OXP_A_STR) oxp_attr_set_s(sce, a->name, a->s);
  }
  replace_node(n, sce);
  return true;
}

/* ---- lists ----------------------------------------------------------------- */

/* Concat(a, Concat(b, c)) on one axis is Concat(a, b, c): int lists
 * built from sizes nest so (a list and the sizes around it). The inner
 * node stays while something else reads it. */
static bool peep_concat(oxp_pass *p, oxp_node *n) {
  const oxp_attr *ax = oxp_attr_get(n, "axis");
  bool nested = false;
  for (int i = 0; i < n->ninputs && ax; i++) {
    oxp_node *in = n->inputs[i] ? n->inputs[i]->producer : NULL;
    const oxp_attr *ia = is(in, "Concat") ? oxp_attr_get(in, "axis") : NULL;
    nested |= ia && ia->i == ax->i && in->owner == n->owner;
  }
  if (!nested) return false;
  oxp_node *k = oxp_node_new(p->g, n->kind, 1);
  if (!k) return false;
  for (int i = 0; i < n->ninputs; i++) {
    oxp_node *in = n->inputs[i] ? n->inputs[i]->producer : NULL;
    const oxp_attr *ia = is(in, "Concat") ? oxp_attr_get(in, "axis") : NULL;
    bool flat = ia && ia->i == ax->i && in->owner == n->owner;
    for (int j = 0; j < (flat ? in->ninputs : 1); j++)
      if (!oxp_node_add_input(k, flat ? in->inputs[j] : n->inputs[i])) return false;
  }
  oxp_attr_set_i(k, "axis", ax->i);
  replace_node(n, k);
  return true;
}

/* ---- driver ------------------------------------------------------------------ */

/* Out of line: the rewrites' locals would otherwise sit in every frame
 * of peep_block's recursion over nested blocks. */
static OXP_OUT_OF_LINE oxp_status peep_node(oxp_pass *p, oxp_node *n) {
  const char *op = oxp_pass_onnx_op(n);
  if (!op || n->noutputs != 1 || n->ninputs < 1 || !n->inputs[0]) return OXP_OK;
#define IS(s) (strcmp(op, s) == 0)
  switch (op[0]) { /* every node comes here: compare only same-letter names */
  case 'I':
    if (IS("Identity")) oxp_pass_bypass(p, n, n->inputs[0], n->outputs[0]);
    break;
  case 'T': if (IS("Transpose")) peep_transpose(p, n); break;
  case 'R': if (IS("Reshape")) peep_reshape(p, n); break;
  case 'C':
    if (IS("Cast")) peep_cast(p, n);
    else if (IS("Concat")) peep_concat(p, n);
    break;
  case 'S': if (IS("ScatterElements") || IS("ScatterND")) peep_scatter(p, n); break;
  case 'E':
  case 'F':
    if ((IS("Expand") || IS("Flatten")) && same_shape(n->inputs[0], n->outputs[0]))
      oxp_pass_bypass(p, n, n->inputs[0], n->outputs[0]);
    break;
  case 'A': if (IS("Add")) peep_add(p, n); break;
  case 'M': if (IS("MatMul")) peep_matmul(p, n); break;
  case 'N': if (IS("NegativeLogLikelihoodLoss")) peep_nll(p, n); break;
  case 'B':
    if (IS("BatchNormalization")) {
      bool done;
      return peep_bn(p, n, &done);
    }
    break;
  }
#undef IS
  return OXP_OK;
}

static oxp_status peep_block(oxp_pass *p, oxp_block *b) {
  OXP_FOR_NODES(b, n, nx) {
    for (int k = 0; k < n->nblocks; k++) {
      oxp_status st = peep_block(p, n->blocks[k]);
      if (st) return st;
    }
    oxp_status st = peep_node(p, n);
    if (st) return st;
  }
  return OXP_OK;
}

oxp_status oxp_onnx_peephole(oxp_pass *p) { return peep_block(p, p->g->top); }
