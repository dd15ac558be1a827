/* alloc_faults.c: every allocation of an export, failed in turn.
 *
 *   alloc_faults FIXTURES WORK [--step K] [--persist-step K]
 *                [--case LABEL] [--from N] [--trace] [--fork]
 *                [--fixture NAME]
 *
 * For each case of fault_cases.h the export first runs with allocations
 * counted (arena allocations, heap allocations, protobuf-c's, and libc
 * calls that allocate for the library), then once per allocation N = 1,
 * 1+K, 1+2K, ... with the Nth one failing. Every run must end either
 * with ONNXEXP_ERR_NOMEM and a diagnostic saying so, the previous output
 * untouched and nothing beside it, or, when the failed allocation was one
 * the library can do without, with exactly the output of a run without
 * faults. No descriptor or mapping may stay open; in the sanitized build
 * LeakSanitizer looks after each case, so a block any run leaked fails
 * it (--fork names the run). Right after every failed run an
 * export without faults (into memory, where it is cheap) must give the
 * baseline again.
 *
 * --persist-step K also runs N = 1, 1+K, ... with allocation N and every
 * one after it failing: the error paths themselves must not need memory.
 *
 * One more case, "frontend", is examples/frontend.c's whole use of the
 * library, which reaches the allocations exports from IR text do not: a
 * diagnostic object, a custom symbolic registered (and its helpers'
 * emitted ops), a graph built node by node with weights attached,
 * exported to memory, then read back by onnxexp_check_model (protobuf-c
 * allocating through the library's allocator).
 *
 * Prints one line per case and the number of failure points covered;
 * exits 1 on any failed check. To find what crashed: --trace prints each
 * N before its run; --fork runs each N in a child of its own, so one run
 * lists every crash (with a backtrace of addresses for addr2line).
 * --fixture NAME runs any generated fixture instead of the cases. */
#include <execinfo.h>
#include <signal.h>
#include <sys/wait.h>

#include "fault_cases.h"

/* build() and foo_symbolic() of the example, which stays the one copy. */
#define main frontend_main
#include "../../examples/frontend.c"
#undef main

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LEAK_CHECK 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define LEAK_CHECK 1
#endif
#ifdef LEAK_CHECK
#include <sanitizer/lsan_interface.h>
#endif

static bool trace, forking;

static void on_crash(int sig) {
  void *frames[48];
  int n = backtrace(frames, 48);
  backtrace_symbols_fd(frames, n, 2);
  signal(sig, SIG_DFL);
  raise(sig);
}

/* Leaks found since the last call (0 without a leak checker). */
static int leaks(void) {
#ifdef LEAK_CHECK
  return __lsan_do_recoverable_leak_check();
#else
  return 0;
#endif
}

typedef struct {
  long points, nomem, optional, not_fired;
  long optional_at[6]; /* the first few that the library did without */
} tally;

static void note_optional(tally *t, long n) {
  if (t->optional < 6) t->optional_at[t->optional] = n;
  t->optional++;
}

/* " (at 3 17 ...)" for the report. */
static const char *optional_list(const tally *t) {
  static char buf[128];
  buf[0] = 0;
  for (long i = 0; i < t->optional && i < 6; i++) {
    size_t l = strlen(buf);
    snprintf(buf + l, sizeof buf - l, "%s%ld", i ? " " : " at ", t->optional_at[i]);
  }
  return buf;
}

/* One run with allocation n failing (every one from n on if persist). */
static void run_here(fx_run *r, onnxexp_diag *d, long n, bool persist,
                     bool recheck, tally *t);

/* run_here in a child; a crash is one failed check, and the rest go on. */
static void run_one(fx_run *r, onnxexp_diag *d, long n, bool persist,
                    bool recheck, tally *t) {
  if (!forking) {
    run_here(r, d, n, persist, recheck, t);
    return;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    fx_failures = 0;
    signal(SIGSEGV, on_crash);
    signal(SIGABRT, on_crash);
    signal(SIGBUS, on_crash);
    tally c = {0};
    run_here(r, d, n, persist, recheck, &c);
    fflush(NULL);
    _exit((fx_failures ? 4 : 0) | (c.optional ? 1 : 0) | (c.not_fired ? 2 : 0));
  }
  int ws = 0;
  waitpid(pid, &ws, 0);
  t->points++;
  if (WIFSIGNALED(ws)) {
    fx_fail("%s: %s allocation %ld: crashed with signal %d", r->c->label,
            persist ? "from" : "failing", n, WTERMSIG(ws));
    fx_reset(r);
    return;
  }
  int rc = WEXITSTATUS(ws);
  if (rc & 4) fx_failures++;
  if (rc & 1) note_optional(t, n);
  else t->nomem++;
  if (rc & 2) t->not_fired++;
  if (rc & 5) fx_reset(r);
}

static void run_here(fx_run *r, onnxexp_diag *d, long n, bool persist,
                     bool recheck, tally *t) {
  char what[96];
  snprintf(what, sizeof what, "%s allocation %ld", persist ? "from" : "failing", n);
  if (trace) fprintf(stderr, "%s: %s\n", r->c->label, what);
  char fds[1024], fds_after[1024];
  fx_fds(fds, sizeof fds);
  int maps = fx_mappings(r->fx_dir);
  unsigned char *mem;
  size_t mem_len;
  oxp_fault_arm(OXP_FAULT_ALLOC, n, ENOMEM, persist ? OXP_FAULT_PERSIST : OXP_FAULT_ONCE);
  onnxexp_status s = fx_export(r, d, &mem, &mem_len);
  long fired = oxp_fault_fired();
  oxp_fault_disarm();
  t->points++;
  if (!fired) t->not_fired++;
  if (s == ONNXEXP_OK) {
    note_optional(t, n);
    if (!fx_check_success(r, mem, mem_len, what)) fx_reset(r);
    else if (r->c->dest == TO_FILE) fx_reset(r);
  } else if (s == ONNXEXP_ERR_NOMEM) {
    t->nomem++;
    if (!strstr(onnxexp_diag_message(d), "out of memory"))
      fx_fail("%s: %s: the diagnostic does not say out of memory: %s",
              r->c->label, what, onnxexp_diag_message(d));
    if (mem) fx_fail("%s: %s: failed but returned a result", r->c->label, what);
    if (!fx_check_untouched(r, what)) fx_reset(r);
  } else {
    char msg[1200];
    onnxexp_diag_format(d, msg, sizeof msg);
    fx_fail("%s: %s: status %s, not out of memory: %s", r->c->label, what,
            onnxexp_status_string(s), msg);
    fx_reset(r);
  }
  onnxexp_free(mem);
  fx_fds(fds_after, sizeof fds_after);
  if (strcmp(fds, fds_after) != 0)
    fx_fail("%s: %s: descriptors [%s] before, [%s] after", r->c->label, what,
            fds, fds_after);
  if (fx_mappings(r->fx_dir) != maps)
    fx_fail("%s: %s: a mapping of the weights stayed", r->c->label, what);
  if (recheck && s != ONNXEXP_OK) fx_still_works(r, d, what);
}

/* examples/frontend.c's steps: the model bytes on success; msg says
 * why not (empty when even the diagnostic could not be made). */
static onnxexp_status frontend(unsigned char **out, size_t *out_len, char *msg,
                               size_t msgn) {
  *out = NULL;
  msg[0] = 0;
  onnxexp_diag *d = NULL;
  onnxexp_status s = onnxexp_diag_create(&d);
  if (s) return s;
  s = onnxexp_register_custom_op_symbolic("mydomain::Foo", foo_symbolic, NULL, 9, d);
  onnxexp_graph *g = NULL;
  if (!s) s = build(&g, d);
  onnxexp_options opts;
  onnxexp_options_init(&opts, sizeof opts, NULL);
  opts.opset_version = 17;
  unsigned char *buf = NULL;
  size_t len = 0;
  if (!s) s = onnxexp_export_graph_to_buffer(g, &opts, &buf, &len, d);
  onnxexp_graph_free(g);
  onnxexp_model_info *info = NULL;
  if (!s) s = onnxexp_check_model(buf, len, &info, d);
  onnxexp_model_info_free(info);
  onnxexp_unregister_custom_op_symbolic("mydomain::Foo", 9, NULL);
  onnxexp_diag_format(d, msg, msgn);
  onnxexp_diag_free(d);
  if (s) {
    onnxexp_free(buf);
    return s;
  }
  *out = buf;
  *out_len = len;
  return ONNXEXP_OK;
}

static void frontend_one(long n, bool persist, const unsigned char *want,
                         size_t want_len, tally *t) {
  char fds[1024], fds_after[1024], msg[1200];
  fx_fds(fds, sizeof fds);
  unsigned char *buf;
  size_t len;
  oxp_fault_arm(OXP_FAULT_ALLOC, n, ENOMEM, persist ? OXP_FAULT_PERSIST : OXP_FAULT_ONCE);
  onnxexp_status s = frontend(&buf, &len, msg, sizeof msg);
  long fired = oxp_fault_fired();
  oxp_fault_disarm();
  t->points++;
  if (!fired) t->not_fired++;
  const char *how = persist ? "from" : "failing";
  if (s == ONNXEXP_OK) {
    note_optional(t, n);
    if (len != want_len || memcmp(buf, want, len) != 0)
      fx_fail("frontend: %s allocation %ld: succeeded with a different model", how, n);
  } else if (s == ONNXEXP_ERR_NOMEM) {
    t->nomem++;
    if (msg[0] && !strstr(msg, "out of memory"))
      fx_fail("frontend: %s allocation %ld: the diagnostic does not say out of "
              "memory: %s", how, n, msg);
  } else {
    fx_fail("frontend: %s allocation %ld: status %s, not out of memory: %s", how,
            n, onnxexp_status_string(s), msg);
  }
  onnxexp_free(buf);
  fx_fds(fds_after, sizeof fds_after);
  if (strcmp(fds, fds_after) != 0)
    fx_fail("frontend: %s allocation %ld: descriptors [%s] before, [%s] after",
            how, n, fds, fds_after);
  if (!persist && s != ONNXEXP_OK) { /* the library is still whole */
    s = frontend(&buf, &len, msg, sizeof msg);
    if (s || len != want_len || memcmp(buf, want, len) != 0)
      fx_fail("frontend: the run after failing allocation %ld: %s", n,
              s ? msg : "a different model");
    onnxexp_free(buf);
  }
}

/* Returns the number of allocations. */
static long frontend_case(long step, long persist_step, long from, long *covered,
                          long *persisted) {
  for (int o = 0; o < 3; o++) {
    bias[o] = 0.1f * (float)o;
    for (int k = 0; k < 4; k++) weight[o][k] = (float)(o * 4 + k) / 10.0f - 0.5f;
  }
  unsigned char *want;
  size_t want_len;
  char msg[1200];
  int before = fx_failures;
  oxp_fault_count();
  onnxexp_status s = frontend(&want, &want_len, msg, sizeof msg);
  long n = oxp_fault_calls(OXP_FAULT_ALLOC);
  oxp_fault_disarm();
  if (s) {
    fprintf(stderr, "frontend: the run without faults failed: %s\n", msg);
    exit(1);
  }
  tally t = {0}, p = {0};
  for (long k = from; k <= n; k += step) frontend_one(k, false, want, want_len, &t);
  for (long k = 1; persist_step && k <= n; k += persist_step)
    frontend_one(k, true, want, want_len, &p);
  if (leaks()) fx_fail("frontend: memory leaked (see the report above)");
  printf("%-20s %6ld allocations, %6ld failed in turn (%ld out of memory, "
         "%ld did without%s, %ld not reached); %ld persistent%s\n",
         "frontend", n, t.points, t.nomem, t.optional, optional_list(&t),
         t.not_fired, p.points,
         fx_failures > before ? "  FAILED" : "");
  onnxexp_free(want);
  *covered += t.points;
  *persisted += p.points;
  return n;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: alloc_faults FIXTURES WORK [--step K] [--persist-step K] "
                    "[--case LABEL] [--from N] [--trace] [--fork] [--fixture NAME]\n");
    return 2;
  }
  long step = 1, persist_step = 0, from = 1;
  const char *only = NULL, *fixture = NULL;
  for (int i = 3; i < argc; i++) {
    if (strcmp(argv[i], "--step") == 0 && i + 1 < argc) step = atol(argv[++i]);
    else if (strcmp(argv[i], "--persist-step") == 0 && i + 1 < argc)
      persist_step = atol(argv[++i]);
    else if (strcmp(argv[i], "--trace") == 0) trace = true;
    else if (strcmp(argv[i], "--fork") == 0) forking = true;
    else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc) only = argv[++i];
    else if (strcmp(argv[i], "--fixture") == 0 && i + 1 < argc) fixture = argv[++i];
    else if (strcmp(argv[i], "--from") == 0 && i + 1 < argc) from = atol(argv[++i]);
    else {
      fprintf(stderr, "alloc_faults: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  if (step < 1) step = 1;
  onnxexp_diag *d;
  if (onnxexp_diag_create(&d) != ONNXEXP_OK) return 2;
  long total = 0, covered = 0, persisted = 0;
  /* --fixture NAME: that fixture alone, default options (exploring) */
  fx_case any = {fixture, fixture, ONNXEXP_EXTERNAL_DATA_NONE, false, TO_FILE};
  const fx_case *cases = fixture ? &any : FX_CASES;
  int ncases = fixture ? 1 : FX_NCASES;
  if (fixture) only = fixture;
  for (int i = 0; i < ncases; i++) {
    if (only && strcmp(only, cases[i].label) != 0) continue;
    fx_run r;
    fx_setup(&r, &cases[i], argv[1], argv[2]);
    fx_baseline(&r, d);
    /* How many allocations the export makes. */
    unsigned char *mem;
    size_t mem_len;
    fx_reset(&r);
    oxp_fault_count();
    onnxexp_status s = fx_export(&r, d, &mem, &mem_len);
    long n = oxp_fault_calls(OXP_FAULT_ALLOC);
    oxp_fault_disarm();
    if (s != ONNXEXP_OK || !fx_check_success(&r, mem, mem_len, "counting run"))
      fx_fail("%s: the counting run differs", r.c->label);
    onnxexp_free(mem);
    fx_reset(&r);
    int before = fx_failures;
    tally t = {0}, p = {0};
    for (long k = from; k <= n; k += step)
      run_one(&r, d, k, false, true, &t);
    for (long k = 1; persist_step && k <= n; k += persist_step)
      run_one(&r, d, k, true, false, &p);
    run_one(&r, d, n + 1, false, true, &(tally){0}); /* none fails */
    if (leaks()) fx_fail("%s: memory leaked (see the report above)", r.c->label);
    printf("%-20s %6ld allocations, %6ld failed in turn (%ld out of memory, "
           "%ld did without%s, %ld not reached); %ld persistent%s\n",
           r.c->label, n, t.points, t.nomem, t.optional, optional_list(&t),
           t.not_fired,
           p.points, fx_failures > before ? "  FAILED" : "");
    total += n;
    covered += t.points;
    persisted += p.points;
    fx_free(&r);
  }
  if (!only || strcmp(only, "frontend") == 0)
    total += frontend_case(step, persist_step, from, &covered, &persisted);
  printf("allocation failure points: %ld of %ld failed in turn (step %ld), "
         "%ld more runs failing every allocation from one on; %d failed "
         "checks\n", covered, total, step, persisted, fx_failures);
  onnxexp_diag_free(d);
  return fx_failures ? 1 : 0;
}
