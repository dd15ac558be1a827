/* test_bind.c: binding the weights sidecar to a graph built with the IR
 * API, as the parser would build it for `graph(%x : Float(1, 4),
 * %fc.weight : Float(3, 4), %fc.bias : Float(3)): ...`. */
#include <check.h>
#include "check_main.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxp.h"
#include "st_build.h"

static oxp_arena *A;
static oxp_graph *G;

static void setup(void) {
  A = oxp_arena_new();
  G = oxp_graph_new(A, "model.ir");
}

static void teardown(void) { oxp_arena_free(A); }

/* A sidecar named "w.safetensors" held in the arena. */
static oxp_safetensors *sidecar(const char *json, const void *data,
                                size_t dlen) {
  size_t n;
  unsigned char *tmp = st_build(json, data, dlen, &n);
  void *buf = oxp_alloc(A, n);
  memcpy(buf, tmp, n);
  free(tmp);
  oxp_safetensors *st = NULL;
  oxp_diag d = {0};
  oxp_status s = oxp_st_from_memory(A, "w.safetensors", buf, n, &st, &d);
  ck_assert_msg(s == OXP_OK, "sidecar: %s", d.message);
  return st;
}

/* Binding the sidecar made of json and data fails with exactly msg. */
static void bind_fails(const char *json, const void *data, size_t dlen,
                       const char *msg) {
  oxp_safetensors *st = sidecar(json, data, dlen);
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_bind_weights(G, st, NULL, NULL, &d), OXP_ERR_WEIGHTS);
  ck_assert_str_eq(d.message, msg);
}

static oxp_type *ftype(int rank, const int64_t *dims) {
  return oxp_type_tensor(A, OXP_DT_FLOAT, rank, dims);
}

static oxp_value *input(const char *name, oxp_type *t) {
  return oxp_block_add_input(G->top, name, t);
}

/* `%name : Float(dims) = prim::Constant[value=...]()` at the given line;
 * data NULL stands for a printed `<Tensor>`. */
static oxp_node *constant(oxp_block *b, const char *name, int rank,
                          const int64_t *dims, const void *data, int line) {
  oxp_node *n = oxp_node_new(G, "prim::Constant", 1);
  n->outputs[0]->name = name;
  n->outputs[0]->type = ftype(rank, dims);
  n->loc = (oxp_loc){"model.ir", line, 3};
  int64_t numel = 1;
  for (int i = 0; i < rank; i++) numel *= dims[i];
  oxp_tensor *t = oxp_tensor_new(A, OXP_DT_FLOAT, rank, dims, data,
                                 data ? 4 * (size_t)numel : 0);
  oxp_attr_set_t(n, "value", t);
  oxp_block_append(b, n);
  return n;
}

typedef struct {
  int count;
  char last[512];
} warnings;

static void collect(void *user, const char *msg) {
  warnings *w = user;
  w->count++;
  snprintf(w->last, sizeof w->last, "%s", msg);
}

static const float W[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};

START_TEST(bind_sets_initializers) {
  const int64_t x[] = {1, 4}, w[] = {3, 4}, b[] = {3};
  oxp_value *vx = input("x", ftype(2, x));
  oxp_value *vw = input("fc.weight", ftype(2, w));
  oxp_value *vb = input("fc.bias", ftype(1, b));
  float all[15];
  memcpy(all, W, sizeof W);
  all[12] = -1, all[13] = -2, all[14] = -3;
  oxp_safetensors *st = sidecar(
      "{\"fc.weight\":{\"dtype\":\"F32\",\"shape\":[3,4],"
      "\"data_offsets\":[0,48]},"
      "\"fc.bias\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[48,60]}}",
      all, sizeof all);
  oxp_diag d = {0};
  warnings wn = {0};
  ck_assert_int_eq(oxp_bind_weights(G, st, collect, &wn, &d), OXP_OK);
  ck_assert_int_eq(d.status, OXP_OK);
  ck_assert_int_eq(wn.count, 0);
  ck_assert_ptr_null(vx->init);
  ck_assert_ptr_nonnull(vw->init);
  ck_assert_ptr_eq(vw->init->data, oxp_st_find(st, "fc.weight")->t.data);
  ck_assert_ptr_ne(vw->init, &oxp_st_find(st, "fc.weight")->t);
  ck_assert_int_eq(vw->init->dtype, OXP_DT_FLOAT);
  ck_assert_int_eq(vw->init->rank, 2);
  ck_assert_int_eq(vw->init->dims[0], 3);
  ck_assert_int_eq(vw->init->dims[1], 4);
  ck_assert_uint_eq(vw->init->nbytes, 48);
  ck_assert_double_eq(oxp_tensor_get_f(vw->init, 11), 11.0);
  ck_assert_double_eq(oxp_tensor_get_f(vb->init, 2), -3.0);
  ck_assert_uint_eq(vb->init->src_offset,
                    oxp_st_find(st, "fc.bias")->t.src_offset);
}
END_TEST

START_TEST(bind_shape_mismatch) {
  const int64_t w[] = {4, 3};
  input("fc.weight", ftype(2, w));
  oxp_safetensors *st = sidecar(
      "{\"fc.weight\":{\"dtype\":\"F32\",\"shape\":[3,4],"
      "\"data_offsets\":[0,48]}}",
      W, sizeof W);
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_bind_weights(G, st, NULL, NULL, &d), OXP_ERR_WEIGHTS);
  ck_assert_str_eq(d.message,
                   "weight 'fc.weight' has shape [3, 4] but graph input "
                   "%fc.weight is declared Float(4, 3)");
  ck_assert_str_eq(d.file, "w.safetensors");
  ck_assert_ptr_null(G->top->inputs[0]->init);
}
END_TEST

START_TEST(bind_rank_mismatch) {
  const int64_t w[] = {12};
  input("fc.weight", ftype(1, w));
  bind_fails("{\"fc.weight\":{\"dtype\":\"F32\",\"shape\":[3,4],"
             "\"data_offsets\":[0,48]}}",
             W, sizeof W,
             "weight 'fc.weight' has shape [3, 4] but graph input "
             "%fc.weight is declared Float(12)");
}
END_TEST

START_TEST(bind_dtype_mismatch) {
  const int64_t w[] = {3, 4};
  input("fc.weight", ftype(2, w));
  bind_fails("{\"fc.weight\":{\"dtype\":\"F16\",\"shape\":[3,4],"
             "\"data_offsets\":[0,24]}}",
             W, 24,
             "weight 'fc.weight' has dtype float16 but graph input "
             "%fc.weight is declared Float(3, 4)");
}
END_TEST

START_TEST(bind_non_tensor_input) {
  input("n", oxp_type_new(A, OXP_T_INT));
  int64_t v = 3;
  bind_fails("{\"n\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[0,8]}}", &v,
             8,
             "weight 'n' is a tensor but graph input %n is declared int");
}
END_TEST

START_TEST(bind_known_dim_of_partial_shape_still_checked) {
  const int64_t w[] = {-1, 5};
  input("fc.weight", ftype(2, w));
  bind_fails("{\"fc.weight\":{\"dtype\":\"F32\",\"shape\":[3,4],"
             "\"data_offsets\":[0,48]}}",
             W, sizeof W,
             "weight 'fc.weight' has shape [3, 4] but graph input "
             "%fc.weight is declared Float(*, 5)");
}
END_TEST

/* `Float(*, 4)` and a bare `Tensor` accept any size there, and binding
 * makes the type exact. */
START_TEST(bind_partial_declarations_bind_and_refine) {
  const int64_t w[] = {-1, 4};
  oxp_value *vw = input("fc.weight", ftype(2, w));
  oxp_value *vt = input("t", oxp_type_tensor(A, 0, -1, NULL));
  float data[14] = {0};
  oxp_safetensors *st = sidecar(
      "{\"fc.weight\":{\"dtype\":\"F32\",\"shape\":[3,4],"
      "\"data_offsets\":[0,48]},"
      "\"t\":{\"dtype\":\"I32\",\"shape\":[2],\"data_offsets\":[48,56]}}",
      data, sizeof data);
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_bind_weights(G, st, NULL, NULL, &d), OXP_OK);
  ck_assert_ptr_nonnull(vw->init);
  ck_assert_ptr_nonnull(vt->init);
  char buf[64];
  oxp_type_print(vw->type, buf, sizeof buf);
  ck_assert_str_eq(buf, "Float(3, 4)");
  oxp_type_print(vt->type, buf, sizeof buf);
  ck_assert_str_eq(buf, "Int(2)");
}
END_TEST

START_TEST(bind_parameter_without_weight_stays_input) {
  const int64_t w[] = {3, 4};
  oxp_value *vw = input("fc.weight", ftype(2, w));
  oxp_safetensors *st = sidecar("{}", NULL, 0);
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_bind_weights(G, st, NULL, NULL, &d), OXP_OK);
  ck_assert_ptr_null(vw->init);
  ck_assert_int_eq(oxp_bind_weights(G, NULL, NULL, NULL, &d), OXP_OK);
}
END_TEST

START_TEST(bind_constant_override) {
  const int64_t dims[] = {2};
  const float printed[2] = {0.123457f, 2};
  oxp_node *c = constant(G->top, "23", 1, dims, printed, 7);
  const float exact[2] = {0.12345678f, 2};
  oxp_safetensors *st = sidecar(
      "{\"constant:23\":{\"dtype\":\"F32\",\"shape\":[2],"
      "\"data_offsets\":[0,8]}}",
      exact, sizeof exact);
  warnings wn = {0};
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_bind_weights(G, st, collect, &wn, &d), OXP_OK);
  ck_assert_int_eq(wn.count, 0);
  const oxp_attr *a = oxp_attr_get(c, "value");
  ck_assert_int_eq(a->kind, OXP_A_TENSOR);
  ck_assert_ptr_eq(a->t->data, oxp_st_find(st, "constant:23")->t.data);
  ck_assert_float_eq((float)oxp_tensor_get_f(a->t, 0), 0.12345678f);
  ck_assert_ptr_null(c->outputs[0]->init); /* constants stay nodes */
}
END_TEST

/* A `<Tensor>` constant inside a prim::If branch gets its data too. */
START_TEST(bind_constant_in_nested_block) {
  oxp_node *ifn = oxp_node_new(G, "prim::If", 0);
  oxp_block_append(G->top, ifn);
  oxp_block *then = oxp_node_add_block(ifn);
  oxp_node_add_block(ifn);
  const int64_t dims[] = {3, 4};
  oxp_node *c = constant(then, "k.1", 2, dims, NULL, 9);
  oxp_safetensors *st = sidecar(
      "{\"constant:k.1\":{\"dtype\":\"F32\",\"shape\":[3,4],"
      "\"data_offsets\":[0,48]}}",
      W, sizeof W);
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_bind_weights(G, st, NULL, NULL, &d), OXP_OK);
  const oxp_attr *a = oxp_attr_get(c, "value");
  ck_assert_ptr_nonnull(a->t->data);
  ck_assert_double_eq(oxp_tensor_get_f(a->t, 5), 5.0);
}
END_TEST

START_TEST(bind_constant_shape_mismatch) {
  const int64_t dims[] = {2};
  const float printed[2] = {1, 2};
  constant(G->top, "23", 1, dims, printed, 7);
  oxp_safetensors *st = sidecar(
      "{\"constant:23\":{\"dtype\":\"F32\",\"shape\":[3],"
      "\"data_offsets\":[0,12]}}",
      W, 12);
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_bind_weights(G, st, NULL, NULL, &d), OXP_ERR_WEIGHTS);
  ck_assert_str_eq(d.message,
                   "weight 'constant:23' has shape [3] but constant %23 is "
                   "declared Float(2)");
  ck_assert_str_eq(d.file, "model.ir");
  ck_assert_int_eq(d.line, 7);
}
END_TEST

START_TEST(bind_constant_dtype_mismatch) {
  const int64_t dims[] = {2};
  constant(G->top, "23", 1, dims, NULL, 7);
  int64_t v[2] = {1, 2};
  bind_fails("{\"constant:23\":{\"dtype\":\"I64\",\"shape\":[2],"
             "\"data_offsets\":[0,16]}}",
             v, sizeof v,
             "weight 'constant:23' has dtype int64 but constant %23 is "
             "declared Float(2)");
}
END_TEST

START_TEST(bind_tensor_placeholder_without_data) {
  const int64_t dims[] = {11};
  const float one = 1;
  constant(G->top, "5", 0, NULL, &one, 4); /* has data: fine */
  constant(G->top, "23", 1, dims, NULL, 12);
  oxp_safetensors *st = sidecar(
      "{\"constant:24\":{\"dtype\":\"F32\",\"shape\":[],"
      "\"data_offsets\":[0,4]}}",
      W, 4);
  for (int pass = 0; pass < 2; pass++) {
    oxp_diag d = {0};
    /* with a sidecar that lacks the key, and with no sidecar at all */
    ck_assert_int_eq(oxp_bind_weights(G, pass ? NULL : st, NULL, NULL, &d),
                     OXP_ERR_WEIGHTS);
    ck_assert_str_eq(d.message,
                     "constant %23 is printed as <Tensor> with no data; the "
                     "weights file needs a tensor 'constant:23'");
    ck_assert_str_eq(d.file, "model.ir");
    ck_assert_int_eq(d.line, 12);
    ck_assert_int_eq(d.col, 3);
    ck_assert_str_eq(d.op, "prim::Constant");
  }
}
END_TEST

START_TEST(bind_empty_constant_needs_no_data) {
  const int64_t dims[] = {0, 3};
  constant(G->top, "e", 2, dims, NULL, 3);
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_bind_weights(G, NULL, NULL, NULL, &d), OXP_OK);
}
END_TEST

START_TEST(bind_warns_about_unbound_tensors) {
  const int64_t w[] = {3, 4};
  input("fc.weight", ftype(2, w));
  float data[13] = {0};
  oxp_safetensors *st = sidecar(
      "{\"fc.weight\":{\"dtype\":\"F32\",\"shape\":[3,4],"
      "\"data_offsets\":[0,48]},"
      "\"unused\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[48,52]}}",
      data, sizeof data);
  warnings wn = {0};
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_bind_weights(G, st, collect, &wn, &d), OXP_OK);
  ck_assert_int_eq(wn.count, 1);
  ck_assert_str_eq(wn.last,
                   "weight 'unused' in w.safetensors binds to no graph input");
  /* without a callback the same graph binds silently */
  ck_assert_int_eq(oxp_bind_weights(G, st, NULL, NULL, &d), OXP_OK);
}
END_TEST

START_TEST(bind_warns_about_unbound_constant) {
  oxp_safetensors *st = sidecar(
      "{\"constant:99\":{\"dtype\":\"F32\",\"shape\":[],"
      "\"data_offsets\":[0,4]}}",
      W, 4);
  warnings wn = {0};
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_bind_weights(G, st, collect, &wn, &d), OXP_OK);
  ck_assert_int_eq(wn.count, 1);
  ck_assert_str_eq(wn.last, "weight 'constant:99' in w.safetensors binds to "
                            "no graph input or constant");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("bind");
  TCase *t = tcase_create("core");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, bind_sets_initializers);
  tcase_add_test(t, bind_shape_mismatch);
  tcase_add_test(t, bind_rank_mismatch);
  tcase_add_test(t, bind_dtype_mismatch);
  tcase_add_test(t, bind_non_tensor_input);
  tcase_add_test(t, bind_known_dim_of_partial_shape_still_checked);
  tcase_add_test(t, bind_partial_declarations_bind_and_refine);
  tcase_add_test(t, bind_parameter_without_weight_stays_input);
  tcase_add_test(t, bind_constant_override);
  tcase_add_test(t, bind_constant_in_nested_block);
  tcase_add_test(t, bind_constant_shape_mismatch);
  tcase_add_test(t, bind_constant_dtype_mismatch);
  tcase_add_test(t, bind_tensor_placeholder_without_data);
  tcase_add_test(t, bind_empty_constant_needs_no_data);
  tcase_add_test(t, bind_warns_about_unbound_tensors);
  tcase_add_test(t, bind_warns_about_unbound_constant);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return oxp_check_run(suite());
}
