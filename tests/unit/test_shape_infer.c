/* test_shape_infer.c: ONNX shape/type inference (shape_infer.c,
 * shape_rules.c, broadcast.c) on small hand-built graphs. */
#include "check_main.h"
#include "pass_util.h"

static oxp_status infer(oxp_options *o, oxp_diag *d) {
  oxp_pass p = pu_pass(o, d);
  return oxp_shape_infer(&p);
}

START_TEST(broadcast_keeps_dim_params) {
  const int64_t xd[] = {0, 1, 4}, bd[] = {4};
  const char *xp[] = {"batch", "seq", NULL};
  oxp_value *x = in_val("x", OXP_DT_FLOAT, 3, xd, xp);
  oxp_value *b = in_val("b", OXP_DT_FLOAT, 1, bd, NULL);
  oxp_node *add = op("Add", "y", x, b, NULL);
  oxp_node *gt = op("Greater", "m", out0(add), b, NULL);
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(infer(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_type(out0(add)), "Float(batch, seq, 4)");
  ck_assert_str_eq(pu_type(out0(gt)), "Bool(batch, seq, 4)");
}
END_TEST

START_TEST(broadcast_error_names_op_location_and_shapes) {
  const int64_t xd[] = {2, 3}, yd[] = {4, 3};
  oxp_node *n = op("Mul", "z", in_val("x", OXP_DT_FLOAT, 2, xd, NULL),
                   in_val("y", OXP_DT_FLOAT, 2, yd, NULL), NULL);
  (void)n;
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(infer(&o, &d), OXP_ERR_GRAPH);
  ck_assert_int_eq(d.line, 7);
  ck_assert_str_eq(d.op, "onnx::Mul");
  ck_assert_msg(strstr(d.message, "[2, 3]") && strstr(d.message, "[4, 3]") &&
                strstr(d.message, "Mul"), "%s", d.message);
}
END_TEST

START_TEST(reshape_minus1_and_zero) {
  const int64_t xd[] = {0, 6, 4};
  const char *xp[] = {"batch", NULL, NULL};
  oxp_value *x = in_val("x", OXP_DT_FLOAT, 3, xd, xp);
  const int64_t s[] = {0, -1, 2};
  oxp_node *r = op("Reshape", "y", x, const_i64("s", 1, s, 3), NULL);
  const int64_t s2[] = {-1, 8};
  oxp_node *r2 = op("Reshape", "z", x, const_i64("s2", 1, s2, 2), NULL);
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(infer(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_type(out0(r)), "Float(batch, 12, 2)");
  /* batch*24 / 8: the name stays a factor, so -1 is unknown. */
  ck_assert_str_eq(pu_type(out0(r2)), "Float(*, 8)");
}
END_TEST

/* Shape -> Gather -> Unsqueeze -> Concat -> Reshape: the dynamic batch
 * travels through the shape data, as ONNX data propagation does. */
START_TEST(shape_data_propagates_dim_params) {
  const int64_t xd[] = {0, 4, 8};
  const char *xp[] = {"batch", NULL, NULL};
  oxp_value *x = in_val("x", OXP_DT_FLOAT, 3, xd, xp);
  oxp_node *sh = op("Shape", "s", x, NULL, NULL);
  const int64_t zero = 0, minus1 = -1;
  oxp_node *g = op("Gather", "b", out0(sh), const_i64("i0", 0, &zero, 1), NULL);
  oxp_node *u = op("Unsqueeze", "bu", out0(g), const_i64("ax", 1, &zero, 1), NULL);
  oxp_node *cat = op("Concat", "shape", out0(u), const_i64("m1", 1, &minus1, 1), NULL);
  oxp_attr_set_i(cat, "axis", 0);
  oxp_node *r = op("Reshape", "y", x, out0(cat), NULL);
  oxp_options o = pu_opts();
  oxp_dyn_axis ax = {"x", 0, "batch"};
  o.dynamic_axes = &ax;
  o.n_dynamic_axes = 1;
  oxp_diag d = {0};
  ck_assert_int_eq(infer(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_type(out0(g)), "Long()");
  ck_assert_str_eq(pu_type(out0(cat)), "Long(2)");
  ck_assert_str_eq(pu_type(out0(r)), "Float(batch, 32)");
}
END_TEST

/* Arithmetic on shape data by op: Mod, Max and Min were computed as Mul
 * (their names start with M), so ConstantOfShape(Max([5, 3], [2, 4]))
 * was typed 10x12. Mod is Python's for ints (the divisor's sign). */
START_TEST(shape_data_arith_by_op) {
  const int64_t a[] = {5, 7}, b[] = {2, 4}, nb[] = {-2, 4};
  struct { const char *op; int64_t fmod; const int64_t *b; const char *want; } cases[] = {
      {"Max", -1, b, "Float(5, 7)"}, {"Min", -1, b, "Float(2, 4)"},
      {"Mod", 0, nb, "Float(*, 3)"}, {"Mod", 1, nb, "Float(1, 3)"},
      {"Mul", -1, b, "Float(10, 28)"}, {"Pow", -1, b, "Float(*, *)"}};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    pu_teardown();
    pu_setup();
    oxp_node *m = op(cases[k].op, "m", const_i64("a", 1, a, 2), const_i64("b", 1, cases[k].b, 2), NULL);
    if (cases[k].fmod >= 0) oxp_attr_set_i(m, "fmod", cases[k].fmod);
    oxp_node *c = op("ConstantOfShape", "c", out0(m), NULL, NULL);
    oxp_options o = pu_opts();
    oxp_diag d = {0};
    ck_assert_int_eq(infer(&o, &d), OXP_OK);
    ck_assert_msg(!strcmp(pu_type(out0(c)), cases[k].want), "%s fmod=%lld: %s, not %s",
                  cases[k].op, (long long)cases[k].fmod, pu_type(out0(c)), cases[k].want);
  }
}
END_TEST

START_TEST(matmul_batched_and_gemm) {
  const int64_t ad[] = {2, 1, 5, 3}, bd[] = {7, 3, 4}, vd[] = {3};
  oxp_value *a = in_val("a", OXP_DT_FLOAT, 4, ad, NULL);
  oxp_node *mm = op("MatMul", "y", a, in_val("b", OXP_DT_FLOAT, 3, bd, NULL), NULL);
  oxp_node *mv = op("MatMul", "v", a, in_val("c", OXP_DT_FLOAT, 1, vd, NULL), NULL);
  const int64_t xd[] = {6, 3}, wd[] = {4, 3};
  oxp_node *gm = op("Gemm", "g", in_val("x", OXP_DT_FLOAT, 2, xd, NULL),
                    in_val("w", OXP_DT_FLOAT, 2, wd, NULL), NULL);
  oxp_attr_set_i(gm, "transB", 1);
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(infer(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_type(out0(mm)), "Float(2, 7, 5, 4)");
  ck_assert_str_eq(pu_type(out0(mv)), "Float(2, 1, 5)");
  ck_assert_str_eq(pu_type(out0(gm)), "Float(6, 4)");
}
END_TEST

START_TEST(conv_pool_and_reduce) {
  const int64_t xd[] = {1, 3, 16, 16}, wd[] = {8, 3, 3, 3};
  oxp_value *x = in_val("x", OXP_DT_FLOAT, 4, xd, NULL);
  oxp_node *cv = op("Conv", "c", x, in_val("w", OXP_DT_FLOAT, 4, wd, NULL), NULL);
  const int64_t st[] = {2, 2}, pads[] = {1, 1, 1, 1}, k[] = {2, 2};
  oxp_attr_set_ints(cv, "strides", st, 2);
  oxp_attr_set_ints(cv, "pads", pads, 4);
  oxp_node *mp = op("MaxPool", "p", out0(cv), NULL, NULL);
  oxp_attr_set_ints(mp, "kernel_shape", k, 2);
  oxp_attr_set_ints(mp, "strides", k, 2);
  oxp_node *gap = op("GlobalAveragePool", "g", out0(mp), NULL, NULL);
  const int64_t axes[] = {2, 3};
  oxp_node *rm = op("ReduceMean", "r", out0(mp), NULL, NULL);
  oxp_attr_set_ints(rm, "axes", axes, 2);
  oxp_attr_set_i(rm, "keepdims", 0);
  oxp_node *rs = op("ReduceSum", "rs", out0(mp), const_i64("a1", 1, axes, 1), NULL);
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(infer(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_type(out0(cv)), "Float(1, 8, 8, 8)");
  ck_assert_str_eq(pu_type(out0(mp)), "Float(1, 8, 4, 4)");
  ck_assert_str_eq(pu_type(out0(gap)), "Float(1, 8, 1, 1)");
  ck_assert_str_eq(pu_type(out0(rm)), "Float(1, 8)");
  ck_assert_str_eq(pu_type(out0(rs)), "Float(1, 8, 1, 4)");
}
END_TEST

START_TEST(squeeze_unsqueeze_slice_cast_overwrite_trace) {
  const int64_t xd[] = {1, 5, 1};
  oxp_value *x = in_val("x", OXP_DT_FLOAT, 3, xd, NULL);
  oxp_node *sq = op("Squeeze", "s", x, NULL, NULL);
  const int64_t ax[] = {0, -1};
  oxp_attr_set_ints(sq, "axes", ax, 2);
  oxp_node *un = op("Unsqueeze", "u", out0(sq), const_i64("ua", 1, ax, 2), NULL);
  const int64_t b[] = {1}, e[] = {INT64_MAX}, a1[] = {1};
  oxp_node *sl = op("Slice", "sl", out0(un), const_i64("st", 1, b, 1), const_i64("en", 1, e, 1));
  oxp_node_add_input(sl, const_i64("axs", 1, a1, 1));
  oxp_node *ca = op("Cast", "c", out0(sl), NULL, NULL);
  oxp_attr_set_i(ca, "to", OXP_DT_INT64);
  /* A wrong traced type is overwritten. */
  const int64_t wrong[] = {9};
  out0(ca)->type = ty(OXP_DT_FLOAT, 1, wrong);
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(infer(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_type(out0(sq)), "Float(5)");
  ck_assert_str_eq(pu_type(out0(un)), "Float(1, 5, 1)");
  ck_assert_str_eq(pu_type(out0(sl)), "Float(1, 4, 1)");
  ck_assert_str_eq(pu_type(out0(ca)), "Long(1, 4, 1)");
}
END_TEST

START_TEST(unknown_op_keeps_traced_type) {
  const int64_t xd[] = {2};
  oxp_node *n = oxp_node_new(G, "org.pytorch.aten::ATen", 1);
  oxp_node_add_input(n, in_val("x", OXP_DT_FLOAT, 1, xd, NULL));
  n->outputs[0]->type = ty(OXP_DT_FLOAT, 1, xd);
  oxp_block_append(G->top, n);
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(infer(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_type(out0(n)), "Float(2)");
}
END_TEST

START_TEST(result_type_follows_torch) {
  oxp_operand i32t = {OXP_DT_INT32, false, false}, i64s = {OXP_DT_INT64, false, true},
              f64s = {OXP_DT_DOUBLE, false, true}, f16t = {OXP_DT_FLOAT16, false, false},
              f32z = {OXP_DT_FLOAT, true, false}, bt = {OXP_DT_BOOL, false, false},
              i64t = {OXP_DT_INT64, false, false}, f32t = {OXP_DT_FLOAT, false, false};
  oxp_operand a[2];
  a[0] = i32t, a[1] = i64s;
  ck_assert_int_eq(oxp_result_type(a, 2), OXP_DT_INT32);
  a[1] = f64s;
  ck_assert_int_eq(oxp_result_type(a, 2), OXP_DT_FLOAT);
  a[0] = f16t, a[1] = f32z;
  ck_assert_int_eq(oxp_result_type(a, 2), OXP_DT_FLOAT16);
  a[0] = bt, a[1] = i64s;
  ck_assert_int_eq(oxp_result_type(a, 2), OXP_DT_INT64);
  a[0] = i64t, a[1] = f32t;
  ck_assert_int_eq(oxp_result_type(a, 2), OXP_DT_FLOAT);
  ck_assert_int_eq(oxp_promote_types(OXP_DT_UINT8, OXP_DT_INT8), OXP_DT_INT16);
}
END_TEST

int main(void) {
  Suite *s = suite_create("shape_infer");
  TCase *t = tcase_create("core");
  tcase_add_checked_fixture(t, pu_setup, pu_teardown);
  tcase_add_test(t, broadcast_keeps_dim_params);
  tcase_add_test(t, broadcast_error_names_op_location_and_shapes);
  tcase_add_test(t, reshape_minus1_and_zero);
  tcase_add_test(t, shape_data_propagates_dim_params);
  tcase_add_test(t, matmul_batched_and_gemm);
  tcase_add_test(t, conv_pool_and_reduce);
  tcase_add_test(t, squeeze_unsqueeze_slice_cast_overwrite_trace);
  tcase_add_test(t, unknown_op_keeps_traced_type);
  tcase_add_test(t, result_type_follows_torch);
  tcase_add_test(t, shape_data_arith_by_op);
  suite_add_tcase(s, t);
  return oxp_check_run(s);
}
