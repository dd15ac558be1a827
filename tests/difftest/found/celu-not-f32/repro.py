#!/usr/bin/python3
"""difftest reproducer: invalid in the trace form: onnx.checker: [ShapeInferenceError] (op_type:Celu, node name: Celu_0): X typestr: T, has unsupported type: tensor(double)

    /usr/bin/python3 tests/difftest/found/celu-not-f32/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: invalid: onnx.checker: [ShapeInferenceError] (op_type:Celu, node name: Celu_0): X typestr: T, has unsupported type: tensor(double)
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
        v0 = F.celu(x0, alpha=0.5)
        return v0


INPUTS = [
    torch.tensor([-1.5, 0.5, 2.0], dtype=torch.float64).reshape([3]),  # x0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
