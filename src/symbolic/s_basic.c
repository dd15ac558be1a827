/* s_basic.c: ops that move values without computing: identities,
 * scalar conversions, dtype casts, dropout in eval mode, aten::size. */
#include "ops.h"

oxp_status oxp_s_identity(oxp_sctx *c, oxp_node *n) {
  return oxp_sym_set_out(c, n, 0, oxp_sym_in(c, n, 0));
}

/* aten::Int / Float / Bool of a 0-d tensor: a Cast to the scalar's type,
 * skipped when the type already matches. */
oxp_status oxp_s_scalar_cast(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_sym_out_dtype(n, 0, OXP_DT_INT64);
  return oxp_sym_set_out(c, n, 0, oxp_sym_in_as(c, n, 0, dt));
}

/* The traced output type already holds the dtype torch chose for every
 * overload of aten::to and for type_as, so Cast to it. */
oxp_status oxp_s_to(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int dt = oxp_sym_out_dtype(n, 0, 0);
  if (!dt && oxp_kind_is(n, "aten::type_as")) {
    oxp_value *other = oxp_sym_in(c, n, 1);
    dt = oxp_sym_dtype(other);
  }
  if (!dt) {
    /* to(dtype=...) forms: the first int argument after self is dtype. */
    for (int i = 1; i < n->ninputs && !dt; i++) {
      const oxp_type *t = oxp_sym_in_type(n, i);
      int64_t st;
      if (t && t->kind == OXP_T_INT && oxp_sym_int(n, i, &st))
        dt = oxp_dtype_from_scalar_type(st);
    }
  }
  if (!dt) return oxp_sym_unsupported(c, "a conversion to an unknown dtype");
  return oxp_sym_set_out(c, n, 0,
                         oxp_sym_dtype(x) == dt ? x : oxp_sym_cast(c, x, dt));
}

/* dropout(input, p, train): identity unless training is requested. */
oxp_status oxp_s_dropout(oxp_sctx *c, oxp_node *n) {
  bool train = false;
  if (n->ninputs > 2 && !oxp_sym_bool(n, 2, &train))
    return oxp_sym_unsupported(c, "dropout with a runtime train flag");
  const oxp_options *o = oxp_sym_options(c);
  if (o->training == OXP_TRAIN_EVAL || !train ||
      (o->training == OXP_TRAIN_PRESERVE && !train))
    return oxp_s_identity(c, n);
  if (oxp_kind_is(n, "aten::feature_dropout"))
    return oxp_sym_unsupported(c, "feature_dropout in training mode");
  double p = 0.5;
  oxp_sym_float(n, 1, &p);
  oxp_value *x = oxp_sym_in(c, n, 0);
  oxp_node *d;
  if (oxp_sym_opset(c) >= 12) {
    oxp_value *in[3] = {x, oxp_sym_const_scalar(c, p, OXP_DT_FLOAT),
                        oxp_sym_const_scalar(c, 1, OXP_DT_BOOL)};
    d = oxp_sym_op(c, "Dropout", in, 3, 1);
  } else {
    d = oxp_sym_op(c, "Dropout", &x, 1, 1);
    if (d) oxp_attr_set_f(d, "ratio", p);
  }
  return oxp_sym_set_out(c, n, 0, d ? d->outputs[0] : NULL);
}

/* aten::size(x, dim) -> int; aten::size(x) -> int[] (the Shape). */
oxp_status oxp_s_size(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  if (n->ninputs < 2) {
    oxp_value *s = oxp_sym_op1(c, "Shape", x);
    int64_t r = oxp_sym_rank(x);
    oxp_sym_set_type(c, s, OXP_DT_INT64, 1, r >= 0 ? &r : NULL);
    return oxp_sym_set_out(c, n, 0, s);
  }
  int64_t dim;
  if (!oxp_sym_need_int(c, n, 1, &dim)) return oxp_sym_status(c);
  return oxp_sym_set_out(c, n, 0, oxp_sym_size(c, x, dim));
}
