#!/usr/bin/python3
"""difftest reproducer: ort-error in the trace form: Non-zero status code returned while running Conv node. Name:'Conv_2' Status Message: Invalid input shape: {2}

    /usr/bin/python3 tests/difftest/found/conv-tbc-kernel-longer/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: ort-error: Non-zero status code returned while running Conv node. Name:'Conv_2' Status Message: Invalid input shape: {2}
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
        v0 = torch.conv_tbc(x0, x1, x2, 0)
        return v0


INPUTS = [
    torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0], dtype=torch.float32).reshape([2, 2, 3]),  # x0
    torch.tensor([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], dtype=torch.float32).reshape([3, 3, 2]),  # x1
    torch.tensor([0.5, -1.0], dtype=torch.float32).reshape([2]),  # x2
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
