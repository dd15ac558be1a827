/* main.c: the onnxexp command. Parses flags into oxp_options and an
 * oxp_job and hands them to the core's front door (front.h), which the
 * public API uses too; prints what it gives back. Exit 0 on success, 1 on an
 * export error, 2 on bad usage or unreadable input. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "front.h"
#include "io.h"
#include "../../symbolic/sym.h"


static const char USAGE[] =
    "usage: onnxexp MODEL.ir -o OUT.onnx [options]\n"
    "       onnxexp MODEL.ir --pretty [options]\n"
    "       onnxexp --list-ops [--opset N]\n"
    "\n"
    "Exports a TorchScript IR graph (str(graph) of the legacy exporter's\n"
    "graph) to an ONNX model; weights come from a safetensors sidecar.\n"
    "\n"
    "options:\n"
    "  -o, --output PATH          where to write the model\n"
    "  --weights PATH             safetensors weights (default: MODEL.safetensors)\n"
    "  --opset N                  ONNX opset, %d..%d (default %d)\n"
    "  --input-names a,b          rename graph inputs in order\n"
    "  --output-names a,b         rename graph outputs in order\n"
    "  --dynamic-axes N:A=D,...   input N's axis A becomes dim_param D\n"
    "  --no-constant-folding      keep constant subgraphs as nodes\n"
    "  --keep-initializers-as-inputs  list weights among the graph inputs\n"
    "  --training eval|preserve|train  mode for dropout and batch_norm\n"
    "  --no-export-params         weights become plain graph inputs\n"
    "  --operator-export-type onnx|onnx_aten|onnx_aten_fallback|onnx_fallthrough\n"
    "                             what happens to aten ops (default onnx)\n"
    "  --custom-opset DOMAIN=VERSION  opset_import for a custom domain\n"
    "  --doc-string TEXT          model doc_string (keeps node doc_strings)\n"
    "  --strip-doc-string         no doc strings at all (the default)\n"
    "  --verbose                  also print the exported graph\n"
    "  --pretty                   print the exported graph, write nothing\n"
    "  --list-ops                 list the supported ops (with --opset: at N)\n"
    "  --external-data[=MODE]     tensors outside the model: 'file' (default:\n"
    "                             one data file beside it) or 'reference'\n"
    "                             (point into the safetensors sidecar)\n"
    "  --external-data-name NAME  the data file's name (default OUT.onnx.data)\n"
    "  -q, --quiet                no warnings, no progress display\n"
    "  --version                  print the version\n"
    "  -h, --help                 print this help\n";

enum {
  OPT_WEIGHTS = 256, OPT_OPSET, OPT_INPUT_NAMES, OPT_OUTPUT_NAMES,
  OPT_DYNAMIC_AXES, OPT_NO_FOLD, OPT_KEEP_INITS, OPT_TRAINING, OPT_DOC,
  OPT_VERBOSE, OPT_PRETTY, OPT_LIST_OPS, OPT_VERSION,
  OPT_NO_EXPORT_PARAMS, OPT_EXPORT_TYPE, OPT_CUSTOM_OPSET, OPT_STRIP_DOC,
  OPT_EXTERNAL, OPT_EXTERNAL_NAME
};

static const struct option LONGOPTS[] = {
    {"output", required_argument, 0, 'o'},
    {"weights", required_argument, 0, OPT_WEIGHTS},
    {"opset", required_argument, 0, OPT_OPSET},
    {"input-names", required_argument, 0, OPT_INPUT_NAMES},
    {"output-names", required_argument, 0, OPT_OUTPUT_NAMES},
    {"dynamic-axes", required_argument, 0, OPT_DYNAMIC_AXES},
    {"no-constant-folding", no_argument, 0, OPT_NO_FOLD},
    {"keep-initializers-as-inputs", no_argument, 0, OPT_KEEP_INITS},
    {"training", required_argument, 0, OPT_TRAINING},
    {"doc-string", required_argument, 0, OPT_DOC},
    {"no-export-params", no_argument, 0, OPT_NO_EXPORT_PARAMS},
    {"operator-export-type", required_argument, 0, OPT_EXPORT_TYPE},
    {"custom-opset", required_argument, 0, OPT_CUSTOM_OPSET},
    {"strip-doc-string", no_argument, 0, OPT_STRIP_DOC},
    {"verbose", no_argument, 0, OPT_VERBOSE},
    {"pretty", no_argument, 0, OPT_PRETTY},
    {"list-ops", no_argument, 0, OPT_LIST_OPS},
    {"external-data", optional_argument, 0, OPT_EXTERNAL},
    {"external-data-name", required_argument, 0, OPT_EXTERNAL_NAME},
    {"quiet", no_argument, 0, 'q'},
    {"version", no_argument, 0, OPT_VERSION},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0}};

/* One line, like every other diagnostic: "onnxexp: error: ...". */
__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("onnxexp: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 2;
}

/* getopt_long's errors as onnxexp errors (opterr is off: its own messages
 * start with argv[0] and have no "error:"). c is '?' or ':', word the
 * argument getopt_long just consumed. */
static int option_error(int c, const char *word) {
  const struct option *p = LONGOPTS;
  while (p->name && p->val != optopt) p++;
  if (!p->name) p = NULL;
  if (c == ':') {
    if (p && optopt < 256) return usage_error("option -%c/--%s requires an argument", optopt, p->name);
    if (p) return usage_error("option --%s requires an argument", p->name);
    return usage_error("option -%c requires an argument", optopt);
  }
  if (optopt == 0 && word && strncmp(word, "--", 2) == 0) {
    /* an unknown or ambiguous long option */
    const char *name = word + 2;
    int len = (int)strcspn(name, "=");
    char alts[512] = "";
    int n = 0;
    for (const struct option *q = LONGOPTS; q->name; q++)
      if (strncmp(q->name, name, (size_t)len) == 0 && strlen(alts) + strlen(q->name) + 4 < sizeof alts) {
        strcat(alts, n++ ? ", --" : "--");
        strcat(alts, q->name);
      }
    if (n > 1) return usage_error("option '--%.*s' is ambiguous: %s", len, name, alts);
    return usage_error("unknown option '--%.*s'", len, name);
  }
  if (p && (optopt >= 256 || (word && strncmp(word, "--", 2) == 0)))
    return usage_error("option --%s takes no argument", p->name);
  if (optopt > 32 && optopt < 127) return usage_error("unknown option '-%c'", optopt);
  return usage_error("unknown option '%s'", word ? word : "?");
}

/* user is the progress display (or NULL): a warning must not be torn by
 * the line it redraws. */
static void warn(void *user, const char *msg) {
  char line[1200];
  snprintf(line, sizeof line, "onnxexp: warning: %s\n", msg);
  if (user) oxp_progress_note(user, line);
  else fputs(line, stderr);
}

static void emit_progress(void *user, const char *text) {
  (void)user;
  fputs(text, stderr);
  fflush(stderr);
}

/* Splits "a,b,c" into arena strings. Out of memory gives no items; the
 * failure stays in the arena, which run_cli checks after the options. */
static int split_list(oxp_arena *a, const char *s, const char ***out) {
  int n = 1;
  for (const char *p = s; *p; p++) n += *p == ',';
  const char **v = oxp_alloc(a, sizeof *v * (size_t)n);
  *out = v;
  int k = 0;
  for (const char *p = s; v; p++) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (!(v[k++] = oxp_strndup(a, p, len))) return 0;
    if (!e) break;
    p = e;
  }
  return k;
}

/* --input-names / --output-names: a,b,c with no empty name. */
static int parse_names(oxp_arena *a, const char *flag, const char *s, const char ***out) {
  int n = split_list(a, s, out);
  for (int i = 0; i < n; i++)
    if (!(*out)[i][0])
      return usage_error("%s: empty name in '%s'", flag, s), -1;
  return n;
}

/* NAME:AXIS=DIM entries; NAME may itself contain ':' only before the last.
 * Repeated flags add up. */
static int parse_dynamic_axes(oxp_arena *a, const char *s, oxp_options *o) {
  const char **items;
  int n = split_list(a, s, &items);
  int have = o->n_dynamic_axes;
  oxp_dyn_axis *ax = oxp_alloc(a, sizeof *ax * (size_t)(have + n));
  if (!ax) return 0; /* out of memory: run_cli sees it in the arena */
  if (have) memcpy(ax, o->dynamic_axes, sizeof *ax * (size_t)have);
  for (int i = 0; i < n; i++) {
    const char *colon = strrchr(items[i], ':');
    const char *eq = colon ? strchr(colon, '=') : NULL;
    char *end;
    if (!colon || colon == items[i])
      return usage_error("--dynamic-axes: expected NAME:AXIS=DIM, got '%s'", items[i]);
    errno = 0;
    long axis = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || (eq && end != eq) || (!eq && *end) || axis < 0 ||
        errno == ERANGE || axis > INT_MAX)
      return usage_error("--dynamic-axes: bad axis in '%s'", items[i]);
    oxp_dyn_axis *x = &ax[have + i];
    if (!(x->input = oxp_strndup(a, items[i], (size_t)(colon - items[i]))))
      return 0;
    x->axis = (int)axis;
    /* Without =DIM the core names it (NAME_dim_AXIS, front.c). */
    x->param = eq && eq[1] ? oxp_strdup(a, eq + 1) : NULL;
  }
  o->dynamic_axes = ax;
  o->n_dynamic_axes = have + n;
  return 0;
}

/* DOMAIN=VERSION, repeatable: appended to o's custom opsets. */
static int parse_custom_opset(oxp_arena *a, const char *s, oxp_options *o) {
  const char *eq = strrchr(s, '=');
  char *end = NULL;
  errno = 0;
  long v = eq ? strtol(eq + 1, &end, 10) : 0;
  if (!eq || eq == s || !eq[1] || *end || v < 1 || errno == ERANGE || v > INT_MAX)
    return usage_error("--custom-opset: expected DOMAIN=VERSION (VERSION >= 1), got '%s'", s);
  oxp_opset_import *im = oxp_alloc(a, sizeof *im * (size_t)(o->n_custom_opsets + 1));
  if (!im) return 0; /* out of memory: run_cli sees it in the arena */
  if (o->n_custom_opsets)
    memcpy(im, o->custom_opsets, sizeof *im * (size_t)o->n_custom_opsets);
  im[o->n_custom_opsets].domain = oxp_strndup(a, s, (size_t)(eq - s));
  im[o->n_custom_opsets].version = v;
  o->custom_opsets = im;
  o->n_custom_opsets++;
  return 0;
}

static int list_ops(int opset, bool all) {
  /* Every op once, with the opset it first appears in: the op table is
   * sorted by name, then first opset. */
  int n;
  const oxp_sym_row *rows = oxp_sym_rows(&n);
  for (int i = 0; i < n; i++)
    if ((!i || strcmp(rows[i - 1].op, rows[i].op) != 0) && (all || rows[i].since <= opset))
      printf("%-40s %d\n", rows[i].op, rows[i].since);
  return 0;
}

static int exit_code(oxp_status st) {
  switch (st) {
  case OXP_OK: return 0;
  case OXP_ERR_USAGE: case OXP_ERR_IO: return 2;
  default: return 1;
  }
}

/* The error line; when the failing IR line ends in a source comment
 * ("# model.py:42:0"), it also names the model's file and line,
 * " (model.py:42)", where the user can act. */
static int report(const oxp_diag *d, oxp_status st, const oxp_job *j) {
  char buf[1200];
  oxp_diag_format(d, buf, sizeof buf);
  if (j->source_line > 0)
    fprintf(stderr, "onnxexp: error: %s (%s:%d)\n", buf, j->source_file, j->source_line);
  else
    fprintf(stderr, "onnxexp: error: %s\n", buf[0] ? buf : "export failed");
  return exit_code(d->status ? d->status : st);
}

/* What the command line asks for. */
typedef struct {
  oxp_options o;
  const char *ir, *out, *weights;
  bool verbose, pretty, listops, opset_given;
} cli;

/* Parses argv into c and checks what only the command line can get
 * wrong. Returns -1 to go on, else the exit status (a usage error,
 * --help, --version). */
static int parse_flags(oxp_arena *a, int argc, char **argv, cli *c) {
  oxp_options *o = &c->o;
  memset(c, 0, sizeof *c);
  oxp_options_init(o);
  o->warn = warn;
  bool strip_doc = false;
  int ch;
  opterr = 0; /* option_error reports */
  while ((ch = getopt_long(argc, argv, ":o:qh", LONGOPTS, NULL)) != -1) {
    char *end;
    switch (ch) {
    case 'o': c->out = optarg; break;
    case OPT_WEIGHTS: c->weights = optarg; break;
    case OPT_OPSET: {
      /* Checked here too, not only by the core: --list-ops needs it. */
      errno = 0;
      long v = strtol(optarg, &end, 10);
      if (!*optarg || *end || errno == ERANGE || v < OXP_OPSET_MIN || v > OXP_OPSET_MAX)
        return usage_error("--opset: expected a number from %d to %d, got '%s'",
                           OXP_OPSET_MIN, OXP_OPSET_MAX, optarg);
      o->opset = (int)v;
      c->opset_given = true;
      break;
    }
    case OPT_INPUT_NAMES:
      o->n_input_names = parse_names(a, "--input-names", optarg, &o->input_names);
      if (o->n_input_names < 0) return 2;
      break;
    case OPT_OUTPUT_NAMES:
      o->n_output_names = parse_names(a, "--output-names", optarg, &o->output_names);
      if (o->n_output_names < 0) return 2;
      break;
    case OPT_DYNAMIC_AXES:
      if (parse_dynamic_axes(a, optarg, o)) return 2;
      break;
    case OPT_NO_FOLD: o->constant_folding = false; break;
    case OPT_KEEP_INITS: o->keep_initializers_as_inputs = true; break;
    case OPT_TRAINING:
      if (strcmp(optarg, "eval") == 0) o->training = OXP_TRAIN_EVAL;
      else if (strcmp(optarg, "preserve") == 0) o->training = OXP_TRAIN_PRESERVE;
      else if (strcmp(optarg, "train") == 0) o->training = OXP_TRAIN_TRAIN;
      else return usage_error("--training: expected eval, preserve or train, got '%s'", optarg);
      break;
    case OPT_DOC: o->doc_string = optarg; o->strip_doc_string = false; break;
    case OPT_STRIP_DOC: strip_doc = true; break;
    case OPT_NO_EXPORT_PARAMS: o->export_params = false; break;
    case OPT_EXPORT_TYPE:
      if (strcmp(optarg, "onnx") == 0) o->export_type = OXP_OET_ONNX;
      else if (strcmp(optarg, "onnx_aten") == 0) o->export_type = OXP_OET_ONNX_ATEN;
      else if (strcmp(optarg, "onnx_aten_fallback") == 0) o->export_type = OXP_OET_ONNX_ATEN_FALLBACK;
      else if (strcmp(optarg, "onnx_fallthrough") == 0) o->export_type = OXP_OET_ONNX_FALLTHROUGH;
      else return usage_error("--operator-export-type: expected onnx, onnx_aten, "
                              "onnx_aten_fallback or onnx_fallthrough, got '%s'", optarg);
      break;
    case OPT_CUSTOM_OPSET:
      if (parse_custom_opset(a, optarg, o)) return 2;
      break;
    case OPT_VERBOSE: c->verbose = true; break;
    case OPT_PRETTY: c->pretty = true; break;
    case OPT_LIST_OPS: c->listops = true; break;
    case OPT_EXTERNAL:
      if (!optarg || strcmp(optarg, "file") == 0) o->external_data = OXP_EXT_FILE;
      else if (strcmp(optarg, "reference") == 0) o->external_data = OXP_EXT_REFERENCE;
      else return usage_error("--external-data: expected file or reference, got '%s'", optarg);
      break;
    case OPT_EXTERNAL_NAME: o->external_data_name = optarg; break;
    case 'q': o->quiet = true; o->warn = NULL; break;
    case OPT_VERSION: printf("onnxexp %s\n", OXP_VERSION); return 0;
    case 'h': printf(USAGE, OXP_OPSET_MIN, OXP_OPSET_MAX, OXP_OPSET_DEFAULT); return 0;
    default: return option_error(ch, optind > 0 && optind <= argc ? argv[optind - 1] : NULL);
    }
  }
  if (oxp_arena_failed(a)) {
    fputs("onnxexp: error: out of memory\n", stderr);
    return 1;
  }
  /* --strip-doc-string wins whatever the order of the flags. */
  if (strip_doc) o->strip_doc_string = true;
  if (c->listops) return -1;
  if (optind != argc - 1)
    return usage_error("%s", optind >= argc ? "expected one MODEL.ir argument"
                                            : "expected exactly one MODEL.ir argument");
  c->ir = argv[optind];
  if (!c->out && !c->pretty) return usage_error("%s", "missing -o OUT.onnx (or --pretty)");
  if (c->out && c->pretty) {
    /* --pretty never writes, whatever else the command line says */
    if (o->warn) o->warn(NULL, "--pretty writes nothing: -o is ignored");
    c->out = NULL;
  }
  if (c->out && !*c->out) return usage_error("%s", "-o: empty path");
  /* The model is renamed onto OUT: never do that to a directory, a device
   * (think -o /dev/null as root) or a pipe. */
  struct stat osb;
  if (c->out && oxp_io_stat(c->out, &osb) == 0 && !S_ISREG(osb.st_mode)) {
    fprintf(stderr, "onnxexp: error: %s: %s\n", c->out,
            S_ISDIR(osb.st_mode) ? "is a directory"
                                 : "not a regular file (only a regular file is replaced)");
    return 2;
  }
  return -1;
}

/* Everything but the arena, which main owns, so that every early return
 * (usage errors, --help) frees it too: leak checkers see a clean exit.
 * The export itself is the core's front door (front.h), as for the API. */
static int run_cli(oxp_arena *a, int argc, char **argv) {
  cli c;
  int rc = parse_flags(a, argc, argv, &c);
  if (rc >= 0) return rc;
  if (c.listops) return list_ops(c.o.opset, !c.opset_given);

  char *text = NULL;
  oxp_job j = {.ir_path = c.ir, .weights_path = c.weights, .out_path = c.out,
               .text_out = c.verbose || c.pretty ? &text : NULL};
  /* Progress is for a person watching: only on a terminal, never with
   * --quiet, and (inside the display) only after the first second. */
  if (!c.o.quiet && isatty(STDERR_FILENO))
    j.progress = emit_progress, j.warn_on_display = true;
  oxp_diag d;
  oxp_diag_clear(&d);
  oxp_status s = oxp_run_job(a, &j, &c.o, &d);
  if (text) fputs(text, stdout);
  free(text);
  if (!s) return 0;
  /* A weights file that cannot be read is unreadable input (2); one
   * that reads but disagrees with the graph is an export error (1). */
  if (j.weights_unreadable) return report(&d, s, &j), d.status == OXP_ERR_NOMEM ? 1 : 2;
  return report(&d, s, &j);
}

int main(int argc, char **argv) {
  /* Past RLIMIT_FSIZE the kernel would kill us with SIGXFSZ before the
   * temporary could be removed or the error named; ignored, write(2)
   * fails with EFBIG and the export fails like on a full disk. */
  signal(SIGXFSZ, SIG_IGN);
  oxp_arena *a = oxp_arena_new();
  if (!a) {
    fputs("onnxexp: error: out of memory\n", stderr);
    return 1;
  }
  int rc = run_cli(a, argc, argv);
  oxp_arena_free(a);
  return rc;
}
