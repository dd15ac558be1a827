#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: shape [3, 3, 2], expected [3, 2]

    /usr/bin/python3 tests/difftest/found/fft-1d-rank/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: shape [3, 3, 2], expected [3, 2]
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
        v0 = torch.view_as_real(torch.fft.rfft(x0))
        return v0


INPUTS = [
    torch.tensor([1.0, 2.0, -1.0, 0.5], dtype=torch.float32).reshape([4]),  # x0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
