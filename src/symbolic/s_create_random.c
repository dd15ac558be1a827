/* s_create_random.c: random tensors: rand/randn (+_like), normal,
 * bernoulli, multinomial. The values differ from torch's by nature; the
 * round trip checks their shape and dtype. */
#include <string.h>

#include "s_shape_util.h"

/* RandomUniformLike / RandomNormalLike of a tensor shaped like `shape_of`
 * (or of the runtime shape `shape`), in dtype dt. */
static oxp_value *random_like(oxp_sctx *c, bool normal, oxp_value *shape_of,
                              oxp_value *shape, int dt, double a, double b) {
  /* The generators only make float types. */
  int gdt = oxp_dtype_is_float(dt) ? dt : OXP_DT_FLOAT;
  oxp_value *like = shape_of ? shape_of : oxp_sx_fill(c, shape, 0, gdt);
  oxp_node *r = like ? oxp_sym_op(c, normal ? "RandomNormalLike" : "RandomUniformLike", &like, 1, 1) : NULL;
  if (!r) return NULL;
  oxp_attr_set_i(r, "dtype", gdt);
  oxp_attr_set_f(r, normal ? "mean" : "low", a);
  oxp_attr_set_f(r, normal ? "scale" : "high", b);
  oxp_value *v = r->outputs[0];
  /* Typed, so that a Cast after it keeps the shape (oxp_sym_cast copies
   * its input's type). */
  if (like->type) oxp_sym_set_type(c, v, gdt, like->type->rank, like->type->dims);
  return gdt == dt ? v : oxp_sym_cast(c, v, dt);
}

/* rand / randn(size, dtype, ...) and rand_like / randn_like(x, dtype, ...). */
oxp_status oxp_s_rand(oxp_sctx *c, oxp_node *n) {
  bool normal = strncmp(n->kind, "aten::randn", 11) == 0;
  bool like = strstr(n->kind, "_like") != NULL;
  int dt = oxp_sym_need_out_dtype(c, n, 0);
  oxp_value *src = like ? oxp_sym_in(c, n, 0) : oxp_sym_in_ilist(c, n, 0);
  if (!src) return oxp_sym_status(c);
  return oxp_sym_set_out(c, n, 0, random_like(c, normal, like ? src : NULL, like ? NULL : src, dt,
                                              0, 1));
}

static bool is_tensor_arg(oxp_node *n, int i) {
  const oxp_type *t = oxp_sym_in_type(n, i);
  return t && t->kind == OXP_T_TENSOR;
}

/* normal(mean, std[, size], ...): each of mean and std a tensor or a
 * float; mean + std * N(0, 1) shaped like the output. */
oxp_status oxp_s_normal(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_sym_need_out_dtype(c, n, 0);
  bool tm = is_tensor_arg(n, 0), ts = is_tensor_arg(n, 1);
  double m, s;
  const oxp_type *t2 = oxp_sym_in_type(n, 2);
  if (tm && n->ninputs == 4 && t2 && t2->kind == OXP_T_FLOAT) {
    /* x.normal_(mean, std) made pure: normal(x, mean, std, generator). */
    if (!oxp_sym_float(n, 1, &m) || !oxp_sym_float(n, 2, &s))
      return oxp_sym_unsupported(c, "normal_ with a runtime mean or std");
    return oxp_sym_set_out(c, n, 0, random_like(c, true, oxp_sym_in(c, n, 0), NULL, dt, m, s));
  }
  if (!tm && !ts) {
    if (!oxp_sym_float(n, 0, &m) || !oxp_sym_float(n, 1, &s))
      return oxp_sym_unsupported(c, "normal with a runtime float mean or std");
    oxp_value *shape = oxp_sym_in_ilist(c, n, 2);
    return oxp_sym_set_out(c, n, 0, random_like(c, true, NULL, shape, dt, m, s));
  }
  oxp_value *mean = oxp_sym_in_as(c, n, 0, dt), *std = oxp_sym_in_as(c, n, 1, dt);
  if (!mean || !std) return oxp_sym_status(c);
  /* The output shape is the broadcast of the tensor arguments. */
  oxp_value *like = tm && ts ? oxp_sym_op2(c, "Add", mean, std) : tm ? mean : std;
  oxp_value *z = random_like(c, true, like, NULL, dt, 0, 1);
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Add", mean, oxp_sym_op2(c, "Mul", z, std)));
}

/* bernoulli(p) draws 1 with probability p (Bernoulli from opset 15, else
 * uniform < p); bernoulli(x, p: float) uses the constant p. */
oxp_status oxp_s_bernoulli(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int dt = oxp_sym_out_dtype(n, 0, oxp_sym_dtype(x));
  double p;
  bool cp = n->ninputs >= 2 && oxp_sym_float(n, 1, &p) && !is_tensor_arg(n, 1) &&
            oxp_sym_in_type(n, 1) && oxp_sym_in_type(n, 1)->kind == OXP_T_FLOAT;
  if (!cp && oxp_sym_opset(c) >= 15 && oxp_dtype_is_float(oxp_sym_dtype(x))) {
    oxp_node *b = oxp_sym_op(c, "Bernoulli", &x, 1, 1);
    if (!b) return oxp_sym_status(c);
    oxp_attr_set_i(b, "dtype", dt);
    return oxp_sym_set_out(c, n, 0, b->outputs[0]);
  }
  oxp_value *u = random_like(c, false, x, NULL, OXP_DT_FLOAT, 0, 1);
  oxp_value *prob = cp ? oxp_sym_const_scalar(c, p, OXP_DT_FLOAT) : oxp_sym_cast(c, x, OXP_DT_FLOAT);
  oxp_value *lt = oxp_sym_op2(c, "Less", u, prob);
  if (u && u->type) oxp_sym_set_type(c, lt, OXP_DT_BOOL, u->type->rank, u->type->dims);
  return oxp_sym_set_out(c, n, 0, oxp_sym_cast(c, lt, dt));
}

/* multinomial(probs, k, replacement): Multinomial samples with
 * replacement from log-probabilities of a [batch, classes] input. */
oxp_status oxp_s_multinomial(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t k;
  bool repl;
  if (!x || !oxp_sym_need_int(c, n, 1, &k)) return oxp_sym_status(c);
  if (!oxp_sym_bool(n, 2, &repl)) return oxp_sym_unsupported(c, "multinomial with a runtime replacement flag");
  if (!repl && k > 1) return oxp_sym_unsupported(c, "multinomial without replacement of more than one sample");
  int r = oxp_sym_rank(x);
  if (r != 1 && r != 2) return oxp_sym_unsupported(c, "multinomial of a tensor not 1-D or 2-D");
  static const int64_t z = 0;
  oxp_value *lp = oxp_sym_op1(c, "Log", oxp_sym_dtype(x) == OXP_DT_FLOAT ? x : oxp_sym_cast(c, x, OXP_DT_FLOAT));
  if (r == 1) lp = oxp_sym_unsqueeze(c, lp, &z, 1);
  oxp_node *m = lp ? oxp_sym_op(c, "Multinomial", &lp, 1, 1) : NULL;
  if (!m) return oxp_sym_status(c);
  oxp_attr_set_i(m, "sample_size", k);
  oxp_attr_set_i(m, "dtype", OXP_DT_INT64);
  oxp_value *v = m->outputs[0];
  return oxp_sym_set_out(c, n, 0, r == 1 ? oxp_sym_squeeze(c, v, &z, 1) : v);
}
