/* determinism.c: api_determinism JOBS T...: exports every job of the file
 * JOBS through the public library, with T threads exporting at once for
 * each T given, and checks that each model is byte-identical to the file
 * the CLI wrote for the same IR, weights and options (roundtrip.py writes
 * JOBS from its cases, so this covers every round-trip export).
 *
 * An export has no threads of its own; what a thread count can change is
 * what exports running side by side in one process share: the op
 * registries, the custom symbolic table, caches, allocator state. Any of
 * those leaking into the output shows here as a difference.
 *
 * JOBS is line-oriented; a job is
 *   job EXPECTED.onnx MODEL.ir OPSET
 *   <option lines: training N | export_type N | input_name S |
 *    output_name S | dyn INPUT AXIS PARAM | custom_opset DOMAIN VERSION |
 *    doc TEXT... | strip_doc N | export_params N | keep_init N | fold N>
 *   end
 * Weights are the library's default: MODEL.safetensors beside the IR.
 * Prints one line per mismatch and a summary; exits 1 on any mismatch. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <onnxexp/onnxexp.h>

enum { MAX_NAMES = 16 };

typedef struct {
  char *expected, *ir;
  int opset;
  onnxexp_options o;
  const char *in_names[MAX_NAMES], *out_names[MAX_NAMES];
  onnxexp_dynamic_axis dyn[MAX_NAMES];
  onnxexp_custom_opset custom[MAX_NAMES];
  unsigned char *want;
  size_t want_len;
} job;

static job *jobs;
static int n_jobs;
static atomic_int next_job, mismatches;
static int current_threads;

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *p = NULL;
  size_t cap = 0, n = 0, r;
  do {
    if (n == cap && !(p = realloc(p, cap = cap ? cap * 2 : 65536))) break;
    r = fread(p + n, 1, cap - n, f);
    n += r;
  } while (r > 0);
  fclose(f);
  *len = n;
  return p;
}

static int bad_line(int line, const char *why) {
  fprintf(stderr, "api_determinism: jobs line %d: %s\n", line, why);
  return -1;
}

/* Fields of an option line are strdup'd: they live as long as the run. */
static int option_line(job *j, char *key, char *rest, int line) {
  onnxexp_options *o = &j->o;
  char *a = strtok(rest, " "), *b = a ? strtok(NULL, " ") : NULL;
  char *c = b ? strtok(NULL, " ") : NULL;
  if (!a) return bad_line(line, "option without a value");
  if (!strcmp(key, "training")) o->training = (onnxexp_training_mode)atoi(a);
  else if (!strcmp(key, "export_type"))
    o->operator_export_type = (onnxexp_operator_export_type)atoi(a);
  else if (!strcmp(key, "strip_doc")) o->strip_doc_string = atoi(a);
  else if (!strcmp(key, "export_params")) o->export_params = atoi(a);
  else if (!strcmp(key, "keep_init")) o->keep_initializers_as_inputs = atoi(a);
  else if (!strcmp(key, "fold")) o->do_constant_folding = atoi(a);
  else if (o->n_input_names == MAX_NAMES || o->n_output_names == MAX_NAMES ||
           o->n_dynamic_axes == MAX_NAMES || o->n_custom_opsets == MAX_NAMES)
    return bad_line(line, "too many names");
  else if (!strcmp(key, "input_name")) j->in_names[o->n_input_names++] = strdup(a);
  else if (!strcmp(key, "output_name")) j->out_names[o->n_output_names++] = strdup(a);
  else if (!strcmp(key, "dyn") && c)
    j->dyn[o->n_dynamic_axes++] =
        (onnxexp_dynamic_axis){strdup(a), atoi(b), strdup(c)};
  else if (!strcmp(key, "custom_opset") && b)
    j->custom[o->n_custom_opsets++] = (onnxexp_custom_opset){strdup(a), atoll(b)};
  else return bad_line(line, "unknown option line");
  return 0;
}

static int read_jobs(const char *path) {
  size_t len;
  char *text = slurp(path, &len), *save = NULL;
  if (!text || !(text = realloc(text, len + 1)))
    return bad_line(0, "cannot read the jobs file");
  text[len] = 0;
  int line = 0, cap = 0, rc = 0;
  job *j = NULL;
  for (char *s = strtok_r(text, "\n", &save); s && !rc;
       s = strtok_r(NULL, "\n", &save)) {
    line++;
    char *rest = strchr(s, ' ');
    if (rest) *rest++ = 0;
    if (!strcmp(s, "job")) {
      if (n_jobs == cap)
        jobs = realloc(jobs, sizeof *jobs * (size_t)(cap = cap ? cap * 2 : 256));
      j = memset(&jobs[n_jobs++], 0, sizeof *j);
      char *e = rest ? strtok(rest, " ") : NULL, *ir = e ? strtok(NULL, " ") : NULL;
      char *op = ir ? strtok(NULL, " ") : NULL;
      if (!op) rc = bad_line(line, "expected: job EXPECTED IR OPSET");
      j->expected = strdup(e ? e : "");
      j->ir = strdup(ir ? ir : "");
      onnxexp_options_init(&j->o, sizeof j->o, NULL);
      j->o.opset_version = op ? atoi(op) : 0;
      j->o.quiet = 1;
    } else if (!strcmp(s, "end") && j) {
      if (!(j->want = (unsigned char *)slurp(j->expected, &j->want_len)))
        rc = bad_line(line, "cannot read the expected model");
      j = NULL;
    } else if (!j || !rest) {
      rc = bad_line(line, "expected job, end, or an option inside a job");
    } else if (!strcmp(s, "doc")) {
      j->o.doc_string = strdup(rest);
    } else {
      rc = option_line(j, s, rest, line);
    }
  }
  free(text);
  /* Only now: the options point into jobs[], which realloc moved. */
  for (int i = 0; i < n_jobs; i++) {
    jobs[i].o.input_names = jobs[i].in_names;
    jobs[i].o.output_names = jobs[i].out_names;
    jobs[i].o.dynamic_axes = jobs[i].dyn;
    jobs[i].o.custom_opsets = jobs[i].custom;
  }
  return rc ? rc : j ? bad_line(line, "last job has no end") : 0;
}

static void free_jobs(void) {
  for (int i = 0; i < n_jobs; i++) {
    job *j = &jobs[i];
    onnxexp_options *o = &j->o;
    for (int k = 0; k < o->n_input_names; k++) free((char *)j->in_names[k]);
    for (int k = 0; k < o->n_output_names; k++) free((char *)j->out_names[k]);
    for (int k = 0; k < o->n_dynamic_axes; k++) {
      free((char *)j->dyn[k].input);
      free((char *)j->dyn[k].param);
    }
    for (int k = 0; k < o->n_custom_opsets; k++) free((char *)j->custom[k].domain);
    free((char *)o->doc_string);
    free(j->expected);
    free(j->ir);
    free(j->want);
  }
  free(jobs);
}

static void check(job *j) {
  onnxexp_diag *d;
  unsigned char *buf = NULL;
  size_t len = 0;
  if (onnxexp_diag_create(&d)) abort();
  if (onnxexp_export_to_buffer(j->ir, &j->o, &buf, &len, d)) {
    printf("FAIL %s threads=%d: export failed: %s\n", j->expected,
           current_threads, onnxexp_diag_message(d));
    atomic_fetch_add(&mismatches, 1);
  } else if (len != j->want_len || memcmp(buf, j->want, len) != 0) {
    size_t at = 0;
    while (at < len && at < j->want_len && buf[at] == j->want[at]) at++;
    printf("FAIL %s threads=%d: %zu bytes, the CLI wrote %zu; first difference at byte %zu\n",
           j->expected, current_threads, len, j->want_len, at);
    atomic_fetch_add(&mismatches, 1);
  }
  onnxexp_free(buf);
  onnxexp_diag_free(d);
}

static void *worker(void *arg) {
  (void)arg;
  for (int i; (i = atomic_fetch_add(&next_job, 1)) < n_jobs;) check(&jobs[i]);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: api_determinism JOBS THREADS...\n");
    return 2;
  }
  if (read_jobs(argv[1])) {
    free_jobs();
    return 2;
  }
  for (int k = 2; k < argc; k++) {
    int t = atoi(argv[k]);
    if (t < 1 || t > 64) {
      fprintf(stderr, "api_determinism: thread count '%s' is not 1..64\n", argv[k]);
      free_jobs();
      return 2;
    }
    pthread_t th[64];
    current_threads = t;
    atomic_store(&next_job, 0);
    for (int i = 0; i < t; i++) pthread_create(&th[i], NULL, worker, NULL);
    for (int i = 0; i < t; i++) pthread_join(th[i], NULL);
  }
  int bad = atomic_load(&mismatches);
  printf("api_determinism: %d exports x %d thread counts, %d differ from the CLI's\n",
         n_jobs, argc - 2, bad);
  free_jobs();
  return bad ? 1 : 0;
}
