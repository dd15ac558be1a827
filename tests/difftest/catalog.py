#!/usr/bin/python3
"""Reproducers against the known-bug list.

    /usr/bin/python3 tests/difftest/catalog.py [DIR...] [--replay] [--onnxexp PATH]

For every reproducer directory (default: tests/difftest/found/*) prints the
known.py entries its program hits (run statement by statement on its own
inputs) and, with --replay, whether the recorded bug is still there with
today's onnxexp (replay.py): "fixed" means its known.py entry can go (and
the reproducer can become a regression fixture). Exit 1 if a reproducer
hits no known entry and is not a views-mode (issue 17) program.

A reproducer whose bug was fixed keeps its directory with "fixed" in
meta.json (what fixed it) and serves as a regression test: --fixed replays
only those and exits 1 if any shows its bug again (the suite's
difftest.fixed).
"""

import argparse
import glob
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import harness  # noqa: E402
import known  # noqa: E402
from program import Interp, load_program  # noqa: E402

TOP = os.path.dirname(os.path.dirname(HERE))


def hits(prog):
    """The known.py entries prog's statements hit, as (id, forms), in order."""
    found = []

    def step(it, s):
        k = known.check(it.prog, s, [it.env.get(n) for n in s.ins], [it.env[n] for n in s.outs], it.env)
        if k is not None and k.id not in [f[0] for f in found]:
            found.append((k.id, k.forms))

    p = prog.copy()
    p.excluded = {}
    it = Interp(p)
    it.on_step = step
    try:
        it.run(snap=False)
    except Exception:  # noqa: BLE001
        pass
    forms = {}
    for form, ident in p.excluded.items():
        forms.setdefault(ident, []).append(form)
    for ident, fs in forms.items():
        if ident not in [f[0] for f in found]:
            found.append((ident, tuple(fs)))
    return found


def replay(d, meta, cli, node):
    known.ENABLED[0] = False  # the reproducer hits its known bug on purpose
    prog = load_program(d)
    work = tempfile.mkdtemp(prefix="difftest-catalog-")
    s = harness.Session(cli, work, meta["opset"], node, peer=False)
    try:
        items = s.start(prog, np.random.default_rng(0), "c", want=(meta["form"],),
                        fixed=tuple(meta["dynamic"]) if meta.get("dynamic") else None)
        s.finish([items])
    finally:
        s.close()
        shutil.rmtree(work, ignore_errors=True)
        known.ENABLED[0] = True
    r = items[0][1]["onnxexp"]
    return r.outcome, r.detail


def main():
    ap = argparse.ArgumentParser(description="reproducers against known.py")
    ap.add_argument("dirs", nargs="*")
    ap.add_argument("--replay", action="store_true", help="re-run each with --onnxexp")
    ap.add_argument("--onnxexp", default=os.path.join(TOP, "build", "src", "cli", "onnxexp"))
    ap.add_argument("--node", default=shutil.which("node") or "node")
    ap.add_argument("--json", help="write the catalogue here")
    ap.add_argument("--fixed", action="store_true", help="replay the reproducers of fixed bugs; exit 1 on any bug")
    a = ap.parse_args()
    torch.set_num_threads(1)
    dirs = a.dirs or sorted(glob.glob(os.path.join(HERE, "found", "*")))
    dirs = [d for d in dirs if os.path.isfile(os.path.join(d, "program.json"))]
    rows = []
    unknown = 0
    regressed = 0
    for d in dirs:
        with open(os.path.join(d, "meta.json")) as f:
            meta = json.load(f)
        if a.fixed:
            if meta.get("fixed"):
                now, detail = replay(d, meta, a.onnxexp, a.node)
                bad = now in harness.BUGS
                regressed += bad
                print("%-70s %-8s %s%s" % (os.path.relpath(d, TOP)[-70:], meta["form"], now,
                                          (": " + detail) if bad and detail else ""))
            continue
        prog = load_program(d)
        ids = [i for i, forms in hits(prog) if meta["form"] in forms]
        row = {"dir": os.path.relpath(d, TOP), "form": meta["form"], "outcome": meta["outcome"], "known": ids,
               "mode": prog.mode, "ops": meta.get("ops")}
        if a.replay:
            row["now"], row["now_detail"] = replay(d, meta, a.onnxexp, a.node)
        if not ids and prog.mode != "views" and not meta.get("fixed"):
            unknown += 1
        rows.append(row)
        print("%-70s %-8s %-10s %-28s %s" % (row["dir"][-70:], row["form"], row["outcome"], ",".join(ids) or "-",
                                            ("now: " + row["now"]) if a.replay else ""))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    if a.fixed:
        return 1 if regressed else 0
    return 1 if unknown else 0


if __name__ == "__main__":
    sys.exit(main())
