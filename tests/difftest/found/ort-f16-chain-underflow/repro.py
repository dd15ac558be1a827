#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out1: NaN in different places (1); at [4, 0, 1]: got nan, expected 2.0

    /usr/bin/python3 tests/difftest/found/mismatch-trace-acos_add_aminmax_atan_div_index_linear_mul_ones_like_primL-9202-27484/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out1: NaN in different places (1); at [4, 0, 1]: got nan, expected 2.0
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

    def forward(self, x0, x1, x5, x9, x11, x13, x14, x15, x16):
        v0 = torch.atan(x0)
        v3 = x1.char()
        v6, v7 = torch.aminmax(v0, dim=1, keepdim=False)
        v9 = x5
        for i0 in range(3):
            v11 = v9 * x5
            v17 = v11 % -float("inf")
            v9 = torch.div(v17, x9, rounding_mode='trunc')
            v9 = v9 + i0
        v20 = torch.ones_like(x9)
        v22 = x9.view_as(x11)
        v24 = v20.to(torch.float32)
        v25 = v7[x13, x14]
        v26 = F.linear(v25, x15, x16)
        v27 = torch.acos(v26)
        v28 = torch.div(x16, 100.0, rounding_mode='trunc')
        return [v6, v9, v22, v24, v27, v28]


INPUTS = [
    torch.tensor([0, 5, 5, 3, 5, 6, 5, 4, 3, 0, 6, 2, 3, 3, 0, 6, 4, 0, 6, 5, 0, 2, 1, 4, 3, 6, 4, 1, 1, 3, 1, 4, 2, 6, 2, 1, 5, 3, 3, 0, 1, 3, 2, 1, 6, 3, 4, 1, 4, 0, 1, 1, 2, 4, 0, 0, 4, 0, 1, 0, 0, 6, 2, 0, 0, 5, 2, 4, 3, 6, 4, 1, 6, 3, 5, 3, 4, 6, 4, 0, 4, 3, 1, 3, 1, 2, 5, 1, 6, 1, 6, 4, 3, 6, 2, 1, 4, 3, 0, 3, 6, 6, 3, 0, 4, 1, 5, 1, 3, 2, 0, 0, 2, 1, 4, 3, 6, 2, 3, 254, 1, 4, 1, 5, 1, 2, 0, 0, 2, 1, 1, 0, 1, 3, 4, 5, 5, 4, 2, 0, 6, 0, 4, 0, 0, 4, 4, 4, 1, 5, 3, 5, 0, 4, 6, 6, 1, 2, 6, 3, 6, 2, 3, 3, 0, 6, 0, 3, 6, 1, 3, 2, 2, 1, 4, 5, 3, 1, 6, 4, 2, 2, 0, 3, 4, 3, 0, 3, 6, 0, 3, 4, 2, 6, 1, 1, 0, 1, 5, 3, 0, 1, 4, 3, 3, 4, 4, 0, 0, 1, 0, 3, 6, 5, 5, 6, 1, 3, 5, 3, 3, 6, 5, 0, 0, 1, 1, 4, 5, 0, 3, 2, 5, 2, 4, 1, 4, 4, 4, 1, 1, 2, 5, 3, 6], dtype=torch.uint8).reshape([5, 7, 7]),  # x0
    torch.tensor([True, True, False, True, False, False, False, True], dtype=torch.bool).reshape([2, 2, 2]),  # x1
    torch.tensor([0.578125, -0.0926513671875, -0.68994140625, 0.93701171875, -0.335693359375, 0.47705078125, -0.52392578125, 0.0261383056640625, -2.048828125, -1.0, -0.953125, 0.1253662109375, -0.92578125, -1.103515625, -0.345458984375, 0.0672607421875, 0.3408203125, 0.429931640625, 0.11614990234375, -float("inf"), -1.6015625, 0.482177734375, 0.2132568359375, 0.424072265625, 0.2440185546875, -1.7919921875, -0.2724609375, 1.3408203125, -0.06561279296875, -0.00010001659393310547, 0.278564453125, 0.3134765625, -0.1729736328125, 0.947265625, -1.6083984375], dtype=torch.float16).reshape([5, 1, 7]),  # x5
    torch.tensor([0.011201881803572178], dtype=torch.float32).reshape([]),  # x9
    torch.tensor([169.96788024902344], dtype=torch.float32).reshape([]),  # x11
    torch.tensor([-3], dtype=torch.int64).reshape([1]),  # x13
    torch.tensor([-4], dtype=torch.int64).reshape([1]),  # x14
    torch.tensor([-1.0, 0.6691287755966187, -0.544006884098053, 0.1517360657453537, -0.0, -0.3675045967102051, 1.1526689529418945], dtype=torch.float32).reshape([7, 1]),  # x15
    torch.tensor([0.6977843642234802, 0.4050380289554596, -1.3122657537460327, 0.4054734706878662, -0.543533205986023, 0.2878451943397522, 1.1627135276794434], dtype=torch.float32).reshape([7]),  # x16
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
