/* s_create.c: tensor factories: zeros/ones/full/empty and their _like and
 * new_ forms, fill, scalar_tensor, tensor/as_tensor, eye. The traced
 * output type holds the dtype torch picked for every dtype=None default. */
#include "s_shape_util.h"
#include "lower_ctx.h"

/* Index of the size argument and of the fill value (-1: none) by op. */
typedef struct {
  const char *op;
  int self;   /* input whose shape is used (the _like forms), or -1 */
  int size;   /* input holding the size list, or -1 */
  int value;  /* input holding the fill value, or -1 */
  double fixed;
} factory;

static const factory factories[] = {
    {"aten::zeros", -1, 0, -1, 0},      {"aten::ones", -1, 0, -1, 1},
    {"aten::full", -1, 0, 1, 0},        {"aten::empty", -1, 0, -1, 0},
    {"aten::zeros_like", 0, -1, -1, 0}, {"aten::ones_like", 0, -1, -1, 1},
    {"aten::full_like", 0, -1, 1, 0},   {"aten::empty_like", 0, -1, -1, 0},
    {"aten::new_zeros", -1, 1, -1, 0},  {"aten::new_ones", -1, 1, -1, 1},
    {"aten::new_full", -1, 1, 2, 0},    {"aten::new_empty", -1, 1, -1, 0},
    {"aten::fill", 0, -1, 1, 0},        {"aten::zero", 0, -1, -1, 0},
};

/* Every factory: ConstantOfShape for a constant value, else the value
 * (cast to the output type) expanded to the shape. empty* are zeros. */
oxp_status oxp_s_factory(oxp_sctx *c, oxp_node *n) {
  const factory *f = NULL;
  for (size_t i = 0; i < sizeof factories / sizeof *factories && !f; i++)
    if (oxp_kind_is(n, factories[i].op)) f = &factories[i];
  if (!f) return oxp_sym_fail(c, OXP_ERR_INTERNAL, "%s: not a factory", n->kind);
  oxp_value *like = f->self >= 0 ? oxp_sym_in(c, n, f->self) : NULL;
  if (f->self >= 0 && !like) return oxp_sym_status(c);
  int dt = oxp_sym_need_out_dtype(c, n, 0);
  oxp_value *shape = like ? oxp_sx_shape(c, like) : NULL;
  oxp_ilist l;
  if (!like && oxp_sym_ilist(c, n, f->size, &l)) shape = oxp_sym_ilist_tensor(c, &l);
  if (!shape) return oxp_sym_status(c);
  double v = f->fixed;
  if (f->value >= 0 && !oxp_sym_float(n, f->value, &v)) {
    oxp_value *val = oxp_sym_in_as(c, n, f->value, dt);
    oxp_value *y = oxp_sym_op2(c, "Expand", val, shape);
    if (y && !like && l.n >= 0) oxp_sym_set_type(c, y, dt, l.n, NULL);
    return oxp_sym_set_out(c, n, 0, y);
  }
  oxp_value *y = oxp_sx_fill(c, shape, v, dt);
  /* a shape known only at run time still gives the rank */
  if (y && !like && l.n >= 0) oxp_sym_set_type(c, y, dt, l.n, NULL);
  return oxp_sym_set_out(c, n, 0, y);
}

/* scalar_tensor(s, dtype, ...) / tensor(data, dtype, ...) /
 * as_tensor(data, dtype, ...): the data as a tensor of the output type. */
/* tensor(data, dtype, device, requires_grad). A scripted setitem makes
 * its value as tensor(v, prim::dtype(x), ...): the dtype is then x's,
 * known to lowering even where type inference did not fold it. A dtype
 * known nowhere is an error, not float32. TorchScript makes a Python
 * float's tensor in float32 and then converts it (tensor(0.001,
 * dtype=torch.float64) is 0.0010000000474974513 in a scripted model), so
 * the data is taken in its natural dtype and cast, as torch does. */
oxp_status oxp_s_tensor(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_sym_out_dtype(n, 0, 0);
  if (!dt && n->ninputs > 1 && !oxp_sym_is_none(n, 1)) {
    dt = oxp_sx_dtype_arg(n, 1, 0);
    const oxp_node *k = n->inputs[1]->producer;
    if (!dt && k && oxp_kind_is(k, "prim::dtype") && k->ninputs == 1) {
      oxp_value *x = oxp_lower_lookup(c, k->inputs[0]);
      dt = x ? oxp_sym_dtype(x) : 0;
    }
    if (!dt) return oxp_sym_unsupported(c, "a dtype argument known only at run time");
  }
  /* The natural form, then a Cast: TorchScript's aten::tensor of a float
   * makes a tensor of the default dtype (float32) and converts it, so
   * scripted `v[m] = 0.001` on float64 writes 0.0010000000474974513 (eager
   * torch.tensor(0.001, dtype=torch.float64) is 0.001 exactly). */
  oxp_value *v = oxp_sym_in(c, n, 0);
  if (v && dt && oxp_sym_dtype(v) != dt) v = oxp_sym_cast(c, v, dt);
  return oxp_sym_set_out(c, n, 0, v);
}

/* eye(n[, m], dtype, ...): EyeLike of a zero matrix of that shape. */
oxp_status oxp_s_eye(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_sym_need_out_dtype(c, n, 0);
  /* eye(n, dtype, layout, device, pin) has 5 inputs; eye(n, m, ...) 6. */
  bool two = n->ninputs >= 6;
  static const int64_t z = 0;
  oxp_value *rows = oxp_sym_unsqueeze(c, oxp_sym_in_as(c, n, 0, OXP_DT_INT64), &z, 1);
  oxp_value *cols = two ? oxp_sym_unsqueeze(c, oxp_sym_in_as(c, n, 1, OXP_DT_INT64), &z, 1) : rows;
  oxp_value *parts[2] = {rows, cols};
  /* EyeLike's onnxruntime kernels: float, double, int32, int64, uint64. */
  bool ok = dt == OXP_DT_FLOAT || dt == OXP_DT_DOUBLE || dt == OXP_DT_INT32 ||
            dt == OXP_DT_INT64;
  int edt = ok ? dt : OXP_DT_FLOAT;
  oxp_value *zero = oxp_sx_fill(c, oxp_sx_concat(c, parts, 2, 0), 0, edt);
  oxp_value *e = oxp_sym_op1(c, "EyeLike", zero);
  if (e) oxp_sym_set_type(c, e, edt, 2, NULL);
  return oxp_sym_set_out(c, n, 0, ok ? e : oxp_sym_cast(c, e, dt));
}
