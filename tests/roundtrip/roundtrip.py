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
  Extra CLI flags come from meta "cli_args" (a list), if present; the
  harness follows those that change the contract:
    --input-names / --output-names   the expected (and fed) names
    --no-export-params               the weights are graph inputs after the
                                     user inputs: fed from model.safetensors
    --dynamic-axes NAME:AXIS[=DIM]   input/output NAME has dim_param DIM
                                     (default NAME_dim_AXIS) at AXIS
  Further input sets (meta "input_sets" = N: inputs.K.safetensors and
  outputs.K.safetensors, K = 1..N) run in the same onnxruntime batch and are
  compared like the first one.
  meta "plain_check": REASON runs check_model without full_check (onnx 1.12
  shape-inference bugs, e.g. STFT's frame count), with REASON in the notes.
  meta "run": false checks the structure only (models onnxruntime cannot
  run, e.g. ATen nodes); meta "expect" adds structural checks (see
  check_expect); meta "compare": "shape_dtype" compares no values
  ("values" compares them although an op such as aten::empty is used), meta
  "shape_dtype_outputs": [i, ...] none of those outputs' (random ones).
  meta "ties": {"score": i, "tol": T} (detections sorted by the scores in
  output i): rows whose torch scores are within T of their neighbour may
  come out of onnxruntime in another order (a sort or NMS meets tied
  scores in its own order, as torchvision's own tests allow); each such
  block of rows is matched to torch's before the compare (see untie).
  negative: the CLI exits with meta expect_exit (1), stderr contains
            expect_error (a str, or a list of strs all required), and no
            output file (nor a temporary) is left.
  determinism: each positive fixture is exported a second time at one opset
            (its highest selected), into WORK/again/; the two files must be
            byte-identical (--no-determinism skips it). With --api-determinism
            PROG, every positive case is exported again through the library
            by PROG, with 1 and then 4 threads exporting at once, and must
            be byte-identical to the CLI's file.
Prints a table; exits 1 if anything failed, 2 on bad usage.
"""

import argparse
import concurrent.futures
import json
import os
import shlex
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
WRAPPER = []  # --wrapper: a command the CLI runs under (valgrind memcheck)
# Ops whose values are unspecified (random draws, uninitialized memory): a
# fixture using one is compared for output shape and dtype only, also when
# its meta.json says "compare": "shape_dtype".
NONDETERMINISTIC_OPS = {
    "aten::rand", "aten::randn", "aten::rand_like", "aten::randn_like", "aten::randint",
    "aten::randint_like", "aten::normal", "aten::normal_", "aten::uniform_", "aten::bernoulli",
    "aten::bernoulli_", "aten::multinomial", "aten::empty", "aten::empty_like", "aten::new_empty",
}


def shape_dtype_only(meta):
    # "compare": "values" overrides the op list: a graph holding aten::empty
    # only for an empty result (torchvision's batched_nms) is deterministic
    if meta.get("compare") == "values":
        return False
    return meta.get("compare") == "shape_dtype" or bool(NONDETERMINISTIC_OPS & set(meta.get("ops", [])))


def cli_value(meta, flag):
    """The value of the last `flag V` / `flag=V` in meta cli_args, or None."""
    args = [str(a) for a in meta.get("cli_args", [])]
    val = None
    for i, a in enumerate(args):
        if a == flag and i + 1 < len(args):
            val = args[i + 1]
        elif a.startswith(flag + "="):
            val = a[len(flag) + 1:]
    return val


def cli_flag(meta, flag):
    return flag in [str(a) for a in meta.get("cli_args", [])]


def dynamic_axes(meta):
    """[(name, axis, dim_param)] from every --dynamic-axes in cli_args."""
    args = [str(a) for a in meta.get("cli_args", [])]
    specs = []
    for i, a in enumerate(args):
        if a == "--dynamic-axes" and i + 1 < len(args):
            specs.append(args[i + 1])
        elif a.startswith("--dynamic-axes="):
            specs.append(a[len("--dynamic-axes="):])
    out = []
    for spec in specs:
        for item in spec.split(","):
            name, _, rest = item.rpartition(":")
            axis, _, dim = rest.partition("=")
            out.append((name, int(axis), dim or "%s_dim_%s" % (name, axis)))
    return out


def onnx_input_names(meta):
    """The user inputs' names in the exported model (after --input-names)."""
    names = list(meta["inputs"])
    renamed = cli_value(meta, "--input-names")
    if renamed:
        new = renamed.split(",")
        names = new + names[len(new):]
    return names


class Case:
    def __init__(self, name, fdir, meta, opset, work):
        self.name, self.fdir, self.meta, self.opset = name, fdir, meta, opset
        self.work = work
        self.onnx = os.path.join(work, "%s.opset%d.onnx" % (name, opset))
        self.got = os.path.join(work, "%s.opset%d.out.safetensors" % (name, opset))
        self.stderr = ""
        self.fed_weights = []  # --no-export-params: weights that are graph inputs
        self.dim_problems = []  # dim_param checks: reported after running (it shows whether sizes were baked)
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

    def runs(self):
        """[(K, inputs file, reference outputs file, onnxruntime outputs file)]:
        K = 0 is the traced input set, K >= 1 the meta "input_sets"."""
        out = [(0, os.path.join(self.fdir, "inputs.safetensors"), os.path.join(self.fdir, "outputs.safetensors"), self.got)]
        base = self.got[: -len(".out.safetensors")]
        for k in range(1, int(self.meta.get("input_sets", 0)) + 1):
            out.append((k, os.path.join(self.fdir, "inputs.%d.safetensors" % k),
                        os.path.join(self.fdir, "outputs.%d.safetensors" % k), "%s.out.%d.safetensors" % (base, k)))
        return out

    def set_label(self, k):
        if k == 0:
            return ""
        shapes = self.meta.get("input_set_shapes", [])
        sh = " ".join("x".join(map(str, s)) or "scalar" for s in shapes[k - 1]) if k - 1 < len(shapes) else "?"
        return "input set %d (%s): " % (k, sh)


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
    for p in [case.onnx] + [r[3] for r in case.runs()]:
        if os.path.exists(p):
            os.remove(p)
    r = _run_cli(cli, case, case.onnx)
    if r is None:
        return
    err = r.stderr.decode("utf-8", "replace")
    case.stderr = err
    if case.negative:
        want_rc = case.meta.get("expect_exit", 1)
        left = sorted(f for f in os.listdir(work) if f.startswith(base))
        want = case.meta["expect_error"]
        want = [want] if isinstance(want, str) else list(want)
        lacks = [w for w in want if w not in err]
        if r.returncode != want_rc:
            case.fail("export", "exit %d, expected %d; stderr: %s" % (r.returncode, want_rc, _short(err)))
        elif lacks:
            case.fail("export", "stderr lacks %s: %s" % (", ".join(map(repr, lacks)), _short(err)))
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


def _run_cli(cli, case, out):
    """Runs the CLI for case into out: the CompletedProcess, or None (case failed)."""
    cmd = WRAPPER + [cli, os.path.join(case.fdir, "model.ir"), "-o", out, "--opset", str(case.opset)]
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
    case.export_s += time.time() - t0
    return r


# CLI flag -> api_determinism option line (tests/api/determinism.c).
_ENUMS = {"--training": ("training", ["eval", "preserve", "train"]),
          "--operator-export-type": ("export_type", ["onnx", "onnx_aten", "onnx_aten_fallback",
                                                     "onnx_fallthrough"])}
_SWITCHES = {"--no-constant-folding": "fold 0", "--keep-initializers-as-inputs": "keep_init 1",
             "--no-export-params": "export_params 0", "--strip-doc-string": "strip_doc 1"}


def api_job(c):
    """The api_determinism job for case c: the CLI's flags as option lines."""
    lines = ["job %s %s %d" % (c.onnx, os.path.join(c.fdir, "model.ir"), c.opset)]
    args = [str(a) for a in c.meta.get("cli_args", [])]
    i = 0
    while i < len(args):
        flag, _, val = args[i].partition("=")
        if flag in _SWITCHES:
            lines.append(_SWITCHES[flag])
            i += 1
            continue
        if not _:
            i += 1
            val = args[i]
        i += 1
        if flag in _ENUMS:
            key, names = _ENUMS[flag]
            lines.append("%s %d" % (key, names.index(val)))
        elif flag in ("--input-names", "--output-names"):
            lines += ["%s_name %s" % (flag[2:-6], n) for n in val.split(",")]
        elif flag == "--dynamic-axes":
            lines += ["dyn %s %d %s" % t for t in dynamic_axes({"cli_args": [flag, val]})]
        elif flag == "--custom-opset":
            lines.append("custom_opset %s %s" % tuple(val.rsplit("=", 1)))
        elif flag == "--doc-string":
            lines.append("doc " + val)
        else:
            raise ValueError("%s: api_job does not know %s" % (c.name, flag))
    return "\n".join(lines + ["end"])


def api_determinism(prog, cases, work):
    """Every exported case again through the library (api_determinism), 1
    and 4 threads at once; a case whose bytes differ from the CLI's fails."""
    todo = [c for c in cases if c.status is None and not c.negative]
    jobs = os.path.join(work, "api-jobs.txt")
    with open(jobs, "w") as f:
        f.write("\n".join(api_job(c) for c in todo) + "\n")
    r = subprocess.run([prog, jobs, "1", "4"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = r.stdout.decode("utf-8", "replace")
    by_onnx = {c.onnx: c for c in todo}
    for line in out.splitlines():
        if line.startswith("FAIL "):
            path, _, why = line[5:].partition(" ")
            by_onnx[path].fail("api-determinism", why)
    if r.returncode not in (0, 1) or (r.returncode == 1 and "FAIL " not in out):
        for c in todo:
            c.fail("api-determinism", "api_determinism exit %d: %s" % (
                r.returncode, _short(r.stderr.decode("utf-8", "replace") + out)))
    return len(todo)


def determinism(cli, cases, work):
    """Exports each fixture's case at its highest opset again, into
    WORK/again/, and fails it when the files differ."""
    again = os.path.join(work, "again")
    os.makedirs(again, exist_ok=True)
    last = {}
    for c in cases:
        if c.status is None and not c.negative:
            if c.name not in last or c.opset > last[c.name].opset:
                last[c.name] = c

    def one(c):
        out = os.path.join(again, os.path.basename(c.onnx))
        if os.path.exists(out):
            os.remove(out)
        r = _run_cli(cli, c, out)
        if r is None:
            c.fail("determinism", "second export: " + c.detail)
        elif r.returncode != 0 or not os.path.isfile(out):
            c.fail("determinism", "second export failed (exit %d): %s" % (r.returncode, _short(r.stderr.decode("utf-8", "replace"))))
        else:
            with open(c.onnx, "rb") as f1, open(out, "rb") as f2:
                a, b = f1.read(), f2.read()
            if a != b:
                at = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
                c.fail("determinism", "two exports differ (%d and %d bytes, first difference at byte %d)" % (len(a), len(b), at))
            else:
                c.notes.append("byte-identical twice")

    with concurrent.futures.ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as ex:
        list(ex.map(one, list(last.values())))
    return len(last)


class _quiet_fds:
    """Silences the process's stdout and stderr (C++ prints of the onnx
    checker) while active, if on."""

    def __init__(self, on):
        self.on = on

    def __enter__(self):
        if self.on:
            sys.stdout.flush()
            sys.stderr.flush()
            self.saved = [os.dup(1), os.dup(2)]
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.close(null)

    def __exit__(self, *exc):
        if self.on:
            os.dup2(self.saved[0], 1)
            os.dup2(self.saved[1], 2)
            for fd in self.saved:
                os.close(fd)
        return False


def check(case, producer):
    import onnx

    try:
        model = onnx.load(case.onnx)
    except Exception as e:  # noqa: BLE001
        case.fail("load", _short(str(e)))
        return
    checked = model
    if any(n.op_type == "ATen" for n in model.graph.node):
        # onnx 1.12's checker skips a whole model with an ATen node (an
        # "experimental op"): check a copy where they are an unknown op of
        # their domain instead (graph structure, types, other nodes)
        checked = onnx.ModelProto()
        checked.CopyFrom(model)
        for n in checked.graph.node:
            if n.op_type == "ATen":
                n.op_type = "ATen_checked_as_custom_op"
        case.notes.append("ATen nodes checked as custom ops")
    try:
        if case.opset <= ONNX_MAX_KNOWN_OPSET and case.meta.get("plain_check"):
            # meta "plain_check": why onnx 1.12's shape inference is wrong
            # for this model (onnxruntime still runs and compares it)
            onnx.checker.check_model(checked)
            case.notes.append("plain check_model only: " + case.meta["plain_check"])
        elif case.opset <= ONNX_MAX_KNOWN_OPSET:
            with _quiet_fds(checked is not model):
                onnx.checker.check_model(checked, full_check=True)
        else:
            try:
                onnx.checker.check_model(checked)
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
    want_ins = onnx_input_names(case.meta)
    if cli_flag(case.meta, "--no-export-params"):
        # the weights follow the user inputs, in IR order (unused ones may go)
        extra = ins[len(want_ins):]
        weights = list(case.meta.get("weights", []))
        pos = [weights.index(w) if w in weights else -1 for w in extra]
        if ins[: len(want_ins)] != want_ins or -1 in pos or pos != sorted(pos):
            problems.append("graph inputs %s, expected %s then weights in IR order out of %s" % (ins, want_ins, weights))
        case.fed_weights = extra
    elif ins != want_ins:
        problems.append("graph inputs %s, expected %s" % (ins, want_ins))
    if len(model.graph.output) != case.meta["num_outputs"]:
        problems.append("%d graph outputs, expected %d" % (len(model.graph.output), case.meta["num_outputs"]))
    outs = cli_value(case.meta, "--output-names")
    if outs and [o.name for o in model.graph.output][: len(outs.split(","))] != outs.split(","):
        problems.append("graph outputs %s, expected names %s" % ([o.name for o in model.graph.output], outs.split(",")))
    problems += check_expect(case, model)
    case.dim_problems = check_dynamic_axes(case.meta, model) + check_output_dims(case.meta, model)
    if problems:
        case.fail("contract", "; ".join(problems + case.dim_problems))


# onnx TensorProto element types by the dtype names meta.json uses (torch's)
ELEM_TYPES = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
              8: "string", 9: "bool", 10: "float16", 11: "float64", 12: "uint32", 13: "uint64", 16: "bfloat16"}


def _type_of(vi):
    """(dtype name, [dims: int, dim_param str or None]) of a ValueInfoProto."""
    t = vi.type.tensor_type
    if not vi.type.HasField("tensor_type"):
        return None, None
    dtype = ELEM_TYPES.get(t.elem_type, "elem_type %d" % t.elem_type)
    if not t.HasField("shape"):
        return dtype, None
    dims = []
    for d in t.shape.dim:
        dims.append(d.dim_value if d.HasField("dim_value") else (d.dim_param if d.HasField("dim_param") else None))
    return dtype, dims


def _dims_match(got, want):
    """want: list of int (dim_value), str (dim_param), None (anything)."""
    if got is None or len(got) != len(want):
        return False
    return all(w is None or g == w for g, w in zip(got, want))


def check_dynamic_axes(meta, model):
    """Every --dynamic-axes NAME:AXIS=DIM is a dim_param on input/output NAME."""
    problems = []
    vis = {v.name: v for v in list(model.graph.input) + list(model.graph.output)}
    for name, axis, dim in dynamic_axes(meta):
        if name not in vis:
            problems.append("--dynamic-axes names %r: no such graph input or output" % name)
            continue
        _, dims = _type_of(vis[name])
        if dims is None or axis >= len(dims) or dims[axis] != dim:
            problems.append("%s: dim %d is %r, expected dim_param %r (dims %s)" % (name, axis, None if dims is None or axis >= len(dims) else dims[axis], dim, dims))
    return problems


def check_output_dims(meta, model):
    """meta expect.output_dims: per graph output, int / dim_param / null."""
    g = model.graph
    problems = []
    for i, dims in enumerate(meta.get("expect", {}).get("output_dims", [])):
        if i >= len(g.output):
            break
        got = _type_of(g.output[i])[1]
        if not _dims_match(got, dims):
            problems.append("graph output %d (%s): dims %s, expected %s" % (i, g.output[i].name, got, dims))
    return problems


def _attr_value(a):
    import onnx

    v = onnx.helper.get_attribute_value(a)
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, list):
        return [x.decode("utf-8", "replace") if isinstance(x, bytes) else x for x in v]
    return v


def _node_matches(n, pat):
    if "op_type" in pat and n.op_type != pat["op_type"]:
        return False
    if "domain" in pat and (n.domain or "") != pat["domain"]:
        return False
    attrs = {a.name: a for a in n.attribute}
    for k, v in pat.get("attrs", {}).items():
        if k not in attrs or _attr_value(attrs[k]) != v:
            return False
    return True


def _pat_str(pat):
    return "%s%s%s" % (pat.get("domain", "") + "::" if pat.get("domain") else "", pat.get("op_type", "*"),
                       json.dumps(pat["attrs"], sort_keys=True) if pat.get("attrs") else "")


def check_expect(case, model):
    """meta "expect": structural checks of the exported model.
      nodes:         [{op_type, domain, attrs: {name: value}, count | min,
                      outputs: [[dtype, dims], ...]}]: matching nodes exist
                     (count: exactly; min: at least, default 1); outputs:
                     the first match's output types (value_info or graph
                     output), dims as in output_dims
      no_nodes:      [{op_type, domain, attrs}]: no node matches
      opset_import:  {domain: version or null (absent)}
      doc_string:    the model's doc_string
      node_doc_strings: true (every node has one) / false (none has)
      graph_inputs / graph_outputs: every input / output name, in order
      initializers:  the number of initializers
      no_initializers: names no initializer may have
      output_types:  true: the graph outputs' element types and dims equal
                     the reference outputs' (outputs.safetensors)
      output_dims:   per output, dims: int (dim_value), str (dim_param),
                     null (anything)
      stderr / no_stderr: a str or list of strs (not) in the CLI's stderr
    """
    exp = case.meta.get("expect")
    if not exp:
        return []
    g = model.graph
    problems = []
    types = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        types[vi.name] = _type_of(vi)
    for pat in exp.get("nodes", []):
        hits = [n for n in g.node if _node_matches(n, pat)]
        if "count" in pat and len(hits) != pat["count"]:
            problems.append("%d %s node(s), expected %d" % (len(hits), _pat_str(pat), pat["count"]))
        elif "count" not in pat and len(hits) < pat.get("min", 1):
            problems.append("%d %s node(s), expected at least %d" % (len(hits), _pat_str(pat), pat.get("min", 1)))
        if hits and "outputs" in pat:
            n = hits[0]
            for i, (dt, dims) in enumerate(pat["outputs"]):
                got = types.get(n.output[i]) if i < len(n.output) else None
                if got is None or got[0] != dt or (dims is not None and not _dims_match(got[1], dims)):
                    problems.append("%s output %d (%s): type %s, expected %s %s" % (
                        _pat_str(pat), i, n.output[i] if i < len(n.output) else "-", got, dt, dims))
    for pat in exp.get("no_nodes", []):
        hits = [n for n in g.node if _node_matches(n, pat)]
        if hits:
            problems.append("%d unexpected %s node(s) (%s)" % (len(hits), _pat_str(pat), ", ".join(
                sorted({(n.domain + "::" if n.domain else "") + n.op_type for n in hits}))))
    imports = {o.domain or "": o.version for o in model.opset_import}
    for dom, ver in exp.get("opset_import", {}).items():
        if imports.get(dom) != ver:
            problems.append("opset_import %r is %r, expected %r (all: %s)" % (dom, imports.get(dom), ver, imports))
    if "doc_string" in exp and model.doc_string != exp["doc_string"]:
        problems.append("doc_string %r, expected %r" % (model.doc_string, exp["doc_string"]))
    if "node_doc_strings" in exp:
        with_doc = sum(1 for n in g.node if n.doc_string)
        if exp["node_doc_strings"] and with_doc != len(g.node):
            problems.append("%d of %d nodes have a doc_string, expected all" % (with_doc, len(g.node)))
        if not exp["node_doc_strings"] and with_doc:
            problems.append("%d of %d nodes have a doc_string, expected none" % (with_doc, len(g.node)))
    for key, vals in (("graph_inputs", g.input), ("graph_outputs", g.output)):
        if key in exp and [v.name for v in vals] != exp[key]:
            problems.append("%s %s, expected %s" % (key, [v.name for v in vals], exp[key]))
    bad = sorted({i.name for i in g.initializer} & set(exp.get("no_initializers", [])))
    if bad:
        problems.append("unexpected initializers: " + ", ".join(bad))
    if "initializers" in exp and len(g.initializer) != exp["initializers"]:
        problems.append("%d initializers (%s), expected %d" % (len(g.initializer), ", ".join(i.name for i in g.initializer), exp["initializers"]))
    if exp.get("output_types"):
        ref = st.load(os.path.join(case.fdir, "outputs.safetensors"))
        for i, o in enumerate(g.output):
            r = ref.get("out%d" % i)
            if r is None:
                continue
            want = (st.st_dtype(r) == "BF16" and "bfloat16") or str(r.dtype)
            got = _type_of(o)
            if got[0] != want or got[1] != list(r.shape):
                problems.append("graph output %d (%s): %s %s, expected %s %s" % (i, o.name, got[0], got[1], want, list(r.shape)))
    for key, present in (("stderr", True), ("no_stderr", False)):
        want = exp.get(key)
        for w in ([want] if isinstance(want, str) else list(want or [])):
            if (w in case.stderr) != present:
                problems.append("stderr %s %r: %s" % ("lacks" if present else "has", w, _short(case.stderr, 160)))
    return problems


def feeds(case, k, inputs):
    """The file to feed for input set k: the fixture's own, or (renamed
    inputs, weights as inputs) one written into the work dir."""
    names = onnx_input_names(case.meta)
    if names == list(case.meta["inputs"]) and not case.fed_weights:
        return inputs
    t = st.load(inputs)
    fed = {new: t[old] for old, new in zip(case.meta["inputs"], names) if old in t}
    if case.fed_weights:
        w = st.load(os.path.join(case.fdir, "model.safetensors"))
        for n in case.fed_weights:
            if n in w:
                fed[n] = w[n]
    path = os.path.join(case.work, "%s.opset%d.in.%d.safetensors" % (case.name, case.opset, k))
    st.save(fed, path)
    return path


def run_node(cases, work, node):
    """Runs every input set of every case in one run.js batch."""
    jobs, owners = [], []
    for c in cases:
        for k, inputs, _, got in c.runs():
            jobs.append({"model": c.onnx, "inputs": feeds(c, k, inputs), "outputs": got})
            owners.append((c, k))
    if not jobs:
        return 0.0
    jpath = os.path.join(work, "jobs.json")
    with open(jpath, "w") as f:
        json.dump(jobs, f, indent=1)
    t0 = time.time()
    r = subprocess.run([node, RUN_JS, jpath], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    dt = time.time() - t0
    results = []  # run.js prints one line per job, in job order
    for line in r.stdout.decode("utf-8", "replace").splitlines():
        try:
            results.append(json.loads(line))
        except ValueError:
            continue
    for i, (c, k) in enumerate(owners):
        j = results[i] if i < len(results) and results[i].get("model") == c.onnx else None
        if c.status is not None:
            continue
        if j is None:
            c.fail("ort", c.set_label(k) + "no result from run.js (exit %d): %s" % (r.returncode, _short(r.stderr.decode("utf-8", "replace"))))
        elif not j.get("ok"):
            c.fail("ort", c.set_label(k) + _short(j.get("error", "?")))
        elif j.get("unused_inputs") and k == 0:
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


def compare_quantized(ref, got, meta):
    """meta "compare": "quantized" (docs/quantized.md, "Tolerance"): outputs
    in steps of meta "quant_step" (the output's scale); every element within
    "quant_max_steps" steps and a fraction "quant_min_within_one" of them
    within one step. (ok, max_abs_err, detail)"""
    ok, err, detail = compare_arrays(ref, got, 0.0, np.inf)
    if not ok:
        return ok, err, detail
    step = float(meta["quant_step"])
    steps = np.round(np.abs(got.astype(np.float64) - ref.astype(np.float64)) / step)
    worst, within = int(steps.max()) if steps.size else 0, float(np.mean(steps <= 1)) if steps.size else 1.0
    limit, frac = int(meta.get("quant_max_steps", 1)), float(meta.get("quant_min_within_one", 1.0))
    if worst > limit or within < frac:
        return False, err, "%d quantization steps at worst (limit %d); %.1f%% of %d elements within one step " \
            "(limit %.1f%%)" % (worst, limit, 100 * within, steps.size, 100 * frac)
    return True, err, ""


def untie(ref, got, ties):
    """got with its detection rows reordered to torch's within each block of
    near-tied scores (meta "ties"): the outputs sharing the score output's
    first dimension are permuted together, each torch row taking the got
    row of its block closest to it over all those outputs. Counts that
    differ are left to the compare to report."""
    k = "out%d" % int(ties["score"])
    if k not in ref or k not in got or ref[k].shape != got[k].shape or ref[k].ndim != 1:
        return got
    n, tol = ref[k].shape[0], float(ties["tol"])
    keys = [o for o in sorted(ref) if o in got and ref[o].ndim >= 1 and ref[o].shape[0] == n
            and got[o].shape == ref[o].shape and not isinstance(ref[o], st.BF16)]
    r = np.concatenate([_as_float(ref[o]).reshape(n, -1).astype(np.float64) for o in keys], axis=1)
    g = np.concatenate([_as_float(got[o]).reshape(n, -1).astype(np.float64) for o in keys], axis=1)
    score = _as_float(ref[k]).astype(np.float64)
    perm, start = list(range(n)), 0
    for i in range(1, n + 1):
        if i < n and abs(score[i] - score[i - 1]) <= tol:
            continue
        free = list(range(start, i))
        for j in range(start, i):
            best = min(free, key=lambda c: float(np.nanmax(np.abs(g[c] - r[j]), initial=0.0)))
            free.remove(best)
            perm[j] = best
        start = i
    out = dict(got)
    for o in keys:
        out[o] = got[o][perm]
    return out


def compare(case):
    meta = case.meta
    rtol = meta.get("rtol", 1e-4)
    atol = meta.get("atol", 1e-5)
    values = not shape_dtype_only(meta)
    if not values:
        case.notes.append("nondeterministic ops: shape and dtype only")
    random_outs = set(meta.get("shape_dtype_outputs", []))
    if values and random_outs:
        case.notes.append("outputs %s: shape and dtype only" % ",".join("out%d" % i for i in sorted(random_outs)))
    worst = 0.0
    runs = case.runs()
    for kset, _, ref_path, got_path in runs:
        label = case.set_label(kset)
        ref = st.load(ref_path)
        try:
            got = st.load(got_path)
        except Exception as e:  # noqa: BLE001
            case.fail("compare", label + "cannot read onnxruntime outputs: %s" % e)
            return
        if values and meta.get("ties"):
            got = untie(ref, got, meta["ties"])
        n = meta.get("num_outputs", len(ref))
        if len(got) != n:
            case.fail("compare", label + "%d outputs, expected %d" % (len(got), n))
            return
        for i in range(n):
            k = "out%d" % i
            if k not in ref:
                case.fail("compare", label + "reference lacks %s" % k)
                return
            if k not in got:
                case.fail("compare", label + "onnxruntime output lacks %s" % k)
                return
            if meta.get("compare") == "quantized":
                ok, err, detail = compare_quantized(ref[k], got[k], meta)
            else:
                ok, err, detail = compare_arrays(ref[k], got[k], rtol, atol, values and i not in random_outs)
            if err is not None:
                worst = max(worst, err)
            if not ok:
                case.maxerr = worst
                case.fail("compare", label + "%s: %s" % (k, detail))
                return
    if len(runs) > 1:
        case.notes.append("%d input sets" % len(runs))
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
    ap.add_argument("--no-determinism", action="store_true", help="skip the second export of each fixture")
    ap.add_argument("--api-determinism", metavar="PROG",
                    help="tests/api/determinism.c's program: re-export every case through the library in 1 and 4 threads")
    ap.add_argument("--export-only", action="store_true",
                    help="export every case and check the negative ones, but neither check nor run the models: "
                         "the sanitized build's pass, whose findings are in onnxexp's own memory (the plain pass "
                         "compares the same exports with torch)")
    ap.add_argument("--first-last", action="store_true",
                    help="each fixture at its lowest and highest opset only (the sanitized build's pass: the "
                         "plain pass runs every opset)")
    ap.add_argument("--wrapper", metavar="CMD",
                    help="run each export under CMD (shell words), e.g. valgrind with --error-exitcode")
    a = ap.parse_args(argv)
    global WRAPPER
    WRAPPER = shlex.split(a.wrapper) if a.wrapper else []

    t0 = time.time()
    cli = os.path.abspath(a.onnxexp) if os.path.exists(a.onnxexp) else a.onnxexp
    os.makedirs(a.work, exist_ok=True)
    work = os.path.abspath(a.work)
    cases = []
    for name, fdir, meta in load_fixtures(a.fixtures, a.only):
        for opset in opsets_of(meta, a.first_last):
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
    n_twice = 0 if a.no_determinism else determinism(cli, cases, work)
    n_api = api_determinism(a.api_determinism, cases, work) if a.api_determinism else 0
    t_export = time.time() - t0
    positive = [c for c in cases if c.status is None]
    if a.export_only:
        for c in positive:
            c.status = "PASS"
            c.notes.append("exported only")
        positive = []
    for c in positive:
        check(c, a.producer)
    t_check = time.time() - t0 - t_export
    runnable = [c for c in positive if c.status is None and c.meta.get("run", True)]
    for c in positive:
        if c.status is None and not c.meta.get("run", True):
            c.status = "PASS"
            c.notes.append("structure only, not run")
    t_node = run_node(runnable, work, a.node)
    for c in runnable:
        if c.status is None:
            compare(c)
    for c in positive:
        if c.dim_problems and c.stage != "contract":
            if c.status == "PASS":
                c.fail("dims", "; ".join(c.dim_problems) + " (the values match torch at every input set)")
            elif c.status == "FAIL":
                c.detail += "; dims: " + "; ".join(c.dim_problems)

    failed = [c for c in cases if c.status != "PASS"]
    if a.results:
        with open(a.results, "w") as f:
            json.dump([dict(fixture=c.name, opset=c.opset, status=c.status, negative=c.negative,
                            ops=c.meta.get("ops", [])) for c in cases], f, indent=0)
    print_table(failed if a.quiet else cases, out)
    out.write("roundtrip: %d passed, %d failed of %d (%d fixtures; %d exported twice by the CLI, %d by the library in 1 and 4 threads); export %.1fs, checker %.1fs, onnxruntime %.1fs, total %.1fs\n"
              % (len(cases) - len(failed), len(failed), len(cases), len({c.name for c in cases}), n_twice, n_api,
                 t_export, t_check, t_node, time.time() - t0))
    return (1 if failed else 0), cases


def opsets_of(meta, first_last=False):
    """A fixture's opsets; with first_last its lowest and highest only
    (a sampled pass: opset-specific branches in between are the full
    pass's)."""
    ops = sorted(meta["opsets"])
    return ops if not first_last or len(ops) <= 2 else [ops[0], ops[-1]]


def main():
    code, _ = run()
    return code


if __name__ == "__main__":
    sys.exit(main())
