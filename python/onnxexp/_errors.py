"""onnxexp.ExportError: what a failed export raises."""

try:  # caught by code written for torch.onnx.export, too
    from torch.onnx.errors import OnnxExporterError as _Base
except ImportError:  # pragma: no cover - torch always has it in 1.13
    _Base = RuntimeError


class ExportError(_Base):
    """An export onnxexp refused or could not do.

    str(e) is the library's diagnostic; when the failing TorchScript node
    carries its source comment, it starts with the model's file and line
    ("model.py:42: aten::foo is not supported at opset 17"). Attributes:

      message      the diagnostic without locations
      status       the library's status ("not supported", "usage error", ...)
      code         its number (onnxexp_status)
      op           the op involved ("aten::foo"), or ""
      source_file, source_line   the model's file and line, or "" and 0
      ir_file, ir_line, ir_col   where in the captured TorchScript IR
                   (onnxexp.dump writes that text), or "" and 0
      option       the export() argument refused, or None
    """

    def __init__(self, message, status="", code=0, op="", source_file="", source_line=0,
                 ir_file="", ir_line=0, ir_col=0, option=None):
        self.message = message
        self.status = status
        self.code = code
        self.op = op
        self.source_file = source_file
        self.source_line = source_line
        self.ir_file = ir_file
        self.ir_line = ir_line
        self.ir_col = ir_col
        self.option = option
        super().__init__(self._text())

    def _text(self):
        text = self.message
        if self.source_file and self.source_line:
            text = "%s:%d: %s" % (self.source_file, self.source_line, text)
        if self.ir_line:
            text += " (TorchScript IR line %d)" % self.ir_line
        return text


def refuse(option, why):
    """The error for an export() argument onnxexp does not support."""
    return ExportError("%s: %s" % (option, why), status="usage error", code=1, option=option)
