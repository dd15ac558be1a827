#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: 1 of 2 elements off (rtol 1.0e-05 atol 1.0e-05); at [0, 0, 1]: got 0.012049772776663303, expected -0.003344096476212144

    /usr/bin/python3 tests/difftest/found/ort-resize-nearest-ratio/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 1 of 2 elements off (rtol 1.0e-05 atol 1.0e-05); at [0, 0, 1]: got 0.012049772776663303, expected -0.003344096476212144
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

    def forward(self, v0):
        v1 = F.interpolate(v0, size=2, mode='nearest')
        return v1


INPUTS = [
    torch.tensor([-0.003344096476212144, -0.0017583576263859868, -0.00867063831537962, 0.009930577129125595, 0.01140595879405737, -0.01529318280518055, 0.012049772776663303, -0.003344096476212144, -0.0017583576263859868, -0.00867063831537962, 0.009930577129125595, 0.01140595879405737, -0.01529318280518055, 0.012049772776663303], dtype=torch.float32).reshape([1, 1, 14]),  # v0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
