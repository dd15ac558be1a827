"""The TorchScript graph of a model, captured as torch 1.13's legacy
exporter captures it, and the tensors it needs.

torch.onnx.export (torch/onnx/utils.py, _export and _model_to_graph) sets
the exporter's globals, enters exporter_context (the training mode,
apex's state_dict hooks, logging), completes the arguments from forward's
signature (_decide_input_format), traces or scripts the model
(_create_jit_graph: parameters lifted to trailing graph inputs named by
their state_dict keys) and inlines it. capture() does the same, with the
same torch functions, and stops there: the rest is the library's. (One
step is left out on purpose: see exporting().)
"""

import contextlib
import sys

import torch

from . import _qpack
from ._errors import ExportError

# torch dtype -> onnxexp_dtype (numbered as onnx.TensorProto.DataType)
DTYPES = {
    torch.float32: 1, torch.uint8: 2, torch.int8: 3, torch.int16: 5, torch.int32: 6, torch.int64: 7,
    torch.bool: 9, torch.float16: 10, torch.float64: 11, torch.complex64: 14, torch.complex128: 15,
    torch.bfloat16: 16,
}
# ... and the safetensors names of the same (dump)
ST_DTYPES = {
    torch.float32: "F32", torch.uint8: "U8", torch.int8: "I8", torch.int16: "I16", torch.int32: "I32",
    torch.int64: "I64", torch.bool: "BOOL", torch.float16: "F16", torch.float64: "F64", torch.bfloat16: "BF16",
}

CONSTANT_PREFIX = "constant:"


def _utils():
    from torch.onnx import utils

    need = ("exporter_context", "_decide_input_format", "_create_jit_graph", "_pre_trace_quant_model",
            "_trace_and_get_graph_from_model", "warn_on_static_input_change")
    missing = [n for n in need if not hasattr(utils, n)]
    if missing:
        raise ExportError("this torch (%s) lacks torch.onnx.utils.%s, which onnxexp captures graphs with "
                          "(it follows torch 1.13's legacy exporter)" % (torch.__version__, ", ".join(missing)))
    return utils


def _globals():
    try:
        from torch.onnx._globals import GLOBALS
    except ImportError:  # pragma: no cover
        from torch.onnx.utils import GLOBALS
    return GLOBALS


class Captured:
    """The IR text and the tensors to bind: [(name, tensor)], graph inputs
    after the user inputs (parameters) first, then constants as
    "constant:NAME". Tensors are contiguous CPU tensors that share memory
    with the model's wherever they already were."""

    def __init__(self, text, tensors, n_user):
        self.text = text
        self.tensors = tensors
        self.n_user = n_user


@contextlib.contextmanager
def exporting(model, training, operator_export_type, opset_version, verbose):
    """torch.onnx.export's state around a capture: the exporter's globals
    (is_in_onnx_export() is true, the opset and export type are set), the
    scope map of the tracer, and exporter_context (training mode, ...)."""
    utils = _utils()
    G = _globals()
    if G.in_onnx_export:
        raise ExportError("an ONNX export is already running in this process (torch.onnx.export or "
                          "onnxexp.export): exports do not nest")
    saved = (G.export_onnx_opset_version, G.operator_export_type)
    # torch's globals know its own opsets only (7..17 in 1.13); past them,
    # what a capture might ask of them is its newest
    try:
        from torch.onnx import _constants
        G.export_onnx_opset_version = max(_constants.ONNX_MIN_OPSET, min(opset_version, _constants.ONNX_MAX_OPSET))
    except (ImportError, AttributeError, ValueError):  # pragma: no cover
        pass
    G.operator_export_type = operator_export_type
    try:
        G.in_onnx_export = True
        # Unlike torch, no _setup_trace_module_map: the module scopes it
        # records serve export_modules_as_functions, which onnxexp refuses,
        # and they renumber the traced values. Without them the text is
        # exactly str(_create_jit_graph(model, args)[0]), the IR contract of
        # the CLI (DESIGN.md), so export() and dump() + CLI agree byte for byte.
        with utils.exporter_context(model, training, verbose):
            yield
    finally:
        G.in_onnx_export = False
        G.export_onnx_opset_version, G.operator_export_type = saved


def _trace_without_copy(model, args):
    """torch.onnx.utils._trace_and_get_graph_from_model of torch 1.13, less
    one copy of the weights.

    Its tracer (torch.jit._get_trace_graph -> ONNXTracedModule.forward)
    clones every input of the trace, the parameters and buffers included,
    into a list the exporter never reads: a transient second copy of the
    weights. This is the same trace without the copies: the same wrapper,
    the same inputs (user tensors, then the unique state dict), the same
    checks, torch's name lookup (it names an input after the variable that
    holds it where the model first uses it). The clones are dead code in
    the graph, but they number values: same-dtype views (no copy) number
    them alike, so the text is the same (tests/python/roundtrip_py.py compares
    it with the fixtures', made by torch's own path)."""
    from torch.jit._trace import _create_interpreter_name_lookup_fn, _flatten, _unflatten, _unique_state_dict
    from torch.onnx import utils

    orig_keys = _unique_state_dict(model).keys()
    if not isinstance(args, tuple):
        args = (args,)
    in_vars, in_desc = _flatten(args)
    module_state = list(_unique_state_dict(model, keep_vars=True).values())
    outs, states = [], []

    def wrapper(*targs):
        in_args = []
        for i in range(len(in_vars)):
            if not isinstance(targs[i], torch.Tensor):
                raise RuntimeError("Expected Tensor argument")
            in_args.append(targs[i])
        trace_inputs = _unflatten(in_args, in_desc)
        # torch's clones, as views: a constant and an output each, dead,
        # numbering values as the clones do. In a generator expression, as
        # torch's are: the name lookup, run by the first op that sees a
        # tensor, looks two frames up for a variable holding it, and here
        # that is this wrapper, which has none.
        tuple(x.view(x.dtype) if x.layout == torch.strided else x.clone(memory_format=torch.preserve_format)
              for x in targs)
        states.append(_unflatten(in_args, in_desc))
        outs.append(model(*trace_inputs))
        states[0] = (states[0], trace_inputs)
        out_vars, _ = _flatten(outs)
        return out_vars[0] if len(out_vars) == 1 else tuple(out_vars)

    prev = torch.is_autocast_cache_enabled()
    torch.set_autocast_cache_enabled(False)
    try:
        graph, _ = torch._C._create_graph_by_tracing(wrapper, in_vars + module_state,
                                                     _create_interpreter_name_lookup_fn(), False, False)
    finally:
        torch.set_autocast_cache_enabled(prev)
    utils.warn_on_static_input_change(states[0])
    if orig_keys != _unique_state_dict(model).keys():
        raise RuntimeError("state_dict changed after running the tracer; something weird is happening in your model!")
    return graph, outs[0]


@contextlib.contextmanager
def _tracer_without_copy():
    from torch.onnx import utils

    saved = utils._trace_and_get_graph_from_model
    utils._trace_and_get_graph_from_model = _trace_without_copy
    try:
        yield
    finally:
        utils._trace_and_get_graph_from_model = saved


def _walk(block):
    for n in block.nodes():
        yield n
        for b in n.blocks():
            yield from _walk(b)


def _bindable(name, t):
    """t as a contiguous CPU tensor (the same memory when it already is)."""
    if not isinstance(t, torch.Tensor):
        raise ExportError("%s is a %s, not a tensor: onnxexp binds only tensors" % (name, type(t).__name__))
    t = t.detach()
    if t.is_sparse or t.is_quantized or t.dtype not in DTYPES:
        raise ExportError("%s: tensors of %s%s cannot be exported by onnxexp" % (
            name, t.dtype, " (sparse)" if t.is_sparse else ""))
    if t.device.type != "cpu":
        t = t.cpu()
    if not t.is_contiguous():
        t = t.contiguous()
    return t


def capture(model, args):
    """The graph of model(*args) as text, with its tensors. Call it inside
    exporting(); args as torch.onnx.export takes them."""
    utils = _utils()
    if isinstance(model, torch.nn.DataParallel):
        raise ExportError("torch.nn.DataParallel is not supported: export model.module instead")
    if not isinstance(model, (torch.nn.Module, torch.jit.ScriptModule, torch.jit.ScriptFunction)):
        raise TypeError("model must be a torch.nn.Module, torch.jit.ScriptModule or "
                        "torch.jit.ScriptFunction, not %s" % type(model).__name__)
    if sys.byteorder != "little":  # pragma: no cover
        raise ExportError("onnxexp hands tensors over as little-endian bytes; this machine is big-endian")
    args = utils._decide_input_format(model, args)
    if isinstance(args, (torch.Tensor, int, float, bool)):
        args = (args,)
    eager = model
    cells = _qpack.has_cells(model)
    model = utils._pre_trace_quant_model(model, args)
    if cells:  # dynamically quantized RNNs, which torch's capture refuses
        graph, params = _qpack.create_jit_graph(model, args)
    else:
        with _tracer_without_copy():
            graph, params, _, _ = utils._create_jit_graph(model, args)
    torch._C._jit_pass_inline(graph)

    inputs = [v.debugName() for v in graph.inputs()]
    n_user = len(inputs) - len(params)
    tensors = []
    for name, p in zip(inputs[n_user:], params):
        # a quantized layer's packed weights: their parts, as
        # docs/quantized.md names them
        packed = _qpack.find(eager, name) if isinstance(p, tuple) else None
        if packed is not None:
            try:
                parts = _qpack.unpack(name, packed)
            except ValueError as e:
                raise ExportError(str(e)) from None
            tensors.extend((k, _bindable("parameter %r" % k, t)) for k, t in parts)
            continue
        tensors.append((name, _bindable("parameter %r" % name, p)))
    seen = set()
    for n in _walk(graph):
        if n.kind() != "prim::Constant" or not n.hasAttribute("value"):
            continue
        name = n.output().debugName()
        if name in seen:
            continue
        if n.kindOf("value") == "t":
            seen.add(name)
            tensors.append((CONSTANT_PREFIX + name, _bindable("constant %%%s" % name, n.t("value"))))
        elif n.kindOf("value") == "ival" and isinstance(n.ival("value"), list):
            # a constant list of tensors (a scripted LSTM's frozen weights,
            # printed [<Tensors>]): item K as "constant:NAME.K"
            seen.add(name)
            for k, t in enumerate(n.ival("value")):
                if isinstance(t, torch.Tensor):
                    key = "%s.%d" % (name, k)
                    tensors.append((CONSTANT_PREFIX + key, _bindable("constant %%%s" % key, t)))
    return Captured(str(graph), tensors, n_user)


def nbytes(t):
    return t.numel() * t.element_size()
