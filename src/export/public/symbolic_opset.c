/* symbolic_opset.c: the built-in op tables (symbolic_opset9..N) and the
 * lookup the lowering driver does, read-only. */
#include <string.h>

#include "shim.h"

onnxexp_status onnxexp_list_ops(int opset, onnxexp_op_visit_fn visit, void *user,
                                onnxexp_diag *diag) {
  oxp_diag scratch, *d = oxp_shim_diag(diag, &scratch);
  if (!visit) return oxp_shim_null(d, "onnxexp_list_ops", "visit");
  if (opset != 0 && (opset < OXP_OPSET_MIN || opset > OXP_OPSET_MAX))
    return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                                    "onnxexp_list_ops: opset %d is outside %d..%d",
                                    opset, OXP_OPSET_MIN, OXP_OPSET_MAX);
  for (int t = 0; t < oxp_sym_ntables; t++) {
    const oxp_sym_table *tab = oxp_sym_tables[t];
    if (opset && tab->opset > opset) break;
    for (int i = 0; i < tab->n; i++) {
      int first = 0;
      oxp_sym_lookup(tab->entries[i].op, OXP_OPSET_MAX, &first);
      /* Each op once: where it first appears. */
      if (first != tab->opset) continue;
      bool dup = false;
      for (int k = 0; k < i && !dup; k++)
        dup = strcmp(tab->entries[k].op, tab->entries[i].op) == 0;
      if (!dup && visit(user, tab->entries[i].op, first)) return ONNXEXP_OK;
    }
  }
  return ONNXEXP_OK;
}

onnxexp_status onnxexp_op_supported(const char *op, int opset, int *supported,
                                    int *first_opset, onnxexp_diag *diag) {
  oxp_diag scratch, *d = oxp_shim_diag(diag, &scratch);
  if (!op) return oxp_shim_null(d, "onnxexp_op_supported", "op");
  if (!supported) return oxp_shim_null(d, "onnxexp_op_supported", "supported");
  if (opset < OXP_OPSET_MIN || opset > OXP_OPSET_MAX)
    return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                                    "onnxexp_op_supported: opset %d is outside %d..%d",
                                    opset, OXP_OPSET_MIN, OXP_OPSET_MAX);
  int first = 0;
  oxp_custom_fn fn;
  void *user;
  bool builtin = oxp_sym_lookup(op, opset, &first) != NULL;
  *supported = builtin || oxp_custom_lookup(op, opset, &fn, &user);
  if (first_opset) *first_opset = first;
  return ONNXEXP_OK;
}
