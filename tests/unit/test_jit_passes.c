/* test_jit_passes.c: the TorchScript-level passes (jit_*.c,
 * type_promotion.c) on parsed IR text. */
#include "check_main.h"
#include "pass_util.h"
#include "functionalize.h"

static const char *ts_str(void) { return pu_str(G->top); }

START_TEST(inplace_ops_become_pure_and_aliases_follow) {
  pu_parse("graph(%x : Float(2, 3), %y : Float(2, 3)):\n"
           "  %one : int = prim::Constant[value=1]()\n"
           "  %a : Float(2, 3) = aten::add_(%x, %y, %one)\n"
           "  %r : Float(2, 3) = aten::relu_(%x)\n"
           "  %m : Float(2, 3) = aten::mul(%x, %a)\n"
           "  return (%m, %x)\n");
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_jit_functionalize(G, NULL, &d), OXP_OK);
  /* After add_, %x is %a; after relu_, %x is %r: mul reads %r twice. */
  ck_assert_str_eq(ts_str(), "Constant()->one; add(x,y,one)->a; relu(a)->r; mul(r,r)->m");
  ck_assert_str_eq(G->top->outputs[1]->name, "r");
}
END_TEST

START_TEST(copy_of_same_type_is_the_source) {
  pu_parse("graph(%x : Float(2, 3), %y : Float(2, 3)):\n"
           "  %f : bool = prim::Constant[value=0]()\n"
           "  %c : Float(2, 3) = aten::copy_(%x, %y, %f)\n"
           "  %z : Float(2, 3) = aten::neg(%x)\n"
           "  return (%z)\n");
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_jit_functionalize(G, NULL, &d), OXP_OK);
  ck_assert_int_eq(oxp_jit_dce(G, &d), OXP_OK);
  ck_assert_str_eq(ts_str(), "neg(y)->z");
}
END_TEST

START_TEST(view_table_is_sorted) {
  ck_assert(oxp_alias_table_sorted());
}
END_TEST

START_TEST(write_through_a_view_lands_in_its_base) {
  pu_parse("graph(%x : Float(6)):\n"
           "  %s : int[] = prim::Constant[value=[2, 3]]()\n"
           "  %v : Float(2, 3) = aten::view(%x, %s)\n"
           "  %r : Float(2, 3) = aten::relu_(%v)\n"
           "  %z : Float(6) = aten::neg(%x)\n"
           "  return (%r, %z)\n");
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_jit_functionalize(G, NULL, &d), OXP_OK);
  ck_assert_int_eq(oxp_jit_dce(G, &d), OXP_OK);
  /* x's new value is relu(v) seen as x; neg reads it. */
  ck_assert_str_eq(ts_str(), "Constant()->s; view(x,s)->v; relu(v)->r; view_as(r,x)->?; neg(?)->z");
}
END_TEST

START_TEST(write_through_a_chain_of_views_reaches_the_root) {
  /* y = x.clone(); y[:, 0] = 0: select of slice, then fill_ */
  pu_parse("graph(%x : Float(4, 6, strides=[6, 1])):\n"
           "  %n : NoneType = prim::Constant()\n"
           "  %y : Float(4, 6, strides=[6, 1]) = aten::clone(%x, %n)\n"
           "  %0 : int = prim::Constant[value=0]()\n"
           "  %1 : int = prim::Constant[value=1]()\n"
           "  %m : int = prim::Constant[value=9223372036854775807]()\n"
           "  %a : Float(4, 6) = aten::slice(%y, %0, %0, %m, %1)\n"
           "  %b : Float(4) = aten::select(%a, %1, %0)\n"
           "  %f : Float(4) = aten::fill_(%b, %0)\n"
           "  return (%y)\n");
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_jit_functionalize(G, NULL, &d), OXP_OK);
  ck_assert_int_eq(oxp_jit_dce(G, &d), OXP_OK);
  const char *s = ts_str();
  ck_assert_msg(strstr(s, "full_like(b,0)->f") && strstr(s, "select_scatter(a,f,1,0)") &&
                    strstr(s, "slice_scatter(y,"), "%s", s);
  ck_assert_ptr_ne(G->top->outputs[0]->producer, NULL);
  ck_assert_str_eq(G->top->outputs[0]->producer->kind, "aten::slice_scatter");
}
END_TEST

START_TEST(write_in_a_loop_is_carried) {
  pu_parse("graph(%x : Float(5), %n : int):\n"
           "  %t : bool = prim::Constant[value=1]()\n"
           "  %0 : int = prim::Constant[value=0]()\n"
           "  %f : bool = prim::Constant[value=0]()\n"
           "  %acc : Float(5) = aten::zeros_like(%x)\n"
           "   = prim::Loop(%n, %t)\n"
           "    block0(%i : int):\n"
           "      %s : Tensor = aten::select(%acc, %0, %i)\n"
           "      %v : Tensor = aten::select(%x, %0, %i)\n"
           "      %c : Tensor = aten::copy_(%s, %v, %f)\n"
           "      -> (%t)\n"
           "  return (%acc)\n");
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_jit_functionalize(G, NULL, &d), OXP_OK);
  oxp_node *loop = G->top->last;
  ck_assert_str_eq(loop->kind, "prim::Loop");
  ck_assert_int_eq(loop->noutputs, 1);
  ck_assert_int_eq(loop->ninputs, 3);
  ck_assert_ptr_eq(G->top->outputs[0], loop->outputs[0]);
  ck_assert_int_eq(loop->blocks[0]->noutputs, 2);
  ck_assert_str_eq(loop->blocks[0]->outputs[1]->producer->kind, "aten::select_scatter");
}
END_TEST

START_TEST(write_in_one_branch_leaves_the_if) {
  pu_parse("graph(%x : Float(3), %c : bool):\n"
           "  %one : int = prim::Constant[value=1]()\n"
           "  %y : Float(3) = aten::clone(%x)\n"
           "   = prim::If(%c)\n"
           "    block0():\n"
           "      %a : Float(3) = aten::add_(%y, %one, %one)\n"
           "      -> ()\n"
           "    block1():\n"
           "      -> ()\n"
           "  return (%y)\n");
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_jit_functionalize(G, NULL, &d), OXP_OK);
  oxp_node *n = G->top->last;
  ck_assert_str_eq(n->kind, "prim::If");
  ck_assert_int_eq(n->noutputs, 1);
  ck_assert_ptr_eq(G->top->outputs[0], n->outputs[0]);
  ck_assert_str_eq(n->blocks[0]->outputs[0]->producer->kind, "aten::add");
  ck_assert_str_eq(n->blocks[1]->outputs[0]->producer->kind, "aten::clone");
}
END_TEST

START_TEST(write_through_an_unknowable_alias_is_refused) {
  /* reshape without printed strides may copy or alias */
  pu_parse("graph(%x : Float(2, 3)):\n"
           "  %s : int[] = prim::Constant[value=[6]]()\n"
           "  %v : Tensor = aten::reshape(%x, %s)\n"
           "  %r : Tensor = aten::relu_(%v)\n"
           "  %z : Float(2, 3) = aten::neg(%x)\n"
           "  return (%r, %z)\n");
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_jit_functionalize(G, NULL, &d), OXP_ERR_UNSUPPORTED);
  ck_assert_msg(strstr(d.message, "%x") != NULL, "%s", d.message);
  ck_assert_int_eq(d.line, 5);
}
END_TEST

START_TEST(tuples_and_lists_vanish) {
  pu_parse("graph(%x : Float(2), %y : Float(2)):\n"
           "  %t : (Float(2), Float(2)) = prim::TupleConstruct(%x, %y)\n"
           "  %a : Float(2), %b : Float(2) = prim::TupleUnpack(%t)\n"
           "  %l : Tensor[] = prim::ListConstruct(%b, %a)\n"
           "  %i : int = prim::Constant[value=-1]()\n"
           "  %e : Float(2) = aten::__getitem__(%l, %i)\n"
           "  %z : Float(2) = aten::sub(%e, %b, %i)\n"
           "  return (%z)\n");
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_jit_lower_tuples(G, &d), OXP_OK);
  ck_assert_int_eq(oxp_jit_dce(G, &d), OXP_OK);
  ck_assert_str_eq(ts_str(), "Constant()->i; sub(x,y,i)->z");
}
END_TEST

START_TEST(constants_propagate_and_if_folds) {
  pu_parse("graph(%x : Float(2)):\n"
           "  %two : int = prim::Constant[value=2]()\n"
           "  %three : int = prim::Constant[value=3]()\n"
           "  %s : int = aten::mul(%two, %three)\n"
           "  %c : bool = aten::gt(%s, %three)\n"
           "  %y : Float(2) = prim::If(%c)\n"
           "    block0():\n"
           "      %p : Float(2) = aten::relu(%x)\n"
           "      -> (%p)\n"
           "    block1():\n"
           "      %q : Float(2) = aten::neg(%x)\n"
           "      -> (%q)\n"
           "  %z : Float(2) = aten::mul(%y, %s)\n"
           "  return (%z)\n");
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_jit_constprop(G, &d), OXP_OK);
  ck_assert_int_eq(oxp_jit_dce(G, &d), OXP_OK);
  ck_assert_str_eq(ts_str(), "Constant()->s; relu(x)->p; mul(p,s)->z");
  oxp_node *k = G->top->last->inputs[1]->producer;
  ck_assert_int_eq(oxp_attr_get(k, "value")->i, 6);
}
END_TEST

START_TEST(static_sizes_fold_unless_dynamic) {
  const char *ir = "graph(%x : Float(4, 8)):\n"
                   "  %one : int = prim::Constant[value=1]()\n"
                   "  %zero : int = prim::Constant[value=0]()\n"
                   "  %n : int = aten::size(%x, %one)\n"
                   "  %b : int = aten::size(%x, %zero)\n"
                   "  %l : int[] = prim::ListConstruct(%b, %n)\n"
                   "  %y : Float(4, 8) = aten::view(%x, %l)\n"
                   "  return (%y)\n";
  pu_parse(ir);
  oxp_options o = pu_opts();
  oxp_dyn_axis ax = {"x", 0, "batch"};
  o.dynamic_axes = &ax;
  o.n_dynamic_axes = 1;
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_jit_peephole_size(G, &o, &d), OXP_OK);
  ck_assert_int_eq(oxp_jit_dce(G, &d), OXP_OK);
  /* dim 1 is fixed, dim 0 is the dynamic batch */
  ck_assert_str_eq(ts_str(), "Constant()->zero; Constant()->n; size(x,zero)->b; "
                             "ListConstruct(b,n)->l; view(x,l)->y");
}
END_TEST

START_TEST(scripted_types_get_promoted) {
  pu_parse("graph(%x : Tensor, %i : Long(3)):\n"
           "  %one : int = prim::Constant[value=1]()\n"
           "  %h : float = prim::Constant[value=0.5]()\n"
           "  %a : Tensor = aten::add(%i, %one, %one)\n"
           "  %b : Tensor = aten::mul(%a, %h)\n"
           "  %c : Tensor = aten::div(%a, %one)\n"
           "  %e : Tensor = aten::lt(%b, %c)\n"
           "  return (%a, %b, %c, %e)\n");
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_type_promotion(G, &d), OXP_OK);
  oxp_block *t = G->top;
  ck_assert_int_eq(t->outputs[0]->type->dtype, OXP_DT_INT64);
  ck_assert_int_eq(t->outputs[1]->type->dtype, OXP_DT_FLOAT);
  ck_assert_int_eq(t->outputs[2]->type->dtype, OXP_DT_FLOAT);
  ck_assert_int_eq(t->outputs[3]->type->dtype, OXP_DT_BOOL);
}
END_TEST

START_TEST(rounded_div_and_integer_sums_keep_integers) {
  pu_parse("graph(%i : Long(3), %m : Bool(3)):\n"
           "  %three : int = prim::Constant[value=3]()\n"
           "  %mode : str = prim::Constant[value=\"floor\"]()\n"
           "  %none : NoneType = prim::Constant()\n"
           "  %q : Tensor = aten::div(%i, %three, %mode)\n"
           "  %s : Tensor = aten::sum(%m, %none)\n"
           "  return (%q, %s)\n");
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_type_promotion(G, &d), OXP_OK);
  ck_assert_int_eq(G->top->outputs[0]->type->dtype, OXP_DT_INT64);
  ck_assert_int_eq(G->top->outputs[1]->type->dtype, OXP_DT_INT64);
}
END_TEST

START_TEST(dce_keeps_side_effects) {
  pu_parse("graph(%x : Float(2)):\n"
           "  %a : Float(2) = aten::relu(%x)\n"
           "  %b : Float(2) = aten::neg(%a)\n"
           "   = prim::Print(%x)\n"
           "  return (%x)\n");
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_jit_dce(G, &d), OXP_OK);
  ck_assert_str_eq(ts_str(), "Print(x)->?");
}
END_TEST

/* A list a loop appends to has no constant length (the bug: len folded
 * to the ListConstruct's 0 inputs). */
START_TEST(len_of_mutated_list_stays) {
  pu_parse("graph(%x : Float(2)):\n"
           "  %t : bool = prim::Constant[value=1]()\n"
           "  %n : int = prim::Constant[value=3]()\n"
           "  %l : Tensor[] = prim::ListConstruct()\n"
           "   = prim::Loop(%n, %t)\n"
           "    block0(%i : int):\n"
           "      %a : Tensor[] = aten::append(%l, %x)\n"
           "      -> (%t)\n"
           "  %k : int = aten::len(%l)\n"
           "  %y : Float(2) = aten::mul(%x, %k)\n"
           "  return (%y)\n");
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_jit_constprop(G, &d), OXP_OK);
  ck_assert_int_eq(oxp_jit_lower_tuples(G, &d), OXP_OK);
  ck_assert_int_eq(oxp_jit_dce(G, &d), OXP_OK);
  ck_assert_str_eq(ts_str(), "Constant()->t; Constant()->n; ListConstruct()->l; "
                             "Loop(n,t)->?; len(l)->k; mul(x,k)->y");
}
END_TEST

/* aten::Delete has no outputs: it exists for its effect on the list, so
 * DCE keeps it and the list's later length is not the constructed one. */
START_TEST(list_delete_is_kept) {
  pu_parse("graph(%x : Float(2)):\n"
           "  %z : int = prim::Constant[value=0]()\n"
           "  %l : Tensor[] = prim::ListConstruct(%x, %x)\n"
           "   = aten::Delete(%l, %z)\n"
           "  %k : int = aten::len(%l)\n"
           "  return (%k)\n");
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_jit_constprop(G, &d), OXP_OK);
  ck_assert_int_eq(oxp_jit_dce(G, &d), OXP_OK);
  ck_assert_str_eq(ts_str(), "Constant()->z; ListConstruct(x,x)->l; Delete(l,z)->?; len(l)->k");
}
END_TEST

/* ---- jit_infer_types.c ------------------------------------------------------ */

static int dtype_of(const char *name) {
  for (oxp_node *n = G->top->first; n; n = n->next)
    for (int i = 0; i < n->noutputs; i++)
      if (n->outputs[i]->name && strcmp(n->outputs[i]->name, name) == 0)
        return n->outputs[i]->type && n->outputs[i]->type->kind == OXP_T_TENSOR
                   ? n->outputs[i]->type->dtype : -1;
  return -2;
}

static void infer(void) {
  oxp_options o = pu_opts();
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_jit_infer_types(G, &o, &d), OXP_OK);
  ck_assert_int_eq(oxp_type_promotion(G, &d), OXP_OK);
}

/* nn.TransformerEncoderLayer's fast-path test: str(x.device).find("cpu")
 * and all() over a bool list built by append fold; the If takes the
 * fast path and the list with its appends goes. */
START_TEST(fast_path_test_folds) {
  pu_parse("graph(%x : Float(2, 3)):\n"
           "  %cpu : str = prim::Constant[value=\"cpu\"]()\n"
           "  %z : int = prim::Constant[value=0]()\n"
           "  %m1 : int = prim::Constant[value=-1]()\n"
           "  %l : bool[] = prim::ListConstruct()\n"
           "  %dev : Device = prim::device(%x)\n"
           "  %s : str = aten::str(%dev)\n"
           "  %n : int = aten::len(%s)\n"
           "  %f : int = aten::find(%s, %cpu, %z, %n)\n"
           "  %ok : bool = aten::ne(%f, %m1)\n"
           "  %a1 : bool[] = aten::append(%l, %ok)\n"
           "  %same : bool = aten::__isnot__(%x, %x)\n"
           "  %ns : bool = aten::__not__(%same)\n"
           "  %a2 : bool[] = aten::append(%l, %ns)\n"
           "  %all : bool = aten::all(%l)\n"
           "  %y : Tensor = prim::If(%all)\n"
           "    block0():\n"
           "      %r : Tensor = aten::relu(%x)\n"
           "      -> (%r)\n"
           "    block1():\n"
           "      %g : Tensor = aten::neg(%x)\n"
           "      -> (%g)\n"
           "  return (%y)\n");
  infer();
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_jit_dce(G, &d), OXP_OK);
  ck_assert_str_eq(ts_str(), "relu(x)->r");
}
END_TEST

/* swin's shift_size.copy() patched in straight-line code: the writes
 * become new lists and the sum after them folds; a list a tuple holds
 * before the write keeps its write (the tuple would see it). */
START_TEST(list_writes_become_lists_unless_stored) {
  pu_parse("graph(%x : Float(8)):\n"
           "  %attr : int[] = prim::Constant[value=[3, 3]]()\n"
           "  %z : int = prim::Constant[value=0]()\n"
           "  %one : int = prim::Constant[value=1]()\n"
           "  %c : int[] = aten::copy(%attr)\n"
           "  %w : int[] = aten::_set_item(%c, %one, %z)\n"
           "  %s : int = aten::sum(%c)\n"
           "  %k : int = aten::__getitem__(%c, %z)\n"
           "  %l : int[] = prim::ListConstruct(%z, %one)\n"
           "  %t : (int[], int) = prim::TupleConstruct(%l, %one)\n"
           "  %w2 : int[] = aten::_set_item(%l, %z, %one)\n"
           "  %s2 : int = aten::sum(%l)\n"
           "  return (%s, %k, %t, %s2)\n");
  infer();
  ck_assert_str_eq(G->top->outputs[0]->producer->kind, "prim::Constant");
  ck_assert_int_eq(oxp_attr_get(G->top->outputs[0]->producer, "value")->i, 3);
  ck_assert_int_eq(oxp_attr_get(G->top->outputs[1]->producer, "value")->i, 3);
  ck_assert_str_eq(G->top->outputs[3]->producer->kind, "aten::sum");
  bool kept = false;
  for (oxp_node *n = G->top->first; n; n = n->next) kept |= oxp_kind_is(n, "aten::_set_item");
  ck_assert(kept);
}
END_TEST

/* `a is b` folds only when the two are surely different objects: a new
 * view is not its base, two graph inputs differ; contiguous() may be its
 * input, and a list element may be anything put in the list. */
START_TEST(identity_tests_fold_only_when_sure) {
  pu_parse("graph(%x : Float(2, 3), %y : Float(2, 3)):\n"
           "  %z : int = prim::Constant[value=0]()\n"
           "  %s : int[] = prim::Constant[value=[3, 2]]()\n"
           "  %v : Tensor = aten::view(%x, %s)\n"
           "  %c : Tensor = aten::contiguous(%x, %z)\n"
           "  %l : Tensor[] = prim::ListConstruct(%x, %y)\n"
           "  %e : Tensor = aten::__getitem__(%l, %z)\n"
           "  %b1 : bool = aten::__is__(%v, %x)\n"
           "  %b2 : bool = aten::__isnot__(%x, %y)\n"
           "  %b3 : bool = aten::__is__(%c, %x)\n"
           "  %b4 : bool = aten::__is__(%c, %y)\n"
           "  %m : Tensor[] = prim::ListConstruct()\n"
           "  %a : Tensor[] = aten::append(%m, %y)\n"
           "  %f : Tensor = aten::__getitem__(%m, %z)\n"
           "  %b5 : bool = aten::__is__(%f, %y)\n"
           "  return (%b1, %b2, %b3, %b4, %b5, %l)\n");
  infer();
  const char *kinds[5] = {"prim::Constant", "prim::Constant", "aten::__is__", "prim::Constant",
                          "aten::__is__"};
  int values[5] = {0, 1, -1, 0, -1};
  for (int i = 0; i < 5; i++) {
    oxp_node *p = G->top->outputs[i]->producer;
    ck_assert_str_eq(p->kind, kinds[i]);
    if (values[i] >= 0) ck_assert_int_eq(oxp_attr_get(p, "value")->i, values[i]);
  }
}
END_TEST

/* The bug of issue 18: a scripted torch.stack(outs).sum(0) over floats
 * was exported as int64, because the sum of an untyped input was taken
 * for a sum of integers. */
START_TEST(stacked_float_sum_stays_float) {
  pu_parse("graph(%x : Float(3)):\n"
           "  %dims : int[] = prim::Constant[value=[0]]()\n"
           "  %z : int = prim::Constant[value=0]()\n"
           "  %f : bool = prim::Constant[value=0]()\n"
           "  %none : NoneType = prim::Constant()\n"
           "  %h : float = prim::Constant[value=0.5]()\n"
           "  %a : Tensor = aten::mul(%x, %h)\n"
           "  %l : Tensor[] = prim::ListConstruct(%a, %x)\n"
           "  %s : Tensor = aten::stack(%l, %z)\n"
           "  %r : Tensor = aten::sum(%s, %dims, %f, %none)\n"
           "  return (%r)\n");
  infer();
  ck_assert_int_eq(dtype_of("s"), OXP_DT_FLOAT);
  ck_assert_int_eq(dtype_of("r"), OXP_DT_FLOAT);
  ck_assert_int_eq(G->top->outputs[0]->type->rank, 1);
  ck_assert_int_eq(G->top->outputs[0]->type->dims[0], 3);
}
END_TEST

/* What no rule knows stays unknown: no pass may pick a dtype for it. */
START_TEST(unknown_dtype_is_never_decided) {
  pu_parse("graph(%x : Float(2, 3), %y : Float(2, 3)):\n"
           "  %dims : int[] = prim::Constant[value=[0]]()\n"
           "  %f : bool = prim::Constant[value=0]()\n"
           "  %none : NoneType = prim::Constant()\n"
           "  %m : Tensor = aten::no_rule_for_this(%x, %y)\n"
           "  %r : Tensor = aten::sum(%m, %dims, %f, %none)\n"
           "  %q : Tensor = aten::sqrt(%m)\n"
           "  %c : Tensor = aten::gt(%m, %f)\n"
           "  return (%r, %q, %c)\n");
  infer();
  ck_assert_int_eq(dtype_of("r"), 0);
  ck_assert_int_eq(dtype_of("q"), 0);
  ck_assert_int_eq(dtype_of("c"), OXP_DT_BOOL); /* comparisons are bool whatever they compare */
}
END_TEST

/* BatchNorm1d's input check: dim() is known, the raising branch goes,
 * the weight reached through GetAttr is the lifted input. */
START_TEST(input_checks_fold_and_attributes_are_inputs) {
  pu_parse("graph(%x : Float(2, 4), %bn.weight : Float(4)):\n"
           "  %self : __torch__.M = prim::CreateObject()\n"
           "  %two : int = prim::Constant[value=2]()\n"
           "  %msg : str = prim::Constant[value=\"expected 2D input (got {}D input)\"]()\n"
           "  %bn : __torch__.BN = prim::GetAttr[name=\"bn\"](%self)\n"
           "  %w : Tensor = prim::GetAttr[name=\"weight\"](%bn)\n"
           "  %d : int = aten::dim(%x)\n"
           "  %ne : bool = aten::ne(%d, %two)\n"
           "   = prim::If(%ne)\n"
           "    block0():\n"
           "      %s : str = aten::format(%msg, %d)\n"
           "       = prim::RaiseException(%s)\n"
           "      -> ()\n"
           "    block1():\n"
           "      -> ()\n"
           "  %dt : int = prim::dtype(%w)\n"
           "  %y : Tensor = aten::mul(%x, %w)\n"
           "  return (%y, %dt)\n");
  infer();
  oxp_diag d = {0};
  ck_assert_int_eq(oxp_jit_dce(G, &d), OXP_OK);
  ck_assert_str_eq(ts_str(), "Constant()->dt; mul(x,bn.weight)->y");
  ck_assert_int_eq(dtype_of("y"), OXP_DT_FLOAT);
  ck_assert_int_eq(oxp_attr_get(G->top->first, "value")->i, 6); /* torch.float32 */
}
END_TEST

/* A loop-carried tensor keeps the dims that hold on every trip only. */
START_TEST(loop_carried_types_hold_on_every_trip) {
  pu_parse("graph(%x : Float(2, 3), %n : int):\n"
           "  %t : bool = prim::Constant[value=1]()\n"
           "  %z : int = prim::Constant[value=0]()\n"
           "  %l : Tensor[] = prim::ListConstruct(%x, %x)\n"
           "  %y : Tensor = prim::Loop(%n, %t, %x)\n"
           "    block0(%i : int, %c : Tensor):\n"
           "      %l2 : Tensor[] = prim::ListConstruct(%c, %x)\n"
           "      %c2 : Tensor = aten::cat(%l2, %z)\n"
           "      -> (%t, %c2)\n"
           "  return (%y)\n");
  infer();
  const oxp_type *t = G->top->outputs[0]->type;
  ck_assert_int_eq(t->dtype, OXP_DT_FLOAT);
  ck_assert_int_eq(t->rank, 2);
  ck_assert_int_eq(t->dims[0], -1); /* grows every trip */
  ck_assert_int_eq(t->dims[1], 3);
}
END_TEST

int main(void) {
  Suite *s = suite_create("jit_passes");
  TCase *t = tcase_create("core");
  tcase_add_checked_fixture(t, pu_setup, pu_teardown);
  tcase_add_test(t, inplace_ops_become_pure_and_aliases_follow);
  tcase_add_test(t, rounded_div_and_integer_sums_keep_integers);
  tcase_add_test(t, copy_of_same_type_is_the_source);
  tcase_add_test(t, view_table_is_sorted);
  tcase_add_test(t, write_through_a_view_lands_in_its_base);
  tcase_add_test(t, write_through_a_chain_of_views_reaches_the_root);
  tcase_add_test(t, write_in_a_loop_is_carried);
  tcase_add_test(t, write_in_one_branch_leaves_the_if);
  tcase_add_test(t, write_through_an_unknowable_alias_is_refused);
  tcase_add_test(t, tuples_and_lists_vanish);
  tcase_add_test(t, constants_propagate_and_if_folds);
  tcase_add_test(t, static_sizes_fold_unless_dynamic);
  tcase_add_test(t, scripted_types_get_promoted);
  tcase_add_test(t, dce_keeps_side_effects);
  tcase_add_test(t, len_of_mutated_list_stays);
  tcase_add_test(t, list_delete_is_kept);
  tcase_add_test(t, stacked_float_sum_stays_float);
  tcase_add_test(t, fast_path_test_folds);
  tcase_add_test(t, list_writes_become_lists_unless_stored);
  tcase_add_test(t, identity_tests_fold_only_when_sure);
  tcase_add_test(t, unknown_dtype_is_never_decided);
  tcase_add_test(t, input_checks_fold_and_attributes_are_inputs);
  tcase_add_test(t, loop_carried_types_hold_on_every_trip);
  suite_add_tcase(s, t);
  return oxp_check_run(s);
}
