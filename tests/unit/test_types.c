/* test_types.c: element counts and conversions of types.c and oxp.h,
 * for the inputs fuzzing found (tests/fuzz): shapes whose element count
 * passes int64, and float-to-int conversions of inf and nan. */
#include <check.h>
#include "check_main.h"
#include <math.h>
#include <stdint.h>

#include "oxp.h"

START_TEST(f2i_saturates_and_maps_nan_to_zero) {
  ck_assert_int_eq(oxp_f2i(INFINITY), INT64_MAX);
  ck_assert_int_eq(oxp_f2i(-INFINITY), INT64_MIN);
  ck_assert_int_eq(oxp_f2i(NAN), 0);
  ck_assert_int_eq(oxp_f2i(1e300), INT64_MAX);
  ck_assert_int_eq(oxp_f2i(-1e300), INT64_MIN);
  ck_assert_int_eq(oxp_f2i(9223372036854775808.0), INT64_MAX);
  ck_assert_int_eq(oxp_f2i(-9223372036854775808.0), INT64_MIN);
  ck_assert_int_eq(oxp_f2i(-2.75), -2);
  ck_assert_int_eq(oxp_f2i(3.5), 3);
}
END_TEST

START_TEST(tensor_get_i_of_inf_is_defined) {
  oxp_arena *a = oxp_arena_new();
  double v[3] = {-INFINITY, INFINITY, NAN};
  int64_t d = 3;
  oxp_tensor *t = oxp_tensor_new(a, OXP_DT_DOUBLE, 1, &d, v, sizeof v);
  ck_assert_int_eq(oxp_tensor_get_i(t, 0), INT64_MIN);
  ck_assert_int_eq(oxp_tensor_get_i(t, 1), INT64_MAX);
  ck_assert_int_eq(oxp_tensor_get_i(t, 2), 0);
  oxp_arena_free(a);
}
END_TEST

START_TEST(numel_past_int64) {
  oxp_arena *a = oxp_arena_new();
  int64_t big[3] = {INT64_C(1) << 62, 4, 1};
  oxp_type *ty = oxp_type_tensor(a, OXP_DT_FLOAT, 3, big);
  ck_assert_int_eq(oxp_type_numel(ty), -1);
  oxp_tensor t = {.dtype = OXP_DT_FLOAT, .rank = 3, .dims = big};
  ck_assert_int_eq(oxp_tensor_numel(&t), INT64_MAX);
  ck_assert_ptr_null(oxp_tensor_alloc(a, OXP_DT_FLOAT, 3, big));
  /* Fits in elements but not in bytes. */
  int64_t wide[2] = {INT64_C(1) << 31, INT64_C(1) << 31};
  ck_assert_ptr_null(oxp_tensor_alloc(a, OXP_DT_DOUBLE, 2, wide));
  /* A zero anywhere makes it empty, however big the rest. */
  int64_t empty[3] = {INT64_C(1) << 62, 4, 0};
  ck_assert_int_eq(oxp_type_numel(oxp_type_tensor(a, OXP_DT_FLOAT, 3, empty)), 0);
  oxp_tensor e = {.dtype = OXP_DT_FLOAT, .rank = 3, .dims = empty};
  ck_assert_int_eq(oxp_tensor_numel(&e), 0);
  oxp_tensor *z = oxp_tensor_alloc(a, OXP_DT_FLOAT, 3, empty);
  ck_assert_ptr_nonnull(z);
  ck_assert_uint_eq(z->nbytes, 0);
  oxp_arena_free(a);
}
END_TEST

int main(void) {
  Suite *s = suite_create("types");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, f2i_saturates_and_maps_nan_to_zero);
  tcase_add_test(tc, tensor_get_i_of_inf_is_defined);
  tcase_add_test(tc, numel_past_int64);
  suite_add_tcase(s, tc);
  return oxp_check_run(s);
}
