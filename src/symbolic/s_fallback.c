/* s_fallback.c: what --operator-export-type does with an aten op that is
 * not mapped to ONNX (or, with onnx_aten, with every aten op):
 *   ATen form:    one `ATen` node in domain org.pytorch.aten, attributes
 *                 `operator` (the name without "aten::") and
 *                 `overload_name`, as torch's g.at(...) emits it;
 *   pass-through: the node as it is, under its own domain ("aten::foo"
 *                 becomes op foo in domain aten), with a warning.
 * Inputs are lowered as tensors (numbers and int lists as constants,
 * None as an absent input, Tensor[] lists element by element); string
 * arguments become string attributes `arg<i>`. lower.c's lower_node
 * calls this. */
#include <stdio.h>
#include <string.h>

#include "sym.h"

oxp_status oxp_s_aten_fallback(oxp_sctx *c, oxp_node *n, bool passthrough);

static bool tensor_list(const oxp_value *v) {
  const oxp_type *t = v->type;
  return t && t->kind == OXP_T_LIST && t->elem && t->elem->kind == OXP_T_TENSOR;
}

oxp_status oxp_s_aten_fallback(oxp_sctx *c, oxp_node *n, bool passthrough) {
  oxp_arena *a = oxp_sym_arena(c);
  int cap = n->ninputs + 1, nin = 0;
  oxp_value **ins = oxp_alloc(a, sizeof *ins * (size_t)cap);
  const char **strs = oxp_alloc(a, sizeof *strs * (size_t)cap);
  if (!ins || !strs) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  for (int i = 0; i < n->ninputs; i++) {
    const char *s;
    strs[i] = NULL;
    if (oxp_sym_str(n, i, &s)) {
      strs[i] = s;
    } else if (oxp_sym_is_none(n, i)) {
      ins[nin++] = NULL;
    } else if (tensor_list(n->inputs[i])) {
      oxp_value **vals;
      int cnt;
      if (!oxp_sym_in_list(c, n, i, &vals, &cnt)) return oxp_sym_status(c);
      oxp_value **grown = oxp_realloc(a, ins, sizeof *ins * (size_t)cap,
                                      sizeof *ins * (size_t)(cap + cnt));
      if (!grown) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
      ins = grown;
      cap += cnt;
      for (int k = 0; k < cnt; k++) ins[nin++] = vals[k];
    } else if (!(ins[nin++] = oxp_sym_in(c, n, i))) {
      return oxp_sym_status(c);
    }
  }
  while (nin > 0 && !ins[nin - 1]) nin--; /* trailing absent inputs */
  const char *name = strstr(n->kind, "::") ? strstr(n->kind, "::") + 2 : n->kind;
  oxp_node *k = oxp_sym_op(c, passthrough ? n->kind : "org.pytorch.aten::ATen",
                           ins, nin, n->noutputs);
  if (!k) return oxp_sym_status(c);
  if (!passthrough) {
    oxp_attr_set_s(k, "operator", name);
    oxp_attr_set_s(k, "overload_name", n->overload ? n->overload : "");
  }
  for (int i = 0; i < n->ninputs; i++)
    if (strs[i]) oxp_attr_set_s(k, oxp_sprintf(a, "arg%d", i), strs[i]);
  const oxp_options *o = oxp_sym_options(c);
  if (passthrough && o->warn && !o->quiet) {
    char msg[512];
    snprintf(msg, sizeof msg, "%s:%d:%d: %s has no ONNX mapping at opset %d; "
             "passed through as op %s in domain %.*s", n->loc.file ? n->loc.file : "?",
             n->loc.line, n->loc.col, n->kind, oxp_sym_opset(c), name,
             (int)(name - 2 - n->kind), n->kind);
    o->warn(o->warn_user, msg);
  }
  for (int i = 0; i < n->noutputs; i++) {
    oxp_status st = oxp_sym_set_out(c, n, i, k->outputs[i]);
    if (st) return st;
  }
  return OXP_OK;
}
