#!/usr/bin/python3
"""difftest reproducer: invalid in the dynamic form: onnx.checker: [ShapeInferenceError] (op_type:AveragePool, node name: AveragePool_0): [ShapeInferenceError] Inferred shape and existing shape differ in dimension

    /usr/bin/python3 tests/difftest/found/pool-ceil-last-window/repro.py [--onnxexp PATH] [--peer]

Exports M in the dynamic form (dynamic axes: size 6, run again at 9) with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: invalid: onnx.checker: [ShapeInferenceError] (op_type:AveragePool, node name: AveragePool_0): [ShapeInferenceError] Inferred shape and existing shape differ in dimension 3: (4) vs (3)
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

    def forward(self, x6):
        v5 = F.avg_pool2d(x6, 2, 2, 1, ceil_mode=True, count_include_pad=False)
        return v5


INPUTS = [
    torch.tensor([0.9139833450317383, -0.45977795124053955, -0.22063519060611725, -0.5607483983039856, -1.298915982246399, 1.4757959842681885, -0.3012479543685913, -0.37532728910446167, 0.5, -0.21443313360214233, 0.7235069274902344, -0.6316933035850525, 1.1794497966766357, -1.046795129776001, 0.7739731073379517, -0.7288297414779663, 0.5, -0.699897289276123, 0.14486539363861084, 0.5, -1.153456687927246, -0.25156301259994507, 1.8120949268341064, 0.5, -0.9745367169380188, 0.11759784072637558, 1.8723477125167847, 0.5, 1.2053816318511963, -0.21979115903377533], dtype=torch.float32).reshape([1, 1, 6, 5]),  # x6
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
