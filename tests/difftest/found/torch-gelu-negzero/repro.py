#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out4: 18 of 54 elements off (rtol 8.0e-05 atol 8.0e+01); at [0, 0, 0]: got -inf, expected inf

    /usr/bin/python3 tests/difftest/found/torch-gelu-negzero/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out4: 18 of 54 elements off (rtol 8.0e-05 atol 8.0e+01); at [0, 0, 0]: got -inf, expected inf
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
        self.p1 = torch.nn.Parameter(torch.zeros([0, 6, 1], dtype=torch.float32))

    def forward(self, x0, x1, x2, x3, x4, x5, x6):
        v0 = x0.unsqueeze(-1)
        v1 = v0.bool()
        v2 = torch.eye(1)
        v4 = F.gelu(x2)
        v7 = torch.atanh(v4)
        v8 = F.silu(self.p1)
        v10 = torch.zeros([], dtype=torch.bool)
        v11 = x3.view_as(x4)
        v12 = torch.addcdiv(x1, x5, v7, value=1.0)
        v13 = v11.view_as(x6)
        return [v1, v2, v8, v10, v12, v13]


INPUTS = [
    torch.tensor([0.0059967041015625, 0.00199127197265625, 0.00493621826171875, 0.007205963134765625, 0.0104827880859375, 0.023406982421875, 1.0, 0.007106781005859375, 0.0015554428100585938, 0.00295257568359375, -60000.0, -0.023681640625, -0.004436492919921875, 0.0045623779296875, 60000.0, 60000.0, -0.00626373291015625, 0.01557159423828125], dtype=torch.float16).reshape([3, 6]),  # x0
    torch.tensor([-5, -5, -2, -1, 4, -6], dtype=torch.int64).reshape([6, 1, 1]),  # x1
    torch.tensor([-163.0272979736328, 91.00988006591797, -57.20405197143555, 38.77547836303711, -74.9208984375, 129.33775329589844, 21.906185150146484, float("inf"), -1.0], dtype=torch.float32).reshape([3, 3]),  # x2
    torch.tensor([0.6298926009630448], dtype=torch.float64).reshape([]),  # x3
    torch.tensor([19.292978286743164], dtype=torch.float32).reshape([]),  # x4
    torch.tensor([1.0000000150474662e+30, -3.054344415664673, -0.4978902339935303, float("inf"), -7.83038330078125, -1.431500792503357], dtype=torch.float32).reshape([6, 1, 1]),  # x5
    torch.tensor([-5], dtype=torch.int64).reshape([]),  # x6
]
WEIGHTS = {
    'p1': torch.tensor([], dtype=torch.float32).reshape([0, 6, 1]),
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
