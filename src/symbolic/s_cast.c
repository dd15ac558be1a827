/* s_cast.c: the dtype casts TorchScript spells as ops of their own
 * (aten::_cast_Float, ... from older or scripted code) and
 * is_floating_point, which the traced dtype answers at export time.
 * aten::to / type_as live in s_basic.c. */
#include "s_math_util.h"

static oxp_status cast_to(oxp_sctx *c, oxp_node *n, int dt) {
  return oxp_m_set_out(c, n, 0, oxp_m_to(c, oxp_sym_in(c, n, 0), dt));
}

#define OXP_CAST(fn, dt) \
  oxp_status fn(oxp_sctx *c, oxp_node *n) { return cast_to(c, n, dt); }

OXP_CAST(oxp_s_cast_byte, OXP_DT_UINT8)
OXP_CAST(oxp_s_cast_char, OXP_DT_INT8)
OXP_CAST(oxp_s_cast_short, OXP_DT_INT16)
OXP_CAST(oxp_s_cast_int, OXP_DT_INT32)
OXP_CAST(oxp_s_cast_long, OXP_DT_INT64)
OXP_CAST(oxp_s_cast_half, OXP_DT_FLOAT16)
OXP_CAST(oxp_s_cast_float, OXP_DT_FLOAT)
OXP_CAST(oxp_s_cast_double, OXP_DT_DOUBLE)

oxp_status oxp_s_is_floating_point(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_m_in_dtype(c, n, 0);
  if (!dt)
    return oxp_sym_unsupported(c, "is_floating_point of a tensor of unknown dtype");
  return oxp_m_set_out(c, n, 0,
                         oxp_sym_const_scalar(c, oxp_dtype_is_float(dt), OXP_DT_BOOL));
}

/* conj_physical / resolve_conj / resolve_neg / _conj: the identity on
 * real tensors, the only ones ONNX has. */
oxp_status oxp_s_real_identity(oxp_sctx *c, oxp_node *n) {
  int dt = oxp_m_in_dtype(c, n, 0);
  if (dt == OXP_DT_COMPLEX64 || dt == OXP_DT_COMPLEX128)
    return oxp_sym_unsupported(c, "a complex tensor");
  return oxp_m_set_out(c, n, 0, oxp_sym_in(c, n, 0));
}
