/* test_const_fold.c: constant folding (const_fold.c, fold_eval.c). */
#include "check_main.h"
#include "pass_util.h"

static oxp_status fold(oxp_options *o, oxp_diag *d) {
  oxp_pass p = pu_pass(o, d);
  oxp_status st = oxp_shape_infer(&p);
  return st ? st : oxp_const_fold(&p);
}

static const float W6[6] = {1, 2, 3, 4, 5, 6};

/* Transpose of a weight becomes a new initializer; the weight's bytes
 * (read-only, as in the mmap) are only read. */
START_TEST(transpose_of_weight_folds_without_writing_it) {
  const int64_t wd[] = {2, 3}, xd[] = {4, 3};
  oxp_value *w = weight("w", 2, wd, W6);
  oxp_node *t = op("Transpose", "wt", w, NULL, NULL);
  const int64_t perm[] = {1, 0};
  oxp_attr_set_ints(t, "perm", perm, 2);
  oxp_node *mm = op("MatMul", "y", in_val("x", OXP_DT_FLOAT, 2, xd, NULL), out0(t), NULL);
  oxp_block_add_output(G->top, out0(mm));
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(fold(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_str(G->top), "MatMul(x,wt)->y");
  oxp_value *wt = mm->inputs[1];
  ck_assert_ptr_null(wt->producer);
  ck_assert_ptr_nonnull(wt->init);
  ck_assert_int_eq(wt->init->dims[0], 3);
  const float *f = wt->init->data;
  ck_assert(f[0] == 1 && f[1] == 4 && f[2] == 2 && f[5] == 6);
  ck_assert(w->init->data == W6);
}
END_TEST

/* Chains fold in one walk: Concat(Unsqueeze(Cast(c)), c2) then Reshape. */
START_TEST(chain_of_int_ops_folds) {
  const int64_t one = 3, two[] = {5}, zero = 0;
  oxp_node *u = op("Unsqueeze", "u", const_i64("c", 0, &one, 1), const_i64("ax", 1, &zero, 1), NULL);
  oxp_node *cat = op("Concat", "s", out0(u), const_i64("c2", 1, two, 1), NULL);
  oxp_attr_set_i(cat, "axis", 0);
  const int64_t xd[] = {15};
  oxp_node *r = op("Reshape", "y", in_val("x", OXP_DT_FLOAT, 1, xd, NULL), out0(cat), NULL);
  oxp_block_add_output(G->top, out0(r));
  oxp_value *sv = out0(cat); /* folding detaches it from its node */
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(fold(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_str(G->top), "Reshape(x,s)->y");
  const oxp_tensor *s = sv->init;
  ck_assert_int_eq(oxp_tensor_get_i(s, 0), 3);
  ck_assert_int_eq(oxp_tensor_get_i(s, 1), 5);
}
END_TEST

/* x.size(1) with a dynamic batch: Gather of a static dim of Shape folds,
 * Gather of the dynamic one stays. */
START_TEST(static_dim_of_dynamic_shape_folds) {
  const int64_t xd[] = {0, 7};
  const char *xp[] = {"batch", NULL};
  oxp_value *x = in_val("x", OXP_DT_FLOAT, 2, xd, xp);
  oxp_node *sh = op("Shape", "s", x, NULL, NULL);
  const int64_t i1 = 1, i0 = 0;
  oxp_node *g1 = op("Gather", "d1", out0(sh), const_i64("i1", 0, &i1, 1), NULL);
  oxp_node *g0 = op("Gather", "d0", out0(sh), const_i64("i0", 0, &i0, 1), NULL);
  oxp_node *m = op("Mul", "p", out0(g0), out0(g1), NULL);
  oxp_block_add_output(G->top, out0(m));
  oxp_value *d1 = out0(g1);
  oxp_options o = pu_opts();
  oxp_dyn_axis ax = {"x", 0, "batch"};
  o.dynamic_axes = &ax;
  o.n_dynamic_axes = 1;
  oxp_diag d = {0};
  ck_assert_int_eq(fold(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_str(G->top), "Shape(x)->s; Gather(s,i0)->d0; Mul(d0,d1)->p");
  ck_assert_int_eq(oxp_tensor_get_i(d1->init, 0), 7);
}
END_TEST

START_TEST(size_limit_keeps_big_constant_of_shape) {
  const int64_t big[] = {1024, 1024}, small[] = {1, 1};
  oxp_node *c1 = op("ConstantOfShape", "big", const_i64("bs", 1, big, 2), NULL, NULL);
  oxp_node *c2 = op("ConstantOfShape", "small", const_i64("ss", 1, small, 2), NULL, NULL);
  oxp_node *a = op("Add", "y", out0(c1), out0(c2), NULL);
  oxp_block_add_output(G->top, out0(a));
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(fold(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_str(G->top), "ConstantOfShape(bs)->big; Add(big,small)->y");
}
END_TEST

/* An output keeps its producer; arithmetic and Cast fold below it. */
START_TEST(graph_output_is_not_folded_away) {
  const float v[2] = {4, 9};
  const int64_t d2[] = {2};
  oxp_node *sq = op("Sqrt", "r", const_f32("c", 1, d2, v), NULL, NULL);
  oxp_node *ng = op("Neg", "n", out0(sq), NULL, NULL);
  oxp_node *ca = op("Cast", "y", out0(ng), NULL, NULL);
  oxp_attr_set_i(ca, "to", OXP_DT_INT64);
  oxp_block_add_output(G->top, out0(ca));
  oxp_value *nv = out0(ng);
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(fold(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_str(G->top), "Cast(n)->y");
  ck_assert(oxp_tensor_get_f(nv->init, 1) == -3);
}
END_TEST

/* keep_initializers_as_inputs: a runtime input may replace the weight. */
START_TEST(overridable_weights_do_not_fold) {
  const int64_t wd[] = {2, 3};
  oxp_node *t = op("Transpose", "wt", weight("w", 2, wd, W6), NULL, NULL);
  oxp_block_add_output(G->top, out0(op("Relu", "y", out0(t), NULL, NULL)));
  oxp_options o = pu_opts();
  o.keep_initializers_as_inputs = true;
  oxp_diag d = {0};
  ck_assert_int_eq(fold(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_str(G->top), "Transpose(w)->wt; Relu(wt)->y");
}
END_TEST

START_TEST(slice_gather_where_evaluate) {
  const int64_t v[] = {10, 11, 12, 13, 14}, st = 1, en = -1, ix[] = {3, 0};
  oxp_value *c = const_i64("c", 1, v, 5);
  oxp_node *sl = op("Slice", "sl", c, const_i64("st", 1, &st, 1), const_i64("en", 1, &en, 1));
  oxp_node *g = op("Gather", "g", c, const_i64("ix", 1, ix, 2), NULL);
  oxp_node *eq = op("Less", "lt", out0(g), const_i64("t", 0, &v[2], 1), NULL);
  oxp_node *w = op("Where", "w", out0(eq), out0(g), const_i64("z", 0, &st, 1));
  oxp_block_add_output(G->top, out0(op("Identity", "y", out0(sl), NULL, NULL)));
  oxp_block_add_output(G->top, out0(op("Identity", "y2", out0(w), NULL, NULL)));
  oxp_value *slv = out0(sl), *wv = out0(w);
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(fold(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_str(G->top), "Identity(sl)->y; Identity(w)->y2");
  const oxp_tensor *s = slv->init, *wt = wv->init;
  ck_assert_int_eq(oxp_tensor_numel(s), 3);
  ck_assert_int_eq(oxp_tensor_get_i(s, 0), 11);
  ck_assert_int_eq(oxp_tensor_get_i(s, 2), 13);
  ck_assert_int_eq(oxp_tensor_get_i(wt, 0), 1);  /* 13 < 12 is false */
  ck_assert_int_eq(oxp_tensor_get_i(wt, 1), 10);
}
END_TEST

/* A big Transpose folds to a recipe, not a copy (tensor_bytes.c); a Reshape
 * of it stays one; readers of a few bytes (at any offset) and of elements
 * see the eager transpose's values without making it, and an evaluator
 * that needs all of one (Slice) makes that one, once. */
START_TEST(big_transpose_folds_lazily) {
  enum { P = 4, Q = 257, S = 300, N = P * Q * S }; /* 1.2 MB */
  float *v = malloc(sizeof(float) * N), *want = malloc(sizeof(float) * N);
  for (int i = 0; i < N; i++) v[i] = (float)i;
  for (int a = 0; a < P; a++) /* perm {2, 0, 1}: want[s][a][q] = v[a][q][s] */
    for (int q = 0; q < Q; q++)
      for (int c = 0; c < S; c++) want[(c * P + a) * Q + q] = v[(a * Q + q) * S + c];
  const int64_t wd[] = {P, Q, S}, perm[] = {2, 0, 1}, shape[] = {S, P * Q};
  const int64_t st = 1, en = 3;
  oxp_value *w = weight("w", 3, wd, v), *s = const_i64("s", 1, shape, 2);
  oxp_node *t = op("Transpose", "t", w, NULL, NULL), *t2 = op("Transpose", "t2", w, NULL, NULL);
  oxp_attr_set_ints(t, "perm", perm, 3);
  oxp_attr_set_ints(t2, "perm", perm, 3);
  oxp_node *r = op("Reshape", "r", out0(t), s, NULL), *r2 = op("Reshape", "r2", out0(t2), s, NULL);
  oxp_node *sl = op("Slice", "sl", out0(r2), const_i64("st", 1, &st, 1), const_i64("en", 1, &en, 1));
  oxp_block_add_output(G->top, out0(op("Identity", "y", out0(r), NULL, NULL)));
  oxp_block_add_output(G->top, out0(op("Identity", "y2", out0(sl), NULL, NULL)));
  oxp_value *rv = out0(r), *slv = out0(sl), *tv = out0(t2);
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(fold(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_str(G->top), "Identity(r)->y; Identity(sl)->y2");
  const oxp_tensor *rt = rv->init;
  ck_assert_int_eq(rt->rank, 2);
  ck_assert_int_eq(rt->dims[1], P * Q);
  ck_assert(oxp_tensor_is_lazy(rt));
  unsigned char got[4099];
  oxp_tensor_read(rt, 4 * 1000 + 3, got, sizeof got);
  ck_assert(memcmp(got, (const unsigned char *)want + 4 * 1000 + 3, sizeof got) == 0);
  ck_assert(oxp_tensor_get_f(rt, N - 1) == want[N - 1]);
  ck_assert(oxp_tensor_get_f(rt, 12345) == want[12345]);
  ck_assert(v[0] == 0); /* the weight is only read */
  /* Slice read all of t2's: made, and with it the Transpose's recipe */
  ck_assert(!oxp_tensor_is_lazy(tv->init));
  ck_assert(memcmp(tv->init->data, want, sizeof(float) * N) == 0);
  ck_assert(oxp_tensor_is_lazy(rt));
  ck_assert(memcmp(oxp_tensor_data(rt), want, sizeof(float) * N) == 0);
  ck_assert(!oxp_tensor_is_lazy(rt));
  ck_assert_int_eq(slv->init->dims[0], 2);
  ck_assert(memcmp(slv->init->data, want + P * Q, sizeof(float) * 2 * P * Q) == 0);
  free(v);
  free(want);
}
END_TEST

int main(void) {
  Suite *s = suite_create("const_fold");
  TCase *t = tcase_create("core");
  tcase_add_checked_fixture(t, pu_setup, pu_teardown);
  tcase_add_test(t, transpose_of_weight_folds_without_writing_it);
  tcase_add_test(t, chain_of_int_ops_folds);
  tcase_add_test(t, static_dim_of_dynamic_shape_folds);
  tcase_add_test(t, size_limit_keeps_big_constant_of_shape);
  tcase_add_test(t, graph_output_is_not_folded_away);
  tcase_add_test(t, overridable_weights_do_not_fold);
  tcase_add_test(t, slice_gather_where_evaluate);
  tcase_add_test(t, big_transpose_folds_lazily);
  suite_add_tcase(s, t);
  return oxp_check_run(s);
}
