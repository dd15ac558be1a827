"""Regenerates the sample IR files here (torch 1.13): /usr/bin/python3 gen_samples.py

Each is str(graph) exactly as printed: traced models through
torch.onnx.utils._create_jit_graph, and one scripted function with blocks.
"""
import warnings
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.onnx import utils

warnings.simplefilter("ignore")
torch.manual_seed(0)


def traced(name, model, args):
    graph = utils._create_jit_graph(model, args)[0]
    with open(name, "w") as f:
        f.write(str(graph))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.fc2 = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc2(F.relu(self.fc(x))), self.fc(x)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(36, 3)

    def forward(self, x):
        y = F.max_pool2d(F.relu(self.bn(self.conv(x))), 1).flatten(1)
        z = y * torch.tensor([1.5, 2.0, -3.25]).sum() + torch.tensor(2)
        w = torch.tensor([[1, 2], [3, -4]]) * 2
        return self.fc(y) + float("-inf"), z.mean(), w


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(8, 2)
        self.ln = nn.LayerNorm(8)

    def forward(self, x):
        a, _ = self.mha(x, x, x)
        return self.ln(a + x)


@torch.jit.script
def control(x: torch.Tensor, n: int, s: str):
    acc = x
    for i in range(n):
        if i % 2 == 0:
            acc = acc + i
        else:
            acc = acc * 2.5
    if s == "a\n\t\"\\b\x01\u00e9'":
        print("hi", acc)
        raise RuntimeError("bad")
    t = (acc, n)
    z: Optional[torch.Tensor] = None
    if n > 3:
        z = acc
    a, b = acc.chunk(2)
    return t, [1, 2], [1.5, 2.0], z, float("nan"), a, b, ["a", "b"]


traced("mlp_traced.ir", MLP().eval(), (torch.randn(2, 4),))
traced("cnn_traced.ir", CNN().train(), (torch.randn(2, 1, 5, 5),))
traced("attention_traced.ir", Attn().eval(), (torch.randn(3, 2, 8),))
with open("script_control.ir", "w") as f:
    f.write(str(control.graph))
