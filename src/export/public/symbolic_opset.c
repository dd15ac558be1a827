/* symbolic_opset.c: the built-in op table (torch's symbolic_opset9..N in
 * one table, src/symbolic/op_table.c) and the lookup the lowering driver
 * does, read-only. */
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
  int n;
  const oxp_sym_row *rows = oxp_sym_rows(&n);
  for (int i = 0; i < n; i++) {
    /* Each op once, at its first row (rows are sorted by op, then since). */
    if (i && strcmp(rows[i - 1].op, rows[i].op) == 0) continue;
    if (opset && rows[i].since > opset) continue;
    if (visit(user, rows[i].op, rows[i].since)) return ONNXEXP_OK;
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
