"""onnxexp: torch.onnx.export done by a native exporter.

    import onnxexp
    onnxexp.export(model, args, "model.onnx")   # torch.onnx.export's arguments

The graph is captured with torch as torch 1.13's legacy exporter captures
it, then exported by libonnxexp (loaded with ctypes) in this process, the
weights read where they lie in memory. onnxexp.dump writes the graph and
weights for the onnxexp command instead. See docs/python.md.
"""

from ._errors import ExportError
from ._export import (ExportWarning, OperatorExportTypes, TrainingMode, dump, export,
                      export_to_pretty_string, list_ops)

__all__ = ["export", "export_to_pretty_string", "dump", "list_ops", "ExportError", "ExportWarning",
           "TrainingMode", "OperatorExportTypes", "library_path"]


def library_path():
    """The libonnxexp this package uses (loading it if needed)."""
    from . import _lib

    return _lib.library_path()


def __getattr__(name):
    if name == "__version__":  # the library's version: the package is its front
        from . import _lib

        return _lib.version()
    raise AttributeError("module 'onnxexp' has no attribute %r" % name)
