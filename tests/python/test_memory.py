#!/usr/bin/python3
"""Weights from memory are not copied: onnxexp.export of a 400 MB model
must not raise the process's peak RSS by more than 10% of the weights.

    /usr/bin/python3 tests/python/test_memory.py --work DIR [--mb 400]

Peak RSS is the kernel's high-water mark (VmHWM), reset just before each
measured call (/proc/self/clear_refs), against the resident size before
it. The same measurement of an export that does copy (the weights joined
into safetensors bytes in memory, handed over as weights_data) must show
the copy, so the check can fail. onnxexp.dump is held to the same limit
(it streams each tensor from its own memory). On a terminal-like stderr a
long export shows the library's progress display. Exit 0 when all hold.
"""

import argparse
import ctypes
import io
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "python"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import onnxexp  # noqa: E402
from onnxexp import _capture, _export, _lib, _safetensors  # noqa: E402

MB = 1 << 20


def status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no %s in /proc/self/status" % field)


def reset_peak():
    """Sets VmHWM to the current RSS (Linux 4.0+); False if not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def measure(fn):
    """(peak RSS over the call minus RSS before it, seconds, result)."""
    if not reset_peak():
        raise SystemExit("test_memory: cannot reset the peak RSS (/proc/self/clear_refs)")
    before = status_kb("VmRSS")
    t0 = time.perf_counter()
    r = fn()
    dt = time.perf_counter() - t0
    return status_kb("VmHWM") - before, dt, r


def model_of(mb):
    """Square Linear layers holding about mb MB of float32 weights, every
    page written (so it is resident before the export)."""
    width = 2048
    layers = max(1, round(mb * MB / (width * width * 4)))
    torch.manual_seed(0)
    m = nn.Sequential(*[nn.Linear(width, width) for _ in range(layers)])
    weights = sum(p.numel() * p.element_size() for p in m.parameters())
    return m, torch.randn(1, width), weights


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def copying_export(model, x, path):
    """The control: an export that copies every weight once (safetensors
    bytes built in memory, weights_data)."""
    opts = _export._Options(opset_version=17)
    cap = _export._capture_with(model, x, opts)
    blob = _safetensors.header(cap.tensors) + b"".join(
        bytes(_safetensors._raw(t)) for _, t in sorted(cap.tensors, key=lambda nt: nt[0]))
    keep = []
    o = opts.c_struct(keep)
    o.weights_data = ctypes.cast(ctypes.c_char_p(blob), ctypes.c_void_p)
    o.weights_size = len(blob)
    text = cap.text.encode()
    with _lib.Diag() as d:
        st = _lib.lib().onnxexp_export_text(text, len(text), b"m.ir", path.encode(), ctypes.byref(o), d.p)
        if st:
            raise d.error(st)
    return len(blob)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--mb", type=int, default=400)
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    torch.set_num_threads(1)
    failures = []

    def check(ok, what):
        print("%s  %s" % ("ok  " if ok else "FAIL", what))
        if not ok:
            failures.append(what)

    # warm up: the library, torch's tracer, the exporter's Python modules
    small = nn.Linear(4, 4)
    onnxexp.export(small, torch.randn(1, 4), io.BytesIO())
    onnxexp.dump(small, torch.randn(1, 4), os.path.join(work, "small.ir"))

    model, x, wbytes = model_of(a.mb)
    limit = wbytes // 10
    print("model: %d Linear layers, %.0f MB of weights; limit %.0f MB" % (len(model), wbytes / MB, limit / MB))

    out = os.path.join(work, "m.onnx")
    term = FakeTerminal()
    saved = sys.stderr, _export._on_terminal
    sys.stderr, _export._on_terminal = term, lambda: True
    try:
        grew, dt, _ = measure(lambda: onnxexp.export(model, x, out, opset_version=17))
    finally:
        sys.stderr, _export._on_terminal = saved
    size = os.path.getsize(out)
    check(size >= wbytes, "onnxexp.export wrote %.0f MB" % (size / MB))
    check(grew <= limit, "onnxexp.export: peak RSS +%.1f MB over the call (%.2f s), limit %.0f MB (10%% of %.0f MB)"
          % (grew / MB, dt, limit / MB, wbytes / MB))
    shown = term.getvalue()
    if dt > 1.5:
        check("onnxexp: " in shown and shown.endswith("\r\033[K"),
              "the progress display ran on a terminal and was cleared (%r...)" % shown[:60])
    else:
        print("note  the export took %.2f s: too quick for the progress display (it waits a second)" % dt)
    os.remove(out)

    grew_d, dt_d, (ir, wpath) = measure(lambda: onnxexp.dump(model, x, os.path.join(work, "m.ir")))
    check(os.path.getsize(wpath) >= wbytes, "onnxexp.dump wrote %.0f MB" % (os.path.getsize(wpath) / MB))
    check(grew_d <= limit, "onnxexp.dump: peak RSS +%.1f MB over the call (%.2f s), limit %.0f MB"
          % (grew_d / MB, dt_d, limit / MB))
    os.remove(wpath)

    grew_c, dt_c, blob = measure(lambda: copying_export(model, x, out))
    check(grew_c > 0.9 * blob, "control: an export that copies the weights shows it: peak RSS +%.1f MB "
          "(%.2f s) for %.0f MB copied" % (grew_c / MB, dt_c, blob / MB))
    shutil.rmtree(work, ignore_errors=True)
    print("test_memory.py: %d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
