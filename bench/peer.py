#!/usr/bin/python3
"""The peer: torch.onnx.export (opset 17, default options) of a bench model.

    /usr/bin/python3 bench/peer.py NAME OUT.onnx

Rebuilds the model from its seed (models.build), so it is the very model
whose IR and weights bench.py gave onnxexp, exports it, and prints one JSON
line: {"export_s": seconds spent inside torch.onnx.export, "files": [...]}.
Building the model is outside the timed part; it is inside the process's
peak RSS, as holding the model is part of what torch.onnx.export needs.
"""

import json
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import models  # noqa: E402


def main():
    name, out = sys.argv[1], sys.argv[2]
    model, args = models.build(models.MODELS[name])
    before = set(os.listdir(os.path.dirname(os.path.abspath(out))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        torch.onnx.export(model, args, out, opset_version=17)
        dt = time.perf_counter() - t0
    after = set(os.listdir(os.path.dirname(os.path.abspath(out))))
    print(json.dumps({"export_s": dt, "files": sorted(after - before)}))


if __name__ == "__main__":
    main()
