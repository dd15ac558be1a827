#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: 1 of 3 elements off (rtol 3.0e-05 atol 7.5e-05); at [0]: got inf, expected -inf

    /usr/bin/python3 tests/difftest/found/trunc-negative-zero/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 1 of 3 elements off (rtol 3.0e-05 atol 7.5e-05); at [0]: got inf, expected -inf
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

    def forward(self, x0, x1):
        v0 = torch.trunc(x0)
        v1 = x1 / v0
        return v1


INPUTS = [
    torch.tensor([-0.0, -0.30000001192092896, 2.5], dtype=torch.float32).reshape([3]),  # x0
    torch.tensor([1.0, 1.0, 1.0], dtype=torch.float32).reshape([3]),  # x1
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
