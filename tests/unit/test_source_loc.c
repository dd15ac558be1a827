/* test_source_loc.c: the model source line an IR line's trailing comment
 * names (source_loc.c), which error lines add after the IR location. */
#include <check.h>
#include "check_main.h"
#include <string.h>

#include "source_loc.h"

static const char IR[] =
    "graph(%x : Float(2, strides=[1], requires_grad=0, device=cpu)):\n"
    "  %y : Float(2) = aten::relu(%x) # /home/u/model.py:42:0\n"
    "  %z : Tensor = aten::mul(%y, %y), scope: M::/torch.nn.Linear::fc # C:/a:b/m.py:7:15\r\n"
    "  %s : str = prim::Constant[value=\" # q.py:1:2 \"]()\n"
    "  %t : Tensor = aten::neg(%z) # m.py:x:0\n"
    "  %u : Tensor = aten::neg(%t) # m.py:0:0\n"
    "  %v : Tensor = aten::neg(%u) # :3:0\n"
    "  %w : Tensor = aten::neg(%v) #m.py:3:0\n"
    "  return (%w) # last.py:9:1";

static bool at(int line, char *file, size_t n, int *src) {
  return oxp_source_loc(IR, sizeof IR - 1, line, file, n, src);
}

START_TEST(reads_file_and_line_from_the_end) {
  char f[64];
  int ln;
  ck_assert(at(2, f, sizeof f, &ln));
  ck_assert_str_eq(f, "/home/u/model.py");
  ck_assert_int_eq(ln, 42);
  /* after a scope suffix; colons in the path; a CR before the newline */
  ck_assert(at(3, f, sizeof f, &ln));
  ck_assert_str_eq(f, "C:/a:b/m.py");
  ck_assert_int_eq(ln, 7);
  /* the last line, without a newline */
  ck_assert(at(9, f, sizeof f, &ln));
  ck_assert_str_eq(f, "last.py");
  ck_assert_int_eq(ln, 9);
}
END_TEST

START_TEST(lines_without_a_comment_give_nothing) {
  char f[64];
  int ln = 5;
  ck_assert(!at(1, f, sizeof f, &ln));
  ck_assert_str_eq(f, "");
  ck_assert_int_eq(ln, 0);
  ck_assert(!at(4, f, sizeof f, &ln)); /* " # " inside a string, not at the end */
  ck_assert(!at(5, f, sizeof f, &ln)); /* not a number */
  ck_assert(!at(6, f, sizeof f, &ln)); /* line 0 */
  ck_assert(!at(7, f, sizeof f, &ln)); /* no file */
  ck_assert(!at(8, f, sizeof f, &ln)); /* no space after '#' */
  ck_assert(!at(0, f, sizeof f, &ln));
  ck_assert(!at(10, f, sizeof f, &ln));
  ck_assert(!at(-1, f, sizeof f, &ln));
  ck_assert(!oxp_source_loc(NULL, 0, 1, f, sizeof f, &ln));
  ck_assert(!oxp_source_loc("", 0, 1, f, sizeof f, &ln));
}
END_TEST

START_TEST(long_paths_are_truncated) {
  char f[8];
  int ln;
  ck_assert(at(2, f, sizeof f, &ln));
  ck_assert_str_eq(f, "/home/u");
  ck_assert_int_eq(ln, 42);
}
END_TEST

int main(void) {
  Suite *s = suite_create("source_loc");
  TCase *t = tcase_create("source_loc");
  tcase_add_test(t, reads_file_and_line_from_the_end);
  tcase_add_test(t, lines_without_a_comment_give_nothing);
  tcase_add_test(t, long_paths_are_truncated);
  suite_add_tcase(s, t);
  return oxp_check_run(s);
}
