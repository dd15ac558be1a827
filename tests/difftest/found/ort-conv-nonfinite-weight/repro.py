#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: NaN in different places (1); at [0, 0, 0]: got nan, expected 4.402155876159668

    /usr/bin/python3 tests/difftest/found/ort-conv-nonfinite-weight/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: NaN in different places (1); at [0, 0, 0]: got nan, expected 4.402155876159668
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

    def forward(self, x7, x8, v5):
        v10 = F.conv1d(v5, x7, x8, stride=2, padding=1, dilation=2, groups=2)
        return v10


INPUTS = [
    torch.tensor([-float("inf"), -0.0, 2.790935516357422, -0.2839529812335968, 0.5, 0.07814596593379974], dtype=torch.float32).reshape([2, 1, 3]),  # x7
    torch.tensor([0.0, -4.496245861053467], dtype=torch.float32).reshape([2]),  # x8
    torch.tensor([1.0353692770004272, -0.7588267922401428, -0.7620601058006287, 1.5773048400878906, 0.9436607360839844, 0.0, 0.5, 0.4423096477985382, 0.16502706706523895, -0.738877534866333], dtype=torch.float32).reshape([1, 2, 5]),  # v5
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
