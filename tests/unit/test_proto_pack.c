/* test_proto_pack.c: proto_pack.c packs byte for byte as protobuf-c does,
 * and with the same sizes, on messages that use every kind of field the
 * ONNX schema has (optional scalars, negative int32 and int64, packed and
 * unpacked repeated fields, strings, bytes, oneofs, nested messages), and
 * on enough messages to fill more than one chunk of recorded sizes. */
#include <check.h>
#include "check_main.h"
#include <stdlib.h>
#include <string.h>

#include "arena_fixture.h"
#include "onnx/onnx.pb-c.h"
#include "proto_pack.h"

#define NEW(T, init) ((T *)init_msg(sizeof(T), (void (*)(void *))(init)))

static void *init_msg(size_t n, void (*init)(void *)) {
  void *p = oxp_alloc(A, n);
  init(p);
  return p;
}

static void *arr(size_t n) { return oxp_alloc(A, n ? n : 1); }

/* protobuf-c's bytes against ours, and the sizes. */
static void same_as_protobuf_c(const ProtobufCMessage *m) {
  size_t want = protobuf_c_message_get_packed_size(m);
  uint8_t *ref = malloc(want ? want : 1);
  ck_assert_uint_eq(protobuf_c_message_pack(m, ref), want);

  oxp_pb_sizes s = {.a = A};
  uint64_t got = 0;
  ck_assert(oxp_pb_measure(m, &s, &got));
  ck_assert_uint_eq(got, want);
  uint8_t tmp[64];
  ProtobufCBufferSimple out = PROTOBUF_C_BUFFER_SIMPLE_INIT(tmp);
  oxp_pb_pack(m, &s, &out.base);
  ck_assert_uint_eq(out.len, want);
  ck_assert(memcmp(out.data, ref, want) == 0);
  PROTOBUF_C_BUFFER_SIMPLE_CLEAR(&out);
  free(ref);
}

static Onnx__AttributeProto *attr(const char *name) {
  Onnx__AttributeProto *a = NEW(Onnx__AttributeProto, onnx__attribute_proto__init);
  a->name = (char *)name;
  return a;
}

static Onnx__TensorProto *tensor(void) {
  Onnx__TensorProto *t = NEW(Onnx__TensorProto, onnx__tensor_proto__init);
  t->n_dims = 2;
  t->dims = arr(2 * sizeof *t->dims);
  t->dims[0] = 3, t->dims[1] = -1; /* negative int64: ten bytes */
  t->has_data_type = 1;
  t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  t->n_float_data = 3; /* packed floats */
  t->float_data = arr(3 * sizeof *t->float_data);
  t->float_data[0] = -0.0f, t->float_data[1] = 1.5f, t->float_data[2] = 3e38f;
  t->n_int32_data = 3; /* packed varints, one negative */
  t->int32_data = arr(3 * sizeof *t->int32_data);
  t->int32_data[0] = -7, t->int32_data[1] = 300, t->int32_data[2] = 0;
  static const uint8_t raw[] = {1, 2, 3, 0, 255};
  t->has_raw_data = 1;
  t->raw_data.len = sizeof raw;
  t->raw_data.data = (uint8_t *)raw;
  t->name = "w";
  return t;
}

static Onnx__ValueInfoProto *value_info(const char *name) {
  Onnx__TensorShapeProto *sh = NEW(Onnx__TensorShapeProto, onnx__tensor_shape_proto__init);
  sh->n_dim = 3;
  sh->dim = arr(3 * sizeof *sh->dim);
  for (int i = 0; i < 3; i++)
    sh->dim[i] = NEW(Onnx__TensorShapeProto__Dimension, onnx__tensor_shape_proto__dimension__init);
  sh->dim[0]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
  sh->dim[0]->dim_value = 1 << 20;
  sh->dim[1]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
  sh->dim[1]->dim_param = "batch"; /* dim[2]: neither, an unknown dim */
  Onnx__TypeProto__Tensor *tt = NEW(Onnx__TypeProto__Tensor, onnx__type_proto__tensor__init);
  tt->has_elem_type = 1;
  tt->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  tt->shape = sh;
  Onnx__TypeProto *tp = NEW(Onnx__TypeProto, onnx__type_proto__init);
  tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  tp->tensor_type = tt;
  Onnx__ValueInfoProto *vi = NEW(Onnx__ValueInfoProto, onnx__value_info_proto__init);
  vi->name = (char *)name;
  vi->type = tp;
  return vi;
}

static Onnx__NodeProto *node(int i, Onnx__GraphProto *sub) {
  Onnx__NodeProto *n = NEW(Onnx__NodeProto, onnx__node_proto__init);
  n->op_type = sub ? "If" : "Add";
  n->name = i % 2 ? "" : "n"; /* an empty optional string is still written */
  n->n_input = 2;
  n->input = arr(2 * sizeof *n->input);
  n->input[0] = "a", n->input[1] = "";
  n->n_output = 1;
  n->output = arr(sizeof *n->output);
  n->output[0] = "b";
  n->n_attribute = 4;
  n->attribute = arr(4 * sizeof *n->attribute);
  Onnx__AttributeProto *f = attr("alpha"), *k = attr("axes"), *s = attr("modes"), *t = attr("value");
  f->has_f = 1, f->f = 0.25f;
  f->has_type = 1, f->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
  k->n_ints = 3; /* repeated int64, not packed in the schema */
  k->ints = arr(3 * sizeof *k->ints);
  k->ints[0] = -1, k->ints[1] = i, k->ints[2] = INT64_MAX;
  s->n_strings = 2; /* repeated bytes */
  s->strings = arr(2 * sizeof *s->strings);
  s->strings[0] = (ProtobufCBinaryData){.len = 2, .data = (uint8_t *)"xy"};
  s->strings[1] = (ProtobufCBinaryData){.len = 0, .data = NULL};
  t->t = tensor();
  if (sub) t->g = sub;
  n->attribute[0] = f, n->attribute[1] = k, n->attribute[2] = s, n->attribute[3] = t;
  return n;
}

static Onnx__GraphProto *graph(int nodes, int depth) {
  Onnx__GraphProto *g = NEW(Onnx__GraphProto, onnx__graph_proto__init);
  g->name = "g";
  g->n_node = (size_t)nodes;
  g->node = arr((size_t)nodes * sizeof *g->node);
  for (int i = 0; i < nodes; i++)
    g->node[i] = node(i, depth > 0 && i == 0 ? graph(2, depth - 1) : NULL);
  g->n_input = 1;
  g->input = arr(sizeof *g->input);
  g->input[0] = value_info("a");
  g->n_initializer = 1;
  g->initializer = arr(sizeof *g->initializer);
  g->initializer[0] = tensor();
  return g;
}

static Onnx__ModelProto *model(int nodes) {
  Onnx__ModelProto *m = NEW(Onnx__ModelProto, onnx__model_proto__init);
  m->has_ir_version = 1;
  m->ir_version = 8;
  m->producer_name = "onnxexp";
  m->n_opset_import = 1;
  m->opset_import = arr(sizeof *m->opset_import);
  m->opset_import[0] = NEW(Onnx__OperatorSetIdProto, onnx__operator_set_id_proto__init);
  m->opset_import[0]->has_version = 1;
  m->opset_import[0]->version = 17;
  m->opset_import[0]->domain = "";
  m->graph = graph(nodes, 3);
  return m;
}

START_TEST(packs_as_protobuf_c_does) {
  same_as_protobuf_c(&model(3)->base);
  same_as_protobuf_c(&tensor()->base);
  same_as_protobuf_c(&value_info("v")->base);
}
END_TEST

START_TEST(sizes_past_one_chunk) {
  /* each node holds more than ten messages: well past 16,384 sizes */
  same_as_protobuf_c(&model(3000)->base);
}
END_TEST

/* TypeProtos reached more than once (as the serializer shares one per
 * tensor type), also inside another shared TypeProto, sized once and
 * packed twice from the same sizes: every pack is protobuf-c's bytes. */
START_TEST(shared_messages_packed_once) {
  Onnx__ModelProto *m = model(4);
  Onnx__GraphProto *g = m->graph;
  Onnx__TypeProto *tp = value_info("x")->type;
  Onnx__TypeProto__Sequence *sq = NEW(Onnx__TypeProto__Sequence, onnx__type_proto__sequence__init);
  sq->elem_type = tp;
  Onnx__TypeProto *seq = NEW(Onnx__TypeProto, onnx__type_proto__init);
  seq->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
  seq->sequence_type = sq;
  g->n_value_info = 6;
  g->value_info = arr(6 * sizeof *g->value_info);
  for (int i = 0; i < 6; i++) {
    g->value_info[i] = value_info(i % 2 ? "odd" : "even");
    g->value_info[i]->type = i % 3 == 2 ? seq : tp;
  }
  size_t want = protobuf_c_message_get_packed_size(&m->base);
  uint8_t *ref = malloc(want);
  ck_assert_uint_eq(protobuf_c_message_pack(&m->base, ref), want);
  oxp_pb_sizes s = {.a = A, .shared = &onnx__type_proto__descriptor};
  uint64_t got = 0;
  ck_assert(oxp_pb_measure(&m->base, &s, &got));
  ck_assert_uint_eq(got, want);
  for (int pass = 0; pass < 2; pass++) {
    uint8_t tmp[64];
    ProtobufCBufferSimple out = PROTOBUF_C_BUFFER_SIMPLE_INIT(tmp);
    oxp_pb_pack(&m->base, &s, &out.base);
    ck_assert_uint_eq(out.len, want);
    ck_assert(memcmp(out.data, ref, want) == 0);
    PROTOBUF_C_BUFFER_SIMPLE_CLEAR(&out);
  }
  free(ref);
}
END_TEST

START_TEST(empty_message) {
  same_as_protobuf_c(&NEW(Onnx__ModelProto, onnx__model_proto__init)->base);
}
END_TEST

int main(void) {
  Suite *s = suite_create("proto_pack");
  TCase *t = tcase_create("proto_pack");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, packs_as_protobuf_c_does);
  tcase_add_test(t, sizes_past_one_chunk);
  tcase_add_test(t, empty_message);
  tcase_add_test(t, shared_messages_packed_once);
  suite_add_tcase(s, t);
  return oxp_check_run(s);
}
