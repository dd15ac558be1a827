/* s_affine_grid.c: affine_grid_generator(theta, size, align_corners), what
 * F.affine_grid traces to. PyTorch main's exporter maps it at opset 20 to
 * ONNX AffineGrid; the grid is one MatMul of a constant base grid with
 * theta, so every opset from 9 has it when size is a constant (as
 * F.affine_grid's size always is when traced): theta @ base, base
 * [3, H*W] columns (x_w, y_h, 1) (2-d) or [4, D*H*W] columns (x, y, z, 1)
 * (3-d), with the coordinates of torch's linspace (align_corners) or of
 * pixel centres, then moved to [N, ..., 2]. (Not base^T @ theta^T:
 * onnxruntime fuses a Transpose feeding MatMul into FusedMatMul, which it
 * has no double kernel for.) */
#include "s_shape_util.h"

/* Coordinate i of n along one axis, as torch's affine grid places it. */
static double coord(int64_t i, int64_t n, bool align) {
  if (n <= 1) return 0;
  double step = 2.0 / (double)(n - 1);
  double v = -1 + step * (double)i;
  return align ? v : v * (double)(n - 1) / (double)n;
}

oxp_status oxp_s_affine_grid(oxp_sctx *c, oxp_node *n) {
  oxp_value *theta = oxp_sym_in(c, n, 0);
  int64_t *size;
  int k;
  bool align;
  if (!theta || !oxp_sym_need_ints(c, n, 1, &size, &k)) return oxp_sym_status(c);
  if (!oxp_sym_bool(n, 2, &align)) return oxp_sym_unsupported(c, "affine_grid with a runtime align_corners");
  if (k != 4 && k != 5) return oxp_sym_unsupported(c, "affine_grid of a size that is not 4-D or 5-D");
  int d = k - 2; /* spatial dims */
  int64_t cells = 1;
  for (int i = 2; i < k; i++) {
    if (size[i] <= 0) return oxp_sym_unsupported(c, "affine_grid of an empty size");
    cells *= size[i];
  }
  if (cells > (1 << 24)) return oxp_sym_unsupported(c, "affine_grid of more than 2^24 cells");
  int dt = oxp_sym_need_dtype(c, theta);
  if (!dt) return oxp_sym_status(c);
  if (!oxp_dtype_is_float(dt)) return oxp_sym_unsupported(c, "affine_grid of a non-float theta");
  oxp_tensor *t = oxp_tensor_alloc(oxp_sym_arena(c), OXP_DT_DOUBLE, 2, (int64_t[]){d + 1, cells});
  if (!t) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  double *b = (double *)t->data;
  /* spatial sizes innermost last: (D,) H, W; the row is x (W), y (H), z (D) */
  for (int64_t cell = 0; cell < cells; cell++) {
    int64_t rest = cell;
    for (int j = 0; j < d; j++) {
      int64_t nd = size[k - 1 - j];
      b[j * cells + cell] = coord(rest % nd, nd, align);
      rest /= nd;
    }
    b[d * cells + cell] = 1;
  }
  oxp_value *base = oxp_sym_cast(c, oxp_sym_const(c, t), dt);
  static const int64_t perm[3] = {0, 2, 1};
  oxp_value *g = oxp_sx_transpose(c, oxp_sym_op2(c, "MatMul", theta, base), perm, 3);
  int64_t shape[6] = {size[0]};
  for (int i = 0; i < d; i++) shape[1 + i] = size[2 + i];
  shape[1 + d] = d;
  return oxp_sym_set_out(c, n, 0, oxp_sx_reshape(c, g, shape, d + 2));
}
