/* packed.h: how bind_packed.c hands a quantized layer's packed weights to
 * the symbolics. A quantized op's packed-params input (a graph input such
 * as `%c._packed_params : __torch__.torch.classes.quantized.
 * Conv2dPackedParamsBase`, or a prim::GetAttr chain naming one) is
 * replaced, in place, by these inputs, constants from the weights file
 * (docs/quantized.md has the keys). Absent parts are None constants. */
#ifndef OXP_PACKED_H
#define OXP_PACKED_H

enum {
  OXP_PK_WEIGHT,     /* int8 / uint8 tensor, torch's layout */
  OXP_PK_SCALE,      /* float32, 0-d or [C] */
  OXP_PK_ZERO_POINT, /* the weight's dtype, shaped like the scale */
  OXP_PK_AXIS,       /* int64 0-d, or None (per tensor) */
  OXP_PK_BIAS,       /* float32 [O], or None */
  OXP_PK_REDUCED_QMAX, /* int64 0-d, or None: the top of the input's range
                        * when a dynamic op asks for a reduced one (127,
                        * or 255 where torch's engine ignores the ask) */
  OXP_PK_LINEAR_N,   /* linear: the six above */
  OXP_PK_STRIDE = OXP_PK_LINEAR_N, /* int64 [k] */
  OXP_PK_PADDING,    /* int64 [k] */
  OXP_PK_DILATION,   /* int64 [k] */
  OXP_PK_OUTPUT_PADDING, /* int64 [k] */
  OXP_PK_GROUPS,     /* int64 0-d */
  OXP_PK_TRANSPOSED, /* int64 0-d */
  OXP_PK_CONV_N
};

/* An RNN cell's params (__torch__.torch.classes.rnn.CellParamsBase: one
 * layer and direction of a dynamically quantized LSTM or GRU) become the
 * inputs of the prim::ListConstruct that gathers them: its input-hidden
 * linear's OXP_PK_LINEAR_N parts, its hidden-hidden linear's, and
 * reduce_range (int64 0-d, 0 or 1). */
enum {
  OXP_PK_CELL_IH = 0,
  OXP_PK_CELL_HH = OXP_PK_LINEAR_N,
  OXP_PK_CELL_REDUCE = 2 * OXP_PK_LINEAR_N,
  OXP_PK_CELL_N
};

#endif
