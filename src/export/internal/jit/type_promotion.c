/* type_promotion.c: scalar type analysis, as the legacy exporter's
 * ScalarTypeAnalysisForONNX. Traced graphs carry the dtype torch chose on
 * every value; scripted ones often say only `Tensor`. For those, one walk
 * in graph order computes torch.result_type for elementwise ops (and
 * passes dtypes through shape ops), so lowering casts the operands to the
 * right type. Traced dtypes are never overridden.
 *
 * result_type follows c10: operands fall into three priority classes,
 * dimensioned tensors > 0-d tensors > Python scalars, and a lower class
 * only matters when it is of a higher category (bool < int < float):
 * int32 tensor + 5 stays int32, int32 tensor + 2.5 is float32, a float16
 * tensor + a 0-d float32 tensor stays float16. The rules, and
 * result_type itself, are dtype_promote.c's. */
#include <string.h>

#include "passes.h"

int oxp_result_type(const oxp_operand *ops, int n) {
  int dt = oxp_result_type_why(ops, n, NULL);
  return dt < 0 ? 0 : dt;
}

bool oxp_operand_of(const oxp_value *v, oxp_operand *o) {
  const oxp_type *t = v ? v->type : NULL;
  memset(o, 0, sizeof *o);
  if (!t) return false;
  switch (t->kind) {
  case OXP_T_TENSOR:
    o->dtype = t->dtype;
    o->zero_dim = t->rank == 0;
    o->unranked = t->rank < 0;
    return true;
  case OXP_T_INT: o->dtype = OXP_DT_INT64; o->scalar = true; return true;
  case OXP_T_FLOAT: o->dtype = OXP_DT_DOUBLE; o->scalar = true; return true;
  case OXP_T_BOOL: o->dtype = OXP_DT_BOOL; o->scalar = true; return true;
  default: return false;
  }
}

/* How an op's output dtype follows from its inputs. */
typedef enum { PROMOTE, TRUE_DIV, COMPARE, SAME0, SAME1, LIST0, SUM0, MINMAX } rule;

static const struct {
  const char *op;
  rule r;
  int first, count; /* operands taking part in promotion */
} RULES[] = {
    {"aten::add", PROMOTE, 0, 2}, {"aten::sub", PROMOTE, 0, 2},
    {"aten::mul", PROMOTE, 0, 2}, {"aten::rsub", PROMOTE, 0, 2},
    {"aten::remainder", PROMOTE, 0, 2}, {"aten::fmod", PROMOTE, 0, 2},
    {"aten::maximum", PROMOTE, 0, 2}, {"aten::minimum", PROMOTE, 0, 2},
    {"aten::pow", PROMOTE, 0, 2}, {"aten::floor_divide", PROMOTE, 0, 2},
    {"aten::where", PROMOTE, 1, 2}, {"aten::div", TRUE_DIV, 0, 2},
    {"aten::eq", COMPARE, 0, 2}, {"aten::ne", COMPARE, 0, 2},
    {"aten::lt", COMPARE, 0, 2}, {"aten::gt", COMPARE, 0, 2},
    {"aten::le", COMPARE, 0, 2}, {"aten::ge", COMPARE, 0, 2},
    {"aten::cat", LIST0, 0, 0},
    {"aten::relu", SAME0, 0, 0}, {"aten::neg", SAME0, 0, 0},
    {"aten::sigmoid", SAME0, 0, 0}, {"aten::tanh", SAME0, 0, 0},
    {"aten::gelu", SAME0, 0, 0}, {"aten::abs", SAME0, 0, 0},
    {"aten::dropout", SAME0, 0, 0}, {"aten::feature_dropout", SAME0, 0, 0},
    {"aten::clone", SAME0, 0, 0}, {"aten::contiguous", SAME0, 0, 0},
    {"aten::detach", SAME0, 0, 0}, {"aten::view", SAME0, 0, 0},
    {"aten::reshape", SAME0, 0, 0}, {"aten::permute", SAME0, 0, 0},
    {"aten::transpose", SAME0, 0, 0}, {"aten::flatten", SAME0, 0, 0},
    {"aten::squeeze", SAME0, 0, 0}, {"aten::unsqueeze", SAME0, 0, 0},
    {"aten::slice", SAME0, 0, 0}, {"aten::select", SAME0, 0, 0},
    {"aten::t", SAME0, 0, 0}, {"aten::matmul", SAME0, 0, 0},
    {"aten::mm", SAME0, 0, 0}, {"aten::bmm", SAME0, 0, 0},
    {"aten::linear", SAME0, 0, 0}, {"aten::_convolution", SAME0, 0, 0},
    {"aten::conv1d", SAME0, 0, 0}, {"aten::conv2d", SAME0, 0, 0},
    {"aten::conv3d", SAME0, 0, 0}, {"aten::batch_norm", SAME0, 0, 0},
    {"aten::layer_norm", SAME0, 0, 0}, {"aten::max_pool2d", SAME0, 0, 0},
    {"aten::avg_pool2d", SAME0, 0, 0}, {"aten::adaptive_avg_pool2d", SAME0, 0, 0},
    {"aten::embedding", SAME0, 0, 0}, {"aten::expand", SAME0, 0, 0},
    {"aten::softmax", SAME0, 0, 0}, {"aten::log_softmax", SAME0, 0, 0},
    {"aten::addmm", SAME1, 0, 0},
    {"aten::sum", SUM0, 0, 0}, {"aten::prod", SUM0, 0, 0},
    {"aten::mean", SAME0, 0, 0},
    {"aten::max", MINMAX, 0, 2}, {"aten::min", MINMAX, 0, 2},
};

static int list_dtype(const oxp_value *l) {
  const oxp_node *k = l->producer;
  if (!k || !oxp_kind_is(k, "prim::ListConstruct")) return 0;
  oxp_operand ops[64];
  if (k->ninputs > 64) return 0;
  for (int i = 0; i < k->ninputs; i++)
    if (!oxp_operand_of(k->inputs[i], &ops[i])) return 0;
  return oxp_result_type(ops, k->ninputs);
}

/* div(a, b, rounding_mode) with a mode keeps the promoted type. */
static bool rounded(const oxp_node *n) {
  if (n->ninputs < 3) return false;
  const oxp_node *k = n->inputs[2]->producer;
  const oxp_attr *a = k && oxp_kind_is(k, "prim::Constant") ? oxp_attr_get(k, "value") : NULL;
  return a && a->kind == OXP_A_STR;
}

/* The trailing dtype argument of softmax/log_softmax(x, dim, dtype) and
 * mean/sum/prod(x, dtype) or (x, dim, keepdim, dtype) is given: the
 * result is that dtype, which the type rules read (jit_type_rules.c);
 * where they could not, this pass must not fall back on x's. */
static bool dtype_given(const oxp_node *n) {
  bool soft = oxp_kind_is(n, "aten::softmax") || oxp_kind_is(n, "aten::log_softmax");
  bool red = oxp_kind_is(n, "aten::mean") || oxp_kind_is(n, "aten::sum") || oxp_kind_is(n, "aten::prod");
  if (!(soft ? n->ninputs == 3 : red && (n->ninputs == 2 || n->ninputs == 4))) return false;
  const oxp_type *t = n->inputs[n->ninputs - 1]->type;
  return !t || t->kind != OXP_T_NONE;
}

static int infer(const oxp_node *n, int r, int first, int count) {
  oxp_operand ops[2];
  if (dtype_given(n)) return 0;
  /* max/min of two tensors promote (maximum/minimum); of one, or over a
   * dim, they keep x's dtype (difftest seed 9201 program 12096: min of
   * an int64 tensor and a float of unknown type came out int64) */
  if (r == MINMAX) {
    const oxp_type *t = n->ninputs >= 2 ? n->inputs[1]->type : NULL;
    if (n->ninputs == 2 && (!t || t->kind == OXP_T_TENSOR)) r = PROMOTE;
    else r = SAME0;
  }
  switch (r) {
  case SAME0: return n->ninputs > 0 && oxp_operand_of(n->inputs[0], &ops[0]) && !ops[0].scalar ? ops[0].dtype : 0;
  case SAME1: return n->ninputs > 1 && oxp_operand_of(n->inputs[1], &ops[0]) && !ops[0].scalar ? ops[0].dtype : 0;
  case LIST0: return n->ninputs > 0 ? list_dtype(n->inputs[0]) : 0;
  case SUM0: /* torch sums bools and integers in int64 */
    if (n->ninputs < 1 || !oxp_operand_of(n->inputs[0], &ops[0]) || ops[0].scalar ||
        !ops[0].dtype)
      return 0; /* an unknown input: the sum's dtype is unknown too */
    return oxp_dtype_is_float(ops[0].dtype) ? ops[0].dtype : OXP_DT_INT64;
  default: break;
  }
  if (n->ninputs < first + count) return 0;
  for (int i = 0; i < count; i++)
    if (!oxp_operand_of(n->inputs[first + i], &ops[i])) return 0;
  int dt = oxp_result_type(ops, count);
  if (r == COMPARE) return dt ? OXP_DT_BOOL : 0;
  if (r == TRUE_DIV && dt && !oxp_dtype_is_float(dt) && !rounded(n)) return OXP_DT_FLOAT;
  return dt;
}

/* Out of line: infer's operands would otherwise sit in every frame of
 * walk's recursion over nested blocks. */
static OXP_OUT_OF_LINE void promote(oxp_graph *g, oxp_node *n) {
  if (n->noutputs < 1) return;
  oxp_value *out = n->outputs[0];
  oxp_type *t = out->type;
  if (t && (t->kind != OXP_T_TENSOR || t->dtype)) return;
  for (size_t i = 0; i < sizeof RULES / sizeof *RULES; i++) {
    if (!oxp_kind_is(n, RULES[i].op)) continue;
    int dt = infer(n, RULES[i].r, RULES[i].first, RULES[i].count);
    if (!dt) return;
    /* A copy: the parser may share one `Tensor` type between values. */
    t = t ? oxp_type_copy(g->arena, t) : oxp_type_tensor(g->arena, dt, -1, NULL);
    if (t) t->dtype = dt, out->type = t;
    return;
  }
}

static void walk(oxp_graph *g, oxp_block *b) {
  for (oxp_node *n = b->first; n; n = n->next) {
    if (oxp_kind_is(n, "prim::Loop") && n->nblocks == 1)
      for (int k = 2; k < n->ninputs && k - 1 < n->blocks[0]->ninputs; k++) {
        oxp_value *bi = n->blocks[0]->inputs[k - 1];
        oxp_type *it = n->inputs[k]->type;
        if (bi->type && bi->type->kind == OXP_T_TENSOR && !bi->type->dtype && it &&
            it->kind == OXP_T_TENSOR && it->dtype) {
          oxp_type *t = oxp_type_copy(g->arena, bi->type);
          if (!t) return; /* left in the arena for the pipeline */
          t->dtype = it->dtype;
          bi->type = t;
        }
      }
    for (int k = 0; k < n->nblocks; k++) walk(g, n->blocks[k]);
    if ((oxp_kind_is(n, "prim::Loop") || oxp_kind_is(n, "prim::If")) && n->nblocks) {
      int off = oxp_kind_is(n, "prim::Loop") ? 1 : 0;
      for (int i = 0; i < n->noutputs && i + off < n->blocks[0]->noutputs; i++) {
        oxp_value *o = n->outputs[i];
        oxp_type *bt = n->blocks[0]->outputs[i + off]->type;
        if (o->type && o->type->kind == OXP_T_TENSOR && !o->type->dtype && bt &&
            bt->kind == OXP_T_TENSOR && bt->dtype) {
          oxp_type *t = oxp_type_copy(g->arena, o->type);
          if (!t) return;
          t->dtype = bt->dtype;
          o->type = t;
        }
      }
    }
    promote(g, n);
  }
}

oxp_status oxp_type_promotion(oxp_graph *g, oxp_diag *d) {
  (void)d;
  walk(g, g->top);
  return OXP_OK;
}
