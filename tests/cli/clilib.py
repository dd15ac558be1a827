"""Shared helpers for the onnxexp CLI tests (tests/cli/*.py).

Every invocation goes through run(), which also checks the invariants that
hold on every path, whatever the test is about:

  * the process exits normally with a status below 128 (no signal, no
    sanitizer/valgrind abort) and within a timeout;
  * every line on stderr starts with "onnxexp: error: " or
    "onnxexp: warning: ";
  * a failed run prints nothing on stdout (unless the test says otherwise).

Tests register with @test or @known_bug(reason); main() runs them, each in a
fresh directory under --work, and prints one line per test. A known_bug test
must still fail (XFAIL); once it passes (XPASS) the run fails, so that the
mark gets removed.
"""

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = os.path.join(SRC, "examples")
PREFIXES = ("onnxexp: error: ", "onnxexp: warning: ")

ONNXEXP = None          # path of the binary, set by main()
WRAPPER = []            # e.g. valgrind, set by main()
# memcheck under which a run fails (exit 99) on any error or leak. Every leak
# kind counts: the CLI frees all it allocates, so a "still reachable" block
# is a missed free, not a cache.
VALGRIND_FLAGS = ["-q", "--error-exitcode=99", "--leak-check=full",
                  "--show-leak-kinds=all", "--errors-for-leak-kinds=all"]
TIMEOUT = 20


class Result:
    def __init__(self, args, rc, out, err):
        self.args, self.rc, self.out, self.err = args, rc, out, err

    @property
    def lines(self):
        return [l for l in self.err.splitlines() if l]

    def __repr__(self):
        return "onnxexp %s -> rc=%s\n  stdout: %r\n  stderr: %r" % (
            " ".join(self.args), self.rc, self.out[:300], self.err[:600])


def run(args, cwd=None, input=None, umask=None, expect=None, stdout_ok=False,
        timeout=None, env=None):
    """Runs onnxexp with args; checks the invariants; returns a Result.

    expect: the exit status the test wants (checked here, with the output in
    the message). stdout_ok: a failing run may print on stdout."""
    args = [str(a) for a in args]
    pre = None
    if umask is not None:
        pre = lambda: os.umask(umask)
    t = timeout or (TIMEOUT * (10 if WRAPPER else 1))
    try:
        p = subprocess.run(WRAPPER + [ONNXEXP] + args, cwd=cwd, input=input,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           preexec_fn=pre, timeout=t, env=env)
    except subprocess.TimeoutExpired:
        raise AssertionError("onnxexp %s: no exit within %ss (hang?)" % (" ".join(args), t))
    r = Result(args, p.returncode, p.stdout, p.stderr.decode("utf-8", "replace"))
    if WRAPPER and r.rc == 99:
        raise AssertionError("valgrind reports memory errors:\n%r" % r)
    assert 0 <= r.rc < 128, "crash or signal: %r" % r
    for line in r.lines:
        if WRAPPER and line.startswith("=="):
            continue
        assert line.startswith(PREFIXES), "stderr line without the onnxexp prefix: %r\n%r" % (line, r)
    if r.rc != 0 and not stdout_ok:
        assert r.out == b"", "a failed run printed on stdout: %r" % r
    if expect is not None:
        assert r.rc == expect, "expected exit %d: %r" % (expect, r)
    return r


def error_line(r):
    """The first 'onnxexp: error: ' line, without the prefix."""
    for l in r.lines:
        if l.startswith(PREFIXES[0]):
            return l[len(PREFIXES[0]):]
    raise AssertionError("no error line: %r" % r)


def assert_in(sub, r, what=None):
    hay = r.err if what is None else what
    assert sub in hay, "expected %r in stderr: %r" % (sub, r)


# ---- files ----------------------------------------------------------------

def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    if isinstance(data, str):
        data = data.encode()
    with open(path, "wb") as f:
        f.write(data)
    return path


def listing(d):
    """Every name in d, hidden ones included, sorted."""
    return sorted(os.listdir(d))


def assert_no_temps(d):
    hidden = [n for n in os.listdir(d) if n.startswith(".")]
    assert not hidden, "temporary files left in %s: %s" % (d, hidden)


def st_bytes(tensors, header_extra=None):
    """A safetensors image: tensors = {name: (dtype, shape, raw bytes)}."""
    hdr, off, blobs = {}, 0, []
    for k in sorted(tensors):
        dt, shape, b = tensors[k]
        hdr[k] = {"dtype": dt, "shape": list(shape), "data_offsets": [off, off + len(b)]}
        off += len(b)
        blobs.append(b)
    if header_extra:
        hdr.update(header_extra)
    h = json.dumps(hdr, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    return struct.pack("<Q", len(h)) + h + b"".join(blobs)


def f32(*vals):
    return struct.pack("<%df" % len(vals), *vals)


def onnx_load(path):
    import onnx
    m = onnx.load(path)
    # the installed onnx may predate the model's ir_version (opset 18+)
    if m.ir_version <= onnx.IR_VERSION:
        onnx.checker.check_model(m, full_check=True)
    return m


# ---- fixtures -------------------------------------------------------------

T23 = "Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)"

# Two user inputs, two outputs, no weights.
ADD_IR = """graph(%x : {t},
      %y : {t}):
  %2 : int = prim::Constant[value=1]()
  %z : {t} = aten::add(%x, %y, %2)
  %r : {t} = aten::relu(%z)
  return (%z, %r)
""".format(t=T23)

# One input, no weights.
RELU_IR = """graph(%x : {t}):
  %y : {t} = aten::relu(%x)
  return (%y)
""".format(t=T23)

# One input and one weight %b with a foldable constant subgraph.
CF_IR = """graph(%x : Float(2, 4, strides=[4, 1], requires_grad=0, device=cpu),
      %b : Float(4, strides=[1], requires_grad=0, device=cpu)):
  %2 : int = prim::Constant[value=1]()
  %c : Float(4, strides=[1], requires_grad=0, device=cpu) = aten::mul(%b, %b)
  %z : Float(2, 4, strides=[4, 1], requires_grad=0, device=cpu) = aten::add(%x, %c, %2)
  return (%z)
"""
CF_ST = st_bytes({"b": ("F32", [4], f32(1, 2, 3, 4))})


def unary_ir(op):
    return """graph(%x : {t}):
  %y : {t} = {op}(%x)
  return (%y)
""".format(t=T23, op=op)


def mlp(d, name="tiny_mlp", sidecar=True):
    """examples/tiny_mlp.ir (+ .safetensors) copied into d; returns the .ir path."""
    ir = os.path.join(d, name + ".ir")
    shutil.copyfile(os.path.join(EXAMPLES, "tiny_mlp.ir"), ir)
    if sidecar:
        shutil.copyfile(os.path.join(EXAMPLES, "tiny_mlp.safetensors"),
                        os.path.join(d, name + ".safetensors"))
    return ir


def fixture(d, name, ir_text, st=None):
    ir = write(os.path.join(d, name + ".ir"), ir_text)
    if st is not None:
        write(os.path.join(d, name + ".safetensors"), st)
    return ir


# ---- runner ---------------------------------------------------------------

_TESTS = []


def test(fn):
    _TESTS.append((fn, None))
    return fn


def known_bug(reason):
    def deco(fn):
        _TESTS.append((fn, reason))
        return fn
    return deco


def main(description):
    global ONNXEXP, WRAPPER
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--onnxexp", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--valgrind", metavar="PATH", help="run every invocation under valgrind memcheck")
    ap.add_argument("-k", metavar="SUBSTR[,...]", help="only tests whose name contains one SUBSTR")
    ap.add_argument("-v", action="store_true", help="print the traceback of XFAILs too")
    a = ap.parse_args()
    ONNXEXP = os.path.abspath(a.onnxexp)
    if a.valgrind:
        WRAPPER = [a.valgrind] + VALGRIND_FLAGS + ["--track-fds=no"]
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    failed, counts = [], {"PASS": 0, "FAIL": 0, "XFAIL": 0, "XPASS": 0}
    t0 = time.time()
    for fn, bug in _TESTS:
        if a.k and not any(k in fn.__name__ for k in a.k.split(",")):
            continue
        d = os.path.join(work, fn.__name__)
        os.makedirs(d)
        t = time.time()
        try:
            fn(d)
            err = None
        except Exception:
            err = traceback.format_exc()
        if bug is None:
            verdict = "PASS" if err is None else "FAIL"
        else:
            verdict = "XFAIL" if err is not None else "XPASS"
        counts[verdict] += 1
        print("%-5s %-48s %5.2fs%s" % (verdict, fn.__name__, time.time() - t,
                                        "  (known bug: %s)" % bug if bug else ""))
        if verdict == "FAIL" or (verdict == "XFAIL" and a.v):
            print("      " + err.rstrip().replace("\n", "\n      "))
        if verdict == "XPASS":
            print("      passes now: remove the known_bug mark")
        if verdict in ("FAIL", "XPASS"):
            failed.append(fn.__name__)
    print("%d passed, %d failed, %d known bugs (xfail), %d xpass in %.1fs" % (
        counts["PASS"], counts["FAIL"], counts["XFAIL"], counts["XPASS"], time.time() - t0))
    if failed:
        print("failed: " + " ".join(failed))
    sys.stdout.flush()
    return 1 if failed else 0
