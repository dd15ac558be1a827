#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out2: 4 of 8 elements off (rtol 1.0e-05 atol 1.9e-05); at [0, 1, 0]: got 0.002441706135869026, expected -0.002995237009599805

    /usr/bin/python3 tests/difftest/found/mismatch-trace-masked_scatter_-1-148/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out2: 4 of 8 elements off (rtol 1.0e-05 atol 1.9e-05); at [0, 1, 0]: got 0.002441706135869026, expected -0.002995237009599805
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

    def forward(self, x0, x1, x2, x3, v1):
        v1.masked_scatter_(x2, x3)
        return (x0, x1, v1,)


INPUTS = [
    torch.tensor([-1.678561806678772, 1.3727154731750488, 0.6751880049705505, 1.8596476316452026, -0.2185373604297638, -0.14203770458698273, 0.3670555353164673, 0.5311653017997742], dtype=torch.float32).reshape([1, 2, 4]),  # x0
    torch.tensor([1.11328125, -0.5146484375, -1.681640625, -0.79541015625, 1.3896484375, 1.326171875, 0.248291015625, 0.072265625, -0.69921875, -0.047271728515625, 1.56640625, 1.037109375, 0.9306640625, -1.3671875, -1.982421875, 1.8037109375], dtype=torch.float16).reshape([2, 1, 4, 2]),  # x1
    torch.tensor([True, True, False, True, True, False, True, False], dtype=torch.bool).reshape([4, 2, 1]),  # x2
    torch.tensor([-0.003745701629668474, 0.002441706135869026, -0.010573702864348888, -0.002995237009599805, -0.012137116864323616, -0.006255325861275196, -0.003397396532818675, 0.023704977706074715], dtype=torch.float32).reshape([4, 2, 1]),  # x3
    torch.tensor([-1.678561806678772, -0.2185373604297638, 1.3727154731750488, -0.14203770458698273, 0.6751880049705505, 0.3670555353164673, 1.8596476316452026, 0.5311653017997742], dtype=torch.float32).reshape([4, 2, 1]),  # v1
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
