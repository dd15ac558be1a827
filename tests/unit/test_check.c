/* test_check.c: oxp_check_model on hostile bytes: subgraphs nested far
 * past any real model must be refused by name before protobuf-c's
 * recursive unpack sees them, in a small stack. */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api_core.h"
#include "check_main.h"

/* A ModelProto whose graph holds an If node whose then_branch holds an If
 * node ..., levels deep. Written back to front into one buffer, so each
 * length is known when its prefix is written. */
typedef struct {
  unsigned char *buf, *p; /* content is [p, buf + cap) */
  size_t cap;
} rev;

static void put(rev *r, const void *b, size_t n) {
  ck_assert_uint_ge((size_t)(r->p - r->buf), n);
  r->p -= n;
  memcpy(r->p, b, n);
}

static void put_varint(rev *r, size_t v) {
  unsigned char t[10];
  size_t n = 0;
  do {
    t[n] = (unsigned char)(v & 0x7f);
    v >>= 7;
    if (v) t[n] |= 0x80;
    n++;
  } while (v);
  put(r, t, n);
}

/* Prepends field's key and the length of everything after it. */
static void wrap(rev *r, unsigned field) {
  put_varint(r, (size_t)(r->buf + r->cap - r->p));
  unsigned char key = (unsigned char)(field << 3 | 2);
  put(r, &key, 1);
}

static void put_string(rev *r, unsigned field, const char *s) {
  put(r, s, strlen(s));
  put_varint(r, strlen(s));
  unsigned char key = (unsigned char)(field << 3 | 2);
  put(r, &key, 1);
}

static unsigned char *nested_model(int levels, size_t *len) {
  rev r;
  r.cap = (size_t)levels * 32 + 64;
  r.buf = malloc(r.cap);
  ck_assert_ptr_nonnull(r.buf);
  r.p = r.buf + r.cap;
  static const unsigned char opset[] = {0x42, 0x02, 0x10, 0x11}; /* v17 */
  put(&r, opset, sizeof opset);
  size_t tail = sizeof opset;
  for (int i = 0; i < levels; i++) {
    r.cap -= tail; /* wrap() measures from the end of the graph */
    wrap(&r, 6);   /* AttributeProto.g */
    put_string(&r, 1, "then_branch");
    wrap(&r, 5);   /* NodeProto.attribute */
    put_string(&r, 4, "If");
    wrap(&r, 1);   /* GraphProto.node */
    r.cap += tail;
  }
  r.cap -= tail;
  wrap(&r, 7); /* ModelProto.graph */
  r.cap += tail;
  static const unsigned char ir[] = {0x08, 0x08};
  put(&r, ir, sizeof ir);
  *len = (size_t)(r.buf + r.cap - r.p);
  memmove(r.buf, r.p, *len);
  return r.buf;
}

typedef struct {
  int levels;
  oxp_status st;
  oxp_diag d;
} job;

static void *run_check(void *arg) {
  job *j = arg;
  size_t len;
  unsigned char *b = nested_model(j->levels, &len);
  oxp_model_info *m = NULL;
  j->st = oxp_check_model(b, len, &m, &j->d);
  oxp_model_info_free(m);
  free(b);
  return NULL;
}

/* Runs the check on a thread with a stack of stack_kb. */
static job check_in_stack(int levels, size_t stack_kb) {
  job j = {.levels = levels};
  oxp_diag_clear(&j.d);
  pthread_attr_t at;
  pthread_t t;
  ck_assert_int_eq(pthread_attr_init(&at), 0);
  ck_assert_int_eq(pthread_attr_setstacksize(&at, stack_kb << 10), 0);
  ck_assert_int_eq(pthread_create(&t, &at, run_check, &j), 0);
  ck_assert_int_eq(pthread_join(t, NULL), 0);
  pthread_attr_destroy(&at);
  return j;
}

START_TEST(check_reads_a_few_nested_subgraphs) {
  job j = check_in_stack(3, 1024);
  ck_assert_msg(j.st == OXP_OK, "%s", j.d.message);
}
END_TEST

/* Without the depth walk, unpack recurses 300,001 times and the thread's
 * stack overflows (SIGSEGV, which Check reports as a failure). */
START_TEST(check_refuses_100k_nested_subgraphs_in_256k_stack) {
  job j = check_in_stack(100000, 256);
  ck_assert_int_eq(j.st, OXP_ERR_GRAPH);
  ck_assert_msg(strstr(j.d.message, "messages nested deeper than 512 (onnxexp's "
                                "limit)"), "%s", j.d.message);
}
END_TEST

/* 170 levels are 1 + 3 * 170 = 511 messages deep: unpack runs, within a
 * 1 MiB stack, and the subgraph rule refuses them; 171 are 514 deep. */
START_TEST(check_limit_is_exact_and_unpack_fits_1m_stack) {
  job j = check_in_stack(170, 1024);
  ck_assert_int_eq(j.st, OXP_ERR_GRAPH);
  ck_assert_msg(strstr(j.d.message, "subgraphs nested deeper than 64"), "%s",
                j.d.message);
  j = check_in_stack(171, 1024);
  ck_assert_int_eq(j.st, OXP_ERR_GRAPH);
  ck_assert_msg(strstr(j.d.message, "messages nested deeper than 512"), "%s",
                j.d.message);
}
END_TEST

/* Broken wire format is unpack's verdict, whatever the walk saw first. */
START_TEST(check_truncated_nested_bytes_do_not_parse) {
  size_t len;
  unsigned char *b = nested_model(50, &len);
  oxp_diag d;
  oxp_diag_clear(&d);
  for (size_t cut = 1; cut < len; cut += 7) {
    ck_assert_int_eq(oxp_check_model(b, cut, NULL, &d), OXP_ERR_GRAPH);
    ck_assert_msg(strstr(d.message, "do not parse"), "cut %zu: %s", cut, d.message);
  }
  free(b);
}
END_TEST

static Suite *check_suite(void) {
  Suite *s = suite_create("check");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, check_reads_a_few_nested_subgraphs);
  tcase_add_test(tc, check_refuses_100k_nested_subgraphs_in_256k_stack);
  tcase_add_test(tc, check_limit_is_exact_and_unpack_fits_1m_stack);
  tcase_add_test(tc, check_truncated_nested_bytes_do_not_parse);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return oxp_check_run(check_suite()); }
