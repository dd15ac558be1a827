#!/usr/bin/python3
"""difftest reproducer: invalid in the script form: onnx.checker: Field 'shape' of 'type' is required but missing.

    /usr/bin/python3 tests/difftest/found/squeeze-script-rank/repro.py [--onnxexp PATH] [--peer]

Exports M in the script form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: invalid: onnx.checker: Field 'shape' of 'type' is required but missing.
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

    def forward(self, x2, x4, v7):
        v9 = v7[x2]
        v11, v12 = torch.broadcast_tensors(v9, x4)
        v13 = torch.squeeze(v12)
        return v13


INPUTS = [
    torch.tensor([True, False, True], dtype=torch.bool).reshape([3]),  # x2
    torch.tensor([True], dtype=torch.bool).reshape([1]),  # x4
    torch.tensor([0.0, 2.0, 4.0], dtype=torch.float32).reshape([3]),  # v7
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
