#!/usr/bin/python3
"""difftest reproducer: ort-error in the trace form: Non-zero status code returned while running ReduceMax node. Name:'' Status Message:

    /usr/bin/python3 tests/difftest/found/ort-softmax-empty/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: ort-error: Non-zero status code returned while running ReduceMax node. Name:'' Status Message:
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

    def forward(self, v3):
        v5 = F.softmax(v3, dim=-1)
        return v5


INPUTS = [
    torch.tensor([], dtype=torch.float16).reshape([0]),  # v3
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
