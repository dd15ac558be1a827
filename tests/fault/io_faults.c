/* io_faults.c: every file operation of an export, failed in turn.
 *
 *   io_faults FIXTURES WORK [--case LABEL] [--kind NAME] [--trace]
 *             [--scenario NAME]
 *
 * For each case of fault_cases.h the export first runs with file
 * operations counted per kind (open, stat, read, mmap, write, copy,
 * truncate, sync, chmod, link, rename, unlink, close: fault.h), then once
 * per operation with it failing: every kind with EIO; writes, copies,
 * syncs and closes also with ENOSPC; writes, copies and reads also short
 * (part of the bytes, which is no error at all); and writes and copies as
 * a disk filling up (one short, then ENOSPC for good).
 *
 * Every run must end either with ONNXEXP_ERR_IO and a diagnostic that
 * names the file and the error, the previous output untouched and
 * nothing beside it, or (a short transfer, or an operation the library
 * can do without) with exactly the output of a run without faults. No
 * descriptor (/proc/self/fd) or mapping may stay open in either case, and
 * right after every failed run an export without faults must still give
 * the baseline.
 *
 * The cases whose writes differ run this three times: on this system,
 * and in two others the library has fallbacks for (fault.h conditions):
 * without O_TMPFILE, copy_file_range across filesystems and
 * RENAME_EXCHANGE (a named temporary, sendfile, a plain rename), and
 * without any kernel copy (write(2) of the mapped weights). So the
 * operations of the fallback paths are failed in turn too. Those cases
 * also run once into a directory without a previous output, where a
 * failed export must leave no file at all.
 *
 * Two outcomes are not the baseline and still lose nothing, and are
 * counted apart: a failed unlink of the old data file after it was
 * replaced leaves it under its hidden temporary name, and an external
 * reference whose source the writer cannot check becomes inline data
 * (the model then passes onnxexp_check_model).
 *
 * Prints one line per case and the number of failure points covered;
 * exits 1 on any failed check. */
#include "fault_cases.h"

static bool trace;

typedef struct {
  int err;
  oxp_fault_mode mode;
  const char *name;
} io_mode;

static const io_mode EIO_ONCE = {EIO, OXP_FAULT_ONCE, "EIO"};
static const io_mode ENOSPC_ONCE = {ENOSPC, OXP_FAULT_ONCE, "ENOSPC"};
/* Operations without a partial form fail with EIO instead. */
static const io_mode SHORT = {EIO, OXP_FAULT_SHORT_ONCE, "short"};
static const io_mode FILL = {ENOSPC, OXP_FAULT_FILL, "disk filling"};

/* The ways each kind fails. */
static int modes_of(oxp_fault_kind k, io_mode *m) {
  bool moves = k == OXP_FAULT_WRITE || k == OXP_FAULT_COPY || k == OXP_FAULT_SENDFILE;
  int n = 0;
  m[n++] = EIO_ONCE;
  if (moves || k == OXP_FAULT_SYNC || k == OXP_FAULT_CLOSE) m[n++] = ENOSPC_ONCE;
  if (moves || k == OXP_FAULT_READ) m[n++] = SHORT;
  if (moves) m[n++] = FILL;
  return n;
}

/* The systems an export to a file is tried on: what fails there always. */
typedef struct {
  const char *name;
  struct {
    oxp_fault_kind kind;
    int err;
  } cond[3];
} scenario;

static const scenario SCENARIOS[] = {
    {"this system", {{0, 0}}},
    {"fallbacks", {{OXP_FAULT_TMPFILE, EOPNOTSUPP}, {OXP_FAULT_COPY, EXDEV},
                   {OXP_FAULT_EXCHANGE, EINVAL}}},
    {"no kernel copy", {{OXP_FAULT_COPY, EXDEV}, {OXP_FAULT_SENDFILE, EINVAL}}},
    /* this system again, writing where nothing was before (fx_run.fresh) */
    {"no previous", {{0, 0}}},
};
enum { NSCENARIOS = sizeof SCENARIOS / sizeof SCENARIOS[0] };

static void set_scenario(const scenario *sc, bool on) {
  for (int i = 0; i < 3; i++)
    if (sc->cond[i].err) oxp_fault_condition(sc->cond[i].kind, on ? sc->cond[i].err : 0);
}

typedef struct {
  long points, io_error, did_without, stray, inlined, not_fired;
} tally;

/* The hidden temporaries of the data file left by a failed unlink: named
 * and counted, then removed. */
static int remove_strays(fx_run *r) {
  DIR *dp = opendir(r->out_dir);
  struct dirent *e;
  int k = 0;
  while (dp && (e = readdir(dp)))
    if (strncmp(e->d_name, ".model.onnx.data.", 17) == 0) {
      char p[1400];
      snprintf(p, sizeof p, "%s/%s", r->out_dir, e->d_name);
      unlink(p);
      k++;
    }
  if (dp) closedir(dp);
  return k;
}

/* A reference-mode model that differs from the baseline: still a model. */
static bool is_model(const char *path) {
  size_t len;
  unsigned char *p = fx_read(path, &len);
  onnxexp_model_info *info = NULL;
  bool ok = p && onnxexp_check_model(p, len, &info, NULL) == ONNXEXP_OK;
  onnxexp_model_info_free(info);
  free(p);
  return ok;
}

static void run_one(fx_run *r, onnxexp_diag *d, oxp_fault_kind k, long n,
                    const io_mode *m, tally *t) {
  char what[128];
  snprintf(what, sizeof what, "%s %ld as %s", oxp_fault_kind_name(k), n, m->name);
  if (trace) fprintf(stderr, "%s: %s\n", r->c->label, what);
  char fds[1024], fds_after[1024];
  fx_fds(fds, sizeof fds);
  int maps = fx_mappings(r->fx_dir);
  unsigned char *mem;
  size_t mem_len;
  oxp_fault_arm(k, n, m->err, m->mode);
  onnxexp_status s = fx_export(r, d, &mem, &mem_len);
  long fired = oxp_fault_fired();
  oxp_fault_disarm();
  t->points++;
  if (!fired) t->not_fired++;
  char msg[1200];
  onnxexp_diag_format(d, msg, sizeof msg);
  if (s == ONNXEXP_OK) {
    int strays = k == OXP_FAULT_UNLINK ? remove_strays(r) : 0;
    if (strays) t->stray++;
    if (r->c->ext == ONNXEXP_EXTERNAL_DATA_REFERENCE &&
        !fx_same(r->model, r->want, r->want_len) && is_model(r->model))
      t->inlined++;
    else if (fx_check_success(r, mem, mem_len, what) && !strays)
      t->did_without++;
    fx_reset(r);
  } else if (s == ONNXEXP_ERR_IO && m->mode != OXP_FAULT_SHORT_ONCE) {
    t->io_error++;
    const char *why = strerror(m->err);
    if (!strstr(msg, why))
      fx_fail("%s: %s: the diagnostic does not say '%s': %s", r->c->label,
              what, why, msg);
    if (!strstr(msg, r->out_dir) && !strstr(msg, r->fx_dir))
      fx_fail("%s: %s: the diagnostic names no file: %s", r->c->label, what, msg);
    if (mem) fx_fail("%s: %s: failed but returned a result", r->c->label, what);
    if (!fx_check_untouched(r, what)) fx_reset(r);
    fx_still_works(r, d, what);
  } else {
    fx_fail("%s: %s: status %s: %s", r->c->label, what,
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
}

/* One case on one system: count, then fail each operation in turn. */
static void run_scenario(fx_run *r, onnxexp_diag *d, const scenario *sc,
                         const char *only_kind, long *total_ops, long *total_runs) {
  unsigned char *mem;
  size_t mem_len;
  fx_reset(r);
  set_scenario(sc, true);
  oxp_fault_count();
  onnxexp_status s = fx_export(r, d, &mem, &mem_len);
  long count[OXP_FAULT_NKINDS];
  for (int k = 0; k < OXP_FAULT_NKINDS; k++) count[k] = oxp_fault_calls(k);
  oxp_fault_disarm();
  if (s != ONNXEXP_OK || !fx_check_success(r, mem, mem_len, "counting run"))
    fx_fail("%s: the counting run on %s differs", r->c->label, sc->name);
  onnxexp_free(mem);
  fx_reset(r);
  int before = fx_failures;
  tally t = {0};
  long ops = 0;
  char per_kind[512] = "";
  for (int k = 0; k < OXP_FAULT_NKINDS; k++) {
    if (k == OXP_FAULT_ALLOC || !count[k]) continue;
    if (only_kind && strcmp(only_kind, oxp_fault_kind_name(k)) != 0) continue;
    io_mode m[4];
    int nm = modes_of(k, m);
    for (long n = 1; n <= count[k]; n++)
      for (int j = 0; j < nm; j++) run_one(r, d, k, n, &m[j], &t);
    ops += count[k];
    size_t l = strlen(per_kind);
    snprintf(per_kind + l, sizeof per_kind - l, " %s %ld", oxp_fault_kind_name(k),
             count[k]);
  }
  set_scenario(sc, false);
  printf("%-20s %-14s %4ld operations:%s; %ld runs: %ld i/o errors, %ld did "
         "without, %ld left an old data file, %ld inlined a reference, %ld not "
         "reached%s\n",
         r->c->label, sc->name, ops, per_kind, t.points, t.io_error, t.did_without,
         t.stray, t.inlined, t.not_fired, fx_failures > before ? "  FAILED" : "");
  *total_ops += ops;
  *total_runs += t.points;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: io_faults FIXTURES WORK [--case LABEL] [--kind NAME] "
                    "[--scenario NAME] [--trace]\n");
    return 2;
  }
  const char *only = NULL, *only_kind = NULL, *only_sc = NULL;
  for (int i = 3; i < argc; i++) {
    if (strcmp(argv[i], "--case") == 0 && i + 1 < argc) only = argv[++i];
    else if (strcmp(argv[i], "--kind") == 0 && i + 1 < argc) only_kind = argv[++i];
    else if (strcmp(argv[i], "--scenario") == 0 && i + 1 < argc) only_sc = argv[++i];
    else if (strcmp(argv[i], "--trace") == 0) trace = true;
    else {
      fprintf(stderr, "io_faults: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  onnxexp_diag *d;
  if (onnxexp_diag_create(&d) != ONNXEXP_OK) return 2;
  long total_ops = 0, total_runs = 0;
  for (int i = 0; i < FX_NCASES; i++) {
    if (only && strcmp(only, FX_CASES[i].label) != 0) continue;
    fx_run r;
    fx_setup(&r, &FX_CASES[i], argv[1], argv[2]);
    fx_baseline(&r, d);
    for (int k = 0; k < NSCENARIOS; k++) {
      if (k > 0 && !r.c->other_systems) continue;
      if (only_sc && strcmp(only_sc, SCENARIOS[k].name) != 0) continue;
      r.fresh = strcmp(SCENARIOS[k].name, "no previous") == 0;
      run_scenario(&r, d, &SCENARIOS[k], only_kind, &total_ops, &total_runs);
      r.fresh = false;
    }
    /* Whole after all that: an export without faults is the baseline. */
    unsigned char *mem;
    size_t mem_len;
    fx_reset(&r);
    onnxexp_status s = fx_export(&r, d, &mem, &mem_len);
    if (s != ONNXEXP_OK || !fx_check_success(&r, mem, mem_len, "the export after"))
      fx_fail("%s: the export after the faults failed: %s", r.c->label,
              onnxexp_diag_message(d));
    onnxexp_free(mem);
    fx_free(&r);
  }
  printf("i/o failure points: %ld operations failed in turn in %ld runs, "
         "%d failed checks\n", total_ops, total_runs, fx_failures);
  onnxexp_diag_free(d);
  return fx_failures ? 1 : 0;
}
