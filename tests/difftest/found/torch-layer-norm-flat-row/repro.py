#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out4: 1 of 5 elements off (rtol 1.0e-04 atol 2.6e-02); at [4, 0]: got 83.0850830078125, expected 83.2573471069336

    /usr/bin/python3 tests/difftest/found/mismatch-trace-add_addcmul_batch_norm_layer_norm_outer_to_type_as-9301-10034/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out4: 1 of 5 elements off (rtol 1.0e-04 atol 2.6e-02); at [4, 0]: got 83.0850830078125, expected 83.2573471069336
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

    def forward(self, x2, x5, x6, x8, x9, x12, x13, x14, x23, x24, x25, x26, x27, v47, v43, v30, v3):
        v5 = F.layer_norm(v3, [1], x5, x6, eps=1e-05)
        v15 = torch.outer(x8, x12)
        v18 = torch.addcmul(v15, x13, x14, value=0.5)
        v35 = x9.double()
        v36 = x2.type_as(v35)
        v44 = F.batch_norm(v36, x23, x24, x25, x26, False, 0.1, 1e-05)
        v46 = torch.add(v5, x27, alpha=0.5)
        return (v18, v43, v44, v30, v46, v47,)


INPUTS = [
    torch.tensor([0, 2, 0, 6, 1, 0, 5, 0, 5, 0, 0, 2, 0, 6, 255], dtype=torch.uint8).reshape([5, 3]),  # x2
    torch.tensor([-100.8017578125], dtype=torch.float32).reshape([1]),  # x5
    torch.tensor([-0.22282728552818298], dtype=torch.float32).reshape([1]),  # x6
    torch.tensor([0.5], dtype=torch.float32).reshape([1]),  # x8
    torch.tensor([0.0024562727194279432, 0.005175486672669649, 0.00657788896933198], dtype=torch.float32).reshape([3, 1]),  # x9
    torch.tensor([4.303400993347168, 0.5, 2.4712765216827393], dtype=torch.float32).reshape([3]),  # x12
    torch.tensor([1.0, -0.0584789514541626, 0.48603683710098267], dtype=torch.float32).reshape([1, 1, 3]),  # x13
    torch.tensor([0.21278883516788483], dtype=torch.float32).reshape([]),  # x14
    torch.tensor([-0.417461431531037, 2.8311055893325117, 2.325013366491552], dtype=torch.float64).reshape([3]),  # x23
    torch.tensor([0.6372922792826663, 1.532136343618998, 1.0807406346581343], dtype=torch.float64).reshape([3]),  # x24
    torch.tensor([0.012162627568611426, -0.002582049570447185, -0.0007992295857220477], dtype=torch.float64).reshape([3]),  # x25
    torch.tensor([-117.33947557271489, 201.05183213924343, 85.50495765006451], dtype=torch.float64).reshape([3]),  # x26
    torch.tensor([-22.224166870117188, -25.395959854125977, 135.52891540527344, 103.12195587158203, 166.61581420898438], dtype=torch.float32).reshape([5, 1]),  # x27
    torch.tensor([3.0, 3.0, 3.0], dtype=torch.float32).reshape([3]),  # v47
    torch.tensor([0, 0, 0], dtype=torch.uint8).reshape([3, 1]),  # v43
    torch.tensor([-0.22282728552818298], dtype=torch.float32).reshape([]),  # v30
    torch.tensor([2.0, 0.0, 0.0, 0.0, 261.0], dtype=torch.float32).reshape([5, 1]),  # v3
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
