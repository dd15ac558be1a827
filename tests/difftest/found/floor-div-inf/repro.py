#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: NaN in different places (14); at [0, 0, 0, 3]: got -inf, expected nan

    /usr/bin/python3 tests/difftest/found/floor-div-inf/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: NaN in different places (14); at [0, 0, 0, 3]: got -inf, expected nan
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

    def forward(self, x2, p0):
        v0 = x2 // p0
        return v0


INPUTS = [
    torch.tensor([-1, 5, 5, -2147483648, 2147483646, 0, 6, -1, -2147483648, 1, 5, 3, 0, 1, -1, -2147483648, -6, 2, -2147483647, 6, -2147483647, 6, -2147483647, -3, 0, -3, -6, 0, 3, 1, -6, 3, 2147483647, 6, 2, 2147483646, -5, -1, 2, -2147483648, -6, 0, -1, 6, -2147483647, -2147483647, -5, 3, -3, 1, 0, -4, -2147483647, -1, -5, 5, 2147483647, 1, -1, 2147483646, -1, 4, -3], dtype=torch.int32).reshape([3, 1, 3, 7]),  # x2
    torch.tensor([0.006832122802734375, -0.00487518310546875, 0.00783538818359375, 0.006587982177734375, 0.003055572509765625, 0.0162353515625, 0.0], dtype=torch.float16).reshape([1, 1, 1, 7]),  # p0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
