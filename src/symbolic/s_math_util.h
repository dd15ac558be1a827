/* s_math_util.h: helpers private to the math, comparison and reduction
 * symbolics (s_arith.c, s_math_*.c, s_cmp.c, s_cast.c, s_reduce*.c):
 * torch's type promotion over a node's inputs, opset-aware elementwise
 * forms that older opsets only define for some dtypes, and reduction
 * dims. Prefix oxp_m_. */
#ifndef OXP_S_MATH_UTIL_H
#define OXP_S_MATH_UTIL_H

#include "ops.h"

/* ---- dtypes ---------------------------------------------------------------- */

/* Element type of source input i: the traced type, else the lowered
 * value's (or what its producing ops imply); 0 when unknown. Scalars are
 * int64 / float32 / bool. */
int oxp_m_in_dtype(oxp_sctx *c, oxp_node *n, int i);
/* torch.result_type over inputs i and j (j < 0: only i): dimensioned
 * tensors win over 0-d tensors, which win over Python scalars, unless a
 * lower-priority operand is of a higher category (bool < int < float <
 * complex). 0 when a tensor operand's dtype is unknown; 0 after a located
 * error when torch refuses the dtypes (dtype_promote.c). */
int oxp_m_result_dtype(oxp_sctx *c, oxp_node *n, int i, int j);
/* The same over cnt inputs idx[] (negative entries skipped). */
int oxp_m_result_dtype_n(oxp_sctx *c, oxp_node *n, const int *idx, int cnt);
/* torch.promote_types (dtype_promote.c); 0 after a located error when
 * torch refuses the pair or the result has no ONNX type. */
int oxp_m_promote(oxp_sctx *c, int a, int b);
/* Output dtype of n, else the result type of inputs 0 and 1. */
int oxp_m_out_dtype(oxp_sctx *c, oxp_node *n);
/* The dtype a float-valued op of inputs 0 and j (j < 0: only 0)
 * computes in: the traced output dtype, else their result type, with
 * integers and bools in the default float. 0 after a located error when
 * an input's dtype is unknown. */
int oxp_m_float_dtype(oxp_sctx *c, oxp_node *n, int j);
/* Inputs i and j in dtype dt. */
bool oxp_m_pair(oxp_sctx *c, oxp_node *n, int i, int j, int dt, oxp_value **a,
                oxp_value **b);
/* The dtype Add/Sub/Mul/Div compute dt in: int32 or int64 for the
 * narrow and unsigned integer types (results wrap back by Cast). */
int oxp_m_arith_dtype(oxp_sctx *c, int dt);
/* v cast to dt unless it already has that dtype. */
oxp_value *oxp_m_to(oxp_sctx *c, oxp_value *v, int dt);

/* oxp_sym_set_out, but a value typed here without a rank (intermediate
 * helpers know only the dtype; Cast copies an unknown rank) takes the
 * traced rank and dims, which oxp_sym_set_out keeps only for untyped
 * values; and where the traced type has no dtype (scripted `Tensor`),
 * the value gets the one its producing ONNX ops imply. */
oxp_status oxp_m_set_out(oxp_sctx *c, oxp_node *n, int i, oxp_value *v);

/* ---- elementwise forms ----------------------------------------------------- */

/* op (Add, Sub, Mul, Div) of a and b, both of dtype dt, computed in the
 * dtype this opset allows and cast back. */
oxp_value *oxp_m_arith(oxp_sctx *c, const char *op, oxp_value *a,
                       oxp_value *b, int dt);
/* Integer floor division (Div truncates toward zero). */
oxp_value *oxp_m_floor_div_int(oxp_sctx *c, oxp_value *a, oxp_value *b,
                               int dt);
/* Floor division of floats a and b of dtype dt as torch 1.13 computes
 * it (through fmod: exact where Floor(Div) rounds); needs Mod (opset 10). */
oxp_value *oxp_m_floor_div_float(oxp_sctx *c, oxp_value *a, oxp_value *b,
                                 int dt);
/* trunc(v) for v of floating dtype dt: no Trunc op exists. */
oxp_value *oxp_m_trunc(oxp_sctx *c, oxp_value *v, int dt);
/* Elementwise Greater/Less ("Greater", "Less", "GreaterOrEqual",
 * "LessOrEqual", "Equal") of a and b of dtype dt, in forms the opset
 * defines for that dtype (NaN compares false, as in torch). */
oxp_value *oxp_m_compare(oxp_sctx *c, const char *op, oxp_value *a,
                         oxp_value *b, int dt);
/* Elementwise max (is_max) or min of a and b of dtype dt (Max/Min where
 * the opset defines them for dt, else Where of a comparison). */
oxp_value *oxp_m_maxmin(oxp_sctx *c, bool is_max, oxp_value *a, oxp_value *b,
                        int dt);
/* A bool tensor shaped like x, all v. */
oxp_value *oxp_m_fill_bool(oxp_sctx *c, oxp_value *x, bool v);

/* Integer a & m, a | m, a ^ m (op 'a', 'o', 'x') below opset 18 with a
 * constant operand, in dtype dt (s_bitwise_int.c); a named error when
 * it cannot be exact. */
oxp_status oxp_bitwise_int_below18(oxp_sctx *c, oxp_node *n, char op, int dt);

/* ---- reductions ----------------------------------------------------------- */

/* Reduction dims from input i: None or an empty list (when empty_all)
 * mean every axis (*k = 0); negative dims are normalized against the rank
 * of x, as opsets before 11 require. false after a diagnostic. */
bool oxp_m_dims(oxp_sctx *c, oxp_node *n, int i, oxp_value *x, bool empty_all,
                int64_t **dims, int *k);
/* Applies a dtype argument at input i (None: no change). */
bool oxp_m_dtype_arg(oxp_sctx *c, oxp_node *n, int i, oxp_value **x);
/* The number of elements reduced over dims (k == 0: all) as a 0-d tensor
 * of dtype dt: a constant when the shape is static, else from Shape. */
oxp_value *oxp_m_count(oxp_sctx *c, oxp_value *x, const int64_t *dims, int k,
                       int dt);
/* That number when the shape makes it known at export time. */
bool oxp_m_static_count(oxp_sctx *c, oxp_value *x, const int64_t *dims,
                        int k, double *cnt);
/* The mean of x (of float dtype dt) over dims, NaN over no elements as in
 * torch: ReduceMean when the count is known and nonzero, else the sum
 * over the count. */
oxp_value *oxp_m_mean(oxp_sctx *c, oxp_value *x, const int64_t *dims, int k,
                      bool keep, int dt);

#endif
