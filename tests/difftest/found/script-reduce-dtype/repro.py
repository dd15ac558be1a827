#!/usr/bin/python3
"""difftest reproducer: mismatch in the script form: out0: dtype int64, expected float32

    /usr/bin/python3 tests/difftest/found/script-reduce-dtype/repro.py [--onnxexp PATH] [--peer]

Exports M in the script form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: dtype int64, expected float32
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
        self.p0 = torch.nn.Parameter(torch.zeros([3, 3], dtype=torch.float32))

    def forward(self):
        v4 = torch.sum(self.p0, [-2, 1], keepdim=True)
        return v4


INPUTS = [
]
WEIGHTS = {
    'p0': torch.tensor([1.5460078716278076, 1.0, -3.644329786300659, 3.845381498336792, 1.8516069650650024, 2.2341346740722656, -0.0037177514750510454, -5.934889793395996, -1.5322744846343994], dtype=torch.float32).reshape([3, 3]),
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
