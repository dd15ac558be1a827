"""Tiny safetensors reader/writer on numpy (no PyPI package needed).

Format: little-endian u64 header length N, N bytes of JSON header
{name: {"dtype": D, "shape": [...], "data_offsets": [begin, end]}, ...},
then the raw little-endian tensor bytes.

Writing is deterministic: keys are sorted, data is laid out in key order,
the JSON is compact, no "__metadata__", and the header is padded with spaces
to a multiple of 8 bytes (as the reference implementation does).

bfloat16 has no numpy dtype: it is read as a uint16 array wrapped in BF16,
and written from a BF16 wrapper (or a torch.bfloat16 tensor via from_torch).
"""

import json
import struct

import numpy as np

# safetensors dtype string <-> numpy dtype (little-endian)
_ST_TO_NP = {
    "F64": np.dtype("<f8"),
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "I64": np.dtype("<i8"),
    "I32": np.dtype("<i4"),
    "I16": np.dtype("<i2"),
    "I8": np.dtype("i1"),
    "U64": np.dtype("<u8"),
    "U32": np.dtype("<u4"),
    "U16": np.dtype("<u2"),
    "U8": np.dtype("u1"),
    "BOOL": np.dtype("?"),
}
_NP_TO_ST = {v.newbyteorder("="): k for k, v in _ST_TO_NP.items()}


class BF16:
    """A bfloat16 tensor stored as its raw uint16 bit patterns."""

    def __init__(self, bits):
        bits = np.asarray(bits)
        if bits.dtype != np.uint16:
            raise TypeError("BF16 wants uint16 bits, got %s" % bits.dtype)
        self.bits = bits

    @property
    def shape(self):
        return self.bits.shape

    @classmethod
    def from_float32(cls, a):
        """Round-to-nearest-even float32 -> bfloat16."""
        a = np.ascontiguousarray(a, dtype=np.float32)
        u = a.view(np.uint32).astype(np.uint64)
        rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
        nan = np.isnan(a)
        out = rounded.astype(np.uint16)
        out[nan] = 0x7FC0
        return cls(out)

    def to_float32(self):
        return (self.bits.astype(np.uint32) << 16).view(np.float32)

    def __eq__(self, other):
        return isinstance(other, BF16) and np.array_equal(self.bits, other.bits)

    def __repr__(self):
        return "BF16(%r)" % (self.to_float32(),)


def st_dtype(a):
    """safetensors dtype string of a numpy array or BF16 wrapper."""
    if isinstance(a, BF16):
        return "BF16"
    dt = np.dtype(a.dtype).newbyteorder("=")
    try:
        return _NP_TO_ST[dt]
    except KeyError:
        raise TypeError("safetensors has no dtype for numpy %s" % a.dtype)


def _raw(a):
    if isinstance(a, BF16):
        return np.ascontiguousarray(a.bits, dtype="<u2").tobytes()
    dt = np.dtype(a.dtype)
    return np.ascontiguousarray(a, dtype=dt.newbyteorder("<") if dt.itemsize > 1 else dt).tobytes()


def from_torch(t):
    """torch.Tensor -> numpy array (or BF16), detached, contiguous, on CPU."""
    import torch

    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        return BF16(t.view(torch.int16).numpy().view(np.uint16).copy())
    return t.numpy().copy()


def dumps(tensors):
    """dict name -> numpy array / BF16 / torch.Tensor  ->  bytes."""
    header = {}
    blobs = []
    offset = 0
    for name in sorted(tensors):
        a = tensors[name]
        if not isinstance(a, (np.ndarray, BF16)):
            if hasattr(a, "detach"):
                a = from_torch(a)
            else:
                a = np.asarray(a)
        raw = _raw(a)
        header[name] = {
            "dtype": st_dtype(a),
            "shape": [int(d) for d in a.shape],
            "data_offsets": [offset, offset + len(raw)],
        }
        blobs.append(raw)
        offset += len(raw)
    h = json.dumps(header, separators=(",", ":"), sort_keys=True).encode("utf-8")
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + b"".join(blobs)


def save(tensors, path):
    data = dumps(tensors)
    with open(path, "wb") as f:
        f.write(data)


def loads(data):
    """bytes -> dict name -> numpy array (BF16 wrapper for bfloat16)."""
    if len(data) < 8:
        raise ValueError("safetensors: file too short")
    (n,) = struct.unpack("<Q", data[:8])
    if 8 + n > len(data):
        raise ValueError("safetensors: header length %d past end of file" % n)
    header = json.loads(data[8 : 8 + n].decode("utf-8"))
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        shape = tuple(info["shape"])
        buf = data[base + b : base + e]
        if info["dtype"] == "BF16":
            a = np.frombuffer(buf, dtype="<u2").astype(np.uint16).reshape(shape)
            out[name] = BF16(a)
            continue
        dt = _ST_TO_NP.get(info["dtype"])
        if dt is None:
            raise ValueError("safetensors: unsupported dtype %s for %s" % (info["dtype"], name))
        count = int(np.prod(shape, dtype=np.int64))
        if count * dt.itemsize != e - b:
            raise ValueError("safetensors: %s: %d bytes for shape %s %s" % (name, e - b, shape, info["dtype"]))
        out[name] = np.frombuffer(buf, dtype=dt).astype(dt.newbyteorder("=")).reshape(shape)
    return out


def load(path):
    with open(path, "rb") as f:
        return loads(f.read())


def header(path):
    """Just the JSON header of a safetensors file."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(n).decode("utf-8"))


if __name__ == "__main__":  # self-check: round-trip every dtype
    import os
    import sys
    import tempfile

    rng = np.random.default_rng(0)
    t = {
        "f64": rng.standard_normal((2, 3)),
        "f32": rng.standard_normal((4,)).astype(np.float32),
        "f16": rng.standard_normal((3, 1)).astype(np.float16),
        "i64": np.arange(-3, 3, dtype=np.int64),
        "i32": np.arange(5, dtype=np.int32).reshape(5, 1),
        "i16": np.arange(4, dtype=np.int16),
        "i8": np.array([-128, 127], dtype=np.int8),
        "u8": np.array([0, 255], dtype=np.uint8),
        "u16": np.array([1, 65535], dtype=np.uint16),
        "b": np.array([True, False, True]),
        "scalar": np.array(3.5, dtype=np.float32),
        "empty": np.zeros((0, 3), dtype=np.float32),
        "bf16": BF16.from_float32(np.array([1.0, -2.5, 3.14159], dtype=np.float32)),
    }
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "t.safetensors")
        save(t, p)
        back = load(p)
        assert sorted(back) == sorted(t)
        for k, v in t.items():
            if isinstance(v, BF16):
                assert back[k] == v, k
            else:
                assert back[k].dtype == v.dtype and back[k].shape == v.shape, k
                assert np.array_equal(back[k], v), k
        assert dumps(t) == dumps(dict(reversed(list(t.items()))))
        (n,) = struct.unpack("<Q", dumps(t)[:8])
        assert n % 8 == 0
    print("st.py: ok")
    sys.exit(0)
