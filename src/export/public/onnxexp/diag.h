/* onnxexp/diag.h: statuses and the diagnostic object every call fills.
 *
 * Every entry point returns an onnxexp_status and takes an optional
 * onnxexp_diag * (NULL: no details wanted). A call clears the diag it is
 * given first, then records the first failure: message, the IR location
 * when there is one, the op when there is one, and the model source line
 * the IR line names when it names one. */
#ifndef ONNXEXP_DIAG_H
#define ONNXEXP_DIAG_H

#include <stddef.h>

#include <onnxexp/api.h>

ONNXEXP_BEGIN_DECLS

typedef enum {
  ONNXEXP_OK = 0,
  ONNXEXP_ERR_USAGE,       /* bad argument or option value, an output that is an input */
  ONNXEXP_ERR_IO,          /* unreadable input, unwritable output */
  ONNXEXP_ERR_PARSE,       /* malformed IR text */
  ONNXEXP_ERR_WEIGHTS,     /* missing/truncated/inconsistent weights */
  ONNXEXP_ERR_UNSUPPORTED, /* op or feature not supported */
  ONNXEXP_ERR_GRAPH,       /* well-formed but not exportable graph */
  ONNXEXP_ERR_NOMEM,
  ONNXEXP_ERR_INTERNAL
} onnxexp_status;

typedef struct onnxexp_diag onnxexp_diag;

/* Allocates an empty diagnostic into *out; free it with onnxexp_diag_free. */
ONNXEXP_API onnxexp_status onnxexp_diag_create(onnxexp_diag **out);
/* Frees a diagnostic; NULL is allowed. */
ONNXEXP_API void onnxexp_diag_free(onnxexp_diag *d);
/* Forgets a recorded failure. */
ONNXEXP_API void onnxexp_diag_clear(onnxexp_diag *d);
/* The recorded status; ONNXEXP_OK when none (or d is NULL). */
ONNXEXP_API onnxexp_status onnxexp_diag_status(const onnxexp_diag *d);
/* The message without location; "" when none. Valid until d changes. */
ONNXEXP_API const char *onnxexp_diag_message(const onnxexp_diag *d);
/* The IR file (or source name) of the failure; "" when unknown. */
ONNXEXP_API const char *onnxexp_diag_file(const onnxexp_diag *d);
/* 1-based line of the failure in the IR; 0 when unknown. */
ONNXEXP_API int onnxexp_diag_line(const onnxexp_diag *d);
/* 1-based column of the failure in the IR; 0 when unknown. */
ONNXEXP_API int onnxexp_diag_col(const onnxexp_diag *d);
/* The op involved ("aten::linear"); "" when none. */
ONNXEXP_API const char *onnxexp_diag_op(const onnxexp_diag *d);
/* The model's source file of the failing node, from the IR line's
 * trailing comment (`# model.py:42:0` gives "model.py"); "" when the
 * failure has no IR line or the line no such comment. */
ONNXEXP_API const char *onnxexp_diag_source_file(const onnxexp_diag *d);
/* The 1-based line in that source file; 0 when unknown. */
ONNXEXP_API int onnxexp_diag_source_line(const onnxexp_diag *d);
/* Writes "file:line:col: message", followed by " (model.py:42)" when the
 * source is known (as the CLI prints it), into buf; returns the length it
 * needed, like snprintf. */
ONNXEXP_API size_t onnxexp_diag_format(const onnxexp_diag *d, char *buf,
                                       size_t n);
/* A constant name for a status ("usage error", ...); never NULL. */
ONNXEXP_API const char *onnxexp_status_string(onnxexp_status st);

ONNXEXP_END_DECLS

#endif
