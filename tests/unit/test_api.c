/* test_api.c: the public C API (libonnxexp), every entry point and its
 * error paths, through the installed headers only. */
#include <check.h>
#include "check_main.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <onnxexp/onnxexp.h>

#include "st_build.h"

static const char LINEAR_IR[] =
    "graph(%x : Float(2, 4, strides=[4, 1], requires_grad=0, device=cpu),\n"
    "      %fc.weight : Float(3, 4, strides=[4, 1], requires_grad=1, device=cpu),\n"
    "      %fc.bias : Float(3, strides=[1], requires_grad=1, device=cpu)):\n"
    "  %y : Float(2, 3, strides=[3, 1], requires_grad=1, device=cpu) = aten::linear(%x, %fc.weight, %fc.bias) # m.py:5:0\n"
    "  %z : Float(2, 3, strides=[3, 1], requires_grad=1, device=cpu) = aten::relu(%y) # m.py:6:0\n"
    "  return (%z)\n";

static const char FOO_IR[] =
    "graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)):\n"
    "  %a : float = prim::Constant[value=0.5]()\n"
    "  %y : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu) = mydomain::Foo(%x, %a)\n"
    "  return (%y)\n";

static float W[12], BIAS[3];
static onnxexp_diag *D;
static char tmpdir[64];

static void setup(void) {
  for (int i = 0; i < 12; i++) W[i] = (float)i / 10.0f - 0.5f;
  for (int i = 0; i < 3; i++) BIAS[i] = 0.1f * (float)i;
  ck_assert_int_eq(onnxexp_diag_create(&D), ONNXEXP_OK);
  snprintf(tmpdir, sizeof tmpdir, "/tmp/test_api.XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void) {
  onnxexp_diag_free(D);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
  ck_assert_int_eq(system(cmd), 0);
}

/* A path in the test's scratch directory; four calls can be live. */
static char *path_in(const char *name) {
  static char p[4][128];
  static int k;
  char *r = p[k++ % 4];
  snprintf(r, 128, "%s/%s", tmpdir, name);
  return r;
}

static onnxexp_options opts(void) {
  onnxexp_options o;
  ck_assert_int_eq(onnxexp_options_init(&o, sizeof o, D), ONNXEXP_OK);
  return o;
}

/* The weights of LINEAR_IR as safetensors bytes. */
static unsigned char *weights(size_t *len) {
  unsigned char data[60];
  memcpy(data, W, 48);
  memcpy(data + 48, BIAS, 12);
  return st_build("{\"fc.weight\":{\"dtype\":\"F32\",\"shape\":[3,4],\"data_offsets\":[0,48]},"
                  "\"fc.bias\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[48,60]}}",
                  data, sizeof data, len);
}

static unsigned char *text_to_buf(const char *ir, const onnxexp_options *o, size_t *len) {
  unsigned char *buf = NULL;
  onnxexp_status s = onnxexp_export_text_to_buffer(ir, strlen(ir), "m.ir", o, &buf, len, D);
  ck_assert_msg(s == ONNXEXP_OK, "export: %s", onnxexp_diag_message(D));
  ck_assert_ptr_nonnull(buf);
  return buf;
}

/* LINEAR_IR built node by node; weights attached when with_weights. */
static onnxexp_graph *build_linear(int with_weights) {
  onnxexp_graph *g;
  onnxexp_value *x, *w, *b, *in[3];
  onnxexp_node *lin, *relu;
  const int64_t xd[] = {2, 4}, wd[] = {3, 4}, bd[] = {3}, yd[] = {2, 3};
  ck_assert_int_eq(onnxexp_graph_create("m.ir", &g, D), ONNXEXP_OK);
  ck_assert_int_eq(onnxexp_graph_add_input(g, "x", ONNXEXP_DT_FLOAT, 2, xd, &x, D), 0);
  ck_assert_int_eq(onnxexp_graph_add_input(g, "fc.weight", ONNXEXP_DT_FLOAT, 2, wd, &w, D), 0);
  ck_assert_int_eq(onnxexp_graph_add_input(g, "fc.bias", ONNXEXP_DT_FLOAT, 1, bd, &b, D), 0);
  in[0] = x, in[1] = w, in[2] = b;
  onnxexp_block *top = onnxexp_graph_block(g);
  ck_assert_int_eq(onnxexp_block_add_node(top, "aten::linear", in, 3, 1, &lin, D), 0);
  onnxexp_value *y = onnxexp_node_output(lin, 0);
  ck_assert_int_eq(onnxexp_value_set_name(y, "y", D), 0);
  ck_assert_int_eq(onnxexp_value_set_type(y, ONNXEXP_TYPE_TENSOR, ONNXEXP_DT_FLOAT, 2, yd, D), 0);
  ck_assert_int_eq(onnxexp_node_set_source(lin, "m.py:5:0", D), 0);
  ck_assert_int_eq(onnxexp_block_add_node(top, "aten::relu", &y, 1, 1, &relu, D), 0);
  ck_assert_int_eq(onnxexp_node_set_source(relu, "m.py:6:0", D), 0);
  onnxexp_value *z = onnxexp_node_output(relu, 0);
  ck_assert_int_eq(onnxexp_value_set_name(z, "z", D), 0);
  ck_assert_int_eq(onnxexp_value_set_type(z, ONNXEXP_TYPE_TENSOR, ONNXEXP_DT_FLOAT, 2, yd, D), 0);
  ck_assert_int_eq(onnxexp_block_add_output(top, z, D), 0);
  if (with_weights) {
    ck_assert_int_eq(onnxexp_graph_attach_weight(g, "fc.weight", ONNXEXP_DT_FLOAT, 2, wd, W, 48, D), 0);
    ck_assert_int_eq(onnxexp_graph_attach_weight(g, "fc.bias", ONNXEXP_DT_FLOAT, 1, bd, BIAS, 12, D), 0);
  }
  return g;
}

static int has_op(const unsigned char *buf, size_t len, const char *op) {
  onnxexp_model_info *m;
  ck_assert_int_eq(onnxexp_check_model(buf, len, &m, D), ONNXEXP_OK);
  int found = 0;
  for (int i = 0; i < onnxexp_model_info_num_nodes(m); i++)
    found |= strcmp(onnxexp_model_info_node_op(m, i), op) == 0;
  onnxexp_model_info_free(m);
  return found;
}

#define ASSERT_FAILS(call, status, substr)                                   \
  do {                                                                       \
    onnxexp_status s_ = (call);                                              \
    ck_assert_int_eq(s_, status);                                            \
    ck_assert_int_eq(onnxexp_diag_status(D), status);                        \
    ck_assert_msg(strstr(onnxexp_diag_message(D), substr), "message '%s' lacks '%s'", \
                  onnxexp_diag_message(D), substr);                          \
  } while (0)

/* A 3-D linear (its weight Transpose folds) and a train-mode dropout. */
static const char OPTIONS_IR[] =
    "graph(%x : Float(2, 5, 4, strides=[20, 4, 1], requires_grad=0, device=cpu),\n"
    "      %fc.weight : Float(3, 4, strides=[4, 1], requires_grad=1, device=cpu),\n"
    "      %fc.bias : Float(3, strides=[1], requires_grad=1, device=cpu)):\n"
    "  %y : Float(2, 5, 3, strides=[15, 3, 1], requires_grad=1, device=cpu) = aten::linear(%x, %fc.weight, %fc.bias)\n"
    "  %p : float = prim::Constant[value=0.5]()\n"
    "  %t : bool = prim::Constant[value=1]()\n"
    "  %z : Float(2, 5, 3, strides=[15, 3, 1], requires_grad=1, device=cpu) = aten::dropout(%y, %p, %t)\n"
    "  return (%z)\n";

/* Exports OPTIONS_IR with o (weights from memory) and returns its info. */
static onnxexp_model_info *options_export(onnxexp_options *o) {
  size_t wl, len;
  unsigned char *w = weights(&wl);
  o->weights_data = w;
  o->weights_size = wl;
  unsigned char *buf = text_to_buf(OPTIONS_IR, o, &len);
  onnxexp_model_info *m;
  ck_assert_int_eq(onnxexp_check_model(buf, len, &m, D), ONNXEXP_OK);
  onnxexp_free(buf);
  free(w);
  return m;
}

static int info_has_op(const onnxexp_model_info *m, const char *op) {
  for (int i = 0; i < onnxexp_model_info_num_nodes(m); i++)
    if (strcmp(onnxexp_model_info_node_op(m, i), op) == 0) return 1;
  return 0;
}

/* Every export option set through the C API shows in the model, as the
 * same CLI flag does. */
START_TEST(every_option_takes_effect) {
  onnxexp_options o = opts();
  onnxexp_model_info *m = options_export(&o);
  ck_assert_int_eq(onnxexp_model_info_num_inputs(m), 1);
  ck_assert_int_eq(onnxexp_model_info_num_initializers(m) > 0, 1);
  ck_assert_int_eq(info_has_op(m, "Transpose"), 0); /* folded */
  ck_assert_int_eq(info_has_op(m, "Dropout"), 0);   /* eval */
  ck_assert_int_eq(onnxexp_model_info_opset(m, ""), 17);
  onnxexp_model_info_free(m);

  o = opts(); o.do_constant_folding = 0;
  m = options_export(&o);
  ck_assert_int_eq(info_has_op(m, "Transpose"), 1);
  onnxexp_model_info_free(m);

  o = opts(); o.training = ONNXEXP_TRAINING_TRAIN; o.opset_version = 13;
  m = options_export(&o);
  ck_assert_int_eq(info_has_op(m, "Dropout"), 1);
  ck_assert_int_eq(onnxexp_model_info_opset(m, ""), 13);
  onnxexp_model_info_free(m);

  o = opts(); o.export_params = 0;
  m = options_export(&o);
  ck_assert_int_eq(onnxexp_model_info_num_initializers(m), 0);
  ck_assert_int_eq(onnxexp_model_info_num_inputs(m), 3);
  ck_assert_str_eq(onnxexp_model_info_input(m, 1), "fc.weight");
  onnxexp_model_info_free(m);

  o = opts(); o.keep_initializers_as_inputs = 1;
  m = options_export(&o);
  ck_assert_int_eq(onnxexp_model_info_num_inputs(m), 3);
  onnxexp_model_info_free(m);

  const char *in_names[] = {"input"}, *out_names[] = {"logits"};
  o = opts(); o.input_names = in_names; o.n_input_names = 1;
  o.output_names = out_names; o.n_output_names = 1;
  m = options_export(&o);
  ck_assert_str_eq(onnxexp_model_info_input(m, 0), "input");
  ck_assert_str_eq(onnxexp_model_info_output(m, 0), "logits");
  onnxexp_model_info_free(m);

  o = opts(); o.operator_export_type = ONNXEXP_OPERATOR_EXPORT_ONNX_ATEN;
  m = options_export(&o);
  ck_assert_int_eq(info_has_op(m, "ATen"), 1);
  ck_assert_int_eq(onnxexp_model_info_opset(m, "org.pytorch.aten") >= 1, 1);
  onnxexp_model_info_free(m);

  const onnxexp_custom_opset cu[] = {{"my.domain", 3}};
  o = opts(); o.custom_opsets = cu; o.n_custom_opsets = 1;
  m = options_export(&o);
  ck_assert_int_eq(onnxexp_model_info_opset(m, "my.domain"), 3);
  onnxexp_model_info_free(m);
}
END_TEST

/* ---- version, diag, options ---------------------------------------------- */

START_TEST(version_matches_headers) {
  ck_assert_str_eq(onnxexp_version(), ONNXEXP_VERSION_STRING);
  ck_assert_int_eq(onnxexp_version_number(), ONNXEXP_VERSION_NUMBER);
}
END_TEST

START_TEST(diag_accessors_and_null) {
  ck_assert_int_eq(onnxexp_diag_create(NULL), ONNXEXP_ERR_USAGE);
  ck_assert_int_eq(onnxexp_diag_status(NULL), ONNXEXP_OK);
  ck_assert_str_eq(onnxexp_diag_message(NULL), "");
  ck_assert_str_eq(onnxexp_diag_file(NULL), "");
  ck_assert_str_eq(onnxexp_diag_op(NULL), "");
  ck_assert_int_eq(onnxexp_diag_line(NULL) + onnxexp_diag_col(NULL), 0);
  onnxexp_diag_free(NULL);
  onnxexp_diag_clear(NULL);
  ck_assert_str_eq(onnxexp_status_string(ONNXEXP_ERR_PARSE), "parse error");
  ck_assert_str_eq(onnxexp_status_string((onnxexp_status)99), "unknown status");
  const char *bad = "graph(%x : Float(2)):\n  %y = aten::relu(%x\n  return (%y)\n";
  unsigned char *buf;
  size_t len;
  ASSERT_FAILS(onnxexp_export_text_to_buffer(bad, strlen(bad), "bad.ir", NULL, &buf, &len, D),
               ONNXEXP_ERR_PARSE, "expected");
  ck_assert_ptr_null(buf);
  ck_assert_str_eq(onnxexp_diag_file(D), "bad.ir");
  ck_assert_int_eq(onnxexp_diag_line(D), 2);
  ck_assert_int_gt(onnxexp_diag_col(D), 0);
  char out[1200];
  size_t n = onnxexp_diag_format(D, out, sizeof out);
  ck_assert_uint_eq(n, strlen(out));
  ck_assert_msg(strncmp(out, "bad.ir:2:", 9) == 0, "formatted: %s", out);
  ck_assert_uint_eq(onnxexp_diag_format(D, NULL, 0), n);
  /* A later good call clears it. */
  free(text_to_buf(LINEAR_IR, NULL, &len));
  ck_assert_int_eq(onnxexp_diag_status(D), ONNXEXP_OK);
  onnxexp_diag_clear(D);
}
END_TEST

START_TEST(options_init_checks_size) {
  onnxexp_options o;
  ASSERT_FAILS(onnxexp_options_init(NULL, sizeof o, D), ONNXEXP_ERR_USAGE, "opts");
  ASSERT_FAILS(onnxexp_options_init(&o, 3, D), ONNXEXP_ERR_USAGE, "size 3");
  ASSERT_FAILS(onnxexp_options_init(&o, sizeof o + 8, D), ONNXEXP_ERR_USAGE, "size");
  ck_assert_int_eq(onnxexp_options_init(&o, sizeof o, NULL), ONNXEXP_OK);
  ck_assert_int_eq(o.opset_version, 17);
  ck_assert_int_eq(o.do_constant_folding, 1);
  ck_assert_int_eq(o.export_params, 1);
  ck_assert_int_eq(o.training, ONNXEXP_TRAINING_EVAL);
  /* An older caller's smaller struct: only its part is written. */
  unsigned char small[sizeof o + 4];
  memset(small, 0xAB, sizeof small);
  size_t part = offsetof(onnxexp_options, weights_path);
  ck_assert_int_eq(onnxexp_options_init((onnxexp_options *)(void *)small, part, D), 0);
  ck_assert_int_eq(small[part], 0xAB);
  /* ... and its exports see defaults for the rest. */
  size_t len;
  free(text_to_buf(LINEAR_IR, (onnxexp_options *)(void *)small, &len));
}
END_TEST

START_TEST(bad_option_values) {
  unsigned char *buf;
  size_t len;
  const char *names[] = {"a", NULL};
  onnxexp_dynamic_axis ax = {"x", -1, NULL};
  onnxexp_custom_opset co = {"mydomain", 0};
  onnxexp_options o = opts();
  o.opset_version = 8;
#define TRY(sub) ASSERT_FAILS(onnxexp_export_text_to_buffer(LINEAR_IR, strlen(LINEAR_IR), NULL, &o, &buf, &len, D), ONNXEXP_ERR_USAGE, sub)
  TRY("opset_version 8");
  o.opset_version = 22;
  TRY("outside the supported range 9..21");
  o = opts(); o.n_input_names = -1; TRY("input_names");
  o = opts(); o.output_names = names; o.n_output_names = 2; TRY("output_names");
  o = opts(); o.dynamic_axes = &ax; o.n_dynamic_axes = 1; TRY("dynamic_axes[0]");
  o = opts(); o.operator_export_type = (onnxexp_operator_export_type)7; TRY("operator_export_type");
  o = opts(); o.training = (onnxexp_training_mode)-1; TRY("training");
  o = opts(); o.external_data = (onnxexp_external_data)5; TRY("external_data");
  o = opts(); o.strip_doc_string = 2; TRY("strip_doc_string");
  o = opts(); o.custom_opsets = &co; o.n_custom_opsets = 1; TRY("custom_opsets[0]");
  o = opts(); o.weights_path = "w"; o.weights_data = "x"; o.weights_size = 1; TRY("only one of");
  o = opts(); o.weights_size = 4; TRY("weights_data is NULL");
  o = opts(); o.struct_size = 0; TRY("onnxexp_options_init");
#undef TRY
}
END_TEST

START_TEST(null_arguments_are_usage_errors) {
  unsigned char *buf = (unsigned char *)1;
  size_t len = 7;
  char *txt = (char *)1;
  const char *t = LINEAR_IR;
  size_t n = strlen(t);
  ASSERT_FAILS(onnxexp_export(NULL, "o", NULL, D), ONNXEXP_ERR_USAGE, "ir_path");
  ASSERT_FAILS(onnxexp_export("m.ir", NULL, NULL, D), ONNXEXP_ERR_USAGE, "out_path");
  ASSERT_FAILS(onnxexp_export_text(NULL, 0, NULL, "o", NULL, D), ONNXEXP_ERR_USAGE, "text");
  ASSERT_FAILS(onnxexp_export_text(t, n, NULL, NULL, NULL, D), ONNXEXP_ERR_USAGE, "out_path");
  ASSERT_FAILS(onnxexp_export_graph(NULL, "o", NULL, D), ONNXEXP_ERR_USAGE, "graph");
  ASSERT_FAILS(onnxexp_export_to_buffer(NULL, NULL, &buf, &len, D), ONNXEXP_ERR_USAGE, "ir_path");
  ck_assert_ptr_null(buf);
  ck_assert_uint_eq(len, 0);
  ASSERT_FAILS(onnxexp_export_to_buffer("m.ir", NULL, NULL, &len, D), ONNXEXP_ERR_USAGE, "destination");
  ASSERT_FAILS(onnxexp_export_text_to_buffer(t, n, NULL, NULL, &buf, NULL, D), ONNXEXP_ERR_USAGE, "len");
  ASSERT_FAILS(onnxexp_export_text_to_buffer(NULL, 0, NULL, NULL, &buf, &len, D), ONNXEXP_ERR_USAGE, "text");
  ASSERT_FAILS(onnxexp_export_graph_to_buffer(NULL, NULL, &buf, &len, D), ONNXEXP_ERR_USAGE, "graph");
  ASSERT_FAILS(onnxexp_export_to_pretty_string(NULL, NULL, &txt, D), ONNXEXP_ERR_USAGE, "ir_path");
  ck_assert_ptr_null(txt);
  ASSERT_FAILS(onnxexp_export_text_to_pretty_string(t, n, NULL, NULL, NULL, D), ONNXEXP_ERR_USAGE, "destination");
  ASSERT_FAILS(onnxexp_export_graph_to_pretty_string(NULL, NULL, &txt, D), ONNXEXP_ERR_USAGE, "graph");
  ASSERT_FAILS(onnxexp_select_model_mode_for_export(NULL, ONNXEXP_TRAINING_EVAL, D), ONNXEXP_ERR_USAGE, "opts");
  ASSERT_FAILS(onnxexp_register_custom_op_symbolic(NULL, NULL, NULL, 9, D), ONNXEXP_ERR_USAGE, "op");
  ASSERT_FAILS(onnxexp_unregister_custom_op_symbolic(NULL, 9, D), ONNXEXP_ERR_USAGE, "op");
  ASSERT_FAILS(onnxexp_list_ops(0, NULL, NULL, D), ONNXEXP_ERR_USAGE, "visit");
  int sup;
  ASSERT_FAILS(onnxexp_op_supported(NULL, 17, &sup, NULL, D), ONNXEXP_ERR_USAGE, "op");
  ASSERT_FAILS(onnxexp_op_supported("aten::relu", 17, NULL, NULL, D), ONNXEXP_ERR_USAGE, "supported");
  ASSERT_FAILS(onnxexp_check_model(NULL, 4, NULL, D), ONNXEXP_ERR_USAGE, "buf");
  onnxexp_graph *g;
  onnxexp_node *node;
  onnxexp_block *blk;
  onnxexp_value *v;
  ASSERT_FAILS(onnxexp_graph_create("g", NULL, D), ONNXEXP_ERR_USAGE, "out");
  ASSERT_FAILS(onnxexp_graph_add_input(NULL, "x", ONNXEXP_DT_FLOAT, -1, NULL, &v, D), ONNXEXP_ERR_USAGE, "graph");
  ASSERT_FAILS(onnxexp_block_add_input(NULL, "x", ONNXEXP_TYPE_INT, 0, 0, NULL, &v, D), ONNXEXP_ERR_USAGE, "block");
  ASSERT_FAILS(onnxexp_block_add_node(NULL, "aten::relu", NULL, 0, 1, &node, D), ONNXEXP_ERR_USAGE, "block");
  ASSERT_FAILS(onnxexp_node_add_block(NULL, &blk, D), ONNXEXP_ERR_USAGE, "node");
  ASSERT_FAILS(onnxexp_node_set_source(NULL, "s", D), ONNXEXP_ERR_USAGE, "node");
  ASSERT_FAILS(onnxexp_node_set_int(NULL, "a", 1, D), ONNXEXP_ERR_USAGE, "node");
  ASSERT_FAILS(onnxexp_node_set_float(NULL, "a", 1, D), ONNXEXP_ERR_USAGE, "node");
  ASSERT_FAILS(onnxexp_node_set_string(NULL, "a", "s", D), ONNXEXP_ERR_USAGE, "node");
  ASSERT_FAILS(onnxexp_node_set_ints(NULL, "a", NULL, 0, D), ONNXEXP_ERR_USAGE, "node");
  ASSERT_FAILS(onnxexp_node_set_floats(NULL, "a", NULL, 0, D), ONNXEXP_ERR_USAGE, "node");
  ASSERT_FAILS(onnxexp_node_set_strings(NULL, "a", NULL, 0, D), ONNXEXP_ERR_USAGE, "node");
  ASSERT_FAILS(onnxexp_node_set_tensor(NULL, "a", ONNXEXP_DT_FLOAT, 0, NULL, NULL, 4, D), ONNXEXP_ERR_USAGE, "node");
  ASSERT_FAILS(onnxexp_value_set_name(NULL, "a", D), ONNXEXP_ERR_USAGE, "value");
  ASSERT_FAILS(onnxexp_value_set_type(NULL, ONNXEXP_TYPE_INT, 0, 0, NULL, D), ONNXEXP_ERR_USAGE, "value");
  ASSERT_FAILS(onnxexp_block_add_output(NULL, NULL, D), ONNXEXP_ERR_USAGE, "block");
  ASSERT_FAILS(onnxexp_graph_attach_weight(NULL, "w", ONNXEXP_DT_FLOAT, 0, NULL, W, 4, D), ONNXEXP_ERR_USAGE, "graph");
  ck_assert_ptr_null(onnxexp_graph_block(NULL));
  ck_assert_ptr_null(onnxexp_node_output(NULL, 0));
  ck_assert_ptr_null(onnxexp_node_input(NULL, 0));
  ck_assert_ptr_null(onnxexp_node_kind(NULL));
  ck_assert_ptr_null(onnxexp_value_name(NULL));
  ck_assert_int_eq(onnxexp_node_num_inputs(NULL) + onnxexp_node_num_outputs(NULL), 0);
  ck_assert_int_eq(onnxexp_value_dtype(NULL), ONNXEXP_DT_UNDEFINED);
  ck_assert_int_eq(onnxexp_value_rank(NULL), -1);
  ck_assert_int_eq(onnxexp_value_dim(NULL, 0), -1);
  ck_assert_int_eq(onnxexp_g_opset(NULL), 0);
  ck_assert_int_eq(onnxexp_g_fail(NULL, ONNXEXP_ERR_GRAPH, "x"), ONNXEXP_ERR_USAGE);
  ck_assert_int_eq(onnxexp_g_op(NULL, "Relu", NULL, 0, 0, NULL, NULL), ONNXEXP_ERR_USAGE);
  ck_assert_int_eq(onnxexp_g_input(NULL, NULL, 0, &v), ONNXEXP_ERR_USAGE);
  ck_assert_int_eq(onnxexp_g_is_none(NULL, 0) + onnxexp_g_is_constant(NULL, 0), 0);
  ck_assert_int_eq(onnxexp_model_info_ir_version(NULL), 0);
  ck_assert_int_eq(onnxexp_model_info_opset(NULL, ""), -1);
  ck_assert_ptr_null(onnxexp_model_info_input(NULL, 0));
  onnxexp_model_info_free(NULL);
  onnxexp_graph_free(NULL);
  onnxexp_free(NULL);
  /* A NULL diag is always allowed. */
  ck_assert_int_eq(onnxexp_export(NULL, NULL, NULL, NULL), ONNXEXP_ERR_USAGE);
  (void)g;
}
END_TEST

/* ---- exports -------------------------------------------------------------- */

START_TEST(export_text_to_buffer_is_a_model) {
  size_t len;
  unsigned char *buf = text_to_buf(LINEAR_IR, NULL, &len);
  onnxexp_model_info *m;
  ck_assert_int_eq(onnxexp_check_model(buf, len, &m, D), ONNXEXP_OK);
  ck_assert_int_eq(onnxexp_model_info_opset(m, ""), 17);
  ck_assert_int_eq(onnxexp_model_info_opset(m, "ai.onnx"), 17);
  ck_assert_int_eq(onnxexp_model_info_opset(m, "mydomain"), -1);
  ck_assert_int_eq(onnxexp_model_info_ir_version(m), 8);
  ck_assert_int_eq(onnxexp_model_info_num_inputs(m), 3);
  ck_assert_str_eq(onnxexp_model_info_input(m, 0), "x");
  ck_assert_str_eq(onnxexp_model_info_input(m, 1), "fc.weight");
  ck_assert_ptr_null(onnxexp_model_info_input(m, 3));
  ck_assert_int_eq(onnxexp_model_info_num_outputs(m), 1);
  ck_assert_str_eq(onnxexp_model_info_output(m, 0), "z");
  ck_assert_ptr_null(onnxexp_model_info_output(m, 1));
  ck_assert_int_eq(onnxexp_model_info_num_nodes(m), 2);
  ck_assert_str_eq(onnxexp_model_info_node_op(m, 0), "Gemm");
  ck_assert_str_eq(onnxexp_model_info_node_op(m, 1), "Relu");
  ck_assert_ptr_null(onnxexp_model_info_node_op(m, 2));
  ck_assert_int_eq(onnxexp_model_info_num_initializers(m), 0);
  onnxexp_model_info_free(m);
  /* Other opsets, and the check without an info. */
  onnxexp_options o = opts();
  o.opset_version = 9;
  unsigned char *b9 = text_to_buf(LINEAR_IR, &o, &len);
  ck_assert_int_eq(onnxexp_check_model(b9, len, NULL, D), ONNXEXP_OK);
  onnxexp_free(b9);
  onnxexp_free(buf);
}
END_TEST

static unsigned char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  unsigned char *b = malloc(1 << 20);
  *len = fread(b, 1, 1 << 20, f);
  fclose(f);
  return b;
}

static void write_all(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(p, 1, n, f), n);
  fclose(f);
}

START_TEST(every_source_and_destination_agree) {
  size_t wlen, len, flen;
  unsigned char *w = weights(&wlen);
  onnxexp_options o = opts();
  o.weights_data = w;
  o.weights_size = wlen;
  unsigned char *ref = text_to_buf(LINEAR_IR, &o, &len);
  ck_assert(has_op(ref, len, "Gemm"));
  /* text -> file */
  ck_assert_int_eq(onnxexp_export_text(LINEAR_IR, strlen(LINEAR_IR), "m.ir",
                                       path_in("t.onnx"), &o, D), ONNXEXP_OK);
  unsigned char *f = read_all(path_in("t.onnx"), &flen);
  ck_assert_uint_eq(flen, len);
  ck_assert(memcmp(f, ref, len) == 0);
  free(f);
  /* file -> buffer, weights found beside the IR by default */
  write_all(path_in("m.ir"), LINEAR_IR, strlen(LINEAR_IR));
  write_all(path_in("m.safetensors"), w, wlen);
  unsigned char *fb;
  ck_assert_int_eq(onnxexp_export_to_buffer(path_in("m.ir"), NULL, &fb, &flen, D), ONNXEXP_OK);
  ck_assert_uint_eq(flen, len);
  ck_assert(memcmp(fb, ref, len) == 0);
  onnxexp_free(fb);
  /* file -> file, weights named explicitly */
  o = opts();
  o.weights_path = path_in("m.safetensors");
  char out[128];
  snprintf(out, sizeof out, "%s", path_in("f.onnx"));
  ck_assert_int_eq(onnxexp_export(path_in("m.ir"), out, &o, D), ONNXEXP_OK);
  f = read_all(out, &flen);
  ck_assert(flen == len && memcmp(f, ref, len) == 0);
  free(f);
  /* pretty strings */
  char *txt;
  ck_assert_int_eq(onnxexp_export_to_pretty_string(path_in("m.ir"), NULL, &txt, D), ONNXEXP_OK);
  ck_assert_ptr_nonnull(strstr(txt, "Gemm"));
  ck_assert_ptr_nonnull(strstr(txt, "Relu"));
  onnxexp_free(txt);
  ck_assert_int_eq(onnxexp_export_text_to_pretty_string(LINEAR_IR, strlen(LINEAR_IR), NULL,
                                                         NULL, &txt, D), ONNXEXP_OK);
  ck_assert_ptr_nonnull(strstr(txt, "Relu("));
  onnxexp_free(txt);
  onnxexp_free(ref);
  free(w);
}
END_TEST

START_TEST(builder_matches_ir_text_byte_for_byte) {
  size_t len, blen, wlen;
  /* Weights as graph inputs. */
  unsigned char *ref = text_to_buf(LINEAR_IR, NULL, &len);
  unsigned char *buf;
  onnxexp_graph *g = build_linear(0);
  ck_assert_int_eq(onnxexp_export_graph_to_buffer(g, NULL, &buf, &blen, D), ONNXEXP_OK);
  ck_assert_uint_eq(blen, len);
  ck_assert(memcmp(buf, ref, len) == 0);
  onnxexp_free(buf);
  /* The graph is consumed. */
  ASSERT_FAILS(onnxexp_export_graph_to_buffer(g, NULL, &buf, &blen, D), ONNXEXP_ERR_USAGE,
               "already exported");
  onnxexp_graph_free(g);
  onnxexp_free(ref);
  /* Weights attached vs a safetensors sidecar, with a doc string so the
   * source comments count too. */
  unsigned char *w = weights(&wlen);
  onnxexp_options o = opts();
  o.weights_data = w;
  o.weights_size = wlen;
  o.doc_string = "doc";
  ref = text_to_buf(LINEAR_IR, &o, &len);
  o.weights_data = NULL;
  o.weights_size = 0;
  g = build_linear(1);
  ck_assert_int_eq(onnxexp_export_graph_to_buffer(g, &o, &buf, &blen, D), ONNXEXP_OK);
  onnxexp_graph_free(g);
  ck_assert_uint_eq(blen, len);
  ck_assert(memcmp(buf, ref, len) == 0);
  onnxexp_model_info *m;
  ck_assert_int_eq(onnxexp_check_model(buf, blen, &m, D), ONNXEXP_OK);
  ck_assert_int_eq(onnxexp_model_info_num_inputs(m), 1);
  ck_assert_int_eq(onnxexp_model_info_num_initializers(m), 2);
  onnxexp_model_info_free(m);
  onnxexp_free(buf);
  onnxexp_free(ref);
  /* To a file, and as a pretty string. */
  g = build_linear(1);
  ck_assert_int_eq(onnxexp_export_graph(g, path_in("g.onnx"), NULL, D), ONNXEXP_OK);
  onnxexp_graph_free(g);
  ck_assert_int_eq(access(path_in("g.onnx"), F_OK), 0);
  char *txt;
  g = build_linear(1);
  ck_assert_int_eq(onnxexp_export_graph_to_pretty_string(g, NULL, &txt, D), ONNXEXP_OK);
  ck_assert_ptr_nonnull(strstr(txt, "Gemm"));
  onnxexp_free(txt);
  onnxexp_graph_free(g);
  free(w);
}
END_TEST

START_TEST(builder_attributes_constants_and_blocks) {
  /* A scalar constant feeding a built-in op, both ways. */
  const char *ir =
      "graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)):\n"
      "  %a : float = prim::Constant[value=0.5]()\n"
      "  %y : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu) = aten::mul(%x, %a)\n"
      "  return (%y)\n";
  size_t len, blen;
  unsigned char *ref = text_to_buf(ir, NULL, &len), *buf;
  const int64_t d23[] = {2, 3};
  onnxexp_graph *g;
  onnxexp_value *x, *in[2];
  onnxexp_node *c, *n;
  ck_assert_int_eq(onnxexp_graph_create("m.ir", &g, D), 0);
  onnxexp_block *top = onnxexp_graph_block(g);
  ck_assert_int_eq(onnxexp_graph_add_input(g, "x", ONNXEXP_DT_FLOAT, 2, d23, &x, D), 0);
  ck_assert_int_eq(onnxexp_block_add_node(top, "prim::Constant", NULL, 0, 1, &c, D), 0);
  ck_assert_int_eq(onnxexp_node_set_float(c, "value", 0.5, D), 0);
  ck_assert_int_eq(onnxexp_value_set_name(onnxexp_node_output(c, 0), "a", D), 0);
  ck_assert_int_eq(onnxexp_value_set_type(onnxexp_node_output(c, 0), ONNXEXP_TYPE_FLOAT, 0, 0, NULL, D), 0);
  in[0] = x, in[1] = onnxexp_node_output(c, 0);
  ck_assert_int_eq(onnxexp_block_add_node(top, "aten::mul", in, 2, 1, &n, D), 0);
  ck_assert_str_eq(onnxexp_node_kind(n), "aten::mul");
  ck_assert_int_eq(onnxexp_node_num_inputs(n), 2);
  ck_assert_ptr_eq(onnxexp_node_input(n, 1), in[1]);
  onnxexp_value *y = onnxexp_node_output(n, 0);
  ck_assert_ptr_null(onnxexp_node_output(n, 1));
  ck_assert_int_eq(onnxexp_value_set_name(y, "y", D), 0);
  ck_assert_str_eq(onnxexp_value_name(y), "y");
  ck_assert_int_eq(onnxexp_value_set_type(y, ONNXEXP_TYPE_TENSOR, ONNXEXP_DT_FLOAT, 2, d23, D), 0);
  ck_assert_int_eq(onnxexp_value_dtype(y), ONNXEXP_DT_FLOAT);
  ck_assert_int_eq(onnxexp_value_rank(y), 2);
  ck_assert_int_eq(onnxexp_value_dim(y, 1), 3);
  ck_assert_int_eq(onnxexp_value_dim(y, 2), -1);
  ck_assert_int_eq(onnxexp_block_add_output(top, y, D), 0);
  /* Every attribute kind sets (on a node nothing reads). */
  onnxexp_node *k;
  const int64_t iv[] = {1, 2};
  const double fv[] = {0.5};
  const char *sv[] = {"a", "b"};
  const float tv[] = {1, 2};
  const int64_t td[] = {2};
  ck_assert_int_eq(onnxexp_block_add_node(top, "prim::Constant", NULL, 0, 1, &k, D), 0);
  ck_assert_int_eq(onnxexp_node_set_int(k, "i", 3, D), 0);
  ck_assert_int_eq(onnxexp_node_set_string(k, "s", "str", D), 0);
  ck_assert_int_eq(onnxexp_node_set_ints(k, "is", iv, 2, D), 0);
  ck_assert_int_eq(onnxexp_node_set_floats(k, "fs", fv, 1, D), 0);
  ck_assert_int_eq(onnxexp_node_set_strings(k, "ss", sv, 2, D), 0);
  ck_assert_int_eq(onnxexp_node_set_tensor(k, "value", ONNXEXP_DT_FLOAT, 1, td, tv, 8, D), 0);
  ASSERT_FAILS(onnxexp_node_set_tensor(k, "value", ONNXEXP_DT_FLOAT, 1, td, tv, 7, D),
               ONNXEXP_ERR_USAGE, "7 bytes");
  ASSERT_FAILS(onnxexp_node_set_tensor(k, "value", (onnxexp_dtype)99, 0, NULL, tv, 4, D),
               ONNXEXP_ERR_USAGE, "dtype");
  ASSERT_FAILS(onnxexp_node_set_int(k, "", 1, D), ONNXEXP_ERR_USAGE, "name");
  ASSERT_FAILS(onnxexp_node_set_strings(k, "ss", (const char *const[]){NULL}, 1, D),
               ONNXEXP_ERR_USAGE, "NULL strings");
  ck_assert_int_eq(onnxexp_export_graph_to_buffer(g, NULL, &buf, &blen, D), ONNXEXP_OK);
  ck_assert_uint_eq(blen, len);
  ck_assert(memcmp(buf, ref, len) == 0);
  onnxexp_graph_free(g);
  onnxexp_free(buf);
  onnxexp_free(ref);

  /* Blocks: an If with two branches, built like the IR's block0/block1. */
  ck_assert_int_eq(onnxexp_graph_create("if.ir", &g, D), 0);
  top = onnxexp_graph_block(g);
  onnxexp_value *cond, *bx;
  onnxexp_node *ifn;
  onnxexp_block *then_b, *else_b;
  ck_assert_int_eq(onnxexp_block_add_input(top, "c", ONNXEXP_TYPE_BOOL, 0, 0, NULL, &cond, D), 0);
  ck_assert_int_eq(onnxexp_graph_add_input(g, "x", ONNXEXP_DT_FLOAT, 1, (int64_t[]){-1}, &bx, D), 0);
  ck_assert_int_eq(onnxexp_block_add_node(top, "prim::If", &cond, 1, 1, &ifn, D), 0);
  ck_assert_int_eq(onnxexp_node_add_block(ifn, &then_b, D), 0);
  ck_assert_int_eq(onnxexp_node_add_block(ifn, &else_b, D), 0);
  ck_assert_int_eq(onnxexp_block_add_node(then_b, "aten::relu", &bx, 1, 1, &n, D), 0);
  ck_assert_int_eq(onnxexp_block_add_output(then_b, onnxexp_node_output(n, 0), D), 0);
  ck_assert_int_eq(onnxexp_block_add_output(else_b, bx, D), 0);
  ck_assert_int_eq(onnxexp_block_add_output(top, onnxexp_node_output(ifn, 0), D), 0);
  onnxexp_value *li;
  ck_assert_int_eq(onnxexp_block_add_input(then_b, "i", ONNXEXP_TYPE_INT, 0, 0, NULL, &li, D), 0);
  ASSERT_FAILS(onnxexp_block_add_input(then_b, "t", ONNXEXP_TYPE_TENSOR, ONNXEXP_DT_FLOAT, 1, NULL, &bx, D),
               ONNXEXP_ERR_USAGE, "rank");
  ck_assert_ptr_null(bx);
  ASSERT_FAILS(onnxexp_block_add_input(then_b, "t", (onnxexp_type_kind)77, 0, 0, NULL, NULL, D),
               ONNXEXP_ERR_USAGE, "kind");
  for (int kind = ONNXEXP_TYPE_INT; kind <= ONNXEXP_TYPE_OPTIONAL_TENSOR; kind++)
    ck_assert_msg(onnxexp_value_set_type(li, (onnxexp_type_kind)kind, 0, -1, NULL, D) == 0,
                  "kind %d: %s", kind, onnxexp_diag_message(D));
  onnxexp_graph_free(g);
}
END_TEST

START_TEST(builder_rejects_bad_graphs) {
  onnxexp_graph *g, *other;
  onnxexp_value *x, *y;
  onnxexp_node *n;
  const int64_t d[] = {3, 4}, bad[] = {3, -2};
  ck_assert_int_eq(onnxexp_graph_create(NULL, &g, D), 0);
  ck_assert_int_eq(onnxexp_graph_create(NULL, &other, D), 0);
  ck_assert_int_eq(onnxexp_graph_add_input(g, "x", ONNXEXP_DT_FLOAT, 2, d, &x, D), 0);
  ck_assert_int_eq(onnxexp_graph_add_input(other, "y", ONNXEXP_DT_FLOAT, 2, d, &y, D), 0);
  onnxexp_block *top = onnxexp_graph_block(g);
  ASSERT_FAILS(onnxexp_graph_add_input(g, "b", ONNXEXP_DT_FLOAT, 2, bad, &x, D), ONNXEXP_ERR_USAGE, "rank");
  ASSERT_FAILS(onnxexp_graph_add_input(g, "b", (onnxexp_dtype)40, 2, d, NULL, D), ONNXEXP_ERR_USAGE, "dtype");
  ASSERT_FAILS(onnxexp_graph_add_input(g, NULL, ONNXEXP_DT_FLOAT, 2, d, NULL, D), ONNXEXP_ERR_USAGE, "name");
  ASSERT_FAILS(onnxexp_block_add_node(top, "relu", &x, 1, 1, &n, D), ONNXEXP_ERR_USAGE, "namespace::name");
  ASSERT_FAILS(onnxexp_block_add_node(top, "aten::", &x, 1, 1, &n, D), ONNXEXP_ERR_USAGE, "namespace::name");
  ASSERT_FAILS(onnxexp_block_add_node(top, "aten::relu", NULL, 1, 1, &n, D), ONNXEXP_ERR_USAGE, "nin");
  ASSERT_FAILS(onnxexp_block_add_node(top, "aten::relu", &y, 1, 1, &n, D), ONNXEXP_ERR_USAGE, "another graph");
  ASSERT_FAILS(onnxexp_block_add_output(top, y, D), ONNXEXP_ERR_USAGE, "another graph");
  ASSERT_FAILS(onnxexp_graph_attach_weight(g, "x", ONNXEXP_DT_FLOAT, 2, d, W, 40, D), ONNXEXP_ERR_USAGE, "40 bytes");
  ASSERT_FAILS(onnxexp_graph_attach_weight(g, "x", ONNXEXP_DT_FLOAT, 2, d, NULL, 48, D), ONNXEXP_ERR_USAGE, "48 bytes");
  ck_assert_int_eq(onnxexp_graph_attach_weight(g, "x", ONNXEXP_DT_FLOAT, 2, d, W, 48, D), 0);
  ASSERT_FAILS(onnxexp_graph_attach_weight(g, "x", ONNXEXP_DT_FLOAT, 2, d, W, 48, D), ONNXEXP_ERR_USAGE, "already attached");
  /* A weight whose shape does not match the declaration. */
  ck_assert_int_eq(onnxexp_graph_attach_weight(g, "unused", ONNXEXP_DT_FLOAT, 1, (int64_t[]){2}, W, 8, D), 0);
  /* An op without a symbolic: the export says which and where. */
  ck_assert_int_eq(onnxexp_block_add_node(top, "aten::frobnicate", &x, 1, 1, &n, D), 0);
  ck_assert_int_eq(onnxexp_block_add_output(top, onnxexp_node_output(n, 0), D), 0);
  unsigned char *buf;
  size_t len;
  onnxexp_options o = opts();
  o.weights_path = "w.safetensors";
  ASSERT_FAILS(onnxexp_export_graph_to_buffer(g, &o, &buf, &len, D), ONNXEXP_ERR_USAGE, "attached weights");
  onnxexp_graph_free(g);
  ck_assert_int_eq(onnxexp_graph_create(NULL, &g, D), 0);
  ck_assert_int_eq(onnxexp_graph_add_input(g, "x", ONNXEXP_DT_FLOAT, 2, d, &x, D), 0);
  ck_assert_int_eq(onnxexp_graph_attach_weight(g, "x", ONNXEXP_DT_INT32, 2, d, W, 48, D), 0);
  ck_assert_int_eq(onnxexp_block_add_output(onnxexp_graph_block(g), x, D), 0);
  ASSERT_FAILS(onnxexp_export_graph_to_buffer(g, NULL, &buf, &len, D), ONNXEXP_ERR_WEIGHTS, "dtype");
  ASSERT_FAILS(onnxexp_graph_attach_weight(g, "y", ONNXEXP_DT_FLOAT, 2, d, W, 48, D), ONNXEXP_ERR_USAGE, "already exported");
  onnxexp_graph_free(g);
  ck_assert_int_eq(onnxexp_graph_create(NULL, &g, D), 0);
  ck_assert_int_eq(onnxexp_graph_add_input(g, "x", ONNXEXP_DT_FLOAT, 2, d, &x, D), 0);
  ck_assert_int_eq(onnxexp_block_add_node(onnxexp_graph_block(g), "aten::frobnicate", &x, 1, 1, &n, D), 0);
  ck_assert_int_eq(onnxexp_block_add_output(onnxexp_graph_block(g), onnxexp_node_output(n, 0), D), 0);
  ASSERT_FAILS(onnxexp_export_graph_to_buffer(g, NULL, &buf, &len, D), ONNXEXP_ERR_UNSUPPORTED, "aten::frobnicate");
  ck_assert_str_eq(onnxexp_diag_op(D), "aten::frobnicate");
  onnxexp_graph_free(g);
  onnxexp_graph_free(other);
}
END_TEST

START_TEST(export_errors_carry_location_and_op) {
  const char *ir =
      "graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)):\n"
      "  %y : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu) = aten::frobnicate(%x)\n"
      "  return (%y)\n";
  unsigned char *buf;
  size_t len;
  ASSERT_FAILS(onnxexp_export_text_to_buffer(ir, strlen(ir), "f.ir", NULL, &buf, &len, D),
               ONNXEXP_ERR_UNSUPPORTED, "not supported");
  ck_assert_str_eq(onnxexp_diag_op(D), "aten::frobnicate");
  ck_assert_str_eq(onnxexp_diag_file(D), "f.ir");
  ck_assert_int_eq(onnxexp_diag_line(D), 2);
  /* Unreadable input, unwritable output: I/O errors, nothing left behind. */
  ASSERT_FAILS(onnxexp_export(path_in("missing.ir"), path_in("o.onnx"), NULL, D),
               ONNXEXP_ERR_IO, "missing.ir");
  ASSERT_FAILS(onnxexp_export_text(LINEAR_IR, strlen(LINEAR_IR), NULL, "/nonexistent/dir/o.onnx",
                                   NULL, D), ONNXEXP_ERR_IO, "nonexistent");
  onnxexp_options o = opts();
  o.weights_path = path_in("missing.safetensors");
  ASSERT_FAILS(onnxexp_export_text_to_buffer(LINEAR_IR, strlen(LINEAR_IR), NULL, &o, &buf, &len, D),
               ONNXEXP_ERR_IO, "weights");
  ck_assert_ptr_nonnull(strstr(onnxexp_diag_file(D), "missing.safetensors"));
  o = opts();
  o.weights_data = "garbage!";
  o.weights_size = 8;
  ck_assert_int_ne(onnxexp_export_text_to_buffer(LINEAR_IR, strlen(LINEAR_IR), NULL, &o, &buf, &len, D),
                   ONNXEXP_OK);
  ck_assert_int_eq(onnxexp_diag_status(D), ONNXEXP_ERR_WEIGHTS);
}
END_TEST

/* Linear(64, 64): weights big enough to leave the model (1 KiB and up). */
static const char BIG_IR[] =
    "graph(%x : Float(1, 64, strides=[64, 1], requires_grad=0, device=cpu),\n"
    "      %fc.weight : Float(64, 64, strides=[64, 1], requires_grad=1, device=cpu),\n"
    "      %fc.bias : Float(64, strides=[1], requires_grad=1, device=cpu)):\n"
    "  %y : Float(1, 64, strides=[64, 1], requires_grad=1, device=cpu) = aten::linear(%x, %fc.weight, %fc.bias)\n"
    "  return (%y)\n";

START_TEST(external_data_file_and_reference) {
  size_t wlen, len, inl;
  static float data[64 * 64 + 64];
  for (int i = 0; i < 64 * 64 + 64; i++) data[i] = (float)(i % 7) - 3.0f;
  unsigned char *w = st_build("{\"fc.weight\":{\"dtype\":\"F32\",\"shape\":[64,64],\"data_offsets\":[0,16384]},"
                              "\"fc.bias\":{\"dtype\":\"F32\",\"shape\":[64],\"data_offsets\":[16384,16640]}}",
                              data, sizeof data, &wlen);
  unsigned char *buf;
  onnxexp_options o = opts();
  o.weights_data = w;
  o.weights_size = wlen;
  unsigned char *inline_model = text_to_buf(BIG_IR, &o, &inl);
  /* One data file beside the model, default and given names. */
  o.external_data = ONNXEXP_EXTERNAL_DATA_FILE;
  ck_assert_msg(onnxexp_export_text(BIG_IR, strlen(BIG_IR), NULL, path_in("e.onnx"), &o, D) == 0,
                "%s", onnxexp_diag_message(D));
  ck_assert_int_eq(access(path_in("e.onnx.data"), F_OK), 0);
  buf = read_all(path_in("e.onnx"), &len);
  ck_assert_uint_lt(len, inl);
  onnxexp_model_info *m;
  ck_assert_int_eq(onnxexp_check_model(buf, len, &m, D), 0);
  ck_assert_int_eq(onnxexp_model_info_num_initializers(m), 2);
  ck_assert_int_eq(onnxexp_model_info_num_inputs(m), 1);
  onnxexp_model_info_free(m);
  free(buf);
  o.external_data_name = "weights.bin";
  ck_assert_int_eq(onnxexp_export_text(BIG_IR, strlen(BIG_IR), NULL, path_in("n.onnx"), &o, D), 0);
  ck_assert_int_eq(access(path_in("weights.bin"), F_OK), 0);
  o.external_data_name = "a/b";
  ASSERT_FAILS(onnxexp_export_text(BIG_IR, strlen(BIG_IR), NULL, path_in("x.onnx"), &o, D),
               ONNXEXP_ERR_USAGE, "plain file name");
  ck_assert_int_ne(access(path_in("x.onnx"), F_OK), 0);
  /* A buffer has nowhere to put a data file. */
  o.external_data_name = NULL;
  ASSERT_FAILS(onnxexp_export_text_to_buffer(BIG_IR, strlen(BIG_IR), NULL, &o, &buf, &len, D),
               ONNXEXP_ERR_USAGE, "external data needs the model written to a file");
  /* References into the safetensors file itself: no data file. */
  write_all(path_in("r.safetensors"), w, wlen);
  o = opts();
  o.weights_path = path_in("r.safetensors");
  o.external_data = ONNXEXP_EXTERNAL_DATA_REFERENCE;
  ck_assert_msg(onnxexp_export_text(BIG_IR, strlen(BIG_IR), NULL, path_in("r.onnx"), &o, D) == 0,
                "%s", onnxexp_diag_message(D));
  ck_assert_int_ne(access(path_in("r.onnx.data"), F_OK), 0);
  /* Weights in memory have no file to point into; the core decides how
   * to store them, and the model must still come out whole. */
  o = opts();
  o.weights_data = w;
  o.weights_size = wlen;
  o.external_data = ONNXEXP_EXTERNAL_DATA_REFERENCE;
  ck_assert_msg(onnxexp_export_text(BIG_IR, strlen(BIG_IR), NULL, path_in("m.onnx"), &o, D) == 0,
                "%s", onnxexp_diag_message(D));
  buf = read_all(path_in("m.onnx"), &len);
  ck_assert_int_eq(onnxexp_check_model(buf, len, NULL, D), 0);
  free(buf);
  onnxexp_free(inline_model);
  free(w);
}
END_TEST

/* ---- outputs never replace inputs ------------------------------------------ */

/* One refused export: usage error naming both paths, and not a byte of
 * the inputs changed. */
#define ASSERT_REFUSED(call, out, in)                                        \
  do {                                                                       \
    ASSERT_FAILS(call, ONNXEXP_ERR_USAGE, "refusing to write");              \
    ck_assert_msg(strstr(onnxexp_diag_message(D), out) &&                    \
                      strstr(onnxexp_diag_message(D), in),                   \
                  "message '%s' lacks '%s' or '%s'", onnxexp_diag_message(D), \
                  out, in);                                                  \
    assert_file(ir, LINEAR_IR, strlen(LINEAR_IR));                           \
    assert_file(st, w, wlen);                                                \
  } while (0)

static void assert_file(const char *path, const void *p, size_t n) {
  size_t len;
  unsigned char *b = read_all(path, &len);
  ck_assert_msg(len == n && memcmp(b, p, n) == 0, "%s changed", path);
  free(b);
}

START_TEST(file_outputs_never_replace_inputs) {
  size_t wlen;
  unsigned char *w = weights(&wlen);
  char ir[128], st[128], sym[128], hard[128], data_as_st[128];
  snprintf(ir, sizeof ir, "%s", path_in("m.ir"));
  snprintf(st, sizeof st, "%s", path_in("m.safetensors"));
  snprintf(sym, sizeof sym, "%s", path_in("sym.onnx"));
  snprintf(hard, sizeof hard, "%s", path_in("hard.onnx"));
  write_all(ir, LINEAR_IR, strlen(LINEAR_IR));
  write_all(st, w, wlen);
  ck_assert_int_eq(symlink("m.safetensors", sym), 0);
  ck_assert_int_eq(link(ir, hard), 0);
  onnxexp_options o = opts();
  /* the model over the default sidecar, the IR, a symlink, a hard link */
  ASSERT_REFUSED(onnxexp_export(ir, st, &o, D), st, st);
  ASSERT_REFUSED(onnxexp_export(ir, ir, &o, D), ir, ir);
  ASSERT_REFUSED(onnxexp_export(ir, sym, &o, D), sym, st);
  ASSERT_REFUSED(onnxexp_export(ir, hard, &o, D), hard, ir);
  /* the same through weights_path, from text and from a built graph */
  o.weights_path = sym;
  ASSERT_REFUSED(onnxexp_export(ir, st, &o, D), st, sym);
  ASSERT_REFUSED(onnxexp_export_text(LINEAR_IR, strlen(LINEAR_IR), NULL, st, &o, D), st, sym);
  onnxexp_graph *g = build_linear(0);
  ASSERT_REFUSED(onnxexp_export_graph(g, sym, &o, D), sym, sym);
  onnxexp_graph_free(g);
  /* the external data file over the weights, the IR (hard link), the
   * model itself, the weights (symlink) */
  o = opts();
  o.external_data = ONNXEXP_EXTERNAL_DATA_FILE;
  o.external_data_name = "m.safetensors";
  ASSERT_REFUSED(onnxexp_export(ir, path_in("e.onnx"), &o, D), st, st);
  o.external_data_name = "hard.onnx";
  ASSERT_REFUSED(onnxexp_export(ir, path_in("e.onnx"), &o, D), hard, ir);
  o.external_data_name = "e.onnx";
  snprintf(data_as_st, sizeof data_as_st, "%s", path_in("e.onnx"));
  ASSERT_REFUSED(onnxexp_export(ir, data_as_st, &o, D), data_as_st, "the model");
  o.external_data_name = "sym.onnx";
  ASSERT_REFUSED(onnxexp_export(ir, path_in("e.onnx"), &o, D), sym, st);
  /* nothing was written: the four files and the two links, no temporary */
  ck_assert_int_ne(access(path_in("e.onnx"), F_OK), 0);
  char cmd[160];
  snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) -eq 4", tmpdir);
  ck_assert_msg(system(cmd) == 0, "files were created in %s", tmpdir);
  /* an unrelated output still works, and so does a dangling symlink */
  o = opts();
  ck_assert_int_eq(symlink("nowhere", path_in("dangling.onnx")), 0);
  ck_assert_msg(onnxexp_export(ir, path_in("dangling.onnx"), &o, D) == 0, "%s",
                onnxexp_diag_message(D));
  ck_assert_int_ne(access(path_in("nowhere"), F_OK), 0);
  free(w);
}
END_TEST

/* ---- options reach the model ---------------------------------------------- */

typedef struct {
  int n;
  char last[256];
} warnings;

static void on_warning(void *user, const char *msg) {
  warnings *w = user;
  w->n++;
  snprintf(w->last, sizeof w->last, "%s", msg);
}

START_TEST(options_reach_the_model) {
  size_t len;
  const char *in_names[] = {"input", "W", "B"}, *out_names[] = {"out"};
  onnxexp_dynamic_axis ax = {"input", 0, NULL};
  onnxexp_options o = opts();
  o.input_names = in_names;
  o.n_input_names = 3;
  o.output_names = out_names;
  o.n_output_names = 1;
  o.dynamic_axes = &ax;
  o.n_dynamic_axes = 1;
  o.opset_version = 13;
  unsigned char *buf = text_to_buf(LINEAR_IR, &o, &len);
  onnxexp_model_info *m;
  ck_assert_int_eq(onnxexp_check_model(buf, len, &m, D), 0);
  ck_assert_str_eq(onnxexp_model_info_input(m, 0), "input");
  ck_assert_str_eq(onnxexp_model_info_output(m, 0), "out");
  ck_assert_int_eq(onnxexp_model_info_opset(m, ""), 13);
  onnxexp_model_info_free(m);
  onnxexp_free(buf);
  /* keep_initializers_as_inputs and warnings about unbound weights. */
  size_t wlen;
  float w16[16] = {0};
  unsigned char *w = st_build("{\"fc.weight\":{\"dtype\":\"F32\",\"shape\":[3,4],\"data_offsets\":[0,48]},"
                              "\"fc.bias\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[48,60]},"
                              "\"extra\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[60,64]}}",
                              w16, 64, &wlen);
  warnings seen = {0};
  o = opts();
  o.weights_data = w;
  o.weights_size = wlen;
  o.keep_initializers_as_inputs = 1;
  o.warning = on_warning;
  o.warning_user = &seen;
  buf = text_to_buf(LINEAR_IR, &o, &len);
  ck_assert_int_eq(seen.n, 1);
  ck_assert_ptr_nonnull(strstr(seen.last, "extra"));
  ck_assert_int_eq(onnxexp_check_model(buf, len, &m, D), 0);
  ck_assert_int_eq(onnxexp_model_info_num_inputs(m), 3);
  ck_assert_int_eq(onnxexp_model_info_num_initializers(m), 2);
  onnxexp_model_info_free(m);
  onnxexp_free(buf);
  o.quiet = 1;
  buf = text_to_buf(LINEAR_IR, &o, &len);
  ck_assert_int_eq(seen.n, 1);
  onnxexp_free(buf);
  free(w);
  /* A doc string keeps the IR's source comments on nodes unless stripped. */
  size_t kept, stripped;
  o = opts();
  o.doc_string = "the model";
  buf = text_to_buf(LINEAR_IR, &o, &kept);
  ck_assert_ptr_nonnull(memmem(buf, kept, "m.py:5:0", 8));
  onnxexp_free(buf);
  o.strip_doc_string = 1;
  buf = text_to_buf(LINEAR_IR, &o, &stripped);
  ck_assert_ptr_null(memmem(buf, stripped, "m.py:5:0", 8));
  ck_assert_uint_lt(stripped, kept);
  onnxexp_free(buf);
  /* select_model_mode_for_export */
  o = opts();
  ck_assert_int_eq(onnxexp_select_model_mode_for_export(&o, ONNXEXP_TRAINING_PRESERVE, D), 0);
  ck_assert_int_eq(o.training, ONNXEXP_TRAINING_PRESERVE);
  ASSERT_FAILS(onnxexp_select_model_mode_for_export(&o, (onnxexp_training_mode)9, D),
               ONNXEXP_ERR_USAGE, "mode 9");
  o.struct_size = 0;
  ASSERT_FAILS(onnxexp_select_model_mode_for_export(&o, ONNXEXP_TRAINING_EVAL, D),
               ONNXEXP_ERR_USAGE, "onnxexp_options_init");
}
END_TEST

/* ---- custom symbolics ------------------------------------------------------ */

typedef struct {
  int calls;
  int in_export;
  int opset;
} probe;

static onnxexp_status relu_as_sigmoid(onnxexp_graph_context *ctx, const onnxexp_node *node,
                                      void *user) {
  probe *p = user;
  p->calls++;
  p->in_export = onnxexp_is_in_onnx_export();
  p->opset = onnxexp_g_opset(ctx);
  onnxexp_value *x, *y;
  onnxexp_status s = onnxexp_g_input(ctx, node, 0, &x);
  if (!s) s = onnxexp_g_op(ctx, "Sigmoid", &x, 1, 1, &y, NULL);
  return s ? s : onnxexp_g_set_output(ctx, node, 0, y);
}

START_TEST(custom_symbolic_overrides_builtin) {
  probe p = {0};
  size_t len;
  ck_assert_int_eq(onnxexp_is_in_onnx_export(), 0);
  ck_assert_int_eq(onnxexp_register_custom_op_symbolic("aten::relu", relu_as_sigmoid, &p, 9, D), 0);
  int sup = 0, first = 0;
  ck_assert_int_eq(onnxexp_op_supported("aten::relu", 9, &sup, &first, D), 0);
  ck_assert(sup && first == 9);
  unsigned char *buf = text_to_buf(LINEAR_IR, NULL, &len);
  ck_assert(has_op(buf, len, "Sigmoid"));
  ck_assert(!has_op(buf, len, "Relu"));
  ck_assert_int_eq(p.calls, 1);
  ck_assert_int_eq(p.in_export, 1);
  ck_assert_int_eq(p.opset, 17);
  ck_assert_int_eq(onnxexp_is_in_onnx_export(), 0);
  onnxexp_free(buf);
  /* Not below its opset... (a registration at 18 does not apply at 17) */
  ck_assert_int_eq(onnxexp_unregister_custom_op_symbolic("aten::relu", 9, D), 0);
  ck_assert_int_eq(onnxexp_register_custom_op_symbolic("::relu", relu_as_sigmoid, &p, 18, D), 0);
  buf = text_to_buf(LINEAR_IR, NULL, &len);
  ck_assert(has_op(buf, len, "Relu"));
  onnxexp_free(buf);
  /* ... and unregistering restores the built-in. */
  ck_assert_int_eq(onnxexp_unregister_custom_op_symbolic("aten::relu", 18, D), 0);
  buf = text_to_buf(LINEAR_IR, NULL, &len);
  ck_assert(has_op(buf, len, "Relu") && !has_op(buf, len, "Sigmoid"));
  onnxexp_free(buf);
  ck_assert_int_eq(p.calls, 1);
  ASSERT_FAILS(onnxexp_unregister_custom_op_symbolic("aten::relu", 18, D), ONNXEXP_ERR_USAGE,
               "no custom symbolic");
}
END_TEST

START_TEST(register_rejects_bad_names_and_opsets) {
  ASSERT_FAILS(onnxexp_register_custom_op_symbolic("relu", relu_as_sigmoid, NULL, 9, D),
               ONNXEXP_ERR_USAGE, "domain::name");
  ASSERT_FAILS(onnxexp_register_custom_op_symbolic("my domain::x", relu_as_sigmoid, NULL, 9, D),
               ONNXEXP_ERR_USAGE, "domain::name");
  ASSERT_FAILS(onnxexp_register_custom_op_symbolic("mydomain::1x", relu_as_sigmoid, NULL, 9, D),
               ONNXEXP_ERR_USAGE, "domain::name");
  ASSERT_FAILS(onnxexp_register_custom_op_symbolic("mydomain::", relu_as_sigmoid, NULL, 9, D),
               ONNXEXP_ERR_USAGE, "domain::name");
  ASSERT_FAILS(onnxexp_register_custom_op_symbolic("onnx::Relu", relu_as_sigmoid, NULL, 9, D),
               ONNXEXP_ERR_USAGE, "cannot be modified");
  ASSERT_FAILS(onnxexp_register_custom_op_symbolic("aten::relu", NULL, NULL, 9, D),
               ONNXEXP_ERR_USAGE, "fn");
  ASSERT_FAILS(onnxexp_register_custom_op_symbolic("aten::relu", relu_as_sigmoid, NULL, 0, D),
               ONNXEXP_ERR_USAGE, "opset 0");
  ASSERT_FAILS(onnxexp_register_custom_op_symbolic("aten::relu", relu_as_sigmoid, NULL, 22, D),
               ONNXEXP_ERR_USAGE, "opset 22");
  ASSERT_FAILS(onnxexp_unregister_custom_op_symbolic("aten::relu", 99, D), ONNXEXP_ERR_USAGE,
               "opset 99");
  ASSERT_FAILS(onnxexp_unregister_custom_op_symbolic("onnx::Relu", 9, D), ONNXEXP_ERR_USAGE,
               "cannot be modified");
}
END_TEST

/* mydomain::Foo(x, alpha) -> LeakyRelu(alpha), reading the constant. */
static onnxexp_status foo_as_leaky(onnxexp_graph_context *ctx, const onnxexp_node *node,
                                   void *user) {
  (void)user;
  onnxexp_value *x, *y;
  onnxexp_node *n;
  double alpha;
  if (!onnxexp_g_is_constant(node, 1) || onnxexp_g_is_constant(node, 0) || onnxexp_g_is_none(node, 1))
    return onnxexp_g_fail(ctx, ONNXEXP_ERR_GRAPH, "unexpected inputs");
  onnxexp_status s = onnxexp_g_const_float(ctx, node, 1, &alpha);
  if (!s) s = onnxexp_g_input(ctx, node, 0, &x);
  if (!s && (onnxexp_value_dtype(x) != ONNXEXP_DT_FLOAT || onnxexp_value_rank(x) != 2 ||
             onnxexp_value_dim(x, 1) != 3))
    return onnxexp_g_fail(ctx, ONNXEXP_ERR_GRAPH, "unexpected input type");
  if (!s) s = onnxexp_g_op(ctx, "LeakyRelu", &x, 1, 1, &y, &n);
  if (!s) s = onnxexp_node_set_float(n, "alpha", alpha, NULL);
  return s ? s : onnxexp_g_set_output(ctx, node, 0, y);
}

/* The same into a custom-domain node, with every helper on the way. */
static onnxexp_status foo_as_custom(onnxexp_graph_context *ctx, const onnxexp_node *node,
                                    void *user) {
  (void)user;
  onnxexp_value *x = NULL, *xi = NULL, *u = NULL, *c = NULL, *k = NULL, *s0 = NULL, *y[1];
  onnxexp_node *n;
  int64_t ax = 0;
  const int64_t d1[] = {1};
  const float one = 1.0f;
  onnxexp_status s = onnxexp_g_input(ctx, node, 0, &x);
  if (!s) s = onnxexp_g_cast(ctx, x, ONNXEXP_DT_DOUBLE, &xi);
  if (!s) s = onnxexp_g_unsqueeze(ctx, xi, &ax, 1, &u);
  if (!s) s = onnxexp_g_constant(ctx, ONNXEXP_DT_FLOAT, 1, d1, &one, 4, &c);
  if (!s) s = onnxexp_g_constant_ints(ctx, &ax, 1, &k);
  if (!s) s = onnxexp_g_constant_scalar(ctx, 2.0, ONNXEXP_DT_INT32, &s0);
  onnxexp_value *in[4] = {u, c, k, s0};
  if (!s) s = onnxexp_g_op(ctx, "mydomain::FooImpl", in, 4, 1, y, &n);
  if (!s) s = onnxexp_node_set_int(n, "mode", 3, NULL);
  if (!s) s = onnxexp_node_set_string(n, "tag", "t", NULL);
  if (!s) s = onnxexp_node_set_ints(n, "axes", &ax, 1, NULL);
  if (!s) s = onnxexp_g_set_type(ctx, y[0], ONNXEXP_DT_FLOAT, 2, (const int64_t[]){2, 3});
  return s ? s : onnxexp_g_set_output(ctx, node, 0, y[0]);
}

static onnxexp_status silent_failure(onnxexp_graph_context *ctx, const onnxexp_node *node,
                                     void *user) {
  (void)ctx, (void)node, (void)user;
  return ONNXEXP_ERR_GRAPH;
}

static onnxexp_status reads_nonconstant(onnxexp_graph_context *ctx, const onnxexp_node *node,
                                        void *user) {
  int64_t v;
  (void)user;
  return onnxexp_g_const_int(ctx, node, 0, &v);
}

START_TEST(custom_op_in_custom_domain) {
  size_t len;
  unsigned char *buf;
  ASSERT_FAILS(onnxexp_export_text_to_buffer(FOO_IR, strlen(FOO_IR), NULL, NULL, &buf, &len, D),
               ONNXEXP_ERR_UNSUPPORTED, "mydomain::Foo");
  ck_assert_int_eq(onnxexp_register_custom_op_symbolic("mydomain::Foo", foo_as_leaky, NULL, 9, D), 0);
  buf = text_to_buf(FOO_IR, NULL, &len);
  ck_assert(has_op(buf, len, "LeakyRelu"));
  onnxexp_free(buf);
  /* Registering again replaces the function. */
  ck_assert_int_eq(onnxexp_register_custom_op_symbolic("mydomain::Foo", foo_as_custom, NULL, 9, D), 0);
  onnxexp_custom_opset co = {"mydomain", 2};
  onnxexp_options o = opts();
  o.custom_opsets = &co;
  o.n_custom_opsets = 1;
  buf = text_to_buf(FOO_IR, &o, &len);
  onnxexp_model_info *m;
  ck_assert_int_eq(onnxexp_check_model(buf, len, &m, D), 0);
  ck_assert_int_eq(onnxexp_model_info_opset(m, "mydomain"), 2);
  int found = 0;
  for (int i = 0; i < onnxexp_model_info_num_nodes(m); i++)
    found |= strcmp(onnxexp_model_info_node_op(m, i), "FooImpl") == 0;
  ck_assert(found);
  onnxexp_model_info_free(m);
  onnxexp_free(buf);
  /* Failures inside a callback reach the caller's diag. */
  ck_assert_int_eq(onnxexp_register_custom_op_symbolic("mydomain::Foo", silent_failure, NULL, 9, D), 0);
  ASSERT_FAILS(onnxexp_export_text_to_buffer(FOO_IR, strlen(FOO_IR), NULL, NULL, &buf, &len, D),
               ONNXEXP_ERR_GRAPH, "custom symbolic for mydomain::Foo failed");
  ck_assert_int_eq(onnxexp_diag_line(D), 3);
  ck_assert_int_eq(onnxexp_register_custom_op_symbolic("mydomain::Foo", reads_nonconstant, NULL, 9, D), 0);
  ASSERT_FAILS(onnxexp_export_text_to_buffer(FOO_IR, strlen(FOO_IR), NULL, NULL, &buf, &len, D),
               ONNXEXP_ERR_GRAPH, "input 0 must be a constant int");
  ck_assert_int_eq(onnxexp_unregister_custom_op_symbolic("mydomain::Foo", 9, D), 0);
}
END_TEST

/* ---- ops and verification --------------------------------------------------- */

static int find_relu(void *user, const char *op, int first) {
  int *seen = user;
  if (strcmp(op, "aten::relu") == 0) *seen = first;
  return 0;
}

static int stop_at_first(void *user, const char *op, int first) {
  (void)op, (void)first;
  ++*(int *)user;
  return 1;
}

START_TEST(list_ops_and_support) {
  int seen = 0, n = 0, sup = 1, first = 1;
  ck_assert_int_eq(onnxexp_list_ops(0, find_relu, &seen, D), 0);
  ck_assert_int_eq(seen, 9);
  seen = 0;
  ck_assert_int_eq(onnxexp_list_ops(9, find_relu, &seen, D), 0);
  ck_assert_int_eq(seen, 9);
  ck_assert_int_eq(onnxexp_list_ops(17, stop_at_first, &n, D), 0);
  ck_assert_int_eq(n, 1);
  ASSERT_FAILS(onnxexp_list_ops(8, find_relu, &seen, D), ONNXEXP_ERR_USAGE, "opset 8");
  ck_assert_int_eq(onnxexp_op_supported("aten::frobnicate", 17, &sup, &first, D), 0);
  ck_assert(!sup && first == 0);
  ASSERT_FAILS(onnxexp_op_supported("aten::relu", 30, &sup, NULL, D), ONNXEXP_ERR_USAGE, "opset 30");
}
END_TEST

START_TEST(check_model_rejects_non_models) {
  onnxexp_model_info *m = (onnxexp_model_info *)1;
  ASSERT_FAILS(onnxexp_check_model("\xff\xff\xff", 3, &m, D), ONNXEXP_ERR_GRAPH, "ModelProto");
  ck_assert_ptr_null(m);
  ASSERT_FAILS(onnxexp_check_model(NULL, 0, &m, D), ONNXEXP_ERR_GRAPH, "ir_version");
  /* ir_version 8, no graph: field 1 varint 8. */
  ASSERT_FAILS(onnxexp_check_model("\x08\x08", 2, &m, D), ONNXEXP_ERR_GRAPH, "no graph");
}
END_TEST

/* ---- weights from memory ---------------------------------------------------- */

/* The weights of LINEAR_IR as a set bound from memory (W and BIAS). */
static onnxexp_weights *linear_weights(void) {
  onnxexp_weights *w;
  const int64_t wd[] = {3, 4}, bd[] = {3};
  ck_assert_int_eq(onnxexp_weights_create(&w, D), ONNXEXP_OK);
  ck_assert_int_eq(onnxexp_weights_add(w, "fc.weight", ONNXEXP_DT_FLOAT, 2, wd, W, 48, D), 0);
  ck_assert_int_eq(onnxexp_weights_add(w, "fc.bias", ONNXEXP_DT_FLOAT, 1, bd, BIAS, 12, D), 0);
  ck_assert_int_eq(onnxexp_weights_count(w), 2);
  return w;
}

/* Bound from memory, the weights give the same bytes as the same tensors
 * in a safetensors buffer or file, at every destination. */
START_TEST(weights_from_memory_match_safetensors) {
  size_t wlen, len, mlen;
  unsigned char *st = weights(&wlen);
  onnxexp_options o = opts();
  o.weights_data = st;
  o.weights_size = wlen;
  unsigned char *ref = text_to_buf(LINEAR_IR, &o, &len);
  onnxexp_weights *w = linear_weights();
  o = opts();
  o.weights = w;
  unsigned char *mem = text_to_buf(LINEAR_IR, &o, &mlen);
  ck_assert_uint_eq(mlen, len);
  ck_assert(memcmp(mem, ref, len) == 0);
  /* to a file, and from an IR file (no default sidecar is looked for) */
  write_all(path_in("m.ir"), LINEAR_IR, strlen(LINEAR_IR));
  ck_assert_int_eq(onnxexp_export(path_in("m.ir"), path_in("w.onnx"), &o, D), ONNXEXP_OK);
  size_t flen;
  unsigned char *f = read_all(path_in("w.onnx"), &flen);
  ck_assert(flen == len && memcmp(f, ref, len) == 0);
  free(f);
  char *txt;
  ck_assert_int_eq(onnxexp_export_text_to_pretty_string(LINEAR_IR, strlen(LINEAR_IR), NULL, &o,
                                                         &txt, D), ONNXEXP_OK);
  ck_assert_ptr_nonnull(strstr(txt, "Gemm"));
  onnxexp_free(txt);
  /* one set serves several exports; the data is read at export time, not
   * copied when added */
  W[0] += 1.0f;
  unsigned char *changed = text_to_buf(LINEAR_IR, &o, &mlen);
  W[0] -= 1.0f;
  ck_assert_uint_eq(mlen, len);
  ck_assert(memcmp(changed, ref, len) != 0);
  onnxexp_free(changed);
  onnxexp_free(mem);
  mem = text_to_buf(LINEAR_IR, &o, &mlen);
  ck_assert(mlen == len && memcmp(mem, ref, len) == 0);
  onnxexp_free(mem);
  onnxexp_free(ref);
  onnxexp_weights_free(w);
  free(st);
}
END_TEST

START_TEST(weights_add_rejects_bad_tensors) {
  onnxexp_weights *w;
  const int64_t d2[] = {3, 4}, neg[] = {3, -1}, huge[] = {INT64_MAX, 4}, zero[] = {0, INT64_MAX};
  ASSERT_FAILS(onnxexp_weights_create(NULL, D), ONNXEXP_ERR_USAGE, "out");
  ck_assert_int_eq(onnxexp_weights_create(&w, D), ONNXEXP_OK);
  ASSERT_FAILS(onnxexp_weights_add(NULL, "a", ONNXEXP_DT_FLOAT, 2, d2, W, 48, D), ONNXEXP_ERR_USAGE, "weights");
  ASSERT_FAILS(onnxexp_weights_add(w, NULL, ONNXEXP_DT_FLOAT, 2, d2, W, 48, D), ONNXEXP_ERR_USAGE, "name");
  ASSERT_FAILS(onnxexp_weights_add(w, "", ONNXEXP_DT_FLOAT, 2, d2, W, 48, D), ONNXEXP_ERR_USAGE, "name");
  ASSERT_FAILS(onnxexp_weights_add(w, "a", ONNXEXP_DT_STRING, 2, d2, W, 48, D), ONNXEXP_ERR_USAGE, "dtype");
  ASSERT_FAILS(onnxexp_weights_add(w, "a", (onnxexp_dtype)99, 2, d2, W, 48, D), ONNXEXP_ERR_USAGE, "dtype");
  ASSERT_FAILS(onnxexp_weights_add(w, "a", ONNXEXP_DT_UNDEFINED, 2, d2, W, 48, D), ONNXEXP_ERR_USAGE, "dtype");
  ASSERT_FAILS(onnxexp_weights_add(w, "a", ONNXEXP_DT_FLOAT, -1, d2, W, 48, D), ONNXEXP_ERR_USAGE, "rank");
  ASSERT_FAILS(onnxexp_weights_add(w, "a", ONNXEXP_DT_FLOAT, 65, d2, W, 48, D), ONNXEXP_ERR_USAGE, "rank");
  ASSERT_FAILS(onnxexp_weights_add(w, "a", ONNXEXP_DT_FLOAT, 2, NULL, W, 48, D), ONNXEXP_ERR_USAGE, "rank");
  ASSERT_FAILS(onnxexp_weights_add(w, "a", ONNXEXP_DT_FLOAT, 2, neg, W, 48, D), ONNXEXP_ERR_USAGE, ">= 0");
  ASSERT_FAILS(onnxexp_weights_add(w, "a", ONNXEXP_DT_FLOAT, 2, huge, W, 48, D), ONNXEXP_ERR_USAGE, "fit");
  ASSERT_FAILS(onnxexp_weights_add(w, "a", ONNXEXP_DT_FLOAT, 2, d2, W, 44, D), ONNXEXP_ERR_USAGE,
               "'a': 44 bytes of data for shape [3, 4] of float32 (48 bytes)");
  ASSERT_FAILS(onnxexp_weights_add(w, "a", ONNXEXP_DT_FLOAT, 2, d2, NULL, 48, D), ONNXEXP_ERR_USAGE, "at NULL");
  ck_assert_int_eq(onnxexp_weights_count(w), 0);
  /* empty tensors need no data, even with a huge other dim; scalars none */
  ck_assert_int_eq(onnxexp_weights_add(w, "e", ONNXEXP_DT_FLOAT, 2, zero, NULL, 0, D), ONNXEXP_OK);
  ck_assert_int_eq(onnxexp_weights_add(w, "s", ONNXEXP_DT_INT64, 0, NULL, W, 8, D), ONNXEXP_OK);
  ck_assert_int_eq(onnxexp_weights_add(w, "a", ONNXEXP_DT_FLOAT, 2, d2, W, 48, D), ONNXEXP_OK);
  ASSERT_FAILS(onnxexp_weights_add(w, "a", ONNXEXP_DT_FLOAT, 1, d2, BIAS, 12, D), ONNXEXP_ERR_USAGE,
               "already holds");
  ck_assert_int_eq(onnxexp_weights_count(w), 3);
  ck_assert_int_eq(onnxexp_weights_count(NULL), 0);
  onnxexp_weights_free(w);
  onnxexp_weights_free(NULL);
}
END_TEST

static int warnings_seen;
static void count_warning(void *user, const char *msg) {
  (void)user;
  ck_assert_ptr_nonnull(strstr(msg, "'unused'"));
  warnings_seen++;
}

/* A set binds like a safetensors file: mismatches against the graph are
 * weights errors naming the tensor, unbound tensors warnings, and it
 * cannot be given with another weights source. */
START_TEST(weights_from_memory_bind_like_safetensors) {
  unsigned char *buf;
  size_t len;
  onnxexp_weights *w;
  const int64_t wd[] = {4, 3}, bd[] = {3}, one[] = {1};
  ck_assert_int_eq(onnxexp_weights_create(&w, D), ONNXEXP_OK);
  ck_assert_int_eq(onnxexp_weights_add(w, "fc.weight", ONNXEXP_DT_FLOAT, 2, wd, W, 48, D), 0);
  ck_assert_int_eq(onnxexp_weights_add(w, "fc.bias", ONNXEXP_DT_FLOAT, 1, bd, BIAS, 12, D), 0);
  onnxexp_options o = opts();
  o.weights = w;
  ASSERT_FAILS(onnxexp_export_text_to_buffer(LINEAR_IR, strlen(LINEAR_IR), NULL, &o, &buf, &len, D),
               ONNXEXP_ERR_WEIGHTS, "weight 'fc.weight' has shape [4, 3]");
  ck_assert_str_eq(onnxexp_diag_file(D), "the weights in memory");
  onnxexp_weights_free(w);
  /* an extra tensor: a warning, through the warning callback */
  w = linear_weights();
  ck_assert_int_eq(onnxexp_weights_add(w, "unused", ONNXEXP_DT_FLOAT, 1, one, W, 4, D), 0);
  o = opts();
  o.weights = w;
  o.warning = count_warning;
  warnings_seen = 0;
  free(text_to_buf(LINEAR_IR, &o, &len));
  ck_assert_int_eq(warnings_seen, 1);
  /* only one weights source */
  o.weights_path = "w.safetensors";
  ASSERT_FAILS(onnxexp_export_text_to_buffer(LINEAR_IR, strlen(LINEAR_IR), NULL, &o, &buf, &len, D),
               ONNXEXP_ERR_USAGE, "only one of");
  o.weights_path = NULL;
  o.weights_data = "x";
  o.weights_size = 1;
  ASSERT_FAILS(onnxexp_export_text_to_buffer(LINEAR_IR, strlen(LINEAR_IR), NULL, &o, &buf, &len, D),
               ONNXEXP_ERR_USAGE, "only one of");
  /* nor with a built graph's attached weights */
  onnxexp_graph *g = build_linear(1);
  o = opts();
  o.weights = w;
  ASSERT_FAILS(onnxexp_export_graph_to_buffer(g, &o, &buf, &len, D), ONNXEXP_ERR_USAGE,
               "attached weights");
  onnxexp_graph_free(g);
  /* a built graph without attached weights takes the set */
  g = build_linear(0);
  size_t glen, rlen;
  unsigned char *gb;
  ck_assert_int_eq(onnxexp_export_graph_to_buffer(g, &o, &gb, &glen, D), ONNXEXP_OK);
  onnxexp_graph_free(g);
  unsigned char *rb = text_to_buf(LINEAR_IR, &o, &rlen);
  ck_assert(glen == rlen && memcmp(gb, rb, glen) == 0);
  onnxexp_free(gb);
  onnxexp_free(rb);
  onnxexp_weights_free(w);
}
END_TEST

/* `constant:NAME` in the set supplies a constant printed as <Tensor>. */
START_TEST(weights_from_memory_supply_constants) {
  const char *ir =
      "graph(%x : Float(12, strides=[1], requires_grad=0, device=cpu)):\n"
      "  %c : Float(12, strides=[1], requires_grad=0, device=cpu) = prim::Constant[value=<Tensor>]()\n"
      "  %y : Float(12, strides=[1], requires_grad=0, device=cpu) = aten::mul(%x, %c) # m.py:3:0\n"
      "  return (%y)\n";
  unsigned char *buf;
  size_t len;
  ASSERT_FAILS(onnxexp_export_text_to_buffer(ir, strlen(ir), "c.ir", NULL, &buf, &len, D),
               ONNXEXP_ERR_WEIGHTS, "constant:c");
  onnxexp_weights *w;
  const int64_t cd[] = {12};
  ck_assert_int_eq(onnxexp_weights_create(&w, D), ONNXEXP_OK);
  ck_assert_int_eq(onnxexp_weights_add(w, "constant:c", ONNXEXP_DT_FLOAT, 1, cd, W, 48, D), 0);
  onnxexp_options o = opts();
  o.weights = w;
  buf = text_to_buf(ir, &o, &len);
  ck_assert(has_op(buf, len, "Mul"));
  onnxexp_free(buf);
  onnxexp_weights_free(w);
}
END_TEST

static int progress_calls;
static void count_progress(void *user, const char *text) {
  (void)user;
  (void)text;
  progress_calls++;
}

/* A quick export never draws the progress display (it waits a second). */
START_TEST(progress_is_silent_on_quick_exports) {
  onnxexp_options o = opts();
  o.progress = count_progress;
  progress_calls = 0;
  size_t len;
  free(text_to_buf(LINEAR_IR, &o, &len));
  ck_assert_int_eq(onnxexp_export_text(LINEAR_IR, strlen(LINEAR_IR), NULL, path_in("p.onnx"), &o, D),
                   ONNXEXP_OK);
  ck_assert_int_eq(progress_calls, 0);
}
END_TEST

/* ---- the model's source line in diagnostics --------------------------------- */

START_TEST(errors_name_the_model_source_line) {
  const char *ir =
      "graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)):\n"
      "  %y : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu) = aten::relu(%x) # m.py:3:0\n"
      "  %z : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu) = aten::frobnicate(%y), scope: M:: # /src/my:model.py:42:8\n"
      "  return (%z)\n";
  unsigned char *buf;
  size_t len;
  char out[1400];
  ASSERT_FAILS(onnxexp_export_text_to_buffer(ir, strlen(ir), "s.ir", NULL, &buf, &len, D),
               ONNXEXP_ERR_UNSUPPORTED, "frobnicate");
  ck_assert_int_eq(onnxexp_diag_line(D), 3);
  ck_assert_str_eq(onnxexp_diag_source_file(D), "/src/my:model.py");
  ck_assert_int_eq(onnxexp_diag_source_line(D), 42);
  size_t n = onnxexp_diag_format(D, out, sizeof out);
  ck_assert_uint_eq(n, strlen(out));
  ck_assert_msg(strncmp(out, "s.ir:3:3: ", 10) == 0, "formatted: %s", out);
  const char *tail = " (/src/my:model.py:42)";
  ck_assert_msg(strstr(out, "frobnicate") && n > strlen(tail) && strcmp(out + n - strlen(tail), tail) == 0,
                "formatted: %s", out);
  /* the same from an IR file */
  write_all(path_in("s.ir"), ir, strlen(ir));
  ck_assert_int_ne(onnxexp_export(path_in("s.ir"), path_in("s.onnx"), NULL, D), ONNXEXP_OK);
  ck_assert_int_eq(onnxexp_diag_source_line(D), 42);
  /* the next call clears it, and so does onnxexp_diag_clear */
  free(text_to_buf(LINEAR_IR, NULL, &len));
  ck_assert_str_eq(onnxexp_diag_source_file(D), "");
  ck_assert_int_eq(onnxexp_diag_source_line(D), 0);
  ck_assert_int_ne(onnxexp_export_text_to_buffer(ir, strlen(ir), "s.ir", NULL, &buf, &len, D), 0);
  onnxexp_diag_clear(D);
  ck_assert_str_eq(onnxexp_diag_source_file(D), "");
  /* a line without a comment, an error without a line: no source */
  const char *plain =
      "graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)):\n"
      "  %z : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu) = aten::frobnicate(%x)\n"
      "  return (%z)\n";
  ck_assert_int_ne(onnxexp_export_text_to_buffer(plain, strlen(plain), "p.ir", NULL, &buf, &len, D), 0);
  ck_assert_int_eq(onnxexp_diag_line(D), 2);
  ck_assert_str_eq(onnxexp_diag_source_file(D), "");
  n = onnxexp_diag_format(D, out, sizeof out);
  ck_assert_msg(out[n - 1] != ')', "formatted: %s", out);
  onnxexp_options o = opts();
  o.opset_version = 3;
  ck_assert_int_ne(onnxexp_export_text_to_buffer(ir, strlen(ir), "s.ir", &o, &buf, &len, D), 0);
  ck_assert_int_eq(onnxexp_diag_source_line(D), 0);
  ck_assert_str_eq(onnxexp_diag_source_file(NULL), "");
  ck_assert_int_eq(onnxexp_diag_source_line(NULL), 0);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("api");
  TCase *t = tcase_create("api");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, version_matches_headers);
  tcase_add_test(t, diag_accessors_and_null);
  tcase_add_test(t, options_init_checks_size);
  tcase_add_test(t, bad_option_values);
  tcase_add_test(t, every_option_takes_effect);
  tcase_add_test(t, null_arguments_are_usage_errors);
  tcase_add_test(t, export_text_to_buffer_is_a_model);
  tcase_add_test(t, every_source_and_destination_agree);
  tcase_add_test(t, builder_matches_ir_text_byte_for_byte);
  tcase_add_test(t, builder_attributes_constants_and_blocks);
  tcase_add_test(t, builder_rejects_bad_graphs);
  tcase_add_test(t, export_errors_carry_location_and_op);
  tcase_add_test(t, external_data_file_and_reference);
  tcase_add_test(t, file_outputs_never_replace_inputs);
  tcase_add_test(t, options_reach_the_model);
  tcase_add_test(t, custom_symbolic_overrides_builtin);
  tcase_add_test(t, register_rejects_bad_names_and_opsets);
  tcase_add_test(t, custom_op_in_custom_domain);
  tcase_add_test(t, list_ops_and_support);
  tcase_add_test(t, check_model_rejects_non_models);
  tcase_add_test(t, weights_from_memory_match_safetensors);
  tcase_add_test(t, weights_add_rejects_bad_tensors);
  tcase_add_test(t, weights_from_memory_bind_like_safetensors);
  tcase_add_test(t, weights_from_memory_supply_constants);
  tcase_add_test(t, progress_is_silent_on_quick_exports);
  tcase_add_test(t, errors_name_the_model_source_line);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return oxp_check_run(suite());
}
