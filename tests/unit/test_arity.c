/* test_arity.c: aten nodes whose input or output count fits no torch
 * schema overload are export errors at the node (arity.c), through the
 * whole pipeline, so what the JIT passes rewrite is covered too. */
#include <check.h>
#include "check_main.h"
#include <stdio.h>
#include <string.h>

#include "export.h"
#include "../../src/symbolic/sym.h"

#define T "Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)"
#define HEAD "graph(%x : " T ",\n      %w : Float(3, strides=[1], requires_grad=0, device=cpu)):\n"

#include "arena_fixture.h"

static oxp_status export_as(const char *body, oxp_export_type et) {
  char ir[2048];
  snprintf(ir, sizeof ir, "%s%s", HEAD, body);
  oxp_options o;
  oxp_options_init(&o);
  o.export_type = et;
  oxp_graph *out = NULL;
  oxp_diag_clear(&D);
  return oxp_export_graph(A, "t.ir", ir, strlen(ir), NULL, &o, &out, &D);
}

static oxp_status export_ir(const char *body) { return export_as(body, OXP_OET_ONNX); }

/* The export fails at IR line `at`, on node `kind`, with exactly `msg`. */
#define ASSERT_ARITY(body, at, kind, msg)                                   \
  do {                                                                      \
    ck_assert_int_eq(export_ir(body), OXP_ERR_GRAPH);                       \
    ck_assert_str_eq(D.message, msg);                                       \
    ck_assert_str_eq(D.op, kind);                                           \
    ck_assert_str_eq(D.file, "t.ir");                                       \
    ck_assert_int_eq(D.line, at);                                           \
  } while (0)

START_TEST(arity_rejects_too_few_inputs) {
  ASSERT_ARITY("  %2 : int = prim::Constant[value=1]()\n"
               "  %y : " T " = aten::batch_norm(%x, %w, %2)\n"
               "  return (%y)\n",
               4, "aten::batch_norm", "aten::batch_norm takes 9 inputs, got 3");
  ASSERT_ARITY("  %y : " T " = aten::add(%x)\n  return (%y)\n", 3, "aten::add",
               "aten::add takes 2 to 3 inputs, got 1");
}
END_TEST

START_TEST(arity_rejects_too_many_inputs) {
  /* Also the shape of an out= call: its `out` tensor cannot be written. */
  ASSERT_ARITY("  %y : " T " = aten::relu(%x, %w)\n  return (%y)\n", 3, "aten::relu",
               "aten::relu takes 1 input, got 2");
}
END_TEST

START_TEST(arity_rejects_wrong_output_count) {
  ASSERT_ARITY("  %a : " T ", %b : " T " = aten::relu(%x)\n  return (%a, %b)\n", 3,
               "aten::relu", "aten::relu returns 1 output, got 2");
  ASSERT_ARITY("  %d : int = prim::Constant[value=1]()\n"
               "  %k : bool = prim::Constant[value=0]()\n"
               "  %a : " T ", %b : " T ", %c : " T " = aten::max(%x, %d, %k)\n"
               "  return (%a)\n",
               5, "aten::max", "aten::max returns 1 to 2 outputs, got 3");
}
END_TEST

START_TEST(arity_vararg_has_no_upper_bound) {
  /* einsum.sublist(Tensor a, ...): any count from one up. */
  ASSERT_ARITY("  %y : " T " = aten::einsum()\n  return (%y)\n", 3, "aten::einsum",
               "aten::einsum takes at least 1 input, got 0");
  export_ir("  %y : " T " = aten::einsum(%x, %w, %x, %w, %x, %w)\n  return (%y)\n");
  ck_assert_msg(!strstr(D.message, "takes"), "vararg rejected: %s", D.message);
}
END_TEST

START_TEST(arity_checks_nodes_in_blocks) {
  ASSERT_ARITY("  %c : bool = prim::Constant[value=1]()\n"
               "  %y : " T " = prim::If(%c)\n"
               "    block0():\n"
               "      %a : " T " = aten::neg(%x, %x)\n"
               "      -> (%a)\n"
               "    block1():\n"
               "      -> (%x)\n"
               "  return (%y)\n",
               6, "aten::neg", "aten::neg takes 1 input, got 2");
}
END_TEST

START_TEST(arity_accepts_inplace_rewrites) {
  /* In-place removal turns zero_(x) into zeros_like(x) and fill_(x, v)
   * into full_like(x, v), with fewer inputs than zeros_like's schema. */
  ck_assert_msg(export_ir("  %y : " T " = aten::zero_(%x)\n  return (%y)\n") == OXP_OK,
                "zero_: %s", D.message);
  ck_assert_msg(export_ir("  %v : float = prim::Constant[value=2.]()\n"
                          "  %y : " T " = aten::fill_(%x, %v)\n  return (%y)\n") == OXP_OK,
                "fill_: %s", D.message);
}
END_TEST

START_TEST(arity_ignores_ops_without_schema) {
  export_ir("  %y : " T " = aten::frobnicate(%x, %w, %x)\n  return (%y)\n");
  ck_assert_int_eq(D.status, OXP_ERR_UNSUPPORTED);
  ck_assert_msg(!strstr(D.message, "takes"), "%s", D.message);
}
END_TEST

static oxp_status identity(oxp_sctx *c, oxp_node *n, void *user) {
  (void)user;
  return oxp_sym_set_out(c, n, 0, oxp_sym_in(c, n, 0));
}

START_TEST(arity_applies_to_custom_symbolics_and_aten_fallback) {
  const char *bad = "  %y : " T " = aten::relu(%x, %w)\n  return (%y)\n";
  ck_assert_int_eq(oxp_custom_register("aten::relu", 9, identity, NULL, &D), OXP_OK);
  ck_assert_int_eq(export_ir(bad), OXP_ERR_GRAPH);
  ck_assert(oxp_custom_unregister("aten::relu", 9));
  ck_assert_str_eq(D.message, "aten::relu takes 1 input, got 2");
  ck_assert_int_eq(export_as(bad, OXP_OET_ONNX_ATEN), OXP_ERR_GRAPH);
  ck_assert_str_eq(D.message, "aten::relu takes 1 input, got 2");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("arity");
  TCase *t = tcase_create("arity");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, arity_rejects_too_few_inputs);
  tcase_add_test(t, arity_rejects_too_many_inputs);
  tcase_add_test(t, arity_rejects_wrong_output_count);
  tcase_add_test(t, arity_vararg_has_no_upper_bound);
  tcase_add_test(t, arity_checks_nodes_in_blocks);
  tcase_add_test(t, arity_accepts_inplace_rewrites);
  tcase_add_test(t, arity_ignores_ops_without_schema);
  tcase_add_test(t, arity_applies_to_custom_symbolics_and_aten_fallback);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return oxp_check_run(suite()); }
