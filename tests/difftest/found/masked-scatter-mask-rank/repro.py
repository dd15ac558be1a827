#!/usr/bin/python3
"""difftest reproducer: ort-error in the trace form: Non-zero status code returned while running ScatterND node. Name:'ScatterND_5' Status Message: last dimension of indices must not be larger than rank of input t

    /usr/bin/python3 tests/difftest/found/masked-scatter-mask-rank/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: ort-error: Non-zero status code returned while running ScatterND node. Name:'ScatterND_5' Status Message: last dimension of indices must not be larger than rank of input tensor
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

    def forward(self, x0, x1, x2):
        v0 = torch.masked_scatter(x0, x1, x2)
        return v0


INPUTS = [
    torch.tensor([2.5, -0.75], dtype=torch.float32).reshape([1, 2]),  # x0
    torch.tensor([True, False], dtype=torch.bool).reshape([1, 1, 2]),  # x1
    torch.tensor([1.5, -0.25], dtype=torch.float32).reshape([2]),  # x2
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
