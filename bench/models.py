"""Benchmark models, built deterministically with torch 1.13.

Each model is a function of a seed only, so the peer process (peer.py)
rebuilds exactly the model whose IR and weights gen() wrote. The IR and
sidecar are made as the round-trip fixtures make them (tests/fixtures:
jit_graph + tensor_constants, safetensors keyed by graph input name plus
"constant:NAME"); big sidecars are streamed to disk instead of being built
in memory, since a 3 GB model must not need 9 GB of RAM to write.
"""

import json
import math
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "tests", "tools"))
sys.path.insert(0, os.path.join(TOP, "tests", "fixtures"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import st  # noqa: E402

# --------------------------------------------------------------------------
# models


class Block(nn.Module):
    """Post-norm transformer encoder layer from plain ops (no fused fast
    path, so the traced graph is the same under both exporters)."""

    def __init__(self, d, heads, ff):
        super().__init__()
        self.h, self.dk = heads, d // heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ff1, self.ff2 = nn.Linear(d, ff), nn.Linear(ff, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)

    def split(self, x):
        b, s, _ = x.shape
        return x.reshape(b, s, self.h, self.dk).permute(0, 2, 1, 3)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        a = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.dk), dim=-1)
        a = torch.matmul(a, v).permute(0, 2, 1, 3).reshape(b, s, d)
        x = self.ln1(x + self.o(a))
        return self.ln2(x + self.ff2(torch.nn.functional.gelu(self.ff1(x))))


class Encoder(nn.Module):
    def __init__(self, vocab=20000, d=768, layers=12, heads=12, ff=3072):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(Block(d, heads, ff) for _ in range(layers))

    def forward(self, ids):
        x = self.emb(ids)
        for blk in self.layers:
            x = blk(x)
        return x


class Chain(nn.Module):
    """n small elementwise ops in a row: the graph is long, the data tiny."""

    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        for i in range(self.n):
            r = i % 4
            if r == 0:
                x = x * 0.999
            elif r == 1:
                x = x + 0.001
            elif r == 2:
                x = torch.tanh(x)
            else:
                x = x - 0.0005
        return x


class Wide(nn.Module):
    """A stack of square Linear layers: weights dominate, graph is trivial."""

    def __init__(self, width, layers):
        super().__init__()
        self.fc = nn.ModuleList(nn.Linear(width, width) for _ in range(layers))

    def forward(self, x):
        for i, f in enumerate(self.fc):
            x = f(x)
            if i + 1 < len(self.fc):
                x = torch.relu(x)
        return x


def _fast_init(model, seed):
    """nn.Linear's kaiming init of 3 GB takes minutes; a seeded normal fill
    of the same scale is as deterministic and seconds long."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            fan_in = p.shape[-1] if p.dim() > 1 else p.shape[0]
            p.normal_(0.0, 1.0 / math.sqrt(fan_in), generator=g)


def build(spec):
    """(model, args) for a spec dict from MODELS."""
    torch.manual_seed(spec["seed"])
    kind = spec["kind"]
    if kind == "encoder":
        m = Encoder(**spec.get("args", {}))
        args = (torch.randint(0, 20000, (1, spec.get("seq", 128))),)
    elif kind == "chain":
        m = Chain(spec["n"])
        args = (torch.randn(4, 16),)
    elif kind == "wide":
        m = Wide(spec["width"], spec["layers"])
        _fast_init(m, spec["seed"])
        args = (torch.randn(2, spec["width"]),)
    else:
        raise ValueError(kind)
    m.eval()
    for p in m.parameters():
        p.requires_grad_(False)
    return m, args


MODELS = {
    "encoder100m": dict(kind="encoder", seed=1),
    "chain1k": dict(kind="chain", n=1000, seed=2),
    "chain10k": dict(kind="chain", n=10000, seed=2),
    "chain50k": dict(kind="chain", n=50000, seed=2),
    # 12 x (8192 x 8192 + 8192) float32 = 3.22 GB (3.0 GiB)
    "wide3g": dict(kind="wide", width=8192, layers=12, seed=3),
    # the same architecture small enough to export inline too
    "wide_small": dict(kind="wide", width=1024, layers=12, seed=3),
}

# --------------------------------------------------------------------------
# generation


def save_streaming(tensors, path):
    """st.dumps' exact layout (sorted keys, compact JSON, header padded to
    8), written tensor by tensor."""
    header, offset, arrays = {}, 0, []
    for name in sorted(tensors):
        a = st.from_torch(tensors[name])  # contiguous; ascontiguousarray would make 0-d 1-d
        header[name] = {"dtype": st.st_dtype(a), "shape": [int(d) for d in a.shape],
                        "data_offsets": [offset, offset + a.nbytes]}
        arrays.append(a)
        offset += a.nbytes
    h = json.dumps(header, separators=(",", ":"), sort_keys=True).encode("utf-8")
    h += b" " * (-len(h) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for a in arrays:
            f.write(memoryview(a.reshape(-1).view(np.uint8)))
    os.replace(tmp, path)


def gen(name, outdir):
    """Writes outdir/name/{model.ir, model.safetensors, inputs.safetensors,
    outputs.safetensors, meta.json}; skipped when meta.json says it is
    current. Returns the meta dict."""
    import gen_fixtures  # the fixtures' own IR helpers

    spec = MODELS[name]
    d = os.path.join(outdir, name)
    mpath = os.path.join(d, "meta.json")
    if os.path.isfile(mpath):
        with open(mpath) as f:
            meta = json.load(f)
        if meta.get("spec") == spec:
            return meta
    os.makedirs(d, exist_ok=True)
    model, args = build(spec)
    graph, params = gen_fixtures.jit_graph(model, args)
    inputs = [v.debugName() for v in graph.inputs()]
    n_user = len(inputs) - len(params)
    weights = dict(zip(inputs[n_user:], params))
    weights.update(gen_fixtures.tensor_constants(graph))
    with open(os.path.join(d, "model.ir"), "w") as f:
        f.write(str(graph).replace(TOP + os.sep, ""))
    save_streaming(weights, os.path.join(d, "model.safetensors"))
    st.save({n: st.from_torch(a) for n, a in zip(inputs[:n_user], args)}, os.path.join(d, "inputs.safetensors"))
    with torch.no_grad():
        out = model(*args)
    st.save({"out0": st.from_torch(out)}, os.path.join(d, "outputs.safetensors"))
    nodes = sum(1 for _ in graph.nodes())
    aten = sum(1 for n in graph.nodes() if n.kind().startswith("aten::"))
    meta = dict(spec=spec, name=name, inputs=inputs[:n_user], nodes=nodes, aten_ops=aten,
                params=int(sum(p.numel() for p in params)),
                weight_bytes=int(sum(p.numel() * p.element_size() for p in params)))
    with open(mpath, "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    return meta
