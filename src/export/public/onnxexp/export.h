/* onnxexp/export.h: torch.onnx.export and export_to_pretty_string.
 *
 * A model is TorchScript IR text (as str(graph) prints the legacy
 * exporter's graph) with its weights in a safetensors file or buffer, or a
 * graph built in memory (builder.h). The result is an ONNX ModelProto,
 * written atomically to a file or returned in a malloc'd buffer. */
#ifndef ONNXEXP_EXPORT_H
#define ONNXEXP_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include <onnxexp/api.h>
#include <onnxexp/diag.h>
#include <onnxexp/types.h>

ONNXEXP_BEGIN_DECLS

enum { ONNXEXP_OPSET_MIN = 9, ONNXEXP_OPSET_MAX = 21, ONNXEXP_OPSET_DEFAULT = 17 };

/* torch.onnx.OperatorExportTypes. */
typedef enum {
  ONNXEXP_OPERATOR_EXPORT_ONNX = 0,
  ONNXEXP_OPERATOR_EXPORT_ONNX_ATEN,
  ONNXEXP_OPERATOR_EXPORT_ONNX_ATEN_FALLBACK,
  ONNXEXP_OPERATOR_EXPORT_ONNX_FALLTHROUGH
} onnxexp_operator_export_type;

/* torch.onnx.TrainingMode. */
typedef enum {
  ONNXEXP_TRAINING_EVAL = 0,
  ONNXEXP_TRAINING_PRESERVE,
  ONNXEXP_TRAINING_TRAIN
} onnxexp_training_mode;

/* Where tensors go. Models past protobuf's 2 GiB limit use FILE anyway.
 * External data needs a file destination (onnxexp_export*). */
typedef enum {
  ONNXEXP_EXTERNAL_DATA_NONE = 0, /* inline */
  ONNXEXP_EXTERNAL_DATA_FILE,     /* one data file beside the model */
  ONNXEXP_EXTERNAL_DATA_REFERENCE /* point into the safetensors weights file */
} onnxexp_external_data;

/* One dynamic axis: input (after renaming) `input`, axis `axis` becomes
 * dim_param `param` (NULL: "<input>_dim_<axis>"). */
typedef struct {
  const char *input;
  int axis;
  const char *param;
} onnxexp_dynamic_axis;

/* A custom_opsets entry: the version to import for a custom domain. */
typedef struct {
  const char *domain;
  int64_t version;
} onnxexp_custom_opset;

/* Receives each warning (unbound weights, ...) unless quiet is set. */
typedef void (*onnxexp_warning_fn)(void *user, const char *message);

/* Receives the progress display of a long export, for a terminal: text
 * to write as it is ("\r" + the line + erase-to-end, redrawn in place;
 * "\r\033[K" clears it at the end). Called from a thread of the library's
 * own, ten times a second at most, and only once the export has run for
 * a second: quick exports call it never. */
typedef void (*onnxexp_progress_fn)(void *user, const char *text);

/* Export options: every flag of the CLI. Always initialize with
 * onnxexp_options_init(&o, sizeof o) and then set fields, so a program
 * built against older headers keeps working with a newer library.
 * Strings and arrays are borrowed for the duration of each call. */
typedef struct {
  size_t struct_size;                  /* set by onnxexp_options_init */
  int opset_version;                   /* ONNXEXP_OPSET_MIN..MAX, default 17 */
  const char *weights_path;            /* safetensors file (--weights) */
  const void *weights_data;            /* or safetensors bytes in memory */
  size_t weights_size;
  const char *const *input_names;      /* rename graph inputs in order */
  int n_input_names;
  const char *const *output_names;     /* rename graph outputs in order */
  int n_output_names;
  const onnxexp_dynamic_axis *dynamic_axes;
  int n_dynamic_axes;
  int do_constant_folding;             /* default 1 */
  int keep_initializers_as_inputs;     /* default 0 */
  int export_params;                   /* default 1 */
  onnxexp_operator_export_type operator_export_type;
  onnxexp_training_mode training;      /* default EVAL */
  const onnxexp_custom_opset *custom_opsets;
  int n_custom_opsets;
  const char *doc_string;              /* model doc_string; NULL: none */
  int strip_doc_string;                /* -1 (default): strip unless doc_string
                                          is set; 0: keep; 1: strip all */
  onnxexp_external_data external_data; /* default NONE */
  const char *external_data_name;      /* NULL: "<model file>.data" */
  int quiet;                           /* no warnings, no progress */
  onnxexp_warning_fn warning;          /* NULL: warnings are dropped */
  void *warning_user;
  /* Later fields: an older caller's smaller struct_size leaves them at
   * their defaults. */
  const onnxexp_weights *weights;      /* or tensors bound from memory
                                          (weights.h), borrowed */
  onnxexp_progress_fn progress;        /* NULL (default): no display */
  void *progress_user;
} onnxexp_options;

/* Sets every field of *opts to its default; size is sizeof *opts as the
 * caller compiled it. */
ONNXEXP_API onnxexp_status onnxexp_options_init(onnxexp_options *opts,
                                                size_t size,
                                                onnxexp_diag *diag);

/* Exports the IR file ir_path to the model file out_path. Weights: opts'
 * weights, else ir_path with its extension replaced by .safetensors when
 * that file exists. opts may be NULL for the defaults. */
ONNXEXP_API onnxexp_status onnxexp_export(const char *ir_path,
                                          const char *out_path,
                                          const onnxexp_options *opts,
                                          onnxexp_diag *diag);
/* Exports IR text (len bytes, no NUL needed; name labels diagnostics and
 * may be NULL) to out_path. */
ONNXEXP_API onnxexp_status onnxexp_export_text(const char *text, size_t len,
                                               const char *name,
                                               const char *out_path,
                                               const onnxexp_options *opts,
                                               onnxexp_diag *diag);
/* Exports a built graph to out_path. The export consumes the graph:
 * afterwards only onnxexp_graph_free may be called on it. */
ONNXEXP_API onnxexp_status onnxexp_export_graph(onnxexp_graph *graph,
                                                const char *out_path,
                                                const onnxexp_options *opts,
                                                onnxexp_diag *diag);
/* Like onnxexp_export, into a malloc'd *buf of *len bytes (free it with
 * onnxexp_free). */
ONNXEXP_API onnxexp_status onnxexp_export_to_buffer(
    const char *ir_path, const onnxexp_options *opts, unsigned char **buf,
    size_t *len, onnxexp_diag *diag);
/* Like onnxexp_export_text, into a malloc'd buffer. */
ONNXEXP_API onnxexp_status onnxexp_export_text_to_buffer(
    const char *text, size_t len, const char *name,
    const onnxexp_options *opts, unsigned char **buf, size_t *buf_len,
    onnxexp_diag *diag);
/* Like onnxexp_export_graph, into a malloc'd buffer. */
ONNXEXP_API onnxexp_status onnxexp_export_graph_to_buffer(
    onnxexp_graph *graph, const onnxexp_options *opts, unsigned char **buf,
    size_t *len, onnxexp_diag *diag);

/* export_to_pretty_string: the exported graph as readable text (what
 * `onnxexp --pretty` prints) in a malloc'd NUL-terminated *out. */
ONNXEXP_API onnxexp_status onnxexp_export_to_pretty_string(
    const char *ir_path, const onnxexp_options *opts, char **out,
    onnxexp_diag *diag);
/* The same from IR text. */
ONNXEXP_API onnxexp_status onnxexp_export_text_to_pretty_string(
    const char *text, size_t len, const char *name,
    const onnxexp_options *opts, char **out, onnxexp_diag *diag);
/* The same from a built graph (which it consumes). */
ONNXEXP_API onnxexp_status onnxexp_export_graph_to_pretty_string(
    onnxexp_graph *graph, const onnxexp_options *opts, char **out,
    onnxexp_diag *diag);

/* Frees a buffer or string an onnxexp call returned; NULL is allowed. */
ONNXEXP_API void onnxexp_free(void *p);

ONNXEXP_END_DECLS

#endif
