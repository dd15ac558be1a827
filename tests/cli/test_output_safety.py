#!/usr/bin/env python3
"""Output safety: what an export that dies or runs out of room leaves behind.

  test_output_safety.py --onnxexp BUILD/src/cli/onnxexp --work DIR [-k NAME]

  * killed with SIGKILL while the model (or its external data file) is being
    written: the previous output is byte-identical and the directory holds
    exactly what it held before, hidden names included;
  * past RLIMIT_FSIZE: a clean "File too large" error (exit 2), the previous
    output unchanged, no temporary left.

The kill is aimed, not timed: the test watches the exporter's open file
descriptors and kills it once one of them is a file being written (inside
the output directory) that holds some but not all of its bytes.
"""

import os
import resource
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clilib  # noqa: E402
from clilib import assert_in, error_line, listing, main, read, run, st_bytes, test, write  # noqa: E402

# One weight of ROWS x 1024 floats, multiplied into the input: big enough
# that writing it takes many write calls, small enough to make quickly.
COLS = 1024


def big_model(d, rows, name="big"):
    t = "Float(2, %d, strides=[%d, 1], requires_grad=0, device=cpu)" % (COLS, COLS)
    w = "Float(%d, %d, strides=[%d, 1], requires_grad=0, device=cpu)" % (rows, COLS, COLS)
    o = "Float(2, %d, strides=[%d, 1], requires_grad=0, device=cpu)" % (rows, rows)
    ir = write(os.path.join(d, name + ".ir"), """graph(%%x : %s,
      %%w : %s):
  %%wt : Float(%d, %d, strides=[1, %d], requires_grad=0, device=cpu) = aten::t(%%w)
  %%y : %s = aten::matmul(%%x, %%wt)
  return (%%y)
""" % (t, w, COLS, rows, COLS, o))
    # Not all zeros: a sparse or compressible sidecar could make the copy
    # too quick to catch.
    row = bytes(range(256)) * (COLS * 4 // 256)
    write(os.path.join(d, name + ".safetensors"), st_bytes({"w": ("F32", [rows, COLS], row * rows)}))
    return ir


def writing_fd(pid, outdir):
    """(path, size) of a file the process has open for writing in outdir
    with some bytes in it, or None."""
    try:
        fds = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return None
    for fd in fds:
        try:
            target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                flags = int(f.read().split("flags:")[1].split()[0], 8)
            size = os.stat("/proc/%d/fd/%s" % (pid, fd)).st_size
        except (OSError, IndexError, ValueError):
            continue
        if flags & (os.O_WRONLY | os.O_RDWR) and target.startswith(outdir + "/") and size > 0:
            return target, size
    return None


def kill_mid_write(d, args, outdir, total):
    """Starts onnxexp with args, kills it once a file in outdir is being
    written and holds between 1 and total-1 bytes; returns what was seen."""
    p = subprocess.Popen([clilib.ONNXEXP] + args, cwd=d, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    seen = None
    deadline = time.time() + 60
    while p.poll() is None and time.time() < deadline:
        w = writing_fd(p.pid, outdir)
        if w and w[1] < total:
            os.kill(p.pid, signal.SIGKILL)
            seen = w
            break
    p.wait()
    assert seen, "never saw onnxexp mid-write (exit %s): %r" % (p.returncode, p.stderr.read())
    assert p.returncode == -signal.SIGKILL, p.returncode
    return seen


def check_kill(d, extra, outputs, rows):
    ir = big_model(d, rows)
    out = os.path.join(d, "out")
    os.makedirs(out)
    prev = {}
    for name in outputs:
        prev[name] = write(os.path.join(out, name), b"previous " + name.encode())
    before = listing(out)
    args = [ir, "-o", os.path.join(out, "model.onnx"), "-q"] + extra
    seen = kill_mid_write(d, args, out, rows * COLS * 4)
    assert listing(out) == before, "after SIGKILL at %r: %s, was %s" % (seen, listing(out), before)
    for name in outputs:
        assert read(os.path.join(out, name)) == b"previous " + name.encode(), name
    # The same export, not killed, replaces them: the test's model is sound.
    run(args, cwd=d, expect=0)
    assert sorted(listing(out)) == sorted(outputs), listing(out)
    assert os.path.getsize(os.path.join(out, outputs[-1])) >= rows * COLS * 4


@test
def sigkill_while_writing_model(d):
    check_kill(d, [], ["model.onnx"], 32768)


@test
def sigkill_while_writing_external_data(d):
    check_kill(d, ["--external-data"], ["model.onnx", "model.onnx.data"], 32768)


def limited(nbytes):
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, nbytes))


def check_fsize(d, extra, outputs):
    ir = big_model(d, 1024)  # 4 MiB of weights
    out = os.path.join(d, "out")
    os.makedirs(out)
    for name in outputs:
        write(os.path.join(out, name), b"previous")
    before = listing(out)
    args = [clilib.ONNXEXP, ir, "-o", os.path.join(out, "model.onnx")] + extra
    p = subprocess.run(args, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       preexec_fn=limited(1 << 20), timeout=60)
    r = clilib.Result(args[1:], p.returncode, p.stdout, p.stderr.decode("utf-8", "replace"))
    assert r.rc == 2, "expected a clean exit 2, not a signal: %r" % r
    assert_in("File too large", r)
    assert error_line(r).startswith("cannot write " + out + "/model.onnx"), r
    assert listing(out) == before, listing(out)
    for name in outputs:
        assert read(os.path.join(out, name)) == b"previous", name


@test
def file_size_limit_model(d):
    check_fsize(d, [], ["model.onnx"])


@test
def file_size_limit_external_data(d):
    check_fsize(d, ["--external-data"], ["model.onnx", "model.onnx.data"])


if __name__ == "__main__":
    sys.exit(main(__doc__))
