#!/usr/bin/env python3
"""onnxexp bad-input suite: every case of cases.txt, in a fresh directory.

  run_bad.py --onnxexp BUILD/src/cli/onnxexp --work DIR [-k NAME,...] [--valgrind PATH]

Each case runs twice. First with the output path absent: the exit status is
the expected one, the first error line holds the expected words (clilib.run
also checks: no crash or signal, every stderr line prefixed, nothing on
stdout), no output file appears and nothing else is left in out/ or beside
the inputs. Then with known bytes at the output path: the run fails the
same way and the file is byte-identical (same inode, same mtime) with no
stray files next to it. The two control cases (exit 0) check the inputs
the bad cases alter: they export, and replace an existing output.
"""

import os
import re
import shlex
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "cli"))
from clilib import error_line, known_bug, listing, main, read, run, test, write  # noqa: E402

import make_sidecars  # noqa: E402

CASES = os.path.join(HERE, "cases.txt")
FILES = os.path.join(HERE, "files")
OUT = os.path.join("out", "model.onnx")
MARKER = b"MARKER: an existing file the failed export must not touch\n" * 4
CUT = re.compile(r"(.+)@(\d+):(\d+)$")


class Case:
    def __init__(self, lineno, cols):
        if len(cols) not in (5, 6):
            raise SystemExit("%s:%d: expected 5 or 6 '|'-separated columns, got %d"
                             % (CASES, lineno, len(cols)))
        self.name, files, args, exit_, words = cols[:5]
        self.xfail = cols[5] if len(cols) == 6 and cols[5] else None
        self.files = [] if files in ("", "-") else files.split()
        self.args = shlex.split(args)
        self.words = [w.strip() for w in words.split(";") if w.strip()]
        self.where = "%s:%d" % (CASES, lineno)
        if not re.fullmatch(r"[A-Za-z0-9_]+", self.name) or not exit_.isdigit():
            raise SystemExit("%s: bad name or exit status" % self.where)
        self.exit = int(exit_)
        if self.exit != 0 and not self.words:
            raise SystemExit("%s: a failing case needs the words of its message" % self.where)


def load_cases():
    cases, seen = [], set()
    with open(CASES) as f:
        for i, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            c = Case(i, [col.strip() for col in line.rstrip("\n").split("|")])
            if c.name in seen:
                raise SystemExit("%s: case %s given twice" % (c.where, c.name))
            seen.add(c.name)
            cases.append(c)
    return cases


def materialize(spec, d):
    """Copies files/NAME (or its first lines, for NAME@L:C) into d; returns NAME."""
    m = CUT.match(spec)
    name = m.group(1) if m else spec
    data = read(os.path.join(FILES, name))
    if m:
        line, col = int(m.group(2)), int(m.group(3))
        lines = data.split(b"\n")
        assert line <= len(lines) and col <= len(lines[line - 1]) + 1, "no %s in %s" % (spec, name)
        data = b"".join(l + b"\n" for l in lines[:line - 1]) + lines[line - 1][:col - 1]
    write(os.path.join(d, name), data)
    return name


def command(case, names):
    args = [n for n in names if n.endswith(".ir")][:1] + case.args
    if "-o" not in args:
        args += ["-o", OUT]
    return args, args[args.index("-o") + 1]


def check_message(case, r):
    msg = error_line(r)
    errors = [l for l in r.lines if l.startswith("onnxexp: error: ")]
    assert len(errors) == 1, "one error line expected: %r" % r
    for w in case.words:
        if w.startswith("^"):
            assert msg.startswith(w[1:]), "the message must start with %r: %r" % (w[1:], r)
        else:
            assert w in msg, "%r missing from the error line: %r" % (w, r)
    return msg


def snapshot(d):
    """Every path under d, files with inode, size and mtime: what a failed
    run must not change. (A directory's mtime may change: a temporary made
    and removed again is fine.)"""
    seen = {}
    for root, dirs, files in os.walk(d):
        for n in dirs:
            seen[os.path.relpath(os.path.join(root, n), d)] = "dir"
        for n in files:
            st = os.lstat(os.path.join(root, n))
            seen[os.path.relpath(os.path.join(root, n), d)] = (st.st_ino, st.st_size, st.st_mtime_ns)
    return seen


def check_control(case, d, args, out):
    run(args, cwd=d, expect=0)
    assert listing(os.path.join(d, "out")) == ["model.onnx"], listing(os.path.join(d, "out"))
    model = read(os.path.join(d, out))
    assert len(model) > 0
    write(os.path.join(d, out), MARKER)
    run(args, cwd=d, expect=0)
    assert read(os.path.join(d, out)) == model, "the existing output was not replaced"
    assert listing(os.path.join(d, "out")) == ["model.onnx"]


def check_failure(case, d, args, out):
    target = os.path.join(d, out)
    existed = os.path.lexists(target)
    before = snapshot(d)
    r = run(args, cwd=d, expect=case.exit)
    msg = check_message(case, r)
    assert existed or not os.path.lexists(target), "a failed run created %s" % out
    assert snapshot(d) == before, "files changed: %s -> %s" % (sorted(before), sorted(snapshot(d)))
    # again, with a file at the output path (where one can be put there)
    parent = os.path.dirname(target)
    if existed or not os.path.isdir(parent) or not parent.startswith(d + os.sep):
        return
    write(target, MARKER)
    before = snapshot(d)
    r2 = run(args, cwd=d, expect=case.exit)
    assert error_line(r2) == msg, "second run, other message: %r" % r2
    assert read(target) == MARKER, "the existing output was changed"
    assert snapshot(d) == before, "files changed: %s -> %s" % (sorted(before), sorted(snapshot(d)))


def register(case):
    def fn(d):
        os.mkdir(os.path.join(d, "out"))
        names = [materialize(s, d) for s in case.files]
        args, out = command(case, names)
        (check_control if case.exit == 0 else check_failure)(case, d, args, out)
    fn.__name__ = case.name
    (known_bug(case.xfail) if case.xfail else test)(fn)


@test
def sidecars_up_to_date(d):
    assert make_sidecars.main(["make_sidecars.py", "--check"]) == 0, \
        "files/*.safetensors differ from make_sidecars.py"


if __name__ == "__main__":
    for c in load_cases():
        register(c)
    sys.exit(main(__doc__.splitlines()[1]))
