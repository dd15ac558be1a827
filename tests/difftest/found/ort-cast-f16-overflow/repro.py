#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out5: NaN in different places (1); at [0, 0]: got 2.0, expected nan

    /usr/bin/python3 tests/difftest/found/ort-cast-f16-overflow/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out5: NaN in different places (1); at [0, 0]: got 2.0, expected nan
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
        self.register_buffer('b0', torch.zeros([7, 1], dtype=torch.int64))

    def forward(self, x0, x2, x3, x4, x5, x6, x7, x10, x11):
        v0 = x0.long()
        v2 = F.hardswish(x2)
        v3 = x2.view_as(x3)
        v4 = F.logsigmoid(x3)
        v5 = v3.long()
        v6 = torch.argsort(x4, dim=0, descending=False)
        v7 = torch.tril(x5, -1)
        v8 = x4.type_as(v6)
        v9 = v8.clone()
        v10, v11 = torch.broadcast_tensors(v9, v7)
        v12 = v9.masked_fill(x6, 2.0)
        v15 = v12.transpose(0, 0)
        v17 = torch.where(x10, v15, v3)
        v18 = torch.sum(self.b0, [0, 1], keepdim=False)
        v19 = x11.half()
        v20 = v19
        for i0 in range(3):
            v20 = v20 * x10
            v20 = v20 + i0
        v22 = x6.expand([5])
        v23 = v19[:, :]
        v24 = torch.flatten(v20, 1, -1)
        return (v10, v17, v18, v22, v23, v24, v17,)


INPUTS = [
    torch.tensor([0], dtype=torch.int64).reshape([]),  # x0
    torch.tensor([1.0], dtype=torch.float64).reshape([]),  # x2
    torch.tensor([float("nan")], dtype=torch.float32).reshape([]),  # x3
    torch.tensor([-0.5704821348190308, -0.4011620879173279, 0.1075560450553894, -0.6926653981208801, 0.699999213218689], dtype=torch.float32).reshape([5]),  # x4
    torch.tensor([0.015392496295720483, 0.008880447238976123, -0.013502154653208712, -0.011407344358696978, 0.0029739215301195134, 0.014862196088110156, -0.009038386333932209, -0.008113705257787589, -0.006594277357472501, 0.007989684685050954, 0.004517396596532131, 0.018818937799581516, 0.016356256221550236, -1.0, 0.008376929522845068, -0.010252252400671902, -0.008376191114720022, -1e+300, 0.007249415990068511, -0.01476400943339374, 0.003546751753180685, -0.017465805789722205, -0.0130703970167051, 0.014442459141331528, -0.00720943439390229, 0.00872534542978097, 1.0, 0.0020121781448193357, 0.0029136964477765055, 0.002070548144855372, float("inf"), 1e-300, -0.012707572974292331, -0.005267080384243478, 0.001349497466248972, -0.012858996313475882, -0.005342283513425368, -0.003882374852868267, -0.011925479820813486, 0.01535827799784991, 0.0015830457122577063, 0.0136316891293107, 0.0, -0.004698063715927618, 0.00578438856698377, -0.015014491550458356, -float("inf"), 0.0023439214752733893, 0.007657940480530796, 0.012150103478911978, 0.0005356926467592367, -0.006846939109760379, -0.00417417512234025, -0.008627789029722817, 0.0043919984531210175, -0.005467304290316737, 0.010705621619152617, float("inf"), -0.00941353847465097, 0.011908416454240442, 0.010562591426177846, -0.00994154493535854, 0.010113026428157932, 0.003196487969356727, 0.012287777260960215, -0.004941756165301138, 0.004800735251530332, 0.0016807326404492335, 0.02455992204784168, -0.003326913284479252, 1e+300, -0.011728304190286401, -1e+300, -0.024145474164177807, -0.010602504653429793, 0.5, -0.02186125312796962, -0.0037295179719659365, 0.01014069017259963, 0.002323390844418777, -1.0, -0.0005682689186945683, 0.0, -1e+300, 0.0036640786357492504, -7.40123369616722e-05, -0.007411290759831108, -0.001525808883530471, -0.010541705492874984, 0.0, 0.006015170943597851, -0.010845128761781403, 0.01303804424471103, -0.0, -0.012802107747917771, 0.01729080610393396, -0.0036107464691323733, 0.021979946707853703, 0.0, 1e-300, 1e-300, 0.007276093515223588, 0.0009981360215957752, -0.005954106397825218, 0.004993752181981042], dtype=torch.float64).reshape([5, 3, 7, 1]),  # x5
    torch.tensor([True, True, False, True, True], dtype=torch.bool).reshape([5]),  # x6
    torch.tensor([-float("inf")], dtype=torch.float16).reshape([]),  # x7
    torch.tensor([False, True, True, True, False], dtype=torch.bool).reshape([5]),  # x10
    torch.tensor([1.0000000150474662e+30, 44.11719512939453, -182.67127990722656, 0.5, -10.165511131286621, 126.8907699584961, 13.51240348815918, -29.15336036682129, -49.52129364013672, 30.304649353027344, 151.773193359375, 99.24752807617188, 99.43296813964844, 3.479616165161133, 67.75555419921875], dtype=torch.float32).reshape([1, 3, 5]),  # x11
]
WEIGHTS = {
    'b0': torch.tensor([-6, 2, 6, 3, 1, -2, 3], dtype=torch.int64).reshape([7, 1]),
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
