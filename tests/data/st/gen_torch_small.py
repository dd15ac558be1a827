"""Writes torch_small.safetensors, the compatibility fixture that
tests/unit/test_safetensors.c reads back. There is no safetensors package
here, so the format is written by hand the way the reference library writes
it: header keys sorted, data in key order, header padded with spaces to a
multiple of 8. Run: /usr/bin/python3 tests/data/st/gen_torch_small.py"""
import json
import os
import struct

import torch


def raw(t):
    t = t.contiguous()
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16
        t = t.view(torch.int16)
    return t.numpy().tobytes()


NAMES = {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16",
         torch.bfloat16: "BF16", torch.int64: "I64", torch.int32: "I32",
         torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8",
         torch.bool: "BOOL"}

tensors = {
    "fc.weight": torch.arange(12, dtype=torch.float32).reshape(3, 4) / 4,
    "fc.bias": torch.tensor([-1.5, 0.0, 2.25], dtype=torch.float64),
    "half": torch.tensor([1.0, -2.0, 0.5], dtype=torch.float16),
    "bf16": torch.tensor([3.0, -0.25], dtype=torch.bfloat16),
    "steps": torch.tensor([[1, -2], [3, 1 << 40]], dtype=torch.int64),
    "i32": torch.tensor([-7, 7], dtype=torch.int32),
    "i16": torch.tensor([-300], dtype=torch.int16),
    "i8": torch.tensor([-128, 127], dtype=torch.int8),
    "u8": torch.tensor([255, 0, 1], dtype=torch.uint8),
    "mask": torch.tensor([True, False, True]),
    "scalar": torch.tensor(42.5),
    "empty": torch.zeros(0, 3),
}

header, blobs, off = {"__metadata__": {"format": "pt"}}, [], 0
for name in sorted(tensors):
    t = tensors[name]
    b = raw(t)
    header[name] = {"dtype": NAMES[t.dtype], "shape": list(t.shape),
                    "data_offsets": [off, off + len(b)]}
    blobs.append(b)
    off += len(b)
h = json.dumps(header, separators=(",", ":")).encode()
h += b" " * (-len(h) % 8)
out = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                   "torch_small.safetensors")
with open(out, "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
