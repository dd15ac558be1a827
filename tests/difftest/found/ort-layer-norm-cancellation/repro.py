#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: 46 of 48 elements off (rtol 1.3e-04 atol 2.2e-04); at [0, 0, 0]: got 0.445910781621933, expected 0.4423547387123108

    /usr/bin/python3 tests/difftest/found/ort-layer-norm-cancellation/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 46 of 48 elements off (rtol 1.3e-04 atol 2.2e-04); at [0, 0, 0]: got 0.445910781621933, expected 0.4423547387123108
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

    def forward(self, v0):
        v1 = F.layer_norm(v0, [4, 3, 4])
        return v1


INPUTS = [
    torch.tensor([-0.9988276362419128, -0.9995061159133911, -1.0002660751342773, -0.9952585697174072, -1.00094735622406, -1.002189040184021, -1.0026438236236572, -0.9954202771186829, -0.9991361498832703, -1.006056785583496, -1.0074180364608765, -1.0031613111495972, -0.9989103078842163, -0.9968979954719543, -1.0058979988098145, -1.003613829612732, -0.996651828289032, -1.0082401037216187, -1.0008219480514526, -0.998589813709259, -1.00375235080719, -1.0008695125579834, -0.9977457523345947, -1.0003032684326172, -0.9999432563781738, -1.0002950429916382, -1.004875659942627, -1.004590630531311, -0.9952653050422668, -0.9996342658996582, -1.0023376941680908, -1.0046007633209229, -1.0005296468734741, -0.996616542339325, -1.0041673183441162, -0.9965656399726868, -1.0044625997543335, -0.9983831644058228, -1.0089669227600098, -1.0003300905227661, -1.0003899335861206, -0.9971556663513184, -1.0028530359268188, -0.9966596961021423, -0.9985548853874207, -1.0089070796966553, -0.9983531832695007, -0.9982589483261108], dtype=torch.float32).reshape([4, 3, 4]),  # v0
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
