#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: NaN in different places (4); at [0]: got 4.0, expected nan

    /usr/bin/python3 tests/difftest/found/ort-max-min-nan-bound/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: NaN in different places (4); at [0]: got 4.0, expected nan
Beside this file: model.ir, model.safetensors and inputs.K.safetensors (what
onnxexp was given), program.json + program.safetensors (the program, which
tests/difftest/replay.py runs).
"""

import os
import sys

import torch

import torch.nn.functional as F  # noqa: E402


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x4, x5):
        v3 = torch.clamp(x4, min=x5)
        return v3


INPUTS = [
    torch.tensor([4, 254, 0, 0], dtype=torch.uint8).reshape([4]),  # x4
    torch.tensor([float("nan")], dtype=torch.float32).reshape([]),  # x5
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
