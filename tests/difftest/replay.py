"""Re-runs a reproducer written by run.py (tests/difftest/found/NAME/):

    /usr/bin/python3 tests/difftest/replay.py DIR [--onnxexp PATH] [--peer]

loads DIR/program.json + program.safetensors, exports the recorded form
with onnxexp (and torch.onnx.export with --peer), runs it in onnxruntime,
compares with torch eager and prints the outcome. Exit 1 while the recorded
bug (a mismatch or crash) is still there, 0 when the form matches or fails
with a named error, 2 on bad usage.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import torch  # noqa: E402

import harness  # noqa: E402
import known  # noqa: E402
from program import load_program  # noqa: E402

TOP = os.path.dirname(os.path.dirname(HERE))


def main(d, argv):
    ap = argparse.ArgumentParser(description="replay a difftest reproducer")
    ap.add_argument("--onnxexp", default=os.path.join(TOP, "build", "src", "cli", "onnxexp"))
    ap.add_argument("--peer", action="store_true")
    ap.add_argument("--opset", type=int)
    ap.add_argument("--node", default=shutil.which("node") or "node")
    ap.add_argument("--work", help="keep the exported files here")
    a = ap.parse_args(argv)
    with open(os.path.join(d, "meta.json")) as f:
        meta = json.load(f)
    torch.set_num_threads(1)
    known.ENABLED[0] = False  # a reproducer hits its known bug on purpose
    prog = load_program(d)
    work = a.work or tempfile.mkdtemp(prefix="difftest-replay-")
    s = harness.Session(os.path.abspath(a.onnxexp), work, a.opset or meta["opset"], a.node, peer=a.peer)
    try:
        items = s.start(prog, np.random.default_rng(0), "replay", want=(meta["form"],),
                        fixed=tuple(meta["dynamic"]) if meta.get("dynamic") else None)
        s.finish([items])
    finally:
        s.close()
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    bug = False
    for f, rs in items:
        for ex, r in rs.items():
            print("%s %s: %s%s" % (f.name, ex, r.outcome, (": " + r.detail) if r.detail else ""))
            if ex == "onnxexp" and r.outcome in harness.BUGS:
                bug = True
    print(prog.source())
    return 1 if bug else 0


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
