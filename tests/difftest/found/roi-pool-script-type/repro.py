#!/usr/bin/python3
"""difftest reproducer: invalid in the script form: onnx.checker: Field 'elem_type' of 'type' is required but missing.

    /usr/bin/python3 tests/difftest/found/roi-pool-script-type/repro.py [--onnxexp PATH] [--peer]

Exports M in the script form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: invalid: onnx.checker: Field 'elem_type' of 'type' is required but missing.
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

    def forward(self, x0, x1):
        v0 = torch.ops.torchvision.roi_pool(x0, x1, 1.0, 2, 2)[0]
        return v0


INPUTS = [
    torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0], dtype=torch.float32).reshape([1, 2, 4, 4]),  # x0
    torch.tensor([0.0, 0.0, 0.0, 2.0, 2.0, 0.0, 1.0, 1.0, 3.0, 3.0], dtype=torch.float32).reshape([2, 5]),  # x1
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
