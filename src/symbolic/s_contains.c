/* s_contains.c: aten::__contains__ (`x in [a, b]` in scripted code),
 * which PyTorch main's exporter maps from opset 9 when list and element
 * are constants. Constant strings and numbers compare now; a number list
 * with a runtime element (or runtime members) compares at run time:
 * any(list == x), a 0-d bool. Dicts have no ONNX form. */
#include <string.h>

#include "s_math_util.h"

/* "s" in ["a", "b"]: the list's members, all string constants. */
static bool str_member(oxp_node *n, const char *s, bool *found) {
  oxp_value *l = oxp_sym_src(n, 0);
  oxp_node *lc = l ? l->producer : NULL;
  if (!lc || !oxp_kind_is(lc, "prim::ListConstruct")) return false;
  *found = false;
  for (int k = 0; k < lc->ninputs; k++) {
    const char *m;
    if (!oxp_sym_str(lc, k, &m)) return false;
    if (strcmp(m, s) == 0) *found = true;
  }
  return true;
}

oxp_status oxp_s_contains(oxp_sctx *c, oxp_node *n) {
  const oxp_type *t = oxp_sym_in_type(n, 0);
  if (t && t->kind != OXP_T_LIST)
    return oxp_sym_unsupported(c, "`in` on a dict or a non-list value");
  const char *s;
  bool found = false;
  if (oxp_sym_str(n, 1, &s)) {
    if (!str_member(n, s, &found))
      return oxp_sym_unsupported(c, "`in` on a list of strings that are not all constants");
    return oxp_sym_set_out(c, n, 0, oxp_sym_const_scalar(c, found, OXP_DT_BOOL));
  }
  double *v, x;
  int cnt;
  if (oxp_sym_floats(c, n, 0, &v, &cnt) && oxp_sym_float(n, 1, &x)) {
    for (int i = 0; i < cnt; i++) found |= v[i] == x;
    return oxp_sym_set_out(c, n, 0, oxp_sym_const_scalar(c, found, OXP_DT_BOOL));
  }
  /* numbers known at run time: any(list == x) */
  oxp_value *l = oxp_sym_in(c, n, 0), *e = l ? oxp_sym_in(c, n, 1) : NULL;
  if (!e) return oxp_sym_status(c);
  int dt = oxp_m_promote(c, oxp_sym_need_dtype(c, l), oxp_sym_need_dtype(c, e));
  if (!dt) return oxp_sym_status(c);
  if (oxp_sym_rank(l) != 1) return oxp_sym_unsupported(c, "`in` on a list that is not a flat list of numbers");
  oxp_value *eq = oxp_m_compare(c, "Equal", oxp_m_to(c, l, dt), oxp_m_to(c, e, dt), dt);
  oxp_value *hits = oxp_sym_reduce(c, "ReduceSum", oxp_sym_cast(c, eq, OXP_DT_INT64), NULL, 0, false);
  return oxp_sym_set_out(c, n, 0, oxp_sym_op2(c, "Greater", hits, oxp_sym_const_i64(c, 0)));
}
