/* serialize.h: private to the serializer stage (names.c, serialize.c,
 * ser_tensor.c, write.c, pretty.c). The entry points other stages call
 * (oxp_serialize, oxp_write_file, oxp_write_buffer, oxp_pretty,
 * oxp_ir_version_for_opset) stay declared in export.h. */
#ifndef OXP_SERIALIZE_H
#define OXP_SERIALIZE_H

#include "export.h"

/* Gives every value of g, in every nested block, a unique non-empty name,
 * and every node a unique name. Existing unique names are kept, first come
 * first served in graph order (top inputs, top initializers, then nodes in
 * order, depth-first into their blocks); the rest become
 * "<OpType>_<n>_out<k>" (node outputs), "<name>_<k>" (renamed inputs) or
 * similar. Deterministic and idempotent. Fails with OXP_ERR_GRAPH when a
 * node or block output uses a value no block defines. */
oxp_status oxp_assign_names(oxp_graph *g, oxp_diag *d);

/* "onnx::Add" -> "Add"; "com.x::Foo" -> "Foo"; a kind without "::" is
 * returned whole. Points into kind. */
const char *oxp_op_type(const char *kind);
/* The ONNX domain of a node kind: "" for "onnx::" (and "ai.onnx::"), else
 * the part before "::", copied into a. NULL only when memory runs out. */
const char *oxp_op_domain(oxp_arena *a, const char *kind);

/* Which top-block inputs the model lists as graph inputs and which as
 * initializers. Shared by the serializer and the pretty printer so the
 * two never disagree. */
static inline bool oxp_top_input_listed(const oxp_options *o,
                                        const oxp_value *v) {
  return !v->init || o->keep_initializers_as_inputs || !o->export_params;
}
static inline bool oxp_top_input_is_init(const oxp_options *o,
                                         const oxp_value *v) {
  return v->init && o->export_params;
}

/* ---- tensor writing (ser_tensor.c) ----------------------------------- *
 * The one place a TensorProto's data is decided. Today data always goes
 * inline as raw_data borrowed from the oxp_tensor (no copy). External data
 * (TensorProto.external_data + data_location EXTERNAL, per
 * oxp_options.external_data) slots in here: the writer gains the data
 * file's sink and running offset, and oxp_ser_tensor chooses per tensor. */
struct Onnx__TensorProto; /* onnx/onnx.pb-c.h */

typedef struct {
  oxp_arena *arena;       /* every protobuf-c struct is allocated here */
  const oxp_options *opts;
  oxp_diag *d;
} oxp_tensor_writer;

/* name may be NULL (tensor attributes). */
oxp_status oxp_ser_tensor(oxp_tensor_writer *w, const oxp_tensor *t,
                          const char *name, struct Onnx__TensorProto **out);

/* oxp_pretty with names assigned in place (oxp_pretty in export.h takes a
 * const graph; naming writes to it, so it forwards here). */
char *oxp_pretty_graph(oxp_graph *g, const oxp_options *o);

#endif
