#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: 3 of 4 elements off (rtol 2.0e-12 atol 1.7e-10); at [1]: got -0.2370911485762361, expected -0.23709115387563637

    /usr/bin/python3 tests/difftest/found/f64-float-attribute/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 3 of 4 elements off (rtol 2.0e-12 atol 1.7e-10); at [1]: got -0.2370911485762361, expected -0.23709115387563637
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

    def forward(self, x3):
        v13 = F.leaky_relu(x3, 0.01)
        v14, v15 = torch.topk(v13, 4, dim=-1, largest=True)
        return v14


INPUTS = [
    torch.tensor([-23.709115387563635, -30.225638633794915, -74.07593874790066, 82.73319110289079], dtype=torch.float64).reshape([4]),  # x3
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
