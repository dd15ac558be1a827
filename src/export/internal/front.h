/* front.h: the one front door of the core. The CLI (src/cli) and the
 * public API (src/export/public) describe an export as an oxp_job and
 * hand it to oxp_run_job; everything between their options and the
 * written model (the default sidecar, default dim_param names, the opset
 * range, reading the IR file, opening the weights, the progress display,
 * the pipeline, the destination) happens there, once. */
#ifndef OXP_FRONT_H
#define OXP_FRONT_H

#include "serialize.h"

/* Makes a weights set the caller owns the bytes of (the public
 * onnxexp_weights handle, a built graph's attached tensors). */
typedef oxp_status (*oxp_weights_fn)(void *user, oxp_arena *a,
                                     oxp_safetensors **out, oxp_diag *d);

typedef struct {
  /* The graph: one of an IR file (read here; its path names the errors),
   * IR text in memory (len bytes; errors name it `name`, "<text>" when
   * NULL) or a graph already built. */
  const char *ir_path;
  const char *text;
  size_t len;
  const char *name;
  oxp_graph *graph;

  /* The weights: at most one of a safetensors file, which must exist; a
   * safetensors image in memory; a set made by weights_fn. With none of
   * them and an ir_path, the sidecar beside the IR (MODEL.safetensors)
   * when there is one. */
  const char *weights_path;
  const void *weights_data;
  size_t weights_size;
  oxp_weights_fn weights_fn;
  void *weights_user;

  /* Where the model goes: any of a file (written atomically), a malloc'd
   * buffer, its readable text (malloc'd; made before the model is
   * written, and left to the caller even when writing then fails). */
  const char *out_path;
  unsigned char **buf;
  size_t *buf_len;
  char **text_out;

  /* A progress display drawn with progress(progress_user, text) from
   * when the inputs are read; NULL for none. With warn_on_display the
   * options' warnings get the display as their user, so a warning is
   * never torn by the line the display redraws. */
  oxp_progress_emit progress;
  void *progress_user;
  bool warn_on_display;

  /* Filled by oxp_run_job: which input could not be opened (the CLI
   * exits 2 for those), and for a failure located at a line of the IR
   * text whose comment names the model's source, that file and line. */
  bool ir_unreadable, weights_unreadable;
  char source_file[256];
  int source_line;
} oxp_job;

/* Runs the export j describes with options o, whose defaults come from
 * oxp_options_init. Fills in o what the job implies (the files read, the
 * default dim_param NAME_dim_AXIS of a dynamic axis without one) and
 * checks the opset range. Scratch lives in a; a built graph keeps its
 * own arena. */
oxp_status oxp_run_job(oxp_arena *a, oxp_job *j, oxp_options *o, oxp_diag *d);

#endif
