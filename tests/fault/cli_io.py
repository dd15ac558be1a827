#!/usr/bin/env python3
"""fault.cli_io: every file operation of the onnxexp command, failed in turn.

    cli_io.py --faulty ONNXEXP_FAULTY --fixtures DIR --work DIR [--alloc]

onnxexp_faulty is the command with the fault hook (fault.h) armed from
OXP_FAULT (cli_faulty.c). For each case the command first runs counting
its file operations per kind, then once per operation with it failing:
EIO for every kind; writes, copies, syncs and closes also ENOSPC; writes,
copies and reads also short; writes and copies as a disk filling up.

Every run must exit 2 with one "onnxexp: error:" line naming a file and
the error, the previous output (model and data file) byte for byte and
nothing beside it; or exit 0 with exactly the output of a run without
faults (a short transfer is no error; some operations the command can do
without). Exceptions that lose nothing, counted apart: a failed unlink of
the replaced data file leaves it under its hidden temporary name, and an
external reference the writer cannot check becomes inline data (the
model then passes onnx.checker). No run may crash, leave a descriptor open
(onnxexp_faulty exits 99), or print anything but onnxexp's own lines.

--alloc (fault.cli_alloc) instead fails each allocation of one command
line that uses every option the command itself allocates for (names,
dynamic axes, custom opsets, external data): each run exits 1 with one
"out of memory" error and the previous output untouched, or exits 0 with
the output of a run without faults.
"""

import argparse
import errno
import os
import shutil
import subprocess
import sys

PREV_MODEL = b"the previous model\n"
PREV_DATA = b"the previous data\n"

# label, fixture, options[, what always fails: a system without O_TMPFILE,
# cross-filesystem copy_file_range and RENAME_EXCHANGE (cli_faulty.c)]
FALLBACKS = "tmpfile:EOPNOTSUPP,copy:EXDEV,exchange:EINVAL"
CASES = [
    ("mlp", "mlp", []),
    ("external_data", "cnn_bn_pool", ["--external-data"]),
    ("external_data_fallbacks", "cnn_bn_pool", ["--external-data"], FALLBACKS),
    ("transformer_external", "model_transformer_fast", ["--external-data"]),
    ("external_reference", "mlp", ["--external-data=reference"]),
    ("dynamic_axes", "opt_dyn_cnn", ["--input-names", "img", "--dynamic-axes", "img:0=n"]),
    ("pretty", "mlp", ["--pretty"]),
]


def modes_of(kind):
    m = [("EIO", "once")]
    if kind in ("write", "copy", "sync", "close"):
        m.append(("ENOSPC", "once"))
    if kind in ("write", "copy", "read"):
        m.append(("EIO", "short"))
    if kind in ("write", "copy"):
        m.append(("ENOSPC", "fill"))
    return m


class Case:
    def __init__(self, args, label, fixture, opts, cond=None):
        self.a, self.label, self.opts, self.cond = args, label, opts, cond
        self.fx = os.path.join(args.fixtures, fixture)
        self.ir = os.path.join(self.fx, "model.ir")
        self.out = os.path.join(args.work, label)
        self.model = os.path.join(self.out, "model.onnx")
        self.data = self.model + ".data"
        self.ext = "--external-data" in opts
        self.pretty = "--pretty" in opts
        self.failures = []

    def run(self, spec, counts=None):
        env = dict(os.environ, OXP_FAULT=spec)
        if self.cond:
            env["OXP_FAULT_COND"] = self.cond
        if counts:
            env["OXP_FAULT_COUNTS"] = counts
        args = [self.a.faulty, self.ir, "-q"] + self.opts
        if not self.pretty:
            args += ["-o", self.model]
        p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=env, timeout=120)
        return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")

    def reset(self):
        shutil.rmtree(self.out, ignore_errors=True)
        os.makedirs(self.out)
        if self.pretty:
            return
        with open(self.model, "wb") as f:
            f.write(PREV_MODEL)
        if self.ext:
            with open(self.data, "wb") as f:
                f.write(PREV_DATA)

    def snapshot(self):
        out = {}
        for name in sorted(os.listdir(self.out)):
            with open(os.path.join(self.out, name), "rb") as f:
                out[name] = f.read()
        return out

    def fail(self, what, msg):
        self.failures.append("%s: %s: %s" % (self.label, what, msg))


def is_model(path):
    try:
        import onnx
        onnx.checker.check_model(onnx.load(path), full_check=False)
        return True
    except ImportError:
        return os.path.getsize(path) > 0
    except Exception:
        return False


def run_case(args, label, fixture, opts, tally, cond=None):
    c = Case(args, label, fixture, opts, cond)
    c.reset()
    before = c.snapshot()
    rc, want_out, err = c.run("count", os.path.join(args.work, label + ".counts"))
    if rc != 0:
        c.fail("counting run", "exit %d: %s" % (rc, err))
        return c.failures
    counts = {}
    with open(os.path.join(args.work, label + ".counts")) as f:
        for line in f:
            k, v = line.split()
            counts[k] = int(v)
    want = c.snapshot()
    ops = runs = 0
    for kind, n in counts.items():
        if kind in ("alloc", "fired") or n == 0:
            continue
        ops += n
        for k in range(1, n + 1):
            for err_name, mode in modes_of(kind):
                what = "%s %d as %s %s" % (kind, k, err_name, mode)
                c.reset()
                rc, out, err = c.run("%s:%d:%s:%s" % (kind, k, err_name, mode))
                runs += 1
                lines = [l for l in err.splitlines() if l]
                bad = [l for l in lines if not l.startswith(("onnxexp: error: ", "onnxexp: warning: "))]
                if bad:
                    c.fail(what, "stray output: %r" % bad)
                got = c.snapshot()
                if rc == 0:
                    strays = [n for n in got if n.startswith(".model.onnx.data.")]
                    for n in strays:
                        del got[n]
                    if strays and kind == "unlink":
                        tally["stray"] += 1
                    elif (label == "external_reference" and got != want and
                          set(got) == set(want) and is_model(c.model)):
                        tally["inlined"] += 1
                    elif got != want or out != want_out:
                        c.fail(what, "exit 0 with a different result")
                    else:
                        tally["did_without"] += 1
                elif rc == 2 and mode != "short":
                    tally["io_error"] += 1
                    why = os.strerror(getattr(errno, err_name))
                    text = " ".join(lines)
                    if len(lines) != 1 or why not in text or (c.out not in text and c.fx not in text):
                        c.fail(what, "expected one error naming a file and %r: %r" % (why, err))
                    if got != before:
                        c.fail(what, "the previous output changed: %r" % sorted(got))
                    if out:
                        c.fail(what, "a failed run printed on stdout")
                else:
                    c.fail(what, "exit %d: %s" % (rc, err.strip()))
    tally["ops"] += ops
    tally["runs"] += runs
    print("%-24s %4d operations (%s), %d runs" % (
        label, ops, " ".join("%s %d" % kv for kv in counts.items()
                             if kv[0] not in ("alloc", "fired") and kv[1]), runs))
    return c.failures


ALLOC_CASE = ("options", "mlp", ["--input-names", "x", "--output-names", "y",
                                 "--dynamic-axes", "x:0=batch",
                                 "--custom-opset", "my.domain=1", "--external-data"])


def run_alloc(args, tally):
    label, fixture, opts = ALLOC_CASE
    c = Case(args, label, fixture, opts)
    c.reset()
    before = c.snapshot()
    counts_path = os.path.join(args.work, label + ".counts")
    rc, want_out, err = c.run("count", counts_path)
    if rc != 0:
        c.fail("counting run", "exit %d: %s" % (rc, err))
        return c.failures
    with open(counts_path) as f:
        n = dict(line.split() for line in f)["alloc"]
    want = c.snapshot()
    for k in range(1, int(n) + 1):
        what = "allocation %d" % k
        c.reset()
        rc, out, err = c.run("alloc:%d:ENOMEM:once" % k)
        tally["runs"] += 1
        lines = [l for l in err.splitlines() if l]
        got = c.snapshot()
        if rc == 0:
            tally["did_without"] += 1
            if got != want or out != want_out:
                c.fail(what, "exit 0 with a different result")
        elif rc == 1:
            tally["nomem"] += 1
            if len(lines) != 1 or not lines[0].startswith("onnxexp: error: ") \
                    or "out of memory" not in lines[0]:
                c.fail(what, "expected one out-of-memory error: %r" % err)
            if got != before:
                c.fail(what, "the previous output changed: %r" % sorted(got))
        else:
            c.fail(what, "exit %d: %s" % (rc, err.strip()))
    tally["ops"] += int(n)
    return c.failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--faulty", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--case", action="append")
    ap.add_argument("--alloc", action="store_true")
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    if args.alloc:
        tally = dict(ops=0, runs=0, nomem=0, did_without=0)
        failures = run_alloc(args, tally)
        for f in failures[:50]:
            print("FAIL:", f)
        print("cli allocation failure points: %(ops)d failed in turn: %(nomem)d exit 1 "
              "out of memory, %(did_without)d did without" % tally
              + "; %d failed checks" % len(failures))
        return 1 if failures else 0
    tally = dict(ops=0, runs=0, io_error=0, did_without=0, stray=0, inlined=0)
    failures = []
    for case in CASES:
        if args.case and case[0] not in args.case:
            continue
        failures += run_case(args, *case[:3], tally, *case[3:])
    for f in failures[:50]:
        print("FAIL:", f)
    print("cli i/o failure points: %(ops)d operations failed in turn in %(runs)d runs: "
          "%(io_error)d exit 2, %(did_without)d did without, %(stray)d left an old data "
          "file, %(inlined)d inlined a reference" % tally
          + "; %d failed checks" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
