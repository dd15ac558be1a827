/* s_convert.c: prim::convert_element_type(x, dtype), the cast torch 2.x
 * decompositions print (prims.convert_element_type) and PyTorch main's
 * exporter maps from opset 9: a Cast to the ScalarType constant. */
#include "ops.h"

oxp_status oxp_s_convert_element_type(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  int64_t st;
  if (!x) return oxp_sym_status(c);
  if (!oxp_sym_int(n, 1, &st)) return oxp_sym_unsupported(c, "convert_element_type to a runtime dtype");
  int dt = oxp_dtype_from_scalar_type(st);
  if (!dt)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: dtype %lld has no ONNX type", n->kind, (long long)st);
  return oxp_sym_set_out(c, n, 0, oxp_sym_dtype(x) == dt ? x : oxp_sym_cast(c, x, dt));
}
