/* onnxexp/types.h: handles and enums shared by the builder, the export
 * calls and the symbolic helpers. */
#ifndef ONNXEXP_TYPES_H
#define ONNXEXP_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include <onnxexp/api.h>

ONNXEXP_BEGIN_DECLS

/* Element types, numbered as onnx.TensorProto.DataType. */
typedef enum {
  ONNXEXP_DT_UNDEFINED = 0, /* unknown */
  ONNXEXP_DT_FLOAT = 1,
  ONNXEXP_DT_UINT8 = 2,
  ONNXEXP_DT_INT8 = 3,
  ONNXEXP_DT_UINT16 = 4,
  ONNXEXP_DT_INT16 = 5,
  ONNXEXP_DT_INT32 = 6,
  ONNXEXP_DT_INT64 = 7,
  ONNXEXP_DT_STRING = 8,
  ONNXEXP_DT_BOOL = 9,
  ONNXEXP_DT_FLOAT16 = 10,
  ONNXEXP_DT_DOUBLE = 11,
  ONNXEXP_DT_UINT32 = 12,
  ONNXEXP_DT_UINT64 = 13,
  ONNXEXP_DT_COMPLEX64 = 14,
  ONNXEXP_DT_COMPLEX128 = 15,
  ONNXEXP_DT_BFLOAT16 = 16
} onnxexp_dtype;

/* TorchScript value types a builder can declare (the IR's `: type`). */
typedef enum {
  ONNXEXP_TYPE_TENSOR = 0, /* Float(2, 3), Tensor, ...: dtype/rank/dims */
  ONNXEXP_TYPE_INT,        /* int */
  ONNXEXP_TYPE_FLOAT,      /* float */
  ONNXEXP_TYPE_BOOL,       /* bool */
  ONNXEXP_TYPE_STR,        /* str */
  ONNXEXP_TYPE_NONE,       /* NoneType */
  ONNXEXP_TYPE_DEVICE,     /* Device */
  ONNXEXP_TYPE_NUMBER,     /* Scalar */
  ONNXEXP_TYPE_INT_LIST,   /* int[] */
  ONNXEXP_TYPE_FLOAT_LIST, /* float[] */
  ONNXEXP_TYPE_BOOL_LIST,  /* bool[] */
  ONNXEXP_TYPE_TENSOR_LIST,/* Tensor[] */
  ONNXEXP_TYPE_OPTIONAL_TENSOR /* Tensor? */
} onnxexp_type_kind;

/* A graph in memory: made by the builder (builder.h). */
typedef struct onnxexp_graph onnxexp_graph;
/* A block: the graph's top block, or a prim::If / prim::Loop body. */
typedef struct onnxexp_block onnxexp_block;
/* A node: built by the builder, handed to a custom symbolic, or emitted
 * by one with onnxexp_g_op. */
typedef struct onnxexp_node onnxexp_node;
/* A value: graph/block input or node output. */
typedef struct onnxexp_value onnxexp_value;
/* What a custom symbolic function receives (torch's GraphContext `g`). */
typedef struct onnxexp_graph_context onnxexp_graph_context;
/* Tensors bound from memory by name (weights.h). */
typedef struct onnxexp_weights onnxexp_weights;

ONNXEXP_END_DECLS

#endif
