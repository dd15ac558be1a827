/* test_external.c: external data (layout, offsets, alignment, the two-file
 * atomic commit, reference mode into a real sidecar, the automatic switch
 * past the protobuf limit), the file-mapping table that tells file bytes
 * from memory, and the progress line. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include "check_main.h"
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "passes.h"
#include "serialize.h"
#include "onnx/onnx.pb-c.h"
#include "st_build.h"

static oxp_arena *A;
static oxp_graph *G;
static char DIR_[PATH_MAX];

static void setup(void) {
  A = oxp_arena_new();
  G = oxp_graph_new(A, "test.ir");
  snprintf(DIR_, sizeof DIR_, "/tmp/oxp_ext_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(DIR_));
}

static void teardown(void) {
  DIR *d = opendir(DIR_);
  struct dirent *e;
  char p[PATH_MAX + 256];
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.' && (!e->d_name[1] || e->d_name[1] == '.'))
      continue;
    snprintf(p, sizeof p, "%s/%s", DIR_, e->d_name);
    if (remove(p) != 0) rmdir(p);
  }
  if (d) closedir(d);
  rmdir(DIR_);
  oxp_arena_free(A);
}

static oxp_options opts(oxp_external mode) {
  oxp_options o;
  memset(&o, 0, sizeof o);
  o.opset = 17;
  o.constant_folding = true;
  o.export_params = true;
  o.strip_doc_string = true;
  o.external_data = mode;
  return o;
}

static const char *path_in(const char *name) {
  return oxp_sprintf(A, "%s/%s", DIR_, name);
}

static int count_files(void) {
  DIR *d = opendir(DIR_);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n;
}

static unsigned char *slurp(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY);
  ck_assert_int_ge(fd, 0);
  struct stat sb;
  fstat(fd, &sb);
  unsigned char *b = malloc((size_t)sb.st_size + 1);
  ck_assert_int_eq(read(fd, b, (size_t)sb.st_size), sb.st_size);
  close(fd);
  *len = (size_t)sb.st_size;
  return b;
}

static void spit(const char *path, const void *p, size_t n) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, p, n), (ssize_t)n);
  close(fd);
}

static Onnx__ModelProto *load(const char *path) {
  size_t len;
  unsigned char *b = slurp(path, &len);
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, b);
  free(b);
  ck_assert_ptr_nonnull(m);
  return m;
}

/* A float weight input of n floats, value i*k, bytes in the arena. */
static oxp_value *weight(const char *name, int64_t n, float k) {
  float *data = oxp_alloc(A, sizeof(float) * (size_t)n);
  for (int64_t i = 0; i < n; i++) data[i] = (float)i * k;
  oxp_value *w = oxp_block_add_input(
      G->top, name, oxp_type_tensor(A, OXP_DT_FLOAT, 1, &n));
  w->init = oxp_tensor_new(A, OXP_DT_FLOAT, 1, &n, data, sizeof(float) * (size_t)n);
  return w;
}

/* x + w0 + w1 + ... -> out, with x of the first weight's shape. */
static void sum_graph(oxp_value **ws, int n) {
  int64_t d = ws[0]->init->dims[0];
  oxp_value *acc =
      oxp_block_add_input(G->top, "x", oxp_type_tensor(A, OXP_DT_FLOAT, 1, &d));
  for (int i = 0; i < n; i++) {
    oxp_node *add = oxp_node_new(G, "onnx::Add", 1);
    oxp_node_add_input(add, acc);
    oxp_node_add_input(add, ws[i]);
    oxp_block_append(G->top, add);
    acc = add->outputs[0];
  }
  acc->name = "out";
  oxp_block_add_output(G->top, acc);
}

static const char *ext_get(const Onnx__TensorProto *t, const char *key) {
  for (size_t i = 0; i < t->n_external_data; i++)
    if (strcmp(t->external_data[i]->key, key) == 0)
      return t->external_data[i]->value;
  return NULL;
}

static const Onnx__TensorProto *init_named(const Onnx__ModelProto *m,
                                           const char *name) {
  for (size_t i = 0; i < m->graph->n_initializer; i++)
    if (strcmp(m->graph->initializer[i]->name, name) == 0)
      return m->graph->initializer[i];
  ck_abort_msg("no initializer %s", name);
  return NULL;
}

/* ---- file mode ------------------------------------------------------------ */

START_TEST(file_mode_layout_offsets_alignment) {
  /* 100 B stays inline; 4 KiB goes out on 64 bytes; 2 MiB on 64 KiB;
   * mid2 ends off any boundary, so mid3 must be padded. */
  oxp_value *ws[5] = {weight("tiny", 25, 1), weight("mid", 1024, 2),
                      weight("big", 512 * 1024, 3), weight("mid2", 1001, 4),
                      weight("mid3", 1024, 5)};
  /* sizes differ, so each weight gets its own Identity and output */
  for (int i = 0; i < 5; i++) {
    oxp_node *id = oxp_node_new(G, "onnx::Identity", 1);
    oxp_node_add_input(id, ws[i]);
    oxp_block_append(G->top, id);
    id->outputs[0]->name = oxp_sprintf(A, "out%d", i);
    oxp_block_add_output(G->top, id->outputs[0]);
  }
  oxp_options o = opts(OXP_EXT_FILE);
  oxp_diag d = {0};
  const char *out = path_in("m.onnx");
  ck_assert_msg(oxp_write_file(G, &o, out, &d) == OXP_OK, "%s", d.message);
  ck_assert_int_eq(count_files(), 2); /* m.onnx, m.onnx.data: no temporaries */

  Onnx__ModelProto *m = load(out);
  size_t dlen;
  unsigned char *data = slurp(path_in("m.onnx.data"), &dlen);
  const Onnx__TensorProto *tiny = init_named(m, "tiny");
  ck_assert(tiny->has_raw_data);
  ck_assert_int_eq(tiny->raw_data.len, 100);
  ck_assert_int_eq(tiny->n_external_data, 0);

  uint64_t end = 0;
  const char *names[] = {"mid", "big", "mid2", "mid3"};
  const uint64_t align[] = {64, 65536, 64, 64};
  uint64_t prev_end = 0;
  for (int i = 0; i < 4; i++) {
    const Onnx__TensorProto *t = init_named(m, names[i]);
    ck_assert(t->has_data_location);
    ck_assert_int_eq(t->data_location, ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL);
    ck_assert(!t->has_raw_data || t->raw_data.len == 0);
    /* the order onnx writes them in */
    ck_assert_str_eq(t->external_data[0]->key, "location");
    ck_assert_str_eq(t->external_data[1]->key, "offset");
    ck_assert_str_eq(t->external_data[2]->key, "length");
    ck_assert_str_eq(ext_get(t, "location"), "m.onnx.data");
    uint64_t off = strtoull(ext_get(t, "offset"), NULL, 10);
    uint64_t len = strtoull(ext_get(t, "length"), NULL, 10);
    const oxp_tensor *src = NULL;
    for (int k = 0; k < 5; k++)
      if (strcmp(ws[k]->name, names[i]) == 0) src = ws[k]->init;
    ck_assert_uint_eq(len, src->nbytes);
    ck_assert_uint_eq(off % align[i], 0);
    ck_assert_uint_ge(off, prev_end);            /* in order, no overlap */
    ck_assert_uint_lt(off - prev_end, align[i]); /* and no wasted block */
    ck_assert_uint_le(off + len, dlen);
    ck_assert(memcmp(data + off, src->data, len) == 0);
    prev_end = end = off + len;
  }
  ck_assert_uint_eq(dlen, end); /* the file ends where the last tensor does */
  free(data);
  onnx__model_proto__free_unpacked(m, NULL);
}
END_TEST

START_TEST(file_mode_layout_thresholds_configurable) {
  oxp_value *ws[1] = {weight("w", 100, 1)}; /* 400 bytes */
  sum_graph(ws, 1);
  oxp_options o = opts(OXP_EXT_FILE);
  oxp_ext_layout l;
  oxp_ext_layout_default(&l);
  l.inline_below = 16;
  l.align_from = 256;
  l.align = 4096;
  oxp_diag d = {0};
  ck_assert(oxp_write_file_ex(G, &o, path_in("m.onnx"), &l, NULL, &d) == OXP_OK);
  Onnx__ModelProto *m = load(path_in("m.onnx"));
  const Onnx__TensorProto *t = init_named(m, "w");
  ck_assert_str_eq(ext_get(t, "offset"), "0");
  ck_assert_str_eq(ext_get(t, "length"), "400");
  onnx__model_proto__free_unpacked(m, NULL);
}
END_TEST

START_TEST(file_mode_nothing_big_writes_no_data_file) {
  oxp_value *ws[1] = {weight("w", 8, 1)};
  sum_graph(ws, 1);
  oxp_options o = opts(OXP_EXT_FILE);
  oxp_diag d = {0};
  ck_assert(oxp_write_file(G, &o, path_in("m.onnx"), &d) == OXP_OK);
  ck_assert_int_eq(count_files(), 1);
}
END_TEST

START_TEST(file_mode_data_name) {
  oxp_value *ws[1] = {weight("w", 4096, 1)};
  sum_graph(ws, 1);
  oxp_options o = opts(OXP_EXT_FILE);
  o.external_data_name = "weights.bin";
  oxp_diag d = {0};
  ck_assert(oxp_write_file(G, &o, path_in("m.onnx"), &d) == OXP_OK);
  struct stat sb;
  ck_assert_int_eq(stat(path_in("weights.bin"), &sb), 0);
  ck_assert_int_eq(sb.st_size, 4096 * 4);
  Onnx__ModelProto *m = load(path_in("m.onnx"));
  ck_assert_str_eq(ext_get(init_named(m, "w"), "location"), "weights.bin");
  onnx__model_proto__free_unpacked(m, NULL);
}
END_TEST

START_TEST(file_mode_rejects_bad_data_names) {
  oxp_value *ws[1] = {weight("w", 4096, 1)};
  sum_graph(ws, 1);
  const char *bad[] = {"sub/x.data", "..", "", "m.onnx"};
  for (int i = 0; i < 4; i++) {
    oxp_options o = opts(OXP_EXT_FILE);
    o.external_data_name = bad[i];
    oxp_diag d = {0};
    oxp_status st = oxp_write_file(G, &o, path_in("m.onnx"), &d);
    if (!*bad[i]) { /* "" means the default name */
      ck_assert_int_eq(st, OXP_OK);
      continue;
    }
    ck_assert_msg(st == OXP_ERR_USAGE, "%s: %d", bad[i], st);
    ck_assert_ptr_nonnull(strstr(d.message, bad[i]));
  }
}
END_TEST

/* A tensor whose shape disagrees with its bytes fails after other tensors
 * were already written to the data file: neither file may appear, and old
 * ones must survive untouched. */
START_TEST(file_mode_failure_leaves_neither_file) {
  oxp_value *ws[2] = {weight("a", 4096, 1), weight("b", 4096, 2)};
  sum_graph(ws, 2);
  ws[1]->init->nbytes -= 4;
  spit(path_in("m.onnx"), "old model", 9);
  spit(path_in("m.onnx.data"), "old data", 8);
  oxp_options o = opts(OXP_EXT_FILE);
  oxp_diag d = {0};
  ck_assert_int_ne(oxp_write_file(G, &o, path_in("m.onnx"), &d), OXP_OK);
  ck_assert_int_eq(count_files(), 2);
  size_t n;
  unsigned char *b = slurp(path_in("m.onnx"), &n);
  ck_assert(n == 9 && memcmp(b, "old model", 9) == 0);
  free(b);
  b = slurp(path_in("m.onnx.data"), &n);
  ck_assert(n == 8 && memcmp(b, "old data", 8) == 0);
  free(b);
}
END_TEST

/* The model's own rename fails (its target is a directory) after the data
 * file was swapped in: the swap is undone, the old data file is back, and
 * no temporary is left. */
START_TEST(file_mode_model_rename_failure_restores_data) {
  oxp_value *ws[1] = {weight("a", 4096, 1)};
  sum_graph(ws, 1);
  ck_assert_int_eq(mkdir(path_in("m.onnx"), 0755), 0);
  spit(path_in("m.onnx/keep"), "x", 1); /* non-empty: rename cannot replace */
  spit(path_in("m.onnx.data"), "old data", 8);
  oxp_options o = opts(OXP_EXT_FILE);
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_write_file(G, &o, path_in("m.onnx"), &d), OXP_ERR_IO);
  ck_assert_ptr_nonnull(strstr(d.message, "m.onnx"));
  ck_assert_int_eq(count_files(), 2);
  size_t n;
  unsigned char *b = slurp(path_in("m.onnx.data"), &n);
  ck_assert(n == 8 && memcmp(b, "old data", 8) == 0);
  free(b);
  remove(path_in("m.onnx/keep"));
}
END_TEST

START_TEST(file_mode_replaces_both_files) {
  oxp_value *ws[1] = {weight("a", 4096, 1)};
  sum_graph(ws, 1);
  spit(path_in("m.onnx"), "old model", 9);
  spit(path_in("m.onnx.data"), "old data", 8);
  oxp_options o = opts(OXP_EXT_FILE);
  oxp_diag d = {0};
  ck_assert(oxp_write_file(G, &o, path_in("m.onnx"), &d) == OXP_OK);
  ck_assert_int_eq(count_files(), 2);
  struct stat sb;
  stat(path_in("m.onnx.data"), &sb);
  ck_assert_int_eq(sb.st_size, 4096 * 4);
  ck_assert_int_eq(sb.st_mode & 0777, 0666 & ~(mode_t)umask(022));
}
END_TEST

START_TEST(buffer_output_refuses_external_data) {
  oxp_value *ws[1] = {weight("a", 4096, 1)};
  sum_graph(ws, 1);
  oxp_options o = opts(OXP_EXT_FILE);
  unsigned char *buf;
  size_t len;
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_write_buffer(G, &o, &buf, &len, &d), OXP_ERR_USAGE);
  ck_assert_ptr_null(buf);
}
END_TEST

static char WARNED[512];
static void capture(void *user, const char *msg) {
  (void)user;
  snprintf(WARNED, sizeof WARNED, "%s", msg);
}

START_TEST(inline_past_limit_goes_external_with_a_note) {
  oxp_value *ws[2] = {weight("a", 4096, 1), weight("b", 4096, 2)};
  sum_graph(ws, 2);
  oxp_options o = opts(OXP_EXT_NONE);
  o.warn = capture;
  WARNED[0] = 0;
  oxp_ext_layout l;
  oxp_ext_layout_default(&l);
  l.proto_limit = 20000; /* the model is ~33 KB inline */
  oxp_diag d = {0};
  ck_assert(oxp_write_file_ex(G, &o, path_in("m.onnx"), &l, NULL, &d) == OXP_OK);
  ck_assert_ptr_nonnull(strstr(WARNED, "external data"));
  ck_assert_ptr_nonnull(strstr(WARNED, "m.onnx.data"));
  Onnx__ModelProto *m = load(path_in("m.onnx"));
  ck_assert_str_eq(ext_get(init_named(m, "a"), "location"), "m.onnx.data");
  ck_assert_str_eq(ext_get(init_named(m, "b"), "offset"), "16384");
  onnx__model_proto__free_unpacked(m, NULL);
  /* under the limit nothing changes */
  WARNED[0] = 0;
  ck_assert(oxp_write_file(G, &o, path_in("n.onnx"), &d) == OXP_OK);
  ck_assert_int_eq(WARNED[0], 0);
  m = load(path_in("n.onnx"));
  ck_assert(init_named(m, "a")->has_raw_data);
  onnx__model_proto__free_unpacked(m, NULL);
}
END_TEST

/* The data file the limit forces is only known once the model is built,
 * so the writer itself must refuse one that is an input (here the
 * weights, hard-linked under the default data name): nothing written, no
 * temporary left, the input untouched. The model over an input is refused
 * before its temporary exists. */
START_TEST(writer_refuses_outputs_that_are_inputs) {
  oxp_value *ws[2] = {weight("a", 4096, 1), weight("b", 4096, 2)};
  sum_graph(ws, 2);
  spit(path_in("w.safetensors"), "weights", 7);
  ck_assert_int_eq(link(path_in("w.safetensors"), path_in("m.onnx.data")), 0);
  oxp_options o = opts(OXP_EXT_NONE);
  o.weights_path = path_in("w.safetensors");
  oxp_ext_layout l;
  oxp_ext_layout_default(&l);
  l.proto_limit = 20000; /* the model is ~33 KB inline */
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_write_file_ex(G, &o, path_in("m.onnx"), &l, NULL, &d),
                   OXP_ERR_USAGE);
  ck_assert_msg(strstr(d.message, path_in("m.onnx.data")) &&
                    strstr(d.message, path_in("w.safetensors")),
                "%s", d.message);
  ck_assert_int_eq(access(path_in("m.onnx"), F_OK), -1);
  o.ir_path = path_in("m.ir");
  spit(o.ir_path, "graph", 5);
  d = (oxp_diag){0};
  ck_assert_int_eq(oxp_write_file(G, &o, o.ir_path, &d), OXP_ERR_USAGE);
  ck_assert_ptr_nonnull(strstr(d.message, "the IR"));
  ck_assert_int_eq(count_files(), 3); /* w, its link, m.ir: no temporary */
  size_t n;
  unsigned char *b = slurp(path_in("m.onnx.data"), &n);
  ck_assert(n == 7 && memcmp(b, "weights", 7) == 0);
  free(b);
  b = slurp(o.ir_path, &n);
  ck_assert(n == 5 && memcmp(b, "graph", 5) == 0);
  free(b);
}
END_TEST

/* ---- reference mode ------------------------------------------------------- */

/* A real safetensors file in DIR_/sub/, opened (mmap) as the CLI does. */
static oxp_safetensors *sidecar(const char *name, float *vals, int n) {
  char json[256];
  snprintf(json, sizeof json,
           "{\"w\":{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[0,%d]}}",
           n, n * 4);
  size_t len;
  unsigned char *b = st_build(json, vals, (size_t)n * 4, &len);
  mkdir(path_in("sub"), 0755);
  const char *p = path_in(name);
  spit(p, b, len);
  free(b);
  oxp_safetensors *st;
  oxp_diag d = {0};
  ck_assert_msg(oxp_st_open(A, p, &st, &d) == OXP_OK, "%s", d.message);
  return st;
}

START_TEST(reference_mode_points_into_sidecar) {
  float vals[2048];
  for (int i = 0; i < 2048; i++) vals[i] = (float)i;
  oxp_safetensors *st = sidecar("sub/w.safetensors", vals, 2048);
  const oxp_st_entry *e = oxp_st_find(st, "w");
  int64_t n = 2048;
  oxp_value *w = oxp_block_add_input(G->top, "w", oxp_type_tensor(A, OXP_DT_FLOAT, 1, &n));
  w->init = oxp_tensor_new(A, OXP_DT_FLOAT, 1, &n, e->t.data, e->t.nbytes);
  w->init->src_path = e->t.src_path;
  w->init->src_offset = e->t.src_offset;
  /* a constant made during export: memory only, stays inline */
  oxp_value *c = weight("made", 2048, 1);
  oxp_value *ws[2] = {w, c};
  sum_graph(ws, 2);

  oxp_options o = opts(OXP_EXT_REFERENCE);
  oxp_diag d = {0};
  ck_assert_msg(oxp_write_file(G, &o, path_in("m.onnx"), &d) == OXP_OK, "%s", d.message);
  ck_assert_int_eq(count_files(), 2); /* m.onnx and sub/: no data file */
  Onnx__ModelProto *m = load(path_in("m.onnx"));
  const Onnx__TensorProto *t = init_named(m, "w");
  ck_assert_str_eq(ext_get(t, "location"), "sub/w.safetensors");
  uint64_t off = strtoull(ext_get(t, "offset"), NULL, 10);
  ck_assert_uint_eq(off, e->t.src_offset);
  ck_assert_uint_eq(off, 8 + st->header_len);
  /* the bytes at that offset are the tensor */
  size_t flen;
  unsigned char *f = slurp(path_in("sub/w.safetensors"), &flen);
  ck_assert(memcmp(f + off, vals, sizeof vals) == 0);
  free(f);
  ck_assert(init_named(m, "made")->has_raw_data);
  onnx__model_proto__free_unpacked(m, NULL);
  oxp_st_close(st);
}
END_TEST

/* src_path and src_offset are only a claim: a tensor whose data is not
 * those bytes (a pass rewrote it, or the offset is off) stays inline. */
START_TEST(reference_mode_ignores_stale_source) {
  float vals[1024] = {0};
  oxp_safetensors *st = sidecar("sub/w.safetensors", vals, 1024);
  const oxp_st_entry *e = oxp_st_find(st, "w");
  oxp_value *a = weight("copied", 1024, 1); /* data in the arena */
  a->init->src_path = e->t.src_path;
  a->init->src_offset = e->t.src_offset;
  int64_t n = 1024;
  oxp_value *b = oxp_block_add_input(G->top, "shifted", oxp_type_tensor(A, OXP_DT_FLOAT, 1, &n));
  b->init = oxp_tensor_new(A, OXP_DT_FLOAT, 1, &n, e->t.data, e->t.nbytes);
  b->init->src_path = e->t.src_path;
  b->init->src_offset = e->t.src_offset + 4;
  oxp_value *ws[2] = {a, b};
  sum_graph(ws, 2);
  oxp_options o = opts(OXP_EXT_REFERENCE);
  oxp_diag d = {0};
  ck_assert(oxp_write_file(G, &o, path_in("m.onnx"), &d) == OXP_OK);
  Onnx__ModelProto *m = load(path_in("m.onnx"));
  ck_assert(init_named(m, "copied")->has_raw_data);
  ck_assert(init_named(m, "shifted")->has_raw_data);
  onnx__model_proto__free_unpacked(m, NULL);
  oxp_st_close(st);
}
END_TEST

START_TEST(reference_mode_sidecar_outside_model_dir) {
  float vals[1024] = {1};
  oxp_safetensors *st = sidecar("sub/w.safetensors", vals, 1024);
  const oxp_st_entry *e = oxp_st_find(st, "w");
  int64_t n = 1024;
  oxp_value *w = oxp_block_add_input(G->top, "w", oxp_type_tensor(A, OXP_DT_FLOAT, 1, &n));
  w->init = oxp_tensor_new(A, OXP_DT_FLOAT, 1, &n, e->t.data, e->t.nbytes);
  w->init->src_path = e->t.src_path;
  w->init->src_offset = e->t.src_offset;
  oxp_value *ws[1] = {w};
  sum_graph(ws, 1);
  mkdir(path_in("models"), 0755);
  oxp_options o = opts(OXP_EXT_REFERENCE);
  oxp_diag d = {0};
  ck_assert(oxp_write_file(G, &o, path_in("models/m.onnx"), &d) == OXP_OK);
  Onnx__ModelProto *m = load(path_in("models/m.onnx"));
  ck_assert_str_eq(ext_get(init_named(m, "w"), "location"), "../sub/w.safetensors");
  onnx__model_proto__free_unpacked(m, NULL);
  remove(path_in("models/m.onnx"));
  oxp_st_close(st);
}
END_TEST

START_TEST(relative_paths) {
  ck_assert_str_eq(oxp_relative_path(A, "/a/b", "/a/b/c.st"), "c.st");
  ck_assert_str_eq(oxp_relative_path(A, "/a/b", "/a/b/x/c.st"), "x/c.st");
  ck_assert_str_eq(oxp_relative_path(A, "/a/b", "/a/c.st"), "../c.st");
  ck_assert_str_eq(oxp_relative_path(A, "/a/b", "/x/y/c.st"), "../../x/y/c.st");
  ck_assert_str_eq(oxp_relative_path(A, "/", "/x/c.st"), "x/c.st");
  /* a shared prefix is not a shared component */
  ck_assert_str_eq(oxp_relative_path(A, "/a/bc", "/a/b/c.st"), "../b/c.st");
}
END_TEST

/* ---- lazy folded transposes ---------------------------------------------- */

static bool same_file(const char *a, const char *b) {
  size_t la, lb;
  unsigned char *x = slurp(a, &la), *y = slurp(b, &lb);
  bool eq = la == lb && memcmp(x, y, la) == 0;
  free(x);
  free(y);
  return eq;
}

/* The ONNX passes of the pipeline (pipeline.c) that apply to a graph
 * built already lowered, in the pipeline's order. */
static oxp_status onnx_passes(oxp_graph *g, const oxp_options *o, oxp_diag *d) {
  oxp_pass p;
  oxp_status st;
  if ((st = oxp_pass_init(&p, g, o, d)) || (st = oxp_onnx_dce(&p)) ||
      (st = oxp_shape_infer(&p)) || (st = oxp_onnx_peephole(&p)) ||
      (st = oxp_const_fold(&p)) || (st = oxp_onnx_dce(&p)) ||
      (st = oxp_shape_infer(&p)) || (st = oxp_onnx_peephole(&p)) ||
      (st = oxp_broadcast_fix(&p)) || (st = oxp_onnx_dce(&p)) ||
      (st = oxp_dedup_inits(&p)) || (st = oxp_onnx_cse(&p)) ||
      (st = oxp_onnx_dce(&p)))
    return st;
  return oxp_shape_infer(&p);
}

/* Linear on a 3-D input: MatMul(x, Transpose(w)) with w mapped from a
 * sidecar, twice (two Linears sharing a weight). The folded transposes
 * stay recipes (no copy in the arena, before or while writing), the dedup
 * finds them equal, and both writers produce exactly the bytes of the
 * same graph with the transpose made eagerly. */
START_TEST(lazy_transpose_of_mapped_weight) {
  enum { R = 1024, C = 520 }; /* 2.1 MB: past the size folding copies at */
  float *vals = malloc(sizeof(float) * R * C), *want = malloc(sizeof(float) * R * C);
  for (int i = 0; i < R * C; i++) vals[i] = (float)i;
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) want[j * R + i] = vals[i * C + j];
  oxp_safetensors *st = sidecar("sub/w.safetensors", vals, R * C);
  const oxp_st_entry *e = oxp_st_find(st, "w");
  const int64_t wd[] = {R, C}, xd[] = {2, 3, C}, perm[] = {1, 0};
  oxp_value *w = oxp_block_add_input(G->top, "w", oxp_type_tensor(A, OXP_DT_FLOAT, 2, wd));
  w->init = oxp_tensor_new(A, OXP_DT_FLOAT, 2, wd, e->t.data, e->t.nbytes);
  w->init->src_path = e->t.src_path;
  w->init->src_offset = e->t.src_offset;
  oxp_value *x = oxp_block_add_input(G->top, "x", oxp_type_tensor(A, OXP_DT_FLOAT, 3, xd));
  oxp_node *mm[2];
  for (int k = 0; k < 2; k++) {
    oxp_node *t = oxp_node_new(G, "onnx::Transpose", 1);
    oxp_node_add_input(t, w);
    oxp_attr_set_ints(t, "perm", perm, 2);
    oxp_block_append(G->top, t);
    mm[k] = oxp_node_new(G, "onnx::MatMul", 1);
    oxp_node_add_input(mm[k], x);
    oxp_node_add_input(mm[k], t->outputs[0]);
    oxp_block_append(G->top, mm[k]);
    mm[k]->outputs[0]->name = k ? "y1" : "y0";
    oxp_block_add_output(G->top, mm[k]->outputs[0]);
  }
  oxp_options o = opts(OXP_EXT_NONE);
  oxp_diag d = {0};
  size_t before = oxp_arena_bytes(A);
  ck_assert_msg(onnx_passes(G, &o, &d) == OXP_OK, "%s", d.message);
  ck_assert_ptr_eq(mm[0]->inputs[1], mm[1]->inputs[1]); /* deduplicated */
  const oxp_tensor *t = mm[0]->inputs[1]->init;
  ck_assert_ptr_nonnull(t);
  ck_assert_int_eq(t->dims[0], C);
  ck_assert(oxp_tensor_is_lazy(t));
  ck_assert(oxp_tensor_get_f(t, 1) == want[1]);
  ck_assert_msg(oxp_write_file(G, &o, path_in("l.onnx"), &d) == OXP_OK, "%s", d.message);
  o.external_data = OXP_EXT_FILE;
  ck_assert_msg(oxp_write_file(G, &o, path_in("f.onnx"), &d) == OXP_OK, "%s", d.message);
  ck_assert(oxp_tensor_is_lazy(t));
  ck_assert_uint_lt(oxp_arena_bytes(A) - before, t->nbytes / 2);

  Onnx__ModelProto *m = load(path_in("l.onnx"));
  const Onnx__TensorProto *tp = m->graph->initializer[m->graph->n_initializer - 1];
  ck_assert_uint_eq(tp->raw_data.len, sizeof(float) * R * C);
  ck_assert(memcmp(tp->raw_data.data, want, tp->raw_data.len) == 0);
  onnx__model_proto__free_unpacked(m, NULL);

  ck_assert_ptr_nonnull(oxp_tensor_data(t)); /* eager from here on */
  ck_assert(!oxp_tensor_is_lazy(t));
  ck_assert(memcmp(t->data, want, t->nbytes) == 0);
  ck_assert(oxp_write_file(G, &o, path_in("fe.onnx"), &d) == OXP_OK);
  o.external_data = OXP_EXT_NONE;
  ck_assert(oxp_write_file(G, &o, path_in("le.onnx"), &d) == OXP_OK);
  ck_assert(same_file(path_in("l.onnx"), path_in("le.onnx")));
  ck_assert(same_file(path_in("f.onnx.data"), path_in("fe.onnx.data")));
  oxp_st_close(st);
  free(vals);
  free(want);
}
END_TEST

/* ---- the mapping table ---------------------------------------------------- */

START_TEST(fmap_tells_file_bytes_from_memory) {
  const char *p = path_in("f.bin");
  unsigned char buf[3 * 4096];
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(i * 7);
  spit(p, buf, sizeof buf);
  int fd = open(p, O_RDONLY);
  unsigned char *map = mmap(NULL, sizeof buf, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  ck_assert(map != MAP_FAILED);
  oxp_fmap *fm = oxp_fmap_load(A);
  ck_assert(oxp_fmap_available(fm));
  uint64_t off;
  int ffd;
  const char *path;
  ck_assert(oxp_fmap_lookup(fm, map + 100, 5000, &ffd, &off, &path));
  ck_assert_uint_eq(off, 100);
  ck_assert(oxp_fmap_same_file(fm, map, 10, p));
  ck_assert(!oxp_fmap_lookup(fm, map + 100, sizeof buf, NULL, NULL, NULL));
  ck_assert(!oxp_fmap_lookup(fm, buf, 10, NULL, NULL, NULL));
  void *heap = malloc(1 << 20);
  ck_assert(!oxp_fmap_lookup(fm, heap, 100, NULL, NULL, NULL));

  /* released pages are re-read from the file, never lost */
  oxp_fmap_release(fm, map, sizeof buf);
  ck_assert(memcmp(map, buf, sizeof buf) == 0);

  /* copies come out byte-identical whichever path they take */
  const char *q = path_in("g.bin");
  int out = open(q, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  off_t at = 10;
  ck_assert(oxp_fmap_copy(fm, out, &at, map + 5, 9000, NULL, "g", NULL) == OXP_OK);
  ck_assert_int_eq(at, 9010);
  ck_assert(oxp_fmap_copy(fm, out, &at, buf, 100, NULL, "g", NULL) == OXP_OK);
  close(out);
  size_t n;
  unsigned char *g = slurp(q, &n);
  ck_assert_int_eq(n, 9110);
  ck_assert(memcmp(g + 10, buf + 5, 9000) == 0);
  ck_assert(memcmp(g + 9010, buf, 100) == 0);
  free(g);
  free(heap);
  oxp_fmap_close(fm);
  munmap(map, sizeof buf);
}
END_TEST

/* A private mapping written to (copy on write) is memory, not the file. */
START_TEST(fmap_rejects_modified_private_mapping) {
  const char *p = path_in("f.bin");
  unsigned char buf[4096] = {1};
  spit(p, buf, sizeof buf);
  int fd = open(p, O_RDONLY);
  unsigned char *map = mmap(NULL, sizeof buf, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  close(fd);
  map[0] = 9;
  mprotect(map, sizeof buf, PROT_READ);
  oxp_fmap *fm = oxp_fmap_load(A);
  ck_assert(!oxp_fmap_lookup(fm, map, 16, NULL, NULL, NULL));
  oxp_fmap_close(fm);
  munmap(map, sizeof buf);
}
END_TEST

/* ---- progress --------------------------------------------------------------- */

START_TEST(progress_line_format) {
  char b[160];
  oxp_progress_format("write", 1 << 20, 2 << 20, 1.5, b, sizeof b);
  ck_assert_str_eq(b, "onnxexp: write 1.0 MiB / 2.0 MiB (50%) 1.5s");
  oxp_progress_format("export", 0, 0, 2.25, b, sizeof b);
  ck_assert_str_eq(b, "onnxexp: export 2.2s");
  oxp_progress_format("write", 3ull << 30, 3ull << 30, 10, b, sizeof b);
  ck_assert_str_eq(b, "onnxexp: write 3.0 GiB / 3.0 GiB (100%) 10.0s");
}
END_TEST

static int EMITS;
static void count_emit(void *user, const char *text) {
  (void)user;
  (void)text;
  EMITS++;
}

/* Quick exports print nothing: the line waits for the first second. */
START_TEST(progress_silent_when_quick) {
  EMITS = 0;
  oxp_progress *p = oxp_progress_new(count_emit, NULL);
  oxp_progress_stage(p, "write");
  oxp_progress_add(p, 100);
  usleep(300 * 1000);
  oxp_progress_free(p);
  ck_assert_int_eq(EMITS, 0);
  /* and everything accepts NULL: the display switched off */
  oxp_progress_stage(NULL, "x");
  oxp_progress_add(NULL, 1);
  oxp_progress_free(NULL);
}
END_TEST

START_TEST(progress_draws_after_a_second_and_clears) {
  EMITS = 0;
  oxp_progress *p = oxp_progress_new(count_emit, NULL);
  oxp_progress_stage(p, "write");
  usleep(1400 * 1000);
  oxp_progress_free(p);
  ck_assert_int_ge(EMITS, 2); /* at least one line and the clear */
}
END_TEST

Suite *external_suite(void) {
  Suite *s = suite_create("external");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, file_mode_layout_offsets_alignment);
  tcase_add_test(tc, file_mode_layout_thresholds_configurable);
  tcase_add_test(tc, file_mode_nothing_big_writes_no_data_file);
  tcase_add_test(tc, file_mode_data_name);
  tcase_add_test(tc, file_mode_rejects_bad_data_names);
  tcase_add_test(tc, file_mode_failure_leaves_neither_file);
  tcase_add_test(tc, file_mode_model_rename_failure_restores_data);
  tcase_add_test(tc, file_mode_replaces_both_files);
  tcase_add_test(tc, buffer_output_refuses_external_data);
  tcase_add_test(tc, inline_past_limit_goes_external_with_a_note);
  tcase_add_test(tc, writer_refuses_outputs_that_are_inputs);
  tcase_add_test(tc, reference_mode_points_into_sidecar);
  tcase_add_test(tc, reference_mode_ignores_stale_source);
  tcase_add_test(tc, reference_mode_sidecar_outside_model_dir);
  tcase_add_test(tc, relative_paths);
  tcase_add_test(tc, lazy_transpose_of_mapped_weight);
  tcase_add_test(tc, fmap_tells_file_bytes_from_memory);
  tcase_add_test(tc, fmap_rejects_modified_private_mapping);
  tcase_add_test(tc, progress_line_format);
  tcase_add_test(tc, progress_silent_when_quick);
  tcase_add_test(tc, progress_draws_after_a_second_and_clears);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return oxp_check_run(external_suite());
}
