#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: 1 of 3 elements off (rtol 1.1e-04 atol 4.4e-04); at [0]: got 3.1415927410125732, expected -3.1415927410125732

    /usr/bin/python3 tests/difftest/found/atan2-negzero/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 1 of 3 elements off (rtol 1.1e-04 atol 4.4e-04); at [0]: got 3.1415927410125732, expected -3.1415927410125732
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
        v0 = torch.atan2(x0, x1)
        return v0


INPUTS = [
    torch.tensor([-0.0, 0.0, 1.0], dtype=torch.float32).reshape([3]),  # x0
    torch.tensor([-4.0, -4.0, -1.0], dtype=torch.float32).reshape([3]),  # x1
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
