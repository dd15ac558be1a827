#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: 1 of 1 elements off (rtol 1.1e-04 atol 1.1e-04); at [0]: got 0.0, expected 1.0

    /usr/bin/python3 tests/difftest/found/hann-window-length-1/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 1 of 1 elements off (rtol 1.1e-04 atol 1.1e-04); at [0]: got 0.0, expected 1.0
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

    def forward(self):
        v0 = torch.hann_window(1, periodic=True)
        return v0


INPUTS = [
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
