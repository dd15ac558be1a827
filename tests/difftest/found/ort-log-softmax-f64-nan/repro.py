#!/usr/bin/python3
"""difftest reproducer: mismatch in the dynamic form: at the second size: out0: NaN in different places (1); at [1, 1, 0]: got 46.051701891615394, expected nan

    /usr/bin/python3 tests/difftest/found/mismatch-dynamic-log_softmax_pow-9103-1972/repro.py [--onnxexp PATH] [--peer]

Exports M in the dynamic form (dynamic axes: size 2, run again at 3) with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: at the second size: out0: NaN in different places (1); at [1, 1, 0]: got 46.051701891615394, expected nan
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
        v0 = x0 ** x1
        v1 = F.log_softmax(v0, dim=-2)
        return v1


INPUTS = [
    torch.tensor([-1, -1, -3, 6], dtype=torch.int8).reshape([2, 2, 1]),  # x0
    torch.tensor([-0.0031968180371849675], dtype=torch.float64).reshape([]),  # x1
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
