#!/usr/bin/python3
"""difftest reproducer: mismatch in the script form: out0: 14 of 24 elements off (rtol 1.0e-05 atol 2.1e-03); at [0, 0]: got -1.073428988456726, expected 22.344697952270508

    /usr/bin/python3 tests/difftest/found/mismatch-script-masked_scatter__primIf-11-2/repro.py [--onnxexp PATH] [--peer]

Exports M in the script form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 14 of 24 elements off (rtol 1.0e-05 atol 2.1e-03); at [0, 0]: got -1.073428988456726, expected 22.344697952270508
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

    def forward(self, x0, x1, x3, x4):
        if bool(x1.max() > 0.5):
            pass
        else:
            x0.masked_scatter_(x3, x4)
        return x0


INPUTS = [
    torch.tensor([-1.073428988456726, 0.5, 0.5, -0.6299231648445129, 0.1549532562494278, 0.8342151641845703, -1.0815881490707397, -0.5777467489242554, -1.1325693130493164, 1.6309784650802612, -0.8717014193534851, 0.8438746333122253, -0.13570564985275269, -0.6992031335830688, 0.0, 1.1321723461151123, -0.021191060543060303, 0.9157575964927673, 0.05188595876097679, -0.2755104899406433, -0.38378193974494934, -1.0281084775924683, -0.005337248556315899, 0.7811896800994873], dtype=torch.float32).reshape([6, 4]),  # x0
    torch.tensor([-0.0, 2.78125, 0.51416015625, -0.1904296875, -0.38916015625, -0.210205078125, -1.123046875, -0.91162109375, -60000.0, 1.576171875, 0.40869140625, -1.5478515625, 2.576171875, -float("inf"), 0.70654296875, float("nan")], dtype=torch.float16).reshape([4, 1, 4]),  # x1
    torch.tensor([True, False, False, True, False, True, False, True, False, True, False, True, True, False, False, True, True, True, False, True, True, True, True, False], dtype=torch.bool).reshape([6, 4]),  # x3
    torch.tensor([22.344697952270508, -52.694610595703125, 124.14482879638672, -35.91355514526367, -108.25316619873047, -1.0, -105.26402282714844, -17.866588592529297, -30.736913681030273, -88.5420150756836, -23.0379695892334, -126.61583709716797, 168.20468139648438, -29.310739517211914, -42.24564743041992, 55.84959411621094, 77.5050048828125, 3.2151095867156982, -151.1094970703125, 0.5, -213.17608642578125, 0.5, -111.19062805175781, 12.929974555969238], dtype=torch.float32).reshape([6, 4]),  # x4
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
