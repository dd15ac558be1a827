#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: 2 of 3 elements differ; at [0]: got True, expected False

    /usr/bin/python3 tests/difftest/found/ort-cast-chain/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 2 of 3 elements differ; at [0]: got True, expected False
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

    def forward(self, x0):
        v0 = x0.long()
        v1 = v0.bool()
        return v1


INPUTS = [
    torch.tensor([-0.4490000009536743, 0.30000001192092896, 1.5], dtype=torch.float32).reshape([3]),  # x0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
