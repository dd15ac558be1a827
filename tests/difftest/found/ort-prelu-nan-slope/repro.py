#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: NaN in different places (3); at [1, 1]: got nan, expected 0.5

    /usr/bin/python3 tests/difftest/found/ort-prelu-nan-slope/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: NaN in different places (3); at [1, 1]: got nan, expected 0.5
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

    def forward(self, x0, b1):
        v11 = F.prelu(x0, b1)
        return v11


INPUTS = [
    torch.tensor([0.5, -0.358094185590744, -0.5221856832504272, -0.15548323094844818, 0.6587048768997192, 0.5, -0.15843328833580017, -1.0, 0.5, 1.2019038200378418, 0.5, 0.5017680525779724, -0.4691086709499359, -1.4212861061096191, -1.0774099826812744, 1.2418289184570312, 0.5, -1.0, -0.07035019993782043, -0.8181084394454956, 0.5, 0.08502476662397385, 0.5, 0.5], dtype=torch.float32).reshape([6, 4]),  # x0
    torch.tensor([-0.11810469627380371, float("nan"), -2.2286465167999268, 1.2163482904434204], dtype=torch.float32).reshape([4]),  # b1
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
