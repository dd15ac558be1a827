#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: NaN in different places (1); at [0, 0]: got inf, expected nan

    /usr/bin/python3 tests/difftest/found/ort-reduce-min-max-nan/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: NaN in different places (1); at [0, 0]: got inf, expected nan
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

    def forward(self, x2):
        v5 = torch.linalg.vector_norm(x2, float("inf"), dim=[0, 1], keepdim=True)
        return v5


INPUTS = [
    torch.tensor([184.21707153320312, 33.9981803894043, -50.268978118896484, -127.4927749633789, -142.0384063720703, float("inf"), float("inf"), 92.9682388305664, -17.115861892700195, 76.68682098388672, 87.91232299804688, -88.63091278076172, -123.20469665527344, 0.5, float("inf"), 154.14111328125, 0.5, float("nan"), -82.23086547851562, 0.5, float("inf"), -72.77468872070312, -32.2734489440918, 166.6371612548828, 114.45467376708984, -1.0, -209.43414306640625, float("inf")], dtype=torch.float32).reshape([4, 7]),  # x2
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
