"""Exports a program in each form with onnxexp and with torch.onnx.export,
runs both in onnxruntime, compares with torch eager, classifies.

Forms:
  trace    torch.onnx.utils._create_jit_graph(module, args), as the fixtures
  script   the same on torch.jit.script(module) (n/a if script refuses it)
  dynamic  --dynamic-axes on every input axis of one size N, run at the
           traced size and at a second, larger one (n/a if torch itself
           rejects the second size, or the traced graph baked N in and no
           scripted graph is there to use instead)

Outcomes (per program, form and exporter):
  match     every output: same dtype, same shape, values within tolerance
            (README.md, "Tolerances"), NaN in the same places
  error     a named export error: onnxexp exited 1 with "onnxexp: error:";
            torch.onnx.export raised. Counted per construct (`key`).
  mismatch  the export ran but its model is wrong: values, dtypes, shapes,
            output count (sub-kinds: invalid = onnx.checker rejects it,
            ort-error = onnxruntime cannot load or run it)
  crash     onnxexp exited other than 0/1/2, died by a signal, printed a
            sanitizer report, exited 1 without a message, or timed out;
            also onnxruntime dying on the model
  ort-unsupported  onnxruntime has no kernel for a valid node (NOT_IMPLEMENTED):
            neither exporter's fault, counted apart
  n/a       the form does not apply (see above)
Bugs: mismatch (all sub-kinds) and crash.
"""

import io
import json
import math
import os
import queue
import re
import subprocess
import sys
import threading
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TESTS, "tools"))
sys.path.insert(0, os.path.join(TESTS, "fixtures"))
sys.path.insert(0, os.path.join(TESTS, "roundtrip"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import st  # noqa: E402
from gen_fixtures import tensor_constants  # noqa: E402
from program import Interp, flatten  # noqa: E402
from roundtrip import RUN_JS, _quiet_fds  # noqa: E402

BUGS = ("mismatch", "invalid", "ort-error", "crash")
CLI_TIMEOUT = 10  # an export takes milliseconds; ten seconds is a hang
SANITIZER = re.compile(r"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|==\d+==ERROR")

# ----------------------------------------------------------------------
# tolerances (README.md, "Tolerances")

UNIT = {torch.float64: 1e-12, torch.float32: 1e-5, torch.float16: 2e-3}
NP_UNIT = {np.dtype("float64"): 1e-12, np.dtype("float32"): 1e-5, np.dtype("float16"): 2e-3}


def tolerance(dtype, depth, scale, unit=None):
    """(rtol, atol) for a float output: depth = rounding steps on its longest
    chain, scale = the largest finite magnitude on those chains, unit = the
    rounding unit of the least precise float dtype on them (default: the
    output's)."""
    u = max(NP_UNIT.get(np.dtype(dtype), 1e-5), unit or 0.0)
    rtol = u * (1 + depth)
    return rtol, rtol * max(1.0, min(scale, 1e6 if np.dtype(dtype) != np.float16 else 6e4))


def compare(ref, got, rtol, atol):
    """(ok, detail): dtype and shape exact, NaN positions equal, values within
    |got - ref| <= atol + rtol * |ref| (exact for integers and bools)."""
    if got.dtype != ref.dtype:
        return False, "dtype %s, expected %s" % (got.dtype, ref.dtype)
    if tuple(got.shape) != tuple(ref.shape):
        return False, "shape %s, expected %s" % (list(got.shape), list(ref.shape))
    if ref.size == 0:
        return True, ""
    if ref.dtype.kind in "biu":
        if not np.array_equal(got, ref):
            bad = np.argwhere(got != ref)[0]
            return False, "%d of %d elements differ; at %s: got %s, expected %s" % (
                int(np.sum(got != ref)), ref.size, bad.tolist(), got[tuple(bad)], ref[tuple(bad)])
        return True, ""
    g64, r64 = got.astype(np.float64), ref.astype(np.float64)
    gn, rn = np.isnan(g64), np.isnan(r64)
    if (gn != rn).any():
        at = np.argwhere(gn != rn)[0]
        return False, "NaN in different places (%d); at %s: got %r, expected %r" % (
            int((gn != rn).sum()), at.tolist(), float(g64[tuple(at)]), float(r64[tuple(at)]))
    with np.errstate(invalid="ignore", over="ignore"):
        inf = np.isinf(g64) | np.isinf(r64)
        # at the edge of the range one side may overflow where the other
        # does not: inf against a finite value of the same sign within 2^10
        # of the largest finite value counts as equal
        edge = float(np.finfo(ref.dtype).max) / 1024
        near = inf & (np.sign(g64) == np.sign(r64)) & (np.minimum(np.abs(g64), np.abs(r64)) >= edge)
        bad = (inf & (g64 != r64) & ~near) | (~inf & ~rn & (np.abs(g64 - r64) > atol + rtol * np.abs(r64)))
    if bad.any():
        at = np.argwhere(bad)[0]
        return False, "%d of %d elements off (rtol %.1e atol %.1e); at %s: got %r, expected %r" % (
            int(bad.sum()), ref.size, rtol, atol, at.tolist(), float(g64[tuple(at)]), float(r64[tuple(at)]))
    return True, ""


# ----------------------------------------------------------------------
# onnxruntime: one node process serves the whole run (run.js -)


class Runtime:
    """onnxruntime-node behind tests/node/run.js in streaming mode: submit
    jobs, collect answers by id. A node process that dies takes the job it
    was on with it (answered as a crash); the rest go to a new process."""

    def __init__(self, node="node"):
        self.node = node
        self.proc = None
        self.next_id = 0
        self.pending = {}  # id -> job (in submission order)
        self.answers = {}
        self.sent_to = {}  # id -> the node process the job went to
        self.killed = set()  # processes killed for hanging
        self.q = queue.Queue()

    def _start(self):
        self.proc = json_worker([self.node, RUN_JS, "-"], self.q)

    def _send(self, jobs):
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        data = "".join(json.dumps(j) + "\n" for j in jobs).encode()
        proc = self.proc
        for j in jobs:
            self.sent_to[j["id"]] = proc

        def writer():
            try:
                proc.stdin.write(data)
                proc.stdin.flush()
            except (BrokenPipeError, OSError):
                pass

        threading.Thread(target=writer, daemon=True).start()

    def submit(self, model, inputs, outputs):
        jid = self.next_id
        self.next_id += 1
        # disabled: onnxruntime's graph optimizations are not under test, and
        # they have bugs of their own (FINDINGS.md: at "all" a FusedMatMul
        # without a double kernel; at "basic" a crash on an empty initializer)
        job = {"id": jid, "model": model, "inputs": inputs, "outputs": outputs, "optimization": "disabled"}
        self.pending[jid] = job
        self._send([job])
        return jid

    def wait(self, ids=None, timeout=60):
        """Waits until the jobs ids (default: every job submitted) are
        answered; returns {id: answer} for them."""
        want = set(self.pending) | set(self.answers) if ids is None else set(ids)
        t_end = time.time() + timeout
        while any(j in self.pending for j in want):
            try:
                a = self.q.get(timeout=min(5.0, max(0.1, t_end - time.time())))
            except queue.Empty:
                if time.time() < t_end:
                    continue
                # no answer for `timeout` seconds: the oldest job of the
                # current process hangs; kill it, the rest go to a new one
                mine = sorted(j for j in self.pending if self.sent_to.get(j) is self.proc)
                if not mine:
                    for jid in list(self.pending):
                        self.answers[jid] = {"ok": False, "crash": True, "error": "onnxruntime lost the job"}
                    self.pending.clear()
                    break
                self.answers[mine[0]] = {"ok": False, "crash": True, "error": "onnxruntime hung (no answer in %ds)" % timeout}
                del self.pending[mine[0]]
                self.killed.add(self.proc)
                self.close(kill=True)
                t_end = time.time() + timeout
                continue
            if "eof" in a:
                # node died: the oldest job it had not answered killed it;
                # the ones after it go to a new process
                dead = a["eof"]
                mine = sorted(j for j in self.pending if self.sent_to.get(j) is dead)
                if dead in self.killed:
                    mine = [None] + mine  # its hung job is answered already
                elif mine:
                    self.answers[mine[0]] = {"ok": False, "crash": True, "error": "onnxruntime-node died on this model"}
                    del self.pending[mine[0]]
                if dead is self.proc:
                    self.proc = None
                if mine[1:]:
                    self._send([self.pending[j] for j in mine[1:]])
                continue
            jid = a.get("id")
            t_end = time.time() + timeout
            if jid in self.pending:
                del self.pending[jid]
                self.sent_to.pop(jid, None)
                self.answers[jid] = a
        return {j: self.answers.pop(j, None) for j in want}

    def close(self, kill=False):
        if self.proc is not None:
            if kill:
                self.proc.kill()
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None


# ----------------------------------------------------------------------
# forms


def jit_graph(model, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph, params, _, _ = torch.onnx.utils._create_jit_graph(model, args)
    return graph, params


def json_worker(cmd, q):
    """A process that answers one JSON line per job on stdout: started, with a
    thread putting each answer on q and {"eof": proc} when it ends."""
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)

    def reader():
        for line in proc.stdout:
            try:
                q.put(json.loads(line))
            except ValueError:
                pass
        q.put({"eof": proc})

    threading.Thread(target=reader, daemon=True).start()
    return proc


def eager(model, args):
    # a fixed seed: random ops (compared by shape only) give the same values
    # each run, so the traced module can be compared with eager (dynamic form)
    torch.manual_seed(0)
    with torch.no_grad():
        return [o.detach().clone() for o in flatten(model(*[a.clone() for a in args]))]


def same(a, b):
    """Bit-for-bit equal output lists (NaN equal to NaN)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        if x.dtype.is_floating_point:
            if not torch.equal(torch.isnan(x), torch.isnan(y)) or not torch.equal(torch.nan_to_num(x), torch.nan_to_num(y)):
                return False
        elif not torch.equal(x, y):
            return False
    return True


def second_inputs(prog, n, n2):
    """The user inputs with every axis of size n grown to n2, values cycled
    (index inputs stay in range)."""
    out = []
    for name, t in prog.inputs:
        a = t
        for ax, d in enumerate(t.shape):
            if d == n:
                idx = torch.arange(n2) % n
                a = a.index_select(ax, idx)
        out.append(a.clone())
    return out


class Form:
    """One exportable form of a program: IR text, sidecar, inputs, torch's outputs."""

    def __init__(self, name, base):
        self.name, self.base = name, base  # base: "trace" / "script"
        self.ir = None
        self.weights = {}
        self.user_names = []
        self.input_sets = []  # [[tensor]], the first is the traced one
        self.refs = []  # per input set: [tensor]
        self.tols = []  # per input set: [(depth, scale)]
        self.dyn = []  # [(input name, axis)]
        self.peer_model = None
        self.na = None  # why the form does not apply
        self.choice = None  # dynamic: (n, n2, base)


def tol_info(prog, args):
    """(depth, scale) per output of prog run on args."""
    p = prog.copy()
    p.inputs = [(n, a.clone()) for (n, _), a in zip(prog.inputs, args)]
    it = Interp(p).run(snap=False)
    # an unspecified value (a random op's, README "Random ops"): depth inf,
    # compared by dtype and shape only
    return [(math.inf if n in it.rand else it.depth.get(n, 0), it.scale(n), it.unit_of(n)) for n in prog.outputs]


def make_forms(prog, r, tag, want=("trace", "script", "dynamic"), fixed=None):
    """The forms of prog: [Form] (with .na set for those that do not apply).
    fixed: (n, n2, base) for the dynamic form, as a reduction keeps it."""
    model = prog.module(tag)
    args = prog.args()
    ref = eager(model, args)
    tols = tol_info(prog, args)
    forms = []
    graphs = {}
    for base in ("trace", "script"):
        if base in want and base in prog.excluded:
            f = Form(base, base)
            f.na = "known: " + prog.excluded[base]
            forms.append(f)
            continue
        if base not in want and not ("dynamic" in want):
            continue
        f = Form(base, base)
        try:
            if base == "trace":
                mod = model
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    mod = torch.jit.script(model)
            g, params = jit_graph(mod, tuple(a.clone() for a in args))
        except Exception as e:  # noqa: BLE001  (torch.jit.script's many error types)
            f.na = "%s: %s" % (base, first_line(e))
            if base in want:
                forms.append(f)
            continue
        # A scripted module is compared with itself: TorchScript is not
        # always eager (it makes tensor(0.001, dtype=float64) through
        # float32), and the export must be faithful to the model it reads.
        sref = ref
        if base == "script":
            try:
                sref = eager(mod, args)
            except Exception as e:  # noqa: BLE001
                f.na = "script: the scripted module does not run: %s" % first_line(e)
                if base in want:
                    forms.append(f)
                continue
        try:
            fill_form(f, prog, g, params, mod, [list(args)], [sref], [tols])
        except TypeError as e:  # a tensor constant the sidecar cannot hold (a quantized one, folded by the trace)
            f.na = "%s: a tensor constant of a dtype the sidecar cannot hold (%s)" % (base, first_line(e))
            if base in want:
                forms.append(f)
            continue
        graphs[base] = (g, params, mod)  # only a graph that runs serves the dynamic form
        if base in want:
            forms.append(f)
    if "dynamic" in want and "dynamic" in prog.excluded:
        f = Form("dynamic", None)
        f.na = "known: " + prog.excluded["dynamic"]
        forms.append(f)
    elif "dynamic" in want:
        forms.append(dynamic_form(prog, r, model, args, ref, tols, graphs, fixed))
    return forms


def fill_form(f, prog, g, params, mod, input_sets, refs, tols):
    inputs = [v.debugName() for v in g.inputs()]
    n_user = len(inputs) - len(params)
    f.user_names = inputs[:n_user]
    f.weights = {nm: st.from_torch(p) for nm, p in zip(inputs[n_user:], params)}
    for k, t in tensor_constants(g).items():
        f.weights[k] = st.from_torch(t)
    f.ir = str(g)
    f.input_sets, f.refs, f.tols = input_sets, refs, tols
    f.peer_model = mod


def dynamic_form(prog, r, model, args, ref, tols, graphs, fixed=None):
    f = Form("dynamic", None)
    sizes = sorted({d for _, t in prog.inputs for d in t.shape if d > 1})
    if fixed:
        n, n2 = fixed[0], fixed[1]
        if n not in sizes:
            f.na = "dynamic: no input axis of size %d" % n
            return f
    elif not sizes:
        f.na = "dynamic: no input axis larger than 1"
        return f
    else:
        n = int(r.choice(sizes))
        n2 = n + int(r.choice([1, 2, 3]))
    args2 = second_inputs(prog, n, n2)
    try:
        p2 = prog.copy()
        p2.inputs = [(nm, a) for (nm, _), a in zip(prog.inputs, args2)]
        it2 = Interp(p2)  # torch, the guards and the known-bug list accept the second size
        it2.on_step = _known_at_second_size
        it2.run(snap=False)
        ref2 = eager(model, args2)
        tols2 = tol_info(prog, args2)
    except Exception as e:  # noqa: BLE001
        f.na = "dynamic: torch rejects size %d -> %d (%s)" % (n, n2, first_line(e))
        return f
    bases = [b for b in ("script", "trace") if b in graphs]
    if fixed:
        bases = [b for b in bases if b == fixed[2]]
    elif r.random() < 0.5:
        bases.reverse()
    for base in bases:
        g, params, mod = graphs[base]
        if base == "trace":
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tm = torch.jit.trace(model, tuple(a.clone() for a in args), check_trace=False)
                    if not same(eager(tm, args2), ref2):
                        continue  # the trace baked the size in
            except Exception:  # noqa: BLE001
                continue
        refs = [ref, ref2]
        if base == "script":
            # compared with the scripted module itself, as the script form
            # is: TorchScript may differ from eager (`v |= x` on a view
            # rebinds v and writes nothing)
            try:
                refs = [eager(mod, args), eager(mod, args2)]
            except Exception:  # noqa: BLE001
                continue
        f.base = base
        f.choice = (n, n2, base)
        fill_form(f, prog, g, params, mod, [list(args), args2], refs, [tols, tols2])
        f.dyn = [(nm, ax) for nm, (_, t) in zip(f.user_names, prog.inputs) for ax, d in enumerate(t.shape) if d == n]
        return f
    f.na = "dynamic: the trace bakes size %d in and there is no scripted graph" % n
    return f


def _known_at_second_size(it, s):
    import known

    k = known.check(it.prog, s, [it.env.get(n) for n in s.ins], [it.env[n] for n in s.outs], it.env)
    if k is not None:
        raise ValueError("known bug " + k.id)


def first_line(e):
    s = str(e).strip()
    return (s.splitlines()[0] if s else type(e).__name__)[:200]


# ----------------------------------------------------------------------
# exporting


class Result:
    __slots__ = ("form", "exporter", "outcome", "detail", "key", "onnx", "jobs", "stderr", "export_s")

    def __init__(self, form, exporter):
        self.form, self.exporter = form, exporter
        self.outcome, self.detail, self.key = None, "", None
        self.onnx, self.jobs, self.stderr, self.export_s = None, [], "", 0.0

    def set(self, outcome, detail="", key=None):
        self.outcome, self.detail, self.key = outcome, detail, key
        return self


def error_key(msg):
    """The construct a named error is about: its op and its message with the
    numbers, names and shapes taken out."""
    m = re.sub(r"^onnxexp: error: ", "", msg.strip())
    m = re.sub(r"^\S+:\d+:\d+: ", "", m)
    op = re.search(r"\b((?:aten|prim|onnx)::[A-Za-z_0-9]+)", m)
    t = re.sub(r"%[\w.]+", "%v", m)
    t = re.sub(r"'[^']*'|\"[^\"]*\"", "'_'", t)
    t = re.sub(r"\[[^\]]*\]", "[_]", t)
    t = re.sub(r"\b\d+\b", "N", t)
    t = re.sub(r"\((?:aten|prim|onnx)::\w+\)", "", t)
    t = t.split(";")[0][:90].rstrip()
    return (op.group(1) + ": " if op and not t.startswith(op.group(1)) else "") + t


def write_form(f, d):
    """Writes model.ir, model.safetensors and the input sets into d."""
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "model.ir"), "w") as fh:
        fh.write(f.ir)
    st.save(f.weights, os.path.join(d, "model.safetensors"))
    paths = []
    for k, args in enumerate(f.input_sets):
        p = os.path.join(d, "inputs.%d.safetensors" % k)
        st.save({n: st.from_torch(a) for n, a in zip(f.user_names, args)}, p)
        paths.append(p)
    return paths


def run_onnxexp(cli, f, d, opset, wrapper=()):
    res = Result(f.name, "onnxexp")
    ins = write_form(f, d)
    out = os.path.join(d, "onnxexp.onnx")
    if os.path.exists(out):
        os.remove(out)
    cmd = list(wrapper) + [cli, os.path.join(d, "model.ir"), "-o", out, "--opset", str(opset), "-q"]
    if f.dyn:
        cmd += ["--dynamic-axes", ",".join("%s:%d=N" % (n, ax) for n, ax in f.dyn)]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=CLI_TIMEOUT)
    except subprocess.TimeoutExpired:
        return res.set("crash", "timed out after %ds" % CLI_TIMEOUT, "timeout")
    res.export_s = time.time() - t0
    err = p.stderr.decode("utf-8", "replace")
    res.stderr = err
    if SANITIZER.search(err):
        return res.set("crash", "sanitizer: " + first_line(SANITIZER.search(err).group(0) + " " + err[-300:]), "sanitizer")
    if p.returncode < 0:
        return res.set("crash", "killed by signal %d" % -p.returncode, "signal %d" % -p.returncode)
    if p.returncode == 1:
        lines = [ln for ln in err.splitlines() if ln.startswith("onnxexp: error:")]
        if not lines:
            return res.set("crash", "exit 1 without an error message: " + err[-300:], "exit 1, no message")
        return res.set("error", lines[0], error_key(lines[0]))
    if p.returncode == 2:
        return res.set("crash", "exit 2 (bad usage or unreadable input) on generated input: " + first_line(err), "exit 2")
    if p.returncode != 0:
        return res.set("crash", "exit %d: %s" % (p.returncode, err[-300:]), "exit %d" % p.returncode)
    if not os.path.isfile(out):
        return res.set("crash", "exit 0 but no output file", "no file")
    res.onnx = out
    res.jobs = [(p_in, os.path.join(d, "onnxexp.out.%d.safetensors" % k)) for k, p_in in enumerate(ins)]
    return res


def run_peer(f, d, opset):
    """torch.onnx.export of the same module (traced or scripted) at the same opset."""
    res = Result(f.name, "peer")
    os.makedirs(d, exist_ok=True)
    out = os.path.join(d, "peer.onnx")
    names = ["in%d" % i for i in range(len(f.user_names))]
    dyn = {}
    for n, ax in f.dyn:
        dyn.setdefault(names[f.user_names.index(n)], {})[ax] = "N"
    buf = io.BytesIO()
    t0 = time.time()
    try:
        with warnings.catch_warnings(), _quiet_fds(True):
            warnings.simplefilter("ignore")
            torch.onnx.export(f.peer_model, tuple(a.clone() for a in f.input_sets[0]), buf, opset_version=opset,
                              input_names=names, dynamic_axes=dyn or None)
    except Exception as e:  # noqa: BLE001  (whatever the exporter raises is its named error)
        return res.set("error", "%s: %s" % (type(e).__name__, first_line(e)), peer_key(e))
    res.export_s = time.time() - t0
    with open(out, "wb") as fh:
        fh.write(buf.getvalue())
    res.onnx = out
    for k, args in enumerate(f.input_sets):
        p = os.path.join(d, "peer.in.%d.safetensors" % k)
        st.save({n: st.from_torch(a) for n, a in zip(names, args)}, p)
        res.jobs.append((p, os.path.join(d, "peer.out.%d.safetensors" % k)))
    return res


def peer_key(e):
    m = first_line(e)
    op = re.search(r"(aten::\w+|prim::\w+)", m)
    t = re.sub(r"'[^']*'", "'_'", m)
    t = re.sub(r"\b\d+\b", "N", t)[:80]
    return "%s: %s%s" % (type(e).__name__, (op.group(1) + " ") if op else "", t)


def check_model(res, opset):
    """onnx.checker (full) on an exported model; sets res to invalid on failure."""
    import onnx

    try:
        m = onnx.load(res.onnx)
        with _quiet_fds(True):
            onnx.checker.check_model(m, full_check=opset <= 17)
    except Exception as e:  # noqa: BLE001
        res.set("invalid", "onnx.checker: " + first_line(e), "checker")
        return None
    return m


def judge(res, f, answers):
    """Compares onnxruntime's answers for res's jobs with torch's outputs."""
    for k, ((_, outp), a) in enumerate(zip(res.jobs, answers)):
        label = "" if k == 0 else "at the second size: "
        if a is None:
            return res.set("ort-error", label + "no answer from onnxruntime", "ort")
        if a.get("crash"):
            return res.set("crash", label + a.get("error", ""), "onnxruntime died")
        if not a.get("ok"):
            err = a.get("error", "?")
            if ("NOT_IMPLEMENTED" in err or "Could not find an implementation" in err or
                    re.search(r"data type is not supported|is not supported with \w+", err)):
                op = re.search(r"for (\w+)\(\d+\)", err)
                return res.set("ort-unsupported", label + err[:300], "no kernel: " + (op.group(1) if op else "?"))
            msg = re.sub(r"\S*/onnxruntime_src/\S*|\S+\.(cc|h):\d+", "", err)
            msg = re.sub(r"\b\d+\b", "N", re.sub(r"'[^']*'|\[[^\]]*\]|\([^)]*\)", "_", msg))
            return res.set("ort-error", label + err[:400], "ort: " + " ".join(msg.split())[:70])
        try:
            got = st.load(outp)
        except Exception as e:  # noqa: BLE001
            return res.set("ort-error", label + "cannot read outputs: %s" % e, "ort")
        refs = f.refs[k]
        if len(got) != len(refs):
            return res.set("mismatch", label + "%d outputs, expected %d" % (len(got), len(refs)), "output count")
        for i, (ref, (depth, scale, unit)) in enumerate(zip(refs, f.tols[k])):
            r = st.from_torch(ref)
            gv = got.get("out%d" % i)
            if math.isinf(depth) and gv is not None:  # unspecified values: dtype and shape only
                ok, detail = compare(r.reshape(-1)[:0], gv.reshape(-1)[:0], 0, 0) if (
                    gv.dtype == r.dtype and tuple(gv.shape) == tuple(r.shape)) else compare(r, gv, 0, 0)
            else:
                rtol, atol = tolerance(r.dtype, depth, scale, unit) if r.dtype.kind == "f" else (0, 0)
                ok, detail = compare(r, gv, rtol, atol)
            if not ok:
                kind = "dtype" if detail.startswith("dtype") else "shape" if detail.startswith("shape") else \
                    "nan" if detail.startswith("NaN") else "value"
                return res.set("mismatch", label + "out%d: %s" % (i, detail), kind)
    return res.set("match")


# ----------------------------------------------------------------------
# one program, every form, both exporters


class Session:
    """Exports programs, queues their onnxruntime jobs, judges the answers.
    start() does the exporting (this process and the CLI); the node process
    runs the models meanwhile; finish() waits and compares."""

    def __init__(self, cli, work, opset=17, node="node", peer=True, wrapper=()):
        self.cli, self.work, self.opset, self.peer, self.wrapper = cli, work, opset, peer, list(wrapper)
        self.rt = Runtime(node)
        self.worker = PeerWorker()
        self.peer_ids = {}  # id(items) -> peer worker job
        self.ids = {}  # Result -> [job id]

    def start(self, prog, r, tag, want=("trace", "script", "dynamic"), fixed=None, peer=None):
        """[(Form, {exporter: Result})]; results with jobs wait for finish()."""
        peer = self.peer if peer is None else peer
        d0 = os.path.join(self.work, tag)
        forms = make_forms(prog, r, tag, want, fixed)
        items = []
        for f in forms:
            if f.na:
                res = Result(f.name, "onnxexp").set("n/a", f.na, f.na.split(" (")[0])
            else:
                res = run_onnxexp(self.cli, f, os.path.join(d0, f.name), self.opset, self.wrapper)
                if res.outcome is None:
                    check_model(res, self.opset)
            items.append((f, {"onnxexp": res}))
        if peer:
            self.peer_ids[id(items)] = self.worker.submit(prog, forms, os.path.join(d0, "peer"), self.opset)
        for f, rs in items:
            for res in rs.values():
                if res.outcome is None:
                    self.ids[res] = [self.rt.submit(res.onnx, i, o) for i, o in res.jobs]
        return items

    def finish(self, batch):
        """Judges every queued result of batch ([items from start()])."""
        for items in batch:
            jid = self.peer_ids.pop(id(items), None)
            if jid is None:
                continue
            got = self.worker.collect(jid)
            for f, rs in items:
                res = got.get(f.name) or Result(f.name, "peer").set("crash", "no answer from the peer worker", "peer lost")
                rs["peer"] = res
                if res.outcome is None:
                    self.ids[res] = [self.rt.submit(res.onnx, i, o) for i, o in res.jobs]
        ids = [j for items in batch for _, rs in items for res in rs.values() for j in self.ids.get(res, [])]
        answers = self.rt.wait(ids)
        for items in batch:
            for f, rs in items:
                for res in rs.values():
                    if res in self.ids:
                        judge(res, f, [answers.get(j) for j in self.ids.pop(res)])

    def close(self):
        self.rt.close()
        self.worker.close()


class PeerWorker:
    """peer.py in a process of its own (see there). submit() sends a
    program; collect() returns its per-form Results, restarting the worker
    when it dies (the form it died on is the peer's crash)."""

    def __init__(self):
        self.proc = None
        self.next_id = 0
        self.jobs = {}  # id -> (job, forms)
        self.got = {}  # id -> {form: Result}
        self.started = {}  # id -> the form the worker said it started last
        self.q = queue.Queue()

    def _start(self):
        self.proc = json_worker([sys.executable, os.path.join(HERE, "peer.py")], self.q)

    def _send(self, job):
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        job["proc"] = None
        data = (json.dumps({k: v for k, v in job.items() if k != "proc"}) + "\n").encode()
        job["proc"] = self.proc
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def submit(self, prog, forms, d0, opset):
        from program import save_program

        os.makedirs(d0, exist_ok=True)
        pdir = os.path.join(d0, "program")
        os.makedirs(pdir, exist_ok=True)
        save_program(prog, pdir)
        fixed = next((f.choice for f in forms if f.name == "dynamic" and f.choice), None)
        jid = self.next_id
        self.next_id += 1
        job = {"id": jid, "dir": d0, "program": pdir, "forms": [f.name for f in forms if not f.na],
               "fixed": list(fixed) if fixed else None, "opset": opset}
        self.jobs[jid] = (job, forms)
        self.got[jid] = {}
        for f in forms:
            if f.na:
                self.got[jid][f.name] = Result(f.name, "peer").set("n/a", f.na, f.na.split(" (")[0])
        if job["forms"]:
            self._send(job)
        else:
            self.jobs[jid] = (job, forms, True)
        return jid

    def collect(self, jid, timeout=300):
        """{form: Result} of job jid."""
        started = self.started
        while len(self.jobs[jid]) == 2:
            try:
                m = self.q.get(timeout=timeout)
            except queue.Empty:
                if self.proc is None:
                    self._send(self.jobs[jid][0])  # nothing was running it
                    continue
                m = {"eof": self.proc, "hung": True}
                self.proc.kill()
            if "eof" in m:
                dead = m["eof"]
                # the oldest unfinished job sent to the dead worker was running:
                # the form it had started is the crash (none started: its
                # setup was, and a retry would die again); its other forms and
                # the later jobs go to a new worker
                mine = [k for k in sorted(self.jobs) if len(self.jobs[k]) == 2 and self.jobs[k][0].get("proc") is dead]
                why = "hung" if m.get("hung") else "died (%s)" % _exit_text(dead)
                for i, k in enumerate(mine):
                    job, forms = self.jobs[k]
                    f = started.get(k)
                    if i == 0 and f is not None and f not in self.got[k]:
                        self.got[k][f] = Result(f, "peer").set("crash", "torch.onnx.export " + why, "peer " + why.split(" (")[0])
                    elif i == 0 and f is None:
                        for name in job["forms"]:
                            self.got[k].setdefault(name, Result(name, "peer").set(
                                "crash", "the peer worker " + why + " before exporting", "peer worker " + why.split(" (")[0]))
                    job["forms"] = [x for x in job["forms"] if x not in self.got[k]]
                    if job["forms"]:
                        self._send(job)
                    else:
                        self.jobs[k] = (job, forms, True)
                if dead is self.proc:
                    self.proc = None
                continue
            k = m["id"]
            if "start" in m:
                started[k] = m["start"]
            elif "done" in m:
                res = Result(m["done"], "peer")
                res.outcome, res.detail, res.key = m["outcome"], m["detail"], m["key"]
                res.onnx, res.jobs = m["onnx"], [tuple(x) for x in m["jobs"]]
                self.got[k][m["done"]] = res
            elif "end" in m:
                self.jobs[k] = self.jobs[k][:2] + (True,)
        del self.jobs[jid]
        self.started.pop(jid, None)
        return self.got.pop(jid)

    def close(self):
        if self.proc is not None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
            self.proc = None


def _exit_text(proc):
    try:
        rc = proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        return "?"
    return "signal %d" % -rc if rc < 0 else "exit %d" % rc


def signature(res):
    """What 'fails the same way' means to the reducer."""
    return (res.outcome, res.form, res.key if res.outcome in ("crash", "invalid", "mismatch", "ort-error") else None)
