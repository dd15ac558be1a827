#!/usr/bin/python3
"""onnxexp from Python, end to end: onnxexp.export of a bench model held in
memory, as the peer (peer.py) runs torch.onnx.export of the same one.

    /usr/bin/python3 bench/e2e.py NAME OUT.onnx [--capture-only]

Rebuilds the model from its seed (models.build), then times one
onnxexp.export(model, args, OUT, opset_version=17): capture included, as
in the peer's time. Prints one JSON line {"export_s": ...}. With
--capture-only it times the capture alone instead (the trace torch's
exporter also does, the part of the peer's time onnxexp does not
replace) and writes nothing. The package is the checkout's (python/); the
library $ONNXEXP_LIBRARY.
"""

import json
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import models  # noqa: E402
import onnxexp  # noqa: E402
from onnxexp import _export  # noqa: E402


def main():
    name, out = sys.argv[1], sys.argv[2]
    capture_only = "--capture-only" in sys.argv[3:]
    model, args = models.build(models.MODELS[name])
    onnxexp.library_path()  # load the library outside the timed part, as torch is imported outside the peer's
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        if capture_only:
            _export._capture_with(model, args, _export._Options(opset_version=17))
        else:
            onnxexp.export(model, args, out, opset_version=17)
        dt = time.perf_counter() - t0
    print(json.dumps({"export_s": dt}))


if __name__ == "__main__":
    main()
