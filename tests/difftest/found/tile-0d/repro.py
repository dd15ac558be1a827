#!/usr/bin/python3
"""difftest reproducer: ort-error in the trace form: Non-zero status code returned while running Tile node. Name:'Tile_0' Status Message: the tensor to be tiled using Tile OP must be atleast 1 dimensional

    /usr/bin/python3 tests/difftest/found/tile-0d/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: ort-error: Non-zero status code returned while running Tile node. Name:'Tile_0' Status Message: the tensor to be tiled using Tile OP must be atleast 1 dimensional
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
        v1 = torch.tile(x0, [])
        return v1


INPUTS = [
    torch.tensor([0.007098779082298279], dtype=torch.float32).reshape([]),  # x0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
