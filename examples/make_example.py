#!/usr/bin/python3
"""Regenerates examples/tiny_mlp.ir and examples/tiny_mlp.safetensors.

    /usr/bin/python3 examples/make_example.py [OUTDIR]

A 2-layer MLP (Linear(8, 16), ReLU, Linear(16, 4); 212 parameters) traced
with torch 1.13 the way the legacy exporter does it
(torch.onnx.utils._create_jit_graph), with torch.manual_seed(0): running it
again gives byte-identical files. Source comments that point into this
checkout are made relative to the repository root so the files do not depend
on where the repository lives. Input: %0, float32 [2, 8]; output [2, 4].

    build/src/cli/onnxexp examples/tiny_mlp.ir -o out/tiny_mlp.onnx
"""

import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "tests", "tools"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import st  # noqa: E402


class TinyMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else HERE
    torch.manual_seed(0)
    model = TinyMLP().eval()
    x = torch.randn(2, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph, params, _, _ = torch.onnx.utils._create_jit_graph(model, (x,))
    inputs = [v.debugName() for v in graph.inputs()]
    names = inputs[len(inputs) - len(params):]
    text = str(graph).replace(TOP + os.sep, "")
    weights = {n: st.from_torch(p) for n, p in zip(names, params)}
    for n in graph.nodes():  # tensor constants, per the sidecar contract
        if n.kind() == "prim::Constant" and n.hasAttribute("value") and n.kindOf("value") == "t":
            weights["constant:" + n.output().debugName()] = st.from_torch(n.t("value"))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "tiny_mlp.ir"), "w") as f:
        f.write(text)
    st.save(weights, os.path.join(out, "tiny_mlp.safetensors"))
    print("wrote %s/tiny_mlp.ir and tiny_mlp.safetensors (%d parameters)"
          % (out, sum(p.numel() for p in params)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
