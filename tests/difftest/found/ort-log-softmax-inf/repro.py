#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: NaN in different places (6); at [0]: got -inf, expected nan

    /usr/bin/python3 tests/difftest/found/ort-log-softmax-inf/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: NaN in different places (6); at [0]: got -inf, expected nan
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

    def forward(self, x4):
        v0 = F.log_softmax(x4, dim=-1)
        return v0


INPUTS = [
    torch.tensor([0.24275526182158214, -0.29042410385710193, 2.010082678717734, 0.7255863472311961, 2.7119828974875344, -2.7907158545752986, float("inf")], dtype=torch.float64).reshape([7]),  # x4
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
