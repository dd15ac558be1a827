/* fault_cases.h: what the fault-injection suites (alloc_faults.c,
 * io_faults.c) share: the exports they break, one of each kind the issue
 * names, and the checks that nothing was lost after a broken one: the
 * previous output byte for byte, no stray file beside it, no descriptor
 * or mapping left open.
 *
 * Each case exports one generated fixture (build/fixtures, written by
 * tests/fixtures/gen_fixtures.py) through the public C API into a
 * directory that already holds a previous model (and data file). */
#ifndef FAULT_CASES_H
#define FAULT_CASES_H

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <onnxexp/onnxexp.h>

#include "fault.h"

typedef enum { TO_FILE, TO_BUFFER, TO_PRETTY } fx_dest;

typedef struct {
  const char *label;
  const char *fixture;    /* directory under the fixtures root */
  onnxexp_external_data ext;
  bool dynamic;           /* input "img", axis 0 named "n" */
  fx_dest dest;
  /* io_faults tries it on the other systems too (its writes differ from
   * the other cases' in what they move and how) */
  bool other_systems;
} fx_case;

static const fx_case FX_CASES[] = {
    {"mlp", "mlp", ONNXEXP_EXTERNAL_DATA_NONE, false, TO_FILE, true},
    {"convnet_bn_fold", "cnn_bn_pool", ONNXEXP_EXTERNAL_DATA_NONE, false, TO_FILE},
    {"script_if_loop", "ctl_if_in_loop_mix", ONNXEXP_EXTERNAL_DATA_NONE, false, TO_FILE},
    {"external_data", "cnn_bn_pool", ONNXEXP_EXTERNAL_DATA_FILE, false, TO_FILE, true},
    {"external_reference", "mlp", ONNXEXP_EXTERNAL_DATA_REFERENCE, false, TO_FILE},
    /* many tensors: many writes and copies, attention lowering */
    {"transformer_external", "model_transformer_fast", ONNXEXP_EXTERNAL_DATA_FILE, false, TO_FILE, true},
    {"dynamic_axes", "opt_dyn_cnn", ONNXEXP_EXTERNAL_DATA_NONE, true, TO_FILE},
    /* made here (fx_make_big): a weight big enough to skip the writer's
     * stage buffer, moved straight from the mapping into the model */
    {"big_weight_inline", "@big_weight", ONNXEXP_EXTERNAL_DATA_NONE, false, TO_FILE, true},
    {"mlp_to_buffer", "mlp", ONNXEXP_EXTERNAL_DATA_NONE, false, TO_BUFFER},
    {"mlp_pretty", "mlp", ONNXEXP_EXTERNAL_DATA_NONE, false, TO_PRETTY},
    /* packed params bound from the sidecar, quantized tensors lowered */
    {"quantized", "q_functional", ONNXEXP_EXTERNAL_DATA_NONE, false, TO_FILE},
};
enum { FX_NCASES = sizeof FX_CASES / sizeof FX_CASES[0] };

static const char PREV_MODEL[] = "the previous model\n";
static const char PREV_DATA[] = "the previous data\n";

static int fx_failures;

__attribute__((format(printf, 1, 2))) static void fx_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("FAIL: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  fx_failures++;
}

/* ---- files -------------------------------------------------------------- */

static unsigned char *fx_read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char *p = NULL;
  size_t cap = 0, n = 0, r;
  do {
    if (n == cap) {
      unsigned char *q = realloc(p, cap = cap ? cap * 2 : 65536);
      if (!q) abort();
      p = q;
    }
    r = fread(p + n, 1, cap - n, f);
    n += r;
  } while (r > 0);
  fclose(f);
  *len = n;
  return p;
}

static void fx_write(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
    perror(path);
    exit(2);
  }
}

/* Does path hold exactly these bytes? */
static bool fx_same(const char *path, const void *want, size_t n) {
  size_t len;
  unsigned char *got = fx_read(path, &len);
  bool same = got && len == n && memcmp(got, want, n) == 0;
  free(got);
  return same;
}

/* The names in dir, sorted, joined by spaces. */
static void fx_listing(const char *dir, char *out, size_t n) {
  char names[64][256];
  int k = 0;
  DIR *dp = opendir(dir);
  out[0] = 0;
  if (!dp) return;
  struct dirent *e;
  while ((e = readdir(dp)) && k < 64)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      snprintf(names[k++], sizeof names[0], "%s", e->d_name);
  closedir(dp);
  qsort(names, (size_t)k, sizeof names[0],
        (int (*)(const void *, const void *))strcmp);
  for (int i = 0; i < k; i++) {
    size_t l = strlen(out);
    snprintf(out + l, n - l, "%s%s", i ? " " : "", names[i]);
  }
}

/* ---- what the process holds ------------------------------------------ */

/* Open descriptors, as "0 1 2 ..." (the directory's own one included). */
static void fx_fds(char *out, size_t n) { fx_listing("/proc/self/fd", out, n); }

/* Mappings of files under root, counted: a weights mmap left behind. */
static int fx_mappings(const char *root) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return -1;
  char line[4096];
  int k = 0;
  while (fgets(line, sizeof line, f)) k += strstr(line, root) != NULL;
  fclose(f);
  return k;
}

/* ---- a fixture made here ---------------------------------------------- */

/* dir/model.ir and its weights: y = x @ w with a 256 KiB w. */
static void fx_make_big(const char *dir) {
  char p[1200];
  mkdir(dir, 0777);
  snprintf(p, sizeof p, "%s/model.ir", dir);
  fx_write(p,
           "graph(%x : Float(1, 256, strides=[256, 1], requires_grad=0, device=cpu),\n"
           "      %w : Float(256, 256, strides=[256, 1], requires_grad=1, device=cpu)):\n"
           "  %y : Float(1, 256, strides=[256, 1], requires_grad=0, device=cpu) = "
           "aten::matmul(%x, %w) # big.py:1:0\n"
           "  return (%y)\n");
  static const char header[] =
      "{\"w\":{\"dtype\":\"F32\",\"shape\":[256,256],\"data_offsets\":[0,262144]}}";
  unsigned char len[8] = {0};
  for (int i = 0; i < 8; i++) len[i] = (unsigned char)((sizeof header - 1) >> (8 * i));
  snprintf(p, sizeof p, "%s/model.safetensors", dir);
  FILE *f = fopen(p, "wb");
  if (!f) {
    perror(p);
    exit(2);
  }
  fwrite(len, 1, 8, f);
  fwrite(header, 1, sizeof header - 1, f);
  for (int i = 0; i < 256 * 256; i++) {
    float v = (float)(i % 251) / 251.0f;
    fwrite(&v, sizeof v, 1, f);
  }
  if (fclose(f) != 0) {
    perror(p);
    exit(2);
  }
}

/* ---- running a case ----------------------------------------------------- */

typedef struct {
  const fx_case *c;
  char fx_dir[1024], ir[1100], out_dir[1024], model[1100], data[1200];
  const char *in_names[1];
  onnxexp_dynamic_axis dyn[1];
  onnxexp_options o;
  /* what an export without faults makes */
  unsigned char *want;
  size_t want_len;
  unsigned char *want_data;
  size_t want_data_len;
  char want_listing[2048];
  /* the same export into memory, inline: the cheap check that the
   * library still works after a broken run */
  unsigned char *want_mem;
  size_t want_mem_len;
  /* no previous output: a failed export must leave no file at all */
  bool fresh;
} fx_run;

static void fx_setup(fx_run *r, const fx_case *c, const char *fixtures,
                     const char *work) {
  memset(r, 0, sizeof *r);
  r->c = c;
  snprintf(r->out_dir, sizeof r->out_dir, "%s/%s", work, c->label);
  snprintf(r->model, sizeof r->model, "%s/model.onnx", r->out_dir);
  snprintf(r->data, sizeof r->data, "%s/model.onnx.data", r->out_dir);
  char up[1024]; /* mkdir -p */
  snprintf(up, sizeof up, "%s", r->out_dir);
  for (char *p = up + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      mkdir(up, 0777);
      *p = '/';
    }
  mkdir(up, 0777);
  if (c->fixture[0] == '@') { /* made here, under work */
    snprintf(r->fx_dir, sizeof r->fx_dir, "%s/%s", work, c->fixture + 1);
    fx_make_big(r->fx_dir);
    strcat(r->fx_dir, "/");
  } else {
    snprintf(r->fx_dir, sizeof r->fx_dir, "%s/%s/", fixtures, c->fixture);
  }
  snprintf(r->ir, sizeof r->ir, "%smodel.ir", r->fx_dir);
  if (access(r->ir, R_OK) != 0) {
    fprintf(stderr, "%s: missing (run tests/fixtures/gen_fixtures.py)\n", r->ir);
    exit(2);
  }
  onnxexp_options_init(&r->o, sizeof r->o, NULL);
  r->o.quiet = 1;
  r->o.external_data = c->ext;
  if (c->dynamic) {
    r->in_names[0] = "img";
    r->dyn[0] = (onnxexp_dynamic_axis){"img", 0, "n"};
    r->o.input_names = r->in_names;
    r->o.n_input_names = 1;
    r->o.dynamic_axes = r->dyn;
    r->o.n_dynamic_axes = 1;
  }
}

/* The previous outputs an export must leave alone when it fails. */
static void fx_reset(fx_run *r) {
  DIR *dp = opendir(r->out_dir);
  struct dirent *e;
  while (dp && (e = readdir(dp))) {
    char p[1400];
    snprintf(p, sizeof p, "%s/%s", r->out_dir, e->d_name);
    if (e->d_type == DT_REG) unlink(p);
  }
  if (dp) closedir(dp);
  if (r->c->dest != TO_FILE || r->fresh) return;
  fx_write(r->model, PREV_MODEL);
  if (r->c->ext == ONNXEXP_EXTERNAL_DATA_FILE) fx_write(r->data, PREV_DATA);
}

/* One export; a buffer or text result is compared through r->model's
 * bytes in memory, so every destination is checked the same way. */
static onnxexp_status fx_export(fx_run *r, onnxexp_diag *d, unsigned char **mem,
                                size_t *mem_len) {
  *mem = NULL;
  *mem_len = 0;
  switch (r->c->dest) {
  case TO_FILE:
    return onnxexp_export(r->ir, r->model, &r->o, d);
  case TO_BUFFER:
    return onnxexp_export_to_buffer(r->ir, &r->o, mem, mem_len, d);
  case TO_PRETTY: {
    char *text = NULL;
    onnxexp_status s = onnxexp_export_to_pretty_string(r->ir, &r->o, &text, d);
    *mem = (unsigned char *)text;
    *mem_len = text ? strlen(text) : 0;
    return s;
  }
  }
  return ONNXEXP_ERR_INTERNAL;
}

/* The export without faults: what every later success must equal. */
static void fx_baseline(fx_run *r, onnxexp_diag *d) {
  fx_reset(r);
  unsigned char *mem;
  size_t mem_len;
  onnxexp_status s = fx_export(r, d, &mem, &mem_len);
  if (s != ONNXEXP_OK) {
    fprintf(stderr, "%s: baseline export failed: %s\n", r->c->label,
            onnxexp_diag_message(d));
    exit(1);
  }
  if (r->c->dest == TO_FILE) {
    r->want = fx_read(r->model, &r->want_len);
    if (r->c->ext == ONNXEXP_EXTERNAL_DATA_FILE)
      r->want_data = fx_read(r->data, &r->want_data_len);
  } else {
    r->want = mem;
    r->want_len = mem_len;
    mem = NULL;
  }
  onnxexp_free(mem);
  fx_listing(r->out_dir, r->want_listing, sizeof r->want_listing);
  onnxexp_options o = r->o;
  o.external_data = ONNXEXP_EXTERNAL_DATA_NONE;
  if (onnxexp_export_to_buffer(r->ir, &o, &r->want_mem, &r->want_mem_len, d)) {
    fprintf(stderr, "%s: baseline export to memory failed: %s\n", r->c->label,
            onnxexp_diag_message(d));
    exit(1);
  }
}

/* An export into memory gives the baseline again: nothing the broken run
 * before it did (a global half set up, a lock held) is left over. */
static bool fx_still_works(fx_run *r, onnxexp_diag *d, const char *what) {
  onnxexp_options o = r->o;
  o.external_data = ONNXEXP_EXTERNAL_DATA_NONE;
  unsigned char *p = NULL;
  size_t n = 0;
  onnxexp_status s = onnxexp_export_to_buffer(r->ir, &o, &p, &n, d);
  bool ok = s == ONNXEXP_OK && n == r->want_mem_len && memcmp(p, r->want_mem, n) == 0;
  if (!ok)
    fx_fail("%s: the export after %s %s", r->c->label, what,
            s ? onnxexp_diag_message(d) : "made a different model");
  onnxexp_free(p);
  return ok;
}

/* After a successful export: exactly what the baseline made. */
static bool fx_check_success(fx_run *r, unsigned char *mem, size_t mem_len,
                             const char *what) {
  bool ok = true;
  if (r->c->dest != TO_FILE) {
    if (!mem || mem_len != r->want_len || memcmp(mem, r->want, mem_len) != 0) {
      fx_fail("%s: %s: succeeded with a different result", r->c->label, what);
      ok = false;
    }
    return ok;
  }
  char listing[2048];
  fx_listing(r->out_dir, listing, sizeof listing);
  if (!fx_same(r->model, r->want, r->want_len)) {
    fx_fail("%s: %s: succeeded with a different model", r->c->label, what);
    ok = false;
  }
  if (r->want_data && !fx_same(r->data, r->want_data, r->want_data_len)) {
    fx_fail("%s: %s: succeeded with a different data file", r->c->label, what);
    ok = false;
  }
  if (strcmp(listing, r->want_listing) != 0) {
    fx_fail("%s: %s: succeeded leaving [%s], expected [%s]", r->c->label, what,
            listing, r->want_listing);
    ok = false;
  }
  return ok;
}

/* After a failed export: the previous outputs, and nothing else. */
static bool fx_check_untouched(fx_run *r, const char *what) {
  bool ok = true;
  char listing[2048];
  fx_listing(r->out_dir, listing, sizeof listing);
  if (r->c->dest != TO_FILE || r->fresh) {
    if (listing[0]) {
      fx_fail("%s: %s: files appeared: [%s]", r->c->label, what, listing);
      ok = false;
    }
    return ok;
  }
  if (!fx_same(r->model, PREV_MODEL, strlen(PREV_MODEL))) {
    fx_fail("%s: %s: the previous model was changed", r->c->label, what);
    ok = false;
  }
  bool ext = r->c->ext == ONNXEXP_EXTERNAL_DATA_FILE;
  if (ext && !fx_same(r->data, PREV_DATA, strlen(PREV_DATA))) {
    fx_fail("%s: %s: the previous data file was changed", r->c->label, what);
    ok = false;
  }
  const char *want = ext ? "model.onnx model.onnx.data" : "model.onnx";
  if (strcmp(listing, want) != 0) {
    fx_fail("%s: %s: left [%s], expected [%s]", r->c->label, what, listing, want);
    ok = false;
  }
  return ok;
}

static void fx_free(fx_run *r) {
  free(r->want);
  free(r->want_data);
  free(r->want_mem);
}

#endif
