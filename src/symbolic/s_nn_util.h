/* s_nn_util.h: helpers shared by the layer symbolics (s_nn.c, s_conv.c,
 * s_pool.c, s_norm.c, s_act.c, s_pad.c, s_interp.c, s_loss.c). Private to
 * those files. */
#ifndef OXP_S_NN_UTIL_H
#define OXP_S_NN_UTIL_H

#include "ops.h"

/* Most spatial dims a layer handles (conv3d, pool3d, pad of 8 dims). */
#define OXP_MAX_SPATIAL_DIMS 8

/* An int list argument widened to k entries (torch lets one int stand for
 * all spatial dims); absent or empty means dflt everywhere. */
bool oxp_nn_spatial(oxp_sctx *c, oxp_node *n, int i, int k, int64_t dflt,
                    int64_t *out);
bool oxp_nn_all_eq(const int64_t *v, int k, int64_t x);
/* The "Nd" of an op name such as aten::max_pool2d_with_indices; dflt when
 * the name has none. */
int oxp_nn_name_dims(const oxp_node *n, int dflt);
/* Element type of a lowered value, float when unknown. */
int oxp_nn_dtype(oxp_sctx *c, const oxp_value *v);
/* Static size of dim i of v (negative i counts from the end), or -1 when
 * unknown or dynamic. */
int64_t oxp_nn_dim(const oxp_value *v, int i);
/* A 1-D constant of count copies of val in dtype. */
oxp_value *oxp_nn_filled(oxp_sctx *c, int64_t count, double val, int dtype);
/* Node with one input and one output and its attributes still to set. */
oxp_node *oxp_nn_op1(oxp_sctx *c, const char *op, oxp_value *x);
/* Transpose with perm. */
oxp_value *oxp_nn_transpose(oxp_sctx *c, oxp_value *x, const int64_t *perm,
                            int r);
/* Reshape to a constant shape. */
oxp_value *oxp_nn_reshape(oxp_sctx *c, oxp_value *x, const int64_t *shape,
                          int r);
/* Clip(x, lo, hi) in the form of the opset (attributes before 11, inputs
 * from 11); a NaN bound is absent. */
oxp_value *oxp_nn_clip(oxp_sctx *c, oxp_value *x, double lo, double hi);
/* A float argument, or dflt when absent/None; false (with a diagnostic)
 * when present but not a constant. */
bool oxp_nn_float_arg(oxp_sctx *c, oxp_node *n, int i, double dflt,
                      double *out);
bool oxp_nn_int_arg(oxp_sctx *c, oxp_node *n, int i, int64_t dflt,
                    int64_t *out);
bool oxp_nn_bool_arg(oxp_sctx *c, oxp_node *n, int i, bool dflt, bool *out);
/* Does any later node read output i of n? */
bool oxp_nn_out_used(const oxp_node *n, int i);
/* Should an op whose traced `train` flag is train run in training mode,
 * given --training? eval: never (the model is exported as if
 * model.eval() had been called); preserve: as traced; train: always (as
 * torch's TrainingMode.TRAINING, which calls model.train() before
 * tracing, so an eval-traced graph still exports training behaviour). */
bool oxp_nn_training(oxp_sctx *c, bool train);
/* An adaptive pool (input 1 the output size) whose static input size is
 * not a multiple of its output size, lowered as pools of torch's bins
 * (s_adaptive_pool.c): true when it applies, the status in *st; false
 * (nothing emitted) otherwise. */
bool oxp_nn_adaptive_uneven(oxp_sctx *c, oxp_node *n, oxp_value *x, bool is_max,
                            oxp_status *st);

#endif
