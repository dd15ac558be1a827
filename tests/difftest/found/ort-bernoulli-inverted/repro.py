#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: 6 of 6 elements off (rtol 1.1e-04 atol 1.1e-04); at [0, 0]: got 1.0, expected 0.0

    /usr/bin/python3 tests/difftest/found/ort-bernoulli-inverted/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 6 of 6 elements off (rtol 1.1e-04 atol 1.1e-04); at [0, 0]: got 1.0, expected 0.0
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
        v0 = torch.bernoulli(x0)
        return v0


INPUTS = [
    torch.tensor([0.0, 1.0, 0.0, 0.0, 0.0, 1.0], dtype=torch.float32).reshape([2, 3]),  # x0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
