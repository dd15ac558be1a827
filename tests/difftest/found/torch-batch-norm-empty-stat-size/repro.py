#!/usr/bin/python3
"""difftest reproducer: ort-error in the dynamic form: at the second size: Non-zero status code returned while running BatchNormalization node. Name:'BatchNormalization_25' Status Message: Invalid input var: 0th dim

    /usr/bin/python3 tests/difftest/found/ort-error-dynamic-argsort_batch_norm_bitwise_and_cross_remainder_softplus_to_u-9202-16438/repro.py [--onnxexp PATH] [--peer]

Exports M in the dynamic form (dynamic axes: size 6, run again at 7) with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: ort-error: at the second size: Non-zero status code returned while running BatchNormalization node. Name:'BatchNormalization_25' Status Message: Invalid input var: 0th dimension != 7
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
        self.p0 = torch.nn.Parameter(torch.zeros([6], dtype=torch.float32))

    def forward(self, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11):
        v0 = x1.double()
        v1 = x2.unsqueeze(-4)
        v2 = x3 & x4
        v3 = torch.cross(x5, x6, dim=0)
        v5 = torch.remainder(x6, v3)
        v6 = F.softplus(v5, beta=2.0, threshold=1.0)
        v7 = x2.to(torch.int64)
        v8 = F.batch_norm(v6, x7, self.p0, x8, x9, False, 0.1, 1e-05)
        v13 = torch.unsqueeze(x9, -2)
        v15 = torch.argsort(x11, dim=-1, descending=False)
        return [v1, v2, v7, v8, v13, v15]


INPUTS = [
    torch.tensor([], dtype=torch.float32).reshape([2, 6, 5, 0]),  # x1
    torch.tensor([2.932344913482666, -0.14860257506370544, 0.4001908600330353, 0.2293245643377304, 0.32930347323417664, -1.8539271354675293, 2.0097784996032715, 0.4470875859260559, -0.0727354884147644, -0.19705264270305634], dtype=torch.float32).reshape([5, 1, 1, 2]),  # x2
    torch.tensor([False, True, False, False, True, True], dtype=torch.bool).reshape([6]),  # x3
    torch.tensor([False, False, True, False, True, True], dtype=torch.bool).reshape([1, 6]),  # x4
    torch.tensor([], dtype=torch.float32).reshape([3, 6, 5, 0]),  # x5
    torch.tensor([], dtype=torch.float32).reshape([3, 6, 5, 0]),  # x6
    torch.tensor([-0.9810988903045654, -0.23809756338596344, -0.10081944614648819, 2.6125524044036865, -1.2346618175506592, 2.940112352371216], dtype=torch.float32).reshape([6]),  # x7
    torch.tensor([0.867964506149292, 0.8814593553543091, 0.7336862683296204, 0.6077544689178467, 0.45724862813949585, -1.137652039527893], dtype=torch.float32).reshape([6]),  # x8
    torch.tensor([0.004835252184420824, -0.011817432008683681, -0.0046782903373241425, -0.0046553295105695724, 0.0077359979040920734, -0.0064224619418382645], dtype=torch.float32).reshape([6]),  # x9
    torch.tensor([1], dtype=torch.int64).reshape([]),  # x10
    torch.tensor([105.35606384277344, -290.65655517578125, -65.67953491210938, 45.4610710144043, 224.0268096923828, 156.84957885742188, -132.29391479492188, -204.10763549804688, -37.047767639160156, 5.874992370605469, -84.7259292602539, -92.10742950439453, -39.41736602783203, 97.72820281982422, -2.8895580768585205, 66.1106948852539, 38.32723617553711, 79.73838806152344, 29.10430335998535, -97.1483154296875, -41.418121337890625, 130.31881713867188, 42.829898834228516, 52.5329475402832, -39.751708984375, -12.190967559814453, 132.41957092285156, 39.768375396728516, 55.38275146484375, 32.15985107421875, -8.074617385864258, -86.46332550048828, 45.360050201416016, -119.75508880615234, -40.26860046386719, -84.79788208007812, 165.5265350341797, 150.18272399902344, 7.418111801147461, 245.43247985839844, 117.98021697998047, 143.25918579101562, 63.31071472167969, 251.97119140625, 97.73412322998047, 96.16861724853516, 64.95388793945312, -218.70912170410156, -62.33906936645508, -118.47708892822266, 32.33831024169922, -147.0736541748047, 81.67343139648438, -70.03409576416016, -82.2821273803711, 165.05487060546875, -234.71620178222656, -41.41017532348633, -92.5155258178711, -20.578969955444336], dtype=torch.float32).reshape([5, 6, 2]),  # x11
]
WEIGHTS = {
    'p0': torch.tensor([0.6471676826477051, 1.4412429332733154, 1.4188263416290283, 0.9405614733695984, 1.5110063552856445, 1.5507785081863403], dtype=torch.float32).reshape([6]),
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
