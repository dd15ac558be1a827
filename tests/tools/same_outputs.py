#!/usr/bin/python3
"""Checks that two onnxexp binaries write byte-identical models for every
positive round-trip fixture at each of its opsets (for changes that must
not change output: speed work, refactoring).

    tests/tools/same_outputs.py --old OLD_CLI --new NEW_CLI --fixtures DIR [--work DIR]

Prints the models that differ or that one side fails to export; exits 1
if any, 0 otherwise."""
import argparse
import concurrent.futures
import filecmp
import json
import os
import shlex
import subprocess
import sys


def export(cli, d, opset, out, extra):
    r = subprocess.run([cli, os.path.join(d, "model.ir"), "-o", out, "--opset", str(opset), "-q"] + extra,
                       capture_output=True, text=True)
    return r.returncode, r.stderr.strip()[-200:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--work", default="/tmp/onnxexp_same_outputs")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    jobs = []
    for name in sorted(os.listdir(a.fixtures)):
        mp = os.path.join(a.fixtures, name, "meta.json")
        if not os.path.exists(mp):
            continue
        meta = json.load(open(mp))
        if meta.get("expect_error"):
            continue
        for op in meta["opsets"]:
            jobs.append((name, op, list(meta.get("cli_args", []))))

    def one(job):
        name, op, extra = job
        d = os.path.join(a.fixtures, name)
        o1 = os.path.join(a.work, "%s.%d.old.onnx" % (name, op))
        o2 = os.path.join(a.work, "%s.%d.new.onnx" % (name, op))
        r1, e1 = export(a.old, d, op, o1, extra)
        r2, e2 = export(a.new, d, op, o2, extra)
        if r1 != r2:
            return "%s opset %d: exit %d (old) vs %d (new): %s" % (name, op, r1, r2, e2 or e1)
        if r1 == 0 and not filecmp.cmp(o1, o2, shallow=False):
            return "%s opset %d: models differ" % (name, op)
        return None

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        bad = [m for m in ex.map(one, jobs) if m]
    for m in bad:
        print(m)
    print("%d exports compared, %d differ" % (len(jobs), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
