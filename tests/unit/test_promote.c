/* test_promote.c: the one type-promotion module (dtype_promote.c) against
 * torch, every pair of dtypes: promote_types.txt (torch.promote_types, or
 * c10's rule for dtypes the installed torch lacks) and result_type.txt
 * (torch.result_type of a 1-d and a 0-d tensor: combine_categories), both
 * written by tests/tools/gen_promote_table.py. A refused pair must be
 * OXP_DT_REFUSED with a message naming both dtypes, never a dtype. */
#include <check.h>
#include "check_main.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxp.h"

/* The OXP_DT_ of a numpy-style name; "error" is OXP_DT_REFUSED, and
 * complex32 (no ONNX type) is refused too. */
static int dtype_of(const char *name) {
  if (!strcmp(name, "error") || !strcmp(name, "complex32")) return OXP_DT_REFUSED;
  for (int dt = 1; dt < OXP_DT_COUNT; dt++)
    if (!strcmp(oxp_dtype_name(dt), name)) return dt;
  ck_abort_msg("unknown dtype name %s", name);
  return 0;
}

static FILE *open_table(const char *file) {
  const char *root = getenv("OXP_TEST_DATA");
  ck_assert_msg(root != NULL, "OXP_TEST_DATA is not set");
  char path[1024];
  snprintf(path, sizeof path, "%s/promote/%s", root, file);
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  return f;
}

/* Checks every row of file with fn; returns how many rows, and how many
 * of them torch answered (SOURCE column `torch`, promote_types.txt). */
static int check_table(const char *file, int (*fn)(int, int), int *from_torch) {
  FILE *f = open_table(file);
  char line[256], a[64], b[64], r[64], src[64];
  int rows = 0, bad = 0;
  *from_torch = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    src[0] = 0;
    int k = sscanf(line, "%63s %63s %63s %63s", a, b, r, src);
    ck_assert_msg(k >= 3, "bad row in %s: %s", file, line);
    int da = dtype_of(a), db = dtype_of(b), want = dtype_of(r), got = fn(da, db);
    rows++;
    if (!strcmp(src, "torch")) (*from_torch)++;
    if (got != want) {
      fprintf(stderr, "%s: %s with %s: want %s, got %s\n", file, a, b, r,
              got == OXP_DT_REFUSED ? "error" : oxp_dtype_name(got));
      bad++;
    }
    if (got == OXP_DT_REFUSED) {
      char why[160];
      oxp_promote_why(da, db, why, sizeof why);
      ck_assert_msg(strstr(why, a) && strstr(why, b), "%s with %s: message '%s'", a, b, why);
    }
  }
  fclose(f);
  ck_assert_msg(bad == 0, "%d of %d pairs in %s differ from torch", bad, rows, file);
  return rows;
}

START_TEST(promote_types_matches_torch_on_every_pair) {
  int torch_rows;
  /* 20 dtypes (ONNX's, less UNDEFINED), every ordered pair. */
  ck_assert_int_eq(check_table("promote_types.txt", oxp_promote_types, &torch_rows), 20 * 20);
  ck_assert_int_ge(torch_rows, 12 * 12);
}
END_TEST

START_TEST(combine_categories_matches_torch_result_type) {
  int torch_rows;
  ck_assert_int_ge(check_table("result_type.txt", oxp_combine_categories, &torch_rows), 12 * 12);
}
END_TEST

/* 0 is "no operand yet": promotion starts from it. */
START_TEST(unknown_operand_leaves_the_other) {
  ck_assert_int_eq(oxp_promote_types(0, OXP_DT_INT32), OXP_DT_INT32);
  ck_assert_int_eq(oxp_promote_types(OXP_DT_UINT16, 0), OXP_DT_UINT16);
  ck_assert_int_eq(oxp_promote_types(0, 0), 0);
  ck_assert_int_eq(oxp_combine_categories(0, OXP_DT_BOOL), OXP_DT_BOOL);
  ck_assert_int_eq(oxp_combine_categories(OXP_DT_REFUSED, OXP_DT_BOOL), OXP_DT_REFUSED);
  ck_assert_int_eq(oxp_promote_types(OXP_DT_REFUSED, OXP_DT_BOOL), OXP_DT_REFUSED);
}
END_TEST

/* result_type over operands: classes, Python floats, unknown ranks. */
START_TEST(result_type_of_operands) {
  int pair[2];
  const oxp_operand f16 = {.dtype = OXP_DT_FLOAT16}, f32_0d = {.dtype = OXP_DT_FLOAT, .zero_dim = true},
                    i64_0d = {.dtype = OXP_DT_INT64, .zero_dim = true},
                    pyfloat = {.dtype = OXP_DT_DOUBLE, .scalar = true},
                    i32 = {.dtype = OXP_DT_INT32};
  /* a float16 tensor with a 0-d float32 tensor and an int64 one: float16 */
  oxp_operand a[3] = {i64_0d, f16, f32_0d};
  ck_assert_int_eq(oxp_result_type_why(a, 3, pair), OXP_DT_FLOAT16);
  /* int32 tensor + a Python float: the default dtype, not double */
  oxp_operand b[2] = {i32, pyfloat};
  ck_assert_int_eq(oxp_result_type_why(b, 2, pair), OXP_DT_FLOAT);
  /* the float16 operand's rank unknown: float16 if it has dims, float32
   * if it is 0-d (difftest ops seed 1 #393, addcmul on a scripted take) */
  a[1].unranked = true;
  ck_assert_int_eq(oxp_result_type_why(a, 3, pair), OXP_DT_AMBIGUOUS);
  ck_assert(pair[0] != pair[1]);
  ck_assert(pair[0] == OXP_DT_FLOAT16 || pair[0] == OXP_DT_FLOAT);
  ck_assert(pair[1] == OXP_DT_FLOAT16 || pair[1] == OXP_DT_FLOAT);
  /* an unknown rank that cannot matter: the same answer both ways */
  oxp_operand c[2] = {{.dtype = OXP_DT_FLOAT, .unranked = true}, i64_0d};
  ck_assert_int_eq(oxp_result_type_why(c, 2, pair), OXP_DT_FLOAT);
  /* an unknown dtype: unknown */
  oxp_operand d[2] = {{.dtype = 0}, f16};
  ck_assert_int_eq(oxp_result_type_why(d, 2, NULL), 0);
  /* a refused pair names both dtypes */
  oxp_operand e[2] = {{.dtype = OXP_DT_UINT32}, i32};
  ck_assert_int_eq(oxp_result_type_why(e, 2, pair), OXP_DT_REFUSED);
  ck_assert_int_eq(pair[0] + pair[1], OXP_DT_UINT32 + OXP_DT_INT32);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("promote");
  TCase *t = tcase_create("pairs");
  tcase_add_test(t, promote_types_matches_torch_on_every_pair);
  tcase_add_test(t, combine_categories_matches_torch_result_type);
  tcase_add_test(t, unknown_operand_leaves_the_other);
  tcase_add_test(t, result_type_of_operands);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return oxp_check_run(suite()); }
