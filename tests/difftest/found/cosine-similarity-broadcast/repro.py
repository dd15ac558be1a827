#!/usr/bin/python3
"""difftest reproducer: invalid in the trace form: onnx.checker: [ShapeInferenceError] Shape inference error(s): (op_type:ReduceL2, node name: ReduceL2_2): [ShapeInferenceError] axis must be in [-rank, rank-1]. 

    /usr/bin/python3 tests/difftest/found/cosine-similarity-broadcast/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: invalid: onnx.checker: [ShapeInferenceError] Shape inference error(s): (op_type:ReduceL2, node name: ReduceL2_2): [ShapeInferenceError] axis must be in [-rank, rank-1]. input rank was 1
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

    def forward(self, x3, x4):
        v2 = F.cosine_similarity(x3, x4, dim=-1)
        return v2


INPUTS = [
    torch.tensor([-1.0, -1.1371679306030273, -3.165555477142334, -1.0955414772033691], dtype=torch.float32).reshape([1, 4]),  # x3
    torch.tensor([0.0, 1.0, 3.6954028606414795, 0.5], dtype=torch.float32).reshape([4]),  # x4
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
