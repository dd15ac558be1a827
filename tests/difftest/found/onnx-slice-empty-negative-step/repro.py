#!/usr/bin/python3
"""difftest reproducer: invalid in the trace form: onnx.checker: [ShapeInferenceError] (op_type:Slice, node name: Slice_0): [ShapeInferenceError] Inferred shape and existing shape differ in dimension 0: (1) vs (

    /usr/bin/python3 tests/difftest/found/onnx-slice-empty-negative-step/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: invalid: onnx.checker: [ShapeInferenceError] (op_type:Slice, node name: Slice_0): [ShapeInferenceError] Inferred shape and existing shape differ in dimension 0: (1) vs (0)
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
        v0 = torch.flip(x0, [0, 1, 2])
        return v0


INPUTS = [
    torch.tensor([], dtype=torch.int64).reshape([0, 1, 1]),  # x0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
