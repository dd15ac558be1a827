/* front.c: the one front door (front.h). The CLI and the public API
 * differ in how they are asked (flags, a struct) and how they answer
 * (exit status and stderr, a status and a diag); what an export means
 * between the two is here, in the order both always ran it: the options
 * checked and completed, the files the export reads named (so an output
 * that is one of them is refused before anything is read or written),
 * the IR read, the weights opened, the pipeline run (pipeline.c), the
 * model delivered. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "front.h"
#include "io.h"
#include "source_loc.h"

static oxp_status nomem(oxp_diag *d) {
  return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
}

/* The checks every front end needs and the defaults that are the core's
 * to give: a dynamic axis without a dim_param name is NAME_dim_AXIS. */
static oxp_status complete_options(oxp_arena *a, oxp_options *o, oxp_diag *d) {
  if (o->opset < OXP_OPSET_MIN || o->opset > OXP_OPSET_MAX)
    return oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                    "options: opset_version %d is outside the supported "
                    "range %d..%d", o->opset, OXP_OPSET_MIN, OXP_OPSET_MAX);
  bool unnamed = false;
  for (int i = 0; i < o->n_dynamic_axes; i++)
    unnamed |= !o->dynamic_axes[i].param || !*o->dynamic_axes[i].param;
  if (!unnamed) return OXP_OK;
  oxp_dyn_axis *ax = oxp_alloc(a, sizeof *ax * (size_t)o->n_dynamic_axes);
  if (!ax) return nomem(d);
  for (int i = 0; i < o->n_dynamic_axes; i++) {
    ax[i] = o->dynamic_axes[i];
    if (ax[i].param && *ax[i].param) continue;
    ax[i].param = oxp_sprintf(a, "%s_dim_%d", ax[i].input, ax[i].axis);
    if (!ax[i].param) return nomem(d);
  }
  o->dynamic_axes = ax;
  return OXP_OK;
}

/* The files the export reads, into o: the IR, and the weights file the
 * job names or, beside an IR file, its default sidecar. */
static oxp_status name_inputs(oxp_arena *a, const oxp_job *j, oxp_options *o,
                              oxp_diag *d) {
  o->ir_path = j->ir_path;
  o->weights_path = j->weights_data || j->weights_fn ? NULL
                    : j->weights_path ? j->weights_path
                    : j->ir_path ? oxp_st_default_path(a, j->ir_path) : NULL;
  if (j->ir_path && !j->weights_data && !j->weights_fn && !o->weights_path)
    return nomem(d);
  return OXP_OK;
}

/* The weights the job names (o->weights_path from name_inputs); *owned
 * says whether this file opened them, and so closes them. */
static oxp_status open_weights(oxp_arena *a, const oxp_job *j,
                               const oxp_options *o, oxp_safetensors **st,
                               bool *owned, oxp_diag *d) {
  *st = NULL;
  *owned = false;
  if (j->weights_fn) return j->weights_fn(j->weights_user, a, st, d);
  *owned = true;
  if (j->weights_data)
    return oxp_st_from_memory(a, "weights_data", j->weights_data,
                              j->weights_size, st, d);
  if (!o->weights_path) return OXP_OK;
  /* The default sidecar is optional, a named one is not. Only a sidecar
   * that is not there is absent: one that cannot be looked at is opened
   * all the same, to report why, never exported without its weights. */
  if (!j->weights_path && oxp_io_access(o->weights_path, F_OK) != 0 &&
      (errno == ENOENT || errno == ENOTDIR))
    return OXP_OK;
  return oxp_st_open(a, o->weights_path, st, d);
}

/* The model to each destination the job asks for: its text first. */
static oxp_status deliver(oxp_graph *onnx, const oxp_options *o, oxp_job *j,
                          oxp_progress *prog, oxp_diag *d) {
  if (j->text_out && !(*j->text_out = oxp_pretty(onnx, o))) return nomem(d);
  if (j->buf) {
    oxp_status st = oxp_write_buffer(onnx, o, j->buf, j->buf_len, d);
    if (st) return st;
  }
  if (j->out_path) return oxp_write_file_ex(onnx, o, j->out_path, NULL, prog, d);
  return OXP_OK;
}

/* After a failure located at a line of the IR text named file: the
 * model source that line's comment names. */
static void note_source(oxp_job *j, const char *file, const char *text,
                        size_t len, const oxp_diag *d) {
  j->source_file[0] = 0;
  j->source_line = 0;
  if (!text || d->line <= 0 || strcmp(d->file, file) != 0) return;
  oxp_source_loc(text, len, d->line, j->source_file, sizeof j->source_file,
                 &j->source_line);
}

oxp_status oxp_run_job(oxp_arena *a, oxp_job *j, oxp_options *o, oxp_diag *d) {
  j->ir_unreadable = j->weights_unreadable = false;
  j->source_file[0] = 0;
  j->source_line = 0;
  oxp_status st = complete_options(a, o, d);
  if (!st) st = name_inputs(a, j, o, d);
  if (!st && j->out_path) st = oxp_check_outputs(a, j->out_path, o, d);
  if (st) return st;

  const char *text = j->text;
  size_t len = j->len;
  char *owned_text = NULL;
  if (!j->graph && !text) {
    if (!(text = owned_text = oxp_io_read_file(j->ir_path, &len, d))) {
      j->ir_unreadable = true;
      return d->status ? d->status : OXP_ERR_IO;
    }
  }
  oxp_safetensors *w = NULL;
  bool owned_w = false;
  if ((st = open_weights(a, j, o, &w, &owned_w, d))) {
    j->weights_unreadable = true;
    free(owned_text);
    return st;
  }

  /* Progress is drawn from here on, and shows only after a second. */
  oxp_progress *prog = j->progress ? oxp_progress_new(j->progress, j->progress_user)
                                   : NULL;
  if (prog && j->warn_on_display && o->warn) o->warn_user = prog;
  oxp_progress_stage(prog, "export");
  const char *file = j->ir_path ? j->ir_path : j->name ? j->name : "<text>";
  oxp_graph *onnx = NULL;
  st = j->graph ? oxp_export_from_graph(j->graph, w, o, &onnx, d)
                : oxp_export_graph(a, file, text, len, w, o, &onnx, d);
  if (!st) st = deliver(onnx, o, j, prog, d);
  oxp_progress_free(prog); /* clears the line before any error is shown */
  if (st) note_source(j, file, text, len, d);
  if (w && owned_w) oxp_st_close(w);
  free(owned_text);
  return st;
}
