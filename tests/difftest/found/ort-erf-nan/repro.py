#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: NaN in different places (1); at [0, 1, 2, 1]: got 1.0, expected nan

    /usr/bin/python3 tests/difftest/found/ort-erf-nan/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: NaN in different places (1); at [0, 1, 2, 1]: got 1.0, expected nan
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
        v8 = torch.erf(x0)
        return v8


INPUTS = [
    torch.tensor([-1.4634120464324951, -0.27966612577438354, -0.0504022091627121, -1.4460970163345337, -2.4210405349731445, -0.7982880473136902, -9.99999991097579e-38, 1.4914610385894775, -0.44349968433380127, -0.44970592856407166, 1.0, 0.01798517443239689, -0.8131877183914185, 1.8897861242294312, -0.32123273611068726, 0.35252708196640015, float("nan"), 1.0, -float("inf"), 1.0143383741378784, 0.5, -0.815729022026062, -1.0000000150474662e+30, -0.04786381870508194, 0.0, -1.0000000150474662e+30, 1.255805492401123], dtype=torch.float32).reshape([1, 3, 3, 3]),  # x0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
