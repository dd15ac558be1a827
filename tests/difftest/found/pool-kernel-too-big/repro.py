#!/usr/bin/python3
"""difftest reproducer: invalid in the trace form: onnx.checker: [ShapeInferenceError] (op_type:MaxPool, node name: MaxPool_0): [ShapeInferenceError] Inferred shape and existing shape differ in dimension 2: (1) 

    /usr/bin/python3 tests/difftest/found/pool-kernel-too-big/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: invalid: onnx.checker: [ShapeInferenceError] (op_type:MaxPool, node name: MaxPool_0): [ShapeInferenceError] Inferred shape and existing shape differ in dimension 2: (1) vs (0)
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

    def forward(self, x2):
        v7 = F.max_pool1d(x2, 3, 2, 0, ceil_mode=False)
        return v7


INPUTS = [
    torch.tensor([-0.13305284082889557, 0.28667959570884705, 0.5, 0.40382686257362366, 0.08516786247491837, 0.9958261251449585, 0.45823904871940613, 0.5], dtype=torch.float32).reshape([2, 2, 2]),  # x2
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
