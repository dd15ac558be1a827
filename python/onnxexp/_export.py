"""onnxexp.export and friends: torch.onnx.export's arguments checked and
turned into the library's options, the graph captured, the IR text and
the tensors handed to libonnxexp in this process (tensors by pointer)."""

import ctypes
import io
import os
import sys
import warnings

import torch

from . import _capture, _lib, _safetensors
from ._errors import ExportError, refuse

TrainingMode = torch.onnx.TrainingMode
OperatorExportTypes = torch.onnx.OperatorExportTypes

DEFAULT_OPSET = 14  # torch 1.13's default (torch.onnx._constants.ONNX_DEFAULT_OPSET)
OPSET_MIN, OPSET_MAX = 9, 21
IR_NAME = "torchscript.ir"  # the captured text's name in diagnostics

_TRAINING = {TrainingMode.EVAL: 0, TrainingMode.PRESERVE: 1, TrainingMode.TRAINING: 2}
_EXPORT_TYPES = {OperatorExportTypes.ONNX: 0, OperatorExportTypes.ONNX_ATEN: 1,
                 OperatorExportTypes.ONNX_ATEN_FALLBACK: 2, OperatorExportTypes.ONNX_FALLTHROUGH: 3}

try:
    from torch.onnx.errors import OnnxExporterWarning as _WarnBase
except ImportError:  # pragma: no cover
    _WarnBase = UserWarning


class ExportWarning(_WarnBase):
    """A warning of the library (a tensor that binds to nothing, ...)."""


def _bool(name, v):
    if not isinstance(v, bool):
        raise refuse(name, "expected a bool, got %r" % (v,))
    return v


def _names(name, v):
    if v is None:
        return []
    if isinstance(v, str) or not all(isinstance(s, str) and s for s in v):
        raise refuse(name, "expected a sequence of non-empty str, got %r" % (v,))
    return list(v)


def _dynamic_axes(dynamic_axes):
    """[(name, axis, dim_param)] from either of torch's forms."""
    if dynamic_axes is None:
        return []
    if not hasattr(dynamic_axes, "items"):
        raise refuse("dynamic_axes", "expected a dict of name -> {axis: name} or [axes], got %r" % (dynamic_axes,))
    out = []
    for key, value in dynamic_axes.items():
        if not isinstance(key, str) or not key:
            raise refuse("dynamic_axes", "keys are input or output names, got %r" % (key,))
        if hasattr(value, "items"):
            for axis, param in value.items():
                if not isinstance(axis, int) or isinstance(axis, bool) or axis < 0:
                    raise refuse("dynamic_axes", "%s: axes are ints >= 0, got %r" % (key, axis))
                if not isinstance(param, str) or not param:
                    raise refuse("dynamic_axes", "%s: axis %d: names are non-empty str, got %r" % (key, axis, param))
                out.append((key, axis, param))
        elif isinstance(value, (list, tuple)):
            # torch names listed axes "<key>_dynamic_axes_<position + 1>"
            seen = set()
            for i, axis in enumerate(value):
                if not isinstance(axis, int) or isinstance(axis, bool) or axis < 0:
                    raise refuse("dynamic_axes", "%s: axes are ints >= 0, got %r" % (key, axis))
                if axis in seen:
                    warnings.warn("Duplicate dynamic axis index %d was provided for input %s." % (axis, key))
                    continue
                seen.add(axis)
                out.append((key, axis, "%s_dynamic_axes_%d" % (key, i + 1)))
        else:
            raise refuse("dynamic_axes", "%s: expected {axis: name} or [axes], got %r" % (key, value))
    return out


class _Options:
    """export()'s arguments, checked: what the capture and the library take."""

    def __init__(self, export_params=True, verbose=False, training=TrainingMode.EVAL, input_names=None,
                 output_names=None, operator_export_type=OperatorExportTypes.ONNX, opset_version=None,
                 do_constant_folding=True, dynamic_axes=None, keep_initializers_as_inputs=None,
                 custom_opsets=None, export_modules_as_functions=False):
        self.export_params = _bool("export_params", export_params)
        self.verbose = _bool("verbose", verbose)
        if training not in _TRAINING:
            raise refuse("training", "expected a torch.onnx.TrainingMode, got %r" % (training,))
        self.training = training
        self.input_names = _names("input_names", input_names)
        self.output_names = _names("output_names", output_names)
        if operator_export_type not in _EXPORT_TYPES:
            raise refuse("operator_export_type", "expected a torch.onnx.OperatorExportTypes, got %r"
                         % (operator_export_type,))
        self.operator_export_type = operator_export_type
        if opset_version is None:
            opset_version = DEFAULT_OPSET
        if not isinstance(opset_version, int) or isinstance(opset_version, bool) \
                or not OPSET_MIN <= opset_version <= OPSET_MAX:
            raise refuse("opset_version", "onnxexp exports opsets %d to %d, got %r"
                         % (OPSET_MIN, OPSET_MAX, opset_version))
        self.opset_version = opset_version
        self.do_constant_folding = _bool("do_constant_folding", do_constant_folding)
        self.dynamic_axes = _dynamic_axes(dynamic_axes)
        if keep_initializers_as_inputs is None:
            # torch: False for plain ONNX, True for the other export types
            keep_initializers_as_inputs = operator_export_type != OperatorExportTypes.ONNX
        self.keep_initializers_as_inputs = _bool("keep_initializers_as_inputs", keep_initializers_as_inputs)
        custom_opsets = {} if custom_opsets is None else custom_opsets
        if not hasattr(custom_opsets, "items") or not all(
                isinstance(k, str) and k and isinstance(v, int) and not isinstance(v, bool) and v >= 1
                for k, v in custom_opsets.items()):
            raise refuse("custom_opsets", "expected a dict of domain -> version >= 1, got %r" % (custom_opsets,))
        self.custom_opsets = dict(custom_opsets)
        if export_modules_as_functions:
            raise refuse("export_modules_as_functions", "onnxexp does not export modules as ONNX local "
                         "functions: every module's ops are inlined into the graph (pass False)")

    def c_struct(self, keep):
        """The library's onnxexp_options; keep collects what must outlive the call."""
        o = _lib.options_struct()
        o.opset_version = self.opset_version

        def strs(v):
            arr = (ctypes.c_char_p * max(1, len(v)))(*[s.encode() for s in v])
            keep.append(arr)
            return arr

        if self.input_names:
            o.input_names, o.n_input_names = strs(self.input_names), len(self.input_names)
        if self.output_names:
            o.output_names, o.n_output_names = strs(self.output_names), len(self.output_names)
        if self.dynamic_axes:
            ax = (_lib.DynamicAxis * len(self.dynamic_axes))()
            for i, (name, axis, param) in enumerate(self.dynamic_axes):
                ax[i].input, ax[i].axis, ax[i].param = name.encode(), axis, param.encode()
            keep.append(ax)
            o.dynamic_axes, o.n_dynamic_axes = ax, len(self.dynamic_axes)
        if self.custom_opsets:
            co = (_lib.CustomOpset * len(self.custom_opsets))()
            for i, (dom, ver) in enumerate(sorted(self.custom_opsets.items())):
                co[i].domain, co[i].version = dom.encode(), ver
            keep.append(co)
            o.custom_opsets, o.n_custom_opsets = co, len(self.custom_opsets)
        o.do_constant_folding = int(self.do_constant_folding)
        o.keep_initializers_as_inputs = int(self.keep_initializers_as_inputs)
        o.export_params = int(self.export_params)
        o.operator_export_type = _EXPORT_TYPES[self.operator_export_type]
        o.training = _TRAINING[self.training]
        if self.verbose:
            o.strip_doc_string = 0  # torch keeps node doc strings (source locations) when verbose
        return o


def _capture_with(model, args, opts):
    with _capture.exporting(model, opts.training, opts.operator_export_type, opts.opset_version, opts.verbose):
        return _capture.capture(model, args)


class _Call:
    """One library call: options, the weights set over the captured
    tensors, warnings and progress callbacks; closed after the call."""

    def __init__(self, captured, opts, progress):
        self.keep = []
        self.warnings = []
        self.o = opts.c_struct(self.keep)
        self.weights = _lib.Weights()
        try:
            for name, t in captured.tensors:
                self.weights.add(name, _capture.DTYPES[t.dtype], list(t.shape), t.data_ptr(), _capture.nbytes(t))
        except BaseException:
            self.weights.close()
            raise
        self.o.weights = self.weights.p
        self.o.warning = _lib.WARNING_FN(lambda user, msg: self.warnings.append(msg.decode("utf-8", "replace")))
        self.keep.append(self.o.warning)
        if progress:
            self.o.progress = _lib.PROGRESS_FN(_progress_to_stderr)
            self.keep.append(self.o.progress)
        self.text = captured.text.encode("utf-8")
        self.diag = _lib.Diag()

    def fail(self, status):
        return self.diag.error(status, IR_NAME)

    def close(self):
        self.diag.close()
        self.weights.close()
        for w in self.warnings:
            warnings.warn(w, ExportWarning, stacklevel=4)


def _progress_to_stderr(user, text):
    try:
        sys.stderr.write(text.decode("utf-8", "replace"))
        sys.stderr.flush()
    except Exception:  # noqa: BLE001  (a display must never fail the export)
        pass


def _on_terminal():
    try:
        return sys.stderr.isatty()
    except Exception:  # noqa: BLE001
        return False


def _pretty(call):
    L = _lib.lib()
    out = ctypes.c_void_p()
    st = L.onnxexp_export_text_to_pretty_string(call.text, len(call.text), IR_NAME.encode(), ctypes.byref(call.o),
                                                 ctypes.byref(out), call.diag.p)
    if st != _lib.OK:
        raise call.fail(st)
    return _lib.take_string(out)


def export(model, args, f, export_params=True, verbose=False, training=TrainingMode.EVAL, input_names=None,
           output_names=None, operator_export_type=OperatorExportTypes.ONNX, opset_version=None,
           do_constant_folding=True, dynamic_axes=None, keep_initializers_as_inputs=None, custom_opsets=None,
           export_modules_as_functions=False):
    """Exports a model into ONNX format: torch.onnx.export of torch 1.13,
    argument for argument, done by libonnxexp.

    The graph is captured as torch's legacy exporter captures it (traced,
    or scripted for ScriptModule/ScriptFunction, inside its exporter
    context) and exported in this process; parameters and tensor
    constants are read where they lie in memory, never copied or written
    out. f is a path (written atomically: a failed export leaves no file)
    or a binary file object. opset_version None means 14, torch 1.13's
    default. Options onnxexp does not support raise ExportError naming the
    option; so does any export error, with the model's file and line when
    the failing node records them. verbose prints the exported graph and
    keeps node doc strings, as torch does. Returns None.
    """
    opts = _Options(export_params, verbose, training, input_names, output_names, operator_export_type,
                    opset_version, do_constant_folding, dynamic_axes, keep_initializers_as_inputs, custom_opsets,
                    export_modules_as_functions)
    if isinstance(f, (str, bytes, os.PathLike)):
        path = os.fsdecode(f)
        if not path:
            raise refuse("f", "empty path")
    elif hasattr(f, "write"):
        path = None
    else:
        raise TypeError("f must be a path or a binary file object (io.BytesIO), not %s" % type(f).__name__)
    captured = _capture_with(model, args, opts)
    call = _Call(captured, opts, progress=_on_terminal())
    try:
        L = _lib.lib()
        if opts.verbose:
            print(_pretty(call))
        if path is not None:
            st = L.onnxexp_export_text(call.text, len(call.text), IR_NAME.encode(), os.fsencode(path),
                                       ctypes.byref(call.o), call.diag.p)
            if st != _lib.OK:
                raise call.fail(st)
        else:
            buf, n = ctypes.c_void_p(), ctypes.c_size_t()
            st = L.onnxexp_export_text_to_buffer(call.text, len(call.text), IR_NAME.encode(), ctypes.byref(call.o),
                                                 ctypes.byref(buf), ctypes.byref(n), call.diag.p)
            if st != _lib.OK:
                raise call.fail(st)
            f.write(_lib.take_buffer(buf, n.value))
    finally:
        call.close()
    return None


def export_to_pretty_string(model, args, export_params=True, verbose=False, training=TrainingMode.EVAL,
                            input_names=None, output_names=None, operator_export_type=OperatorExportTypes.ONNX,
                            export_type=None, google_printer=False, opset_version=None,
                            keep_initializers_as_inputs=None, custom_opsets=None, add_node_names=True,
                            do_constant_folding=True, dynamic_axes=None):
    """torch.onnx.export_to_pretty_string: the exported graph as readable
    text (what `onnxexp --pretty` prints), nothing written."""
    if export_type is not None:
        raise refuse("export_type", "onnxexp writes one protobuf file; export_type is deprecated in torch "
                     "and must be None")
    if google_printer:
        raise refuse("google_printer", "onnxexp prints its own text form, not protobuf's debug string")
    if add_node_names is not True:
        raise refuse("add_node_names", "onnxexp always names nodes")
    opts = _Options(export_params, verbose, training, input_names, output_names, operator_export_type,
                    opset_version, do_constant_folding, dynamic_axes, keep_initializers_as_inputs, custom_opsets)
    call = _Call(_capture_with(model, args, opts), opts, progress=False)
    try:
        return _pretty(call)
    finally:
        call.close()


def dump(model, args, f, weights=None, training=TrainingMode.EVAL, operator_export_type=OperatorExportTypes.ONNX,
         opset_version=None):
    """Writes what the onnxexp CLI exports: the model's TorchScript graph
    as IR text to f (a path, e.g. "model.ir") and its weights, with every
    tensor constant as "constant:NAME", to a safetensors file (default: f
    with its extension replaced by .safetensors, where the CLI looks).
    training, operator_export_type and opset_version shape the capture as
    in export(); give the CLI the same --training. Returns the two paths.
    Needs no libonnxexp."""
    opts = _Options(training=training, operator_export_type=operator_export_type, opset_version=opset_version)
    if not isinstance(f, (str, bytes, os.PathLike)) or not os.fsdecode(f):
        raise TypeError("f must be a path for the IR text, not %r" % (f,))
    ir_path = os.fsdecode(f)
    if weights is None:
        weights = os.path.splitext(ir_path)[0] + ".safetensors"
    weights = os.fsdecode(weights)
    if os.path.abspath(weights) == os.path.abspath(ir_path):
        raise refuse("weights", "the weights file would be the IR file %r" % ir_path)
    captured = _capture_with(model, args, opts)
    _safetensors.write(captured.tensors, weights)
    tmp = ir_path + ".tmp%d" % os.getpid()
    try:
        with io.open(tmp, "w", encoding="utf-8") as fh:
            fh.write(captured.text)
        os.replace(tmp, ir_path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return ir_path, weights


def list_ops(opset=None):
    """The aten/prim ops with a built-in symbolic at opset (None: at any
    opset), as {op: first opset}, in the library's table order: what
    `onnxexp --list-ops` prints."""
    if opset is not None and (not isinstance(opset, int) or isinstance(opset, bool)):
        raise refuse("opset", "expected an int or None, got %r" % (opset,))
    return dict(_lib.list_ops(opset or 0))
