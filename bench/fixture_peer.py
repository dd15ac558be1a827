#!/usr/bin/python3
"""Whole-model fixtures beside the peer: per model the IR's node count,
onnxexp's and torch.onnx.export's ONNX node counts, each one's export wall
time (the ratio peer / onnxexp), and the round trip's max error.

    /usr/bin/python3 bench/fixture_peer.py --onnxexp build/src/cli/onnxexp \
        --fixtures build/fixtures [--only NAME...] [--opset 17]

By default the torchvision detection, segmentation and flow fixtures
(tvm_*), which the suite's peer.node_counts skips for time. Both exporters
export the same traced model at one opset without dynamic axes (the
fixture's --dynamic-axes are left out so the graphs compare like for
like); onnxexp's time is the best of three CLI runs (weights read and
model written included), torch's one call of torch.onnx.export on the
model rebuilt by the fixture script (building it is not timed). The max
error is what tests/roundtrip/roundtrip.py reports for the fixture at that
opset, with the fixture's own options (dynamic axes included).
"""

import argparse
import io
import json
import os
import re
import subprocess
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "tests", "fixtures"))

import onnx  # noqa: E402
import torch  # noqa: E402

# An IR line that runs an op: "%x : T = ns::op(...)" or " = ns::op(...)".
IR_NODE = re.compile(r"^\s*(?:%[^=]*)?= [\w.]+::\w+", re.M)
RT_LINE = re.compile(r"^(\S+)\s+(\d+)\s+(PASS|FAIL\S*)\s+(\S+)", re.M)


def ir_nodes(fixdir, name):
    with open(os.path.join(fixdir, name, "model.ir")) as f:
        return len(IR_NODE.findall(f.read()))


def onnxexp_export(cli, fixdir, name, out, opset):
    best = None
    for _ in range(3):
        t = time.perf_counter()
        r = subprocess.run([cli, os.path.join(fixdir, name, "model.ir"), "-o", out,
                            "--opset", str(opset), "-q"], capture_output=True, text=True)
        dt = time.perf_counter() - t
        if r.returncode:
            raise RuntimeError(r.stderr.strip().splitlines()[-1])
        best = dt if best is None else min(best, dt)
    return len(onnx.load(out, load_external_data=False).graph.node), best


def peer_export(gen, name, opset):
    model, args, _ = gen.build(name)
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        torch.onnx.export(model, args, buf, opset_version=opset)
        dt = time.perf_counter() - t
    return len(onnx.load_from_string(buf.getvalue()).graph.node), dt


def max_errors(cli, fixdir, names, opset, work):
    r = subprocess.run([sys.executable, os.path.join(TOP, "tests", "roundtrip", "roundtrip.py"),
                        "--onnxexp", cli, "--fixtures", fixdir, "--work", work,
                        "--node", os.environ.get("NODE", "node"), "--no-determinism",
                        "--only"] + names, capture_output=True, text=True)
    return {(m.group(1), int(m.group(2))): (m.group(3), m.group(4))
            for m in RT_LINE.finditer(r.stdout)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxexp", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--only", nargs="+")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--work", default="/tmp/onnxexp_fixture_peer")
    a = ap.parse_args()
    cli = os.path.abspath(a.onnxexp)
    os.makedirs(a.work, exist_ok=True)
    import gen_fixtures as gen  # registers every fixture
    names = a.only or sorted(d for d in os.listdir(a.fixtures) if d.startswith("tvm_"))
    errs = max_errors(cli, a.fixtures, names, a.opset, os.path.join(a.work, "rt"))
    print("%-22s %7s %8s %9s %6s %9s %7s  %s" % ("model", "IR", "onnxexp", "t_onnxexp", "peer",
                                                 "t_peer", "ratio", "round trip (max err)"))
    for name in names:
        ours, t_ours = onnxexp_export(cli, a.fixtures, name, os.path.join(a.work, name + ".onnx"), a.opset)
        note = ""
        try:
            peer, t_peer = peer_export(gen, name, a.opset)
            cols = "%6d %8.2fs %6.1fx" % (peer, t_peer, t_peer / t_ours)
        except Exception as e:  # noqa: BLE001
            cols = "%6s %9s %7s" % ("-", "-", "-")
            note = "  (torch: %s)" % str(e).splitlines()[0][:80]
        st, err = errs.get((name, a.opset), ("not run", "-"))
        print("%-22s %7d %8d %8.2fs %s  %s %s%s" % (name, ir_nodes(a.fixtures, name), ours,
                                                  t_ours, cols, st, err, note))
    return 0


if __name__ == "__main__":
    sys.exit(main())
