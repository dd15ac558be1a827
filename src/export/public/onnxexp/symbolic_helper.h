/* onnxexp/symbolic_helper.h: custom symbolic functions
 * (torch.onnx.register_custom_op_symbolic) and the helpers of
 * torch.onnx.symbolic_helper they need.
 *
 * A symbolic maps one TorchScript node to ONNX nodes: it reads the node's
 * inputs (constant arguments, or lowered tensor values), emits ONNX nodes
 * with onnxexp_g_op (attributes with onnxexp_node_set_* of builder.h), and
 * binds each output of the node with onnxexp_g_set_output. A helper that
 * fails records its message (located at the node) on the context, so the
 * export reports it; the symbolic then returns that status.
 *
 * Handles a symbolic receives are valid only during the call. */
#ifndef ONNXEXP_SYMBOLIC_HELPER_H
#define ONNXEXP_SYMBOLIC_HELPER_H

#include <stdint.h>

#include <onnxexp/api.h>
#include <onnxexp/builder.h>
#include <onnxexp/diag.h>
#include <onnxexp/types.h>

ONNXEXP_BEGIN_DECLS

/* A custom symbolic: lowers node (a TorchScript node) in ctx. */
typedef onnxexp_status (*onnxexp_symbolic_fn)(onnxexp_graph_context *ctx,
                                              const onnxexp_node *node,
                                              void *user);

/* Registers fn for op ("domain::name"; "::name" means "aten::name") at
 * opset: it applies to every export at that opset or above, and wins over
 * the built-in symbolic of the same op. Registering again for the same
 * (op, opset) replaces fn and user. user must stay valid until the
 * registration is removed and the exports running then have returned.
 * The "onnx" domain cannot be registered. Thread-safe. */
ONNXEXP_API onnxexp_status onnxexp_register_custom_op_symbolic(
    const char *op, onnxexp_symbolic_fn fn, void *user, int opset,
    onnxexp_diag *diag);
/* Removes the registration of exactly (op, opset); a usage error when
 * there is none. The built-in symbolic, if any, applies again. */
ONNXEXP_API onnxexp_status onnxexp_unregister_custom_op_symbolic(
    const char *op, int opset, onnxexp_diag *diag);

/* ---- the context ------------------------------------------------------ */

/* The target opset of the export (0 for NULL). */
ONNXEXP_API int onnxexp_g_opset(const onnxexp_graph_context *ctx);
/* Records an error at the node being lowered and returns st (an error
 * status; ONNXEXP_OK becomes ONNXEXP_ERR_GRAPH). */
ONNXEXP_API onnxexp_status onnxexp_g_fail(onnxexp_graph_context *ctx,
                                          onnxexp_status st,
                                          const char *message);

/* ---- reading the node's inputs ----------------------------------------- */

/* Nonzero when input i is absent or a None constant. */
ONNXEXP_API int onnxexp_g_is_none(const onnxexp_node *node, int i);
/* Nonzero when input i is a compile-time constant (prim::Constant, or a
 * list of them). */
ONNXEXP_API int onnxexp_g_is_constant(const onnxexp_node *node, int i);
/* Constant int argument i (bool/float convert; a one-element tensor
 * constant reads as a scalar); an error is recorded when it is not one. */
ONNXEXP_API onnxexp_status onnxexp_g_const_int(onnxexp_graph_context *ctx,
                                               const onnxexp_node *node,
                                               int i, int64_t *out);
/* Constant float argument i. */
ONNXEXP_API onnxexp_status onnxexp_g_const_float(onnxexp_graph_context *ctx,
                                                 const onnxexp_node *node,
                                                 int i, double *out);
/* Constant bool argument i (stored as 0/1). */
ONNXEXP_API onnxexp_status onnxexp_g_const_bool(onnxexp_graph_context *ctx,
                                                const onnxexp_node *node,
                                                int i, int *out);
/* Constant string argument i; *out lives until the export returns. */
ONNXEXP_API onnxexp_status onnxexp_g_const_string(onnxexp_graph_context *ctx,
                                                  const onnxexp_node *node,
                                                  int i, const char **out);
/* Constant int[] argument i; *v (cnt entries) lives until the export
 * returns. */
ONNXEXP_API onnxexp_status onnxexp_g_const_ints(onnxexp_graph_context *ctx,
                                                const onnxexp_node *node,
                                                int i, const int64_t **v,
                                                int *cnt);
/* Constant float[] argument i. */
ONNXEXP_API onnxexp_status onnxexp_g_const_floats(onnxexp_graph_context *ctx,
                                                  const onnxexp_node *node,
                                                  int i, const double **v,
                                                  int *cnt);
/* Input i as an ONNX tensor value: constants and int lists become
 * constant tensors, tensors their lowered value. */
ONNXEXP_API onnxexp_status onnxexp_g_input(onnxexp_graph_context *ctx,
                                           const onnxexp_node *node, int i,
                                           onnxexp_value **out);

/* Element type of a value (ONNXEXP_DT_UNDEFINED when unknown). */
ONNXEXP_API onnxexp_dtype onnxexp_value_dtype(const onnxexp_value *v);
/* Rank of a tensor value, -1 when unknown. */
ONNXEXP_API int onnxexp_value_rank(const onnxexp_value *v);
/* Dimension d of a tensor value, -1 when unknown or out of range. */
ONNXEXP_API int64_t onnxexp_value_dim(const onnxexp_value *v, int d);

/* ---- emitting ------------------------------------------------------------ */

/* g.op: appends the ONNX node op ("Relu", or "domain::Op" for a custom
 * domain) with nin inputs (NULL entries: absent optional inputs) and nout
 * outputs, written to outputs[0..nout) (may be NULL when nout is 0). The
 * node itself goes to *node when node is not NULL, for attributes. */
ONNXEXP_API onnxexp_status onnxexp_g_op(onnxexp_graph_context *ctx,
                                        const char *op,
                                        onnxexp_value *const *inputs, int nin,
                                        int nout, onnxexp_value **outputs,
                                        onnxexp_node **node);
/* Binds output i of the TorchScript node to the ONNX value v; v takes the
 * output's traced type when it has none. */
ONNXEXP_API onnxexp_status onnxexp_g_set_output(onnxexp_graph_context *ctx,
                                                const onnxexp_node *node,
                                                int i, onnxexp_value *v);
/* Declares an emitted value's type when the exporter cannot know it (a
 * custom-domain op): dims as in onnxexp_block_add_input. */
ONNXEXP_API onnxexp_status onnxexp_g_set_type(onnxexp_graph_context *ctx,
                                              onnxexp_value *v,
                                              onnxexp_dtype dtype, int rank,
                                              const int64_t *dims);
/* Cast v to dtype (no node when it already has it). */
ONNXEXP_API onnxexp_status onnxexp_g_cast(onnxexp_graph_context *ctx,
                                          onnxexp_value *v,
                                          onnxexp_dtype dtype,
                                          onnxexp_value **out);
/* Unsqueeze v at axes, in the form the target opset defines. */
ONNXEXP_API onnxexp_status onnxexp_g_unsqueeze(onnxexp_graph_context *ctx,
                                               onnxexp_value *v,
                                               const int64_t *axes, int n,
                                               onnxexp_value **out);
/* A constant tensor (an initializer) from nbytes of dense data, copied. */
ONNXEXP_API onnxexp_status onnxexp_g_constant(onnxexp_graph_context *ctx,
                                              onnxexp_dtype dtype, int rank,
                                              const int64_t *dims,
                                              const void *data, size_t nbytes,
                                              onnxexp_value **out);
/* A 1-d int64 constant of n elements. */
ONNXEXP_API onnxexp_status onnxexp_g_constant_ints(onnxexp_graph_context *ctx,
                                                   const int64_t *v, int n,
                                                   onnxexp_value **out);
/* A 0-d constant of value v in dtype. */
ONNXEXP_API onnxexp_status onnxexp_g_constant_scalar(
    onnxexp_graph_context *ctx, double v, onnxexp_dtype dtype,
    onnxexp_value **out);

ONNXEXP_END_DECLS

#endif
