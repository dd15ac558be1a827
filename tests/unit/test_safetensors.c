/* test_safetensors.c: the weights loader and its JSON reader. Files are
 * written into a fresh temp directory by each test, so every case states
 * its exact bytes. */
#include <check.h>
#include "check_main.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oxp.h"
#include "st_build.h"

static char dir[64];
static oxp_arena *A;

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/oxp_st_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  A = oxp_arena_new();
}

static void teardown(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
  oxp_arena_free(A);
}

static const char *write_raw(const char *name, const void *b, size_t n) {
  char *path = oxp_sprintf(A, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(b, 1, n, f), n);
  fclose(f);
  return path;
}

static const char *write_st(const char *name, const char *json,
                            const void *data, size_t dlen) {
  size_t n;
  unsigned char *b = st_build(json, data, dlen, &n);
  const char *p = write_raw(name, b, n);
  free(b);
  return p;
}

/* Opens a file made of json + data and expects failure with status st and
 * a message containing want; the diagnostic must name the file. */
static void expect_error(const char *json, const void *data, size_t dlen,
                         oxp_status st, const char *want) {
  const char *path = write_st("bad.safetensors", json, data, dlen);
  oxp_safetensors *s = (void *)1;
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_st_open(A, path, &s, &d), st);
  ck_assert_ptr_null(s);
  ck_assert_int_eq(d.status, st);
  ck_assert_str_eq(d.file, path);
  ck_assert_int_eq(d.line, 0);
  ck_assert_msg(strstr(d.message, want), "message '%s' lacks '%s'",
                d.message, want);
}

static oxp_safetensors *open_ok(const char *path) {
  oxp_safetensors *s = NULL;
  oxp_diag d = {0};
  oxp_status r = oxp_st_open(A, path, &s, &d);
  ck_assert_msg(r == OXP_OK, "open failed: %s", d.message);
  ck_assert_ptr_nonnull(s);
  return s;
}

static const struct {
  const char *name;
  int dt;
  size_t size;
} DTS[] = {
    {"F64", OXP_DT_DOUBLE, 8},   {"F32", OXP_DT_FLOAT, 4},
    {"F16", OXP_DT_FLOAT16, 2},  {"BF16", OXP_DT_BFLOAT16, 2},
    {"I64", OXP_DT_INT64, 8},    {"I32", OXP_DT_INT32, 4},
    {"I16", OXP_DT_INT16, 2},    {"I8", OXP_DT_INT8, 1},
    {"U8", OXP_DT_UINT8, 1},     {"BOOL", OXP_DT_BOOL, 1},
    {"U16", OXP_DT_UINT16, 2},   {"U32", OXP_DT_UINT32, 4},
    {"U64", OXP_DT_UINT64, 8},   {"F8_E4M3", OXP_DT_FLOAT8E4M3FN, 1},
    {"F8_E5M2", OXP_DT_FLOAT8E5M2, 1},
};
enum { NDTS = sizeof DTS / sizeof DTS[0] };

START_TEST(st_reads_every_dtype) {
  char json[4096];
  unsigned char data[256];
  size_t at = 0, off = 0;
  at += (size_t)snprintf(json + at, sizeof json - at, "{");
  for (int i = 0; i < NDTS; i++) {
    size_t nb = 2 * DTS[i].size;
    for (size_t k = 0; k < nb; k++) data[off + k] = (unsigned char)(i * 16 + k);
    at += (size_t)snprintf(json + at, sizeof json - at,
                           "%s\"t_%s\": {\"dtype\": \"%s\", \"shape\": [2], "
                           "\"data_offsets\": [%zu, %zu]}",
                           i ? ", " : "", DTS[i].name, DTS[i].name, off,
                           off + nb);
    off += nb;
  }
  snprintf(json + at, sizeof json - at, "}");
  const char *path = write_st("all.safetensors", json, data, off);
  oxp_safetensors *s = open_ok(path);
  ck_assert_int_eq(s->nentries, NDTS);
  ck_assert_uint_eq(s->header_len, strlen(json));
  size_t expect_off = 0;
  for (int i = 0; i < NDTS; i++) {
    char name[32];
    snprintf(name, sizeof name, "t_%s", DTS[i].name);
    const oxp_st_entry *e = oxp_st_find(s, name);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_eq(e, &s->entries[i]); /* header order is kept */
    ck_assert_str_eq(e->name, name);
    ck_assert_int_eq(e->t.dtype, DTS[i].dt);
    ck_assert_int_eq(e->t.rank, 1);
    ck_assert_int_eq(e->t.dims[0], 2);
    ck_assert_uint_eq(e->t.nbytes, 2 * DTS[i].size);
    ck_assert_str_eq(e->t.src_path, path);
    ck_assert_uint_eq(e->t.src_offset, 8 + strlen(json) + expect_off);
    ck_assert_ptr_eq(e->t.data,
                     (unsigned char *)s->map + e->t.src_offset);
    ck_assert_int_eq(memcmp(e->t.data, data + expect_off, e->t.nbytes), 0);
    expect_off += e->t.nbytes;
  }
  ck_assert_ptr_null(oxp_st_find(s, "t_X"));
  ck_assert_ptr_null(oxp_st_find(NULL, "t_F32"));
  oxp_st_close(s);
  ck_assert_ptr_null(s->map);
  oxp_st_close(s); /* a second close is harmless */
}
END_TEST

START_TEST(st_reads_scalar_and_empty) {
  float v = 2.5f;
  const char *path = write_st(
      "se.safetensors",
      "{\"s\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]},"
      "\"e\":{\"dtype\":\"I64\",\"shape\":[0,3],\"data_offsets\":[4,4]},"
      "\"z\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}}",
      &v, 4);
  oxp_safetensors *s = open_ok(path);
  ck_assert_int_eq(s->nentries, 3);
  const oxp_st_entry *sc = oxp_st_find(s, "s");
  ck_assert_int_eq(sc->t.rank, 0);
  ck_assert_int_eq(oxp_tensor_numel(&sc->t), 1);
  ck_assert_double_eq(oxp_tensor_get_f(&sc->t, 0), 2.5);
  const oxp_st_entry *e = oxp_st_find(s, "e");
  ck_assert_int_eq(e->t.rank, 2);
  ck_assert_int_eq(e->t.dims[0], 0);
  ck_assert_int_eq(e->t.dims[1], 3);
  ck_assert_uint_eq(e->t.nbytes, 0);
  ck_assert_uint_eq(oxp_st_find(s, "z")->t.nbytes, 0);
  oxp_st_close(s);
}
END_TEST

/* The plain form (keys in another order, blanks between tokens) is read
 * without a JSON tree (st_scan.c); an escape or an extra key leaves the
 * header to the JSON reader. Both give the same entries. */
START_TEST(st_plain_and_json_forms_agree) {
  float v[3] = {1, 2, 3};
  const char *plain =
      "{\"a\":{\"shape\":[2],\"data_offsets\":[0,8],\"dtype\":\"F32\"},\n"
      " \"b\" : { \"dtype\" : \"F32\" , \"shape\" : [ ] , \"data_offsets\" : [ 8 , 12 ] } }";
  const char *json =
      "{\"\\u0061\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"x\":\"y\"},"
      "\"b\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[8,12]}}";
  oxp_safetensors *p = open_ok(write_st("plain.safetensors", plain, v, sizeof v));
  oxp_safetensors *j = open_ok(write_st("json.safetensors", json, v, sizeof v));
  ck_assert_int_eq(p->nentries, 2);
  ck_assert_int_eq(j->nentries, 2);
  for (int i = 0; i < 2; i++) {
    const char *name = i ? "b" : "a";
    const oxp_st_entry *x = oxp_st_find(p, name), *y = oxp_st_find(j, name);
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(y);
    ck_assert_int_eq(x->t.dtype, y->t.dtype);
    ck_assert_int_eq(x->t.rank, y->t.rank);
    for (int k = 0; k < x->t.rank; k++) ck_assert_int_eq(x->t.dims[k], y->t.dims[k]);
    ck_assert_uint_eq(x->t.nbytes, y->t.nbytes);
    ck_assert_uint_eq(x->t.src_offset - 8 - p->header_len, y->t.src_offset - 8 - j->header_len);
    ck_assert_double_eq(oxp_tensor_get_f(&x->t, 0), oxp_tensor_get_f(&y->t, 0));
  }
  ck_assert_double_eq(oxp_tensor_get_f(&oxp_st_find(p, "b")->t, 0), 3);
  oxp_st_close(p);
  oxp_st_close(j);
}
END_TEST

START_TEST(st_file_with_no_tensors) {
  oxp_safetensors *s = open_ok(write_st("none.safetensors", "{}", NULL, 0));
  ck_assert_int_eq(s->nentries, 0);
  ck_assert_ptr_null(oxp_st_find(s, "x"));
  oxp_st_close(s);
}
END_TEST

START_TEST(st_skips_metadata) {
  unsigned char b[2] = {7, 9};
  /* Trailing spaces: the reference writer pads the header to 8 bytes. */
  oxp_safetensors *s = open_ok(write_st(
      "meta.safetensors",
      "{\"__metadata__\":{\"format\":\"pt\",\"note\":\"a\\\"b\"},"
      "\"w\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}   ",
      b, 2));
  ck_assert_int_eq(s->nentries, 1);
  ck_assert_ptr_null(oxp_st_find(s, "__metadata__"));
  ck_assert_int_eq(oxp_tensor_get_i(&oxp_st_find(s, "w")->t, 1), 9);
  oxp_st_close(s);
}
END_TEST

START_TEST(st_metadata_values_must_be_strings) {
  expect_error("{\"__metadata__\":{\"n\":3}}", NULL, 0, OXP_ERR_WEIGHTS,
               "\"__metadata__\" value for 'n' is not a string");
}
END_TEST

START_TEST(st_missing_file) {
  char *path = oxp_sprintf(A, "%s/nope.safetensors", dir);
  oxp_safetensors *s = (void *)1;
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_st_open(A, path, &s, &d), OXP_ERR_IO);
  ck_assert_ptr_null(s);
  ck_assert_str_eq(d.file, path);
  ck_assert_msg(strstr(d.message, strerror(ENOENT)), "%s", d.message);
  ck_assert_msg(strstr(d.message, "cannot open"), "%s", d.message);
}
END_TEST

START_TEST(st_directory_is_not_a_file) {
  oxp_safetensors *s = NULL;
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_st_open(A, dir, &s, &d), OXP_ERR_IO);
  ck_assert_str_eq(d.file, dir);
  ck_assert_ptr_nonnull(strstr(d.message, "not a regular file"));
}
END_TEST

START_TEST(st_shorter_than_8_bytes) {
  for (size_t n = 0; n < 8; n++) {
    oxp_safetensors *s = (void *)1;
    oxp_diag d = {0};
    const char *path = write_raw("short.safetensors", "\2\0\0\0\0\0\0", n);
    ck_assert_int_eq(oxp_st_open(A, path, &s, &d), OXP_ERR_WEIGHTS);
    ck_assert_ptr_null(s);
    ck_assert_str_eq(d.file, path);
    char want[64];
    snprintf(want, sizeof want, "file is %zu bytes, shorter than", n);
    ck_assert_msg(strstr(d.message, want), "%s", d.message);
  }
}
END_TEST

START_TEST(st_header_length_past_end) {
  unsigned char b[20] = {0xe8, 0x03}; /* 1000, but 12 bytes follow */
  const char *path = write_raw("long.safetensors", b, sizeof b);
  oxp_safetensors *s = NULL;
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_st_open(A, path, &s, &d), OXP_ERR_WEIGHTS);
  ck_assert_ptr_nonnull(
      strstr(d.message, "header length 1000 runs past the end of the file "
                        "(20 bytes)"));
}
END_TEST

START_TEST(st_header_length_absurd) {
  unsigned char b[16] = {0, 0, 0, 0, 0, 0, 0, 0x80}; /* 2^63 */
  oxp_safetensors *s = NULL;
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_st_open(A, write_raw("x.safetensors", b, 16), &s, &d),
                   OXP_ERR_WEIGHTS);
  ck_assert_ptr_nonnull(
      strstr(d.message, "header length 9223372036854775808 is absurd"));
}
END_TEST

START_TEST(st_bad_json_names_offset) {
  /* the key expected after the stray ',' is missing at header byte 14 */
  expect_error("{\"a\": {\"x\": 1,}}", NULL, 0, OXP_ERR_WEIGHTS,
               "invalid JSON header at byte 14 (file offset 22): "
               "expected a string key");
}
END_TEST

START_TEST(st_unknown_dtype) {
  expect_error("{\"w\":{\"dtype\":\"C64\",\"shape\":[1],"
               "\"data_offsets\":[0,8]}}",
               "12345678", 8, OXP_ERR_WEIGHTS,
               "tensor 'w' has unknown dtype 'C64'");
}
END_TEST

START_TEST(st_wrong_byte_count) {
  unsigned char b[20] = {0};
  expect_error("{\"w\":{\"dtype\":\"F32\",\"shape\":[2,3],"
               "\"data_offsets\":[0,20]}}",
               b, 20, OXP_ERR_WEIGHTS,
               "tensor 'w' has data_offsets [0, 20] (20 bytes) but its F32 "
               "shape [2, 3] needs 24 bytes");
}
END_TEST

START_TEST(st_shape_overflow) {
  expect_error("{\"w\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],"
               "\"data_offsets\":[0,0]}}",
               NULL, 0, OXP_ERR_WEIGHTS,
               "tensor 'w' has a shape whose size in bytes does not fit");
}
END_TEST

START_TEST(st_truncated_data) {
  unsigned char b[10] = {0};
  expect_error("{\"w\":{\"dtype\":\"F32\",\"shape\":[6],"
               "\"data_offsets\":[0,24]}}",
               b, 10, OXP_ERR_WEIGHTS,
               "tensor 'w' needs bytes up to offset 24 but the data section "
               "has only 10 bytes: file truncated");
}
END_TEST

START_TEST(st_duplicate_name) {
  unsigned char b[2] = {0};
  expect_error("{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
               "\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}",
               b, 2, OXP_ERR_WEIGHTS, "duplicate tensor name 'w'");
}
END_TEST

START_TEST(st_overlapping_tensors) {
  unsigned char b[8] = {0};
  expect_error("{\"a\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[0,4]},"
               "\"e\":{\"dtype\":\"I32\",\"shape\":[0],\"data_offsets\":[2,2]},"
               "\"b\":{\"dtype\":\"I16\",\"shape\":[2],\"data_offsets\":[2,6]}}",
               b, 8, OXP_ERR_WEIGHTS, "tensors 'a' and 'b' overlap");
}
END_TEST

/* Malformed headers and the message each must produce. */
static const struct {
  const char *json;
  const char *want;
} BAD[] = {
    {"", "at byte 0 (file offset 8): unexpected end of input"},
    {"[]", "header is not a JSON object"},
    {"{\"a\":{\"dtype\":\"U8\"", "unexpected end of input"},
    {"{\"a\" 1}", "at byte 5 (file offset 13): expected ':'"},
    {"{\"a\":1 \"b\":2}", "expected ',' or '}'"},
    {"{\"a\":[1 2]}", "expected ',' or ']'"},
    {"{\"a\":1}x", "unexpected data after the value"},
    {"{\"a\":01}", "leading zeros are not allowed"},
    {"{\"a\":1.5}", "expected an integer, not a fraction or exponent"},
    {"{\"a\":1e3}", "expected an integer"},
    {"{\"a\":-}", "expected a digit"},
    {"{\"a\":99999999999999999999}", "integer out of range"},
    {"{\"a\":tru}", "expected a value"},
    {"{\"a", "unterminated string"},
    {"{\"a\\", "unterminated string"},
    {"{\"a\\q\":1}", "invalid escape"},
    {"{\"a\\u12g4\":1}", "\\u needs 4 hex digits"},
    {"{\"\\ud800\":1}", "unpaired high surrogate"},
    {"{\"\\ud800\\u0041\":1}", "unpaired high surrogate"},
    {"{\"\\udc00\":1}", "unpaired low surrogate"},
    {"{\"a\\u0000\":1}", "\\u0000 is not allowed"},
    {"{\"a\tb\":1}", "control character in string"},
    {"{\"\xc0\xaf\":1}", "invalid UTF-8"},
    {"{\"\xed\xa0\x80\":1}", "invalid UTF-8"},
    {"{\"\xe0\x80\xaf\":1}", "invalid UTF-8"}, /* overlong */
    {"{\"\xe2\x82\":1}", "invalid UTF-8"},
    {"{\"a\":1}", "tensor 'a' is not described by an object"},
    {"{\"a\":{\"shape\":[],\"data_offsets\":[0,0]}}",
     "tensor 'a' has no \"dtype\" field"},
    {"{\"a\":{\"dtype\":\"U8\",\"dtype\":\"U8\",\"shape\":[],"
     "\"data_offsets\":[0,1]}}",
     "tensor 'a' has two \"dtype\" fields"},
    {"{\"a\":{\"dtype\":8,\"shape\":[],\"data_offsets\":[0,1]}}",
     "dtype that is not a string"},
    {"{\"a\":{\"dtype\":\"U8\",\"shape\":[-1],\"data_offsets\":[0,1]}}",
     "shape that is not a list of non-negative integers"},
    {"{\"a\":{\"dtype\":\"U8\",\"shape\":3,\"data_offsets\":[0,1]}}",
     "shape that is not a list"},
    {"{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1,2]}}",
     "data_offsets that are not two non-negative integers"},
    {"{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,0]}}",
     "data_offsets [1, 0] that end before they begin"},
    {"{\"__metadata__\":[],\"a\":1}", "\"__metadata__\" must be an object"},
    {"{\"__metadata__\":{},\"__metadata__\":{}}",
     "duplicate \"__metadata__\""},
};

START_TEST(st_rejects_malformed_header) {
  expect_error(BAD[_i].json, "\0\0\0\0", 4, OXP_ERR_WEIGHTS, BAD[_i].want);
}
END_TEST

START_TEST(st_rejects_deep_nesting) {
  char json[300];
  memset(json, '[', 200);
  json[200] = 0;
  expect_error(json, NULL, 0, OXP_ERR_WEIGHTS, "nested deeper than 64");
}
END_TEST

START_TEST(st_decodes_escaped_names) {
  unsigned char b[1] = {5};
  oxp_safetensors *s = open_ok(write_st(
      "esc.safetensors",
      "{\"a\\u00e9\\\"\\\\\\/\\n\\ud83d\\ude00\xe2\x82\xac\":"
      "{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}",
      b, 1));
  const oxp_st_entry *e =
      oxp_st_find(s, "a\xc3\xa9\"\\/\n\xf0\x9f\x98\x80\xe2\x82\xac");
  ck_assert_ptr_nonnull(e);
  ck_assert_int_eq(oxp_tensor_get_i(&e->t, 0), 5);
  oxp_st_close(s);
}
END_TEST

START_TEST(st_from_memory_borrows_bytes) {
  int32_t v[2] = {-3, 4};
  size_t n;
  unsigned char *buf = st_build(
      "{\"v\":{\"dtype\":\"I32\",\"shape\":[2],\"data_offsets\":[0,8]}}", v,
      8, &n);
  oxp_safetensors *s = NULL;
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_st_from_memory(A, "mem", buf, n, &s, &d), OXP_OK);
  ck_assert_str_eq(s->path, "mem");
  const oxp_st_entry *e = oxp_st_find(s, "v");
  ck_assert_ptr_eq(e->t.data, buf + n - 8);
  ck_assert_ptr_null(e->t.src_path); /* no file to point external data at */
  ck_assert_int_eq(oxp_tensor_get_i(&e->t, 0), -3);
  oxp_st_close(s);
  ck_assert_int_eq(buf[n - 8], 0xfd); /* close did not touch the bytes */
  free(buf);
}
END_TEST

/* Every prefix of a valid file is parsed from an exact-size heap copy, so
 * the sanitizer catches any read past the end. */
START_TEST(st_prefixes_never_read_past_end) {
  int32_t v[3] = {1, 2, 3};
  size_t n;
  unsigned char *full = st_build(
      "{\"__metadata__\":{\"k\":\"\\u00e9\"},"
      "\"v\":{\"dtype\":\"I32\",\"shape\":[3],\"data_offsets\":[0,12]}}",
      v, 12, &n);
  for (size_t len = 0; len < n; len++) {
    unsigned char *cut = malloc(len ? len : 1);
    memcpy(cut, full, len);
    oxp_safetensors *s = NULL;
    oxp_diag d = {0};
    ck_assert_int_eq(oxp_st_from_memory(A, "cut", cut, len, &s, &d),
                     OXP_ERR_WEIGHTS);
    ck_assert_str_eq(d.file, "cut");
    free(cut);
  }
  free(full);
}
END_TEST

/* Written by torch through tests/data/st/gen_torch_small.py. */
START_TEST(st_reads_torch_written_file) {
  const char *root = getenv("OXP_TEST_DATA");
  ck_assert_msg(root != NULL, "OXP_TEST_DATA is not set");
  oxp_safetensors *s =
      open_ok(oxp_sprintf(A, "%s/st/torch_small.safetensors", root));
  ck_assert_int_eq(s->nentries, 12);
  ck_assert_uint_eq(s->header_len % 8, 0);

  const oxp_st_entry *w = oxp_st_find(s, "fc.weight");
  ck_assert_int_eq(w->t.dtype, OXP_DT_FLOAT);
  ck_assert_int_eq(w->t.rank, 2);
  ck_assert_int_eq(w->t.dims[0], 3);
  ck_assert_int_eq(w->t.dims[1], 4);
  for (int i = 0; i < 12; i++)
    ck_assert_double_eq(oxp_tensor_get_f(&w->t, i), i / 4.0);

  const oxp_st_entry *b = oxp_st_find(s, "fc.bias");
  ck_assert_int_eq(b->t.dtype, OXP_DT_DOUBLE);
  ck_assert_double_eq(oxp_tensor_get_f(&b->t, 0), -1.5);
  ck_assert_double_eq(oxp_tensor_get_f(&b->t, 2), 2.25);

  const oxp_st_entry *h = oxp_st_find(s, "half");
  ck_assert_int_eq(h->t.dtype, OXP_DT_FLOAT16);
  ck_assert_double_eq(oxp_tensor_get_f(&h->t, 1), -2.0);
  ck_assert_double_eq(oxp_tensor_get_f(&h->t, 2), 0.5);

  const oxp_st_entry *bf = oxp_st_find(s, "bf16");
  ck_assert_int_eq(bf->t.dtype, OXP_DT_BFLOAT16);
  ck_assert_double_eq(oxp_tensor_get_f(&bf->t, 0), 3.0);
  ck_assert_double_eq(oxp_tensor_get_f(&bf->t, 1), -0.25);

  const oxp_st_entry *l = oxp_st_find(s, "steps");
  ck_assert_int_eq(l->t.dtype, OXP_DT_INT64);
  ck_assert_int_eq(oxp_tensor_get_i(&l->t, 1), -2);
  ck_assert_int_eq(oxp_tensor_get_i(&l->t, 3), (int64_t)1 << 40);

  ck_assert_int_eq(oxp_tensor_get_i(&oxp_st_find(s, "i32")->t, 0), -7);
  ck_assert_int_eq(oxp_tensor_get_i(&oxp_st_find(s, "i16")->t, 0), -300);
  ck_assert_int_eq(oxp_tensor_get_i(&oxp_st_find(s, "i8")->t, 0), -128);
  ck_assert_int_eq(oxp_tensor_get_i(&oxp_st_find(s, "u8")->t, 0), 255);

  const oxp_st_entry *m = oxp_st_find(s, "mask");
  ck_assert_int_eq(m->t.dtype, OXP_DT_BOOL);
  ck_assert_int_eq(oxp_tensor_get_i(&m->t, 0), 1);
  ck_assert_int_eq(oxp_tensor_get_i(&m->t, 1), 0);

  const oxp_st_entry *sc = oxp_st_find(s, "scalar");
  ck_assert_int_eq(sc->t.rank, 0);
  ck_assert_double_eq(oxp_tensor_get_f(&sc->t, 0), 42.5);

  const oxp_st_entry *e = oxp_st_find(s, "empty");
  ck_assert_int_eq(e->t.rank, 2);
  ck_assert_int_eq(e->t.dims[0], 0);
  ck_assert_uint_eq(e->t.nbytes, 0);
  oxp_st_close(s);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("safetensors");
  TCase *t = tcase_create("core");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, st_reads_every_dtype);
  tcase_add_test(t, st_reads_scalar_and_empty);
  tcase_add_test(t, st_file_with_no_tensors);
  tcase_add_test(t, st_plain_and_json_forms_agree);
  tcase_add_test(t, st_skips_metadata);
  tcase_add_test(t, st_metadata_values_must_be_strings);
  tcase_add_test(t, st_missing_file);
  tcase_add_test(t, st_directory_is_not_a_file);
  tcase_add_test(t, st_shorter_than_8_bytes);
  tcase_add_test(t, st_header_length_past_end);
  tcase_add_test(t, st_header_length_absurd);
  tcase_add_test(t, st_bad_json_names_offset);
  tcase_add_test(t, st_unknown_dtype);
  tcase_add_test(t, st_wrong_byte_count);
  tcase_add_test(t, st_shape_overflow);
  tcase_add_test(t, st_truncated_data);
  tcase_add_test(t, st_duplicate_name);
  tcase_add_test(t, st_overlapping_tensors);
  tcase_add_loop_test(t, st_rejects_malformed_header, 0,
                      sizeof BAD / sizeof BAD[0]);
  tcase_add_test(t, st_rejects_deep_nesting);
  tcase_add_test(t, st_decodes_escaped_names);
  tcase_add_test(t, st_from_memory_borrows_bytes);
  tcase_add_test(t, st_prefixes_never_read_past_end);
  tcase_add_test(t, st_reads_torch_written_file);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return oxp_check_run(suite());
}
