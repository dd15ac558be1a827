#!/usr/bin/python3
"""difftest reproducer: invalid in the dynamic form: onnx.checker: Field 'shape' of 'type' is required but missing.

    /usr/bin/python3 tests/difftest/found/squeeze-dynamic-rank/repro.py [--onnxexp PATH] [--peer]

Exports M in the dynamic form (dynamic axes: size 2, run again at 3) with onnxexp at opset 17, runs it in
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

    def forward(self, x0):
        v0 = torch.squeeze(x0)
        return v0


INPUTS = [
    torch.tensor([0.634126375394948, -0.7074734652418511, 0.5708679039235393, 0.6507340411295885, 0.6047237568784717, -0.8310203679954739], dtype=torch.float64).reshape([2, 1, 3]),  # x0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
