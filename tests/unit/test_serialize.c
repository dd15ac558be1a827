/* test_serialize.c: the naming pass, the ModelProto the serializer packs
 * (unpacked again and checked field by field), atomic file writes, the
 * pretty printer, and the real onnx checker on a written file. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include "check_main.h"
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serialize.h"
#include "onnx/onnx.pb-c.h"

/* ---- fixtures ------------------------------------------------------------ */

static oxp_arena *A;
static oxp_graph *G;

static void setup(void) {
  A = oxp_arena_new();
  G = oxp_graph_new(A, "test.ir");
}

static void teardown(void) { oxp_arena_free(A); }

/* Defaults as the CLI sets them; kept local so the suite does not depend
 * on the options module. */
static oxp_options opts(void) {
  oxp_options o;
  memset(&o, 0, sizeof o);
  o.opset = 17;
  o.constant_folding = true;
  o.export_params = true;
  o.strip_doc_string = true;
  return o;
}

static oxp_type *ft(int rank, const int64_t *dims) {
  return oxp_type_tensor(A, OXP_DT_FLOAT, rank, dims);
}

static oxp_node *node1(oxp_block *b, const char *kind, oxp_value *x,
                       oxp_value *y) {
  oxp_node *n = oxp_node_new(G, kind, 1);
  oxp_node_add_input(n, x);
  if (y) oxp_node_add_input(n, y);
  oxp_block_append(b, n);
  return n;
}

static oxp_value *weight(const char *name, int rank, const int64_t *dims,
                         const float *data, size_t nbytes) {
  oxp_value *w = oxp_block_add_input(G->top, name, ft(rank, dims));
  w->init = oxp_tensor_new(A, OXP_DT_FLOAT, rank, dims, data, nbytes);
  return w;
}

/* Serializes G with o and unpacks it; the caller frees with free_model. */
static Onnx__ModelProto *roundtrip(const oxp_options *o) {
  unsigned char *buf;
  size_t len;
  oxp_diag d = {0};
  oxp_status st = oxp_write_buffer(G, o, &buf, &len, &d);
  ck_assert_msg(st == OXP_OK, "serialize failed: %s", d.message);
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
  free(buf);
  ck_assert_ptr_nonnull(m);
  return m;
}

static void free_model(Onnx__ModelProto *m) {
  onnx__model_proto__free_unpacked(m, NULL);
}

static Onnx__TensorShapeProto *shape_of(Onnx__ValueInfoProto *vi) {
  ck_assert_ptr_nonnull(vi->type);
  ck_assert_int_eq(vi->type->value_case, ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE);
  return vi->type->tensor_type->shape;
}

/* x[2,3] + y[batch,?] -> Relu -> out */
static oxp_value *build_add_relu(void) {
  const int64_t d23[] = {2, 3}, dyn[] = {-1, -1};
  oxp_value *x = oxp_block_add_input(G->top, "x", ft(2, d23));
  oxp_type *ty = ft(2, dyn);
  ty->dim_params = oxp_alloc(A, 2 * sizeof(char *));
  ty->dim_params[0] = "batch";
  oxp_value *y = oxp_block_add_input(G->top, "y", ty);
  oxp_node *add = node1(G->top, "onnx::Add", x, y);
  add->outputs[0]->type = ft(2, d23);
  oxp_node *relu = node1(G->top, "onnx::Relu", add->outputs[0], NULL);
  relu->outputs[0]->name = "out";
  relu->outputs[0]->type = ft(2, d23);
  oxp_block_add_output(G->top, relu->outputs[0]);
  return add->outputs[0];
}

/* ---- model fields ---------------------------------------------------------- */

START_TEST(serialize_model_header_and_graph) {
  build_add_relu();
  oxp_options o = opts();
  Onnx__ModelProto *m = roundtrip(&o);
  ck_assert(m->has_ir_version);
  ck_assert_int_eq(m->ir_version, 8);
  ck_assert_str_eq(m->producer_name, "onnxexp");
  ck_assert_str_eq(m->producer_version, "0.1.0");
  ck_assert_ptr_null(m->doc_string);
  ck_assert_int_eq(m->n_opset_import, 1);
  ck_assert_str_eq(m->opset_import[0]->domain, "");
  ck_assert_int_eq(m->opset_import[0]->version, 17);

  Onnx__GraphProto *g = m->graph;
  ck_assert_str_eq(g->name, "main_graph");
  ck_assert_int_eq(g->n_input, 2);
  ck_assert_str_eq(g->input[0]->name, "x");
  ck_assert_int_eq(g->input[0]->type->tensor_type->elem_type,
                   ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
  Onnx__TensorShapeProto *sx = shape_of(g->input[0]);
  ck_assert_int_eq(sx->n_dim, 2);
  ck_assert_int_eq(sx->dim[0]->value_case,
                   ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE);
  ck_assert_int_eq(sx->dim[0]->dim_value, 2);
  ck_assert_int_eq(sx->dim[1]->dim_value, 3);
  Onnx__TensorShapeProto *sy = shape_of(g->input[1]);
  ck_assert_int_eq(sy->dim[0]->value_case,
                   ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM);
  ck_assert_str_eq(sy->dim[0]->dim_param, "batch");
  ck_assert_int_eq(sy->dim[1]->value_case,
                   ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE__NOT_SET);

  ck_assert_int_eq(g->n_node, 2);
  Onnx__NodeProto *n0 = g->node[0], *n1 = g->node[1];
  ck_assert_str_eq(n0->op_type, "Add");
  ck_assert_ptr_null(n0->domain);
  ck_assert_str_eq(n0->name, "Add_0");
  ck_assert_int_eq(n0->n_input, 2);
  ck_assert_str_eq(n0->input[0], "x");
  ck_assert_str_eq(n0->input[1], "y");
  ck_assert_str_eq(n0->output[0], "Add_0_out0");
  ck_assert_str_eq(n1->op_type, "Relu");
  ck_assert_str_eq(n1->name, "Relu_1");
  ck_assert_str_eq(n1->input[0], "Add_0_out0");
  ck_assert_str_eq(n1->output[0], "out");

  ck_assert_int_eq(g->n_output, 1);
  ck_assert_str_eq(g->output[0]->name, "out");
  ck_assert_int_eq(shape_of(g->output[0])->n_dim, 2);
  /* Only the intermediate, not the graph output. */
  ck_assert_int_eq(g->n_value_info, 1);
  ck_assert_str_eq(g->value_info[0]->name, "Add_0_out0");
  ck_assert_int_eq(g->n_initializer, 0);
  free_model(m);
}
END_TEST

START_TEST(serialize_doc_string_unless_stripped) {
  build_add_relu();
  oxp_options o = opts();
  o.doc_string = "my model";
  Onnx__ModelProto *m = roundtrip(&o);
  ck_assert_ptr_null(m->doc_string);
  free_model(m);
  o.strip_doc_string = false;
  m = roundtrip(&o);
  ck_assert_str_eq(m->doc_string, "my model");
  free_model(m);
}
END_TEST

START_TEST(serialize_types_rank_unknown_scalar_sequence) {
  const int64_t d4[] = {4};
  oxp_value *a = oxp_block_add_input(G->top, "a", ft(-1, NULL));
  oxp_value *s = oxp_block_add_input(G->top, "s", ft(0, NULL));
  oxp_type *seq = oxp_type_new(A, OXP_T_SEQUENCE);
  seq->elem = ft(1, d4);
  oxp_value *q = oxp_block_add_input(G->top, "q", seq);
  oxp_node *n = node1(G->top, "onnx::Add", a, s);
  n->outputs[0]->type = oxp_type_tensor(A, OXP_DT_UNDEFINED, -1, NULL);
  oxp_node *n2 = node1(G->top, "onnx::SequenceInsert", q, n->outputs[0]);
  n2->outputs[0]->type = oxp_type_copy(A, seq);
  oxp_node *n3 = node1(G->top, "onnx::SequenceLength", n2->outputs[0], NULL);
  oxp_block_add_output(G->top, n3->outputs[0]);
  oxp_options o = opts();
  Onnx__ModelProto *m = roundtrip(&o);
  Onnx__GraphProto *g = m->graph;
  ck_assert_ptr_null(g->input[0]->type->tensor_type->shape); /* rank -1 */
  ck_assert_ptr_nonnull(g->input[1]->type->tensor_type->shape);
  ck_assert_int_eq(g->input[1]->type->tensor_type->shape->n_dim, 0);
  ck_assert_int_eq(g->input[2]->type->value_case,
                   ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE);
  Onnx__TypeProto *el = g->input[2]->type->sequence_type->elem_type;
  ck_assert_int_eq(el->tensor_type->elem_type, OXP_DT_FLOAT);
  ck_assert_int_eq(el->tensor_type->shape->dim[0]->dim_value, 4);
  /* Unknown dtype: no value_info; the sequence one is known. */
  ck_assert_int_eq(g->n_value_info, 1);
  ck_assert_str_eq(g->value_info[0]->name, n2->outputs[0]->name);
  /* Untyped output: listed without a type. */
  ck_assert_ptr_null(g->output[0]->type);
  free_model(m);
}
END_TEST

START_TEST(serialize_absent_input_is_empty_name) {
  const int64_t d[] = {3};
  oxp_value *x = oxp_block_add_input(G->top, "x", ft(1, d));
  oxp_node *n = oxp_node_new(G, "onnx::Clip", 1);
  oxp_node_add_input(n, x);
  oxp_node_add_input(n, NULL);
  oxp_node_add_input(n, x);
  oxp_block_append(G->top, n);
  oxp_block_add_output(G->top, n->outputs[0]);
  oxp_options o = opts();
  Onnx__ModelProto *m = roundtrip(&o);
  Onnx__NodeProto *np = m->graph->node[0];
  ck_assert_int_eq(np->n_input, 3);
  ck_assert_str_eq(np->input[0], "x");
  ck_assert_str_eq(np->input[1], "");
  ck_assert_str_eq(np->input[2], "x");
  free_model(m);
}
END_TEST

/* ---- initializers ------------------------------------------------------ */

static const float W[6] = {1, 2, 3, 4, 5, 6};

static void build_with_weight(void) {
  const int64_t d23[] = {2, 3};
  oxp_value *x = oxp_block_add_input(G->top, "x", ft(2, d23));
  oxp_value *w = weight("w", 2, d23, W, sizeof W);
  oxp_node *n = node1(G->top, "onnx::Mul", x, w);
  /* A constant made during lowering: a block init, not an input. */
  oxp_value *c = oxp_value_new(G, "c", ft(0, NULL));
  static const float one = 1.0f;
  c->init = oxp_tensor_new(A, OXP_DT_FLOAT, 0, NULL, &one, sizeof one);
  oxp_block_add_init(G->top, c);
  oxp_node *n2 = node1(G->top, "onnx::Add", n->outputs[0], c);
  oxp_block_add_output(G->top, n2->outputs[0]);
}

START_TEST(serialize_initializers_raw_bytes) {
  build_with_weight();
  oxp_options o = opts();
  Onnx__ModelProto *m = roundtrip(&o);
  Onnx__GraphProto *g = m->graph;
  ck_assert_int_eq(g->n_input, 1);
  ck_assert_str_eq(g->input[0]->name, "x");
  ck_assert_int_eq(g->n_initializer, 2);
  Onnx__TensorProto *t = g->initializer[0];
  ck_assert_str_eq(t->name, "w");
  ck_assert_int_eq(t->data_type, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
  ck_assert_int_eq(t->n_dims, 2);
  ck_assert_int_eq(t->dims[0], 2);
  ck_assert_int_eq(t->dims[1], 3);
  ck_assert(t->has_raw_data);
  ck_assert_int_eq(t->raw_data.len, sizeof W);
  ck_assert_mem_eq(t->raw_data.data, W, sizeof W);
  ck_assert_int_eq(t->n_float_data, 0);
  Onnx__TensorProto *c = g->initializer[1];
  ck_assert_str_eq(c->name, "c");
  ck_assert_int_eq(c->n_dims, 0);
  ck_assert_int_eq(c->raw_data.len, 4);
  free_model(m);
}
END_TEST

START_TEST(serialize_keep_initializers_as_inputs) {
  build_with_weight();
  oxp_options o = opts();
  o.keep_initializers_as_inputs = true;
  Onnx__ModelProto *m = roundtrip(&o);
  Onnx__GraphProto *g = m->graph;
  ck_assert_int_eq(g->n_input, 2);
  ck_assert_str_eq(g->input[0]->name, "x");
  ck_assert_str_eq(g->input[1]->name, "w");
  ck_assert_int_eq(shape_of(g->input[1])->dim[1]->dim_value, 3);
  ck_assert_int_eq(g->n_initializer, 2);
  free_model(m);
}
END_TEST

START_TEST(serialize_user_inputs_before_weights) {
  const int64_t d[] = {3};
  weight("w", 1, d, W, 12);
  oxp_value *x = oxp_block_add_input(G->top, "x", ft(1, d));
  oxp_node *n = node1(G->top, "onnx::Add", G->top->inputs[0], x);
  oxp_block_add_output(G->top, n->outputs[0]);
  oxp_options o = opts();
  o.keep_initializers_as_inputs = true;
  Onnx__ModelProto *m = roundtrip(&o);
  ck_assert_str_eq(m->graph->input[0]->name, "x");
  ck_assert_str_eq(m->graph->input[1]->name, "w");
  free_model(m);
}
END_TEST

START_TEST(serialize_no_export_params_makes_weights_inputs) {
  build_with_weight();
  oxp_options o = opts();
  o.export_params = false;
  Onnx__ModelProto *m = roundtrip(&o);
  ck_assert_int_eq(m->graph->n_input, 2);
  ck_assert_str_eq(m->graph->input[1]->name, "w");
  ck_assert_int_eq(m->graph->n_initializer, 1); /* the constant stays */
  ck_assert_str_eq(m->graph->initializer[0]->name, "c");
  free_model(m);
}
END_TEST

START_TEST(serialize_rejects_tensor_size_mismatch) {
  const int64_t d23[] = {2, 3};
  oxp_value *x = oxp_block_add_input(G->top, "x", ft(2, d23));
  oxp_value *w = weight("w", 2, d23, W, sizeof W - 4);
  oxp_node *n = node1(G->top, "onnx::Add", x, w);
  oxp_block_add_output(G->top, n->outputs[0]);
  oxp_options o = opts();
  unsigned char *buf = (unsigned char *)"x";
  size_t len = 7;
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_write_buffer(G, &o, &buf, &len, &d), OXP_ERR_INTERNAL);
  ck_assert_ptr_null(buf);
  ck_assert_int_eq(len, 0);
  ck_assert_ptr_nonnull(strstr(d.message, "tensor w"));
}
END_TEST

/* ---- attributes ---------------------------------------------------------- */

START_TEST(serialize_attributes_each_kind) {
  const int64_t d[] = {2};
  oxp_value *x = oxp_block_add_input(G->top, "x", ft(1, d));
  oxp_node *n = node1(G->top, "onnx::Foo", x, NULL);
  static const int32_t tdata[2] = {7, -8};
  const int64_t ints[] = {1, -2, 3};
  const double floats[] = {0.5, -1.25};
  const char *strs[] = {"a", "bc"};
  oxp_attr_set_i(n, "i", -5);
  oxp_attr_set_f(n, "f", 0.1);
  oxp_attr_set_s(n, "s", "hello");
  oxp_attr_set_t(n, "t",
                 oxp_tensor_new(A, OXP_DT_INT32, 1, d, tdata, sizeof tdata));
  oxp_attr_set_ints(n, "ints", ints, 3);
  oxp_attr_set_floats(n, "floats", floats, 2);
  oxp_attr_set_strs(n, "strs", strs, 2);
  oxp_attr_set_ints(n, "empty", NULL, 0);
  oxp_block_add_output(G->top, n->outputs[0]);
  oxp_options o = opts();
  Onnx__ModelProto *m = roundtrip(&o);
  Onnx__NodeProto *np = m->graph->node[0];
  ck_assert_int_eq(np->n_attribute, 8);
  Onnx__AttributeProto **a = np->attribute;
  ck_assert_str_eq(a[0]->name, "i");
  ck_assert_int_eq(a[0]->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
  ck_assert_int_eq(a[0]->i, -5);
  ck_assert_int_eq(a[1]->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
  ck_assert(a[1]->f == 0.1f);
  ck_assert_int_eq(a[2]->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
  ck_assert_int_eq(a[2]->s.len, 5);
  ck_assert_mem_eq(a[2]->s.data, "hello", 5);
  ck_assert_int_eq(a[3]->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
  ck_assert_int_eq(a[3]->t->data_type, ONNX__TENSOR_PROTO__DATA_TYPE__INT32);
  ck_assert_int_eq(a[3]->t->dims[0], 2);
  ck_assert_ptr_null(a[3]->t->name);
  ck_assert_mem_eq(a[3]->t->raw_data.data, tdata, sizeof tdata);
  ck_assert_int_eq(a[4]->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
  ck_assert_int_eq(a[4]->n_ints, 3);
  ck_assert_int_eq(a[4]->ints[1], -2);
  ck_assert_int_eq(a[5]->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
  ck_assert_int_eq(a[5]->n_floats, 2);
  ck_assert(a[5]->floats[1] == -1.25f);
  ck_assert_int_eq(a[6]->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
  ck_assert_int_eq(a[6]->n_strings, 2);
  ck_assert_int_eq(a[6]->strings[1].len, 2);
  ck_assert_mem_eq(a[6]->strings[1].data, "bc", 2);
  ck_assert_str_eq(a[7]->name, "empty");
  ck_assert_int_eq(a[7]->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
  ck_assert_int_eq(a[7]->n_ints, 0);
  free_model(m);
}
END_TEST

START_TEST(serialize_rejects_none_attribute) {
  oxp_value *x = oxp_block_add_input(G->top, "x", ft(-1, NULL));
  oxp_node *n = node1(G->top, "onnx::Foo", x, NULL);
  oxp_attr_set(n, "value", OXP_A_NONE);
  oxp_block_add_output(G->top, n->outputs[0]);
  oxp_options o = opts();
  unsigned char *buf;
  size_t len;
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_write_buffer(G, &o, &buf, &len, &d), OXP_ERR_INTERNAL);
  ck_assert_str_eq(d.op, "onnx::Foo");
}
END_TEST

/* ---- control flow -------------------------------------------------------- */

/* out = If(c) { then: x + x } else { Relu(x) } ; x from the outer scope */
static oxp_node *build_if(void) {
  const int64_t d[] = {3};
  oxp_value *c = oxp_block_add_input(
      G->top, "c", oxp_type_tensor(A, OXP_DT_BOOL, 0, NULL));
  oxp_value *x = oxp_block_add_input(G->top, "x", ft(1, d));
  oxp_node *iff = oxp_node_new(G, "onnx::If", 1);
  oxp_node_add_input(iff, c);
  oxp_block *tb = oxp_node_add_block(iff), *eb = oxp_node_add_block(iff);
  oxp_node *t = node1(tb, "onnx::Add", x, x);
  t->outputs[0]->type = ft(1, d);
  t->outputs[0]->name = "y"; /* same name in both branches */
  oxp_block_add_output(tb, t->outputs[0]);
  oxp_node *e = node1(eb, "onnx::Relu", x, NULL);
  e->outputs[0]->type = ft(1, d);
  e->outputs[0]->name = "y";
  oxp_block_add_output(eb, e->outputs[0]);
  oxp_block_append(G->top, iff);
  iff->outputs[0]->type = ft(1, d);
  iff->outputs[0]->name = "y";
  oxp_block_add_output(G->top, iff->outputs[0]);
  return iff;
}

START_TEST(serialize_if_two_subgraphs) {
  build_if();
  oxp_options o = opts();
  Onnx__ModelProto *m = roundtrip(&o);
  Onnx__GraphProto *g = m->graph;
  ck_assert_int_eq(g->n_node, 1);
  Onnx__NodeProto *np = g->node[0];
  ck_assert_str_eq(np->op_type, "If");
  ck_assert_str_eq(np->input[0], "c");
  /* The top output claimed "y" first (the If node is walked before its
   * branches), so the branch outputs are renamed. */
  ck_assert_str_eq(np->output[0], "y");
  ck_assert_int_eq(np->n_attribute, 2);
  Onnx__AttributeProto *th = np->attribute[0], *el = np->attribute[1];
  ck_assert_str_eq(th->name, "then_branch");
  ck_assert_int_eq(th->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
  ck_assert_str_eq(el->name, "else_branch");
  ck_assert_int_eq(el->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
  ck_assert_str_eq(th->g->name, "If_0_then_branch");
  ck_assert_int_eq(th->g->n_input, 0);
  ck_assert_int_eq(th->g->n_node, 1);
  ck_assert_str_eq(th->g->node[0]->op_type, "Add");
  ck_assert_str_eq(th->g->node[0]->input[0], "x");
  ck_assert_str_eq(th->g->output[0]->name, "y_1");
  ck_assert_str_eq(el->g->node[0]->op_type, "Relu");
  ck_assert_str_eq(el->g->output[0]->name, "y_2");
  ck_assert_int_eq(el->g->output[0]->type->tensor_type->shape->dim[0]->dim_value,
                   3);
  /* Branch outputs are outputs of their own graph: no value_info. */
  ck_assert_int_eq(th->g->n_value_info, 0);
  ck_assert_int_eq(g->n_value_info, 0);
  free_model(m);
}
END_TEST

START_TEST(serialize_loop_body_inputs) {
  const int64_t d[] = {3};
  oxp_value *n = oxp_block_add_input(
      G->top, "n", oxp_type_tensor(A, OXP_DT_INT64, 0, NULL));
  oxp_value *x = oxp_block_add_input(G->top, "x", ft(1, d));
  oxp_node *loop = oxp_node_new(G, "onnx::Loop", 1);
  oxp_node_add_input(loop, n);
  oxp_node_add_input(loop, NULL);
  oxp_node_add_input(loop, x);
  oxp_block *body = oxp_node_add_block(loop);
  oxp_value *it = oxp_block_add_input(
      body, NULL, oxp_type_tensor(A, OXP_DT_INT64, 0, NULL));
  oxp_value *cond = oxp_block_add_input(
      body, "cond", oxp_type_tensor(A, OXP_DT_BOOL, 0, NULL));
  oxp_value *acc = oxp_block_add_input(body, "x", ft(1, d)); /* shadows */
  (void)it;
  oxp_node *add = node1(body, "onnx::Add", acc, acc);
  add->outputs[0]->type = ft(1, d);
  oxp_block_add_output(body, cond);
  oxp_block_add_output(body, add->outputs[0]);
  oxp_block_append(G->top, loop);
  oxp_block_add_output(G->top, loop->outputs[0]);
  oxp_options o = opts();
  Onnx__ModelProto *m = roundtrip(&o);
  Onnx__NodeProto *np = m->graph->node[0];
  ck_assert_str_eq(np->name, "Loop_0");
  ck_assert_str_eq(np->input[1], "");
  ck_assert_int_eq(np->n_attribute, 1);
  ck_assert_str_eq(np->attribute[0]->name, "body");
  Onnx__GraphProto *b = np->attribute[0]->g;
  ck_assert_int_eq(b->n_input, 3);
  ck_assert_str_eq(b->input[0]->name, "Loop_0_b0_in0");
  ck_assert_str_eq(b->input[1]->name, "cond");
  ck_assert_str_eq(b->input[2]->name, "x_1");
  ck_assert_int_eq(b->input[0]->type->tensor_type->elem_type, OXP_DT_INT64);
  ck_assert_str_eq(b->node[0]->input[0], "x_1");
  ck_assert_str_eq(b->output[0]->name, "cond");
  ck_assert_str_eq(b->output[1]->name, "Add_1_out0");
  free_model(m);
}
END_TEST

START_TEST(serialize_rejects_unknown_block_owner) {
  oxp_value *x = oxp_block_add_input(G->top, "x", ft(-1, NULL));
  oxp_node *n = node1(G->top, "onnx::Relu", x, NULL);
  oxp_node_add_block(n);
  oxp_block_add_output(G->top, n->outputs[0]);
  oxp_options o = opts();
  unsigned char *buf;
  size_t len;
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_write_buffer(G, &o, &buf, &len, &d), OXP_ERR_INTERNAL);
}
END_TEST

/* ---- opsets ---------------------------------------------------------------- */

START_TEST(serialize_custom_domains_in_opset_import) {
  oxp_value *x = oxp_block_add_input(G->top, "x", ft(-1, NULL));
  oxp_node *a = node1(G->top, "mydomain::Foo", x, NULL);
  oxp_node *b = node1(G->top, "com.other::Bar", a->outputs[0], NULL);
  oxp_node *c = node1(G->top, "mydomain::Baz", b->outputs[0], NULL);
  oxp_node *r = node1(G->top, "onnx::Relu", c->outputs[0], NULL);
  oxp_block_add_output(G->top, r->outputs[0]);
  oxp_opset_import custom[] = {
      {"mydomain", 3}, {"unused.domain", 2}, {"", 99}};
  oxp_options o = opts();
  o.opset = 13;
  o.custom_opsets = custom;
  o.n_custom_opsets = 3;
  Onnx__ModelProto *m = roundtrip(&o);
  ck_assert_int_eq(m->ir_version, 7);
  ck_assert_int_eq(m->n_opset_import, 4);
  ck_assert_str_eq(m->opset_import[0]->domain, "");
  ck_assert_int_eq(m->opset_import[0]->version, 13);
  ck_assert_str_eq(m->opset_import[1]->domain, "mydomain");
  ck_assert_int_eq(m->opset_import[1]->version, 3);
  ck_assert_str_eq(m->opset_import[2]->domain, "com.other");
  ck_assert_int_eq(m->opset_import[2]->version, 1);
  ck_assert_str_eq(m->opset_import[3]->domain, "unused.domain");
  ck_assert_int_eq(m->opset_import[3]->version, 2);
  ck_assert_str_eq(m->graph->node[0]->domain, "mydomain");
  ck_assert_str_eq(m->graph->node[0]->op_type, "Foo");
  ck_assert_str_eq(m->graph->node[1]->domain, "com.other");
  ck_assert_ptr_null(m->graph->node[3]->domain);
  free_model(m);
}
END_TEST

START_TEST(serialize_custom_domain_inside_subgraph) {
  oxp_node *iff = build_if();
  oxp_node *t = iff->blocks[0]->first;
  t->kind = "sub.dom::Twice";
  oxp_options o = opts();
  Onnx__ModelProto *m = roundtrip(&o);
  ck_assert_int_eq(m->n_opset_import, 2);
  ck_assert_str_eq(m->opset_import[1]->domain, "sub.dom");
  free_model(m);
}
END_TEST

START_TEST(ir_version_per_opset) {
  static const int64_t want[][2] = {
      {9, 4},  {10, 5}, {11, 6}, {12, 7}, {13, 7}, {14, 7}, {15, 8},
      {16, 8}, {17, 8}, {18, 8}, {19, 9}, {20, 9}, {21, 10}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    ck_assert_int_eq(oxp_ir_version_for_opset((int)want[i][0]), want[i][1]);
  ck_assert_int_eq(oxp_ir_version_for_opset(8), 0);
  ck_assert_int_eq(oxp_ir_version_for_opset(22), 0);

  build_add_relu();
  oxp_options o = opts();
  o.opset = 9;
  Onnx__ModelProto *m = roundtrip(&o);
  ck_assert_int_eq(m->ir_version, 4);
  ck_assert_int_eq(m->opset_import[0]->version, 9);
  free_model(m);
  o.opset = 21;
  m = roundtrip(&o);
  ck_assert_int_eq(m->ir_version, 10);
  free_model(m);

  o.opset = 22;
  unsigned char *buf;
  size_t len;
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_write_buffer(G, &o, &buf, &len, &d), OXP_ERR_USAGE);
}
END_TEST

/* ---- bytes ----------------------------------------------------------------- */

START_TEST(serialize_byte_identical) {
  build_if();
  oxp_options o = opts();
  unsigned char *b1, *b2;
  size_t n1, n2;
  ck_assert_int_eq(oxp_write_buffer(G, &o, &b1, &n1, NULL), OXP_OK);
  ck_assert_int_eq(oxp_write_buffer(G, &o, &b2, &n2, NULL), OXP_OK);
  ck_assert_int_eq(n1, n2);
  ck_assert_mem_eq(b1, b2, n1);
  free(b2);
  /* A second, separately built graph gives the same bytes too. */
  oxp_arena *a2 = A;
  oxp_graph *g2 = G;
  setup();
  build_if();
  ck_assert_int_eq(oxp_write_buffer(G, &o, &b2, &n2, NULL), OXP_OK);
  ck_assert_int_eq(n1, n2);
  ck_assert_mem_eq(b1, b2, n1);
  free(b1);
  free(b2);
  oxp_arena_free(a2);
  (void)g2;
}
END_TEST

/* A sink that keeps the pointers it was given. */
typedef struct {
  oxp_sink base;
  const void *ptrs[64];
  size_t lens[64];
  int n;
  int fail_at; /* write number that fails, or -1 */
} spy_sink;

static oxp_status spy_write(oxp_sink *s, const void *p, size_t n) {
  spy_sink *sp = (spy_sink *)s;
  if (sp->n == sp->fail_at)
    return oxp_fail(s->d, OXP_ERR_IO, NULL, NULL, "spy: disk full");
  if (sp->n < 64) {
    sp->ptrs[sp->n] = p;
    sp->lens[sp->n] = n;
  }
  sp->n++;
  return OXP_OK;
}

START_TEST(serialize_weights_are_not_copied) {
  enum { N = 64 * 1024 }; /* 256 KiB of floats */
  float *big = malloc(N * sizeof *big);
  for (int i = 0; i < N; i++) big[i] = (float)i;
  const int64_t d[] = {N};
  oxp_value *x = oxp_block_add_input(G->top, "x", ft(1, d));
  oxp_value *w = weight("w", 1, d, big, N * sizeof *big);
  oxp_node *n = node1(G->top, "onnx::Add", x, w);
  oxp_block_add_output(G->top, n->outputs[0]);
  oxp_options o = opts();
  oxp_diag diag = {0};
  spy_sink sp = {.base = {.write = spy_write, .d = &diag}, .fail_at = -1};
  ck_assert_int_eq(oxp_serialize(G, &o, &sp.base, &diag), OXP_OK);
  /* Staged header bytes, the weight itself, then the staged tail. */
  ck_assert_int_eq(sp.n, 3);
  ck_assert_ptr_eq(sp.ptrs[1], big);
  ck_assert_int_eq(sp.lens[1], N * sizeof *big);
  ck_assert_int_lt(sp.lens[0], 64 * 1024);
  free(big);
}
END_TEST

START_TEST(serialize_sink_error_propagates) {
  build_add_relu();
  oxp_options o = opts();
  oxp_diag diag = {0};
  spy_sink sp = {.base = {.write = spy_write, .d = &diag}, .fail_at = 0};
  ck_assert_int_eq(oxp_serialize(G, &o, &sp.base, &diag), OXP_ERR_IO);
  ck_assert_str_eq(diag.message, "spy: disk full");
}
END_TEST

/* ---- naming ---------------------------------------------------------------- */

START_TEST(names_keep_unique_and_rename_collisions) {
  oxp_value *x = oxp_block_add_input(G->top, "x", ft(-1, NULL));
  oxp_value *x2 = oxp_block_add_input(G->top, "x", ft(-1, NULL));
  oxp_value *empty = oxp_block_add_input(G->top, "", ft(-1, NULL));
  oxp_node *a = node1(G->top, "onnx::Add", x, x2);
  a->outputs[0]->name = "x"; /* taken by the input */
  oxp_node *b = node1(G->top, "onnx::Mul", a->outputs[0], empty);
  /* Claims the name Relu's output would be generated with: the existing
   * name wins, the generated one moves aside. */
  b->outputs[0]->name = "Relu_2_out0";
  oxp_node *r = node1(G->top, "onnx::Relu", b->outputs[0], NULL);
  oxp_node *ng = node1(G->top, "onnx::Neg", r->outputs[0], NULL);
  ng->name = "Add_0"; /* a node name that collides with a generated one */
  oxp_block_add_output(G->top, ng->outputs[0]);

  ck_assert_int_eq(oxp_assign_names(G, NULL), OXP_OK);
  ck_assert_str_eq(x->name, "x");
  ck_assert_str_eq(x2->name, "x_1");
  ck_assert_str_eq(empty->name, "input_2");
  ck_assert_str_eq(a->outputs[0]->name, "x_2");
  ck_assert_str_eq(b->outputs[0]->name, "Relu_2_out0");
  ck_assert_str_eq(r->outputs[0]->name, "Relu_2_out0_1");
  /* ng's own "Add_0" was there first, so the Add node gets "Add_0_1". */
  ck_assert_str_eq(a->name, "Add_0_1");
  ck_assert_str_eq(b->name, "Mul_1");
  ck_assert_str_eq(r->name, "Relu_2");
  ck_assert_str_eq(ng->name, "Add_0");
  ck_assert_str_eq(ng->outputs[0]->name, "Add_0_out0");

  /* Idempotent: a second run changes nothing. */
  const char *before[] = {x2->name, a->outputs[0]->name,
                          r->outputs[0]->name, a->name};
  ck_assert_int_eq(oxp_assign_names(G, NULL), OXP_OK);
  ck_assert_ptr_eq(x2->name, before[0]);
  ck_assert_ptr_eq(a->outputs[0]->name, before[1]);
  ck_assert_ptr_eq(r->outputs[0]->name, before[2]);
  ck_assert_ptr_eq(a->name, before[3]);
}
END_TEST

START_TEST(names_unique_across_nested_blocks) {
  oxp_node *iff = build_if();
  /* An unnamed value in a branch must not take an outer name either. */
  oxp_value *outer = G->top->inputs[1];
  oxp_node *t = node1(iff->blocks[0], "onnx::Neg", outer, NULL);
  t->outputs[0]->name = "c"; /* the outer condition's name */
  ck_assert_int_eq(oxp_assign_names(G, NULL), OXP_OK);
  oxp_map seen;
  oxp_map_init(&seen, A);
  const oxp_value *vals[] = {G->top->inputs[0], G->top->inputs[1],
                             iff->outputs[0],
                             iff->blocks[0]->first->outputs[0],
                             iff->blocks[1]->first->outputs[0],
                             t->outputs[0]};
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    ck_assert_msg(!oxp_map_get(&seen, vals[i]->name), "duplicate %s",
                  vals[i]->name);
    oxp_map_put(&seen, vals[i]->name, (void *)vals[i]);
  }
  ck_assert_str_eq(t->outputs[0]->name, "c_1");
  ck_assert_str_eq(iff->blocks[0]->first->name, "Add_1");
  ck_assert_str_eq(t->name, "Neg_2");
  ck_assert_str_eq(iff->blocks[1]->first->name, "Relu_3");
}
END_TEST

START_TEST(names_reject_undefined_value) {
  oxp_value *x = oxp_block_add_input(G->top, "x", ft(-1, NULL));
  oxp_value *ghost = oxp_value_new(G, "ghost", NULL); /* defined nowhere */
  oxp_node *a = node1(G->top, "onnx::Add", x, ghost);
  oxp_block_add_output(G->top, a->outputs[0]);
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_assign_names(G, &d), OXP_ERR_GRAPH);
  ck_assert_ptr_nonnull(strstr(d.message, "%ghost"));
  ck_assert_str_eq(d.op, "onnx::Add");
}
END_TEST

START_TEST(names_reject_missing_block_output) {
  oxp_value *x = oxp_block_add_input(G->top, "x", ft(-1, NULL));
  (void)x;
  oxp_block_add_output(G->top, NULL);
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_assign_names(G, &d), OXP_ERR_GRAPH);
  ck_assert_ptr_nonnull(strstr(d.message, "output 0"));
}
END_TEST

START_TEST(serialize_untyped_weight_input_typed_from_tensor) {
  const int64_t d23[] = {2, 3};
  oxp_value *x = oxp_block_add_input(G->top, "x", ft(2, d23));
  oxp_value *w = weight("w", 2, d23, W, sizeof W);
  w->type = NULL;
  oxp_node *n = node1(G->top, "onnx::Add", x, w);
  oxp_block_add_output(G->top, n->outputs[0]);
  oxp_options o = opts();
  o.keep_initializers_as_inputs = true;
  Onnx__ModelProto *m = roundtrip(&o);
  Onnx__ValueInfoProto *vi = m->graph->input[1];
  ck_assert_str_eq(vi->name, "w");
  ck_assert_int_eq(vi->type->tensor_type->elem_type, OXP_DT_FLOAT);
  ck_assert_int_eq(shape_of(vi)->n_dim, 2);
  ck_assert_int_eq(shape_of(vi)->dim[1]->dim_value, 3);
  free_model(m);
}
END_TEST

/* ---- files ------------------------------------------------------------------ */

static char *tmpdir(void) {
  char *t = strdup("/tmp/oxp-ser-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(t));
  return t;
}

static int count_entries(const char *dir) {
  DIR *dp = opendir(dir);
  ck_assert_ptr_nonnull(dp);
  int n = 0;
  for (struct dirent *e; (e = readdir(dp));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(dp);
  return n;
}

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  unsigned char *p = malloc((size_t)n + 1);
  ck_assert_int_eq(fread(p, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return p;
}

static void spit(const char *path, const char *s) {
  FILE *f = fopen(path, "wb");
  fputs(s, f);
  fclose(f);
}

static void rm_tree(char *dir) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
  free(dir);
}

START_TEST(write_file_replaces_target) {
  build_with_weight();
  char *dir = tmpdir();
  char path[512];
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  spit(path, "old contents");
  oxp_options o = opts();
  oxp_diag d = {0};
  mode_t um = umask(027);
  oxp_status st = oxp_write_file(G, &o, path, &d);
  umask(um);
  ck_assert_msg(st == OXP_OK, "%s", d.message);
  size_t flen, blen;
  unsigned char *fb = slurp(path, &flen), *bb;
  ck_assert_int_eq(oxp_write_buffer(G, &o, &bb, &blen, NULL), OXP_OK);
  ck_assert_int_eq(flen, blen);
  ck_assert_mem_eq(fb, bb, blen);
  struct stat sb;
  ck_assert_int_eq(stat(path, &sb), 0);
  ck_assert_int_eq(sb.st_mode & 0777, 0640); /* 0644 under umask 027 */
  ck_assert_int_eq(count_entries(dir), 1);   /* no temporary left */
  free(fb);
  free(bb);
  rm_tree(dir);
}
END_TEST

START_TEST(write_file_relative_path) {
  build_add_relu();
  char *dir = tmpdir();
  char cwd[1024];
  ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
  ck_assert_int_eq(chdir(dir), 0);
  oxp_options o = opts();
  oxp_diag d = {0};
  oxp_status st = oxp_write_file(G, &o, "m.onnx", &d);
  ck_assert_int_eq(chdir(cwd), 0);
  ck_assert_msg(st == OXP_OK, "%s", d.message);
  ck_assert_int_eq(count_entries(dir), 1);
  rm_tree(dir);
}
END_TEST

START_TEST(write_file_missing_directory_fails) {
  build_add_relu();
  char *dir = tmpdir();
  char path[512];
  snprintf(path, sizeof path, "%s/no/such/dir/model.onnx", dir);
  oxp_options o = opts();
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_write_file(G, &o, path, &d), OXP_ERR_IO);
  ck_assert_ptr_nonnull(strstr(d.message, path));
  ck_assert_ptr_nonnull(strstr(d.message, "No such file or directory"));
  ck_assert_int_eq(count_entries(dir), 0);
  rm_tree(dir);
}
END_TEST

START_TEST(write_file_unwritable_directory_fails) {
  build_add_relu();
  char *dir = tmpdir();
  char sub[512], path[600];
  snprintf(sub, sizeof sub, "%s/ro", dir);
  ck_assert_int_eq(mkdir(sub, 0555), 0);
  snprintf(path, sizeof path, "%s/model.onnx", sub);
  oxp_options o = opts();
  oxp_diag d = {0};
  oxp_status st = oxp_write_file(G, &o, path, &d);
  if (geteuid() != 0) { /* root writes anywhere; nothing to test then */
    ck_assert_int_eq(st, OXP_ERR_IO);
    ck_assert_ptr_nonnull(strstr(d.message, path));
    ck_assert_int_eq(count_entries(sub), 0);
  }
  chmod(sub, 0755);
  rm_tree(dir);
}
END_TEST

START_TEST(write_file_failure_keeps_existing_target) {
  /* The serializer fails after the temporary exists (a tensor whose bytes
   * do not match its shape): the old file must survive untouched. */
  const int64_t d23[] = {2, 3};
  oxp_value *x = oxp_block_add_input(G->top, "x", ft(2, d23));
  oxp_value *w = weight("w", 2, d23, W, 8);
  oxp_node *n = node1(G->top, "onnx::Add", x, w);
  oxp_block_add_output(G->top, n->outputs[0]);
  char *dir = tmpdir();
  char path[512];
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  spit(path, "precious");
  oxp_options o = opts();
  oxp_diag d = {0};
  ck_assert_int_ne(oxp_write_file(G, &o, path, &d), OXP_OK);
  size_t len;
  unsigned char *p = slurp(path, &len);
  ck_assert_int_eq(len, 8);
  ck_assert_mem_eq(p, "precious", 8);
  ck_assert_int_eq(count_entries(dir), 1);
  free(p);
  rm_tree(dir);
}
END_TEST

START_TEST(write_file_rename_failure_removes_temp) {
  build_add_relu();
  char *dir = tmpdir();
  char path[512], inner[600];
  /* The target is a non-empty directory: rename(2) must fail. */
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  snprintf(inner, sizeof inner, "%s/keep", path);
  spit(inner, "x");
  oxp_options o = opts();
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_write_file(G, &o, path, &d), OXP_ERR_IO);
  ck_assert_ptr_nonnull(strstr(d.message, path));
  ck_assert_int_eq(count_entries(dir), 1);
  ck_assert_int_eq(count_entries(path), 1);
  rm_tree(dir);
}
END_TEST

START_TEST(write_file_rejects_directory_path) {
  build_add_relu();
  oxp_options o = opts();
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_write_file(G, &o, "/tmp/", &d), OXP_ERR_IO);
}
END_TEST

/* ---- onnx checker ---------------------------------------------------------- */

static bool have_onnx(void) {
  return system("/usr/bin/python3 -c 'import onnx' >/dev/null 2>&1") == 0;
}

static void check_with_onnx(const oxp_options *o) {
  if (!have_onnx()) return; /* nothing to check against */
  char *dir = tmpdir();
  char path[512], cmd[1024];
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  oxp_diag d = {0};
  oxp_status st = oxp_write_file(G, o, path, &d);
  ck_assert_msg(st == OXP_OK, "%s", d.message);
  snprintf(cmd, sizeof cmd,
           "/usr/bin/python3 -c \"import onnx,sys; "
           "onnx.checker.check_model(onnx.load(sys.argv[1]), "
           "full_check=True)\" '%s'",
           path);
  ck_assert_int_eq(system(cmd), 0);
  rm_tree(dir);
}

START_TEST(onnx_checker_accepts_add_relu_gemm) {
  const int64_t dx[] = {-1, 3}, dw[] = {4, 3}, db[] = {4}, dy[] = {-1, 4};
  static const float w[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  static const float bias[4] = {0.5f, -0.5f, 1, 2};
  oxp_type *tx = ft(2, dx);
  tx->dim_params = oxp_alloc(A, 2 * sizeof(char *));
  tx->dim_params[0] = "batch";
  oxp_value *x = oxp_block_add_input(G->top, "x", tx);
  oxp_value *y = oxp_block_add_input(G->top, "y", oxp_type_copy(A, tx));
  oxp_value *W_ = weight("fc.weight", 2, dw, w, sizeof w);
  oxp_value *B_ = weight("fc.bias", 1, db, bias, sizeof bias);
  oxp_node *add = node1(G->top, "onnx::Add", x, y);
  add->outputs[0]->type = oxp_type_copy(A, tx);
  oxp_node *relu = node1(G->top, "onnx::Relu", add->outputs[0], NULL);
  relu->outputs[0]->type = oxp_type_copy(A, tx);
  oxp_node *gemm = node1(G->top, "onnx::Gemm", relu->outputs[0], W_);
  oxp_node_add_input(gemm, B_);
  oxp_attr_set_i(gemm, "transB", 1);
  oxp_attr_set_f(gemm, "alpha", 1.0);
  oxp_type *ty = ft(2, dy);
  ty->dim_params = oxp_alloc(A, 2 * sizeof(char *));
  ty->dim_params[0] = "batch";
  gemm->outputs[0]->type = ty;
  gemm->outputs[0]->name = "out";
  oxp_block_add_output(G->top, gemm->outputs[0]);
  oxp_options o = opts();
  check_with_onnx(&o);
  o.keep_initializers_as_inputs = true;
  check_with_onnx(&o);
}
END_TEST

START_TEST(onnx_checker_accepts_if) {
  build_if();
  oxp_options o = opts();
  check_with_onnx(&o);
}
END_TEST

/* ---- pretty ---------------------------------------------------------------- */

START_TEST(pretty_prints_graph) {
  build_with_weight();
  oxp_node *mul = G->top->first;
  oxp_attr_set_s(mul, "mode", "it's");
  const int64_t axes[] = {0, 1};
  oxp_attr_set_ints(mul, "axes", axes, 2);
  oxp_attr_set_f(mul, "alpha", 0.5);
  oxp_options o = opts();
  char *s = oxp_pretty(G, &o);
  ck_assert_ptr_nonnull(s);
  const char *want =
      "ir_version: 8\n"
      "opset_import: \"\"=17\n"
      "producer: onnxexp 0.1.0\n"
      "graph main_graph (\n"
      "  %x[FLOAT, 2x3]\n"
      ") initializers (\n"
      "  %w[FLOAT, 2x3]\n"
      "  %c[FLOAT, scalar]\n"
      ") {\n"
      "  %Mul_0_out0 = Mul[mode='it\\'s', axes=[0, 1], alpha=0.5](%x, %w)\n"
      "  %Add_1_out0 = Add(%Mul_0_out0, %c)\n"
      "  return (%Add_1_out0)\n"
      "}\n";
  ck_assert_str_eq(s, want);
  char *s2 = oxp_pretty(G, &o);
  ck_assert_str_eq(s, s2);
  free(s);
  free(s2);
}
END_TEST

START_TEST(pretty_prints_subgraphs_and_domains) {
  oxp_node *iff = build_if();
  iff->blocks[1]->first->kind = "mydomain::Relu";
  oxp_options o = opts();
  o.keep_initializers_as_inputs = true;
  char *s = oxp_pretty(G, &o);
  ck_assert_ptr_nonnull(s);
  const char *want =
      "ir_version: 8\n"
      "opset_import: \"\"=17, mydomain=1\n"
      "producer: onnxexp 0.1.0\n"
      "graph main_graph (\n"
      "  %c[BOOL, scalar]\n"
      "  %x[FLOAT, 3]\n"
      ") {\n"
      "  %y = If(%c) {\n"
      "    then_branch: graph If_0_then_branch (\n"
      "    ) {\n"
      "      %y_1 = Add(%x, %x)\n"
      "      return (%y_1)\n"
      "    }\n"
      "    else_branch: graph If_0_else_branch (\n"
      "    ) {\n"
      "      %y_2 = mydomain::Relu(%x)\n"
      "      return (%y_2)\n"
      "    }\n"
      "  }\n"
      "  return (%y)\n"
      "}\n";
  ck_assert_str_eq(s, want);
  free(s);
}
END_TEST

static Suite *serialize_suite(void) {
  Suite *s = suite_create("serialize");
  TCase *tc = tcase_create("model");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, serialize_model_header_and_graph);
  tcase_add_test(tc, serialize_doc_string_unless_stripped);
  tcase_add_test(tc, serialize_types_rank_unknown_scalar_sequence);
  tcase_add_test(tc, serialize_absent_input_is_empty_name);
  tcase_add_test(tc, serialize_initializers_raw_bytes);
  tcase_add_test(tc, serialize_keep_initializers_as_inputs);
  tcase_add_test(tc, serialize_user_inputs_before_weights);
  tcase_add_test(tc, serialize_no_export_params_makes_weights_inputs);
  tcase_add_test(tc, serialize_rejects_tensor_size_mismatch);
  tcase_add_test(tc, serialize_attributes_each_kind);
  tcase_add_test(tc, serialize_rejects_none_attribute);
  tcase_add_test(tc, serialize_if_two_subgraphs);
  tcase_add_test(tc, serialize_loop_body_inputs);
  tcase_add_test(tc, serialize_rejects_unknown_block_owner);
  tcase_add_test(tc, serialize_custom_domains_in_opset_import);
  tcase_add_test(tc, serialize_custom_domain_inside_subgraph);
  tcase_add_test(tc, ir_version_per_opset);
  tcase_add_test(tc, serialize_byte_identical);
  tcase_add_test(tc, serialize_weights_are_not_copied);
  tcase_add_test(tc, serialize_sink_error_propagates);
  tcase_add_test(tc, names_keep_unique_and_rename_collisions);
  tcase_add_test(tc, names_unique_across_nested_blocks);
  tcase_add_test(tc, names_reject_undefined_value);
  tcase_add_test(tc, names_reject_missing_block_output);
  tcase_add_test(tc, serialize_untyped_weight_input_typed_from_tensor);
  tcase_add_test(tc, write_file_replaces_target);
  tcase_add_test(tc, write_file_relative_path);
  tcase_add_test(tc, write_file_missing_directory_fails);
  tcase_add_test(tc, write_file_unwritable_directory_fails);
  tcase_add_test(tc, write_file_failure_keeps_existing_target);
  tcase_add_test(tc, write_file_rename_failure_removes_temp);
  tcase_add_test(tc, write_file_rejects_directory_path);
  tcase_add_test(tc, onnx_checker_accepts_add_relu_gemm);
  tcase_add_test(tc, onnx_checker_accepts_if);
  tcase_add_test(tc, pretty_prints_graph);
  tcase_add_test(tc, pretty_prints_subgraphs_and_domains);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return oxp_check_run(serialize_suite());
}
