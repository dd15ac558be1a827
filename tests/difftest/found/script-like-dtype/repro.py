#!/usr/bin/python3
"""difftest reproducer: mismatch in the script form: out0: dtype bool, expected float32

    /usr/bin/python3 tests/difftest/found/script-like-dtype/repro.py [--onnxexp PATH] [--peer]

Exports M in the script form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: dtype bool, expected float32
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
        v4 = torch.full_like(v0, 0.5, dtype=torch.float32)
        return v4


INPUTS = [
    torch.tensor([False, False, False, False], dtype=torch.bool).reshape([4, 1]),  # v0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
