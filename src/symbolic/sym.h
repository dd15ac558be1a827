/* sym.h: what a symbolic function sees. A symbolic maps one TorchScript
 * node to ONNX nodes at the target opset, like torch.onnx's
 * symbolic_opset*.py functions: it reads its inputs (lowered tensors or
 * constant arguments), emits ONNX nodes with oxp_sym_op, and binds each
 * of the node's outputs with oxp_sym_set_out.
 *
 * Every helper returning a pointer returns NULL after recording a
 * diagnostic; a symbolic then returns oxp_sym_status(c). */
#ifndef OXP_SYM_H
#define OXP_SYM_H

#include "../export/internal/export.h"

typedef struct oxp_sctx oxp_sctx;
typedef oxp_status (*oxp_symbolic_fn)(oxp_sctx *c, oxp_node *n);

/* One row of the op table (op_table.c): op's symbolic from opset since on,
 * until a row of the same op with a higher since. */
typedef struct {
  const char *op;        /* "aten::add" */
  int since;             /* first opset of this form */
  oxp_symbolic_fn fn;
} oxp_sym_row;

/* The op table: every ops.def row, sorted by (op, since), no (op, since)
 * twice. */
const oxp_sym_row *oxp_sym_rows(int *n);

/* Finds the symbolic for op at opset: the row with the highest since not
 * above opset. *first_opset (may be NULL) receives the lowest opset where
 * op exists at all, or 0 if never. */
oxp_symbolic_fn oxp_sym_lookup(const char *op, int opset, int *first_opset);

/* Why op, known to have no symbolic, is refused (unsupported.def), or
 * NULL. */
const char *oxp_sym_why_not(const char *op);

/* Custom symbolics registered at run time (custom.c). One registered for
 * op at opset v applies to every target opset >= v, and wins over the
 * built-in tables. The registry is read-mostly: lookups take a read lock,
 * registration a write lock. */
typedef oxp_status (*oxp_custom_fn)(oxp_sctx *c, oxp_node *n, void *user);
oxp_status oxp_custom_register(const char *op, int opset, oxp_custom_fn fn,
                               void *user, oxp_diag *d);
/* Removes the registration for exactly (op, opset); false if none. */
bool oxp_custom_unregister(const char *op, int opset);
bool oxp_custom_lookup(const char *op, int opset, oxp_custom_fn *fn,
                       void **user);

/* ---- context -------------------------------------------------------------- */

int oxp_sym_opset(const oxp_sctx *c);
const oxp_options *oxp_sym_options(const oxp_sctx *c);
oxp_arena *oxp_sym_arena(const oxp_sctx *c);
oxp_status oxp_sym_status(const oxp_sctx *c);
/* Records an error located at the node being lowered; returns st. */
oxp_status oxp_sym_fail(oxp_sctx *c, oxp_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The standard "not supported" error for an argument variant. */
oxp_status oxp_sym_unsupported(oxp_sctx *c, const char *what);

/* ---- reading inputs --------------------------------------------------------- */

/* Source (TorchScript) input i of n, or NULL past the end. */
oxp_value *oxp_sym_src(oxp_node *n, int i);
/* Is input i absent, or a None constant? */
bool oxp_sym_is_none(oxp_node *n, int i);
/* Is input i a compile-time constant (prim::Constant, or a ListConstruct
 * of constants)? */
bool oxp_sym_is_const(oxp_node *n, int i);
/* Constant arguments. Return false (without a diagnostic) when the input
 * is not a constant of a fitting kind; bool/int/float convert freely, a
 * 0-d or one-element tensor constant reads as a scalar. */
bool oxp_sym_int(oxp_node *n, int i, int64_t *out);
bool oxp_sym_float(oxp_node *n, int i, double *out);
bool oxp_sym_bool(oxp_node *n, int i, bool *out);
bool oxp_sym_str(oxp_node *n, int i, const char **out);
/* int[] constant (or a single int, read as one element). *v is arena. */
bool oxp_sym_ints(oxp_sctx *c, oxp_node *n, int i, int64_t **v, int *cnt);
bool oxp_sym_floats(oxp_sctx *c, oxp_node *n, int i, double **v, int *cnt);
/* The same, but record "expected a constant ..." on failure. */
bool oxp_sym_need_int(oxp_sctx *c, oxp_node *n, int i, int64_t *out);
bool oxp_sym_need_ints(oxp_sctx *c, oxp_node *n, int i, int64_t **v,
                       int *cnt);

/* The lowered (ONNX) value of input i as a tensor. Scalars and constant
 * lists become constant tensors; int lists with runtime elements become a
 * Concat of unsqueezed scalars (int64). */
oxp_value *oxp_sym_in(oxp_sctx *c, oxp_node *n, int i);
/* Input i as a tensor of element type dtype: constants are made directly
 * in that type, other values are Cast when their type differs. */
oxp_value *oxp_sym_in_as(oxp_sctx *c, oxp_node *n, int i, int dtype);
/* Elements of a Tensor[] input (a prim::ListConstruct): lowered values. */
bool oxp_sym_in_list(oxp_sctx *c, oxp_node *n, int i, oxp_value ***vals,
                     int *cnt);

/* An int-list argument that ONNX takes as an input tensor (sizes, pads,
 * shapes, repeats, bounds), which may be known only at run time
 * (sym_ilist.c): a prim::ListConstruct of sizes and arithmetic on them, a
 * list out of an If or Loop, a tensor. Elements that shape inference
 * proves static (no dynamic axis reaches them) read as constants. */
#define OXP_ILIST_RUNTIME INT64_MIN
typedef struct {
  int n;           /* element count; -1 when only run time knows it */
  int64_t *v;      /* n elements, OXP_ILIST_RUNTIME where run-time */
  bool known;      /* every element is known: v is the list */
  oxp_value *t;    /* the list as a 1-D int64 tensor (NULL when known) */
} oxp_ilist;
/* Reads input i; false after a diagnostic. */
bool oxp_sym_ilist(oxp_sctx *c, oxp_node *n, int i, oxp_ilist *l);
/* The list as a 1-D int64 tensor: a constant when known. */
oxp_value *oxp_sym_ilist_tensor(oxp_sctx *c, const oxp_ilist *l);
/* Input i read as an int list and returned as its tensor (NULL after a
 * diagnostic), for symbolics that need nothing else of it. */
oxp_value *oxp_sym_in_ilist(oxp_sctx *c, oxp_node *n, int i);
/* false after the named error when the length is unknown (why: what
 * needs it, e.g. "Split needs it for its number of outputs"). */
bool oxp_sym_ilist_count(oxp_sctx *c, oxp_node *n, int i, const oxp_ilist *l,
                         const char *why);
/* The named error for argument i known only at run time where ONNX
 * needs it at export time (why: "ONNX MaxPool takes it as an
 * attribute"). */
oxp_status oxp_sym_runtime_arg(oxp_sctx *c, oxp_node *n, int i,
                               const char *why);

/* Declared type of source input i / output i (may be NULL). */
const oxp_type *oxp_sym_in_type(oxp_node *n, int i);
const oxp_type *oxp_sym_out_type(oxp_node *n, int i);
/* Element type and rank of a lowered value; 0 / -1 when unknown. */
int oxp_sym_dtype(const oxp_value *v);
int oxp_sym_rank(const oxp_value *v);
/* Output dtype from the traced type, else fallback. fallback is the
 * op's own rule (e.g. an input's dtype), never a default for a dtype
 * that is simply unknown: use the need forms below for that. */
int oxp_sym_out_dtype(oxp_node *n, int i, int fallback);
/* The dtype of output i of n / of lowered value v read by the node being
 * lowered; 0 after a located error naming the value when type inference
 * left it unknown. A dtype is never guessed: a wrong model that runs is
 * worse than no model. */
int oxp_sym_need_out_dtype(oxp_sctx *c, oxp_node *n, int i);
int oxp_sym_need_dtype(oxp_sctx *c, const oxp_value *v);

/* ---- emitting ----------------------------------------------------------------- */

/* Appends an ONNX node "onnx::<op>" (or "<domain>::<op>" when op contains
 * "::") with the given inputs (NULL entries are absent optional inputs)
 * and nout outputs. */
oxp_node *oxp_sym_op(oxp_sctx *c, const char *op, oxp_value *const *ins,
                     int nin, int nout);
/* One-output conveniences; NULL inputs propagate failure. */
oxp_value *oxp_sym_op1(oxp_sctx *c, const char *op, oxp_value *a);
oxp_value *oxp_sym_op2(oxp_sctx *c, const char *op, oxp_value *a,
                       oxp_value *b);
oxp_value *oxp_sym_op3(oxp_sctx *c, const char *op, oxp_value *a,
                       oxp_value *b, oxp_value *x);
/* Binds source output i of n to the lowered value v; v takes the output's
 * declared type when it has none. Returns the status. */
oxp_status oxp_sym_set_out(oxp_sctx *c, oxp_node *n, int i, oxp_value *v);
/* Sets v's type to (dtype, rank, dims) when not known; dims may be NULL. */
void oxp_sym_set_type(oxp_sctx *c, oxp_value *v, int dtype, int rank,
                      const int64_t *dims);

/* Constants (initializers of the current block). */
oxp_value *oxp_sym_const(oxp_sctx *c, oxp_tensor *t);
oxp_value *oxp_sym_const_i64s(oxp_sctx *c, const int64_t *v, int n);
oxp_value *oxp_sym_const_i64(oxp_sctx *c, int64_t v);   /* 0-d */
oxp_value *oxp_sym_const_scalar(oxp_sctx *c, double v, int dtype); /* 0-d */
oxp_value *oxp_sym_const_f32s(oxp_sctx *c, const float *v, int n);

/* Opset-aware forms. */
oxp_value *oxp_sym_cast(oxp_sctx *c, oxp_value *v, int dtype);
oxp_value *oxp_sym_unsqueeze(oxp_sctx *c, oxp_value *v, const int64_t *axes,
                             int n);
oxp_value *oxp_sym_squeeze(oxp_sctx *c, oxp_value *v, const int64_t *axes,
                           int n);  /* n == 0: all size-1 dims */
/* ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSumExp/SumSquare/LogSum with axes as
 * attribute or input as the opset defines; n == 0 reduces all axes. */
oxp_value *oxp_sym_reduce(oxp_sctx *c, const char *op, oxp_value *v,
                          const int64_t *axes, int n, bool keepdims);
/* Slice along axes with constant starts/ends/steps (opset-aware). */
oxp_value *oxp_sym_slice(oxp_sctx *c, oxp_value *v, const int64_t *axes,
                         const int64_t *starts, const int64_t *ends,
                         const int64_t *steps, int n);
/* Shape(v)[dim] as a 0-d int64 (negative dim counts from the end when the
 * rank is known). */
oxp_value *oxp_sym_size(oxp_sctx *c, oxp_value *v, int64_t dim);
/* Reshape with torch's meaning of the shape: every element a size, a 0
 * an empty dim, never ONNX's "copy the input's dim". zero says whether
 * the shape holds a 0: then allowzero from opset 14; below it a sure 0
 * (a constant) makes the result empty, a ConstantOfShape, and a 0 that
 * only run time can give stays ONNX's copy (not expressible there). */
enum { OXP_ZERO_NONE, OXP_ZERO_SURE, OXP_ZERO_MAYBE };
oxp_value *oxp_sym_reshape_sizes(oxp_sctx *c, oxp_value *x, oxp_value *shape,
                                 int zero);
/* The same to static dims (no -1). */
oxp_value *oxp_sym_reshape_dims(oxp_sctx *c, oxp_value *x, const int64_t *dims,
                                int r);
/* Normalizes a possibly negative axis against rank; false if out of range
 * or rank unknown while axis is negative. */
bool oxp_sym_axis(int64_t axis, int rank, int64_t *out);

#endif
