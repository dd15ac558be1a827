/* test_vision.c: torchvision's ops (src/symbolic/s_vision.c). RoiAlign
 * gets its coordinate mode from `aligned` at every opset that has one:
 * left out, RoiAlign-16's default (half_pixel) would silently make every
 * aligned=False model (the R-CNNs) aligned. */
#include <check.h>
#include "check_main.h"
#include <stdio.h>
#include <string.h>

#include "export.h"

#include "arena_fixture.h"

static char ir[1024];

static const char *roi_align_ir(bool aligned) {
  snprintf(ir, sizeof ir,
           "graph(%%x : Float(2, 3, 8, 8), %%r : Float(4, 5)):\n"
           "  %%s : float = prim::Constant[value=0.5]()\n"
           "  %%h : int = prim::Constant[value=3]()\n"
           "  %%w : int = prim::Constant[value=2]()\n"
           "  %%k : int = prim::Constant[value=-1]()\n"
           "  %%a : bool = prim::Constant[value=%d]()\n"
           "  %%o : Float(4, 3, 3, 2) = torchvision::roi_align(%%x, %%r, %%s, %%h, %%w, %%k, %%a)\n"
           "  return (%%o)\n",
           aligned);
  return ir;
}

static oxp_status export_at(const char *text, int opset, oxp_graph **g) {
  oxp_options o;
  oxp_options_init(&o);
  o.opset = opset;
  return oxp_export_graph(A, "t.ir", text, strlen(text), NULL, &o, g, &D);
}

static oxp_node *find(oxp_block *b, const char *kind) {
  for (oxp_node *n = b->first; n; n = n->next)
    if (strcmp(n->kind, kind) == 0) return n;
  return NULL;
}

static const struct {
  int opset;
  bool aligned;
  const char *mode; /* NULL: no attribute (RoiAlign-10) */
} cases[] = {
    {10, false, NULL}, {11, false, NULL},
    {16, false, "output_half_pixel"}, {17, false, "output_half_pixel"},
    {21, false, "output_half_pixel"}, {16, true, "half_pixel"},
    {17, true, "half_pixel"}, {21, true, "half_pixel"},
};

START_TEST(roi_align_mode_follows_aligned) {
  oxp_graph *g = NULL;
  ck_assert_msg(export_at(roi_align_ir(cases[_i].aligned), cases[_i].opset, &g) == OXP_OK,
                "opset %d: %s", cases[_i].opset, D.message);
  oxp_node *n = find(g->top, "onnx::RoiAlign");
  ck_assert_ptr_nonnull(n);
  const oxp_attr *m = oxp_attr_get(n, "coordinate_transformation_mode");
  if (!cases[_i].mode) ck_assert_ptr_null(m);
  else ck_assert_str_eq(m->s, cases[_i].mode);
  ck_assert_int_eq(oxp_attr_get(n, "sampling_ratio")->i, 0);
  ck_assert_int_eq(oxp_attr_get(n, "output_height")->i, 3);
}
END_TEST

START_TEST(roi_align_aligned_before_16_is_named) {
  oxp_graph *g = NULL;
  ck_assert_int_eq(export_at(roi_align_ir(true), 11 + _i * 4, &g), OXP_ERR_UNSUPPORTED);
  ck_assert_msg(strstr(D.message, "torchvision::roi_align with aligned=True is not supported at opset"),
                "%s", D.message);
  ck_assert_int_eq(D.line, 7);
}
END_TEST

START_TEST(nms_is_one_nonmaxsuppression) {
  const char *text =
      "graph(%b : Float(5, 4), %s : Float(5)):\n"
      "  %t : float = prim::Constant[value=0.5]()\n"
      "  %k : Long(3) = torchvision::nms(%b, %s, %t)\n"
      "  return (%k)\n";
  oxp_graph *g = NULL;
  ck_assert_msg(export_at(text, 11, &g) == OXP_OK, "%s", D.message);
  oxp_node *n = find(g->top, "onnx::NonMaxSuppression");
  ck_assert_ptr_nonnull(n);
  oxp_value *out = g->top->outputs[0];
  ck_assert_str_eq(out->producer->kind, "onnx::Gather");
  ck_assert_ptr_eq(out->producer->inputs[0], n->outputs[0]);
  ck_assert_int_eq(out->type->dtype, OXP_DT_INT64);
  ck_assert_int_eq(out->type->rank, 1);
}
END_TEST

int main(void) {
  Suite *s = suite_create("vision");
  TCase *t = tcase_create("ops");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_loop_test(t, roi_align_mode_follows_aligned, 0, (int)(sizeof cases / sizeof *cases));
  tcase_add_loop_test(t, roi_align_aligned_before_16_is_named, 0, 2);
  tcase_add_test(t, nms_is_one_nonmaxsuppression);
  suite_add_tcase(s, t);
  return oxp_check_run(s);
}
