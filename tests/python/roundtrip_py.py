#!/usr/bin/python3
"""The round-trip fixtures a second time, through onnxexp.export in this
process, against the CLI.

    /usr/bin/python3 tests/python/roundtrip_py.py --onnxexp CLI --fixtures DIR --work DIR
        [--node NODE] [--only NAME...] [-q]

The Python package comes from this checkout (python/), the library from
$ONNXEXP_LIBRARY (ctest sets the build's). Each fixture's model is built
again from tests/fixtures (same seed, so the same weights) and, per opset
of its meta.json, exported with onnxexp.export with the arguments that
mean the fixture's CLI flags (--training eval -> training=TrainingMode.EVAL,
...); the CLI exports the fixture's model.ir with those flags. Then:

  positive   the two files are byte-identical (then the checks and the
             onnxruntime run are the CLI round trip's, which reads those
             very bytes at every opset; running them again here proves
             nothing new); where the reference is not the fixture's own
             file (below), the Python one passes the round trip's checks
             (onnx checker, contract, meta "expect", onnxruntime against
             torch's outputs at every input set).
             Where the captured graph cannot be the fixture's, the
             reference is instead the CLI on what onnxexp.dump wrote at
             that opset: a model traced in one training mode and exported
             in another (torch.onnx.export re-sets the mode before it
             traces, so the graph differs from the fixture's), and script
             functions whose trailing arguments the fixture stores as
             weights (onnxexp.export, like torch, keeps arguments as graph
             inputs: they are fed from model.safetensors).
  negative   onnxexp.export raises onnxexp.ExportError whose text holds
             every expected string, and writes no file.
  dump       for every positive fixture, at its highest opset:
             onnxexp.dump, then the CLI on what it wrote, gives the bytes
             onnxexp.export gave.

Fixtures with no Python model (hand-written IR), with a sidecar damaged on
purpose, or whose flags have no torch.onnx.export argument (--doc-string)
are listed as skipped. Exits 1 if anything failed.
"""

import argparse
import concurrent.futures
import copy
import io
import os
import re
import shutil
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "python"))
sys.path.insert(0, os.path.join(TOP, "tests", "tools"))
sys.path.insert(0, os.path.join(TOP, "tests", "fixtures"))
sys.path.insert(0, os.path.join(TOP, "tests", "roundtrip"))

import torch  # noqa: E402

import gen_fixtures  # noqa: E402
import onnxexp  # noqa: E402
import roundtrip as rt  # noqa: E402
from fxlib import CORRUPT  # noqa: E402

TM = torch.onnx.TrainingMode
OET = torch.onnx.OperatorExportTypes
_TRAINING = {"eval": TM.EVAL, "preserve": TM.PRESERVE, "train": TM.TRAINING}
_OET = {"onnx": OET.ONNX, "onnx_aten": OET.ONNX_ATEN, "onnx_aten_fallback": OET.ONNX_ATEN_FALLBACK,
        "onnx_fallthrough": OET.ONNX_FALLTHROUGH}


class Skip(Exception):
    pass


def export_kwargs(meta):
    """onnxexp.export's arguments that mean the fixture's CLI flags."""
    kw = dict(keep_initializers_as_inputs=False)  # the CLI's default, whatever the export type
    args = [str(a) for a in meta.get("cli_args", [])]
    if "--strip-doc-string" not in args and "--doc-string" in args:
        raise Skip("--doc-string has no torch.onnx.export argument")
    i = 0
    while i < len(args):
        flag, eq, val = args[i].partition("=")
        if flag in ("--no-constant-folding", "--keep-initializers-as-inputs", "--no-export-params",
                    "--strip-doc-string"):
            kw.update({"--no-constant-folding": {"do_constant_folding": False},
                       "--keep-initializers-as-inputs": {"keep_initializers_as_inputs": True},
                       "--no-export-params": {"export_params": False},
                       "--strip-doc-string": {}}[flag])
            i += 1
            continue
        if not eq:
            i += 1
            val = args[i]
        i += 1
        if flag == "--training":
            kw["training"] = _TRAINING[val]
        elif flag == "--operator-export-type":
            kw["operator_export_type"] = _OET[val]
        elif flag == "--input-names":
            kw["input_names"] = val.split(",")
        elif flag == "--output-names":
            kw["output_names"] = val.split(",")
        elif flag == "--dynamic-axes":
            axes = kw.setdefault("dynamic_axes", {})
            for name, axis, dim in rt.dynamic_axes({"cli_args": [flag, val]}):
                axes.setdefault(name, {})[axis] = dim
        elif flag == "--custom-opset":
            dom, _, ver = val.rpartition("=")
            kw.setdefault("custom_opsets", {})[dom] = int(ver)
        elif flag == "--doc-string":
            pass  # with --strip-doc-string: no doc strings, the default
        else:
            raise ValueError("%s: no onnxexp.export argument known for %s" % (meta["name"], flag))
    return kw


def traced_mode_differs(spec, model, kw):
    """Does torch's exporter context trace the model in another training
    mode than the fixture generator did?"""
    if not isinstance(model, torch.nn.Module) or isinstance(model, torch.jit.ScriptModule):
        return False
    want = {TM.EVAL: "eval", TM.TRAINING: "train", TM.PRESERVE: spec["trace_mode"]}[kw.get("training", TM.EVAL)]
    return want != spec["trace_mode"]


_MANGLE = re.compile(r"___torch_mangle_\d+")
_SCOPE = re.compile(r", scope: [^\n]*?(?= # |$)", re.M)
_WARN_ID = re.compile(r"\[warn_id=\d+\]")


_NUMBERED = re.compile(r"%(\d+)\b")


def same_ir(a, b):
    """Equal up to what depends on the process's history, not the model:
    the numbers in scripted classes' mangled names (classes scripted
    before), aten::warn's warn_id (warnings scripted before), the scope
    suffixes of scripted graphs (inlined before), and
    the numbers of unnamed values (a script function inlined into a
    traced model takes numbers that grow with earlier inlining)."""
    def norm(t):
        t = _SCOPE.sub("", _MANGLE.sub("___torch_mangle_N", t))
        t = _WARN_ID.sub("[warn_id=N]", t)
        seen = {}
        return _NUMBERED.sub(lambda m: "%%n%d" % seen.setdefault(m.group(1), len(seen)), t)
    return a == b or norm(a) == norm(b)


def renumbered(onnx_path, fx):
    """Is the dump's IR (beside onnx_path's dump directory) the fixture's
    graph numbered differently?"""
    d = os.path.dirname(onnx_path)
    ir = [os.path.join(d, f) for f in os.listdir(d) if f.endswith(".ir")]
    if not ir:
        return False
    with open(ir[0]) as f:
        mine = f.read().replace(TOP + os.sep, "")
    with open(os.path.join(fx.fdir, "model.ir")) as f:
        theirs = f.read()
    return mine != theirs and same_ir(mine, theirs)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def first_difference(a, b):
    at = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
    return "%d and %d bytes, first difference at byte %d" % (len(a), len(b), at)


class Fixture:
    def __init__(self, name, fdir, meta):
        self.name, self.fdir, self.meta = name, fdir, meta
        self.spec = gen_fixtures.FIXTURES[name]
        self.py = []    # rt.Case per opset (onnxexp.export's files)
        self.cli = {}   # opset -> rt.Case (the CLI's files)
        self.skip = None
        self.kw = {}
        self.via_dump = None  # why the reference is dump + CLI
        self.weight_args = []
        self.built = None

    def model_args(self):
        """The fixture's (model, args, n_weight_args). A capture in train
        mode moves BatchNorm's running statistics, as torch's does: then
        every call gets a model fresh from the builder, so that export and
        dump see the same weights."""
        if self.built is None or self.rebuild:
            self.built = gen_fixtures.build(self.name)
        return self.built

    @property
    def rebuild(self):
        model = self.built[0] if self.built else None
        if not isinstance(model, torch.nn.Module) or isinstance(model, torch.jit.ScriptModule):
            return False
        return {TM.EVAL: False, TM.TRAINING: True,
                TM.PRESERVE: self.spec["trace_mode"] == "train"}[self.kw.get("training", TM.EVAL)]


def fresh_reference(fx, work):
    """torch's outputs for a fixture whose model the exporter context puts
    in another mode than the generator traced it in: the generator's
    reference saw the model after a train-mode trace (which moves
    BatchNorm's running statistics) and in its ref_mode; an export's
    capture sees it as built, in the mode `training` sets. A directory
    like the fixture's, with outputs made that way."""
    import st

    model, args, _ = gen_fixtures.build(fx.name)
    mode = {TM.EVAL: False, TM.TRAINING: True, TM.PRESERVE: model.training}[fx.kw.get("training", TM.EVAL)]
    model.train(mode)
    d = os.path.join(work, "ref", fx.name)
    os.makedirs(d)
    for f in os.listdir(fx.fdir):
        if not f.startswith("outputs"):
            os.symlink(os.path.join(fx.fdir, f), os.path.join(d, f))
    sets = [(0, gen_fixtures.clone_args(args))]
    for k in range(1, int(fx.meta.get("input_sets", 0)) + 1):
        t = st.load(os.path.join(fx.fdir, "inputs.%d.safetensors" % k))
        sets.append((k, tuple(torch.from_numpy(t[n].copy()) for n in fx.meta["inputs"])))
    for k, a in sets:
        torch.manual_seed(0)
        with torch.no_grad():
            outs = gen_fixtures.flatten_out(model(*a))
        name = "outputs.safetensors" if k == 0 else "outputs.%d.safetensors" % k
        st.save({"out%d" % i: st.from_torch(o) for i, o in enumerate(outs)}, os.path.join(d, name))
    return d


def python_exports(fx, work):
    """Exports every case of fx with onnxexp.export; fills statuses of
    failures and of negatives."""
    model, args, nw = fx.model_args()
    if fx.via_dump is None and nw:
        fx.via_dump = "weights passed as arguments"
        fx.weight_args = list(fx.meta["weights"][:nw])
    if fx.via_dump is None and traced_mode_differs(fx.spec, model, fx.kw):
        fx.via_dump = "traced in %s mode, exported with training=%s" % (
            fx.spec["trace_mode"], fx.kw.get("training", TM.EVAL).name)
        ref = fresh_reference(fx, work)
        for c in fx.py:
            c.fdir = ref
    captured_text = None
    top = max(c.opset for c in fx.py)
    for c in fx.py:
        t0 = time.time()
        # the highest opset to a path (written durably, fsync'd, as the CLI
        # does), the others to a file object (no fsync: a quicker test)
        buf = None if c.opset == top else io.BytesIO()
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            try:
                model, args, _ = fx.model_args()
                onnxexp.export(model, gen_fixtures.clone_args(args), c.onnx if buf is None else buf,
                               opset_version=c.opset, **fx.kw)
                err = None
            except onnxexp.ExportError as e:
                err = e
        if buf is not None and buf.getvalue():
            with open(c.onnx, "wb") as f:
                f.write(buf.getvalue())
        c.export_s = time.time() - t0
        c.stderr = "".join("onnxexp: warning: %s\n" % w.message for w in ws
                           if issubclass(w.category, onnxexp.ExportWarning))
        if c.negative:
            want = c.meta["expect_error"]
            want = [want] if isinstance(want, str) else list(want)
            lacks = [w for w in want if err is None or w not in str(err)]
            if err is None:
                c.fail("export", "no ExportError")
            elif lacks:
                c.fail("export", "ExportError lacks %s: %s" % (", ".join(map(repr, lacks)), err))
            elif os.path.exists(c.onnx):
                c.fail("export", "a failed export left %s" % ("bytes in the file object" if buf else c.onnx))
            else:
                c.status, c.detail = "PASS", str(err)[:120]
            continue
        if err is not None:
            c.fail("export", "ExportError: %s" % err)
            continue
        if captured_text is None and fx.via_dump is None:
            # the graph must be the fixture's, else the comparison is moot
            d = os.path.join(work, "dump", fx.name)
            os.makedirs(d, exist_ok=True)
            model, args, _ = fx.model_args()
            ir, _ = onnxexp.dump(model, gen_fixtures.clone_args(args), os.path.join(d, "model.ir"),
                                 training=fx.kw.get("training", TM.EVAL),
                                 operator_export_type=fx.kw.get("operator_export_type", OET.ONNX),
                                 opset_version=c.opset)
            with open(ir) as f:
                captured_text = f.read().replace(TOP + os.sep, "")
            with open(os.path.join(fx.fdir, "model.ir")) as f:
                if not same_ir(captured_text, f.read()):
                    c.fail("ir", "the captured graph is not the fixture's model.ir (see %s)" % ir)


def dump_then_cli(fx, cli, work, opset):
    """onnxexp.dump at opset, then the CLI with the fixture's flags: the
    path of the model it wrote, or (None, why)."""
    d = os.path.join(work, "dump", "%s.opset%d" % (fx.name, opset))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    model, args, _ = fx.model_args()
    ir, _ = onnxexp.dump(model, gen_fixtures.clone_args(args), os.path.join(d, "model.ir"),
                         training=fx.kw.get("training", TM.EVAL),
                         operator_export_type=fx.kw.get("operator_export_type", OET.ONNX), opset_version=opset)
    c = rt.Case(fx.name, d, fx.meta, opset, d)
    c.onnx = os.path.join(d, "cli.onnx")
    r = rt._run_cli(cli, c, c.onnx)
    if r is None or r.returncode != 0:
        return None, "CLI on the dump: %s" % (c.detail if r is None else r.stderr.decode("utf-8", "replace").strip())
    return c.onnx, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxexp", required=True, help="the CLI")
    ap.add_argument("--fixtures", required=True, help="directory made by gen_fixtures.py")
    ap.add_argument("--work", required=True)
    ap.add_argument("--node", default=shutil.which("node") or "node")
    ap.add_argument("--only", nargs="+", metavar="NAME")
    ap.add_argument("-j", "--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("-q", "--quiet", action="store_true", help="print only failures and the summary")
    ap.add_argument("--first-last", action="store_true",
                    help="each fixture at its lowest and highest opset only (the suite's pass: every "
                         "opset of every fixture is the CLI round trip's; this one checks the front)")
    a = ap.parse_args()
    t0 = time.time()
    cli = os.path.abspath(a.onnxexp)
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    for sub in ("cli", "py", "dump", "ref"):
        os.makedirs(os.path.join(work, sub))
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")  # the tracer's, in every fixture

    fixtures, skipped = [], []
    for name, fdir, meta in rt.load_fixtures(a.fixtures, a.only):
        fx = Fixture(name, os.path.abspath(fdir), meta)
        if meta.get("hand_written_ir"):
            fx.skip = "hand-written IR, no Python model"
        elif name in CORRUPT:
            fx.skip = "its sidecar is damaged on purpose; in process the weights come from the model"
        else:
            try:
                fx.kw = export_kwargs(meta)
            except Skip as e:
                fx.skip = str(e)
        if fx.skip:
            skipped.append(fx)
            continue
        for opset in rt.opsets_of(meta, a.first_last):
            fx.py.append(rt.Case(name, fx.fdir, meta, opset, os.path.join(work, "py")))
            fx.cli[opset] = rt.Case(name, fx.fdir, meta, opset, os.path.join(work, "cli"))
        fixtures.append(fx)

    # the CLI on the fixtures' own files
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        list(ex.map(lambda c: rt.export(cli, c), [c for fx in fixtures for c in fx.cli.values()]))
    t_cli = time.time() - t0

    # onnxexp.export in this process; then the byte comparisons
    t1 = time.time()
    n_same = n_dump_ref = n_dump = 0
    for fx in fixtures:
        python_exports(fx, work)
        positive = [c for c in fx.py if not c.negative]
        for c in positive:
            if c.status is not None:
                continue
            ref = fx.cli[c.opset]
            if fx.via_dump:
                path, why = dump_then_cli(fx, cli, work, c.opset)
                if path is None:
                    c.fail("dump", why)
                    continue
                c.notes.append("reference: dump + CLI (%s)" % fx.via_dump)
            elif ref.status is not None:
                c.fail("cli", "the CLI failed on the fixture: %s" % ref.detail)
                continue
            else:
                path = ref.onnx
            mine, theirs = read(c.onnx), read(path)
            if mine != theirs:
                c.fail("bytes", "onnxexp.export and the CLI differ (%s)" % first_difference(mine, theirs))
            elif fx.via_dump:
                n_dump_ref += 1
            else:
                n_same += 1
                c.notes.append("byte-identical to the CLI")
        # dump + CLI == export, at the highest opset that exported
        done = [c for c in positive if c.status is None]
        if done and not fx.via_dump:
            c = max(done, key=lambda k: k.opset)
            path, why = dump_then_cli(fx, cli, work, c.opset)
            if path is None:
                c.fail("dump", why)
            elif read(path) != read(c.onnx) and renumbered(path, fx):
                # value numbers that grow with the process's history give the
                # dump other names; the export matched the fixture's bytes
                n_dump += 1
                c.notes.append("dump renumbered by process history: names differ")
            elif read(path) != read(c.onnx):
                c.fail("dump", "dump + CLI differs from onnxexp.export (%s)" % first_difference(read(path), read(c.onnx)))
            else:
                n_dump += 1
                c.notes.append("dump + CLI identical")
        elif done:
            n_dump += 1  # its reference was dump + CLI already
    t_py = time.time() - t1

    # the Python files through the round trip's checks and onnxruntime
    t2 = time.time()
    cases = [c for fx in fixtures for c in fx.py]
    positive = [c for c in cases if c.status is None]
    for fx in fixtures:
        if fx.weight_args:
            for c in fx.py:
                # its weights are inputs after the user inputs, fed from
                # model.safetensors: what the harness does for --no-export-params
                c.meta = copy.deepcopy(c.meta)
                c.meta["cli_args"] = list(c.meta.get("cli_args", [])) + ["--no-export-params"]
    for c in positive:
        if c.status is None and "byte-identical to the CLI" in c.notes:
            c.status = "PASS"  # the CLI round trip runs these bytes
    positive = [c for c in positive if c.status is None]
    for c in positive:
        rt.check(c, "onnxexp")
    runnable = [c for c in positive if c.status is None and c.meta.get("run", True)]
    for c in positive:
        if c.status is None and not c.meta.get("run", True):
            c.status = "PASS"
            c.notes.append("structure only, not run")
    rt.run_node(runnable, os.path.join(work, "py"), a.node)
    for c in runnable:
        if c.status is None:
            rt.compare(c)
    for c in positive:
        if c.dim_problems and c.status == "PASS":
            c.fail("dims", "; ".join(c.dim_problems))
    t_ort = time.time() - t2

    failed = [c for c in cases if c.status != "PASS"]
    rt.print_table(failed if a.quiet else cases)
    for fx in skipped:
        print("skipped %s: %s" % (fx.name, fx.skip))
    n_neg = sum(1 for c in cases if c.negative and c.status == "PASS")
    print("roundtrip_py: %d passed, %d failed of %d (%d fixtures; %d skipped); byte-identical to the CLI: %d, "
          "to dump + CLI where the graph differs: %d; ExportError as expected: %d; dump + CLI == export: %d "
          "fixtures; CLI %.1fs, onnxexp.export %.1fs, checks and onnxruntime %.1fs, total %.1fs"
          % (len(cases) - len(failed), len(failed), len(cases), len(fixtures), len(skipped), n_same, n_dump_ref,
             n_neg, n_dump, t_cli, t_py, t_ort, time.time() - t0))
    return 1 if failed or not cases else 0


if __name__ == "__main__":
    sys.exit(main())
