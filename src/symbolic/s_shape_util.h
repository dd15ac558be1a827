/* s_shape_util.h: helpers shared by the shape, index, create, sort and
 * linalg symbolics (s_shape*.c, s_index*.c, s_create*.c, s_sort*.c,
 * s_linalg*.c). Private to those files; sym.h stays the public API. */
#ifndef OXP_S_SHAPE_UTIL_H
#define OXP_S_SHAPE_UTIL_H

#include "ops.h"

/* The most dims a symbolic reads as static dims (oxp_sx_dims); the rank
 * shape inference tracks, OXP_MAX_SHAPE_RANK, as well. */
#define OXP_MAX_STATIC_RANK 16

/* Static dims of a lowered value: true and dims filled (rank in *r) when
 * the rank and every dim are known. */
bool oxp_sx_dims(const oxp_value *v, int64_t *dims, int *r);
/* One dim of a lowered value, or -1 when unknown. */
int64_t oxp_sx_dim(const oxp_value *v, int axis);

oxp_value *oxp_sx_transpose(oxp_sctx *c, oxp_value *x, const int64_t *perm,
                            int r);
oxp_value *oxp_sx_concat(oxp_sctx *c, oxp_value *const *vals, int n,
                         int64_t axis);
oxp_value *oxp_sx_gather(oxp_sctx *c, oxp_value *x, oxp_value *idx,
                         int64_t axis);
/* Shape(x), typed int64[rank]. */
oxp_value *oxp_sx_shape(oxp_sctx *c, oxp_value *x);
/* x reshaped to the constant shape dims (may hold 0 / -1 as in Reshape). */
oxp_value *oxp_sx_reshape(oxp_sctx *c, oxp_value *x, const int64_t *dims,
                          int r);
/* Slice of one axis with 1-element int64 tensor bounds (opset >= 10). */
oxp_value *oxp_sx_slice_dyn(oxp_sctx *c, oxp_value *x, oxp_value *start,
                            oxp_value *end, int64_t axis, int64_t step);
/* Split x along axis into k pieces of the given sizes (opset-aware:
 * attribute before 13, input from 13). outs gets k values. */
bool oxp_sx_split(oxp_sctx *c, oxp_value *x, int64_t axis,
                  const int64_t *sizes, int k, oxp_value **outs);
/* A tensor of dtype filled with value, of the runtime shape (1-D int64). */
oxp_value *oxp_sx_fill(oxp_sctx *c, oxp_value *shape, double value,
                       int dtype);
/* Binds output i of n to a list of lowered values (for ListUnpack). */
oxp_status oxp_sx_set_list(oxp_sctx *c, oxp_node *n, int i, oxp_value **vals,
                           int cnt);
/* The number of elements the Tensor[] output i of n is unpacked into
 * (from its prim::ListUnpack), or -1. */
int oxp_sx_list_len(oxp_node *n, int i);
/* torch's promoted dtype of tensors of equal standing (cat, stack), or 0
 * when one dtype is unknown or torch refuses the pair. */
int oxp_sx_list_dtype(oxp_value *const *v, int cnt);
/* dtype argument i (a ScalarType int or None): OXP_DT_*, or fallback. */
int oxp_sx_dtype_arg(oxp_node *n, int i, int fallback);
/* Normalized axis argument i against rank r, recording an error when it
 * is not a constant or out of range. */
bool oxp_sx_axis_arg(oxp_sctx *c, oxp_node *n, int i, int r, int64_t *axis);
/* Shape(x) with dim axis replaced by mid (a 1-element int64 tensor);
 * needs x's rank. */
oxp_value *oxp_sx_shape_with(oxp_sctx *c, oxp_value *x, int axis,
                             oxp_value *mid);

#endif
