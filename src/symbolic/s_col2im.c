/* s_col2im.c: col2im(input, output_size, kernel_size, dilation, padding,
 * stride), what F.fold traces to; PyTorch main's exporter maps it at
 * opset 18, where ONNX Col2Im first exists. An unbatched [C*k, L] input
 * gets a batch of one around the op. */
#include "s_shape_util.h"

oxp_status oxp_s_col2im(oxp_sctx *c, oxp_node *n) {
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int64_t *size, *kernel, *dil, *pad, *stride;
  int ns, nk, nd, np, nst;
  if (!oxp_sym_need_ints(c, n, 1, &size, &ns) || !oxp_sym_need_ints(c, n, 2, &kernel, &nk) ||
      !oxp_sym_need_ints(c, n, 3, &dil, &nd) || !oxp_sym_need_ints(c, n, 4, &pad, &np) ||
      !oxp_sym_need_ints(c, n, 5, &stride, &nst))
    return oxp_sym_status(c);
  if (ns != 2 || nk != 2 || nd != 2 || np != 2 || nst != 2)
    return oxp_sym_unsupported(c, "col2im with other than 2 spatial dims (torch's col2im is 2-d)");
  int r = oxp_sym_rank(x);
  if (r != 2 && r != 3) return oxp_sym_unsupported(c, "col2im of an input not 2-D or 3-D");
  static const int64_t zero = 0;
  if (r == 2) x = oxp_sym_unsqueeze(c, x, &zero, 1);
  oxp_value *in[3] = {x, oxp_sym_const_i64s(c, size, 2), oxp_sym_const_i64s(c, kernel, 2)};
  oxp_node *k = in[0] && in[1] && in[2] ? oxp_sym_op(c, "Col2Im", in, 3, 1) : NULL;
  if (!k) return oxp_sym_status(c);
  int64_t pads[4] = {pad[0], pad[1], pad[0], pad[1]};
  oxp_attr_set_ints(k, "dilations", dil, 2);
  oxp_attr_set_ints(k, "pads", pads, 4);
  oxp_attr_set_ints(k, "strides", stride, 2);
  oxp_value *y = k->outputs[0];
  return oxp_sym_set_out(c, n, 0, r == 2 ? oxp_sym_squeeze(c, y, &zero, 1) : y);
}
