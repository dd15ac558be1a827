#!/usr/bin/python3
"""difftest reproducer: ort-error in the trace form: Non-zero status code returned while running Reshape node. Name:'Reshape_0' Status Message: /onnxruntime_src/onnxruntime/core/providers/cpu/tensor/reshape_helper

    /usr/bin/python3 tests/difftest/found/reshape-from-tensor-zero/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: ort-error: Non-zero status code returned while running Reshape node. Name:'Reshape_0' Status Message: /onnxruntime_src/onnxruntime/core/providers/cpu/tensor/reshape_helper.h:45 onnxruntime::ReshapeHelper::ReshapeHelper(const onnxruntime::TensorShape&, onnxruntime::TensorShapeVector&, bool) input_shape_size == 
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
        v0 = torch._reshape_from_tensor(x0, torch.tensor([4, 0, 3]))
        return v0


INPUTS = [
    torch.tensor([], dtype=torch.float32).reshape([0, 4]),  # x0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
