#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: 3 of 3 elements off (rtol 2.0e-05 atol 4.0e-05); at [0, 0]: got 0.0, expected 2.0

    /usr/bin/python3 tests/difftest/found/ort-pad-negative/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 3 of 3 elements off (rtol 2.0e-05 atol 4.0e-05); at [0, 0]: got 0.0, expected 2.0
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
        v0 = F.pad(x0, [1, -1], 'constant', 2.0)
        return v0


INPUTS = [
    torch.tensor([0.25, 0.5, 1.0], dtype=torch.float32).reshape([3, 1]),  # x0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
