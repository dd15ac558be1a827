#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: 8 of 32 elements differ; at [0, 0]: got -9223372036854775808, expected 0

    /usr/bin/python3 tests/difftest/found/ort-int-pow-overflow/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 8 of 32 elements differ; at [0, 0]: got -9223372036854775808, expected 0
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

    def forward(self, v8, b1):
        v30 = v8 ** b1
        return v30


INPUTS = [
    torch.tensor([0, 0, 0, 1, 0, 2, 0, 3, 1, 0, 1, 1, 1, 2, 1, 3, 2, 0, 2, 1, 2, 2, 2, 3, 3, 0, 3, 1, 3, 2, 3, 3], dtype=torch.int64).reshape([16, 2]),  # v8
    torch.tensor([-1], dtype=torch.int32).reshape([1]),  # b1
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
