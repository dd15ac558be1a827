#!/usr/bin/python3
"""difftest reproducer: ort-error in the dynamic form: at the second size: Non-zero status code returned while running GatherElements node. Name:'GatherElements_0' Status Message: GatherElements op: 'indices' shape 

    /usr/bin/python3 tests/difftest/found/ort-gather-empty/repro.py [--onnxexp PATH] [--peer]

Exports M in the dynamic form (dynamic axes: size 6, run again at 9) with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: ort-error: at the second size: Non-zero status code returned while running GatherElements node. Name:'GatherElements_0' Status Message: GatherElements op: 'indices' shape should have values within bounds of 'data' shape. Invalid value in indices shape is: 9
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
        self.p0 = torch.nn.Parameter(torch.zeros([6, 0, 6, 6], dtype=torch.float16))

    def forward(self, x2):
        v2 = torch.gather(self.p0, 3, x2)
        return v2


INPUTS = [
    torch.tensor([], dtype=torch.int64).reshape([6, 0, 6, 3]),  # x2
]
WEIGHTS = {
    'p0': torch.tensor([], dtype=torch.float16).reshape([6, 0, 6, 6]),
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
