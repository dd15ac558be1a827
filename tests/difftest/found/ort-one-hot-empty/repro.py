#!/usr/bin/python3
"""difftest reproducer: crash in the trace form: onnxruntime-node died on this model

    /usr/bin/python3 tests/difftest/found/ort-one-hot-empty/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: crash: onnxruntime-node died on this model
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
        v3 = F.one_hot(x3, 5)
        return v3


INPUTS = [
    torch.tensor([], dtype=torch.int64).reshape([0]),  # x3
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
