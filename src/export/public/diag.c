/* diag.c: the public diagnostic object, statuses and the version: a thin
 * wrapper of the core's oxp_diag. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

/* The public statuses are the core's, value for value. */
_Static_assert((int)ONNXEXP_ERR_USAGE == OXP_ERR_USAGE &&
                   (int)ONNXEXP_ERR_IO == OXP_ERR_IO &&
                   (int)ONNXEXP_ERR_PARSE == OXP_ERR_PARSE &&
                   (int)ONNXEXP_ERR_WEIGHTS == OXP_ERR_WEIGHTS &&
                   (int)ONNXEXP_ERR_UNSUPPORTED == OXP_ERR_UNSUPPORTED &&
                   (int)ONNXEXP_ERR_GRAPH == OXP_ERR_GRAPH &&
                   (int)ONNXEXP_ERR_NOMEM == OXP_ERR_NOMEM &&
                   (int)ONNXEXP_ERR_INTERNAL == OXP_ERR_INTERNAL,
               "public and core statuses differ");

onnxexp_status onnxexp_diag_create(onnxexp_diag **out) {
  if (!out) return ONNXEXP_ERR_USAGE;
  *out = oxp_mem_calloc(1, sizeof **out);
  return *out ? ONNXEXP_OK : ONNXEXP_ERR_NOMEM;
}

void onnxexp_diag_free(onnxexp_diag *d) { free(d); }

void onnxexp_diag_clear(onnxexp_diag *d) {
  if (!d) return;
  oxp_diag_clear(&d->d);
  d->source_file[0] = 0;
  d->source_line = 0;
}

onnxexp_status onnxexp_diag_status(const onnxexp_diag *d) {
  return d ? (onnxexp_status)d->d.status : ONNXEXP_OK;
}

const char *onnxexp_diag_message(const onnxexp_diag *d) {
  return d ? d->d.message : "";
}

const char *onnxexp_diag_file(const onnxexp_diag *d) {
  return d ? d->d.file : "";
}

int onnxexp_diag_line(const onnxexp_diag *d) { return d ? d->d.line : 0; }

int onnxexp_diag_col(const onnxexp_diag *d) { return d ? d->d.col : 0; }

const char *onnxexp_diag_op(const onnxexp_diag *d) { return d ? d->d.op : ""; }

const char *onnxexp_diag_source_file(const onnxexp_diag *d) {
  return d ? d->source_file : "";
}

int onnxexp_diag_source_line(const onnxexp_diag *d) { return d ? d->source_line : 0; }

size_t onnxexp_diag_format(const onnxexp_diag *d, char *buf, size_t n) {
  char tmp[sizeof d->d.message + sizeof d->d.file + sizeof d->source_file + 96];
  tmp[0] = 0;
  if (d) oxp_diag_format(&d->d, tmp, sizeof tmp);
  size_t len = strlen(tmp);
  if (d && d->source_file[0] && d->source_line > 0)
    len += (size_t)snprintf(tmp + len, sizeof tmp - len, " (%s:%d)", d->source_file,
                            d->source_line);
  if (buf && n) snprintf(buf, n, "%s", tmp);
  return len;
}

const char *onnxexp_status_string(onnxexp_status st) {
  switch (st) {
  case ONNXEXP_OK: return "ok";
  case ONNXEXP_ERR_USAGE: return "usage error";
  case ONNXEXP_ERR_IO: return "i/o error";
  case ONNXEXP_ERR_PARSE: return "parse error";
  case ONNXEXP_ERR_WEIGHTS: return "weights error";
  case ONNXEXP_ERR_UNSUPPORTED: return "not supported";
  case ONNXEXP_ERR_GRAPH: return "graph error";
  case ONNXEXP_ERR_NOMEM: return "out of memory";
  case ONNXEXP_ERR_INTERNAL: return "internal error";
  }
  return "unknown status";
}

const char *onnxexp_version(void) { return ONNXEXP_VERSION_STRING; }

int onnxexp_version_number(void) { return ONNXEXP_VERSION_NUMBER; }

void onnxexp_free(void *p) { free(p); }
