"""A safetensors writer (the format: a little-endian u64 header length N,
N bytes of JSON {name: {"dtype", "shape", "data_offsets": [begin, end]}},
then the raw little-endian tensor bytes).

The layout is the one tests/tools/st.py writes: keys sorted, data in key
order, compact JSON, header padded with spaces to a multiple of 8, no
"__metadata__". Tensors are written from their own memory, never joined
into one buffer, and the file appears complete or not at all (a temporary
beside it, renamed into place).
"""

import json
import os
import struct
import tempfile

from ._capture import ST_DTYPES
from ._errors import ExportError


def _raw(t):
    """t's bytes as a buffer over its memory (t: contiguous, on the CPU)."""
    import torch

    flat = t.reshape(-1)
    if flat.numel() == 0:
        return b""
    return flat.view(torch.uint8).numpy().data


def header(tensors):
    """The header bytes for [(name, tensor)] (length prefix included)."""
    head = {}
    offset = 0
    for name, t in sorted(tensors, key=lambda nt: nt[0]):
        if t.dtype not in ST_DTYPES:
            raise ExportError("%s: safetensors has no dtype for %s" % (name, t.dtype))
        n = t.numel() * t.element_size()
        head[name] = {"dtype": ST_DTYPES[t.dtype], "shape": [int(d) for d in t.shape],
                      "data_offsets": [offset, offset + n]}
        offset += n
    h = json.dumps(head, separators=(",", ":"), sort_keys=True).encode("utf-8")
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h


def write(tensors, path):
    """Writes [(name, tensor)] (contiguous CPU tensors, unique names) to path."""
    names = [n for n, _ in tensors]
    if len(set(names)) != len(names):
        raise ExportError("safetensors: duplicate tensor names")
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(header(tensors))
            for _, t in sorted(tensors, key=lambda nt: nt[0]):
                f.write(_raw(t))
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def _umask():
    m = os.umask(0)
    os.umask(m)
    return m
