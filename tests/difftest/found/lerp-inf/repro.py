#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: NaN in different places (1); at [0]: got nan, expected -inf

    /usr/bin/python3 tests/difftest/found/lerp-inf/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: NaN in different places (1); at [0]: got nan, expected -inf
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

    def forward(self, x0, x1, x2):
        v0 = torch.lerp(x0, x1, x2)
        return v0


INPUTS = [
    torch.tensor([0.0, 1.0, -float("inf"), 2.0], dtype=torch.float32).reshape([4]),  # x0
    torch.tensor([float("inf"), -float("inf"), 3.0, 5.0], dtype=torch.float32).reshape([4]),  # x1
    torch.tensor([-0.699999988079071, -0.20000000298023224, 0.699999988079071, 0.30000001192092896], dtype=torch.float32).reshape([4]),  # x2
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
