/* onnxexp/builder.h: build a TorchScript graph in memory, node by node,
 * instead of writing IR text. A built graph exports exactly as the same
 * graph written as IR text does (byte-identical models).
 *
 * Everything hangs off the graph and is freed with it; names and arrays
 * passed in are copied, except weight data (onnxexp_graph_attach_weight),
 * which is borrowed until the export that uses it returns.
 *
 * The attribute setters also apply to nodes a custom symbolic emits with
 * onnxexp_g_op (there the attribute is an ONNX attribute). */
#ifndef ONNXEXP_BUILDER_H
#define ONNXEXP_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include <onnxexp/api.h>
#include <onnxexp/diag.h>
#include <onnxexp/types.h>

ONNXEXP_BEGIN_DECLS

/* Creates an empty graph into *out; name labels diagnostics (NULL ok). */
ONNXEXP_API onnxexp_status onnxexp_graph_create(const char *name,
                                                onnxexp_graph **out,
                                                onnxexp_diag *diag);
/* Frees a graph and all its blocks, nodes and values; NULL is allowed. */
ONNXEXP_API void onnxexp_graph_free(onnxexp_graph *g);
/* The graph's top block (graph inputs, nodes, `return`). */
ONNXEXP_API onnxexp_block *onnxexp_graph_block(onnxexp_graph *g);

/* Adds a typed input to a block (graph inputs on the top block, body
 * parameters on an If/Loop block). For ONNXEXP_TYPE_TENSOR, dtype may be
 * ONNXEXP_DT_UNDEFINED, rank -1 means unknown and dims entries -1 are
 * unknown (dynamic); other kinds ignore dtype/rank/dims. */
ONNXEXP_API onnxexp_status onnxexp_block_add_input(
    onnxexp_block *b, const char *name, onnxexp_type_kind kind,
    onnxexp_dtype dtype, int rank, const int64_t *dims, onnxexp_value **out,
    onnxexp_diag *diag);
/* Shorthand for a tensor input of the top block. */
ONNXEXP_API onnxexp_status onnxexp_graph_add_input(
    onnxexp_graph *g, const char *name, onnxexp_dtype dtype, int rank,
    const int64_t *dims, onnxexp_value **out, onnxexp_diag *diag);

/* Appends a node of kind op ("aten::linear", "prim::Constant",
 * "aten::add.Tensor", "mydomain::Foo") to block b, with inputs (NULL
 * entries are absent optional inputs) and nout fresh outputs, into *out.
 * Outputs are named "<n>" after a counter until onnxexp_value_set_name. */
ONNXEXP_API onnxexp_status onnxexp_block_add_node(
    onnxexp_block *b, const char *op, onnxexp_value *const *inputs, int nin,
    int nout, onnxexp_node **out, onnxexp_diag *diag);
/* Output i of a node, or NULL past the end. */
ONNXEXP_API onnxexp_value *onnxexp_node_output(const onnxexp_node *n, int i);
/* Input i of a node, or NULL past the end or for an absent input. */
ONNXEXP_API onnxexp_value *onnxexp_node_input(const onnxexp_node *n, int i);
/* Number of inputs of a node (0 for NULL). */
ONNXEXP_API int onnxexp_node_num_inputs(const onnxexp_node *n);
/* Number of outputs of a node (0 for NULL). */
ONNXEXP_API int onnxexp_node_num_outputs(const onnxexp_node *n);
/* The node's kind ("aten::relu"); NULL for NULL. */
ONNXEXP_API const char *onnxexp_node_kind(const onnxexp_node *n);
/* Adds a block (then, else, or the loop body) to a prim::If/prim::Loop
 * node into *out. */
ONNXEXP_API onnxexp_status onnxexp_node_add_block(onnxexp_node *n,
                                                  onnxexp_block **out,
                                                  onnxexp_diag *diag);
/* Sets the node's source comment (the IR's "# m.py:5:0"); exported as
 * the node's doc_string when a doc_string is requested. */
ONNXEXP_API onnxexp_status onnxexp_node_set_source(onnxexp_node *n,
                                                   const char *text,
                                                   onnxexp_diag *diag);

/* Attribute setters; a second set of the same name replaces the first. */
ONNXEXP_API onnxexp_status onnxexp_node_set_int(onnxexp_node *n,
                                                const char *name, int64_t v,
                                                onnxexp_diag *diag);
/* A float attribute. */
ONNXEXP_API onnxexp_status onnxexp_node_set_float(onnxexp_node *n,
                                                  const char *name, double v,
                                                  onnxexp_diag *diag);
/* A string attribute (copied). */
ONNXEXP_API onnxexp_status onnxexp_node_set_string(onnxexp_node *n,
                                                   const char *name,
                                                   const char *v,
                                                   onnxexp_diag *diag);
/* An int list attribute of cnt elements (copied). */
ONNXEXP_API onnxexp_status onnxexp_node_set_ints(onnxexp_node *n,
                                                 const char *name,
                                                 const int64_t *v, int cnt,
                                                 onnxexp_diag *diag);
/* A float list attribute of cnt elements (copied). */
ONNXEXP_API onnxexp_status onnxexp_node_set_floats(onnxexp_node *n,
                                                   const char *name,
                                                   const double *v, int cnt,
                                                   onnxexp_diag *diag);
/* A string list attribute of cnt elements (copied). */
ONNXEXP_API onnxexp_status onnxexp_node_set_strings(onnxexp_node *n,
                                                    const char *name,
                                                    const char *const *v,
                                                    int cnt,
                                                    onnxexp_diag *diag);
/* A tensor attribute (prim::Constant's value=): dense little-endian data
 * of nbytes bytes, copied; rank 0 is a scalar. */
ONNXEXP_API onnxexp_status onnxexp_node_set_tensor(
    onnxexp_node *n, const char *name, onnxexp_dtype dtype, int rank,
    const int64_t *dims, const void *data, size_t nbytes,
    onnxexp_diag *diag);

/* Renames a value (the IR's %name, without '%'). */
ONNXEXP_API onnxexp_status onnxexp_value_set_name(onnxexp_value *v,
                                                  const char *name,
                                                  onnxexp_diag *diag);
/* Declares a value's type, as onnxexp_block_add_input does. Node outputs
 * should carry the types the tracer recorded. */
ONNXEXP_API onnxexp_status onnxexp_value_set_type(
    onnxexp_value *v, onnxexp_type_kind kind, onnxexp_dtype dtype, int rank,
    const int64_t *dims, onnxexp_diag *diag);
/* The value's name; NULL for NULL. */
ONNXEXP_API const char *onnxexp_value_name(const onnxexp_value *v);

/* Marks v as an output of block b (graph outputs: the top block; the
 * `-> (...)` values of an If/Loop block). */
ONNXEXP_API onnxexp_status onnxexp_block_add_output(onnxexp_block *b,
                                                    onnxexp_value *v,
                                                    onnxexp_diag *diag);

/* Binds weight data to the graph input called name (it becomes an
 * initializer), as a safetensors entry would; dtype and shape must match
 * the input's declaration. data is borrowed, not copied: keep it alive
 * and unchanged until the export using this graph returns. */
ONNXEXP_API onnxexp_status onnxexp_graph_attach_weight(
    onnxexp_graph *g, const char *name, onnxexp_dtype dtype, int rank,
    const int64_t *dims, const void *data, size_t nbytes,
    onnxexp_diag *diag);

ONNXEXP_END_DECLS

#endif
