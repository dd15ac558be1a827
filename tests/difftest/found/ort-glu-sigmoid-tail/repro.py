#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: 1 of 3 elements off (rtol 3.0e-05 atol 3.0e+01); at [0, 2]: got -5.033706287129734e+30, expected -5.40183477730331e+30

    /usr/bin/python3 tests/difftest/found/ort-glu-sigmoid-tail/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 1 of 3 elements off (rtol 3.0e-05 atol 3.0e+01); at [0, 2]: got -5.033706287129734e+30, expected -5.40183477730331e+30
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

    def forward(self, v0):
        v2 = F.glu(v0, 1)
        return v2


INPUTS = [
    torch.tensor([67.0, -48.0, -6.496275155839098e+36, 58.0, -7.0, -14.0], dtype=torch.float32).reshape([1, 6]),  # v0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
