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
  conv params only (Conv2dPackedParamsBase, Conv3dPackedParamsBase):
    NAME.stride, NAME.padding, NAME.dilation, NAME.output_padding
                            I64 [k] (k spatial dims; conv1d is packed as a
                            conv2d of unit height: k = 2, weight [O, I, 1, K])
    NAME.groups             I64 0-d
    NAME.transposed         I64 0-d, 1 for a transposed conv
"""

import torch

_QDTYPES = {torch.qint8: torch.int8, torch.quint8: torch.uint8}


def is_packed(obj):
    """Is obj the packed params of a quantized conv or linear layer?"""
    return isinstance(obj, torch.ScriptObject) and obj._has_method("unpack")


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


def unpack(name, obj):
    """[(key, tensor)] of packed params obj, the graph input name."""
    w, b = obj.unpack()
    out = _weight(name, w)
    if b is not None:
        out.append((name + ".bias", b.detach().to(torch.float32).contiguous()))
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
