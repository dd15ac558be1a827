#!/usr/bin/python3
"""Round-trip test: export each fixture with the CLI, check it, run it in
onnxruntime (one node process for all models), compare with torch.

    /usr/bin/python3 tests/roundtrip/roundtrip.py --onnxexp PATH_TO_CLI \\
        --fixtures DIR --work DIR [--only NAME...] [--max-opset N]

Per fixture (made by tests/fixtures/gen_fixtures.py) and per opset in its
meta.json:
  positive: `CLI model.ir -o WORK/name.opsetN.onnx --opset N` exits 0; the
            file passes onnx.checker.check_model(full_check=True) (opsets
            onnx 1.12 does not know: plain check if it can, else a note); its
            default-domain opset is N, producer_name is --producer, its
            graph inputs are the fixture's user inputs in order and it has
            the fixture's output count; onnxruntime's outputs equal torch's
            (same dtype and shape; allclose at the fixture's rtol/atol,
            exact for integers and bools).
  Extra CLI flags come from meta "cli_args" (a list), if present.
  negative: the CLI exits with meta expect_exit (1), stderr contains
            expect_error, and no output file (nor a temporary) is left.
Prints a table; exits 1 if anything failed, 2 on bad usage.
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))

import numpy as np  # noqa: E402

import st  # noqa: E402

RUN_JS = os.path.normpath(os.path.join(HERE, "..", "node", "run.js"))
ONNX_MAX_KNOWN_OPSET = 17  # onnx 1.12
CLI_TIMEOUT = 120
# Ops whose values are unspecified (random draws, uninitialized memory): a
# fixture using one is compared for output shape and dtype only, also when
# its meta.json says "compare": "shape_dtype".
NONDETERMINISTIC_OPS = {
    "aten::rand", "aten::randn", "aten::rand_like", "aten::randn_like", "aten::randint",
    "aten::randint_like", "aten::normal", "aten::normal_", "aten::uniform_", "aten::bernoulli",
    "aten::bernoulli_", "aten::multinomial", "aten::empty", "aten::empty_like", "aten::new_empty",
}


def shape_dtype_only(meta):
    return meta.get("compare") == "shape_dtype" or bool(NONDETERMINISTIC_OPS & set(meta.get("ops", [])))


class Case:
    def __init__(self, name, fdir, meta, opset, work):
        self.name, self.fdir, self.meta, self.opset = name, fdir, meta, opset
        self.onnx = os.path.join(work, "%s.opset%d.onnx" % (name, opset))
        self.got = os.path.join(work, "%s.opset%d.out.safetensors" % (name, opset))
        self.status = None  # None while still going; "PASS" / "FAIL" / "SKIP"
        self.stage = ""
        self.detail = ""
        self.notes = []
        self.maxerr = None
        self.export_s = 0.0

    @property
    def negative(self):
        return "expect_error" in self.meta

    def fail(self, stage, detail):
        self.status, self.stage, self.detail = "FAIL", stage, detail


def load_fixtures(fdir, only):
    names = sorted(d for d in os.listdir(fdir) if os.path.isfile(os.path.join(fdir, d, "meta.json")))
    if only:
        unknown = [n for n in only if n not in names]
        if unknown:
            raise SystemExit("roundtrip: no such fixture in %s: %s" % (fdir, ", ".join(unknown)))
        names = [n for n in names if n in only]
    out = []
    for n in names:
        with open(os.path.join(fdir, n, "meta.json")) as f:
            out.append((n, os.path.join(fdir, n), json.load(f)))
    return out


def _short(text, n=300):
    text = " ".join(text.strip().split())
    return text if len(text) <= n else text[: n - 3] + "..."


def export(cli, case):
    """Run the CLI for one case; fills case.status on failure."""
    work = os.path.dirname(case.onnx)
    base = os.path.basename(case.onnx)
    for p in (case.onnx, case.got):
        if os.path.exists(p):
            os.remove(p)
    cmd = [cli, os.path.join(case.fdir, "model.ir"), "-o", case.onnx, "--opset", str(case.opset)]
    # meta "cli_args": extra CLI flags for this fixture, e.g. ["--training", "train"]
    cmd += [str(a) for a in case.meta.get("cli_args", [])]
    t0 = time.time()
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=CLI_TIMEOUT)
    except subprocess.TimeoutExpired:
        case.fail("export", "timed out after %ds" % CLI_TIMEOUT)
        return
    except OSError as e:
        case.fail("export", "cannot run %s: %s" % (cli, e))
        return
    case.export_s = time.time() - t0
    err = r.stderr.decode("utf-8", "replace")
    if case.negative:
        want_rc = case.meta.get("expect_exit", 1)
        left = sorted(f for f in os.listdir(work) if f.startswith(base))
        if r.returncode != want_rc:
            case.fail("export", "exit %d, expected %d; stderr: %s" % (r.returncode, want_rc, _short(err)))
        elif case.meta["expect_error"] not in err:
            case.fail("export", "stderr lacks %r: %s" % (case.meta["expect_error"], _short(err)))
        elif left:
            case.fail("export", "failed export left file(s): " + ", ".join(left))
        elif r.returncode < 0:
            case.fail("export", "killed by signal %d" % -r.returncode)
        else:
            case.status = "PASS"
            case.detail = _short(err.strip().splitlines()[0] if err.strip() else "", 120)
        return
    if r.returncode != 0:
        case.fail("export", "exit %d: %s" % (r.returncode, _short(err)))
    elif not os.path.isfile(case.onnx):
        case.fail("export", "exit 0 but no output file")


def check(case, producer):
    import onnx

    try:
        model = onnx.load(case.onnx)
    except Exception as e:  # noqa: BLE001
        case.fail("load", _short(str(e)))
        return
    try:
        if case.opset <= ONNX_MAX_KNOWN_OPSET:
            onnx.checker.check_model(model, full_check=True)
        else:
            try:
                onnx.checker.check_model(model)
                case.notes.append("opset %d: plain check_model only (onnx %s)" % (case.opset, onnx.__version__))
            except Exception as e:  # noqa: BLE001
                case.notes.append("opset %d: checker skipped, onnx %s does not know it (%s)"
                                  % (case.opset, onnx.__version__, _short(str(e), 80)))
    except Exception as e:  # noqa: BLE001
        case.fail("checker", _short(str(e)))
        return
    problems = []
    default = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
    if default != [case.opset]:
        problems.append("default-domain opset_import %s, expected [%d]" % (default, case.opset))
    if producer and model.producer_name != producer:
        problems.append("producer_name %r, expected %r" % (model.producer_name, producer))
    inits = {i.name for i in model.graph.initializer}
    ins = [i.name for i in model.graph.input if i.name not in inits]
    if ins != list(case.meta["inputs"]):
        problems.append("graph inputs %s, expected %s" % (ins, case.meta["inputs"]))
    if len(model.graph.output) != case.meta["num_outputs"]:
        problems.append("%d graph outputs, expected %d" % (len(model.graph.output), case.meta["num_outputs"]))
    if problems:
        case.fail("contract", "; ".join(problems))


def run_node(cases, work, node):
    jobs = [{"model": c.onnx, "inputs": os.path.join(c.fdir, "inputs.safetensors"), "outputs": c.got} for c in cases]
    if not jobs:
        return 0.0
    jpath = os.path.join(work, "jobs.json")
    with open(jpath, "w") as f:
        json.dump(jobs, f, indent=1)
    t0 = time.time()
    r = subprocess.run([node, RUN_JS, jpath], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    dt = time.time() - t0
    results = {}
    for line in r.stdout.decode("utf-8", "replace").splitlines():
        try:
            j = json.loads(line)
        except ValueError:
            continue
        results[j.get("model")] = j
    for c in cases:
        j = results.get(c.onnx)
        if j is None:
            c.fail("ort", "no result from run.js (exit %d): %s" % (r.returncode, _short(r.stderr.decode("utf-8", "replace"))))
        elif not j.get("ok"):
            c.fail("ort", _short(j.get("error", "?")))
        elif j.get("unused_inputs"):
            c.notes.append("inputs the model does not take: " + ", ".join(j["unused_inputs"]))
    return dt


def _as_float(a):
    return a.to_float32() if isinstance(a, st.BF16) else a


def compare_arrays(ref, got, rtol, atol, values=True):
    """(ok, max_abs_err, detail) for one output; values=False checks only
    dtype and shape."""
    if isinstance(ref, st.BF16) or isinstance(got, st.BF16):
        if not (isinstance(ref, st.BF16) and isinstance(got, st.BF16)):
            return False, None, "dtype %s, expected %s" % (st.st_dtype(got), st.st_dtype(ref))
    elif got.dtype != ref.dtype:
        return False, None, "dtype %s, expected %s" % (got.dtype, ref.dtype)
    if tuple(got.shape) != tuple(ref.shape):
        return False, None, "shape %s, expected %s" % (list(got.shape), list(ref.shape))
    if not values:
        return True, None, ""
    ref, got = _as_float(ref), _as_float(got)
    if ref.size == 0:
        return True, 0.0, ""
    if ref.dtype.kind in "biu":
        err = float(np.max(np.abs(got.astype(np.float64) - ref.astype(np.float64))))
        if not np.array_equal(got, ref):
            n = int(np.sum(got != ref))
            return False, err, "%d of %d elements differ (exact match required)" % (n, ref.size)
        return True, 0.0, ""
    g64, r64 = got.astype(np.float64), ref.astype(np.float64)
    nan_mismatch = np.isnan(g64) != np.isnan(r64)
    finite = ~(np.isnan(g64) | np.isnan(r64))
    diff = np.abs(g64 - r64)
    err = float(np.max(diff[finite])) if finite.any() else 0.0
    if nan_mismatch.any():
        return False, err, "NaN in different places"
    if not np.allclose(g64, r64, rtol=rtol, atol=atol, equal_nan=True):
        bad = ~np.isclose(g64, r64, rtol=rtol, atol=atol, equal_nan=True)
        idx = np.unravel_index(int(np.argmax(np.where(bad, diff, -1))), ref.shape)
        return False, err, "%d of %d elements off (rtol %g atol %g); worst at %s: got %r, expected %r" % (
            int(bad.sum()), ref.size, rtol, atol, list(map(int, idx)), float(g64[idx]), float(r64[idx]))
    return True, err, ""


def compare(case):
    meta = case.meta
    rtol = meta.get("rtol", 1e-4)
    atol = meta.get("atol", 1e-5)
    ref = st.load(os.path.join(case.fdir, "outputs.safetensors"))
    try:
        got = st.load(case.got)
    except Exception as e:  # noqa: BLE001
        case.fail("compare", "cannot read onnxruntime outputs: %s" % e)
        return
    values = not shape_dtype_only(meta)
    if not values:
        case.notes.append("nondeterministic ops: shape and dtype only")
    n = meta.get("num_outputs", len(ref))
    if len(got) != n:
        case.fail("compare", "%d outputs, expected %d" % (len(got), n))
        return
    worst = 0.0
    for i in range(n):
        k = "out%d" % i
        if k not in ref:
            case.fail("compare", "reference lacks %s" % k)
            return
        if k not in got:
            case.fail("compare", "onnxruntime output lacks %s" % k)
            return
        ok, err, detail = compare_arrays(ref[k], got[k], rtol, atol, values)
        if err is not None:
            worst = max(worst, err)
        if not ok:
            case.maxerr = worst
            case.fail("compare", "%s: %s" % (k, detail))
            return
    case.maxerr = worst
    case.status = "PASS"


def print_table(cases, out=sys.stdout):
    w = max([len("fixture")] + [len(c.name) for c in cases])
    out.write("%-*s  %5s  %-13s  %-9s  %s\n" % (w, "fixture", "opset", "status", "max_abs", "detail"))
    for c in cases:
        st_ = c.status if c.status != "FAIL" else "FAIL(%s)" % c.stage
        err = "-" if c.maxerr is None else "%.2e" % c.maxerr
        detail = c.detail
        if c.negative and c.status == "PASS":
            detail = "expected error: " + detail
        if c.notes:
            detail = (detail + "  " if detail else "") + "[" + "; ".join(c.notes) + "]"
        out.write("%-*s  %5d  %-13s  %-9s  %s\n" % (w, c.name, c.opset, st_, err, detail))


def run(argv=None, out=sys.stdout):
    """Returns (exit_code, cases)."""
    ap = argparse.ArgumentParser(description="onnxexp round-trip test")
    ap.add_argument("--onnxexp", required=True, help="the CLI to test")
    ap.add_argument("--fixtures", required=True, help="directory made by gen_fixtures.py")
    ap.add_argument("--work", required=True, help="scratch directory for .onnx and outputs")
    ap.add_argument("--only", nargs="+", metavar="NAME")
    ap.add_argument("--max-opset", type=int, help="skip opsets above this")
    ap.add_argument("--opset", type=int, action="append", help="test only these opsets (repeatable)")
    ap.add_argument("--producer", default="onnxexp", help="expected producer_name ('' to skip)")
    ap.add_argument("--node", default=shutil.which("node") or "node")
    ap.add_argument("-j", "--jobs", type=int, default=min(8, os.cpu_count() or 1))
    ap.add_argument("-q", "--quiet", action="store_true", help="print only failures and the summary")
    ap.add_argument("--results", help="write every case's outcome here as JSON (for tests/tools/coverage.py)")
    a = ap.parse_args(argv)

    t0 = time.time()
    cli = os.path.abspath(a.onnxexp) if os.path.exists(a.onnxexp) else a.onnxexp
    os.makedirs(a.work, exist_ok=True)
    work = os.path.abspath(a.work)
    cases = []
    for name, fdir, meta in load_fixtures(a.fixtures, a.only):
        for opset in meta["opsets"]:
            c = Case(name, os.path.abspath(fdir), meta, opset, work)
            if a.max_opset is not None and opset > a.max_opset:
                continue
            if a.opset and opset not in a.opset:
                continue
            cases.append(c)
    if not cases:
        out.write("roundtrip: nothing to test\n")
        return 1, cases

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        list(ex.map(lambda c: export(cli, c), cases))
    t_export = time.time() - t0
    positive = [c for c in cases if c.status is None]
    for c in positive:
        check(c, a.producer)
    t_check = time.time() - t0 - t_export
    runnable = [c for c in positive if c.status is None]
    t_node = run_node(runnable, work, a.node)
    for c in runnable:
        if c.status is None:
            compare(c)

    failed = [c for c in cases if c.status != "PASS"]
    if a.results:
        with open(a.results, "w") as f:
            json.dump([dict(fixture=c.name, opset=c.opset, status=c.status, negative=c.negative,
                            ops=c.meta.get("ops", [])) for c in cases], f, indent=0)
    print_table(failed if a.quiet else cases, out)
    out.write("roundtrip: %d passed, %d failed of %d (%d fixtures); export %.1fs, checker %.1fs, onnxruntime %.1fs, total %.1fs\n"
              % (len(cases) - len(failed), len(failed), len(cases), len({c.name for c in cases}),
                 t_export, t_check, t_node, time.time() - t0))
    return (1 if failed else 0), cases


def main():
    code, _ = run()
    return code


if __name__ == "__main__":
    sys.exit(main())
