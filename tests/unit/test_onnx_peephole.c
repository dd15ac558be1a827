/* test_onnx_peephole.c: ONNX peephole rewrites (onnx_peephole.c),
 * initializer dedup (dedup_inits.c) and CSE (onnx_cse.c). */
#include <math.h>

#include "check_main.h"
#include "pass_util.h"

static oxp_pass P;

static oxp_status peep(oxp_options *o, oxp_diag *d) {
  P = pu_pass(o, d);
  oxp_status st = oxp_shape_infer(&P);
  return st ? st : oxp_onnx_peephole(&P);
}

static const float W6[6] = {1, 2, 3, 4, 5, 6};

/* linear on 2-D input lowered as MatMul(x, Transpose(W)) + b. */
START_TEST(matmul_add_becomes_gemm_with_transb) {
  const int64_t wd[] = {2, 3}, xd[] = {4, 3}, bd[] = {2};
  oxp_value *w = weight("w", 2, wd, W6), *b = weight("b", 1, bd, W6);
  oxp_node *t = op("Transpose", "wt", w, NULL, NULL);
  const int64_t perm[] = {1, 0};
  oxp_attr_set_ints(t, "perm", perm, 2);
  oxp_node *mm = op("MatMul", "m", in_val("x", OXP_DT_FLOAT, 2, xd, NULL), out0(t), NULL);
  oxp_node *add = op("Add", "y", out0(mm), b, NULL);
  oxp_block_add_output(G->top, out0(add));
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(peep(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_str(G->top), "Transpose(w)->wt; Gemm(x,w,b)->y");
  ck_assert_int_eq(oxp_attr_get(G->top->last, "transB")->i, 1);
  ck_assert_ptr_eq(G->top->outputs[0], G->top->last->outputs[0]);
}
END_TEST

/* A 3-D input keeps MatMul + Add (Gemm is 2-D only). */
START_TEST(matmul_3d_stays) {
  const int64_t wd[] = {3, 2}, xd[] = {5, 4, 3}, bd[] = {2};
  oxp_node *mm = op("MatMul", "m", in_val("x", OXP_DT_FLOAT, 3, xd, NULL), weight("w", 2, wd, W6), NULL);
  oxp_block_add_output(G->top, out0(op("Add", "y", out0(mm), weight("b", 1, bd, W6), NULL)));
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(peep(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_str(G->top), "MatMul(x,w)->m; Add(m,b)->y");
}
END_TEST

START_TEST(transposes_fuse_and_cancel) {
  const int64_t xd[] = {2, 3, 4};
  oxp_value *x = in_val("x", OXP_DT_FLOAT, 3, xd, NULL);
  const int64_t p1[] = {1, 0, 2}, p2[] = {0, 2, 1};
  oxp_node *t1 = op("Transpose", "a", x, NULL, NULL);
  oxp_attr_set_ints(t1, "perm", p1, 3);
  oxp_node *t2 = op("Transpose", "b", out0(t1), NULL, NULL);
  oxp_attr_set_ints(t2, "perm", p2, 3);
  oxp_node *t3 = op("Transpose", "c", out0(t1), NULL, NULL);
  oxp_attr_set_ints(t3, "perm", p1, 3);
  oxp_block_add_output(G->top, out0(op("Relu", "y", out0(t2), NULL, NULL)));
  oxp_block_add_output(G->top, out0(op("Relu", "z", out0(t3), NULL, NULL)));
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(peep(&o, &d), OXP_OK);
  /* b = x.permute(1,0,2).permute(0,2,1) = x.permute(1,2,0); c cancels. */
  ck_assert_str_eq(pu_str(G->top), "Transpose(x)->a; Transpose(x)->b; Relu(b)->y; Relu(x)->z");
  const oxp_attr *pa = oxp_attr_get(out0(t2)->producer, "perm");
  ck_assert(pa->ints[0] == 1 && pa->ints[1] == 2 && pa->ints[2] == 0);
}
END_TEST

/* No-op Identity/Cast/Reshape go; an output keeps its name by taking
 * over its producer's output. */
START_TEST(noops_go_and_outputs_keep_names) {
  const int64_t xd[] = {2, 3};
  oxp_value *x = in_val("x", OXP_DT_FLOAT, 2, xd, NULL);
  oxp_node *r = op("Relu", "r", x, NULL, NULL);
  oxp_node *c = op("Cast", "c", out0(r), NULL, NULL);
  oxp_attr_set_i(c, "to", OXP_DT_FLOAT);
  oxp_node *rs = op("Reshape", "rs", out0(c), const_i64("s", 1, xd, 2), NULL);
  oxp_node *id = op("Identity", "out", out0(rs), NULL, NULL);
  oxp_block_add_output(G->top, out0(id));
  /* An Identity from a graph input to an output must stay. */
  oxp_block_add_output(G->top, out0(op("Identity", "out2", x, NULL, NULL)));
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(peep(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_str(G->top), "Relu(x)->out; Identity(x)->out2");
  ck_assert_str_eq(G->top->outputs[0]->name, "out");
}
END_TEST

START_TEST(conv_batchnorm_folds) {
  const int64_t xd[] = {1, 2, 4, 4}, wd[] = {2, 2, 1, 1}, cd[] = {2};
  static const float w[4] = {1, 2, 3, 4}, sc[2] = {2, 3}, bi[2] = {0.5f, -1},
                     mean[2] = {1, 2}, var[2] = {3, 8};
  oxp_node *cv = op("Conv", "c", in_val("x", OXP_DT_FLOAT, 4, xd, NULL), weight("w", 4, wd, w), NULL);
  oxp_node *bn = op("BatchNormalization", "y", out0(cv), weight("s", 1, cd, sc), weight("b", 1, cd, bi));
  oxp_node_add_input(bn, weight("m", 1, cd, mean));
  oxp_node_add_input(bn, weight("v", 1, cd, var));
  oxp_attr_set_f(bn, "epsilon", 1);
  oxp_block_add_output(G->top, out0(bn));
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(peep(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_str(G->top), "Conv(x,onnxexp::bnfold_w_0,onnxexp::bnfold_b_1)->y");
  const oxp_tensor *nw = cv->inputs[1]->init, *nb = cv->inputs[2]->init;
  /* alpha = scale / sqrt(var + eps) = 2/2, 3/3 */
  ck_assert(fabs(oxp_tensor_get_f(nw, 0) - 1) < 1e-6 && fabs(oxp_tensor_get_f(nw, 3) - 4) < 1e-6);
  ck_assert(fabs(oxp_tensor_get_f(nb, 0) - (-1 * 1 + 0.5)) < 1e-6);
  ck_assert(fabs(oxp_tensor_get_f(nb, 1) - (-2 * 1 - 1)) < 1e-6);
  ck_assert(w[0] == 1); /* the weight itself is never written */
}
END_TEST

START_TEST(training_mode_keeps_batchnorm) {
  const int64_t xd[] = {1, 2, 4, 4}, wd[] = {2, 2, 1, 1}, cd[] = {2};
  static const float w[4] = {1, 2, 3, 4}, v2[2] = {1, 1};
  oxp_node *cv = op("Conv", "c", in_val("x", OXP_DT_FLOAT, 4, xd, NULL), weight("w", 4, wd, w), NULL);
  oxp_node *bn = op("BatchNormalization", "y", out0(cv), weight("s", 1, cd, v2), weight("b", 1, cd, v2));
  oxp_node_add_input(bn, weight("m", 1, cd, v2));
  oxp_node_add_input(bn, weight("v", 1, cd, v2));
  oxp_block_add_output(G->top, out0(bn));
  oxp_options o = pu_opts();
  o.training = OXP_TRAIN_TRAIN;
  oxp_diag d = {0};
  ck_assert_int_eq(peep(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_str(G->top), "Conv(x,w)->c; BatchNormalization(c,s,b,m,v)->y");
}
END_TEST

START_TEST(dedup_then_cse) {
  const int64_t xd[] = {2}, one = 1;
  oxp_value *x = in_val("x", OXP_DT_INT64, 1, xd, NULL);
  oxp_node *a = op("Add", "a", x, const_i64("k1", 0, &one, 1), NULL);
  oxp_node *b = op("Add", "b", x, const_i64("k2", 0, &one, 1), NULL);
  oxp_block_add_output(G->top, out0(op("Mul", "y", out0(a), out0(b), NULL)));
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  P = pu_pass(&o, &d);
  ck_assert_int_eq(oxp_dedup_inits(&P), OXP_OK);
  ck_assert_int_eq(oxp_onnx_cse(&P), OXP_OK);
  ck_assert_str_eq(pu_str(G->top), "Add(x,k1)->a; Mul(a,a)->y");
}
END_TEST

/* The sampled hash must not stand in for the comparison: big tensors
 * that differ only between the sampled slices stay apart, equal ones
 * merge. */
START_TEST(dedup_compares_big_tensors_in_full) {
  enum { N = 64 * 1024 };
  static float a[N], b[N], e[N];
  for (int i = 0; i < N; i++) a[i] = b[i] = e[i] = (float)(i % 97);
  b[1044] = -1; /* byte 4176: past the first 4 KiB and the first slice */
  const int64_t dims[1] = {N}, xd[1] = {N};
  oxp_value *x = in_val("x", OXP_DT_FLOAT, 1, xd, NULL);
  oxp_node *p = op("Add", "p", x, weight("wa", 1, dims, a), NULL);
  oxp_node *q = op("Add", "q", out0(p), weight("wb", 1, dims, b), NULL);
  oxp_node *r = op("Add", "r", out0(q), weight("we", 1, dims, e), NULL);
  oxp_block_add_output(G->top, out0(r));
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  P = pu_pass(&o, &d);
  ck_assert_int_eq(oxp_dedup_inits(&P), OXP_OK);
  ck_assert_str_eq(pu_str(G->top), "Add(x,wa)->p; Add(p,wb)->q; Add(q,wa)->r");
}
END_TEST

/* cross_entropy lowered as NLL(LogSoftmax(x)): one SoftmaxCrossEntropyLoss,
 * and the LogSoftmax goes once nothing else reads it. */
START_TEST(nll_of_log_softmax_becomes_sce) {
  const int64_t xd[] = {3, 5}, td[] = {3};
  oxp_value *x = in_val("x", OXP_DT_FLOAT, 2, xd, NULL);
  oxp_value *t = in_val("t", OXP_DT_INT64, 1, td, NULL);
  oxp_node *ls = op("LogSoftmax", "lp", x, NULL, NULL);
  oxp_attr_set_i(ls, "axis", 1);
  oxp_node *nll = op("NegativeLogLikelihoodLoss", "loss", out0(ls), t, NULL);
  oxp_attr_set_s(nll, "reduction", "sum");
  oxp_attr_set_i(nll, "ignore_index", 2);
  oxp_block_add_output(G->top, out0(nll));
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(peep(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_str(G->top), "LogSoftmax(x)->lp; SoftmaxCrossEntropyLoss(x,t)->loss");
  oxp_node *sce = G->top->last;
  ck_assert_str_eq(oxp_attr_get(sce, "reduction")->s, "sum");
  ck_assert_int_eq(oxp_attr_get(sce, "ignore_index")->i, 2);
  ck_assert_int_eq(out0(ls)->nuses, 0);
}
END_TEST

/* An int list of sizes nests Concats (the list, then the sizes around
 * it): one axis flattens into one Concat; the inner one stays while
 * another node reads it; another axis is left alone. */
START_TEST(nested_concats_flatten) {
  const int64_t d1[] = {1}, d2[] = {2, 1};
  oxp_value *a = in_val("a", OXP_DT_INT64, 1, d1, NULL), *b = in_val("b", OXP_DT_INT64, 1, d1, NULL);
  oxp_value *c = in_val("c", OXP_DT_INT64, 1, d1, NULL);
  oxp_node *inner = op("Concat", "i", a, b, NULL);
  oxp_attr_set_i(inner, "axis", 0);
  oxp_node *outer = op("Concat", "o", c, out0(inner), NULL);
  oxp_attr_set_i(outer, "axis", 0);
  oxp_node *other = op("Concat", "p", out0(inner), c, NULL);
  oxp_attr_set_i(other, "axis", 0);
  oxp_value *m = in_val("m", OXP_DT_INT64, 2, d2, NULL);
  oxp_node *i2 = op("Concat", "q", m, m, NULL);
  oxp_attr_set_i(i2, "axis", 1);
  oxp_node *o2 = op("Concat", "r", out0(i2), m, NULL);
  oxp_attr_set_i(o2, "axis", 0);
  oxp_block_add_output(G->top, out0(outer));
  oxp_block_add_output(G->top, out0(other));
  oxp_block_add_output(G->top, out0(o2));
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(peep(&o, &d), OXP_OK);
  ck_assert_str_eq(pu_str(G->top), "Concat(a,b)->i; Concat(c,a,b)->o; Concat(a,b,c)->p; "
                                   "Concat(m,m)->q; Concat(q,m)->r");
  ck_assert_int_eq(oxp_attr_get(G->top->outputs[0]->producer, "axis")->i, 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("onnx_peephole");
  TCase *t = tcase_create("core");
  tcase_add_checked_fixture(t, pu_setup, pu_teardown);
  tcase_add_test(t, matmul_add_becomes_gemm_with_transb);
  tcase_add_test(t, matmul_3d_stays);
  tcase_add_test(t, transposes_fuse_and_cancel);
  tcase_add_test(t, noops_go_and_outputs_keep_names);
  tcase_add_test(t, conv_batchnorm_folds);
  tcase_add_test(t, training_mode_keeps_batchnorm);
  tcase_add_test(t, dedup_then_cse);
  tcase_add_test(t, dedup_compares_big_tensors_in_full);
  tcase_add_test(t, nll_of_log_softmax_becomes_sce);
  tcase_add_test(t, nested_concats_flatten);
  suite_add_tcase(s, t);
  return oxp_check_run(s);
}
