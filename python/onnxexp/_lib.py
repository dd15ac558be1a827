"""ctypes binding of libonnxexp: the few entry points the package calls.

The library is found, in order, at $ONNXEXP_LIBRARY; where `cmake
--install` put it (recorded in _config.py beside this file); in the build
directory of the checkout this file sits in (build/, as scripts/build.sh
makes it; $ONNXEXP_BUILD_DIR names another); and by the system's search
(ctypes.util.find_library). It is loaded on first use, so `import onnxexp`
and `onnxexp.dump` work without it.

The structs mirror <onnxexp/export.h>; tests/python/test_api.py checks
every field's offset against the C compiler's.
"""

import ctypes
import ctypes.util
import os
import threading

from ._errors import ExportError

c_int, c_size_t, c_char_p, c_void_p = ctypes.c_int, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_void_p

WARNING_FN = ctypes.CFUNCTYPE(None, c_void_p, c_char_p)
PROGRESS_FN = ctypes.CFUNCTYPE(None, c_void_p, c_char_p)
OP_VISIT_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_char_p, c_int)

# onnxexp_status
OK, ERR_USAGE = 0, 1


class DynamicAxis(ctypes.Structure):
    _fields_ = [("input", c_char_p), ("axis", c_int), ("param", c_char_p)]


class CustomOpset(ctypes.Structure):
    _fields_ = [("domain", c_char_p), ("version", ctypes.c_int64)]


class Options(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("opset_version", c_int),
        ("weights_path", c_char_p),
        ("weights_data", c_void_p),
        ("weights_size", c_size_t),
        ("input_names", ctypes.POINTER(c_char_p)),
        ("n_input_names", c_int),
        ("output_names", ctypes.POINTER(c_char_p)),
        ("n_output_names", c_int),
        ("dynamic_axes", ctypes.POINTER(DynamicAxis)),
        ("n_dynamic_axes", c_int),
        ("do_constant_folding", c_int),
        ("keep_initializers_as_inputs", c_int),
        ("export_params", c_int),
        ("operator_export_type", c_int),
        ("training", c_int),
        ("custom_opsets", ctypes.POINTER(CustomOpset)),
        ("n_custom_opsets", c_int),
        ("doc_string", c_char_p),
        ("strip_doc_string", c_int),
        ("external_data", c_int),
        ("external_data_name", c_char_p),
        ("quiet", c_int),
        ("warning", WARNING_FN),
        ("warning_user", c_void_p),
        ("weights", c_void_p),
        ("progress", PROGRESS_FN),
        ("progress_user", c_void_p),
    ]


_SIGNATURES = {
    # name: (restype, argtypes)
    "onnxexp_version": (c_char_p, []),
    "onnxexp_free": (None, [c_void_p]),
    "onnxexp_status_string": (c_char_p, [c_int]),
    "onnxexp_diag_create": (c_int, [ctypes.POINTER(c_void_p)]),
    "onnxexp_diag_free": (None, [c_void_p]),
    "onnxexp_diag_status": (c_int, [c_void_p]),
    "onnxexp_diag_message": (c_char_p, [c_void_p]),
    "onnxexp_diag_file": (c_char_p, [c_void_p]),
    "onnxexp_diag_line": (c_int, [c_void_p]),
    "onnxexp_diag_col": (c_int, [c_void_p]),
    "onnxexp_diag_op": (c_char_p, [c_void_p]),
    "onnxexp_diag_source_file": (c_char_p, [c_void_p]),
    "onnxexp_diag_source_line": (c_int, [c_void_p]),
    "onnxexp_options_init": (c_int, [ctypes.POINTER(Options), c_size_t, c_void_p]),
    "onnxexp_weights_create": (c_int, [ctypes.POINTER(c_void_p), c_void_p]),
    "onnxexp_weights_free": (None, [c_void_p]),
    "onnxexp_weights_add": (c_int, [c_void_p, c_char_p, c_int, c_int, ctypes.POINTER(ctypes.c_int64),
                                    c_void_p, c_size_t, c_void_p]),
    "onnxexp_export_text": (c_int, [c_char_p, c_size_t, c_char_p, c_char_p, ctypes.POINTER(Options), c_void_p]),
    "onnxexp_export_text_to_buffer": (c_int, [c_char_p, c_size_t, c_char_p, ctypes.POINTER(Options),
                                              ctypes.POINTER(c_void_p), ctypes.POINTER(c_size_t), c_void_p]),
    "onnxexp_export_text_to_pretty_string": (c_int, [c_char_p, c_size_t, c_char_p, ctypes.POINTER(Options),
                                                     ctypes.POINTER(c_void_p), c_void_p]),
    "onnxexp_list_ops": (c_int, [c_int, OP_VISIT_FN, c_void_p, c_void_p]),
}

_lock = threading.Lock()
_lib = None
_path = None


def _candidates():
    env = os.environ.get("ONNXEXP_LIBRARY")
    if env:
        yield env, "$ONNXEXP_LIBRARY"
        return
    try:
        from . import _config  # written by `cmake --install`

        yield _config.LIBRARY, "the installed library (%s)" % os.path.join(os.path.dirname(__file__), "_config.py")
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    top = os.path.dirname(os.path.dirname(here))  # the checkout, when this is python/onnxexp
    build = os.environ.get("ONNXEXP_BUILD_DIR") or os.path.join(top, "build")
    yield os.path.join(build, "src", "export", "public", "libonnxexp.so"), "the checkout's build"
    found = ctypes.util.find_library("onnxexp")
    if found:
        yield found, "the system's library path"


def lib():
    """The loaded library (loads it once)."""
    global _lib, _path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for path, where in _candidates():
            if os.sep in path and not os.path.exists(path):
                tried.append("%s (%s): missing" % (path, where))
                continue
            try:
                handle = ctypes.CDLL(path)
            except OSError as e:
                tried.append("%s (%s): %s" % (path, where, e))
                continue
            for name, (res, args) in _SIGNATURES.items():
                try:
                    fn = getattr(handle, name)
                except AttributeError:
                    raise ExportError("%s is too old for this package: it lacks %s (rebuild and reinstall "
                                      "onnxexp)" % (path, name)) from None
                fn.restype, fn.argtypes = res, args
            _lib, _path = handle, path
            return _lib
        raise ExportError("libonnxexp not found; build it (bash scripts/build.sh, or cmake --install) or set "
                          "ONNXEXP_LIBRARY to its path. Tried: " + ("; ".join(tried) or "nothing"))


def library_path():
    lib()
    return _path


def version():
    return lib().onnxexp_version().decode()


def _s(b):
    return b.decode("utf-8", "replace") if b else ""


class Diag:
    """An onnxexp_diag for one call; raise_for turns a failure into ExportError."""

    def __init__(self):
        self.p = c_void_p()
        if lib().onnxexp_diag_create(ctypes.byref(self.p)) != OK:
            raise MemoryError("onnxexp_diag_create")

    def close(self):
        if self.p:
            lib().onnxexp_diag_free(self.p)
            self.p = c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def error(self, status, ir_name=None):
        L = lib()
        d = self.p
        st = L.onnxexp_diag_status(d) or status
        file = _s(L.onnxexp_diag_file(d))
        return ExportError(
            _s(L.onnxexp_diag_message(d)) or "export failed",
            status=_s(L.onnxexp_status_string(st)),
            code=st,
            ir_file=file,
            ir_line=L.onnxexp_diag_line(d) if file == ir_name or ir_name is None else 0,
            ir_col=L.onnxexp_diag_col(d),
            op=_s(L.onnxexp_diag_op(d)),
            source_file=_s(L.onnxexp_diag_source_file(d)),
            source_line=L.onnxexp_diag_source_line(d),
        )


def options_struct():
    """A zeroed Options with the library's defaults."""
    o = Options()
    with Diag() as d:
        st = lib().onnxexp_options_init(ctypes.byref(o), ctypes.sizeof(o), d.p)
        if st != OK:
            raise ExportError("%s does not take this package's options (%s): rebuild and reinstall onnxexp"
                              % (library_path(), _s(lib().onnxexp_diag_message(d.p))))
    return o


class Weights:
    """An onnxexp_weights set over tensors held by the caller (borrowed)."""

    def __init__(self):
        self.p = c_void_p()
        with Diag() as d:
            if lib().onnxexp_weights_create(ctypes.byref(self.p), d.p) != OK:
                raise d.error(ERR_USAGE)

    def add(self, name, dtype, shape, ptr, nbytes):
        dims = (ctypes.c_int64 * max(1, len(shape)))(*shape)
        with Diag() as d:
            st = lib().onnxexp_weights_add(self.p, name.encode(), dtype, len(shape), dims,
                                           c_void_p(ptr or None), nbytes, d.p)
            if st != OK:
                raise d.error(st)

    def close(self):
        if self.p:
            lib().onnxexp_weights_free(self.p)
            self.p = c_void_p()


def take_string(p):
    """A char * the library malloc'd: its text, then freed."""
    try:
        return ctypes.string_at(p).decode("utf-8", "replace")
    finally:
        lib().onnxexp_free(p)


def take_buffer(p, n):
    try:
        return ctypes.string_at(p, n)
    finally:
        lib().onnxexp_free(p)


def list_ops(opset):
    out = []

    def visit(user, op, first):
        out.append((op.decode(), first))
        return 0

    cb = OP_VISIT_FN(visit)
    with Diag() as d:
        st = lib().onnxexp_list_ops(opset, cb, None, d.p)
        if st != OK:
            raise d.error(st)
    return out
