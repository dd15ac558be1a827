#!/usr/bin/python3
"""Round-trip test for external data, both modes.

    /usr/bin/python3 tests/roundtrip/external.py --onnxexp CLI --work DIR [--node NODE]

Makes a small MLP with torch with a 2 MiB weight after 68 KiB of others
(so it must be padded to a 64 KiB boundary) and a bias below the 1 KiB
inline threshold, as the fixtures do (IR + safetensors sidecar). Exports it
inline, with --external-data (default and custom data file name), and with
--external-data=reference (sidecar beside the model, and in a sibling
directory so the location needs ".."). Each must pass the onnx checker
with its external files, keep small tensors inline, put big ones where
the mode says (aligned data file / the sidecar's own bytes), and give in
onnxruntime exactly the inline model's outputs, which match torch. A bad
data file name must fail and leave no file. Exits 1 on any failure.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "tools"))
sys.path.insert(0, os.path.join(TOP, "tests", "fixtures"))

import numpy as np  # noqa: E402

import st  # noqa: E402

RUN_JS = os.path.join(TOP, "tests", "node", "run.js")
FAILS = []


def check(cond, what):
    print("%s  %s" % ("ok  " if cond else "FAIL", what))
    if not cond:
        FAILS.append(what)


def make_model(d):
    import torch
    import gen_fixtures

    torch.manual_seed(8)
    # 64 KiB + 4 KiB come first, so the 2 MiB weight needs padding to 64 KiB
    model = torch.nn.Sequential(torch.nn.Linear(16, 1024), torch.nn.ReLU(),
                                torch.nn.Linear(1024, 512), torch.nn.Tanh(),
                                torch.nn.Linear(512, 8)).eval()
    x = torch.randn(3, 16)
    graph, params = gen_fixtures.jit_graph(model, (x,))
    names = [v.debugName() for v in graph.inputs()]
    weights = {n: st.from_torch(p) for n, p in zip(names[1:], params)}
    weights.update({k: st.from_torch(t) for k, t in gen_fixtures.tensor_constants(graph).items()})
    os.makedirs(d)
    with open(os.path.join(d, "model.ir"), "w") as f:
        f.write(str(graph).replace(TOP + os.sep, ""))
    st.save(weights, os.path.join(d, "model.safetensors"))
    st.save({names[0]: st.from_torch(x)}, os.path.join(d, "inputs.safetensors"))
    with torch.no_grad():
        st.save({"out0": st.from_torch(model(x))}, os.path.join(d, "outputs.safetensors"))
    return weights


def run(cli, args):
    return subprocess.run([cli] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def externals(path):
    import onnx

    m = onnx.load(path, load_external_data=False)
    out = {}
    for t in m.graph.initializer:
        e = {kv.key: kv.value for kv in t.external_data}
        out[t.name] = (t.data_location, e, len(t.raw_data))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxexp", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--node", default="node")
    a = ap.parse_args()
    import onnx

    shutil.rmtree(a.work, ignore_errors=True)
    src = os.path.join(a.work, "model")
    weights = make_model(src)
    ir = os.path.join(src, "model.ir")
    sidecar = os.path.join(src, "model.safetensors")
    with open(sidecar, "rb") as f:
        side = f.read()
    big = [n for n, w in weights.items() if w.nbytes >= 1 << 20]
    small = [n for n, w in weights.items() if w.nbytes < 1024]
    check(len(big) == 1 and len(small) >= 1, "model has one >= 1 MiB weight and a small one")

    out = os.path.join(a.work, "out")
    sib = os.path.join(a.work, "sibling")
    os.makedirs(out)
    os.makedirs(sib)
    cases = {
        "inline": (os.path.join(out, "inline.onnx"), []),
        "file": (os.path.join(out, "file.onnx"), ["--external-data"]),
        "file_named": (os.path.join(out, "named.onnx"), ["--external-data=file", "--external-data-name", "w.bin"]),
        "ref_beside": (os.path.join(src, "ref.onnx"), ["--external-data=reference"]),
        "ref_sibling": (os.path.join(sib, "ref.onnx"), ["--external-data=reference"]),
    }
    for name, (path, flags) in cases.items():
        r = run(a.onnxexp, [ir, "-o", path] + flags)
        err = r.stderr.decode().strip()
        check(r.returncode == 0, "%s: export exits 0" % name)
        # only a reference out of the model's directory is worth a note
        check(("outside the model's directory" in err) == (name == "ref_sibling") and
              (not err or name == "ref_sibling"), "%s: stderr %r" % (name, err[:120]))
        try:
            onnx.checker.check_model(path, full_check=True)
            check(True, "%s: onnx checker (with its external files)" % name)
        except Exception as e:  # noqa: BLE001
            check(False, "%s: onnx checker: %s" % (name, str(e)[:200]))
        ex = externals(path)
        for n in small:
            check(ex[n][0] == 0 and ex[n][2] == weights[n].nbytes, "%s: %s (%d B) inline" % (name, n, weights[n].nbytes))

    ex = externals(cases["inline"][0])
    check(all(v[0] == 0 for v in ex.values()), "inline: no external data")
    for name, loc in (("file", "file.onnx.data"), ("file_named", "w.bin")):
        ex = externals(cases[name][0])
        for n in big:
            dl, e, _ = ex[n]
            check(dl == 1 and e.get("location") == loc, "%s: %s external in %s" % (name, n, loc))
            off, ln = int(e["offset"]), int(e["length"])
            check(off % 65536 == 0 and off > 0, "%s: %s offset %d aligned to 64 KiB" % (name, n, off))
            with open(os.path.join(out, loc), "rb") as f:
                f.seek(off)
                got = f.read(ln)
            check(got == weights[n].tobytes(), "%s: %s bytes in the data file" % (name, n))
    check(not os.path.exists(os.path.join(out, "named.onnx.data")), "file_named: no default-named data file")
    for name, loc in (("ref_beside", "model.safetensors"), ("ref_sibling", "../model/model.safetensors")):
        ex = externals(cases[name][0])
        d = os.path.dirname(cases[name][0])
        check(not [f for f in os.listdir(d) if f.endswith(".data")], "%s: no data file written" % name)
        for n in big:
            dl, e, _ = ex[n]
            check(dl == 1 and e.get("location") == loc, "%s: %s points into %s" % (name, n, loc))
            off, ln = int(e["offset"]), int(e["length"])
            check(side[off:off + ln] == weights[n].tobytes(), "%s: offset %d is the tensor's bytes in the sidecar" % (name, off))

    # onnxruntime: every mode gives the inline model's outputs exactly
    jobs = [{"model": p, "inputs": os.path.join(src, "inputs.safetensors"), "outputs": p + ".out.safetensors"}
            for p, _ in cases.values()]
    jpath = os.path.join(a.work, "jobs.json")
    with open(jpath, "w") as f:
        json.dump(jobs, f)
    r = subprocess.run([a.node, RUN_JS, jpath], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    res = {}
    for line in r.stdout.decode().splitlines():
        try:
            j = json.loads(line)
            res[j["model"]] = j
        except ValueError:
            pass
    for name, (path, _) in cases.items():
        check(res.get(path, {}).get("ok"), "%s: runs in onnxruntime %s" % (name, res.get(path, {}).get("error", "")))
    if all(res.get(p, {}).get("ok") for p, _ in cases.values()):
        def load(p):
            with open(p, "rb") as f:
                return st.loads(f.read())["out0"]
        base = load(cases["inline"][0] + ".out.safetensors")
        ref = load(os.path.join(src, "outputs.safetensors"))
        check(np.allclose(base, ref, rtol=1e-4, atol=1e-5), "inline: onnxruntime matches torch")
        for name, (path, _) in cases.items():
            check(np.array_equal(load(path + ".out.safetensors"), base), "%s: outputs identical to inline" % name)

    # a bad data file name: usage error, nothing written
    bad = os.path.join(a.work, "bad")
    os.makedirs(bad)
    r = run(a.onnxexp, [ir, "-o", os.path.join(bad, "m.onnx"), "--external-data", "--external-data-name", "x/y.data"])
    check(r.returncode == 2 and b"plain file name" in r.stderr, "bad data name: exit 2 with a reason")
    check(os.listdir(bad) == [], "bad data name: no file left")

    print("external data round trip: %s" % ("FAILED: %d" % len(FAILS) if FAILS else "all passed"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
