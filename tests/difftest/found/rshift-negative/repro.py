#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: 44 of 49 elements differ; at [0, 0, 1]: got 0, expected -1

    /usr/bin/python3 tests/difftest/found/rshift-negative/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 44 of 49 elements differ; at [0, 0, 1]: got 0, expected -1
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

    def forward(self, b1):
        v38 = b1 >> 7
        return v38


INPUTS = [
    torch.tensor([0, -5, -4, 6, 127, -5, 0, -5, -2, -3, 5, 5, -5, 4, 0, 126, -5, 6, 0, 6, 3, -4, -1, 4, 5, -2, 4, 6, 6, 127, 1, -1, -2, 1, 6, -2, -3, 2, 1, -2, 1, -6, 0, -3, -3, 5, -3, -2, 3], dtype=torch.int8).reshape([1, 7, 7]),  # b1
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
