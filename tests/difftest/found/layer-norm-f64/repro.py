#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: 6 of 6 elements off (rtol 2.0e-12 atol 1.0e-11); at [0, 0]: got -0.016002886483278442, expected -0.016002886284442398

    /usr/bin/python3 tests/difftest/found/layer-norm-f64/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 6 of 6 elements off (rtol 2.0e-12 atol 1.0e-11); at [0, 0]: got -0.016002886483278442, expected -0.016002886284442398
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
        v0 = F.layer_norm(x0, [3])
        return v0


INPUTS = [
    torch.tensor([5.000123456789012, 5.0007000000001, 4.9997, 5.0011, 5.0025, 4.9991], dtype=torch.float64).reshape([2, 3]),  # x0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
