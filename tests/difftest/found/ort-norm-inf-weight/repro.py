#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: 1 of 15 elements off (rtol 7.0e-05 atol 7.0e+01); at [3, 0, 0]: got 0.0, expected -1.9672155517918554e+22

    /usr/bin/python3 tests/difftest/found/ort-norm-inf-weight/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 1 of 15 elements off (rtol 7.0e-05 atol 7.0e+01); at [3, 0, 0]: got 0.0, expected -1.9672155517918554e+22
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

    def forward(self, x3, x4, x5, x6, b0):
        v3 = F.batch_norm(b0, x3, x4, x5, x6, False, 0.1, 1e-05)
        return v3


INPUTS = [
    torch.tensor([-1.0000000150474662e+30], dtype=torch.float32).reshape([1]),  # x3
    torch.tensor([0.5229485034942627], dtype=torch.float32).reshape([1]),  # x4
    torch.tensor([0.9478071928024292], dtype=torch.float32).reshape([1]),  # x5
    torch.tensor([-3.153496742248535], dtype=torch.float32).reshape([1]),  # x6
    torch.tensor([0.47737619280815125, -0.7185369729995728, 1.5722367763519287, -0.05803615227341652, 1.9947293996810913, 1.121973991394043, -0.2575865387916565, 0.15818563103675842, 1.0990625619888306, -1.0000000150474662e+30, 0.7290611863136292, 0.02402511052787304, -0.03254203125834465, 0.6206667423248291, -0.9713293313980103], dtype=torch.float32).reshape([5, 1, 3]),  # b0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
