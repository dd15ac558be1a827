/* export.c: torch.onnx.export / export_to_pretty_string. Checks the
 * public options and turns them into oxp_options, then hands the export
 * to the core's front door (front.h), as the CLI does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include "../internal/front.h"

/* The public opset constants and opsets.def (the internal range) are one
 * range: a row added there needs the public constant moved too. */
_Static_assert((int)ONNXEXP_OPSET_MIN == (int)OXP_OPSET_MIN, "ONNXEXP_OPSET_MIN differs from opsets.def");
_Static_assert((int)ONNXEXP_OPSET_MAX == (int)OXP_OPSET_MAX, "ONNXEXP_OPSET_MAX differs from opsets.def");
_Static_assert((int)ONNXEXP_OPSET_DEFAULT == (int)OXP_OPSET_DEFAULT, "ONNXEXP_OPSET_DEFAULT differs from export.h");

/* The part of onnxexp_options every caller has: up to opset_version. */
#define MIN_OPTIONS_SIZE \
  (offsetof(onnxexp_options, opset_version) + sizeof(int))

static void defaults(onnxexp_options *o) {
  memset(o, 0, sizeof *o);
  o->struct_size = sizeof *o;
  o->opset_version = ONNXEXP_OPSET_DEFAULT;
  o->do_constant_folding = 1;
  o->export_params = 1;
  o->strip_doc_string = -1;
}

onnxexp_status onnxexp_options_init(onnxexp_options *opts, size_t size,
                                    onnxexp_diag *diag) {
  oxp_diag scratch, *d = oxp_shim_diag(diag, &scratch);
  if (!opts) return oxp_shim_null(d, "onnxexp_options_init", "opts");
  if (size < MIN_OPTIONS_SIZE || size > sizeof *opts)
    return (onnxexp_status)oxp_fail(
        d, OXP_ERR_USAGE, NULL, NULL,
        "onnxexp_options_init: size %zu is not that of an onnxexp_options "
        "(this library knows %zu bytes)", size, sizeof *opts);
  onnxexp_options full;
  defaults(&full);
  full.struct_size = size;
  memcpy(opts, &full, size);
  return ONNXEXP_OK;
}

static onnxexp_status bad(oxp_diag *d, const char *what) {
  return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, NULL, "options: %s", what);
}

static bool names_ok(const char *const *v, int n) {
  if (n < 0 || (n > 0 && !v)) return false;
  for (int i = 0; i < n; i++)
    if (!v[i] || !*v[i]) return false;
  return true;
}

/* Public options -> core options; arrays that need rewriting go in a. */
static onnxexp_status convert(const onnxexp_options *in, oxp_arena *a,
                              oxp_options *o, onnxexp_options *pub,
                              oxp_diag *d) {
  defaults(pub);
  if (in) {
    if (in->struct_size < MIN_OPTIONS_SIZE || in->struct_size > sizeof *in)
      return bad(d, "struct_size is wrong: initialize them with "
                    "onnxexp_options_init(&opts, sizeof opts, diag)");
    memcpy(pub, in, in->struct_size);
  }
  oxp_options_init(o);
  if (!names_ok(pub->input_names, pub->n_input_names))
    return bad(d, "input_names must hold n_input_names non-empty names");
  if (!names_ok(pub->output_names, pub->n_output_names))
    return bad(d, "output_names must hold n_output_names non-empty names");
  if (pub->n_dynamic_axes < 0 || (pub->n_dynamic_axes > 0 && !pub->dynamic_axes))
    return bad(d, "dynamic_axes must hold n_dynamic_axes entries");
  if ((unsigned)pub->operator_export_type > ONNXEXP_OPERATOR_EXPORT_ONNX_FALLTHROUGH)
    return bad(d, "operator_export_type is not an onnxexp_operator_export_type");
  if ((unsigned)pub->training > ONNXEXP_TRAINING_TRAIN)
    return bad(d, "training is not an onnxexp_training_mode");
  if ((unsigned)pub->external_data > ONNXEXP_EXTERNAL_DATA_REFERENCE)
    return bad(d, "external_data is not an onnxexp_external_data");
  if (pub->strip_doc_string < -1 || pub->strip_doc_string > 1)
    return bad(d, "strip_doc_string must be -1, 0 or 1");
  if (pub->n_custom_opsets < 0 || (pub->n_custom_opsets > 0 && !pub->custom_opsets))
    return bad(d, "custom_opsets must hold n_custom_opsets entries");
  if (!!pub->weights_path + !!pub->weights_data + !!pub->weights > 1)
    return bad(d, "give only one of weights_path, weights_data and weights");
  if (pub->weights_size > 0 && !pub->weights_data)
    return bad(d, "weights_size is set but weights_data is NULL");

  oxp_dyn_axis *ax = oxp_alloc(a, sizeof *ax * (size_t)(pub->n_dynamic_axes + 1));
  oxp_opset_import *ops = oxp_alloc(a, sizeof *ops * (size_t)(pub->n_custom_opsets + 1));
  if (!ax || !ops) return (onnxexp_status)oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  for (int i = 0; i < pub->n_dynamic_axes; i++) {
    const onnxexp_dynamic_axis *x = &pub->dynamic_axes[i];
    if (!x->input || !*x->input || x->axis < 0)
      return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                                      "options: dynamic_axes[%d] needs an input "
                                      "name and an axis >= 0", i);
    ax[i].input = x->input;
    ax[i].axis = x->axis;
    ax[i].param = x->param; /* NULL or "": the core's default name */
  }
  for (int i = 0; i < pub->n_custom_opsets; i++) {
    const onnxexp_custom_opset *c = &pub->custom_opsets[i];
    if (!c->domain || !*c->domain || c->version < 1)
      return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                                      "options: custom_opsets[%d] needs a domain "
                                      "and a version >= 1", i);
    ops[i].domain = c->domain;
    ops[i].version = c->version;
  }
  o->opset = pub->opset_version;
  o->input_names = (const char **)pub->input_names;
  o->n_input_names = pub->n_input_names;
  o->output_names = (const char **)pub->output_names;
  o->n_output_names = pub->n_output_names;
  o->dynamic_axes = ax;
  o->n_dynamic_axes = pub->n_dynamic_axes;
  o->constant_folding = pub->do_constant_folding != 0;
  o->keep_initializers_as_inputs = pub->keep_initializers_as_inputs != 0;
  o->export_params = pub->export_params != 0;
  o->export_type = (oxp_export_type)pub->operator_export_type;
  o->training = (oxp_training)pub->training;
  o->custom_opsets = ops;
  o->n_custom_opsets = pub->n_custom_opsets;
  o->doc_string = pub->doc_string;
  o->strip_doc_string = pub->strip_doc_string < 0 ? pub->doc_string == NULL
                                                  : pub->strip_doc_string != 0;
  o->external_data = pub->external_data == ONNXEXP_EXTERNAL_DATA_FILE ? OXP_EXT_FILE
                     : pub->external_data == ONNXEXP_EXTERNAL_DATA_REFERENCE ? OXP_EXT_REFERENCE
                                                                          : OXP_EXT_NONE;
  o->external_data_name = pub->external_data_name;
  o->quiet = pub->quiet != 0;
  o->warn = pub->quiet ? NULL : pub->warning;
  o->warn_user = pub->warning_user;
  return ONNXEXP_OK;
}

/* Where the exported model goes: one of a file, a malloc'd buffer, the
 * pretty string. */
typedef struct {
  const char *path;
  unsigned char **buf;
  size_t *len;
  char **text;
} dest;

static onnxexp_status check_dest(const dest *o, const char *fn, oxp_diag *d) {
  if (o->text) *o->text = NULL;
  if (o->buf) *o->buf = NULL;
  if (o->len) *o->len = 0;
  if (!o->path && !o->buf && !o->text) return oxp_shim_null(d, fn, "the destination");
  if (o->buf && !o->len) return oxp_shim_null(d, fn, "len");
  return ONNXEXP_OK;
}

/* The caller's progress display: the core renders it, the caller's
 * function writes it (the library never prints). */
static void emit_progress(void *user, const char *text) {
  const onnxexp_options *pub = user;
  pub->progress(pub->progress_user, text);
}

static oxp_status weights_handle(void *user, oxp_arena *a, oxp_safetensors **out,
                                 oxp_diag *d) {
  return (oxp_status)oxp_shim_weights_set(user, a, out, d);
}

/* The job for the core's front door (front.h) from the public options
 * and the destination; the graph's source is the caller's to fill. */
static oxp_job job_of(const onnxexp_options *pub, const dest *to) {
  oxp_job j = {.weights_path = pub->weights_path,
               .weights_data = pub->weights_data,
               .weights_size = pub->weights_size,
               .out_path = to->path,
               .buf = to->buf,
               .buf_len = to->len,
               .text_out = to->text};
  if (pub->weights) j.weights_fn = weights_handle, j.weights_user = (void *)pub->weights;
  if (pub->progress && !pub->quiet)
    j.progress = emit_progress, j.progress_user = (void *)pub;
  return j;
}

/* The failing IR line's model source, into the caller's diag. */
static void note_source(onnxexp_diag *pub, const oxp_job *j) {
  if (!pub || !j->source_line) return;
  memcpy(pub->source_file, j->source_file, sizeof pub->source_file);
  pub->source_line = j->source_line;
}

/* IR text (from memory, or read from ir_path when text is NULL). */
static onnxexp_status run_text(const char *text, size_t len, const char *name,
                               const char *ir_path, const onnxexp_options *opts,
                               dest *to, onnxexp_diag *diag, oxp_diag *d) {
  oxp_arena *a = oxp_arena_new();
  if (!a) return (onnxexp_status)oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  oxp_export_enter();
  oxp_options o;
  onnxexp_options pub;
  onnxexp_status s = convert(opts, a, &o, &pub, d);
  if (!s) {
    oxp_job j = job_of(&pub, to);
    j.ir_path = ir_path;
    j.text = text;
    j.len = len;
    j.name = name;
    s = (onnxexp_status)oxp_run_job(a, &j, &o, d);
    if (s) note_source(diag, &j);
  }
  oxp_arena_free(a);
  oxp_export_leave();
  return s;
}

/* The graph's attached weights as a safetensors set. */
static oxp_status graph_weights(void *user, oxp_arena *a, oxp_safetensors **out,
                                oxp_diag *d) {
  onnxexp_graph *g = user;
  (void)a;
  *out = NULL;
  oxp_safetensors *st = oxp_alloc(g->arena, sizeof *st);
  if (!st) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  st->path = "the weights attached to the graph";
  st->entries = g->weights;
  st->nentries = g->nweights;
  oxp_map_init(&st->index, g->arena);
  for (int i = 0; i < g->nweights; i++)
    if (!oxp_map_put(&st->index, g->weights[i].name, &g->weights[i]))
      return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  *out = st;
  return OXP_OK;
}

static onnxexp_status run_graph(onnxexp_graph *g, const onnxexp_options *opts,
                                dest *to, const char *fn, oxp_diag *d) {
  if (!g) return oxp_shim_null(d, fn, "graph");
  if (g->consumed)
    return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                                    "%s: the graph was already exported; build "
                                    "it again", fn);
  g->consumed = true;
  oxp_arena *a = oxp_arena_new();
  if (!a) return (onnxexp_status)oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  oxp_export_enter();
  oxp_options o;
  onnxexp_options pub;
  onnxexp_status s = convert(opts, a, &o, &pub, d);
  if (!s && g->nweights && (pub.weights_path || pub.weights_data || pub.weights))
    s = bad(d, "the graph has attached weights; weights_path/weights_data/"
               "weights cannot add more");
  if (!s) {
    oxp_job j = job_of(&pub, to);
    j.graph = g->g;
    if (g->nweights) j.weights_fn = graph_weights, j.weights_user = g;
    s = (onnxexp_status)oxp_run_job(a, &j, &o, d);
  }
  oxp_arena_free(a);
  oxp_export_leave();
  return s;
}

#define BEGIN(fn)                                 \
  oxp_diag scratch, *d = oxp_shim_diag(diag, &scratch); \
  const char *fname = fn;                         \
  (void)fname

onnxexp_status onnxexp_export(const char *ir_path, const char *out_path,
                              const onnxexp_options *opts, onnxexp_diag *diag) {
  BEGIN("onnxexp_export");
  if (!ir_path) return oxp_shim_null(d, fname, "ir_path");
  if (!out_path) return oxp_shim_null(d, fname, "out_path");
  dest to = {.path = out_path};
  return run_text(NULL, 0, ir_path, ir_path, opts, &to, diag, d);
}

onnxexp_status onnxexp_export_text(const char *text, size_t len, const char *name,
                                   const char *out_path, const onnxexp_options *opts,
                                   onnxexp_diag *diag) {
  BEGIN("onnxexp_export_text");
  if (!text) return oxp_shim_null(d, fname, "text");
  if (!out_path) return oxp_shim_null(d, fname, "out_path");
  dest to = {.path = out_path};
  return run_text(text, len, name, NULL, opts, &to, diag, d);
}

onnxexp_status onnxexp_export_graph(onnxexp_graph *graph, const char *out_path,
                                    const onnxexp_options *opts, onnxexp_diag *diag) {
  BEGIN("onnxexp_export_graph");
  if (!out_path) return oxp_shim_null(d, fname, "out_path");
  dest to = {.path = out_path};
  return run_graph(graph, opts, &to, fname, d);
}

onnxexp_status onnxexp_export_to_buffer(const char *ir_path, const onnxexp_options *opts,
                                        unsigned char **buf, size_t *len,
                                        onnxexp_diag *diag) {
  BEGIN("onnxexp_export_to_buffer");
  dest to = {.buf = buf, .len = len};
  onnxexp_status s = check_dest(&to, fname, d);
  if (!s && !ir_path) s = oxp_shim_null(d, fname, "ir_path");
  return s ? s : run_text(NULL, 0, ir_path, ir_path, opts, &to, diag, d);
}

onnxexp_status onnxexp_export_text_to_buffer(const char *text, size_t len, const char *name,
                                             const onnxexp_options *opts,
                                             unsigned char **buf, size_t *buf_len,
                                             onnxexp_diag *diag) {
  BEGIN("onnxexp_export_text_to_buffer");
  dest to = {.buf = buf, .len = buf_len};
  onnxexp_status s = check_dest(&to, fname, d);
  if (!s && !text) s = oxp_shim_null(d, fname, "text");
  return s ? s : run_text(text, len, name, NULL, opts, &to, diag, d);
}

onnxexp_status onnxexp_export_graph_to_buffer(onnxexp_graph *graph,
                                              const onnxexp_options *opts,
                                              unsigned char **buf, size_t *len,
                                              onnxexp_diag *diag) {
  BEGIN("onnxexp_export_graph_to_buffer");
  dest to = {.buf = buf, .len = len};
  onnxexp_status s = check_dest(&to, fname, d);
  return s ? s : run_graph(graph, opts, &to, fname, d);
}

onnxexp_status onnxexp_export_to_pretty_string(const char *ir_path,
                                               const onnxexp_options *opts, char **out,
                                               onnxexp_diag *diag) {
  BEGIN("onnxexp_export_to_pretty_string");
  dest to = {.text = out};
  onnxexp_status s = check_dest(&to, fname, d);
  if (!s && !ir_path) s = oxp_shim_null(d, fname, "ir_path");
  return s ? s : run_text(NULL, 0, ir_path, ir_path, opts, &to, diag, d);
}

onnxexp_status onnxexp_export_text_to_pretty_string(const char *text, size_t len,
                                                    const char *name,
                                                    const onnxexp_options *opts,
                                                    char **out, onnxexp_diag *diag) {
  BEGIN("onnxexp_export_text_to_pretty_string");
  dest to = {.text = out};
  onnxexp_status s = check_dest(&to, fname, d);
  if (!s && !text) s = oxp_shim_null(d, fname, "text");
  return s ? s : run_text(text, len, name, NULL, opts, &to, diag, d);
}

onnxexp_status onnxexp_export_graph_to_pretty_string(onnxexp_graph *graph,
                                                     const onnxexp_options *opts,
                                                     char **out, onnxexp_diag *diag) {
  BEGIN("onnxexp_export_graph_to_pretty_string");
  dest to = {.text = out};
  onnxexp_status s = check_dest(&to, fname, d);
  return s ? s : run_graph(graph, opts, &to, fname, d);
}
