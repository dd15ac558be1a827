/* passes.h: the graph passes of the export pipeline (DESIGN.md, "Data
 * flow"), private to the core. One pass per file:
 *
 *   JIT level (TorchScript graph, before lowering)
 *     jit_dce.c            dead nodes without side effects
 *     jit_alias.c          which ops alias their input, and their inverses
 *     jit_functionalize.c  every in-place write lands in the tensor it
 *                          aliases (through views, If and Loop), with
 *                          functionalize_facts.c (alias analysis) and
 *                          functionalize_inverse.c (inverses of views)
 *     jit_lower_tuples.c   Tuple/List Construct+Unpack pairs vanish
 *     jit_constprop.c      scalar ops on constants, prim::If on a constant
 *     jit_peephole_size.c  aten::size / aten::dim of static tensors
 *     jit_infer_types.c    types of a scripted graph's values, exception
 *                          branches dropped, prim ops on known types
 *     jit_type_rules.c     the per-op result rules it applies
 *     type_promotion.c     torch's result_type for untyped (scripted) ops
 *   ONNX level (after lowering)
 *     pass_util.c          the helpers every ONNX pass shares (below)
 *     onnx_dce.c           unused nodes, initializers and weight inputs
 *     onnx_io_names.c      --input-names, --output-names
 *     output_types.c       every graph output has a dtype (else an error)
 *     dynamic_axes.c       dim_params of declared dynamic axes: on the
 *                          inputs before lowering, on the outputs after
 *     shape_infer.c        dtype, dims and dim_params of every value
 *     shape_rules.c        the per-op rules shape_infer.c drives
 *     broadcast.c          broadcasting of shapes; Expand where an op
 *                          broadcasts only one way
 *     const_fold.c         nodes on constants become initializers
 *     fold_eval.c          the small evaluators const_fold.c calls
 *     onnx_peephole.c      Gemm fusion, Transpose fusion, no-op removal,
 *                          Conv+BatchNormalization fold
 *     onnx_cse.c           identical nodes merged
 *     dedup_inits.c        identical initializers merged
 *
 * Every pass is linear in the graph (use lists, id-indexed side tables,
 * hashes); none scans the graph per node. */
#ifndef OXP_PASSES_H
#define OXP_PASSES_H

#include "export.h"

/* ---- shared pass context (pass_util.c) -------------------------------- */

typedef struct {
  oxp_graph *g;
  const oxp_options *o;
  oxp_diag *d;
  /* By value id, for ids below nmarks: listed as an output of some block.
   * Values made later are never outputs. */
  bool *is_out;
  int nmarks;
  int nconsts; /* counter for names of new initializers */
} oxp_pass;

/* Prepares p (marks block outputs once, recursively). */
oxp_status oxp_pass_init(oxp_pass *p, oxp_graph *g, const oxp_options *o,
                         oxp_diag *d);
static inline bool oxp_pass_is_out(const oxp_pass *p, const oxp_value *v) {
  return v->id < p->nmarks && p->is_out[v->id];
}
static inline bool oxp_pass_used(const oxp_pass *p, const oxp_value *v) {
  return v->nuses > 0 || oxp_pass_is_out(p, v);
}
/* A tensor whose bytes are known at export time: a block constant, or a
 * weight input when weights are exported as initializers that no runtime
 * input can override (export_params and not keep_initializers_as_inputs). */
bool oxp_pass_is_const(const oxp_pass *p, const oxp_value *v);
/* A new initializer of block b holding t, named "onnxexp::<stem>_<n>". */
oxp_value *oxp_pass_new_const(oxp_pass *p, oxp_block *b, oxp_tensor *t,
                              const char *stem);
/* Turns v (a node output) into an initializer holding t: v keeps its name
 * and uses, its producer stops producing it. */
void oxp_pass_make_const(oxp_pass *p, oxp_value *v, oxp_tensor *t);
/* Removes node n whose output `out` equals its input `in` (Identity, a
 * no-op Cast/Reshape/Transpose): consumers of out read in. When out is a
 * block output, in's producer takes over out instead, so the output keeps
 * its name; returns false (node kept) when that is impossible. */
bool oxp_pass_bypass(oxp_pass *p, oxp_node *n, oxp_value *in,
                     oxp_value *out);
/* Destroys every node of b and of the blocks inside it (jit_dce.c), so
 * values outside lose the uses that code had of them. */
void oxp_pass_destroy_block(oxp_block *b);
/* ONNX op type of an "onnx::X" node, NULL for other domains. */
const char *oxp_pass_onnx_op(const oxp_node *n);

/* ---- ONNX clean-up and interface (onnx_dce.c, onnx_io_names.c,
 *      dynamic_axes.c) ------------------------------------------------ */

/* onnx_dce.c: drops nodes none of whose outputs is used, unused initializers, and
 * weight inputs nothing reads (user inputs stay). Never fails. */
oxp_status oxp_onnx_dce(oxp_pass *p);
/* onnx_io_names.c: renames user inputs and outputs as the options ask. */
oxp_status oxp_onnx_io_names(oxp_pass *p);
/* output_types.c: every tensor output of the graph has a dtype, or a
 * located error at the node that makes it. */
oxp_status oxp_onnx_output_types(oxp_pass *p);
/* dynamic_axes.c: declared dynamic axes become dim_params: on the TorchScript graph's
 * user inputs before lowering (named as --input-names will name them);
 * on the ONNX graph after renaming, on the inputs and outputs they name,
 * refusing a name that is neither. */
oxp_status oxp_jit_dynamic_axes(oxp_graph *g, const oxp_options *o,
                                oxp_diag *d);
oxp_status oxp_onnx_dynamic_axes(oxp_pass *p);

/* ---- JIT passes (jit/, a file per pass) ------------------------------ */

/* jit_dce.c */
oxp_status oxp_jit_dce(oxp_graph *g, oxp_diag *d);
/* jit_functionalize.c (with functionalize_*.c) */
oxp_status oxp_jit_functionalize(oxp_graph *g, const oxp_options *o, oxp_diag *d); /* o may be NULL */
/* jit_lower_tuples.c */
oxp_status oxp_jit_lower_tuples(oxp_graph *g, oxp_diag *d);
/* Might list l change after its ListConstruct (append & co., or being
 * handed to a loop)? Then its length and elements are not constants. */
bool oxp_jit_list_mutated(const oxp_value *l);
/* jit_constprop.c */
oxp_status oxp_jit_constprop(oxp_graph *g, oxp_diag *d);
/* Folds one scalar node on constants; n may be replaced by a
 * prim::Constant. */
oxp_status oxp_jit_constprop_node(oxp_graph *g, oxp_node *n, oxp_diag *d);
/* prim::If on a known condition: the branch taken moves before n, n goes. */
void oxp_jit_inline_if(oxp_node *n, bool cond);
/* jit_fold_static.c: string ops, all()/any() of static bool lists, list
 * slices and sums, `x is x`: *done when n was replaced; the walk goes on
 * at *next when it set it (new nodes to fold). */
oxp_status oxp_jit_fold_static(oxp_graph *g, oxp_node *n, bool *done, oxp_node **next,
                               oxp_diag *d);
/* jit_fold_lists.c, its list part: unpacks, slices, all/any, sums and
 * constant indexing of lists built in straight-line code. */
oxp_status oxp_jit_fold_list(oxp_graph *g, oxp_node *n, bool *done, oxp_node **next,
                             oxp_diag *d);
/* jit_list_ssa.c: list copies and writes in straight-line code as new
 * ListConstructs: *done when n was replaced. */
oxp_status oxp_jit_list_ssa(oxp_graph *g, oxp_node *n, bool *done, oxp_diag *d);
/* jit_infer_types.c: types every value of a scripted graph that its text
 * leaves unknown: module attributes become the lifted inputs, types flow
 * from the typed inputs through each op's result rule (jit_type_rules.c,
 * under "shapes" below), into If and Loop blocks and out; branches that
 * only raise are dropped and Ifs on known conditions fold. */
oxp_status oxp_jit_infer_types(oxp_graph *g, const oxp_options *o, oxp_diag *d);
/* jit_peephole_size.c. Uses the dynamic axes of o: a size that one of
 * them may change is kept. */
oxp_status oxp_jit_peephole_size(oxp_graph *g, const oxp_options *o,
                                 oxp_diag *d);
/* type_promotion.c */
oxp_status oxp_type_promotion(oxp_graph *g, oxp_diag *d);
/* oxp_result_type_why with every failure as 0 (unknown): type inference
 * leaves the value untyped and lowering names the error. */
int oxp_result_type(const oxp_operand *ops, int n);
/* v as an operand of result_type: false when v is no tensor or number. */
bool oxp_operand_of(const oxp_value *v, oxp_operand *o);

/* ---- shapes (onnx/: broadcast.c, shape_infer.c, shape_ctx.c,
 *      shape_rules*.c; jit/jit_type_rules.c) ---------------------------- */

/* A tensor type during inference: a dim is a value (>= 0), a dim_param
 * (p[i] != NULL, d[i] == -1), or unknown (-1, NULL). */
typedef struct {
  int dtype;
  int rank; /* -1 unknown */
  int64_t d[OXP_MAX_SHAPE_RANK];
  const char *p[OXP_MAX_SHAPE_RANK];
} oxp_shape;

/* broadcast.c: shapes, and broadcasting them */
void oxp_shape_unknown(oxp_shape *s, int dtype);
/* From a value's type (unknown when it is not a tensor type). */
void oxp_shape_of(const oxp_value *v, oxp_shape *s);
/* Prints "[2, batch, ?]" into buf. */
void oxp_shape_print(const oxp_shape *s, char *buf, size_t n);
bool oxp_shape_dim_eq(const oxp_shape *a, int i, const oxp_shape *b, int j);

/* Multidirectional (NumPy) broadcast of a and b into out; false when
 * two static dims differ and neither is 1. out's dtype is a's. */
bool oxp_broadcast(const oxp_shape *a, const oxp_shape *b, oxp_shape *out);
/* The standard error: names the op, its IR location and both shapes. */
oxp_status oxp_broadcast_fail(oxp_diag *d, const oxp_node *n,
                              const oxp_shape *a, const oxp_shape *b);
/* Inserts Expand where an op broadcasts only one way (Gemm's C, PRelu's
 * slope) but the shapes need the other way. Needs inferred shapes. */
oxp_status oxp_broadcast_fix(oxp_pass *p);

/* shape_infer.c: infers types of every node output in graph order, overwriting the
 * types lowering copied from the traced graph where inference knows
 * better (dims of dynamic axes become dim_params). */
oxp_status oxp_shape_infer(oxp_pass *p);

/* Inference while lowering builds a graph: nodes are typed one at a
 * time, as soon as they are complete. Rule failures are not reported
 * here (the full pass after lowering reports them with context). */
typedef struct oxp_si_live oxp_si_live;
oxp_si_live *oxp_si_live_open(oxp_graph *g, const oxp_options *o);
/* Types n's outputs, first typing any untyped input made by a node not
 * yet inferred. Marks n OXP_NODE_INFERRED. */
void oxp_si_live_node(oxp_si_live *l, oxp_node *n);
/* What inference knows of the elements of a small int tensor v made
 * while lowering (as oxp_si_ints: the count, -1 when nothing; a name or
 * OXP_SYM_UNKNOWN where only run time knows). v's producer is typed
 * first. Lets a symbolic use a list built from sizes as the constant it
 * is when every size is static. */
int oxp_si_live_ints(oxp_si_live *l, const oxp_value *v, int64_t *vals,
                     const char **p);

/* shape_rules.c, shape_rules_ext.c: per-op rules. A rule reads inputs through the context
 * and fills out[0..noutputs-1]; shapes of unknown rank mean "no idea". */
typedef struct oxp_sictx oxp_sictx;
typedef oxp_status (*oxp_shape_rule)(oxp_sictx *c, oxp_node *n,
                                     oxp_shape *out);
typedef struct {
  const char *op;
  oxp_shape_rule fn;
} oxp_shape_rule_entry;
extern const oxp_shape_rule_entry oxp_shape_rules[];
extern const int oxp_nshape_rules;

/* An element of symbolic int data that is not known. */
#define OXP_SYM_UNKNOWN INT64_MIN

/* shape_ctx.c: what rules may ask of the context. */
void oxp_si_in(oxp_sictx *c, const oxp_node *n, int i, oxp_shape *s);
int oxp_si_opset(const oxp_sictx *c);
oxp_diag *oxp_si_diag(oxp_sictx *c);
/* The elements of a small int tensor input as symbolic dims (constants,
 * or Shape/Gather/Concat/... of known dims, as ONNX data propagation
 * does). Returns the element count, -1 when nothing is known; rank0 says
 * whether the value is 0-d. An element is a value, a name (p[k] set), or
 * OXP_SYM_UNKNOWN. p may be NULL. */
int oxp_si_ints(oxp_sictx *c, const oxp_node *n, int i, int64_t *v,
                const char **p, bool *rank0);
/* Records symbolic data for output k of n (for Shape and friends). */
void oxp_si_set_data(oxp_sictx *c, oxp_node *n, int k, int cnt,
                     const int64_t *v, const char *const *p, bool rank0);

/* jit_type_rules.c: the result rule of n's op on the TorchScript graph;
 * fills out[0..noutputs-1]
 * (at most 4) with what follows from the inputs' types; false when n has
 * no rule. rules comes from oxp_jit_type_rules_init. */
oxp_status oxp_jit_type_rules_init(oxp_map *m, oxp_arena *a, oxp_diag *d);
/* The rules of recent kinds, by the kind string's address (the parser
 * shares one string per kind): a caller's, zeroed, for one graph. */
typedef struct {
  const char *kind; /* NULL: empty */
  const void *rule;
} oxp_jit_rule_memo;
enum { OXP_JIT_RULE_MEMO = 32 };
bool oxp_jit_type_rule(const oxp_map *rules, oxp_jit_rule_memo *memo,
                       const oxp_node *n, oxp_shape *out);
/* split/chunk/unbind and friends: a list of pieces of input 0. */
bool oxp_jit_is_split(const oxp_node *k);

/* ---- constants and clean-up (onnx/: const_fold.c, fold_eval.c,
 *      onnx_peephole.c, onnx_cse.c, dedup_inits.c) ----------------------- */

/* const_fold.c */
oxp_status oxp_const_fold(oxp_pass *p);
/* fold_eval.c: evaluates n on constant inputs; *out NULL when n is not
 * foldable (unknown op, unsupported dtype, over the size limit). */
oxp_status oxp_fold_eval(oxp_pass *p, oxp_node *n, oxp_tensor **in,
                         oxp_tensor **out);
/* Folds above this many output bytes only when some input is as big. */
enum { OXP_FOLD_LIMIT = 1 << 20 };

/* onnx_peephole.c */
oxp_status oxp_onnx_peephole(oxp_pass *p);
/* onnx_cse.c: merges nodes with the same op, inputs and attributes. */
oxp_status oxp_onnx_cse(oxp_pass *p);
/* dedup_inits.c */
oxp_status oxp_dedup_inits(oxp_pass *p);

#endif
