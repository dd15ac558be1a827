#!/usr/bin/python3
"""difftest reproducer: invalid in the trace form: onnx.checker: [ShapeInferenceError] Shape inference error(s): (op_type:Reshape, node name: Reshape_1): [ShapeInferenceError] Invalid Target shape product of 0. 

    /usr/bin/python3 tests/difftest/found/im2col-empty/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: invalid: onnx.checker: [ShapeInferenceError] Shape inference error(s): (op_type:Reshape, node name: Reshape_1): [ShapeInferenceError] Invalid Target shape product of 0. Product cannot be 0 in combination with -1
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
        v0 = F.unfold(x0, [2, 2], dilation=1, padding=1, stride=1)
        return v0


INPUTS = [
    torch.tensor([], dtype=torch.float64).reshape([0, 2, 3, 3]),  # x0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
