/* test_op_table.c: the invariants of the one op table (op_table.c) that
 * lookup's binary search and "highest first opset at or below the target"
 * rely on: rows sorted by (op, since) with no (op, since) twice, every
 * since inside opsets.def's range, every family-list row present and
 * reachable at some opset (no row shadowed by another), and the opset
 * range the same wherever it is read. */
#include <check.h>
#include "check_main.h"
#include <string.h>

#include "export.h"
#include "../../src/symbolic/ops.h"

/* The family lists as written, in their own order. */
static const struct {
  int since;
  const char *op;
  oxp_symbolic_fn fn;
} def_rows[] = {
#define OXP_OP(since, name, fn) {since, name, fn},
#include "../../src/symbolic/ops.def"
#undef OXP_OP
};
enum { NDEF = sizeof def_rows / sizeof *def_rows };

START_TEST(rows_sorted_without_duplicates) {
  int n;
  const oxp_sym_row *r = oxp_sym_rows(&n);
  ck_assert_int_gt(n, 400);
  for (int i = 1; i < n; i++) {
    int c = strcmp(r[i - 1].op, r[i].op);
    ck_assert_msg(c < 0 || (c == 0 && r[i - 1].since < r[i].since),
                  "row %d (%s, %d) is not after (%s, %d)", i, r[i].op, r[i].since,
                  r[i - 1].op, r[i - 1].since);
  }
}
END_TEST

START_TEST(every_since_within_range) {
  int n;
  const oxp_sym_row *r = oxp_sym_rows(&n);
  for (int i = 0; i < n; i++) {
    ck_assert_msg(r[i].since >= OXP_OPSET_MIN && r[i].since <= OXP_OPSET_MAX,
                  "%s: first opset %d outside %d..%d", r[i].op, r[i].since, OXP_OPSET_MIN,
                  OXP_OPSET_MAX);
    ck_assert_ptr_nonnull(r[i].fn);
  }
}
END_TEST

/* Each row is what lookup returns at its own first opset and through the
 * opsets before the op's next row; none is shadowed. */
START_TEST(every_row_reachable) {
  int n;
  const oxp_sym_row *r = oxp_sym_rows(&n);
  for (int i = 0; i < n; i++) {
    bool last = i + 1 == n || strcmp(r[i + 1].op, r[i].op) != 0;
    int until = last ? OXP_OPSET_MAX : r[i + 1].since - 1;
    for (int v = r[i].since; v <= until; v++) {
      int first = -1;
      ck_assert_msg(oxp_sym_lookup(r[i].op, v, &first) == r[i].fn,
                    "%s at opset %d is not the row of since %d", r[i].op, v, r[i].since);
      bool first_row = !i || strcmp(r[i - 1].op, r[i].op) != 0;
      if (first_row) ck_assert_int_eq(first, r[i].since);
    }
    if (!i || strcmp(r[i - 1].op, r[i].op) != 0) {
      int first = -1;
      for (int v = OXP_OPSET_MIN; v < r[i].since; v++)
        ck_assert_ptr_null(oxp_sym_lookup(r[i].op, v, &first));
      if (r[i].since > OXP_OPSET_MIN) ck_assert_int_eq(first, r[i].since);
    }
  }
}
END_TEST

/* The table is exactly the family lists: every row, no other. */
START_TEST(table_is_the_family_lists) {
  int n;
  oxp_sym_rows(&n);
  ck_assert_int_eq(n, NDEF);
  for (int i = 0; i < NDEF; i++)
    ck_assert_msg(oxp_sym_lookup(def_rows[i].op, def_rows[i].since, NULL) == def_rows[i].fn,
                  "%s (opset %d) does not find its .def row", def_rows[i].op,
                  def_rows[i].since);
}
END_TEST

START_TEST(unknown_op_has_no_row) {
  int first = -1;
  ck_assert_ptr_null(oxp_sym_lookup("aten::no_such_op", OXP_OPSET_MAX, &first));
  ck_assert_int_eq(first, 0);
  ck_assert_ptr_null(oxp_sym_lookup("", OXP_OPSET_MAX, NULL));
  ck_assert_ptr_null(oxp_sym_lookup("zzz::last", OXP_OPSET_MAX, NULL));
}
END_TEST

/* opsets.def drives the range: one ir_version per opset inside it, none
 * outside, and the default inside. */
START_TEST(opset_range_is_opsets_def) {
  ck_assert_int_eq(OXP_OPSET_COUNT, OXP_OPSET_MAX - OXP_OPSET_MIN + 1);
  for (int v = OXP_OPSET_MIN; v <= OXP_OPSET_MAX; v++)
    ck_assert_int_gt(oxp_ir_version_for_opset(v), 0);
  ck_assert_int_eq(oxp_ir_version_for_opset(OXP_OPSET_MIN - 1), 0);
  ck_assert_int_eq(oxp_ir_version_for_opset(OXP_OPSET_MAX + 1), 0);
  ck_assert(OXP_OPSET_DEFAULT >= OXP_OPSET_MIN && OXP_OPSET_DEFAULT <= OXP_OPSET_MAX);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("op_table");
  TCase *t = tcase_create("invariants");
  tcase_add_test(t, rows_sorted_without_duplicates);
  tcase_add_test(t, every_since_within_range);
  tcase_add_test(t, every_row_reachable);
  tcase_add_test(t, table_is_the_family_lists);
  tcase_add_test(t, unknown_op_has_no_row);
  tcase_add_test(t, opset_range_is_opsets_def);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return oxp_check_run(suite()); }
