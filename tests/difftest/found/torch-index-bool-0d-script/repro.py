#!/usr/bin/python3
"""difftest reproducer: mismatch in the dynamic form: out2: shape [0, 3, 0, 2], expected [2, 3, 0, 2]

    /usr/bin/python3 tests/difftest/found/torch-index-bool-0d-script/repro.py [--onnxexp PATH] [--peer]

Exports M in the dynamic form (dynamic axes: size 2, run again at 3) with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out2: shape [0, 3, 0, 2], expected [2, 3, 0, 2]
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
        self.register_buffer('b1', torch.zeros([6, 6, 1], dtype=torch.float32))

    def forward(self, x0, x1, x2, x3, x4, x5, x6, x7, x8, x10):
        v0 = torch.max(x2, dim=-1).values
        v1 = x1.view_as(x3)
        v5 = x4.unflatten(2, [1, 1, -1])
        v7 = torch.any(v0)
        v8 = torch.ones_like(x1)
        v10 = x4[v7]
        v15 = F.one_hot(x5, 6)
        v16 = torch.cumsum(v0, 2)
        v17 = F.one_hot(x6, 5)
        v18, v19 = torch.topk(self.b1, 0, dim=2, largest=True)
        v20 = torch.tile(v10, [2, 3, 3, 1])
        v22 = torch.neg(v19)
        v23 = torch.logical_xor(v20, x7)
        v24, v25 = torch.topk(x8, 1, dim=0, largest=True)
        v28 = v24.squeeze(0)
        v29 = x7.view_as(x10)
        return [v18, v22, v23, v25, v28, v29]


INPUTS = [
    torch.tensor([False, False], dtype=torch.bool).reshape([1, 2, 1, 1]),  # x0
    torch.tensor([False], dtype=torch.bool).reshape([]),  # x1
    torch.tensor([], dtype=torch.float32).reshape([1, 0, 2, 2]),  # x2
    torch.tensor([48.40625], dtype=torch.float16).reshape([]),  # x3
    torch.tensor([], dtype=torch.uint8).reshape([1, 0, 2]),  # x4
    torch.tensor([1], dtype=torch.int64).reshape([]),  # x5
    torch.tensor([1, 0, 0, 1, 1, 3, 3, 1, 3, 1, 0, 2, 2, 2, 3, 0, 3, 2, 3, 0, 3, 3, 1, 0, 1, 2, 1, 3, 3, 0, 0, 1, 2, 3, 3, 0, 0, 2, 0, 0, 3, 0, 3, 2, 3, 1, 2, 2, 3], dtype=torch.int64).reshape([7, 7]),  # x6
    torch.tensor([0], dtype=torch.uint8).reshape([]),  # x7
    torch.tensor([6], dtype=torch.int32).reshape([1, 1]),  # x8
    torch.tensor([-3], dtype=torch.int64).reshape([]),  # x10
]
WEIGHTS = {
    'b1': torch.tensor([-0.7531850934028625, 0.5906949639320374, -0.4518330991268158, 0.5018511414527893, -0.12214155495166779, -0.9123038053512573, 2.00661301612854, 0.4321369528770447, -0.6487942337989807, 0.8015257716178894, -1.0000000150474662e+30, 0.6417221426963806, -1.5416823625564575, 0.8839110136032104, -0.60101318359375, 1.1951420307159424, 1.9188967943191528, -0.8028396964073181, 1.721226692199707, -0.9936909675598145, 0.22572404146194458, -0.49644482135772705, -0.17415624856948853, 0.6696621179580688, -0.2042236328125, 1.1840955018997192, -1.7190815210342407, 1.1056909561157227, -0.3277057409286499, -0.31434258818626404, 0.5038931369781494, 0.004494360648095608, -1.124403715133667, 0.6118000745773315, 1.934604525566101, 0.5], dtype=torch.float32).reshape([6, 6, 1]),
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
