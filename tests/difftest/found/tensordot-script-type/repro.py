#!/usr/bin/python3
"""difftest reproducer: invalid in the script form: onnx.checker: Field 'elem_type' of 'type' is required but missing.

    /usr/bin/python3 tests/difftest/found/tensordot-script-type/repro.py [--onnxexp PATH] [--peer]

Exports M in the script form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: invalid: onnx.checker: Field 'elem_type' of 'type' is required but missing.
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
        v0 = torch.tensordot(x0, x1, 1)
        return v0


INPUTS = [
    torch.tensor([1.5, -2.0], dtype=torch.float64).reshape([2]),  # x0
    torch.tensor([1.0, 2.0, 3.0, 0.5, -1.0, 4.0], dtype=torch.float64).reshape([2, 3]),  # x1
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
