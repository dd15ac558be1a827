#!/usr/bin/python3
"""difftest reproducer: mismatch in the dynamic form: out0: 3 of 3 elements off (rtol 1.0e-05 atol 1.0e-03); at [0]: got -41.75007247924805, expected -37.249141693115234

    /usr/bin/python3 tests/difftest/found/roll-dynamic/repro.py [--onnxexp PATH] [--peer]

Exports M in the dynamic form (dynamic axes: size 3, run again at 5) with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 3 of 3 elements off (rtol 1.0e-05 atol 1.0e-03); at [0]: got -41.75007247924805, expected -37.249141693115234
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

    def forward(self, x1):
        v0 = torch.roll(x1, [4], [0])
        return v0


INPUTS = [
    torch.tensor([-41.75007247924805, 104.67427062988281, -37.249141693115234], dtype=torch.float32).reshape([3]),  # x1
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
