#!/usr/bin/python3
"""The Python use of onnxexp: export a model in one call.

    /usr/bin/python3 examples/python_example.py [OUT.onnx]

The MLP of examples/make_example.py (torch.manual_seed(0)), exported with
onnxexp.export exactly as torch.onnx.export would be called. onnxexp must
be importable: installed (bash scripts/example.sh does it) or from the
checkout with PYTHONPATH=python.
"""

import os
import sys

import torch

import onnxexp
from make_example import TinyMLP

out = sys.argv[1] if len(sys.argv) > 1 else "tiny_mlp_py.onnx"
torch.manual_seed(0)
model = TinyMLP().eval()
onnxexp.export(model, torch.randn(2, 8), out, opset_version=17)
print("onnxexp.export wrote %s (%d bytes) with %s" % (out, os.path.getsize(out), onnxexp.library_path()))
