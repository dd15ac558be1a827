#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: 2 of 40 elements off (rtol 9.0e-05 atol 2.3e-04); at [0, 0, 1, 0]: got 0.6480606198310852, expected 0.6484065055847168

    /usr/bin/python3 tests/difftest/found/ort-layer-norm-cancellation-row/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 2 of 40 elements off (rtol 9.0e-05 atol 2.3e-04); at [0, 0, 1, 0]: got 0.6480606198310852, expected 0.6484065055847168
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

    def forward(self, x3):
        v0 = F.layer_norm(x3, [2])
        return (v0, x3,)


INPUTS = [
    torch.tensor([-0.9511393308639526, -0.7212837338447571, 1.0661391019821167, 1.060752511024475, -1.8715204000473022, -0.5138719081878662, 0.21710295975208282, -0.2318226546049118, -0.8833969831466675, -0.9359701871871948, -1.2440564632415771, 0.04115951433777809, -0.14626596868038177, -0.24877925217151642, 0.6720771193504333, 1.34993314743042, 0.8507281541824341, 0.20551492273807526, -0.2229442298412323, -1.4605882167816162, -1.4944206476211548, -0.6458909511566162, 1.234490990638733, 0.5136497020721436, 1.0517802238464355, 0.7486231327056885, 0.8129817247390747, -0.17082564532756805, 0.3204498291015625, -0.9563232660293579, -0.7478492259979248, 0.6405985355377197, -1.3118538856506348, 1.5501857995986938, 1.142318606376648, 0.2537207007408142, -1.0720664262771606, 2.52825665473938, -0.776287853717804, -1.5939728021621704], dtype=torch.float32).reshape([2, 5, 2, 2]),  # x3
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
