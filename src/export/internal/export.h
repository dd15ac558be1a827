/* export.h: the export pipeline of the core: options, lowering, ONNX-side
 * passes, serialization. The CLI and the public shims both drive it. */
#ifndef OXP_EXPORT_H
#define OXP_EXPORT_H

#include "oxp.h"

typedef enum {
  OXP_OET_ONNX = 0,
  OXP_OET_ONNX_ATEN,
  OXP_OET_ONNX_ATEN_FALLBACK,
  OXP_OET_ONNX_FALLTHROUGH
} oxp_export_type;

typedef enum { OXP_TRAIN_EVAL = 0, OXP_TRAIN_PRESERVE, OXP_TRAIN_TRAIN } oxp_training;

typedef enum {
  OXP_EXT_NONE = 0,  /* inline, unless the model would pass 2 GiB */
  OXP_EXT_FILE,      /* one data file beside the model */
  OXP_EXT_REFERENCE  /* point into the safetensors sidecar */
} oxp_external;

typedef struct {
  const char *input;  /* graph input name (after renaming) */
  int axis;
  const char *param;  /* dim_param */
} oxp_dyn_axis;

typedef struct {
  const char *domain;
  int64_t version;
} oxp_opset_import;

typedef struct {
  int opset;                       /* default 17 */
  const char **input_names;
  int n_input_names;
  const char **output_names;
  int n_output_names;
  const oxp_dyn_axis *dynamic_axes;
  int n_dynamic_axes;
  bool constant_folding;           /* default true */
  bool keep_initializers_as_inputs;
  bool export_params;              /* default true */
  oxp_export_type export_type;
  oxp_training training;
  const oxp_opset_import *custom_opsets;
  int n_custom_opsets;
  const char *doc_string;
  bool strip_doc_string;           /* default true */
  oxp_external external_data;
  const char *external_data_name;  /* default OUT.onnx.data's basename */
  /* The files the export reads, when it reads files (NULL: none): an
   * output that is the same file as one of them is refused. */
  const char *ir_path;
  const char *weights_path;
  bool quiet;
  oxp_warn_fn warn;
  void *warn_user;
} oxp_options;

void oxp_options_init(oxp_options *o);

/* The supported opsets are the rows of opsets.def: an enumerator per row
 * (OXP_OPSET_V9 = 9, ...), so the one after the last row is MAX + 1, and
 * one index per row gives their count. Rows are ascending without gaps
 * (checked at compile time in serialize.c). */
enum {
#define OXP_OPSET(v, ir) OXP_OPSET_V##v = v,
#include "opsets.def"
#undef OXP_OPSET
  OXP_OPSET_END
};
enum {
#define OXP_OPSET(v, ir) OXP_OPSET_IDX_##v,
#include "opsets.def"
#undef OXP_OPSET
  OXP_OPSET_COUNT
};
enum {
  OXP_OPSET_MAX = OXP_OPSET_END - 1,
  OXP_OPSET_MIN = OXP_OPSET_END - OXP_OPSET_COUNT,
  OXP_OPSET_DEFAULT = 17
};

/* Lowers the TorchScript graph src into a new ONNX graph (nodes
 * "onnx::Op" or "domain::Op") in the same arena. */
oxp_status oxp_lower(oxp_graph *src, const oxp_options *o, oxp_graph **out,
                     oxp_diag *d);

/* The step after lowering (s_control_types.c): types through If, Loop
 * and sequences completed; subgraph inputs and outputs whose element
 * type is still unknown lose their type, so onnxruntime infers them. */
oxp_status oxp_control_types(oxp_graph *g, const oxp_options *o,
                             oxp_diag *d);

/* Serialization of a lowered graph. A sink receives the bytes in order. */
typedef struct oxp_sink oxp_sink;
struct oxp_sink {
  oxp_status (*write)(oxp_sink *s, const void *p, size_t n);
  oxp_diag *d;
};

oxp_status oxp_serialize(oxp_graph *g, const oxp_options *o, oxp_sink *sink,
                         oxp_diag *d);
/* Writes to path atomically: a temporary file in the same directory,
 * renamed over path only when everything was written. */
oxp_status oxp_write_file(oxp_graph *g, const oxp_options *o,
                          const char *path, oxp_diag *d);
/* Before anything is read or written: refuses (OXP_ERR_USAGE) a model
 * path, or the data file asked for beside it, that is the same file as
 * o->ir_path or o->weights_path, or the two outputs as one file. The
 * writer checks again; this only makes the mistake cost no export. */
oxp_status oxp_check_outputs(oxp_arena *a, const char *model_path,
                             const oxp_options *o, oxp_diag *d);
/* Serializes into a malloc'd buffer the caller frees. */
oxp_status oxp_write_buffer(oxp_graph *g, const oxp_options *o,
                            unsigned char **buf, size_t *len, oxp_diag *d);

/* Readable text of a lowered graph, in the spirit of
 * export_to_pretty_string. Returns a malloc'd string. */
char *oxp_pretty(const oxp_graph *g, const oxp_options *o);

/* The whole pipeline from IR text: parse, bind weights (weights may be
 * NULL when the graph needs none), lower, passes. */
oxp_status oxp_export_graph(oxp_arena *a, const char *file, const char *text,
                            size_t len, const oxp_safetensors *weights,
                            const oxp_options *o, oxp_graph **onnx,
                            oxp_diag *d);

/* The same from a graph already built (parsed, or made by the builder
 * API); weights may be NULL. */
oxp_status oxp_export_from_graph(oxp_graph *g, const oxp_safetensors *weights,
                                 const oxp_options *o, oxp_graph **onnx,
                                 oxp_diag *d);

/* The ir_version that fits an opset. */
int64_t oxp_ir_version_for_opset(int opset);

#endif
