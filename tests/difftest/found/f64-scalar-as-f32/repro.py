#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: 4 of 4 elements off (rtol 2.0e-12 atol 6.2e-12); at [0, 0]: got -0.5999999985098838, expected -0.6

    /usr/bin/python3 tests/difftest/found/f64-scalar-as-f32/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 4 of 4 elements off (rtol 2.0e-12 atol 6.2e-12); at [0, 0]: got -0.5999999985098838, expected -0.6
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

    def forward(self, x0):
        v0 = torch.rsub(x0, 0.1)
        return v0


INPUTS = [
    torch.tensor([0.7, -1.3, 2.5, 3.1], dtype=torch.float64).reshape([2, 2]),  # x0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
