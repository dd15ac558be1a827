/* jit_alias.c: which TorchScript ops alias their input, and how a write
 * to the alias is carried back (the facts jit_functionalize.c runs on).
 *
 * One row per op. A row says how the output relates to input 0 and
 * which inverse puts a new value of the output back into the input:
 *   SLICE/SELECT/NARROW  a window: slice_scatter / select_scatter
 *   DIAGONAL             diagonal: diagonal_scatter
 *   SELFINV              transpose-like: the same op undoes itself
 *   PERMUTE              permute: the inverse permutation
 *   SWAPARGS             movedim(x, a, b): movedim(y, b, a)
 *   RESHAPE              same elements, new shape: view_as the input
 *   IDENT                the same tensor (detach, alias)
 *   EXPAND               expand: a write is only defined when no dim
 *                        broadcasts (torch refuses the rest)
 *   OPAQUE               aliases, but no exact inverse in ONNX terms
 *   LIST                 a list of views (split, chunk, unbind)
 * Ops that alias only sometimes (reshape copies a non-viewable input,
 * contiguous copies a non-contiguous one, to() copies when the dtype
 * changes) are decided from the printed strides and dtypes; when those
 * are not printed (scripted graphs) the answer is MAYBE, and a write or
 * a stale read through such a value is a named error, never a guess. */
#include <stdlib.h>
#include <string.h>

#include "functionalize.h"

/* Sorted by op name (strcmp order) for a binary search: every node of a
 * graph is looked up, so a scan would cost a strcmp per row per node. */
static const struct {
  const char *op;
  oxp_view_kind k;
} VIEWS[] = {
    {"aten::_reshape_alias", OXP_VIEW_RESHAPE},
    {"aten::alias", OXP_VIEW_IDENT},
    {"aten::as_strided", OXP_VIEW_OPAQUE},
    {"aten::chunk", OXP_VIEW_LIST},
    {"aten::contiguous", OXP_VIEW_CONTIG_MAYBE},
    {"aten::detach", OXP_VIEW_IDENT},
    {"aten::diagonal", OXP_VIEW_DIAGONAL},
    {"aten::expand", OXP_VIEW_EXPAND},
    {"aten::expand_as", OXP_VIEW_EXPAND},
    {"aten::flatten", OXP_VIEW_RESHAPE_MAYBE},
    {"aten::imag", OXP_VIEW_OPAQUE},
    {"aten::moveaxis", OXP_VIEW_SWAPARGS},
    {"aten::movedim", OXP_VIEW_SWAPARGS},
    {"aten::narrow", OXP_VIEW_NARROW},
    {"aten::numpy_T", OXP_VIEW_SELFINV},
    {"aten::permute", OXP_VIEW_PERMUTE},
    {"aten::real", OXP_VIEW_OPAQUE},
    {"aten::reshape", OXP_VIEW_RESHAPE_MAYBE},
    {"aten::reshape_as", OXP_VIEW_RESHAPE_MAYBE},
    {"aten::select", OXP_VIEW_SELECT},
    {"aten::slice", OXP_VIEW_SLICE},
    {"aten::split", OXP_VIEW_LIST},
    {"aten::split_with_sizes", OXP_VIEW_LIST},
    {"aten::squeeze", OXP_VIEW_RESHAPE},
    {"aten::swapaxes", OXP_VIEW_SELFINV},
    {"aten::swapdims", OXP_VIEW_SELFINV},
    {"aten::t", OXP_VIEW_SELFINV},
    {"aten::tensor_split", OXP_VIEW_LIST},
    {"aten::to", OXP_VIEW_TO_MAYBE},
    {"aten::transpose", OXP_VIEW_SELFINV},
    {"aten::type_as", OXP_VIEW_TO_MAYBE},
    {"aten::unbind", OXP_VIEW_LIST},
    {"aten::unflatten", OXP_VIEW_RESHAPE},
    {"aten::unfold", OXP_VIEW_OPAQUE},
    {"aten::unsqueeze", OXP_VIEW_RESHAPE},
    {"aten::view", OXP_VIEW_RESHAPE},
    {"aten::view_as", OXP_VIEW_RESHAPE},
    {"aten::view_as_complex", OXP_VIEW_OPAQUE},
    {"aten::view_as_real", OXP_VIEW_OPAQUE},
    {"prim::unchecked_cast", OXP_VIEW_IDENT},
};

static int by_op(const void *key, const void *row) {
  return strcmp((const char *)key, *(const char *const *)row);
}

bool oxp_alias_table_sorted(void) {
  for (size_t i = 1; i < sizeof VIEWS / sizeof *VIEWS; i++)
    if (strcmp(VIEWS[i - 1].op, VIEWS[i].op) >= 0) return false;
  return true;
}

static const oxp_type *tensor_type(const oxp_value *v) {
  return v && v->type && v->type->kind == OXP_T_TENSOR ? v->type : NULL;
}

static bool const_value(const oxp_value *v, const oxp_attr **a) {
  const oxp_node *k = v ? v->producer : NULL;
  *a = k && oxp_kind_is(k, "prim::Constant") ? oxp_attr_get(k, "value") : NULL;
  return *a != NULL || (k && oxp_kind_is(k, "prim::Constant"));
}

/* Is a constant input None (or absent)? */
static bool is_none(const oxp_node *n, int i) {
  const oxp_attr *a;
  if (i >= n->ninputs || !n->inputs[i]) return true;
  return const_value(n->inputs[i], &a) && (!a || a->kind == OXP_A_NONE);
}

static int const_bool(const oxp_node *n, int i) {
  const oxp_attr *a;
  if (i >= n->ninputs || !const_value(n->inputs[i], &a) || !a || a->kind != OXP_A_INT)
    return -1;
  return a->i != 0;
}

/* ATen's computeStride: can a tensor of these sizes and strides be seen
 * with the new sizes without copying? (numel 0 always can.) */
static bool viewable(const oxp_type *in, const oxp_type *out) {
  int64_t numel = 1;
  for (int i = 0; i < in->rank; i++) numel *= in->dims[i];
  if (numel == 0 || in->rank == 0) return true;
  const int64_t *os = in->strides, *od = in->dims, *nd = out->dims;
  int view_d = out->rank - 1;
  int64_t chunk_base = os[in->rank - 1], tensor_numel = 1, view_numel = 1;
  for (int d = in->rank - 1; d >= 0; d--) {
    tensor_numel *= od[d];
    if (d == 0 || (od[d - 1] != 1 && os[d - 1] != tensor_numel * chunk_base)) {
      while (view_d >= 0 && (view_numel < tensor_numel || nd[view_d] == 1))
        view_numel *= nd[view_d--];
      if (view_numel != tensor_numel) return false;
      if (d > 0) chunk_base = os[d - 1], tensor_numel = 1, view_numel = 1;
    }
  }
  return view_d == -1;
}

static bool contiguous(const oxp_type *t);

static bool known_layout(const oxp_type *t) {
  return t && t->rank >= 0 && oxp_type_is_static(t) && (t->rank == 0 || t->strides);
}

bool oxp_type_contiguous(const oxp_type *t) {
  return known_layout(t) && contiguous(t);
}

static bool contiguous(const oxp_type *t) {
  int64_t expect = 1;
  for (int i = t->rank - 1; i >= 0; i--) {
    if (t->dims[i] != 1 && t->strides[i] != expect) return false;
    expect *= t->dims[i];
  }
  return true;
}

/* to(self, dtype, non_blocking, copy, memory_format), to(self, device,
 * dtype, non_blocking, copy, memory_format), to(self, other, non_blocking,
 * copy, memory_format), type_as(self, other): self comes back when the
 * dtype stays, copy is false and no memory format is asked for. */
static oxp_view_kind to_alias(const oxp_node *n) {
  const oxp_type *in = tensor_type(n->inputs[0]), *out = tensor_type(n->outputs[0]);
  if (!in || !out || !in->dtype || !out->dtype) return OXP_VIEW_MAYBE;
  if (in->dtype != out->dtype) return OXP_VIEW_NONE;
  if (oxp_kind_is(n, "aten::type_as")) return OXP_VIEW_IDENT;
  int copy_at = n->ninputs == 6 ? 4 : 3, mf_at = copy_at + 1;
  if (n->ninputs < 5) return OXP_VIEW_MAYBE;
  int copy = const_bool(n, copy_at);
  if (copy == 1) return OXP_VIEW_NONE;
  if (copy != 0 || !is_none(n, mf_at)) return OXP_VIEW_MAYBE;
  return OXP_VIEW_IDENT;
}

oxp_view_kind oxp_view_kind_of(const oxp_node *n, bool in_contig) {
  if (n->ninputs < 1 || n->noutputs < 1 || !n->inputs[0]) return OXP_VIEW_NONE;
  const char *kind = n->kind;
  if ((kind[0] != 'a' && kind[0] != 'p') || kind[4] != ':') return OXP_VIEW_NONE;
  const void *row = bsearch(kind, VIEWS, sizeof VIEWS / sizeof *VIEWS, sizeof *VIEWS, by_op);
  oxp_view_kind k = row ? ((const __typeof__(VIEWS[0]) *)row)->k : OXP_VIEW_NONE;
  const oxp_type *in = tensor_type(n->inputs[0]), *out = tensor_type(n->outputs[0]);
  switch (k) {
  case OXP_VIEW_SLICE:
    /* slice of a list (aten::slice.t) is no view */
    return in ? k : OXP_VIEW_NONE;
  case OXP_VIEW_RESHAPE_MAYBE:
    /* a contiguous tensor can be seen in any shape of its size */
    if (!in) return OXP_VIEW_NONE;
    if (in_contig) return OXP_VIEW_RESHAPE;
    if (!known_layout(in) || !out || !oxp_type_is_static(out)) return OXP_VIEW_MAYBE;
    return viewable(in, out) ? OXP_VIEW_RESHAPE : OXP_VIEW_NONE;
  case OXP_VIEW_CONTIG_MAYBE: {
    if (!in) return OXP_VIEW_NONE;
    /* contiguous(x, memory_format): only the default format is judged */
    const oxp_attr *mf = n->ninputs > 1 && n->inputs[1] && n->inputs[1]->producer &&
                                 oxp_kind_is(n->inputs[1]->producer, "prim::Constant")
                             ? oxp_attr_get(n->inputs[1]->producer, "value") : NULL;
    if (!is_none(n, 1) && !(mf && mf->kind == OXP_A_INT && mf->i == 0)) return OXP_VIEW_MAYBE;
    if (in_contig) return OXP_VIEW_IDENT;
    if (!known_layout(in)) return OXP_VIEW_MAYBE;
    return contiguous(in) ? OXP_VIEW_IDENT : OXP_VIEW_NONE;
  }
  case OXP_VIEW_TO_MAYBE:
    return in ? to_alias(n) : OXP_VIEW_NONE;
  default:
    return in || k == OXP_VIEW_NONE ? k : OXP_VIEW_NONE;
  }
}

/* ---- in-place ops ---------------------------------------------------- */

static const struct {
  const char *op, *pure;
} DUNDER[] = {
    {"aten::__iand__", "aten::__and__"},       {"aten::__ior__", "aten::__or__"},
    {"aten::__ixor__", "aten::__xor__"},       {"aten::__ilshift__", "aten::__lshift__"},
    {"aten::__irshift__", "aten::__rshift__"},
};

/* In-place ops that change the tensor's shape or strides, not its data:
 * their pure forms are views of a new shape, which jit_functionalize.c
 * takes only where no other alias of the tensor exists. */
static const char *const META[] = {
    "aten::squeeze_", "aten::unsqueeze_", "aten::transpose_", "aten::t_",
    "aten::swapaxes_", "aten::swapdims_", "aten::as_strided_", "aten::resize_",
    "aten::resize_as_", "aten::detach_", "aten::set_"};

bool oxp_is_inplace(const oxp_node *n) {
  const char *k = n->kind;
  if (n->ninputs < 1 || n->noutputs != 1 || strncmp(k, "aten::", 6) != 0) return false;
  if (k[6] == '_' && k[7] == '_')
    for (size_t i = 0; i < sizeof DUNDER / sizeof *DUNDER; i++)
      if (oxp_kind_is(n, DUNDER[i].op)) return true;
  size_t l = strlen(k);
  return l > 8 && k[l - 1] == '_' && k[l - 2] != '_';
}

bool oxp_inplace_is_meta(const oxp_node *n) {
  for (size_t i = 0; i < sizeof META / sizeof *META; i++)
    if (oxp_kind_is(n, META[i])) return true;
  return false;
}

const char *oxp_inplace_pure_kind(oxp_arena *a, const oxp_node *n) {
  for (size_t i = 0; i < sizeof DUNDER / sizeof *DUNDER; i++)
    if (oxp_kind_is(n, DUNDER[i].op)) return DUNDER[i].pure;
  if (oxp_kind_is(n, "aten::zero_")) return "aten::zeros_like";
  if (oxp_kind_is(n, "aten::fill_")) return "aten::full_like";
  return oxp_strndup(a, n->kind, strlen(n->kind) - 1);
}

/* How the dtype of a pure op's result follows from its operands. */
static const struct {
  const char *op;
  bool compare; /* else promoting */
} RESULT[] = {
    {"aten::add_", 0}, {"aten::sub_", 0}, {"aten::mul_", 0}, {"aten::div_", 0},
    {"aten::true_divide_", 0}, {"aten::floor_divide_", 0}, {"aten::remainder_", 0},
    {"aten::fmod_", 0}, {"aten::pow_", 0}, {"aten::atan2_", 0}, {"aten::rsub_", 0},
    {"aten::bitwise_and_", 0}, {"aten::bitwise_or_", 0}, {"aten::bitwise_xor_", 0},
    {"aten::__iand__", 0}, {"aten::__ior__", 0}, {"aten::__ixor__", 0},
    {"aten::__ilshift__", 0}, {"aten::__irshift__", 0}, {"aten::hypot_", 0},
    {"aten::copysign_", 0}, {"aten::xlogy_", 0}, {"aten::logaddexp_", 0},
    {"aten::eq_", 1}, {"aten::ne_", 1}, {"aten::lt_", 1}, {"aten::le_", 1},
    {"aten::gt_", 1}, {"aten::ge_", 1}, {"aten::logical_and_", 1},
    {"aten::logical_or_", 1}, {"aten::logical_xor_", 1}, {"aten::logical_not_", 1},
};

bool oxp_inplace_promotes(const oxp_node *n) {
  for (size_t i = 0; i < sizeof RESULT / sizeof *RESULT; i++)
    if (oxp_kind_is(n, RESULT[i].op)) return true;
  return false;
}

int oxp_inplace_pure_dtype(const oxp_node *n, int self_dtype) {
  for (size_t i = 0; i < sizeof RESULT / sizeof *RESULT; i++) {
    if (!oxp_kind_is(n, RESULT[i].op)) continue;
    if (RESULT[i].compare) return OXP_DT_BOOL;
    oxp_operand ops[2];
    if (n->ninputs < 2 || !oxp_operand_of(n->inputs[0], &ops[0]) ||
        !oxp_operand_of(n->inputs[1], &ops[1]) || !ops[0].dtype || !ops[1].dtype)
      return 0;
    ops[0].dtype = self_dtype;
    int dt = oxp_result_type(ops, 2);
    bool true_div = oxp_kind_is(n, "aten::div_") || oxp_kind_is(n, "aten::true_divide_");
    if (true_div && dt && !oxp_dtype_is_float(dt) && (n->ninputs < 3 || is_none(n, 2)))
      return OXP_DT_FLOAT;
    return dt;
  }
  return self_dtype;
}

/* Ops whose result is laid out contiguously when their tensor inputs are
 * (TensorIterator keeps its inputs' layout; factories and matmuls always
 * make a contiguous tensor). Scripted graphs print no strides, so this is
 * what tells a reshape of a fresh tensor that it aliases. */
static const char *const CONTIG_ALWAYS[] = {
    "aten::zeros", "aten::ones", "aten::full", "aten::empty", "aten::arange",
    "aten::rand", "aten::randn", "aten::randint", "aten::linspace", "aten::tensor",
    "aten::matmul", "aten::mm", "aten::bmm", "aten::linear", "aten::addmm",
    "aten::contiguous", "aten::eye"};
static const char *const CONTIG_IF_INPUTS[] = {
    "aten::clone", "aten::add", "aten::sub", "aten::mul", "aten::div", "aten::neg",
    "aten::relu", "aten::sigmoid", "aten::tanh", "aten::exp", "aten::log",
    "aten::sqrt", "aten::rsqrt", "aten::pow", "aten::abs", "aten::clamp",
    "aten::where", "aten::masked_fill", "aten::gt", "aten::lt", "aten::ge",
    "aten::le", "aten::eq", "aten::ne", "aten::sin", "aten::cos", "aten::gelu",
    "aten::rsub", "aten::remainder", "aten::floor", "aten::ceil", "aten::round",
    "aten::sign", "aten::maximum", "aten::minimum", "aten::logical_and",
    "aten::logical_or", "aten::logical_not", "aten::softmax", "aten::log_softmax",
    "aten::zeros_like", "aten::ones_like", "aten::full_like", "aten::empty_like",
    "aten::rand_like", "aten::randn_like", "aten::to", "aten::type_as",
    "aten::cat", "aten::stack"};

int oxp_result_contiguous(const oxp_node *n) {
  for (size_t i = 0; i < sizeof CONTIG_ALWAYS / sizeof *CONTIG_ALWAYS; i++)
    if (oxp_kind_is(n, CONTIG_ALWAYS[i])) return 1;
  for (size_t i = 0; i < sizeof CONTIG_IF_INPUTS / sizeof *CONTIG_IF_INPUTS; i++)
    if (oxp_kind_is(n, CONTIG_IF_INPUTS[i])) return 2;
  return 0;
}
