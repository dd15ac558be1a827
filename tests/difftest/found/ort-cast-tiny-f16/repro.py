#!/usr/bin/python3
"""difftest reproducer: mismatch in the trace form: out0: 1 of 21 elements differ; at [0, 0, 6]: got True, expected False

    /usr/bin/python3 tests/difftest/found/ort-cast-tiny-f16/repro.py [--onnxexp PATH] [--peer]

Exports M in the trace form with onnxexp at opset 17, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: mismatch: out0: 1 of 21 elements differ; at [0, 0, 6]: got True, expected False
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
        v2 = x3.half()
        v5 = torch.all(v2, 1, keepdim=True)
        return v5


INPUTS = [
    torch.tensor([0.6820816379259451, -0.0, -1.9681006229067495, 0.12675348790760121, 0.4205674478379518, 0.6139569454639658, -1e-300, -0.1641779903978612, 1e-300, 0.0, 0.6002228062660543, -0.24424173446163844, 0.4459095632724125, 0.4589155235353626, 0.4106109010480421, 1.3514372570567341, -1.156445812355408, 1.1442424006227985, -2.090432996450333, -0.2877767607778108, -0.2722837858004466, 1e+300, 2.22565035489884, -0.06187251680358857, -1.1883031873524272, -0.14631236248528093, 0.0, 0.8882158958312973, 1.5056119810922735, 0.08553900415301251, -1.3946051381388909, -float("inf"), -0.1818344352341757, -0.17778851420407213, float("inf"), -float("inf"), -float("inf"), -0.8573874687711034, -1.4172348824365997, -float("inf"), -1.0, 0.018454775797059172, 2.0499679695039434, -0.395872538372179, -0.6637547488452032, -1.3539835737700563, -1e+300, -1.1535933977629962, -0.3294176404300698, -float("inf"), 0.26238880259398606, -0.9387659858634936, -0.30416217702508597, 1e+300, -0.9453130740712291, 1.2631108970121212, 0.5907587769299554, -1.095154196246128, 0.36211895159584434, 1.7260030725913824, -0.40950755702506647, -1.29003711190242, -0.06056668201748167], dtype=torch.float64).reshape([3, 3, 7]),  # x3
]
WEIGHTS = {
}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
