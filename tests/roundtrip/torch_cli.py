#!/usr/bin/python3
"""A stand-in for the onnxexp CLI built on torch.onnx.export (the "peer").

    torch_cli.py FIXTURE_DIR/model.ir -o OUT.onnx [--opset N] [--weights W]

It only works on fixtures made by tests/fixtures/gen_fixtures.py: the model is
rebuilt from the fixture directory's name, its weights are loaded from the
sidecar (so the sidecar is exercised too), and it is exported with torch's
own exporter. It honours the onnxexp error contract (exit 1, message on
stderr, no output file left behind) so the round-trip harness can be
validated end to end before the C CLI exists:

    roundtrip.py --onnxexp tests/roundtrip/torch_cli.py --max-opset 17 ...
"""

import argparse
import io
import json
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))

import torch  # noqa: E402

import gen_fixtures  # noqa: E402
import st  # noqa: E402


def fail(msg, code=1):
    print("onnxexp: error: " + msg, file=sys.stderr)
    sys.exit(code)


class _Bound(torch.nn.Module):
    """A ScriptFunction with its trailing weight args held as buffers."""

    def __init__(self, fn, weights):
        super().__init__()
        self.fn = fn
        self.names = []
        for i, w in enumerate(weights):
            self.register_buffer("w%d" % i, w)
            self.names.append("w%d" % i)

    def forward(self, *xs):
        return self.fn(*xs, *[getattr(self, n) for n in self.names])


def rename_inputs(data, names):
    """torch drops all-digit input names ("0"); onnxexp keeps the IR names."""
    import onnx

    m = onnx.load_from_string(data)
    inits = {i.name for i in m.graph.initializer}
    user = [i for i in m.graph.input if i.name not in inits]
    mapping = {i.name: n for i, n in zip(user, names) if i.name != n}
    if not mapping:
        return data
    for i in user:
        i.name = mapping.get(i.name, i.name)

    def fix(graph):
        for node in graph.node:
            for k, v in enumerate(node.input):
                if v in mapping:
                    node.input[k] = mapping[v]
            for at in node.attribute:
                if at.type == onnx.AttributeProto.GRAPH:
                    fix(at.g)
        for o in graph.output:
            if o.name in mapping:
                o.name = mapping[o.name]

    fix(m.graph)
    return m.SerializeToString()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ir")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--weights")
    a = ap.parse_args()

    fdir = os.path.dirname(os.path.abspath(a.ir))
    name = os.path.basename(fdir)
    if name not in gen_fixtures.FIXTURES:
        fail("%s: not a generated fixture (%s)" % (a.ir, name), 2)
    with open(os.path.join(fdir, "meta.json")) as f:
        meta = json.load(f)
    wpath = a.weights or os.path.splitext(a.ir)[0] + ".safetensors"
    weights = st.load(wpath) if os.path.exists(wpath) else {}

    model, args, nw = gen_fixtures.build(name)
    n_user = len(args) - nw
    if isinstance(model, torch.jit.ScriptFunction):
        bound = []
        for i, (nm, ref) in enumerate(zip(meta["weights"], args[n_user:])):
            w = torch.from_numpy(weights[nm].copy())
            if tuple(w.shape) != tuple(ref.shape):
                fail("%s:1:1: weight %s: shape %s does not match declared %s" % (a.ir, nm, list(w.shape), list(ref.shape)))
            bound.append(w)
        model = _Bound(model, bound)
    else:
        sd = model.state_dict()
        for k, ref in sd.items():
            if k not in weights:
                continue
            w = torch.from_numpy(weights[k].copy())
            if tuple(w.shape) != tuple(ref.shape) or w.dtype != ref.dtype:
                fail("%s:1:1: weight %s: shape %s %s does not match declared %s %s"
                     % (a.ir, k, list(w.shape), w.dtype, list(ref.shape), ref.dtype))
            sd[k] = w
        model.load_state_dict(sd)
    model.eval()

    buf = io.BytesIO()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, tuple(args[:n_user]), buf, opset_version=a.opset,
                              input_names=meta["inputs"],
                              output_names=["out%d" % i for i in range(meta["num_outputs"])],
                              do_constant_folding=True)
    except torch.onnx.errors.UnsupportedOperatorError as e:
        fail("%s:1:1: %s is not supported at opset %d (%s)" % (a.ir, "unsupported op", a.opset, e))
    except Exception as e:  # noqa: BLE001
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        if "not supported" in msg or "Unsupported" in msg:
            fail("%s:1:1: an op is not supported at opset %d (%s)" % (a.ir, a.opset, msg))
        fail("%s:1:1: %s" % (a.ir, msg))
    data = rename_inputs(buf.getvalue(), meta["inputs"])
    tmp = a.output + ".tmp%d" % os.getpid()
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
