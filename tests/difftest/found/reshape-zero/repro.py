#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: shape [3, 0, 1], expected [0, 0, 1]

    /usr/bin/python3 tests/difftest/found/reshape-zero/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: shape [3, 0, 1], expected [0, 0, 1]
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

    def forward(self, x6):
        v66 = x6.reshape([0, 0, 1])
        return v66


INPUTS = [
    torch.tensor([], dtype=torch.float32).reshape([3, 0, 7]),  # x6
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
