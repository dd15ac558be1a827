/* test_lowering_table.c: table-driven, torch-free lowering checks. Each
 * row is IR text, a target opset and the ONNX op sequence the whole
 * pipeline emits for it (top-level nodes, in order), so a change to an op
 * is checked in a second without torch or onnxruntime. At least one row
 * per op family (each .def file in src/symbolic). A row's sequence pins today's
 * output: when a change alters it on purpose, run with
 * OXP_LOWERING_TABLE_PRINT=1 to see the new sequence, and round-trip the
 * op (tests/README.md) before updating the row. */
#include <check.h>
#include "check_main.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"

#include "arena_fixture.h"

#define F23 "Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)"
#define HEAD "graph(%x : " F23 ",\n      %y : " F23 "):\n"

typedef struct {
  const char *family; /* the .def file */
  int opset;
  const char *ir;
  const char *ops;    /* space-separated ONNX op types */
} row;

static const row ROWS[] = {
    {"basic", 9, HEAD "  %r : Tensor = aten::detach(%x)\n  %s : Tensor = aten::mul(%r, %y)\n  return (%s)\n",
     "Mul"},
    {"arith", 9,
     HEAD "  %a : int = prim::Constant[value=1]()\n  %r : Tensor = aten::add(%x, %y, %a)\n  return (%r)\n",
     "Add"},
    {"math", 13, HEAD "  %r : Tensor = aten::abs(%x)\n  return (%r)\n", "Abs"},
    {"compare", 13, HEAD "  %r : Tensor = aten::lt(%x, %y)\n  return (%r)\n", "Less"},
    {"reduce", 13,
     HEAD "  %n : NoneType = prim::Constant()\n  %r : Tensor = aten::mean(%x, %n)\n  return (%r)\n",
     "ReduceMean"},
    {"shape", 13,
     HEAD "  %a : int = prim::Constant[value=0]()\n  %b : int = prim::Constant[value=1]()\n"
          "  %r : Tensor = aten::flatten(%x, %a, %b)\n  return (%r)\n",
     "Reshape"},
    {"index", 13,
     "graph(%x : " F23 ",\n      %i : Long(2, strides=[1], requires_grad=0, device=cpu)):\n"
     "  %a : int = prim::Constant[value=0]()\n  %r : Tensor = aten::index_select(%x, %a, %i)\n"
     "  return (%r)\n",
     "Gather"},
    {"create", 13,
     HEAD "  %n : NoneType = prim::Constant()\n"
          "  %r : Tensor = aten::ones_like(%x, %n, %n, %n, %n, %n)\n  return (%r)\n",
     "ConstantOfShape"},
    {"linalg", 13,
     "graph(%v : Float(3, strides=[1], requires_grad=0, device=cpu),\n"
     "      %w : Float(3, strides=[1], requires_grad=0, device=cpu)):\n"
     "  %r : Tensor = aten::dot(%v, %w)\n  return (%r)\n",
     "MatMul"},
    {"nn", 13,
     HEAD "  %d : int = prim::Constant[value=1]()\n  %n : NoneType = prim::Constant()\n"
          "  %r : Tensor = aten::softmax(%x, %d, %n)\n  return (%r)\n",
     "Softmax"},
    {"act", 13,
     HEAD "  %lo : float = prim::Constant[value=-1.]()\n  %hi : float = prim::Constant[value=1.]()\n"
          "  %r : Tensor = aten::hardtanh(%x, %lo, %hi)\n  return (%r)\n",
     "Clip"},
    {"pool", 13,
     HEAD "  %k : int[] = prim::Constant[value=[2]]()\n  %p : int[] = prim::Constant[value=[0]]()\n"
          "  %d : int[] = prim::Constant[value=[1]]()\n  %f : bool = prim::Constant[value=0]()\n"
          "  %r : Tensor = aten::max_pool1d(%x, %k, %k, %p, %d, %f)\n  return (%r)\n",
     "MaxPool"},
    {"loss", 13,
     HEAD "  %m : int = prim::Constant[value=1]()\n  %r : Tensor = aten::mse_loss(%x, %y, %m)\n"
          "  return (%r)\n",
     "Sub Mul ReduceMean"},
    {"rnn", 13,
     "graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu),\n"
     "      %h : Float(2, 4, strides=[4, 1], requires_grad=0, device=cpu),\n"
     "      %wi : Float(4, 3, strides=[3, 1], requires_grad=0, device=cpu),\n"
     "      %wh : Float(4, 4, strides=[4, 1], requires_grad=0, device=cpu)):\n"
     "  %n : NoneType = prim::Constant()\n"
     "  %r : Tensor = aten::rnn_tanh_cell(%x, %h, %wi, %wh, %n, %n)\n  return (%r)\n",
     "Unsqueeze Unsqueeze Unsqueeze Unsqueeze RNN Squeeze"},
    {"attention", 14,
     "graph(%q : Float(1, 2, 3, strides=[6, 3, 1], requires_grad=0, device=cpu)):\n"
     "  %n : NoneType = prim::Constant()\n  %p : float = prim::Constant[value=0.]()\n"
     "  %c : bool = prim::Constant[value=0]()\n"
     "  %r : Tensor = aten::scaled_dot_product_attention(%q, %q, %q, %n, %p, %c)\n"
     "  return (%r)\n",
     "Transpose MatMul Mul Softmax MatMul"},
    {"control", 13,
     "graph(%x : " F23 ",\n      %c : Bool(requires_grad=0, device=cpu)):\n"
     "  %r : Tensor = prim::If(%c)\n    block0():\n      %a : Tensor = aten::neg(%x)\n"
     "      -> (%a)\n    block1():\n      -> (%x)\n  return (%r)\n",
     "If"},
    {"quant", 13,
     HEAD "  %s : float = prim::Constant[value=0.1]()\n  %z : int = prim::Constant[value=0]()\n"
          "  %hi : int = prim::Constant[value=255]()\n"
          "  %r : Tensor = aten::fake_quantize_per_tensor_affine(%x, %s, %z, %z, %hi)\n"
          "  return (%r)\n",
     "QuantizeLinear DequantizeLinear"},
    {"vision", 11,
     "graph(%b : Float(4, 4, strides=[4, 1], requires_grad=0, device=cpu),\n"
     "      %s : Float(4, strides=[1], requires_grad=0, device=cpu)):\n"
     "  %t : float = prim::Constant[value=0.5]()\n"
     "  %r : Tensor = torchvision::nms(%b, %s, %t)\n  return (%r)\n",
     "Unsqueeze Unsqueeze NonMaxSuppression Gather"},
};
enum { NROWS = sizeof ROWS / sizeof *ROWS };

/* The ONNX op types of the top-level nodes, space-separated. */
static void op_sequence(const oxp_graph *g, char *buf, size_t n) {
  buf[0] = 0;
  size_t len = 0;
  for (const oxp_node *k = g->top->first; k; k = k->next) {
    const char *op = strncmp(k->kind, "onnx::", 6) == 0 ? k->kind + 6 : k->kind;
    len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s", len ? " " : "", op);
  }
}

START_TEST(row_lowers_to_its_ops) {
  const row *r = &ROWS[_i];
  oxp_options o;
  oxp_options_init(&o);
  o.opset = r->opset;
  oxp_graph *out = NULL;
  oxp_status st = oxp_export_graph(A, "t.ir", r->ir, strlen(r->ir), NULL, &o, &out, &D);
  ck_assert_msg(st == OXP_OK, "%s (opset %d): %s", r->family, r->opset, D.message);
  char got[1024];
  op_sequence(out, got, sizeof got);
  if (getenv("OXP_LOWERING_TABLE_PRINT")) fprintf(stderr, "%s %d: %s\n", r->family, r->opset, got);
  ck_assert_msg(strcmp(got, r->ops) == 0, "%s (opset %d): want '%s', got '%s'", r->family,
                r->opset, r->ops, got);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("lowering_table");
  TCase *t = tcase_create("rows");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_loop_test(t, row_lowers_to_its_ops, 0, NROWS);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return oxp_check_run(suite()); }
