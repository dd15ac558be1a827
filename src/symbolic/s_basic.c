/* s_basic.c: ops that move values without computing: identities,
 * scalar conversions, dtype casts, the dropout family, aten::size. */
#include "s_nn_util.h"

/* Also alias, lift (no-ops to an export, as in torch's exporter) and item:
 * the Scalar stays a 0-d tensor, as every scalar does once lowered. */
oxp_status oxp_s_identity(oxp_sctx *c, oxp_node *n) {
  return oxp_sym_set_out(c, n, 0, oxp_sym_in(c, n, 0));
}

/* x.is_pinned(): ONNX values live in no host memory an exporter could pin,
 * so the answer an exported model matches is the CPU tracer's: false.
 * (torch's exporter returns None, which breaks any use of the result.) */
oxp_status oxp_s_is_pinned(oxp_sctx *c, oxp_node *n) {
  return oxp_sym_set_out(c, n, 0, oxp_sym_const_scalar(c, 0, OXP_DT_BOOL));
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

/* The dropout family: (input, p, train). Identity unless the op runs in
 * training mode (oxp_nn_training: never under --training eval). Training
 * dropout is ONNX Dropout with training_mode, which exists from opset 12
 * (earlier Dropout is inference-only, so it would silently not drop). The
 * feature and alpha forms have no ONNX op in training mode, as in torch's
 * exporter. */
static bool dropout_train(oxp_sctx *c, oxp_node *n, bool *train) {
  *train = false;
  if (n->ninputs > 2 && !oxp_sym_is_none(n, 2) && !oxp_sym_bool(n, 2, train)) {
    oxp_sym_unsupported(c, "dropout with a runtime train flag");
    return false;
  }
  *train = oxp_nn_training(c, *train);
  if (*train && oxp_sym_opset(c) < 12) {
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                 "%s in training mode is not supported at opset %d "
                 "(supported from opset 12)", n->kind, oxp_sym_opset(c));
    return false;
  }
  return true;
}

static oxp_node *train_dropout(oxp_sctx *c, oxp_node *n, int nout) {
  double p = 0.5;
  oxp_sym_float(n, 1, &p);
  oxp_value *x = oxp_sym_in(c, n, 0);
  oxp_value *in[3] = {x, x ? oxp_sym_const_scalar(c, p, oxp_nn_dtype(c, x)) : NULL,
                      oxp_sym_const_scalar(c, 1, OXP_DT_BOOL)};
  return x ? oxp_sym_op(c, "Dropout", in, 3, nout) : NULL;
}

oxp_status oxp_s_dropout(oxp_sctx *c, oxp_node *n) {
  bool train;
  if (!dropout_train(c, n, &train)) return oxp_sym_status(c);
  if (!train) return oxp_s_identity(c, n);
  if (!oxp_kind_is(n, "aten::dropout") && !oxp_kind_is(n, "aten::dropout_")) {
    const char *k = n->kind + 6; /* past "aten::" */
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "%s: %s in training mode has no ONNX equivalent",
                        n->kind, k);
  }
  oxp_node *d = train_dropout(c, n, 1);
  return oxp_sym_set_out(c, n, 0, d ? d->outputs[0] : NULL);
}

/* native_dropout(input, p, train) -> (out, mask); the mask is all true
 * when not training, as in torch. */
oxp_status oxp_s_native_dropout(oxp_sctx *c, oxp_node *n) {
  bool train;
  if (!dropout_train(c, n, &train)) return oxp_sym_status(c);
  if (train) {
    oxp_node *d = train_dropout(c, n, 2);
    oxp_status st = oxp_sym_set_out(c, n, 0, d ? d->outputs[0] : NULL);
    return st ? st : oxp_sym_set_out(c, n, 1, d->outputs[1]);
  }
  oxp_value *x = oxp_sym_in(c, n, 0);
  oxp_status st = oxp_sym_set_out(c, n, 0, x);
  if (st || !oxp_nn_out_used(n, 1)) return st;
  oxp_value *mask = oxp_sym_op2(c, "Expand", oxp_sym_const_scalar(c, 1, OXP_DT_BOOL),
                                oxp_sym_op1(c, "Shape", x));
  return oxp_sym_set_out(c, n, 1, mask);
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
  if (oxp_sym_int(n, 1, &dim)) return oxp_sym_set_out(c, n, 0, oxp_sym_size(c, x, dim));
  /* x.size(i) with i known only at run time (a loop over the dims) */
  oxp_value *i = oxp_sym_in_as(c, n, 1, OXP_DT_INT64);
  oxp_value *shape = oxp_sym_op1(c, "Shape", x);
  oxp_sym_set_type(c, shape, OXP_DT_INT64, 1, NULL);
  oxp_value *d = oxp_sym_op2(c, "Gather", shape, i);
  oxp_sym_set_type(c, d, OXP_DT_INT64, 0, NULL);
  return oxp_sym_set_out(c, n, 0, d);
}

/* prim::tolist(t, dim, elem_type) (t.tolist() in scripted code): a 1-D
 * tensor's list is the tensor itself, as every int list is once lowered;
 * the readers of the list cast it to what they need. */
oxp_status oxp_s_tolist(oxp_sctx *c, oxp_node *n) {
  int64_t dim;
  if (!oxp_sym_need_int(c, n, 1, &dim)) return oxp_sym_status(c);
  if (dim != 1)
    return oxp_sym_unsupported(c, "tolist of a tensor that is not 1-D");
  oxp_value *t = oxp_sym_in(c, n, 0);
  if (t && oxp_sym_rank(t) >= 0 && oxp_sym_rank(t) != 1)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "prim::tolist: dim 1 of a rank-%d tensor",
                        oxp_sym_rank(t));
  return oxp_sym_set_out(c, n, 0, t);
}

/* prim::dtype(x): the ScalarType number of x's dtype. Type inference folds
 * it when it knows the dtype; here it is known only if lowering learned
 * it, and otherwise it is the named unknown-dtype error, never a guess. */
oxp_status oxp_s_prim_dtype(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int dt = x ? oxp_sym_need_dtype(c, x) : 0;
  if (!dt) return oxp_sym_status(c);
  int64_t st = oxp_dtype_to_scalar_type(dt);
  if (st < 0)
    return oxp_sym_unsupported(c, "prim::dtype of a tensor whose dtype has no ScalarType");
  return oxp_sym_set_out(c, n, 0, oxp_sym_const_i64(c, st));
}
