"""Packed weights of quantized modules, as tensors onnxexp can bind.

A quantized model's graph (torch 1.13 traces it first, as
torch.onnx.utils._pre_trace_quant_model does) takes each quantized conv or
linear layer's weights as one opaque input, e.g.
    %c._packed_params : __torch__.torch.classes.quantized.Conv2dPackedParamsBase
The printed IR cannot carry it, so the weights file holds its parts under
the input's name NAME (docs/quantized.md is the contract; bind_packed.c
reads it):
    NAME.weight             integer values (int_repr), I8 or U8, in torch's
                            layout: [O, I/g, *k] conv, [I, O/g, *k]
                            transposed conv, [O, I] linear
    NAME.weight.scale       F32, 0-d (per tensor) or [C] (per channel)
    NAME.weight.zero_point  the weight's dtype, shaped like the scale
    NAME.weight.axis        I64 0-d, per-channel weights only
    NAME.bias               F32 [O]; absent when the layer has none
  linear params only:
    NAME.reduced_qmax       I64 0-d: the top of the input's uint8 range when
                            quantized::linear_dynamic asks for a reduced
                            one: 127 where the engine that packed the layer
                            honours reduce_range (fbgemm, onednn), 255 where
                            it ignores it (qnnpack); found by running the op
  conv params only (Conv2dPackedParamsBase, Conv3dPackedParamsBase):
    NAME.stride, NAME.padding, NAME.dilation, NAME.output_padding
                            I64 [k] (k spatial dims; conv1d is packed as a
                            conv2d of unit height: k = 2, weight [O, I, 1, K])
    NAME.groups             I64 0-d
    NAME.transposed         I64 0-d, 1 for a transposed conv
"""

import torch

_QDTYPES = {torch.qint8: torch.int8, torch.quint8: torch.uint8}
CELL_CLASS = "__torch__.torch.classes.rnn.CellParamsBase"


def _cell_state(obj):
    """(kind, tensors, doubles, longs, packed linears) of RNN cell params
    (a dynamically quantized LSTM's or GRU's, one per layer and
    direction), as their __getstate__ gives it; None for other objects."""
    if not isinstance(obj, torch.ScriptObject) or not obj._has_method("__getstate__"):
        return None
    s = obj.__getstate__()
    if isinstance(s, tuple) and len(s) == 2 and s[1] == CELL_CLASS:
        return s[0]
    return None


def is_packed(obj):
    """Is obj the packed params of a quantized conv, linear or RNN layer?"""
    return isinstance(obj, torch.ScriptObject) and (obj._has_method("unpack") or _cell_state(obj) is not None)


def _weight(name, w):
    if not isinstance(w, torch.Tensor) or not w.is_quantized:
        raise ValueError("%s: the packed weight is not a quantized tensor (%s)" % (name, type(w).__name__))
    if w.dtype not in _QDTYPES:
        raise ValueError("%s: weights of %s have no ONNX type (qint8 and quint8 do)" % (name, w.dtype))
    idt = _QDTYPES[w.dtype]
    out = [(name + ".weight", w.int_repr().contiguous())]
    if w.qscheme() == torch.per_tensor_affine:
        out.append((name + ".weight.scale", torch.tensor(w.q_scale(), dtype=torch.float32)))
        out.append((name + ".weight.zero_point", torch.tensor(w.q_zero_point(), dtype=idt)))
    elif w.qscheme() == torch.per_channel_affine:
        out.append((name + ".weight.scale", w.q_per_channel_scales().to(torch.float32).contiguous()))
        out.append((name + ".weight.zero_point", w.q_per_channel_zero_points().to(idt).contiguous()))
        out.append((name + ".weight.axis", torch.tensor(w.q_per_channel_axis(), dtype=torch.int64)))
    else:
        raise ValueError("%s: weights quantized %s have no ONNX form (per-tensor and per-channel "
                         "affine do)" % (name, w.qscheme()))
    return out


def _choose_qparams(x, qmax):
    """torch's ChooseQuantizationParams(min(x), max(x), 0, qmax) for an x
    whose range is neither empty nor tiny (the probe below)."""
    lo, hi = min(float(x.min()), 0.0), max(float(x.max()), 0.0)
    scale = (hi - lo) / qmax
    from_min, from_max = -lo / scale, qmax - hi / scale
    zp = from_min if -abs(lo / scale) < qmax - abs(hi / scale) else from_max
    return float(torch.tensor(scale, dtype=torch.float32)), int(round(min(max(zp, 0), qmax)))


def _reduced_qmax(w, b, obj):
    """127 if the engine that packed obj quantizes linear_dynamic's input to
    7 bits when asked for a reduced range, 255 if it ignores the ask: the
    op is run on a probe and compared with both (they differ by far more
    than rounding); None if the op cannot run on obj."""
    if w.dtype != torch.qint8:
        return None
    wi = w.int_repr().to(torch.float64)
    if w.qscheme() == torch.per_tensor_affine:
        wd = (wi - w.q_zero_point()) * w.q_scale()
    else:
        wd = (wi - w.q_per_channel_zero_points().to(torch.float64)[:, None]) * \
            w.q_per_channel_scales().to(torch.float64)[:, None]
    x = torch.linspace(-1.0, 3.0, 4 * wi.shape[1]).reshape(4, wi.shape[1])
    try:
        y = torch.ops.quantized.linear_dynamic(x, obj, True).to(torch.float64)
    except RuntimeError:
        return None
    bias = b.detach().to(torch.float64) if b is not None else 0.0
    best = None
    for qmax in (127, 255):
        s, z = _choose_qparams(x, qmax)
        xq = torch.clamp(torch.round(x.to(torch.float64) / s) + z, 0, 255)
        err = float(((xq - z) * s @ wd.t() + bias - y).abs().max())
        if best is None or err < best[0]:
            best = (err, qmax)
    return best[1]


def _unpack_cell(name, state):
    kind, _, _, longs, packed = state
    if kind != "quantized_dynamic":
        raise ValueError("%s: RNN cell params of kind %r are not supported (only int8 dynamic quantization's, "
                         "'quantized_dynamic': quantize_dynamic(..., dtype=torch.qint8))" % (name, kind))
    if len(packed) != 2 or len(longs) != 1:
        raise ValueError("%s: RNN cell params with %d packed linears and %d flags (expected 2 and 1)" %
                         (name, len(packed), len(longs)))
    out = unpack(name + ".ih", packed[0]) + unpack(name + ".hh", packed[1])
    return out + [(name + ".reduce_range", torch.tensor(int(longs[0]), dtype=torch.int64))]


def unpack(name, obj):
    """[(key, tensor)] of packed params obj, the graph input name."""
    cell = _cell_state(obj)
    if cell is not None:
        return _unpack_cell(name, cell)
    w, b = obj.unpack()
    out = _weight(name, w)
    if b is not None:
        out.append((name + ".bias", b.detach().to(torch.float32).contiguous()))
    if not obj._has_method("transpose"):  # linear
        q = _reduced_qmax(w, b, obj)
        if q is not None:
            out.append((name + ".reduced_qmax", torch.tensor(q, dtype=torch.int64)))
    if obj._has_method("transpose"):  # conv
        i64 = lambda v: torch.tensor(v, dtype=torch.int64)  # noqa: E731
        out += [(name + ".stride", i64(obj.stride())), (name + ".padding", i64(obj.padding())),
                (name + ".dilation", i64(obj.dilation())), (name + ".output_padding", i64(obj.output_padding())),
                (name + ".groups", i64(obj.groups())), (name + ".transposed", i64(int(obj.transpose())))]
    return out


def find(model, name):
    """The packed params that graph input name stands for: the attribute of
    model at that dotted path. torch's capture hands over their pickled
    state (a tuple) instead, which differs by layer and torch version; the
    object itself unpacks the same everywhere. None if it is not one."""
    obj = model
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj if is_packed(obj) else None


def has_cells(model):
    """Does model hold dynamically quantized RNN layers (their weights RNN
    cell params, which torch 1.13's exporter cannot capture)?"""
    return any(hasattr(m, "_all_weight_values") for m in getattr(model, "modules", lambda: [])())


def create_jit_graph(model, args):
    """(graph, params) of a model holding RNN cell params, as torch 1.13's
    _create_jit_graph would give them if it could: it never traces such a
    model first (_pre_trace_quant_model looks for _packed_params only),
    and the traced module's branch fails to flatten the cell params' state
    (a tuple of packed linears) into the inputs it types. Here: traced as
    _pre_trace_quant_model traces, then that branch step by step, the
    cell params left out of the typed inputs as torch leaves packed params'
    types alone (setInputTensorTypes skips class-typed inputs by their
    count, here 0). A cell params' entry of params is its state tuple."""
    if not isinstance(model, torch.jit.ScriptModule):
        model = torch.jit.trace(model, tuple(args))
    from torch.onnx import utils
    graph = model.forward.graph
    torch._C._jit_pass_onnx_function_substitution(graph)
    frozen = torch._C._freeze_module(model._c, preserveParameters=True)
    module, params = torch._C._jit_onnx_list_model_parameters(frozen)
    method_graph = module._get_method("forward").graph
    args_params = tuple(args) + tuple(params)
    cell = [CELL_CLASS in str(i.type()) for i in method_graph.inputs()]
    counts = utils._get_param_count_list(method_graph, tuple(
        None if c else a for c, a in zip(cell, args_params)))
    in_vars, _ = torch.jit._flatten(tuple(a for c, a in zip(cell, args_params) if not c))
    graph = torch._C._propagate_and_assign_input_shapes(method_graph, tuple(in_vars), counts, False, False)
    return graph, params
