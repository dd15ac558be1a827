#!/usr/bin/python3
"""difftest reproducer: ort-error in the trace form: Non-zero status code returned while running Gather node. Name:'Gather_9' Status Message: indices element out of data bounds, idx=1 must be within the inclusive 

    /usr/bin/python3 tests/difftest/found/index-empty/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: ort-error: Non-zero status code returned while running Gather node. Name:'Gather_9' Status Message: indices element out of data bounds, idx=1 must be within the inclusive range [0,-1]
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

    def forward(self, x2, x3, x4):
        v3 = x2[x3, x4]
        return v3


INPUTS = [
    torch.tensor([], dtype=torch.int64).reshape([5, 1, 1, 0]),  # x2
    torch.tensor([1, 3], dtype=torch.int64).reshape([2]),  # x3
    torch.tensor([0], dtype=torch.int64).reshape([1]),  # x4
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
