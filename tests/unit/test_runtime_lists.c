/* test_runtime_lists.c: int-list arguments known only at run time
 * (src/symbolic/sym_ilist.c). Each form is a small traced graph whose
 * list is built from aten::size results (and arithmetic on them), as
 * torch prints F.interpolate(x, size=y.shape[-2:]), F.pad with amounts
 * computed from shapes, torch.split by sizes, expand and reshape to
 * sizes, and torch.chunk of a dynamic dim. Exported through the whole pipeline at opsets 11, 13, 17, 21:
 * with static shapes the list is folded to the exact constant the op
 * reads; with a dynamic axis feeding it the op reads a computed tensor
 * and the output's dim is the axis's name. Where ONNX needs the list at
 * export time, the error names the argument. */
#include <check.h>
#include "check_main.h"
#include <stdio.h>
#include <string.h>

#include "export.h"

#include "arena_fixture.h"

#define SHAPES "graph(%x : Float(1, 3, 5, 6), %y : Float(1, 2, 7, 6)):\n"

/* sizes as the tracer prints them: size -> NumToTensor -> Int */
#define SIZE(v, t, d)                                        \
  "  %" v "d : int = prim::Constant[value=" d "]()\n"       \
  "  %" v "s : int = aten::size(%" t ", %" v "d)\n"         \
  "  %" v "t : Long(device=cpu) = prim::NumToTensor(%" v "s)\n" \
  "  %" v " : int = aten::Int(%" v "t)\n"

static const char *const interp_ir = SHAPES SIZE("h", "y", "2") SIZE("w", "y", "3")
    "  %l : int[] = prim::ListConstruct(%h, %w)\n"
    "  %f : bool = prim::Constant[value=0]()\n"
    "  %n : NoneType = prim::Constant()\n"
    "  %o : Float(1, 3, 7, 6) = aten::upsample_bilinear2d(%x, %l, %f, %n)\n"
    "  return (%o)\n";

static const char *const nearest_ir = SHAPES SIZE("h", "y", "2") SIZE("w", "y", "3")
    "  %l : int[] = prim::ListConstruct(%h, %w)\n"
    "  %n : NoneType = prim::Constant()\n"
    "  %o : Float(1, 3, 7, 6) = aten::upsample_nearest2d(%x, %l, %n)\n"
    "  return (%o)\n";

/* F.pad(x, (0, w % 4, 1, (4 - h % 4) % 4)), h from x, w from y */
static const char *const pad_ir = SHAPES
    "  %2 : int = prim::Constant[value=2]()\n"
    "  %3 : int = prim::Constant[value=3]()\n"
    "  %4 : int = prim::Constant[value=4]()\n"
    "  %0 : int = prim::Constant[value=0]()\n"
    "  %1 : int = prim::Constant[value=1]()\n"
    "  %hs : int = aten::size(%x, %2)\n"
    "  %h : Long(device=cpu) = prim::NumToTensor(%hs)\n"
    "  %ws : int = aten::size(%y, %3)\n"
    "  %w : Long(device=cpu) = prim::NumToTensor(%ws)\n"
    "  %a : Long(requires_grad=0, device=cpu) = aten::remainder(%w, %4)\n"
    "  %ai : int = aten::Int(%a)\n"
    "  %b : Long(requires_grad=0, device=cpu) = aten::remainder(%h, %4)\n"
    "  %c : Long(requires_grad=0, device=cpu) = aten::rsub(%b, %4, %1)\n"
    "  %e : Long(requires_grad=0, device=cpu) = aten::remainder(%c, %4)\n"
    "  %ei : int = aten::Int(%e)\n"
    "  %l : int[] = prim::ListConstruct(%0, %ai, %1, %ei)\n"
    "  %m : str = prim::Constant[value=\"constant\"]()\n"
    "  %n : NoneType = prim::Constant()\n"
    "  %o : Float(1, 3, 9, 8) = aten::pad(%x, %l, %m, %n)\n"
    "  return (%o)\n";

/* torch.split(x, [y.size(1), x.size(1) - y.size(1)], 1) */
static const char *const split_ir = SHAPES SIZE("a", "y", "1")
    "  %1 : int = prim::Constant[value=1]()\n"
    "  %cs : int = aten::size(%x, %1)\n"
    "  %c : Long(device=cpu) = prim::NumToTensor(%cs)\n"
    "  %b : Long(requires_grad=0, device=cpu) = aten::sub(%c, %at, %1)\n"
    "  %bi : int = aten::Int(%b)\n"
    "  %l : int[] = prim::ListConstruct(%a, %bi)\n"
    "  %s : Tensor[] = aten::split_with_sizes(%x, %l, %1)\n"
    "  %p : Float(1, 2, 5, 6), %q : Float(1, 1, 5, 6) = prim::ListUnpack(%s)\n"
    "  return (%p, %q)\n";

/* y.chunk(2, 2): the sizes ceil(h / 2) and the rest, from Shape when h
 * is dynamic (RAFT chunks its features on a dynamic batch) */
static const char *const chunk_ir = SHAPES
    "  %2 : int = prim::Constant[value=2]()\n"
    "  %s : Tensor[] = aten::chunk(%y, %2, %2)\n"
    "  %p : Float(1, 2, 4, 6), %q : Float(1, 2, 3, 6) = prim::ListUnpack(%s)\n"
    "  return (%p, %q)\n";

/* x[:, :1, :1].expand(y.size(0), -1, y.size(2), y.size(3)) */
static const char *const expand_ir =
    "graph(%x : Float(1, 1, 1, 6), %y : Float(1, 2, 7, 6)):\n"
    SIZE("a", "y", "0") SIZE("h", "y", "2") SIZE("w", "y", "3")
    "  %m : int = prim::Constant[value=-1]()\n"
    "  %l : int[] = prim::ListConstruct(%a, %m, %h, %w)\n"
    "  %f : bool = prim::Constant[value=0]()\n"
    "  %o : Float(1, 1, 7, 6) = aten::expand(%x, %l, %f)\n"
    "  return (%o)\n";

/* x.reshape(y.size(0), -1, y.size(3)) */
static const char *const reshape_ir = SHAPES SIZE("a", "y", "0") SIZE("w", "y", "3")
    "  %m : int = prim::Constant[value=-1]()\n"
    "  %l : int[] = prim::ListConstruct(%a, %m, %w)\n"
    "  %o : Float(1, 15, 6) = aten::reshape(%x, %l)\n"
    "  return (%o)\n";

typedef struct {
  const char *name, *ir;
  const char *op;     /* the ONNX op reading the list */
  int in;             /* its input holding the list (-1: attribute "split") */
  int64_t want[8];    /* the folded list when shapes are static */
  int nwant;
  int dyn_axis;       /* axis of y made dynamic */
  int out_axis;       /* the output axis it reaches */
  bool named;         /* ... with its name (not a function of it) */
} form;

static const form forms[] = {
    {"interpolate size", NULL, "Resize", 3, {1, 3, 7, 6}, 4, 2, 2, true},
    {"pad", NULL, "Pad", 1, {0, 0, 1, 0, 0, 0, 3, 2}, 8, 3, 3, false},
    {"split", NULL, "Split", 1, {2, 1}, 2, 1, 1, true},
    {"expand", NULL, "Expand", 1, {1, 1, 7, 6}, 4, 2, 2, true},
    {"reshape", NULL, "Reshape", 1, {1, -1, 6}, 3, 3, 2, true},
    {"chunk", NULL, "Split", 1, {4, 3}, 2, 2, 2, false},
};

static const char *ir_of(int i) {
  const char *const irs[] = {interp_ir, pad_ir, split_ir, expand_ir, reshape_ir, chunk_ir};
  return irs[i];
}

static const int opsets[] = {11, 13, 17, 21};

static oxp_status export_at(const char *ir, int opset, const oxp_dyn_axis *ax,
                            oxp_graph **out) {
  oxp_options o;
  oxp_options_init(&o);
  o.opset = opset;
  o.dynamic_axes = ax;
  o.n_dynamic_axes = ax ? 1 : 0;
  return oxp_export_graph(A, "t.ir", ir, strlen(ir), NULL, &o, out, &D);
}

static oxp_node *find(oxp_block *b, const char *kind) {
  for (oxp_node *n = b->first; n; n = n->next)
    if (strcmp(n->kind, kind) == 0) return n;
  return NULL;
}

static int64_t elem(const oxp_tensor *t, int k) { return oxp_tensor_get_i(t, k); }

/* Static shapes: the list is one constant, with torch's values. */
START_TEST(static_list_folds) {
  const form *f = &forms[_i / 4];
  int opset = opsets[_i % 4];
  oxp_graph *g = NULL;
  ck_assert_msg(export_at(ir_of(_i / 4), opset, NULL, &g) == OXP_OK, "%s at %d: %s",
                f->name, opset, D.message);
  char kind[64];
  snprintf(kind, sizeof kind, "onnx::%s", f->op);
  oxp_node *n = find(g->top, kind);
  ck_assert_msg(n, "%s at %d: no %s", f->name, opset, f->op);
  ck_assert_msg(!find(g->top, "onnx::Shape"), "%s at %d: a Shape is left", f->name, opset);
  const int64_t *v = NULL;
  int cnt = 0;
  const oxp_attr *a = f->in < 0 || (opset < 13 && !strcmp(f->op, "Split"))
                          ? oxp_attr_get(n, "split") : NULL;
  if (a) {
    v = a->ints;
    cnt = a->n;
    for (int k = 0; k < f->nwant && k < cnt; k++)
      ck_assert_int_eq(v[k], f->want[k]);
  } else {
    oxp_value *l = n->inputs[f->in];
    ck_assert_msg(l && l->init && !l->producer, "%s at %d: the list is computed",
                  f->name, opset);
    cnt = (int)oxp_tensor_numel(l->init);
    for (int k = 0; k < f->nwant && k < cnt; k++)
      ck_assert_msg(elem(l->init, k) == f->want[k], "%s at %d: element %d is %lld, not %lld",
                    f->name, opset, k, (long long)elem(l->init, k), (long long)f->want[k]);
  }
  ck_assert_int_eq(cnt, f->nwant);
}
END_TEST

/* A dynamic axis feeds the list: the op reads a tensor computed from
 * Shape, and the output carries the axis's name. */
START_TEST(dynamic_axis_list_is_computed) {
  const form *f = &forms[_i / 4];
  int opset = opsets[_i % 4];
  oxp_dyn_axis ax = {"y", f->dyn_axis, "D"};
  oxp_graph *g = NULL;
  ck_assert_msg(export_at(ir_of(_i / 4), opset, &ax, &g) == OXP_OK, "%s at %d: %s",
                f->name, opset, D.message);
  bool split_seq = !strcmp(f->op, "Split") && opset < 13;
  char kind[64];
  snprintf(kind, sizeof kind, "onnx::%s", split_seq ? "SplitToSequence" : f->op);
  oxp_node *n = find(g->top, kind);
  ck_assert_msg(n, "%s at %d: no %s", f->name, opset, kind);
  oxp_value *l = n->inputs[f->in];
  ck_assert_msg(l && l->producer, "%s at %d: the list is a constant", f->name, opset);
  ck_assert_msg(find(g->top, "onnx::Shape"), "%s at %d: no Shape", f->name, opset);
  /* the output's dim follows the axis: its name, or (pad: D + D % 4)
   * at least no traced size */
  const oxp_type *t = g->top->outputs[0]->type;
  const char *p = t && t->rank > f->out_axis && t->dim_params ? t->dim_params[f->out_axis] : NULL;
  ck_assert_msg(t && t->rank > f->out_axis && t->dims[f->out_axis] < 0,
                "%s at %d: output axis %d is static", f->name, opset, f->out_axis);
  if (f->named && !split_seq) /* SequenceAt's pieces have no dims */
    ck_assert_msg(p && !strcmp(p, "D"), "%s at %d: output axis %d is not named D", f->name,
                  opset, f->out_axis);
}
END_TEST

/* Where ONNX takes the list at export time the error names the
 * argument, its value and why. */
typedef struct {
  const char *name;
  int ir;             /* index into irs below */
  int opset;
  int dyn_axis;       /* axis of y made dynamic */
  const char *want;
} bad;

static const char *const pool_ir = SHAPES SIZE("h", "y", "1")
    "  %l : int[] = prim::ListConstruct(%h, %h)\n"
    "  %z : int[] = prim::Constant[value=[0, 0]]()\n"
    "  %u : int[] = prim::Constant[value=[1, 1]]()\n"
    "  %f : bool = prim::Constant[value=0]()\n"
    "  %o : Float(1, 3, 2, 3) = aten::max_pool2d(%x, %l, %l, %z, %u, %f)\n"
    "  return (%o)\n";

static const bad bads[] = {
    {"pool kernel", 0, 17, 1,
     "aten::max_pool2d: argument 1 (%l) must be a constant int list: it is known only at run time"},
    {"pad before 11", 1, 10, 3,
     "aten::pad: argument 1 (%l) is known only at run time, and ONNX Pad takes the pads as an "
     "attribute before opset 11"},
    {"upsample before 11", 2, 10, 3,
     "upsample to a size known only at run time is not supported at opset 10"},
    {"split before 11", 3, 10, 1,
     "aten::split_with_sizes: argument 1 (%l) is known only at run time"},
    {"chunk before 11", 4, 10, 2,
     "aten::chunk: chunk of a dim of unknown size before opset 11"},
};

START_TEST(attribute_lists_name_the_argument) {
  const char *const irs[] = {pool_ir, pad_ir, nearest_ir, split_ir, chunk_ir};
  const bad *b = &bads[_i];
  oxp_dyn_axis ax = {"y", b->dyn_axis, "D"};
  oxp_graph *g = NULL;
  oxp_status st = export_at(irs[b->ir], b->opset, &ax, &g);
  ck_assert_msg(st == OXP_ERR_UNSUPPORTED, "%s: status %d (%s)", b->name, st, D.message);
  ck_assert_msg(strstr(D.message, b->want), "%s: '%s'", b->name, D.message);
  ck_assert_int_gt(D.line, 0);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("runtime_lists");
  TCase *t = tcase_create("forms");
  tcase_add_checked_fixture(t, setup, teardown);
  int n = (int)(sizeof forms / sizeof *forms) * 4;
  tcase_add_loop_test(t, static_list_folds, 0, n);
  tcase_add_loop_test(t, dynamic_axis_list_is_computed, 0, n);
  tcase_add_loop_test(t, attribute_lists_name_the_argument, 0,
                      (int)(sizeof bads / sizeof *bads));
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return oxp_check_run(suite()); }
