#!/usr/bin/python3
"""The Python package's API: torch.onnx.export's signature, every
argument supported or refused by name, errors with the model's source
line, dump and its safetensors writer against the C reader, the ctypes
layout against the C compiler's.

    /usr/bin/python3 tests/python/test_api.py --onnxexp CLI --abi ABI_OFFSETS --work DIR [-k NAME]

The package comes from this checkout (python/), the library from
$ONNXEXP_LIBRARY. Exit 0 when every test passes.
"""

import argparse
import contextlib
import ctypes
import inspect
import io
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "python"))
sys.path.insert(0, os.path.join(TOP, "tests", "tools"))

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnx.numpy_helper  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import onnxexp  # noqa: E402
import st  # noqa: E402
from onnxexp import _lib  # noqa: E402

TM, OET = torch.onnx.TrainingMode, torch.onnx.OperatorExportTypes
TESTS = []
A = None  # parsed arguments


def test(fn):
    TESTS.append(fn)
    return fn


def work(name):
    d = os.path.join(A.work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def cli(*args, expect=0):
    r = subprocess.run([A.onnxexp] + [str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert r.returncode == expect, "onnxexp %s: exit %d, stderr %s" % (args, r.returncode, r.stderr.decode())
    return r


def export_model(model, args, **kw):
    b = io.BytesIO()
    onnxexp.export(model, args, b, **kw)
    return onnx.load_from_string(b.getvalue())


def raises(fn, option=None, text=None):
    try:
        fn()
    except onnxexp.ExportError as e:
        if option is not None:
            assert e.option == option, "refused %r, expected %r: %s" % (e.option, option, e)
            assert option in str(e), e
        if text is not None:
            assert text in str(e), "%r lacks %r" % (str(e), text)
        return e
    raise AssertionError("no ExportError")


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.bn = nn.BatchNorm1d(8)
        self.drop = nn.Dropout(0.5)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x, scale: float = 1.0):
        return self.fc2(self.drop(torch.relu(self.bn(self.fc1(x))))) * scale


def mlp():
    torch.manual_seed(0)
    return MLP().eval(), torch.randn(2, 4)


def inputs(m):
    inits = {i.name for i in m.graph.initializer}
    return [i.name for i in m.graph.input if i.name not in inits]


def dims(vi):
    return [d.dim_param or d.dim_value for d in vi.type.tensor_type.shape.dim]


def ops(m):
    return [n.op_type for n in m.graph.node]


# ---- torch.onnx.export's signature -------------------------------------------

def _tiny():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 2), nn.ReLU()), torch.randn(1, 3)


@torch.jit.script
def _scripted_fn(x):
    return torch.relu(x) + 1


# For every parameter of torch.onnx.export: non-default values onnxexp
# supports, each with a check of the exported model, and values it refuses
# by name. A parameter torch gains later that is missing here fails the walk.
SUPPORTED = {
    "model": [(lambda kw: kw.update(model=torch.jit.script(kw["model"])), lambda m: "Gemm" in ops(m)),
              (lambda kw: kw.update(model=_scripted_fn), lambda m: ops(m) == ["Relu", "Add"])],
    "args": [(lambda kw: kw.update(args=(kw["args"],)), lambda m: len(inputs(m)) == 1),
             (lambda kw: kw.update(args=(kw["args"], {})), lambda m: len(inputs(m)) == 1)],
    "f": [],  # a path and a file object: every call here uses both (see call())
    "export_params": [(lambda kw: kw.update(export_params=False), lambda m: len(m.graph.initializer) == 0)],
    "verbose": [(lambda kw: kw.update(verbose=True), lambda m: all(n.doc_string for n in m.graph.node))],
    "training": [(lambda kw: kw.update(training=TM.TRAINING), lambda m: True),
                 (lambda kw: kw.update(training=TM.PRESERVE), lambda m: True)],
    "input_names": [(lambda kw: kw.update(input_names=["x"]), lambda m: inputs(m) == ["x"])],
    "output_names": [(lambda kw: kw.update(output_names=["y"]), lambda m: [o.name for o in m.graph.output] == ["y"])],
    "operator_export_type": [(lambda kw: kw.update(operator_export_type=OET.ONNX_ATEN), lambda m: "ATen" in ops(m)),
                             (lambda kw: kw.update(operator_export_type=OET.ONNX_ATEN_FALLBACK), lambda m: "Gemm" in ops(m)),
                             (lambda kw: kw.update(operator_export_type=OET.ONNX_FALLTHROUGH), lambda m: "Gemm" in ops(m))],
    "opset_version": [(lambda kw, v=v: kw.update(opset_version=v), lambda m, v=v: m.opset_import[0].version == v)
                      for v in (9, 13, 17, 21)],
    "do_constant_folding": [(lambda kw: kw.update(do_constant_folding=False), lambda m: "Gemm" in ops(m))],
    "dynamic_axes": [(lambda kw: kw.update(input_names=["x"], dynamic_axes={"x": {0: "batch"}}),
                      lambda m: dims(m.graph.input[0])[0] == "batch"),
                     (lambda kw: kw.update(input_names=["x"], dynamic_axes={"x": [0]}),
                      lambda m: dims(m.graph.input[0])[0] == "x_dynamic_axes_1")],
    "keep_initializers_as_inputs": [(lambda kw: kw.update(keep_initializers_as_inputs=True),
                                     lambda m: len(m.graph.input) == 3)],
    "custom_opsets": [(lambda kw: kw.update(custom_opsets={"my.domain": 2}),
                       lambda m: any(o.domain == "my.domain" and o.version == 2 for o in m.opset_import))],
    "export_modules_as_functions": [],
}
REFUSED = {
    "export_modules_as_functions": [True, {nn.Linear}],
    "opset_version": [7, 8, 22, "17"],
    "training": [True, "eval"],
    "operator_export_type": ["onnx"],
    "dynamic_axes": [["x"], {"x": {-1: "b"}}, {"x": ["a"]}],
    "custom_opsets": [{"d": 0}, ["d"]],
    "input_names": ["x"],
    "export_params": [1],
    "do_constant_folding": [None],
    "keep_initializers_as_inputs": ["yes"],
}


def call(kw):
    """onnxexp.export(**kw) to a file object and to a path: the same bytes."""
    b = io.BytesIO()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):  # verbose prints the graph
        onnxexp.export(f=b, **kw)
        p = pathlib.Path(A.work) / "sig.onnx"
        if p.exists():
            p.unlink()
        onnxexp.export(f=p, **kw)
    assert p.read_bytes() == b.getvalue(), "path and file object differ"
    if kw.get("verbose"):
        assert "graph" in out.getvalue(), out.getvalue()
    return onnx.load_from_string(b.getvalue())


@test
def every_parameter_of_torch_onnx_export_is_accepted_or_refused_by_name():
    theirs = inspect.signature(torch.onnx.export).parameters
    mine = inspect.signature(onnxexp.export).parameters
    assert list(mine) == list(theirs), "parameters %s, torch's %s" % (list(mine), list(theirs))
    for name, p in theirs.items():
        q = mine[name]
        assert q.kind == p.kind, (name, q.kind, p.kind)
        assert q.default == p.default, "%s: default %r, torch's %r" % (name, q.default, p.default)
        assert name in SUPPORTED or name in REFUSED, "torch.onnx.export's %s has no test here" % name
    checked = refused = 0
    for name in theirs:
        for change, ok in SUPPORTED.get(name, []):
            model, x = _tiny()
            kw = dict(model=model, args=x)
            change(kw)
            m = call(kw)
            assert ok(m), "%s: the exported model does not show it (%s)" % (name, ops(m))
            checked += 1
        for value in REFUSED.get(name, []):
            model, x = _tiny()
            kw = dict(model=model, args=x, f=io.BytesIO())
            kw[name] = value
            if name == "dynamic_axes":
                kw["input_names"] = ["x"]
            raises(lambda: onnxexp.export(**kw), option=name)
            refused += 1
    assert checked >= 20 and refused >= 15, (checked, refused)


@test
def export_to_pretty_string_takes_torchs_parameters():
    theirs = inspect.signature(torch.onnx.export_to_pretty_string).parameters
    mine = inspect.signature(onnxexp.export_to_pretty_string).parameters
    assert list(mine) == list(theirs), (list(mine), list(theirs))
    for name, p in theirs.items():
        assert mine[name].default == p.default, name
    model, x = _tiny()
    text = onnxexp.export_to_pretty_string(model, x, opset_version=13)
    assert "Gemm" in text and "Relu" in text and '""=13' in text, text
    for name, value in (("export_type", "protobuf"), ("google_printer", True), ("add_node_names", False),
                        ("opset_version", 8)):
        raises(lambda: onnxexp.export_to_pretty_string(model, x, **{name: value}), option=name)
    # the same text as the CLI's --pretty on the dump
    d = work("pretty")
    onnxexp.dump(model, x, os.path.join(d, "m.ir"), opset_version=13)
    r = cli(os.path.join(d, "m.ir"), "--pretty", "--opset", "13")
    assert r.stdout.decode() == text, (r.stdout.decode(), text)


# ---- arguments ---------------------------------------------------------------

@test
def args_forms_and_keyword_arguments():
    model, x = mlp()
    a = export_model(model, x)
    b = export_model(model, (x,))
    assert a == b
    # a trailing dict gives keyword arguments (here a float: a graph input)
    c = export_model(model, (x, {"scale": 2.0}))
    assert len(inputs(c)) == 2, inputs(c)
    # the model's mode comes back after the export (EVAL set it for the trace)
    model.train()
    export_model(model, x)
    assert model.training
    model.eval()
    export_model(model, x, training=TM.TRAINING)
    assert not model.training


@test
def a_failed_export_leaves_no_file_and_keeps_an_old_one():
    class Bad(nn.Module):
        def forward(self, x):
            return torch.digamma(x)

    d = work("nofile")
    p = os.path.join(d, "m.onnx")
    raises(lambda: onnxexp.export(Bad(), torch.randn(2), p))
    assert os.listdir(d) == [], os.listdir(d)
    with open(p, "wb") as f:
        f.write(b"old")
    raises(lambda: onnxexp.export(Bad(), torch.randn(2), p))
    assert open(p, "rb").read() == b"old"
    assert sorted(os.listdir(d)) == ["m.onnx"]
    try:
        onnxexp.export(Bad(), torch.randn(2), 42)
    except TypeError as e:
        assert "f must be" in str(e)
    else:
        raise AssertionError("f=42 accepted")


@test
def is_in_onnx_export_while_capturing():
    seen = []

    class Probe(nn.Module):
        def forward(self, x):
            seen.append(torch.onnx.is_in_onnx_export())
            return x + 1

    export_model(Probe(), torch.randn(2))
    assert seen == [True] and not torch.onnx.is_in_onnx_export(), seen


@test
def weights_that_are_not_contiguous_or_shared_export_their_values():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.arange(12.0).reshape(4, 3).t())  # not contiguous
            self.register_buffer("h", torch.arange(24, dtype=torch.float16).reshape(2, 12)[:, ::3])
            self.register_buffer("k", torch.tensor([3, -1], dtype=torch.int64))

        def forward(self, x):
            return (x @ self.w) * self.h[0, 0].float() + self.k.float().sum() + self.h.float().sum()

    m = M()
    assert not m.w.is_contiguous() and not m.h.is_contiguous()
    model = export_model(m, torch.randn(2, 3), do_constant_folding=False)
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    assert np.array_equal(inits["w"], m.w.detach().numpy()), inits
    assert np.array_equal(inits["h"], m.h.numpy()), inits
    assert np.array_equal(inits["k"], m.k.numpy())


# ---- errors --------------------------------------------------------------------

class Unsupported(nn.Module):
    def forward(self, x):
        y = torch.relu(x)
        return torch.digamma(y)  # the line the error names


UNSUPPORTED_LINE = inspect.getsourcelines(Unsupported.forward)[1] + 2


@test
def errors_name_the_models_source_line():
    e = raises(lambda: onnxexp.export(Unsupported(), torch.randn(3), io.BytesIO(), opset_version=17))
    assert isinstance(e, torch.onnx.errors.OnnxExporterError)
    assert e.op == "aten::digamma" and e.status == "not supported", vars(e)
    assert os.path.samefile(e.source_file, __file__) and e.source_line == UNSUPPORTED_LINE, vars(e)
    assert str(e).startswith("%s:%d: aten::digamma is not supported at opset 17" % (e.source_file, UNSUPPORTED_LINE)), e
    assert e.ir_line > 1 and "(TorchScript IR line %d)" % e.ir_line in str(e), e
    # the CLI names the same line on the dump of the same model
    d = work("errline")
    ir, _ = onnxexp.dump(Unsupported(), torch.randn(3), os.path.join(d, "m.ir"))
    r = cli(ir, "-o", os.path.join(d, "m.onnx"), expect=1)
    line = r.stderr.decode().strip()
    assert re.fullmatch(r"onnxexp: error: %s:%d:\d+: aten::digamma is not supported at opset 17 \(%s:%d\)"
                        % (re.escape(ir), e.ir_line, re.escape(e.source_file), UNSUPPORTED_LINE),
                        line), line
    # errors with no IR line carry no source
    e = raises(lambda: onnxexp.export(Unsupported(), torch.randn(3), io.BytesIO(), opset_version=8),
               option="opset_version")
    assert (e.source_file, e.source_line, e.ir_line) == ("", 0, 0), vars(e)


@test
def warnings_of_the_library_are_python_warnings():
    class Fall(nn.Module):
        def forward(self, x):
            return torch.digamma(x)

    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        m = export_model(Fall(), torch.randn(3), operator_export_type=OET.ONNX_FALLTHROUGH,
                         keep_initializers_as_inputs=False)
    got = [str(w.message) for w in ws if issubclass(w.category, onnxexp.ExportWarning)]
    assert any("digamma" in g for g in got), [str(w.message) for w in ws]
    assert issubclass(onnxexp.ExportWarning, torch.onnx.errors.OnnxExporterWarning)
    assert "digamma" in ops(m)


@test
def exports_do_not_nest():
    outer = []

    class Nest(nn.Module):
        def forward(self, x):
            if not outer:
                outer.append(1)
                raises(lambda: onnxexp.export(nn.ReLU(), torch.randn(2), io.BytesIO()), text="do not nest")
            return x * 2

    export_model(Nest(), torch.randn(2))
    assert outer and not torch.onnx.is_in_onnx_export()


# ---- dump, the safetensors writer, the C reader ------------------------------

class AllDtypes(nn.Module):
    """A buffer of every dtype safetensors and onnxexp share, a scalar, an
    empty one, a constant of more than 10 elements (printed <Tensor>)."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(1)
        self.names = []
        for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
                   torch.int16, torch.int8, torch.uint8, torch.bool):
            t = (torch.randn(3, 5, generator=g) * 50).to(dt)
            name = "b_" + str(dt).replace("torch.", "")
            self.register_buffer(name, t)
            self.names.append(name)
        self.register_buffer("scalar", torch.tensor(2.5))
        self.register_buffer("empty", torch.zeros(0, 4))

    def forward(self, x):
        outs = [getattr(self, n) for n in self.names] + [self.scalar * x.sum(), self.empty]
        return tuple(o + 0 if o.dtype != torch.bool else o.logical_not() for o in outs) + (
            x + torch.arange(12.0).reshape(3, 4).sum(),)


@test
def dump_writes_what_tests_tools_st_writes_and_the_cli_reads():
    model = AllDtypes()
    x = torch.randn(3, 4)
    d = work("dump")
    ir, wpath = onnxexp.dump(model, x, os.path.join(d, "all.ir"))
    assert wpath == os.path.join(d, "all.safetensors")
    with open(ir) as f:
        assert f.read() == str(torch.onnx.utils._create_jit_graph(model, (x,))[0])
    # the same bytes as the reference writer of the test suite
    got = st.load(wpath)
    ref = {}
    for k, v in got.items():
        ref[k] = v
    assert open(wpath, "rb").read() == st.dumps(ref)
    consts = [k for k in got if k.startswith("constant:")]
    assert consts, sorted(got)
    for n in model.names + ["scalar", "empty"]:
        t = getattr(model, n)
        want = st.from_torch(t)
        assert (got[n] == want) if isinstance(want, st.BF16) else np.array_equal(got[n], want), n
    # the C reader: the CLI on the dump equals export() from memory
    out = os.path.join(d, "all.onnx")
    cli(ir, "-o", out, "--no-constant-folding", "-q")
    b = io.BytesIO()
    onnxexp.export(model, x, b, opset_version=17, do_constant_folding=False)
    assert open(out, "rb").read() == b.getvalue()
    m = onnx.load(out)
    inits = {i.name: i for i in m.graph.initializer}
    for n in model.names:
        t = getattr(model, n)
        if t.dtype == torch.bfloat16:
            continue  # numpy has no bfloat16: the byte equality above covers it
        assert np.array_equal(onnx.numpy_helper.to_array(inits[n]), t.numpy()), n
    # a path named by the caller; refuses the IR's own path
    onnxexp.dump(model, x, os.path.join(d, "b.ir"), weights=os.path.join(d, "w.st"))
    assert open(os.path.join(d, "w.st"), "rb").read() == open(wpath, "rb").read()
    raises(lambda: onnxexp.dump(model, x, os.path.join(d, "c.ir"), weights=os.path.join(d, "c.ir")),
           option="weights")


# ---- the library binding --------------------------------------------------------

@test
def ctypes_layout_matches_the_c_compilers():
    r = subprocess.run([A.abi], stdout=subprocess.PIPE, check=True)
    structs = {"onnxexp_options": _lib.Options, "onnxexp_dynamic_axis": _lib.DynamicAxis,
               "onnxexp_custom_opset": _lib.CustomOpset}
    seen = set()
    for line in r.stdout.decode().splitlines():
        name, off, *size = line.split()
        sname, _, field = name.partition(".")
        cls = structs[sname]
        if off == "-":
            assert ctypes.sizeof(cls) == int(size[0]), (sname, ctypes.sizeof(cls), size)
            continue
        f = getattr(cls, field)
        assert (f.offset, f.size) == (int(off), int(size[0])), (name, f.offset, f.size, off, size)
        seen.add((sname, field))
    for sname, cls in structs.items():
        for fname, _ in cls._fields_:
            assert (sname, fname) in seen, "%s.%s: not in the C struct" % (sname, fname)


@test
def list_ops_is_the_clis():
    for opset in (9, 17, None):
        r = cli("--list-ops", *(["--opset", opset] if opset else []))
        want = {}
        for line in r.stdout.decode().splitlines():
            op, first = line.split()
            want[op] = int(first)
        assert onnxexp.list_ops(opset) == want, opset
    raises(lambda: onnxexp.list_ops(3))
    assert "aten::linear" in onnxexp.list_ops(17)


@test
def the_library_is_found_or_named():
    assert os.path.samefile(onnxexp.library_path(), os.environ.get("ONNXEXP_LIBRARY") or onnxexp.library_path())
    assert onnxexp.__version__ == cli("--version").stdout.decode().split()[1]
    code = ("import onnxexp, torch\n"
            "try:\n    onnxexp.export(torch.nn.ReLU(), torch.randn(2), '/dev/null')\n"
            "except onnxexp.ExportError as e:\n    print(e)\n")
    env = dict(os.environ, ONNXEXP_LIBRARY="/nonexistent/libonnxexp.so", PYTHONPATH=os.path.join(TOP, "python"))
    r = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = r.stdout.decode()
    assert "libonnxexp not found" in out and "/nonexistent/libonnxexp.so" in out, (out, r.stderr.decode())
    # dump needs no library
    code = "import onnxexp, torch; print(onnxexp.dump(torch.nn.ReLU(), torch.randn(2), %r))" % (
        os.path.join(work("nolib"), "r.ir"))
    r = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert r.returncode == 0 and "r.safetensors" in r.stdout.decode(), r.stderr.decode()


def main():
    global A
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxexp", required=True)
    ap.add_argument("--abi", required=True, help="the abi_offsets program")
    ap.add_argument("--work", required=True)
    ap.add_argument("-k", help="run the tests whose name contains this")
    A = ap.parse_args()
    A.onnxexp = os.path.abspath(A.onnxexp)
    A.work = os.path.abspath(A.work)
    os.makedirs(A.work, exist_ok=True)
    warnings.simplefilter("ignore")
    torch.set_num_threads(1)
    failed = 0
    for t in TESTS:
        if A.k and A.k not in t.__name__:
            continue
        try:
            t()
            print("ok    %s" % t.__name__)
        except Exception:  # noqa: BLE001
            failed += 1
            print("FAIL  %s\n%s" % (t.__name__, traceback.format_exc()))
    print("test_api.py: %d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
