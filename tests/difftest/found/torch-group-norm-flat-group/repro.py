#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out1: 4 of 9 elements off (rtol 1.1e-04 atol 2.6e-02); at [0, 2]: got -4.981231212615967, expected -5.156925201416016

    /usr/bin/python3 tests/difftest/found/mismatch-trace-conv_transpose1d_group_norm-9203-192/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out1: 4 of 9 elements off (rtol 1.1e-04 atol 2.6e-02); at [0, 2]: got -4.981231212615967, expected -5.156925201416016
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

    def forward(self, x3, x4, x5, x6, v2):
        v3 = F.conv_transpose1d(v2, x4, stride=2, padding=0, groups=3)
        v4 = F.group_norm(x3, 3, x5, x6)
        return [v3, v4, x6]


INPUTS = [
    torch.tensor([-28.1219482421875, 0.5, 93.97029876708984, -68.60757446289062, -97.20531463623047, -96.75205993652344, -168.86053466796875, 0.5, 1.943707823753357], dtype=torch.float32).reshape([3, 3]),  # x3
    torch.tensor([-1.1735005378723145, -0.49772199988365173, -0.3464142084121704], dtype=torch.float32).reshape([3, 1, 1]),  # x4
    torch.tensor([-239.93753051757812, 88.6083755493164, -176.30105590820312], dtype=torch.float32).reshape([3]),  # x5
    torch.tensor([-3.6094932556152344, -2.700086832046509, -4.981231212615967], dtype=torch.float32).reshape([3]),  # x6
    torch.tensor([-28.1219482421875, 0.5, 93.97029876708984, -68.60757446289062, -97.20531463623047, -96.75205993652344, -168.86053466796875, 0.5, 1.943707823753357, -28.1219482421875, 0.5, 93.97029876708984, -68.60757446289062, -97.20531463623047, -96.75205993652344, -168.86053466796875, 0.5, 1.943707823753357], dtype=torch.float32).reshape([2, 3, 3]),  # v2
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
