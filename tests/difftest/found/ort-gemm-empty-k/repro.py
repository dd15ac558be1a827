#!/usr/bin/python3
"""difftest reproducer: ort-error in the trace form: Non-zero status code returned while running MatMul node. Name:'MatMul_0' Status Message: matmul_helper.h:142 Compute left operand cannot broadcast on dim 0

    /usr/bin/python3 tests/difftest/found/ort-gemm-empty-k/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: ort-error: Non-zero status code returned while running MatMul node. Name:'MatMul_0' Status Message: matmul_helper.h:142 Compute left operand cannot broadcast on dim 0
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

    def forward(self, x3, x4):
        v1 = torch.mv(x3, x4)
        return v1


INPUTS = [
    torch.tensor([], dtype=torch.float16).reshape([0, 6]),  # x3
    torch.tensor([0.0207366943359375, 0.00373077392578125, 0.01103973388671875, 0.01233673095703125, 0.01116180419921875, 0.00829315185546875], dtype=torch.float16).reshape([6]),  # x4
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
