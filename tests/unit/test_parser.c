/* test_parser.c: TorchScript IR text to the graph IR.
 *
 * Inputs are copied so that they end exactly at an unmapped page and carry
 * no NUL, so any read past `len` faults even without a sanitizer. */
#include <check.h>
#include "check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "oxp.h"

#include "arena_fixture.h"

/* ---- helpers ------------------------------------------------------------ */

typedef struct {
  char *base;
  size_t maplen;
} guarded;

/* n bytes of s placed right before a PROT_NONE page. */
static const char *guard(guarded *g, const char *s, size_t n) {
  size_t pg = (size_t)sysconf(_SC_PAGESIZE);
  size_t data = (n + pg - 1) / pg * pg;
  g->maplen = data + pg;
  g->base = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ck_assert_ptr_ne(g->base, MAP_FAILED);
  ck_assert_int_eq(mprotect(g->base + data, pg, PROT_NONE), 0);
  char *p = g->base + data - n;
  if (n) memcpy(p, s, n);
  return p;
}

static void unguard(guarded *g) { munmap(g->base, g->maplen); }

static oxp_status parse_n(const char *s, size_t n, oxp_graph **g) {
  guarded gd;
  const char *p = guard(&gd, s, n);
  oxp_diag_clear(&D);
  oxp_status st = oxp_parse_ir(A, "m.ir", p, n, g, &D);
  unguard(&gd);
  return st;
}

static oxp_graph *parse_ok(const char *s) {
  oxp_graph *g = NULL;
  oxp_status st = parse_n(s, strlen(s), &g);
  char msg[1024];
  oxp_diag_format(&D, msg, sizeof msg);
  ck_assert_msg(st == OXP_OK, "parse failed: %s", msg);
  ck_assert_ptr_nonnull(g);
  return g;
}

/* Expects a parse error at line:col whose message contains want. */
static void parse_bad(const char *s, int line, int col, const char *want) {
  oxp_graph *g = NULL;
  oxp_status st = parse_n(s, strlen(s), &g);
  ck_assert_int_eq(st, OXP_ERR_PARSE);
  ck_assert_ptr_null(g);
  ck_assert_msg(strstr(D.message, want), "message '%s' lacks '%s'",
                D.message, want);
  ck_assert_str_eq(D.file, "m.ir");
  ck_assert_msg(D.line == line && D.col == col, "at %d:%d, want %d:%d (%s)",
                D.line, D.col, line, col, D.message);
}

static oxp_node *nth(oxp_block *b, int i) {
  oxp_node *n = b->first;
  while (n && i-- > 0) n = n->next;
  ck_assert_ptr_nonnull(n);
  return n;
}

static int count_nodes(const oxp_block *b) {
  int k = 0;
  for (oxp_node *n = b->first; n; n = n->next) k++;
  return k;
}

static void assert_type(const oxp_type *t, const char *printed) {
  char buf[256];
  oxp_type_print(t, buf, sizeof buf);
  ck_assert_str_eq(buf, printed);
}

static oxp_attr *attr(oxp_node *n, const char *name, oxp_attr_kind k) {
  oxp_attr *a = oxp_attr_get(n, name);
  ck_assert_msg(a != NULL, "no attribute %s", name);
  ck_assert_int_eq(a->kind, k);
  return a;
}

/* The tensor of a one-constant graph `%c : decl = prim::Constant[value]()`. */
static oxp_tensor *const_tensor(const char *decl, const char *value) {
  char buf[512];
  snprintf(buf, sizeof buf,
           "graph():\n  %%c : %s = prim::Constant[value=%s]()\n"
           "  return (%%c)\n", decl, value);
  oxp_graph *g = parse_ok(buf);
  return attr(nth(g->top, 0), "value", OXP_A_TENSOR)->t;
}

static float f32_at(const oxp_tensor *t, int i) {
  float v;
  memcpy(&v, (const char *)t->data + 4 * i, 4);
  return v;
}

static char *read_sample(const char *name, size_t *n) {
  const char *dir = getenv("OXP_TEST_DATA");
  char path[1024];
  snprintf(path, sizeof path, "%s/ir/%s", dir ? dir : "tests/data", name);
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  rewind(f);
  char *buf = malloc((size_t)len + 1);
  ck_assert_uint_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  *n = (size_t)len;
  return buf;
}

static const char *SAMPLES[] = {"mlp_traced.ir", "cnn_traced.ir",
                                "attention_traced.ir", "script_control.ir"};

/* ---- valid input ------------------------------------------------------- */

START_TEST(parse_graph_inputs_and_tensor_types) {
  oxp_graph *g = parse_ok(
      "graph(%input.1 : Float(2, 1, 5, 5, strides=[25, 25, 5, 1], "
      "requires_grad=0, device=cpu),\n"
      "      %fc.weight : Float(3, 4, strides=[4, 1], requires_grad=1, "
      "device=cuda:0),\n"
      "      %bn.num_batches_tracked : Long(requires_grad=0, device=cpu),\n"
      "      %0 : Float(*, 3, requires_grad=0, device=cpu),\n"
      "      %t : Tensor,\n"
      "      %h : Half):\n"
      "  return (%fc.weight, %input.1)\n");
  oxp_block *b = g->top;
  ck_assert_int_eq(b->ninputs, 6);
  ck_assert_str_eq(b->inputs[0]->name, "input.1");
  assert_type(b->inputs[0]->type, "Float(2, 1, 5, 5)");
  ck_assert(!b->inputs[0]->type->requires_grad);
  ck_assert_str_eq(b->inputs[1]->name, "fc.weight");
  ck_assert(b->inputs[1]->type->requires_grad);
  const oxp_type *l = b->inputs[2]->type;
  ck_assert_int_eq(l->kind, OXP_T_TENSOR);
  ck_assert_int_eq(l->dtype, OXP_DT_INT64);
  ck_assert_int_eq(l->rank, 0);
  ck_assert_int_eq(b->inputs[3]->type->rank, 2);
  ck_assert_int_eq(b->inputs[3]->type->dims[0], -1);
  ck_assert_int_eq(b->inputs[3]->type->dims[1], 3);
  ck_assert_int_eq(b->inputs[4]->type->dtype, 0);
  ck_assert_int_eq(b->inputs[4]->type->rank, -1);
  ck_assert_int_eq(b->inputs[5]->type->dtype, OXP_DT_FLOAT16);
  ck_assert_int_eq(b->inputs[5]->type->rank, -1);
  ck_assert_int_eq(b->noutputs, 2);
  ck_assert_ptr_eq(b->outputs[0], b->inputs[1]);
  ck_assert_ptr_eq(b->outputs[1], b->inputs[0]);
  ck_assert_ptr_eq(b->inputs[1]->owner, b);
  ck_assert_int_eq(b->inputs[1]->index, 1);
}
END_TEST

START_TEST(parse_scalar_and_container_types) {
  oxp_graph *g = parse_ok(
      "graph(%a : int, %b : float, %c : bool, %d : str, %e : NoneType,\n"
      "      %f : Device, %g : Scalar, %h : number, %i : Layout,\n"
      "      %j : Generator, %k : __torch__.torch.nn.modules.linear.Linear,\n"
      "      %l : int[], %m : Tensor[], %n : Tensor?, %o : Tensor?[],\n"
      "      %p : (Float(2, 3), int), %q : (), %r : Dict(str, Tensor),\n"
      "      %s : FloatTensor, %t : float[][], %u : (int, (float, str))):\n"
      "  return ()\n");
  const char *want[] = {"int", "float", "bool", "str", "NoneType", "Device",
                        "Scalar", "Scalar", "Layout", "Generator",
                        "__torch__.torch.nn.modules.linear.Linear", "int[]",
                        "Tensor[]", "Tensor?", "Tensor?[]",
                        "(Float(2, 3), int)", "()", "Dict(str, Tensor)",
                        "Float", "float[][]", "(int, (float, str))"};
  oxp_block *b = g->top;
  ck_assert_int_eq(b->ninputs, 21);
  for (int i = 0; i < 21; i++) assert_type(b->inputs[i]->type, want[i]);
  ck_assert_int_eq(b->inputs[8]->type->kind, OXP_T_OTHER);
  ck_assert_int_eq(b->inputs[11]->type->kind, OXP_T_LIST);
  ck_assert_int_eq(b->inputs[11]->type->elem->kind, OXP_T_INT);
  ck_assert_int_eq(b->inputs[13]->type->kind, OXP_T_OPTIONAL);
  ck_assert_int_eq(b->inputs[13]->type->elem->kind, OXP_T_TENSOR);
  ck_assert_int_eq(b->inputs[15]->type->kind, OXP_T_TUPLE);
  ck_assert_int_eq(b->inputs[15]->type->nelems, 2);
  ck_assert_int_eq(b->inputs[16]->type->nelems, 0);
  ck_assert_int_eq(b->inputs[18]->type->kind, OXP_T_TENSOR);
  ck_assert_int_eq(b->inputs[18]->type->dtype, OXP_DT_FLOAT);
  ck_assert_int_eq(b->noutputs, 0);
}
END_TEST

START_TEST(parse_nodes_uses_and_outputs) {
  oxp_graph *g = parse_ok(
      "graph(%x : Float(2, 4, strides=[4, 1], requires_grad=0, device=cpu),\n"
      "      %w : Float(3, 4, strides=[4, 1], requires_grad=1, device=cpu)):\n"
      "  %2 : Float(2, 3, strides=[3, 1], requires_grad=1, device=cpu) = "
      "aten::linear(%x, %w, %x) # /m.py:1:0\n"
      "  %3 : Float(2, 3) = aten::relu(%2)\n"
      "  %a : Tensor, %b : Tensor = prim::ListUnpack(%3)\n"
      "   = prim::Print(%a, %b)\n"
      "  return (%b)\n");
  oxp_block *b = g->top;
  ck_assert_int_eq(count_nodes(b), 4);
  oxp_node *lin = nth(b, 0), *relu = nth(b, 1), *un = nth(b, 2),
           *pr = nth(b, 3);
  ck_assert_str_eq(lin->kind, "aten::linear");
  ck_assert_ptr_null(lin->overload);
  ck_assert_int_eq(lin->ninputs, 3);
  ck_assert_ptr_eq(lin->inputs[0], b->inputs[0]);
  ck_assert_ptr_eq(lin->inputs[2], b->inputs[0]);
  ck_assert_int_eq(b->inputs[0]->nuses, 2);
  ck_assert_int_eq(b->inputs[1]->nuses, 1);
  ck_assert_str_eq(lin->outputs[0]->name, "2");
  ck_assert_ptr_eq(lin->outputs[0]->producer, lin);
  ck_assert_str_eq(lin->source, "/m.py:1:0");
  ck_assert_ptr_eq(lin->owner, b);
  ck_assert_ptr_null(relu->source);
  ck_assert_ptr_eq(relu->inputs[0], lin->outputs[0]);
  ck_assert_int_eq(un->noutputs, 2);
  ck_assert_str_eq(un->outputs[1]->name, "b");
  ck_assert_int_eq(un->outputs[1]->index, 1);
  ck_assert_str_eq(pr->kind, "prim::Print");
  ck_assert_int_eq(pr->noutputs, 0);
  ck_assert_ptr_eq(pr->inputs[1], un->outputs[1]);
  ck_assert_ptr_eq(b->outputs[0], un->outputs[1]);
  ck_assert_int_eq(g->nnodes, 4);
}
END_TEST

START_TEST(parse_node_locations) {
  oxp_graph *g = parse_ok("graph(%x : Tensor):\n"
                          "  %y : Tensor = aten::relu(%x)\n"
                          "    = prim::Print(%y)\n"
                          "  return (%y)\n");
  oxp_node *a = nth(g->top, 0), *b = nth(g->top, 1);
  ck_assert_str_eq(a->loc.file, "m.ir");
  ck_assert_int_eq(a->loc.line, 2);
  ck_assert_int_eq(a->loc.col, 3);
  ck_assert_int_eq(b->loc.line, 3);
  ck_assert_int_eq(b->loc.col, 7); /* the op of a zero-output line */
}
END_TEST

START_TEST(parse_scope_and_source_suffixes) {
  oxp_graph *g = parse_ok(
      "graph(%x : Tensor):\n"
      "  %y : Tensor = aten::relu(%x), scope: __module.l/__module.l.0 "
      "# /usr/lib/python3/dist-packages/torch/nn/functional.py:1457:0\n"
      "  %z : Tensor = aten::relu(%y), scope: __module.fc\n"
      "  return (%z)\n");
  oxp_node *a = nth(g->top, 0), *b = nth(g->top, 1);
  ck_assert_str_eq(a->scope, "__module.l/__module.l.0");
  ck_assert_str_eq(a->source,
                   "/usr/lib/python3/dist-packages/torch/nn/functional.py:"
                   "1457:0");
  ck_assert_str_eq(b->scope, "__module.fc");
  ck_assert_ptr_null(b->source);
}
END_TEST

START_TEST(parse_overload_names) {
  oxp_graph *g = parse_ok("graph(%x : Tensor):\n"
                          "  %y : Tensor = aten::add.Tensor(%x, %x)\n"
                          "  %z : Tensor = aten::relu(%y)\n"
                          "  return (%z)\n");
  ck_assert_str_eq(nth(g->top, 0)->kind, "aten::add");
  ck_assert_str_eq(nth(g->top, 0)->overload, "Tensor");
  ck_assert_ptr_null(nth(g->top, 1)->overload);
}
END_TEST

START_TEST(parse_int_and_float_attrs) {
  oxp_graph *g = parse_ok(
      "graph():\n"
      "  %0 : int = prim::Constant[value=1]()\n"
      "  %1 : int = prim::Constant[value=-1]()\n"
      "  %2 : int = prim::Constant[value=9223372036854775807]()\n"
      "  %3 : int = prim::Constant[value=-9223372036854775808]()\n"
      "  %4 : float = prim::Constant[value=1.5]()\n"
      "  %5 : float = prim::Constant[value=2.]()\n"
      "  %6 : float = prim::Constant[value=0.10000000000000001]()\n"
      "  %7 : float = prim::Constant[value=-inf]()\n"
      "  %8 : float = prim::Constant[value=inf]()\n"
      "  %9 : float = prim::Constant[value=nan]()\n"
      "  %10 : float = prim::Constant[value=1.0000000000000001e-05]()\n"
      "  %11 : bool = prim::Constant[value=True]()\n"
      "  %12 : NoneType = prim::Constant()\n"
      "  return ()\n");
  int64_t ints[] = {1, -1, INT64_MAX, INT64_MIN};
  for (int i = 0; i < 4; i++)
    ck_assert_int_eq(attr(nth(g->top, i), "value", OXP_A_INT)->i, ints[i]);
  ck_assert_double_eq(attr(nth(g->top, 4), "value", OXP_A_FLOAT)->f, 1.5);
  ck_assert_double_eq(attr(nth(g->top, 5), "value", OXP_A_FLOAT)->f, 2.0);
  ck_assert(attr(nth(g->top, 6), "value", OXP_A_FLOAT)->f == 0.1);
  double ninf = attr(nth(g->top, 7), "value", OXP_A_FLOAT)->f;
  ck_assert(isinf(ninf) && ninf < 0);
  double pinf = attr(nth(g->top, 8), "value", OXP_A_FLOAT)->f;
  ck_assert(isinf(pinf) && pinf > 0);
  ck_assert(isnan(attr(nth(g->top, 9), "value", OXP_A_FLOAT)->f));
  ck_assert(attr(nth(g->top, 10), "value", OXP_A_FLOAT)->f == 1e-05);
  ck_assert_int_eq(attr(nth(g->top, 11), "value", OXP_A_INT)->i, 1);
  ck_assert_ptr_null(nth(g->top, 12)->attrs);
}
END_TEST

START_TEST(parse_string_attrs_with_escapes) {
  /* What torch prints for "a\n\t\"\\b\x01é'" plus the other escapes. */
  oxp_graph *g = parse_ok(
      "graph():\n"
      "  %0 : str = prim::Constant"
      "[value=\"a\\n\\t\\\"\\\\b\\001\\0)+\\/.)\\'\"]()\n"
      "  %1 : str = prim::Constant[value=\"\\x41\\177\\033\\r\\0\"]()\n"
      "  %2 : str = prim::Constant[value=\"\"]()\n"
      "  %3 : Device = prim::Constant[value=\"cuda:0\"]()\n"
      "  %4 : str = prim::Constant[value='single']()\n"
      "  return ()\n");
  ck_assert_str_eq(attr(nth(g->top, 0), "value", OXP_A_STR)->s,
                   "a\n\t\"\\b\x01\xc3\xa9'");
  const char *s1 = attr(nth(g->top, 1), "value", OXP_A_STR)->s;
  ck_assert_int_eq(memcmp(s1, "A\177\033\r\0", 6), 0);
  ck_assert_str_eq(attr(nth(g->top, 2), "value", OXP_A_STR)->s, "");
  ck_assert_str_eq(attr(nth(g->top, 3), "value", OXP_A_STR)->s, "cuda:0");
  ck_assert_str_eq(attr(nth(g->top, 4), "value", OXP_A_STR)->s, "single");
}
END_TEST

START_TEST(parse_list_attrs) {
  oxp_graph *g = parse_ok(
      "graph():\n"
      "  %0 : int[] = prim::Constant[value=[1, 2, -3]]()\n"
      "  %1 : float[] = prim::Constant[value=[1.5, 2., -inf]]()\n"
      "  %2 : str[] = prim::Constant[value=[\"a\", \"b\\n\"]]()\n"
      "  %3 : bool[] = prim::Constant[value=[True, False]]()\n"
      "  %4 : int[] = prim::Constant[value=[]]()\n"
      "  %5 : float[] = prim::Constant[value=[1, 2.5]]()\n"
      "  return ()\n");
  oxp_attr *a = attr(nth(g->top, 0), "value", OXP_A_INTS);
  ck_assert_int_eq(a->n, 3);
  ck_assert_int_eq(a->ints[0], 1);
  ck_assert_int_eq(a->ints[2], -3);
  a = attr(nth(g->top, 1), "value", OXP_A_FLOATS);
  ck_assert_int_eq(a->n, 3);
  ck_assert_double_eq(a->floats[1], 2.0);
  ck_assert(isinf(a->floats[2]));
  a = attr(nth(g->top, 2), "value", OXP_A_STRS);
  ck_assert_int_eq(a->n, 2);
  ck_assert_str_eq(a->strs[0], "a");
  ck_assert_str_eq(a->strs[1], "b\n");
  a = attr(nth(g->top, 3), "value", OXP_A_INTS);
  ck_assert_int_eq(a->n, 2);
  ck_assert_int_eq(a->ints[0], 1);
  ck_assert_int_eq(a->ints[1], 0);
  ck_assert_int_eq(attr(nth(g->top, 4), "value", OXP_A_INTS)->n, 0);
  a = attr(nth(g->top, 5), "value", OXP_A_FLOATS);
  ck_assert_double_eq(a->floats[0], 1.0);
  ck_assert_double_eq(a->floats[1], 2.5);
}
END_TEST

START_TEST(parse_several_attrs_and_unmodelled_values) {
  oxp_graph *g = parse_ok(
      "graph(%self : __torch__.M, %x : Tensor):\n"
      "  %w : Tensor = prim::GetAttr[name=\"weight\"](%self)\n"
      "  %1 : Tensor = foo::bar[a=1, b=\"x\", c=[1, 2], d=None](%x)\n"
      "  %2 : (int, str) = prim::Constant[value=(1, \"a\")]()\n"
      "  %3 : Float(2, 2) = ^F[inplace=0, module=\"__main__\", "
      "Subgraph=<Graph>](2.5, \"s\")(%x) # /m.py:13:0\n"
      "  return (%3)\n");
  ck_assert_str_eq(attr(nth(g->top, 0), "name", OXP_A_STR)->s, "weight");
  oxp_node *n = nth(g->top, 1);
  ck_assert_int_eq(attr(n, "a", OXP_A_INT)->i, 1);
  ck_assert_str_eq(attr(n, "b", OXP_A_STR)->s, "x");
  ck_assert_int_eq(attr(n, "c", OXP_A_INTS)->n, 2);
  attr(n, "d", OXP_A_NONE);
  ck_assert_str_eq(n->attrs->name, "a"); /* insertion order kept */
  ck_assert_str_eq(attr(nth(g->top, 2), "value", OXP_A_STR)->s,
                   "(1, \"a\")");
  n = nth(g->top, 3);
  ck_assert_str_eq(n->kind, "prim::PythonOp");
  ck_assert_str_eq(attr(n, "pyname", OXP_A_STR)->s, "F");
  ck_assert_int_eq(attr(n, "inplace", OXP_A_INT)->i, 0);
  ck_assert_str_eq(attr(n, "module", OXP_A_STR)->s, "__main__");
  ck_assert_str_eq(attr(n, "Subgraph", OXP_A_STR)->s, "<Graph>");
  ck_assert_str_eq(attr(n, "scalar_args", OXP_A_STR)->s, "2.5, \"s\"");
  ck_assert_int_eq(n->ninputs, 1);
  ck_assert_str_eq(n->source, "/m.py:13:0");
}
END_TEST

START_TEST(parse_tensor_placeholder) {
  oxp_tensor *t = const_tensor("Float(3, 4, strides=[4, 1], requires_grad=0, "
                               "device=cpu)", "<Tensor>");
  ck_assert_ptr_null(t->data);
  ck_assert_uint_eq(t->nbytes, 0);
  ck_assert_int_eq(t->dtype, OXP_DT_FLOAT);
  ck_assert_int_eq(t->rank, 2);
  ck_assert_int_eq(t->dims[0], 3);
  ck_assert_int_eq(t->dims[1], 4);
  t = const_tensor("Tensor", "<Tensor>");
  ck_assert_ptr_null(t->data);
  ck_assert_int_eq(t->dtype, 0);
}
END_TEST

START_TEST(parse_inline_scalar_tensors) {
  oxp_tensor *t = const_tensor("Long(requires_grad=0, device=cpu)", "{2}");
  ck_assert_int_eq(t->dtype, OXP_DT_INT64);
  ck_assert_int_eq(t->rank, 0);
  ck_assert_uint_eq(t->nbytes, 8);
  ck_assert_int_eq(oxp_tensor_get_i(t, 0), 2);

  t = const_tensor("Float(requires_grad=0, device=cpu)", "{0.123457}");
  ck_assert_int_eq(t->dtype, OXP_DT_FLOAT);
  ck_assert(f32_at(t, 0) == 0.123457f);

  t = const_tensor("Double(requires_grad=0, device=cpu)", "{-inf}");
  ck_assert_int_eq(t->dtype, OXP_DT_DOUBLE);
  ck_assert(isinf(oxp_tensor_get_f(t, 0)) && oxp_tensor_get_f(t, 0) < 0);

  t = const_tensor("Double(requires_grad=0, device=cpu)", "{2}");
  ck_assert_double_eq(oxp_tensor_get_f(t, 0), 2.0);

  t = const_tensor("Int(requires_grad=0, device=cpu)", "{-7}");
  ck_assert_int_eq(t->dtype, OXP_DT_INT32);
  ck_assert_int_eq(oxp_tensor_get_i(t, 0), -7);

  t = const_tensor("Bool(1, strides=[1], requires_grad=0, device=cpu)", "{1}");
  ck_assert_int_eq(t->dtype, OXP_DT_BOOL);
  ck_assert_int_eq(t->rank, 1);
  ck_assert_int_eq(t->dims[0], 1);
  ck_assert_int_eq(((const unsigned char *)t->data)[0], 1);

  t = const_tensor("Half(requires_grad=0, device=cpu)", "{-1.5}");
  ck_assert_int_eq(t->dtype, OXP_DT_FLOAT16);
  ck_assert_double_eq(oxp_tensor_get_f(t, 0), -1.5);

  t = const_tensor("Float(1, 1, strides=[1, 1], requires_grad=0, device=cpu)",
                   "{2.5}");
  ck_assert_int_eq(t->rank, 2);
  ck_assert_int_eq(t->dims[0], 1);
  ck_assert_int_eq(t->dims[1], 1);
  ck_assert(f32_at(t, 0) == 2.5f);

  /* Undeclared dtype: integral text is Long, anything else Float. */
  t = const_tensor("Tensor", "{1}");
  ck_assert_int_eq(t->dtype, OXP_DT_INT64);
  ck_assert_int_eq(t->rank, 0);
  t = const_tensor("Tensor", "{-1e-07}");
  ck_assert_int_eq(t->dtype, OXP_DT_FLOAT);
  ck_assert(f32_at(t, 0) == -1e-07f);

  t = const_tensor("ComplexFloat(requires_grad=0, device=cpu)", "{(2,1)}");
  ck_assert_int_eq(t->dtype, OXP_DT_COMPLEX64);
  ck_assert(f32_at(t, 0) == 2.0f && f32_at(t, 1) == 1.0f);
}
END_TEST

/* Short decimals skip strtod (Clinger's fast path in parse_tensor.c);
 * the double must be strtod's to the bit, in and out of that path. */
static void assert_double_is_strtod(const char *text) {
  char value[80];
  snprintf(value, sizeof value, "{%s}", text);
  oxp_tensor *t = const_tensor("Double(requires_grad=0, device=cpu)", value);
  double got, want = strtod(text, NULL);
  ck_assert_int_eq(t->dtype, OXP_DT_DOUBLE);
  memcpy(&got, t->data, 8);
  ck_assert_msg(memcmp(&got, &want, 8) == 0, "%s read as %.17g, strtod says %.17g",
                text, got, want);
}

START_TEST(parse_decimals_as_strtod) {
  static const char *fixed[] = {
      "0.999", "0.001", "0.0005", "1e-05", "1.5e-05", "-0.0", "2.", "0.1",
      "123456789012345.", "1234567890123456.", "9.99999999999999e22", "1e22",
      "1e23", "1e-22", "1e-23", "0.30000000000000004", "-7.25e-3", "8.5E+2",
      "4.9406564584124654e-324", "1.7976931348623157e308", "000012.50"};
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) assert_double_is_strtod(fixed[i]);
  unsigned seed = 7; /* random short decimals: the fast path's cases */
  for (int k = 0; k < 2000; k++) {
    char text[64];
    int n = 0;
    seed = seed * 1103515245u + 12345u;
    if (seed >> 31) text[n++] = '-';
    for (int d = 0, len = 1 + (int)((seed >> 8) % 9); d < len; d++)
      text[n++] = (char)('0' + (seed = seed * 1103515245u + 12345u) % 10);
    text[n++] = '.';
    for (int d = 0, len = (int)((seed >> 12) % 9); d < len; d++)
      text[n++] = (char)('0' + (seed = seed * 1103515245u + 12345u) % 10);
    if ((seed >> 20) % 3 == 0) n += snprintf(text + n, 8, "e%d", (int)((seed >> 4) % 41) - 20);
    text[n] = 0;
    assert_double_is_strtod(text);
  }
}
END_TEST

START_TEST(parse_inline_tensor_printouts) {
  oxp_tensor *t = const_tensor(
      "Float(3, strides=[1], requires_grad=0, device=cpu)",
      " 1.5000  2.0000 -3.2500 [ CPUFloatType{3} ]");
  ck_assert_int_eq(t->rank, 1);
  ck_assert_int_eq(t->dims[0], 3);
  ck_assert(f32_at(t, 0) == 1.5f && f32_at(t, 2) == -3.25f);

  t = const_tensor("Long(2, 3, strides=[3, 1], requires_grad=0, device=cpu)",
                   " 1  2  3  4  5 -6 [ CPULongType{2,3} ]");
  ck_assert_int_eq(t->dtype, OXP_DT_INT64);
  ck_assert_int_eq(oxp_tensor_get_i(t, 5), -6);

  t = const_tensor("Float(2, 2, 2, strides=[4, 2, 1], requires_grad=0, "
                   "device=cpu)",
                   "(1,.,.) =    1  2   3  4  (2,.,.) =         5       6  "
                   "      7  800000 [ CPUFloatType{2,2,2} ]");
  ck_assert_int_eq(t->rank, 3);
  ck_assert(f32_at(t, 4) == 5.0f && f32_at(t, 7) == 800000.0f);

  /* A common scale prefix, and sci notation for a Long. */
  t = const_tensor("Float(2, strides=[1], requires_grad=0, device=cpu)",
                   "1e+06 *  1.2346  2.3457 [ CPUFloatType{2} ]");
  ck_assert(f32_at(t, 1) == 2345700.0f);
  t = const_tensor("Long(1, 10, strides=[10, 1], requires_grad=0, "
                   "device=cpu)",
                   "Columns 1 to 6 0.0000e+00  1.0000e+12  2.0000e+12  "
                   "3.0000e+12  4.0000e+12  5.0000e+12  Columns 7 to 10 "
                   "6.0000e+12  7.0000e+12  8.0000e+12  9.0000e+12 "
                   "[ CPULongType{1,10} ]");
  ck_assert_int_eq(oxp_tensor_get_i(t, 9), INT64_C(9000000000000));

  /* Column chunks of a two-row matrix land column-wise. */
  t = const_tensor("Float(2, 3)", "Columns 1 to 2 1 2 4 5 Columns 3 to 3 3 6 "
                   "[ CPUFloatType{2,3} ]");
  for (int i = 0; i < 6; i++) ck_assert(f32_at(t, i) == (float)(i + 1));

  t = const_tensor("Float(4, strides=[1], requires_grad=0, device=cpu)",
                   " 1.5000     nan     inf    -inf [ CPUFloatType{4} ]");
  ck_assert(isnan(f32_at(t, 1)) && isinf(f32_at(t, 3)));

  t = const_tensor("Float(2, 0)", "[ CPUFloatType{2,0} ]");
  ck_assert_int_eq(t->rank, 2);
  ck_assert_int_eq(t->dims[1], 0);
  ck_assert_uint_eq(t->nbytes, 0);

  t = const_tensor("Byte(2)", "   1  255 [ CPUByteType{2} ]");
  ck_assert_int_eq(t->dtype, OXP_DT_UINT8);
  ck_assert_int_eq(((const unsigned char *)t->data)[1], 255);

  /* Undeclared: the dtype comes from the printout's type name. */
  t = const_tensor("Tensor", " 0.1001  0.2002 [ CPUBFloat16Type{2} ]");
  ck_assert_int_eq(t->dtype, OXP_DT_BFLOAT16);
  ck_assert_int_eq(t->dims[0], 2);
  t = const_tensor("Tensor", " 1  0 [ CPUBoolType{2} ]");
  ck_assert_int_eq(t->dtype, OXP_DT_BOOL);
}
END_TEST

START_TEST(parse_if_and_loop_blocks) {
  oxp_graph *g = parse_ok(
      "graph(%x.1 : Tensor, %n.1 : int):\n"
      "  %7 : bool = prim::Constant[value=1]()\n"
      "  %acc : Tensor = prim::Loop(%n.1, %7, %x.1) # /g.py:6:4\n"
      "    block0(%i.1 : int, %acc.33 : Tensor):\n"
      "      %14 : bool = aten::eq(%i.1, %n.1)\n"
      "      %acc.31 : Tensor = prim::If(%14)\n"
      "        block0():\n"
      "          %acc.3 : Tensor = aten::add(%acc.33, %i.1, %7)\n"
      "          -> (%acc.3)\n"
      "        block1():\n"
      "          -> (%x.1)\n"
      "      -> (%7, %acc.31)\n"
      "   = prim::If(%7)\n"
      "    block0():\n"
      "       = prim::RaiseException(%acc)\n"
      "      -> ()\n"
      "    block1():\n"
      "      -> ()\n"
      "  return (%acc)\n");
  oxp_block *top = g->top;
  ck_assert_int_eq(count_nodes(top), 3);
  oxp_node *loop = nth(top, 1);
  ck_assert_str_eq(loop->kind, "prim::Loop");
  ck_assert_int_eq(loop->nblocks, 1);
  oxp_block *body = loop->blocks[0];
  ck_assert_ptr_eq(body->owner, loop);
  ck_assert_int_eq(body->ninputs, 2);
  ck_assert_str_eq(body->inputs[1]->name, "acc.33");
  assert_type(body->inputs[0]->type, "int");
  ck_assert_int_eq(count_nodes(body), 2);
  oxp_node *ifn = nth(body, 1);
  ck_assert_ptr_eq(ifn->owner, body);
  ck_assert_int_eq(ifn->nblocks, 2);
  ck_assert_ptr_eq(ifn->inputs[0], nth(body, 0)->outputs[0]);
  oxp_block *then = ifn->blocks[0], *els = ifn->blocks[1];
  ck_assert_int_eq(count_nodes(then), 1);
  ck_assert_ptr_eq(nth(then, 0)->inputs[0], body->inputs[1]);
  ck_assert_ptr_eq(nth(then, 0)->inputs[2], nth(top, 0)->outputs[0]);
  ck_assert_ptr_eq(then->outputs[0], nth(then, 0)->outputs[0]);
  ck_assert_int_eq(count_nodes(els), 0);
  ck_assert_ptr_eq(els->outputs[0], top->inputs[0]);
  ck_assert_int_eq(body->noutputs, 2);
  ck_assert_ptr_eq(body->outputs[1], ifn->outputs[0]);
  oxp_node *if2 = nth(top, 2);
  ck_assert_int_eq(if2->noutputs, 0);
  ck_assert_int_eq(if2->nblocks, 2);
  ck_assert_ptr_eq(nth(if2->blocks[0], 0)->inputs[0], loop->outputs[0]);
  ck_assert_int_eq(if2->blocks[1]->noutputs, 0);
  ck_assert_ptr_eq(top->outputs[0], loop->outputs[0]);
}
END_TEST

START_TEST(parse_untyped_values_default_to_tensor) {
  /* torch._C.parse_ir's shorter form. */
  oxp_graph *g = parse_ok("graph(%x):\n"
                          "  %y = aten::relu(%x)\n"
                          "  %z : int = prim::Constant[value=1]()\n"
                          "  return (%y, %z)\n");
  assert_type(g->top->inputs[0]->type, "Tensor");
  assert_type(nth(g->top, 0)->outputs[0]->type, "Tensor");
  ck_assert_int_eq(g->top->noutputs, 2);
}
END_TEST

START_TEST(parse_blank_and_comment_lines) {
  oxp_graph *g = parse_ok("\ngraph(%x : Tensor):\n\n"
                          "  # a note\n"
                          "  %y : Tensor = aten::relu(%x)\n\n"
                          "  return (%y)\n\n");
  ck_assert_int_eq(count_nodes(g->top), 1);
  /* No final newline, CRLF line ends. */
  g = parse_ok("graph(%x : Tensor):\r\n  return (%x)");
  ck_assert_int_eq(g->top->noutputs, 1);
}
END_TEST

START_TEST(parse_real_samples) {
  struct {
    int ninputs, nnodes, noutputs;
  } want[] = {{5, 5, 1}, {10, 81, 1}, {7, 95, 1}, {3, 28, 1}};
  for (int i = 0; i < 4; i++) {
    size_t n;
    char *s = read_sample(SAMPLES[i], &n);
    oxp_graph *g = NULL;
    oxp_status st = parse_n(s, n, &g);
    free(s);
    ck_assert_msg(st == OXP_OK, "%s: %d:%d: %s", SAMPLES[i], D.line, D.col,
                  D.message);
    ck_assert_int_eq(g->top->ninputs, want[i].ninputs);
    ck_assert_int_eq(count_nodes(g->top), want[i].nnodes);
    ck_assert_int_eq(g->top->noutputs, want[i].noutputs);
  }
}
END_TEST

START_TEST(parse_real_sample_details) {
  size_t n;
  char *s = read_sample("cnn_traced.ir", &n);
  oxp_graph *g = NULL;
  ck_assert_int_eq(parse_n(s, n, &g), OXP_OK);
  free(s);
  oxp_block *b = g->top;
  ck_assert_str_eq(b->inputs[7]->name, "bn.num_batches_tracked");
  ck_assert_int_eq(b->inputs[7]->type->rank, 0);
  oxp_node *conv = nth(b, 18);
  ck_assert_str_eq(conv->kind, "aten::_convolution");
  ck_assert_int_eq(conv->ninputs, 13);
  ck_assert_str_eq(conv->outputs[0]->name, "input");
  assert_type(conv->outputs[0]->type, "Float(2, 4, 3, 3)");
  ck_assert_ptr_eq(conv->inputs[1], b->inputs[1]);
  ck_assert_str_eq(conv->source,
                   "/usr/lib/python3/dist-packages/torch/nn/modules/"
                   "conv.py:459:0");
  ck_assert_int_eq(conv->loc.line, 29);
  ck_assert_int_eq(conv->loc.col, 3);
  assert_type(b->outputs[0]->type, "(Float(2, 3), Float(), Long(2, 2))");
}
END_TEST

/* ---- malformed input ----------------------------------------------------- */

START_TEST(parse_rejects_unterminated_string) {
  parse_bad("graph():\n  %1 : str = prim::Constant[value=\"abc]()\n"
            "  return (%1)\n", 2, 35, "unterminated string");
  parse_bad("graph():\n  %1 : str = prim::Constant[value=\"abc\\", 2, 35,
            "unterminated string");
}
END_TEST

START_TEST(parse_rejects_missing_paren) {
  parse_bad("graph(%x : Tensor):\n  %1 : Tensor = aten::relu(%x\n"
            "  return (%1)\n", 2, 30, "expected ',' or ')' in the node's "
            "inputs, found end of line");
  parse_bad("graph(%x : Float(2, 3):\n  return (%x)\n", 1, 23,
            "expected ',' or ')' after a graph input, found ':'");
  parse_bad("graph(%x : Tensor):\n  %1 : Tensor = aten::relu %x\n"
            "  return (%1)\n", 2, 28, "expected '(' before the node's inputs");
  parse_bad("graph(%x : Tensor):\n  return (%x\n", 2, 13,
            "in the returned values");
}
END_TEST

START_TEST(parse_rejects_bad_type) {
  parse_bad("graph(%x : 5):\n  return (%x)\n", 1, 12, "expected a type");
  parse_bad("graph(%x : Float(2, -3)):\n  return (%x)\n", 1, 21,
            "expected a dimension size");
  parse_bad("graph(%x : Float(2, strides=[1)):\n  return (%x)\n", 1, 31,
            "expected ']'");
  parse_bad("graph(%x : (int, float):\n  return (%x)\n", 1, 24,
            "',' or ')' after a graph input");
  parse_bad("graph(%x : (int; float)):\n  return (%x)\n", 1, 16,
            "',' or ')' in the tuple type");
}
END_TEST

START_TEST(parse_rejects_undefined_value) {
  parse_bad("graph(%x : Tensor):\n  %1 : Tensor = aten::relu(%y)\n"
            "  return (%1)\n", 2, 28, "use of undefined value '%y'");
  parse_bad("graph(%x : Tensor):\n  return (%nope)\n", 2, 11,
            "undefined value '%nope'");
  /* A node cannot use its own output. */
  parse_bad("graph():\n  %a : Tensor = aten::relu(%a)\n  return (%a)\n", 2, 28,
            "undefined value '%a'");
}
END_TEST

START_TEST(parse_rejects_duplicate_name) {
  parse_bad("graph(%x : Tensor):\n  %x : Tensor = aten::relu(%x)\n"
            "  return (%x)\n", 2, 3, "'%x' is defined twice (first at line 1)");
  parse_bad("graph(%x : Tensor, %x : int):\n  return (%x)\n", 1, 20,
            "defined twice");
  parse_bad("graph(%x : Tensor):\n  %a : Tensor, %a : Tensor = "
            "prim::ListUnpack(%x)\n  return (%a)\n", 2, 16, "defined twice");
  parse_bad("graph(%c : bool):\n  %1 : Tensor = prim::If(%c)\n"
            "    block0(%c : int):\n      -> (%c)\n  return (%1)\n", 3, 12,
            "defined twice");
}
END_TEST

START_TEST(parse_rejects_block_name_after_block) {
  parse_bad("graph(%c : bool):\n  %1 : int = prim::If(%c)\n    block0():\n"
            "      %2 : int = prim::Constant[value=1]()\n      -> (%2)\n"
            "    block1():\n      -> (%2)\n  return (%1)\n", 7, 11,
            "use of undefined value '%2'");
  parse_bad("graph(%c : bool):\n  %1 : int = prim::If(%c)\n    block0():\n"
            "      -> (%c)\n  return (%c)\n  %9 : int = aten::f(%1)\n", 6, 3,
            "expected end of input after return");
}
END_TEST

START_TEST(parse_rejects_bad_attrs) {
  parse_bad("graph():\n  %1 : str = prim::Constant[value=\"a\\qb\"]()\n"
            "  return (%1)\n", 2, 37, "invalid escape");
  parse_bad("graph():\n  %1 : int = "
            "prim::Constant[value=99999999999999999999]()"
            "\n  return (%1)\n", 2, 35, "out of range");
  parse_bad("graph():\n  %1 : int = prim::Constant[value=]()\n  return (%1)\n",
            2, 35, "expected a value for attribute 'value'");
  parse_bad("graph():\n  %1 : int = prim::Constant[value=1 2]()\n"
            "  return (%1)\n", 2, 37, "expected ',' or ']' after attribute");
  parse_bad("graph():\n  %1 : int = prim::Constant[=1]()\n  return (%1)\n", 2,
            29, "expected an attribute name");
  parse_bad("graph():\n  %1 : Float(2) = prim::Constant[value= 1  2  3 "
            "[ CPUFloatType{2} ]]()\n  return (%1)\n", 2, 47,
            "more tensor values");
  parse_bad("graph():\n  %1 : Float(3) = prim::Constant[value= 1  2 "
            "[ CPUFloatType{3} ]]()\n  return (%1)\n", 2, 41,
            "has 2 values but its shape holds 3");
  parse_bad("graph():\n  %1 : Float(2, 2) = prim::Constant[value={1}]()\n"
            "  return (%1)\n", 2, 43, "1 element");
  parse_bad("graph():\n  %1 : Tensor = prim::Constant[value={x}]()\n"
            "  return (%1)\n", 2, 39, "expected a number");
}
END_TEST

START_TEST(parse_rejects_bad_structure) {
  parse_bad("", 1, 1, "expected 'graph'");
  parse_bad("graph(%x : Tensor):\n  %1 : Tensor = aten::relu(%x)\n", 3, 1,
            "expected 'return' before end of input");
  parse_bad("graph(%x : Tensor):\n  %1 : Tensor = relu(%x)\n  return (%1)\n",
            2, 17, "expected an operator such as 'aten::add'");
  parse_bad("graph(%c : bool):\n  %1 : int = prim::If(%c)\n    block0():\n"
            "      %2 : int = prim::Constant[value=1]()\n", 5, 1,
            "'-> (...)' to end the block");
  parse_bad("graph(%x : Tensor):\n  %1 : Tensor = aten::relu(%x) junk\n"
            "  return (%1)\n", 2, 32, "end of line after the node");
  parse_bad("graph(%x : Tensor):\n  %1 : Tensor = aten::relu(%x), spoke: x\n"
            "  return (%1)\n", 2, 33, "'scope:'");
  parse_bad("graph(%x : Tensor):\n  % : Tensor = aten::relu(%x)\n"
            "  return (%1)\n", 2, 3, "expected a value name");
  parse_bad("graph(%x : Tensor):\n  %1 : Tensor aten::relu(%x)\n"
            "  return (%1)\n", 2, 15, "'=' after the node's outputs");
  parse_bad("graph(%x : Tensor)\n  return (%x)\n", 1, 19,
            "':' after the graph inputs");
}
END_TEST

START_TEST(parse_rejects_deep_nesting) {
  /* Deeply nested types and blocks fail cleanly instead of exhausting the
   * stack. */
  char *s = malloc(200000);
  size_t n = (size_t)sprintf(s, "graph(%%x : ");
  for (int i = 0; i < 50000; i++) s[n++] = '(';
  memcpy(s + n, "int", 3);
  n += 3;
  oxp_graph *g;
  ck_assert_int_eq(parse_n(s, n, &g), OXP_ERR_PARSE);
  ck_assert(strstr(D.message, "nested"));

  n = (size_t)sprintf(s, "graph(%%c : bool):\n");
  for (int i = 0; i < 1000; i++)
    n += (size_t)sprintf(s + n, " = prim::If(%%c)\n block0():\n");
  ck_assert_int_eq(parse_n(s, n, &g), OXP_ERR_PARSE);
  ck_assert(strstr(D.message, "nested"));
  free(s);
}
END_TEST

START_TEST(parse_rejects_shape_past_int64) {
  /* Found by fuzzing: dims whose product passes int64 overflowed every
   * later element count (shape inference, folding, binding). */
  parse_bad("graph(%x : Float(4611686018427387904, 2, 2)):\n  return (%x)\n",
            1, 17, "more than 9223372036854775807 elements");
  /* Unknown dims do not count, and a zero dim makes any shape empty. */
  parse_ok("graph(%x : Float(*, 4611686018427387904, *)):\n  return (%x)\n");
  parse_ok("graph(%x : Float(4611686018427387904, 0, 4611686018427387904)):\n"
           "  return (%x)\n");
}
END_TEST

START_TEST(parse_rejects_nul_and_binary_bytes) {
  static const char s[] = "graph(%x : Tensor):\n  return (%x)\0\n";
  oxp_graph *g;
  ck_assert_int_eq(parse_n(s, sizeof s - 1, &g), OXP_ERR_PARSE);
  ck_assert_int_eq(D.line, 2);
  ck_assert(strstr(D.message, "byte 0x00"));
}
END_TEST

/* ---- robustness ------------------------------------------------------- */

/* Every outcome must be a graph or a located parse error. */
static void check_outcome(oxp_status st, const char *what, size_t at) {
  ck_assert_msg(st == OXP_OK || st == OXP_ERR_PARSE,
                "%s at %zu: status %d (%s)", what, at, st, D.message);
  if (st == OXP_ERR_PARSE)
    ck_assert_msg(D.message[0] && D.line > 0 && D.col > 0,
                  "%s at %zu: error without location", what, at);
}

START_TEST(parse_survives_every_truncation) {
  for (int i = 0; i < 4; i++) {
    size_t n;
    char *s = read_sample(SAMPLES[i], &n);
    guarded gd;
    for (size_t k = 0; k < n; k++) {
      /* Guard each prefix so reading byte k faults. */
      const char *p = guard(&gd, s, k);
      oxp_arena *a = oxp_arena_new();
      oxp_graph *g;
      oxp_diag_clear(&D);
      oxp_status st = oxp_parse_ir(a, "m.ir", p, k, &g, &D);
      check_outcome(st, SAMPLES[i], k);
      oxp_arena_free(a);
      unguard(&gd);
    }
    free(s);
  }
}
END_TEST

static uint32_t rnd(uint32_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 17;
  *x ^= *x << 5;
  return *x;
}

START_TEST(parse_survives_random_mutations) {
  static const char marks[] = "()[]{},:=%\"'\\#\n -.<>*?^0123456789e";
  uint32_t seed = 0x9e3779b9u;
  for (int i = 0; i < 4; i++) {
    size_t n;
    char *s = read_sample(SAMPLES[i], &n);
    char *m = malloc(n + 1);
    for (int round = 0; round < 1500; round++) {
      memcpy(m, s, n);
      size_t len = n;
      int edits = 1 + (int)(rnd(&seed) % 4);
      for (int e = 0; e < edits && len > 1; e++) {
        size_t at = rnd(&seed) % len;
        switch (rnd(&seed) % 3) {
        case 0: m[at] = marks[rnd(&seed) % (sizeof marks - 1)]; break;
        case 1: m[at] = (char)rnd(&seed); break;
        default: memmove(m + at, m + at + 1, len - at - 1); len--;
        }
      }
      oxp_arena *a = oxp_arena_new();
      guarded gd;
      const char *p = guard(&gd, m, len);
      oxp_graph *g;
      oxp_diag_clear(&D);
      check_outcome(oxp_parse_ir(a, "m.ir", p, len, &g, &D), SAMPLES[i],
                    (size_t)round);
      unguard(&gd);
      oxp_arena_free(a);
    }
    free(m);
    free(s);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("parser");
  TCase *t = tcase_create("valid");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, parse_graph_inputs_and_tensor_types);
  tcase_add_test(t, parse_scalar_and_container_types);
  tcase_add_test(t, parse_nodes_uses_and_outputs);
  tcase_add_test(t, parse_node_locations);
  tcase_add_test(t, parse_scope_and_source_suffixes);
  tcase_add_test(t, parse_overload_names);
  tcase_add_test(t, parse_int_and_float_attrs);
  tcase_add_test(t, parse_string_attrs_with_escapes);
  tcase_add_test(t, parse_list_attrs);
  tcase_add_test(t, parse_several_attrs_and_unmodelled_values);
  tcase_add_test(t, parse_tensor_placeholder);
  tcase_add_test(t, parse_inline_scalar_tensors);
  tcase_add_test(t, parse_inline_tensor_printouts);
  tcase_add_test(t, parse_decimals_as_strtod);
  tcase_add_test(t, parse_if_and_loop_blocks);
  tcase_add_test(t, parse_untyped_values_default_to_tensor);
  tcase_add_test(t, parse_blank_and_comment_lines);
  tcase_add_test(t, parse_real_samples);
  tcase_add_test(t, parse_real_sample_details);
  suite_add_tcase(s, t);

  t = tcase_create("malformed");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, parse_rejects_unterminated_string);
  tcase_add_test(t, parse_rejects_missing_paren);
  tcase_add_test(t, parse_rejects_bad_type);
  tcase_add_test(t, parse_rejects_undefined_value);
  tcase_add_test(t, parse_rejects_duplicate_name);
  tcase_add_test(t, parse_rejects_block_name_after_block);
  tcase_add_test(t, parse_rejects_bad_attrs);
  tcase_add_test(t, parse_rejects_bad_structure);
  tcase_add_test(t, parse_rejects_deep_nesting);
  tcase_add_test(t, parse_rejects_shape_past_int64);
  tcase_add_test(t, parse_rejects_nul_and_binary_bytes);
  suite_add_tcase(s, t);

  t = tcase_create("robust");
  tcase_set_timeout(t, 600);
  tcase_add_test(t, parse_survives_every_truncation);
  tcase_add_test(t, parse_survives_random_mutations);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return oxp_check_run(suite());
}
