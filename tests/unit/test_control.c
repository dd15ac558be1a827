/* test_control.c: lowering of scripted control flow (prim::If,
 * prim::Loop), lists as sequences, and the scoping rules of ONNX
 * subgraphs. Each test parses a small TorchScript graph, lowers it with
 * oxp_lower and the step after it (oxp_control_types) and inspects the
 * ONNX graph. */
#include <check.h>
#include "check_main.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "export.h"

#include "arena_fixture.h"

static oxp_status lower_at(const char *ir, int opset, oxp_graph **out) {
  oxp_graph *g = NULL;
  oxp_status st = oxp_parse_ir(A, "t.ir", ir, strlen(ir), &g, &D);
  ck_assert_msg(st == OXP_OK, "parse: %s", D.message);
  oxp_options o;
  oxp_options_init(&o);
  o.opset = opset;
  st = oxp_lower(g, &o, out, &D);
  return st ? st : oxp_control_types(*out, &o, &D);
}

static oxp_graph *lower_ok(const char *ir, int opset) {
  oxp_graph *out = NULL;
  oxp_status st = lower_at(ir, opset, &out);
  ck_assert_msg(st == OXP_OK, "lower: %s (line %d)", D.message, D.line);
  return out;
}

static oxp_node *find(oxp_block *b, const char *kind) {
  for (oxp_node *n = b->first; n; n = n->next)
    if (strcmp(n->kind, kind) == 0) return n;
  return NULL;
}

static int count(oxp_block *b, const char *kind, bool deep) {
  int k = 0;
  for (oxp_node *n = b->first; n; n = n->next) {
    k += strcmp(n->kind, kind) == 0;
    for (int j = 0; deep && j < n->nblocks; j++) k += count(n->blocks[j], kind, deep);
  }
  return k;
}

/* ---- scoping checker: every input is visible where it is read ------------ */

typedef struct scope scope;
struct scope {
  const oxp_block *b;
  const oxp_node *upto; /* values of b made before this node are visible */
  const scope *outer;
};

static bool defined_before(const oxp_block *b, const oxp_node *upto,
                           const oxp_value *v) {
  for (int i = 0; i < b->ninputs; i++)
    if (b->inputs[i] == v) return true;
  for (int i = 0; i < b->ninits; i++)
    if (b->inits[i] == v) return true;
  for (const oxp_node *n = b->first; n && n != upto; n = n->next)
    for (int i = 0; i < n->noutputs; i++)
      if (n->outputs[i] == v) return true;
  return false;
}

static bool visible(const scope *s, const oxp_value *v) {
  for (; s; s = s->outer)
    if (defined_before(s->b, s->upto, v)) return true;
  return false;
}

static void check_scopes(const oxp_block *b, const scope *outer) {
  for (const oxp_node *n = b->first; n; n = n->next) {
    scope here = {b, n, outer};
    for (int i = 0; i < n->ninputs; i++)
      ck_assert_msg(!n->inputs[i] || visible(&here, n->inputs[i]),
                    "%s reads %s, which is not visible there", n->kind,
                    n->inputs[i]->name ? n->inputs[i]->name : "<unnamed>");
    for (int k = 0; k < n->nblocks; k++) check_scopes(n->blocks[k], &here);
  }
  scope end = {b, NULL, outer};
  for (int i = 0; i < b->noutputs; i++) {
    ck_assert_msg(visible(&end, b->outputs[i]), "block output not visible");
    /* onnxruntime: a subgraph output must be made inside the subgraph. */
    if (b->owner)
      ck_assert_msg(b->outputs[i]->producer &&
                        b->outputs[i]->producer->owner == b,
                    "subgraph output %d of %s is not made in the subgraph", i,
                    b->owner->kind);
  }
}

/* ---- prim::If --------------------------------------------------------------- */

static const char *IF_IR =
    "graph(%x : Float(2, 3), %c : bool):\n"
    "  %two : int = prim::Constant[value=2]()\n"
    "  %one : int = prim::Constant[value=1]()\n"
    "  %y : Tensor, %z : Tensor = prim::If(%c)\n"
    "    block0():\n"
    "      %a : Tensor = aten::mul(%x, %two)\n"
    "      -> (%a, %x)\n"
    "    block1():\n"
    "      %b : Tensor = aten::add(%x, %one, %one)\n"
    "      -> (%b, %b)\n"
    "  %w : Tensor = aten::mul(%y, %two)\n"
    "  return (%w, %z)\n";

START_TEST(if_becomes_onnx_if_with_two_branches) {
  oxp_graph *g = lower_ok(IF_IR, 17);
  oxp_node *n = find(g->top, "onnx::If");
  ck_assert_ptr_nonnull(n);
  ck_assert_int_eq(n->nblocks, 2);
  ck_assert_int_eq(n->noutputs, 2);
  ck_assert_int_eq(n->blocks[0]->noutputs, 2);
  ck_assert_int_eq(n->blocks[1]->noutputs, 2);
  ck_assert_int_eq(n->blocks[0]->ninputs, 0);
  ck_assert_ptr_nonnull(find(n->blocks[0], "onnx::Mul"));
  ck_assert_ptr_nonnull(find(n->blocks[1], "onnx::Add"));
  /* The branch returning an input passes it through an Identity. */
  ck_assert_ptr_nonnull(find(n->blocks[0], "onnx::Identity"));
  /* The else branch returns one value twice: the second is a copy. */
  ck_assert_ptr_ne(n->blocks[1]->outputs[0], n->blocks[1]->outputs[1]);
  /* Element types come from the branches. */
  ck_assert_int_eq(n->outputs[0]->type->dtype, OXP_DT_FLOAT);
  ck_assert_int_eq(n->outputs[1]->type->dtype, OXP_DT_FLOAT);
  check_scopes(g->top, NULL);
}
END_TEST

/* The constant %two is read first inside the then-branch, then at the top
 * level: the top-level reader must not see a then-branch initializer. */
START_TEST(constant_cache_is_scope_aware) {
  oxp_graph *g = lower_ok(IF_IR, 17);
  check_scopes(g->top, NULL);
  oxp_node *n = find(g->top, "onnx::If");
  oxp_node *mul = NULL;
  for (oxp_node *m = g->top->first; m; m = m->next)
    if (strcmp(m->kind, "onnx::Mul") == 0) mul = m;
  ck_assert_ptr_nonnull(mul);
  ck_assert(defined_before(g->top, mul, mul->inputs[1]));
  (void)n;
}
END_TEST

/* A constant of a branch's own is read in both branches of a nested If:
 * siblings never share a subgraph's initializer. */
START_TEST(sibling_branches_do_not_share_constants) {
  const char *ir =
      "graph(%x : Float(2), %c : bool, %d : bool):\n"
      "  %y : Tensor = prim::If(%c)\n"
      "    block0():\n"
      "      %k : int = prim::Constant[value=3]()\n"
      "      %z : Tensor = prim::If(%d)\n"
      "        block0():\n"
      "          %a : Tensor = aten::mul(%x, %k)\n"
      "          -> (%a)\n"
      "        block1():\n"
      "          %b : Tensor = aten::add(%x, %k, %k)\n"
      "          -> (%b)\n"
      "      %e : Tensor = aten::mul(%z, %k)\n"
      "      -> (%e)\n"
      "    block1():\n"
      "      -> (%x)\n"
      "  return (%y)\n";
  oxp_graph *g = lower_ok(ir, 17);
  check_scopes(g->top, NULL);
  ck_assert_int_eq(count(g->top, "onnx::If", true), 2);
}
END_TEST

START_TEST(if_on_a_constant_is_folded) {
  const char *ir =
      "graph(%x : Float(2)):\n"
      "  %t : bool = prim::Constant[value=0]()\n"
      "  %two : int = prim::Constant[value=2]()\n"
      "  %one : int = prim::Constant[value=1]()\n"
      "  %y : Tensor = prim::If(%t)\n"
      "    block0():\n"
      "      %a : Tensor = aten::mul(%x, %two)\n"
      "      -> (%a)\n"
      "    block1():\n"
      "      %b : Tensor = aten::add(%x, %two, %one)\n"
      "      -> (%b)\n"
      "  return (%y)\n";
  oxp_graph *g = lower_ok(ir, 13);
  ck_assert_int_eq(count(g->top, "onnx::If", true), 0);
  ck_assert_ptr_nonnull(find(g->top, "onnx::Add"));
  ck_assert_ptr_null(find(g->top, "onnx::Mul"));
}
END_TEST

/* A condition that becomes a constant only when lowered (a None test). */
START_TEST(if_on_a_lowered_constant_is_folded) {
  const char *ir =
      "graph(%x : Float(2)):\n"
      "  %none : NoneType = prim::Constant()\n"
      "  %two : int = prim::Constant[value=2]()\n"
      "  %c : bool = aten::__isnot__(%x, %none)\n"
      "  %y : Tensor = prim::If(%c)\n"
      "    block0():\n"
      "      %a : Tensor = aten::mul(%x, %two)\n"
      "      -> (%a)\n"
      "    block1():\n"
      "      -> (%x)\n"
      "  return (%y)\n";
  oxp_graph *g = lower_ok(ir, 17);
  ck_assert_int_eq(count(g->top, "onnx::If", true), 0);
  ck_assert_ptr_nonnull(find(g->top, "onnx::Mul"));
}
END_TEST

/* ---- prim::Loop ------------------------------------------------------------ */

START_TEST(for_loop_maps_trip_count_condition_and_carried) {
  const char *ir =
      "graph(%x : Float(3), %n : int):\n"
      "  %t : bool = prim::Constant[value=1]()\n"
      "  %one : int = prim::Constant[value=1]()\n"
      "  %z : int = prim::Constant[value=0]()\n"
      "  %acc : Tensor, %k : int = prim::Loop(%n, %t, %x, %z)\n"
      "    block0(%i : int, %a : Tensor, %kk : int):\n"
      "      %b : Tensor = aten::mul(%a, %i)\n"
      "      %k2 : int = aten::add(%kk, %one)\n"
      "      -> (%t, %b, %k2)\n"
      "  return (%acc, %k)\n";
  oxp_graph *g = lower_ok(ir, 17);
  oxp_node *l = find(g->top, "onnx::Loop");
  ck_assert_ptr_nonnull(l);
  ck_assert_int_eq(l->ninputs, 4); /* M, cond, x, 0 */
  ck_assert_ptr_eq(l->inputs[0], g->top->inputs[1]);
  ck_assert_int_eq(l->noutputs, 2);
  oxp_block *body = l->blocks[0];
  ck_assert_int_eq(body->ninputs, 4);  /* iter, cond, a, kk */
  ck_assert_int_eq(body->noutputs, 3); /* cond, b, k2 */
  ck_assert_int_eq(body->inputs[0]->type->dtype, OXP_DT_INT64);
  ck_assert_int_eq(body->inputs[0]->type->rank, 0);
  ck_assert_int_eq(body->inputs[1]->type->dtype, OXP_DT_BOOL);
  /* The int carried value is a 0-d int64 tensor. */
  ck_assert_int_eq(body->inputs[3]->type->dtype, OXP_DT_INT64);
  ck_assert_int_eq(body->inputs[3]->type->rank, 0);
  ck_assert_int_eq(l->outputs[1]->type->dtype, OXP_DT_INT64);
  /* The continue condition (an outer constant) is made in the body. */
  ck_assert_ptr_eq(body->outputs[0]->producer->owner, body);
  ck_assert_int_eq(l->outputs[0]->type->dtype, OXP_DT_FLOAT);
  check_scopes(g->top, NULL);
}
END_TEST

START_TEST(while_loop_has_no_trip_count) {
  const char *ir =
      "graph(%x : Float(3), %c0 : bool):\n"
      "  %max : int = prim::Constant[value=9223372036854775807]()\n"
      "  %two : int = prim::Constant[value=2]()\n"
      "  %y : Tensor = prim::Loop(%max, %c0, %x)\n"
      "    block0(%i : int, %a : Tensor):\n"
      "      %b : Tensor = aten::mul(%a, %two)\n"
      "      %c : bool = aten::__not__(%c0)\n"
      "      -> (%c, %b)\n"
      "  return (%y)\n";
  oxp_graph *g = lower_ok(ir, 11);
  oxp_node *l = find(g->top, "onnx::Loop");
  ck_assert_ptr_nonnull(l);
  ck_assert_ptr_null(l->inputs[0]);
  ck_assert_ptr_eq(l->inputs[1], g->top->inputs[1]);
  ck_assert_ptr_nonnull(find(l->blocks[0], "onnx::Not"));
  check_scopes(g->top, NULL);
}
END_TEST

START_TEST(range_length_and_derive_index) {
  const char *ir =
      "graph(%x : Float(5, 2), %hi : int):\n"
      "  %lo : int = prim::Constant[value=1]()\n"
      "  %st : int = prim::Constant[value=2]()\n"
      "  %t : bool = prim::Constant[value=1]()\n"
      "  %n : int = aten::__range_length(%lo, %hi, %st)\n"
      "  %y : Tensor = prim::Loop(%n, %t, %x)\n"
      "    block0(%i : int, %a : Tensor):\n"
      "      %j : int = aten::__derive_index(%i, %lo, %st)\n"
      "      %b : Tensor = aten::mul(%a, %j)\n"
      "      -> (%t, %b)\n"
      "  return (%y)\n";
  oxp_graph *g = lower_ok(ir, 9);
  /* (hi - 1 + 1) / 2, clamped at 0 with Where (Max takes ints from 12). */
  ck_assert_ptr_nonnull(find(g->top, "onnx::Where"));
  ck_assert_ptr_nonnull(find(g->top, "onnx::Div"));
  oxp_node *l = find(g->top, "onnx::Loop");
  ck_assert_ptr_nonnull(find(l->blocks[0], "onnx::Add"));
  check_scopes(g->top, NULL);
}
END_TEST

/* ---- lists --------------------------------------------------------------------- */

static const char *LIST_IR =
    "graph(%x : Float(3, 2), %n : int):\n"
    "  %t : bool = prim::Constant[value=1]()\n"
    "  %z : int = prim::Constant[value=0]()\n"
    "  %ys : Tensor[] = prim::ListConstruct()\n"
    "   = prim::Loop(%n, %t)\n"
    "    block0(%i : int):\n"
    "      %r : Tensor = aten::select(%x, %z, %i)\n"
    "      %u : Tensor[] = aten::append(%ys, %r)\n"
    "      -> (%t)\n"
    "  %s : Tensor = aten::stack(%ys, %z)\n"
    "  %l : int = aten::len(%ys)\n"
    "  %w : Tensor = aten::mul(%s, %l)\n"
    "  return (%w)\n";

START_TEST(list_changed_in_a_loop_is_a_carried_sequence) {
  oxp_graph *g = lower_ok(LIST_IR, 13);
  oxp_node *e = find(g->top, "onnx::SequenceEmpty");
  oxp_node *l = find(g->top, "onnx::Loop");
  ck_assert_ptr_nonnull(e);
  ck_assert_ptr_nonnull(l);
  ck_assert_int_eq(l->ninputs, 3); /* M, cond, the list */
  ck_assert_ptr_eq(l->inputs[2], e->outputs[0]);
  ck_assert_int_eq(l->noutputs, 1);
  ck_assert_int_eq(l->blocks[0]->ninputs, 3);
  ck_assert_ptr_nonnull(find(l->blocks[0], "onnx::SequenceInsert"));
  oxp_node *cat = find(g->top, "onnx::ConcatFromSequence");
  ck_assert_ptr_nonnull(cat);
  ck_assert_ptr_eq(cat->inputs[0], l->outputs[0]);
  ck_assert_int_eq(oxp_attr_get(cat, "new_axis")->i, 1);
  oxp_node *len = find(g->top, "onnx::SequenceLength");
  ck_assert_ptr_nonnull(len);
  ck_assert_ptr_eq(len->inputs[0], l->outputs[0]);
  /* The element type is learnt from what the loop appends. */
  ck_assert_int_eq(oxp_attr_get(e, "dtype")->i, OXP_DT_FLOAT);
  check_scopes(g->top, NULL);
}
END_TEST

START_TEST(list_in_a_loop_below_opset_13_is_a_named_error) {
  oxp_graph *g;
  ck_assert_int_eq(lower_at(LIST_IR, 11, &g), OXP_ERR_UNSUPPORTED);
  ck_assert_msg(strstr(D.message, "which need opset 13") != NULL, "%s", D.message);
  ck_assert_ptr_nonnull(strstr(D.message, "%ys"));
  ck_assert_int_eq(D.line, 5); /* the prim::Loop line */
}
END_TEST

START_TEST(static_list_ops_stay_static) {
  const char *ir =
      "graph(%x : Float(2), %y : Float(2)):\n"
      "  %z : int = prim::Constant[value=0]()\n"
      "  %m : int = prim::Constant[value=-1]()\n"
      "  %l : Tensor[] = prim::ListConstruct(%x)\n"
      "  %u : Tensor[] = aten::append(%l, %y)\n"
      "   = aten::insert(%l, %z, %y)\n"
      "  %p : Tensor = aten::pop(%l, %m)\n"
      "  %n : int = aten::len(%l)\n"
      "  %g : Tensor = aten::__getitem__(%l, %z)\n"
      "  %s : Tensor = aten::cat(%l, %z)\n"
      "  %w : Tensor = aten::mul(%s, %n)\n"
      "  return (%w, %p, %g)\n";
  /* At opset 9: no sequence op, the list is a pack of values. */
  oxp_graph *g = lower_ok(ir, 9);
  ck_assert_int_eq(count(g->top, "onnx::SequenceInsert", true), 0);
  oxp_node *cat = find(g->top, "onnx::Concat");
  ck_assert_ptr_nonnull(cat);
  ck_assert_int_eq(cat->ninputs, 2); /* [y, x] after insert, append, pop */
  ck_assert_ptr_eq(cat->inputs[0], g->top->inputs[1]);
  ck_assert_ptr_eq(cat->inputs[1], g->top->inputs[0]);
}
END_TEST

START_TEST(list_changed_in_a_branch_is_an_if_output) {
  const char *ir =
      "graph(%x : Float(2), %c : bool):\n"
      "  %z : int = prim::Constant[value=0]()\n"
      "  %l : Tensor[] = prim::ListConstruct(%x)\n"
      "   = prim::If(%c)\n"
      "    block0():\n"
      "      %u : Tensor[] = aten::append(%l, %x)\n"
      "      -> ()\n"
      "    block1():\n"
      "      -> ()\n"
      "  %s : Tensor = aten::cat(%l, %z)\n"
      "  return (%s)\n";
  oxp_graph *g = lower_ok(ir, 17);
  oxp_node *n = find(g->top, "onnx::If");
  ck_assert_ptr_nonnull(n);
  ck_assert_int_eq(n->noutputs, 1);
  ck_assert_int_eq(n->outputs[0]->type->kind, OXP_T_SEQUENCE);
  oxp_node *cat = find(g->top, "onnx::ConcatFromSequence");
  ck_assert_ptr_eq(cat->inputs[0], n->outputs[0]);
  check_scopes(g->top, NULL);
}
END_TEST

/* ---- errors ------------------------------------------------------------------- */

START_TEST(unsupported_construct_names_itself_and_its_line) {
  const char *ir =
      "graph(%x : Float(3, 2), %n : int):\n"
      "  %t : bool = prim::Constant[value=1]()\n"
      "  %z : int = prim::Constant[value=0]()\n"
      "  %a : Tensor[] = prim::ListConstruct()\n"
      "  %b : Tensor[] = prim::ListConstruct()\n"
      "   = prim::Loop(%n, %t)\n"
      "    block0(%i : int):\n"
      "      %r : Tensor = aten::select(%x, %z, %i)\n"
      "      %u : Tensor[] = aten::append(%a, %r)\n"
      "      %v : Tensor[] = aten::append(%b, %r)\n"
      "      -> (%t)\n"
      "  %c : Tensor[] = aten::add(%a, %b)\n"
      "  %s : Tensor = aten::stack(%c, %z)\n"
      "  return (%s)\n";
  oxp_graph *g;
  ck_assert_int_eq(lower_at(ir, 17, &g), OXP_ERR_UNSUPPORTED);
  ck_assert_str_eq(D.op, "aten::add");
  ck_assert_int_eq(D.line, 12);
  ck_assert_ptr_nonnull(strstr(D.message, "both built at run time"));
}
END_TEST

START_TEST(if_branches_of_different_types_fail) {
  const char *ir =
      "graph(%x : Float(2), %c : bool):\n"
      "  %two : int = prim::Constant[value=2]()\n"
      "  %y : Tensor = prim::If(%c)\n"
      "    block0():\n"
      "      -> (%x)\n"
      "    block1():\n"
      "      %k : Tensor = prim::NumToTensor(%two)\n"
      "      -> (%k)\n"
      "  return (%y)\n";
  oxp_graph *g;
  ck_assert_int_eq(lower_at(ir, 17, &g), OXP_ERR_UNSUPPORTED);
  ck_assert_ptr_nonnull(strstr(D.message, "ONNX If needs one element type"));
  ck_assert_int_eq(D.line, 3);
}
END_TEST

/* ---- module attributes ---------------------------------------------------------- */

START_TEST(getattr_inside_a_loop_reads_the_lifted_parameter) {
  const char *ir =
      "graph(%x : Float(1, 2), %fc.weight : Float(2, 2), %n : int):\n"
      "  %self : __torch__.M = prim::CreateObject()\n"
      "  %t : bool = prim::Constant[value=1]()\n"
      "  %y : Tensor = prim::Loop(%n, %t, %x)\n"
      "    block0(%i : int, %h : Tensor):\n"
      "      %fc : __torch__.Linear = prim::GetAttr[name=\"fc\"](%self)\n"
      "      %w : Tensor = prim::GetAttr[name=\"weight\"](%fc)\n"
      "      %h2 : Tensor = aten::matmul(%h, %w)\n"
      "      -> (%t, %h2)\n"
      "  return (%y)\n";
  oxp_graph *g = lower_ok(ir, 17);
  oxp_node *l = find(g->top, "onnx::Loop");
  oxp_node *mm = find(l->blocks[0], "onnx::MatMul");
  ck_assert_ptr_nonnull(mm);
  ck_assert_ptr_eq(mm->inputs[1], g->top->inputs[1]);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("control");
  TCase *t = tcase_create("if");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, if_becomes_onnx_if_with_two_branches);
  tcase_add_test(t, constant_cache_is_scope_aware);
  tcase_add_test(t, sibling_branches_do_not_share_constants);
  tcase_add_test(t, if_on_a_constant_is_folded);
  tcase_add_test(t, if_on_a_lowered_constant_is_folded);
  suite_add_tcase(s, t);
  t = tcase_create("loop");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, for_loop_maps_trip_count_condition_and_carried);
  tcase_add_test(t, while_loop_has_no_trip_count);
  tcase_add_test(t, range_length_and_derive_index);
  tcase_add_test(t, getattr_inside_a_loop_reads_the_lifted_parameter);
  suite_add_tcase(s, t);
  t = tcase_create("lists");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, list_changed_in_a_loop_is_a_carried_sequence);
  tcase_add_test(t, list_in_a_loop_below_opset_13_is_a_named_error);
  tcase_add_test(t, static_list_ops_stay_static);
  tcase_add_test(t, list_changed_in_a_branch_is_an_if_output);
  suite_add_tcase(s, t);
  t = tcase_create("errors");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, unsupported_construct_names_itself_and_its_line);
  tcase_add_test(t, if_branches_of_different_types_fail);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return oxp_check_run(suite());
}
