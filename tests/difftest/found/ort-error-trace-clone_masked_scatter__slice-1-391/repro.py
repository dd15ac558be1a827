#!/usr/bin/python3
"""difftest reproducer: ort-error in the trace form: Non-zero status code returned while running ScatterND node. Name:'ScatterND_7' Status Message: input tensor and indices tensor must has rank larger than 0. inpu

    /usr/bin/python3 tests/difftest/found/ort-error-trace-clone_masked_scatter__slice-1-391/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: ort-error: Non-zero status code returned while running ScatterND node. Name:'ScatterND_7' Status Message: input tensor and indices tensor must has rank larger than 0. input shape: {}, indices shape: {0,1}
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
        v0 = x0.clone()
        v1 = v0[4]
        v1.masked_scatter_(x1, x2)
        return (v0, v1,)


INPUTS = [
    torch.tensor([-0.0004914598020460801, 0.0016916769153235637, 0.005422352737344155, -0.0034466627221077153, 0.0030278621684634677, -0.004306501790320173], dtype=torch.float64).reshape([6]),  # x0
    torch.tensor([False], dtype=torch.bool).reshape([]),  # x1
    torch.tensor([-85.06918785855108], dtype=torch.float64).reshape([]),  # x2
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
