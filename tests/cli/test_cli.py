#!/usr/bin/env python3
"""onnxexp CLI behaviour tests: flags, exit status, diagnostics, files.

  test_cli.py --onnxexp BUILD/src/cli/onnxexp --work DIR [-k NAME] [--valgrind PATH]

The contract under test is /work/shared/DESIGN.md and docs/cli.md: exit 0 on
success, 1 on an export error, 2 on bad usage or unreadable input; errors on
stderr as "onnxexp: error: [file:line:col: ]message"; a failed export leaves
no file and never damages an existing one; same input and options give
byte-identical output. clilib.run() checks the prefix and no-crash rules on
every invocation.
"""

import os
import re
import stat
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clilib  # noqa: E402
from clilib import (ADD_IR, CF_IR, CF_ST, RELU_IR, SRC, assert_in, assert_no_temps,  # noqa: E402
                    error_line, f32, fixture, known_bug, listing, main, mlp, onnx_load,
                    read, run, st_bytes, test, unary_ir, write)

# Every flag that takes a value, as the usage text and docs/cli.md list them.
VALUE_FLAGS = ["-o", "--output", "--weights", "--opset", "--input-names", "--output-names",
               "--dynamic-axes", "--training", "--operator-export-type", "--custom-opset",
               "--doc-string", "--external-data-name"]


def list_ops(*extra):
    r = run(["--list-ops"] + list(extra), expect=0)
    ops = {}
    for line in r.out.decode().splitlines():
        m = re.fullmatch(r"(\S+) +(\d+)", line)
        assert m, "bad --list-ops line %r" % line
        assert m.group(1) not in ops, "op listed twice: %r" % line
        ops[m.group(1)] = int(m.group(2))
    return ops, r


# ---- help, version, usage errors -----------------------------------------

@test
def help_flags(d):
    outs = []
    for f in ["-h", "--help"]:
        r = run([f], expect=0)
        assert r.err == "", r
        assert r.out.startswith(b"usage: onnxexp MODEL.ir -o OUT.onnx"), r
        outs.append(r.out)
    assert outs[0] == outs[1]
    # --help wins wherever it is, even with an (otherwise incomplete) command line
    r = run(["model.ir", "--help"], cwd=d, expect=0)
    assert r.out == outs[0]


@test
def help_lists_every_documented_flag(d):
    text = run(["--help"], expect=0).out.decode()
    doc = read(os.path.join(SRC, "docs", "cli.md")).decode()
    flags = set(re.findall(r"`(--[a-z][a-z-]+)", doc))
    assert len(flags) > 15, flags
    missing = sorted(f for f in flags if f not in text)
    assert not missing, "documented in docs/cli.md but not in --help: %s" % missing


@test
def version_flag(d):
    r = run(["--version"], expect=0)
    assert re.fullmatch(rb"onnxexp \d+\.\d+\.\d+\S*\n", r.out), r
    assert r.err == ""


@test
def unknown_flags(d):
    ir = mlp(d)
    for args, name in [(["--bogus"], "--bogus"), (["--bogus=1"], "--bogus"),
                       (["-Z"], "Z"), ([ir, "-o", "x.onnx", "--frobnicate"], "--frobnicate"),
                       (["--help=yes"], "--help")]:
        r = run(args, cwd=d, expect=2)
        assert len(r.lines) == 1, "one error line, not a usage dump: %r" % r
        assert_in(name, r)
        assert r.out == b""
    assert listing(d) == ["tiny_mlp.ir", "tiny_mlp.safetensors"]


@test
def ambiguous_abbreviation(d):
    # getopt_long takes unambiguous prefixes; --ver is --verbose or --version
    r = run(["--ver"], expect=2)
    assert_in("--ver", r)
    assert len(r.lines) == 1, r


@test
def missing_flag_values(d):
    ir = mlp(d)
    for f in VALUE_FLAGS:
        r = run([ir, "--pretty", f], cwd=d, expect=2)
        assert len(r.lines) == 1, r
        assert_in("requires an argument", r)
        assert_in(f.lstrip("-"), r)
    assert listing(d) == ["tiny_mlp.ir", "tiny_mlp.safetensors"]


@test
def positional_arguments(d):
    ir = mlp(d)
    r = run([ir, ir, "-o", "x.onnx"], cwd=d, expect=2)
    assert_in("exactly one MODEL.ir", r)
    r = run(["-o", "x.onnx"], cwd=d, expect=2)
    assert_in("MODEL.ir", r)
    r = run([], cwd=d, expect=2)
    assert listing(d) == ["tiny_mlp.ir", "tiny_mlp.safetensors"]


@test
def no_output_and_no_pretty(d):
    ir = mlp(d)
    r = run([ir], cwd=d, expect=2)
    assert_in("-o", r)
    assert len(r.lines) == 1
    r = run([ir, "--verbose"], cwd=d, expect=2)
    assert_in("-o", r)


@test
def empty_output_path(d):
    ir = mlp(d)
    r = run([ir, "-o", ""], cwd=d, expect=2)
    assert_in("-o", r)
    assert listing(d) == ["tiny_mlp.ir", "tiny_mlp.safetensors"]


@test
def double_dash_ends_options(d):
    ir = fixture(d, "-model", RELU_IR)
    run(["-o", "out.onnx", "--", "-model.ir"], cwd=d, expect=0)
    onnx_load(os.path.join(d, "out.onnx"))
    assert os.path.exists(ir)


@test
def opset_values(d):
    ir = mlp(d)
    for v in ["8", "22", "0", "-1", "abc", "", "17x", "1e1", "4294967313", "-4294967279",
              "99999999999999999999"]:
        r = run([ir, "-o", "x.onnx", "--opset", v], cwd=d, expect=2)
        assert_in("--opset", r)
        assert "'%s'" % v in r.err, r
    assert listing(d) == ["tiny_mlp.ir", "tiny_mlp.safetensors"]
    for v in ["9", "13", "21"]:
        run([ir, "-o", "m%s.onnx" % v, "--opset", v], cwd=d, expect=0)
        m = onnx_load(os.path.join(d, "m%s.onnx" % v))
        assert [o.version for o in m.opset_import if o.domain == ""] == [int(v)]
    m = onnx_load(os.path.join(d, "m13.onnx"))
    run([ir, "-o", "default.onnx"], cwd=d, expect=0)
    m = onnx_load(os.path.join(d, "default.onnx"))
    assert [o.version for o in m.opset_import if o.domain == ""] == [17]


@test
def enum_flag_values(d):
    ir = mlp(d)
    for args in [["--training", "bogus"], ["--training", "EVAL"],
                 ["--operator-export-type", "aten"], ["--operator-export-type", ""],
                 ["--external-data=bogus"],
                 ["--custom-opset", "foo"], ["--custom-opset", "=1"], ["--custom-opset", "foo="],
                 ["--custom-opset", "foo=0"], ["--custom-opset", "foo=x"],
                 ["--custom-opset", "foo=1x"], ["--custom-opset", "foo=-3"],
                 ["--custom-opset", "foo=99999999999999999999"]]:
        r = run([ir, "-o", "x.onnx"] + args, cwd=d, expect=2)
        assert_in(args[0].split("=")[0], r)
        assert len(r.lines) == 1, r
    assert listing(d) == ["tiny_mlp.ir", "tiny_mlp.safetensors"]
    for args in [["--training", "eval"], ["--training", "preserve"], ["--training", "train"],
                 ["--operator-export-type", "onnx"], ["--operator-export-type", "onnx_aten_fallback"],
                 ["--custom-opset", "my.domain=3"]]:
        run([ir, "-o", "ok.onnx"] + args, cwd=d, expect=0)


# ---- --list-ops -----------------------------------------------------------

@test
def list_ops_all_and_by_opset(d):
    ops, r = list_ops()
    assert r.err == ""
    names = list(ops)
    assert names == sorted(names), "--list-ops is not sorted"
    assert len(ops) > 100 and "aten::relu" in ops and "aten::linear" in ops
    assert all(9 <= v <= 21 for v in ops.values())
    for n in [9, 10, 11, 13, 17, 21]:
        at, _ = list_ops("--opset", str(n))
        assert at == {k: v for k, v in ops.items() if v <= n}, "--list-ops --opset %d" % n
    # the order of the flags does not matter
    at11, _ = list_ops("--opset", "11")
    r = run(["--opset", "11", "--list-ops"], expect=0)
    assert len(r.out.decode().splitlines()) == len(at11)


@test
def list_ops_op_first_registered_later(d):
    ops, _ = list_ops()
    later = sorted(k for k, v in ops.items() if v == 11)
    assert later, "no op first registered at opset 11"
    at9, _ = list_ops("--opset", "9")
    at10, _ = list_ops("--opset", "10")
    at11, _ = list_ops("--opset", "11")
    for op in later:
        assert op not in at9 and op not in at10 and op in at11, op
    assert "aten::round" in later


@test
def list_ops_bad_opset(d):
    for v in ["8", "22", "x"]:
        r = run(["--list-ops", "--opset", v], expect=2)
        assert_in("--opset", r)


# ---- unreadable input -----------------------------------------------------

@test
def ir_missing(d):
    r = run(["nope.ir", "-o", "x.onnx"], cwd=d, expect=2)
    assert error_line(r).startswith("nope.ir: "), r
    assert_in("No such file", r)
    assert listing(d) == []


@test
def ir_is_a_directory(d):
    os.mkdir(os.path.join(d, "sub.ir"))
    r = run(["sub.ir", "-o", "x.onnx"], cwd=d, expect=2)
    assert error_line(r).startswith("sub.ir: "), r
    assert_in("directory", r)
    assert listing(d) == ["sub.ir"]


@test
def ir_from_a_pipe(d):
    # a pipe or a device is readable input, not "Is a directory"
    r = run(["/dev/stdin", "-o", "x.onnx"], cwd=d, input=RELU_IR.encode(), expect=0)
    onnx_load(os.path.join(d, "x.onnx"))
    r = run(["/dev/null", "-o", "y.onnx"], cwd=d, expect=1)
    assert error_line(r).startswith("/dev/null:1:1: "), r
    assert listing(d) == ["x.onnx"]


@test
def ir_empty_and_binary(d):
    write(os.path.join(d, "empty.ir"), b"")
    r = run(["empty.ir", "-o", "x.onnx"], cwd=d, expect=1)
    assert error_line(r).startswith("empty.ir:1:1: "), r
    write(os.path.join(d, "bin.ir"), bytes(range(256)) * 4)
    r = run(["bin.ir", "-o", "x.onnx"], cwd=d, expect=1)
    assert error_line(r).startswith("bin.ir:1:"), r
    write(os.path.join(d, "nul.ir"), RELU_IR.encode().replace(b"relu", b"re\0u"))
    r = run(["nul.ir", "-o", "x.onnx"], cwd=d)
    assert r.rc == 1, r
    assert listing(d) == ["bin.ir", "empty.ir", "nul.ir"]


@test
def weights_missing(d):
    ir = mlp(d)
    r = run([ir, "-o", "x.onnx", "--weights", "nope.safetensors"], cwd=d, expect=2)
    assert error_line(r).startswith("nope.safetensors: "), r
    r = run([ir, "-o", "x.onnx", "--weights", d], cwd=d, expect=2)
    assert_in(d, r)
    assert not os.path.exists(os.path.join(d, "x.onnx"))


@test
def weights_truncated(d):
    ir = fixture(d, "m", RELU_IR)
    good = read(os.path.join(SRC, "examples", "tiny_mlp.safetensors"))
    irm = mlp(d, "mlp", sidecar=False)
    (hl,) = __import__("struct").unpack("<Q", good[:8])
    for n in [0, 3, 8, 9, 8 + hl // 2, 8 + hl, 8 + hl + 10, len(good) - 1]:
        p = write(os.path.join(d, "t%d.safetensors" % n), good[:n])
        r = run([irm, "-o", "x.onnx", "--weights", p], cwd=d, expect=2)
        assert p in error_line(r), "message must name the file: %r" % r
    assert not os.path.exists(os.path.join(d, "x.onnx"))
    assert ir  # the graph without weights exports fine with no sidecar
    run([ir, "-o", "x.onnx"], cwd=d, expect=0)


@test
def weights_malformed_header(d):
    irm = mlp(d, "mlp", sidecar=False)
    good = read(os.path.join(SRC, "examples", "tiny_mlp.safetensors"))
    import struct
    (hl,) = struct.unpack("<Q", good[:8])
    hdr = good[8:8 + hl]
    bad = {
        "huge_len": struct.pack("<Q", 2**63 + 5) + good[8:],
        "zero_len": struct.pack("<Q", 0) + good[8:],
        "not_json": good[:8] + b"x" * hl + good[8 + hl:],
        "json_list": st_bytes({})[:0] + struct.pack("<Q", 8) + b"[1,2,3] ",
        "bad_dtype": good[:8] + hdr.replace(b'"F32"', b'"Q99"', 1) + good[8 + hl:],
        "offsets_past_end": good[:8] + hdr.replace(b"[592,848]", b"[592,999]") + good[8 + hl:],
        "offsets_reversed": good[:8] + hdr.replace(b"[592,848]", b"[848,592]") + good[8 + hl:],
        "size_mismatch": good[:8] + hdr.replace(b"[592,848]", b"[592,840]") + good[8 + hl:],
    }
    for name, blob in bad.items():
        assert len(blob) != len(good) or blob != good, name
        p = write(os.path.join(d, name + ".safetensors"), blob)
        r = run([irm, "-o", "x.onnx", "--weights", p], cwd=d)
        assert r.rc == 2, "%s: %r" % (name, r)
        assert p in error_line(r), "%s: message must name the file: %r" % (name, r)
    assert not os.path.exists(os.path.join(d, "x.onnx"))


@test
def default_weights_path(d):
    # MODEL.ir -> MODEL.safetensors is used when it exists...
    ir = mlp(d)
    run([ir, "-o", "with.onnx"], cwd=d, expect=0)
    m = onnx_load(os.path.join(d, "with.onnx"))
    assert sorted(i.name for i in m.graph.initializer) == [
        "fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight"]
    assert [i.name for i in m.graph.input] == ["0"]
    # ...and read: a corrupt default sidecar is an error naming it
    write(os.path.join(d, "tiny_mlp.safetensors"), b"garbage")
    r = run([ir, "-o", "bad.onnx"], cwd=d, expect=2)
    assert_in("tiny_mlp.safetensors", r)
    # --weights overrides the default path
    good = os.path.join(d, "good.st")
    write(good, read(os.path.join(SRC, "examples", "tiny_mlp.safetensors")))
    run([ir, "-o", "over.onnx", "--weights", good], cwd=d, expect=0)
    assert read(os.path.join(d, "over.onnx")) == read(os.path.join(d, "with.onnx"))
    # only the last extension goes: a.b.ir -> a.b.safetensors, not a.safetensors
    os.remove(os.path.join(d, "tiny_mlp.safetensors"))
    ir2 = mlp(d, "a.b")
    write(os.path.join(d, "a.safetensors"), b"garbage")
    run([ir2, "-o", "ab.onnx"], cwd=d, expect=0)
    # a dot in a directory name is no extension: dir.d/model -> dir.d/model.safetensors
    os.mkdir(os.path.join(d, "dir.d"))
    noext = write(os.path.join(d, "dir.d", "model"), read(ir))
    write(os.path.join(d, "dir.safetensors"), b"garbage")
    write(os.path.join(d, "dir.d", "model.safetensors"), read(good))
    run([noext, "-o", "noext.onnx"], cwd=d, expect=0)
    assert read(os.path.join(d, "noext.onnx")) == read(os.path.join(d, "with.onnx"))


@test
def default_weights_absent_is_fine(d):
    ir = fixture(d, "relu", RELU_IR)
    r = run([ir, "-o", "x.onnx"], cwd=d, expect=0)
    assert r.err == "" and r.out == b""
    onnx_load(os.path.join(d, "x.onnx"))


@test
def unbound_weights_warn(d):
    ir = fixture(d, "relu", RELU_IR, st_bytes({"stray": ("F32", [2], f32(1, 2))}))
    r = run([ir, "-o", "x.onnx"], cwd=d, expect=0)
    assert r.lines and all(l.startswith("onnxexp: warning: ") for l in r.lines), r
    assert_in("stray", r)
    r = run([ir, "-o", "y.onnx", "-q"], cwd=d, expect=0)
    assert r.err == "", r
    assert read(os.path.join(d, "x.onnx")) == read(os.path.join(d, "y.onnx"))


# ---- export errors --------------------------------------------------------

MALFORMED = [
    # (IR text, line, col or None): position of the error
    (RELU_IR.replace("aten::relu(%x)", "aten::relu(%x"), 2, None),
    (RELU_IR.replace("return (%y)", "return (%nope)"), 3, None),
    (RELU_IR.replace("graph(", "grph("), 1, 1),
    (RELU_IR.replace(" = aten::relu", " aten::relu"), 2, None),
    (RELU_IR.replace("aten::relu(%x)", "aten::relu[(%x)"), 2, None),
    (RELU_IR.replace("strides=[3, 1]", "strides=[3, 1", 1), 1, None),
    (RELU_IR.replace("aten::relu(%x)", "aten::relu(%undefined)"), 2, None),
    (RELU_IR + "  %z : Tensor = aten::relu(%y)\n", 4, None),
    ("graph(%x : Float(2, 3)):\n  return (%x)\n" + "\n" * 5 + "  junk\n", 8, 3),
    (RELU_IR.replace("  return (%y)\n", ""), 3, None),
]


@test
def malformed_ir_positions(d):
    for i, (text, line, col) in enumerate(MALFORMED):
        ir = fixture(d, "bad%d" % i, text)
        r = run([ir, "-o", "x.onnx"], cwd=d)
        assert r.rc == 1, "case %d: %r" % (i, r)
        m = re.match(r"(.*):(\d+):(\d+): (.+)", error_line(r))
        assert m, "case %d: no file:line:col: %r" % (i, r)
        assert m.group(1) == ir, "case %d: %r" % (i, r)
        assert int(m.group(2)) == line, "case %d: line %s, expected %d: %r" % (i, m.group(2), line, r)
        if col is not None:
            assert int(m.group(3)) == col, "case %d: %r" % (i, r)
        assert len(r.lines) == 1, "case %d: %r" % (i, r)
    assert not os.path.exists(os.path.join(d, "x.onnx"))


@test
def malformed_ir_column(d):
    text = RELU_IR.replace("aten::relu(%x)", "aten::relu(%x $)")
    ir = fixture(d, "m", text)
    r = run([ir, "-o", "x.onnx"], cwd=d, expect=1)
    line2 = text.splitlines()[1]
    col = line2.index("$") + 1
    assert error_line(r).startswith("%s:2:%d: " % (ir, col)), r


@test
def unsupported_op(d):
    ir = fixture(d, "u", unary_ir("aten::frobnicate"))
    r = run([ir, "-o", "x.onnx"], cwd=d, expect=1)
    assert error_line(r) == "%s:2:3: aten::frobnicate is not supported at opset 17" % ir, r
    r = run([ir, "-o", "x.onnx", "--opset", "12"], cwd=d, expect=1)
    assert_in("is not supported at opset 12", r)
    assert not os.path.exists(os.path.join(d, "x.onnx"))


@test
def op_from_a_later_opset(d):
    ops, _ = list_ops()
    first = ops["aten::round"]
    assert first > 9
    ir = fixture(d, "r", unary_ir("aten::round"))
    for v in range(9, first):
        r = run([ir, "-o", "x.onnx", "--opset", str(v)], cwd=d, expect=1)
        assert_in("aten::round is not supported at opset %d" % v, r)
        rest = error_line(r).split("at opset %d" % v, 1)[1]
        assert "opset %d" % first in rest, "the message must name opset %d: %r" % (first, r)
    assert not os.path.exists(os.path.join(d, "x.onnx"))
    run([ir, "-o", "x.onnx", "--opset", str(first)], cwd=d, expect=0)
    onnx_load(os.path.join(d, "x.onnx"))


@test
def fallback_export_types(d):
    ir = fixture(d, "u", unary_ir("aten::frobnicate"))
    run([ir, "-o", "a.onnx", "--operator-export-type", "onnx_aten_fallback"], cwd=d, expect=0)
    m = onnx_load(os.path.join(d, "a.onnx"))
    assert [n.op_type for n in m.graph.node] == ["ATen"]
    r = run([ir, "-o", "f.onnx", "--operator-export-type", "onnx_fallthrough"], cwd=d, expect=0)
    assert any(l.startswith("onnxexp: warning: ") for l in r.lines), r


@test
def weight_shape_and_dtype_mismatch(d):
    good = read(os.path.join(SRC, "examples", "tiny_mlp.safetensors"))
    ir = mlp(d, "shape", sidecar=False)
    write(ir, read(ir).replace(b"Float(16, 8,", b"Float(16, 7,"))
    write(os.path.join(d, "shape.safetensors"), good)
    r = run([ir, "-o", "x.onnx"], cwd=d, expect=1)
    assert_in("fc1.weight", r)
    assert_in("16, 8", r)
    # dtype: the sidecar says F64 where the graph says Float
    ir2 = fixture(d, "dt", CF_IR, st_bytes({"b": ("F64", [4], b"\0" * 32)}))
    r = run([ir2, "-o", "x.onnx"], cwd=d, expect=1)
    assert_in("'b'", r)
    # rank
    ir3 = fixture(d, "rk", CF_IR, st_bytes({"b": ("F32", [2, 2], f32(1, 2, 3, 4))}))
    r = run([ir3, "-o", "x.onnx"], cwd=d, expect=1)
    assert_in("'b'", r)
    assert not os.path.exists(os.path.join(d, "x.onnx"))


W4 = "Float(4, strides=[1], requires_grad=0, device=cpu)"
W3 = "Float(3, strides=[1], requires_grad=0, device=cpu)"


def matmul_shapes_checked(d):
    ir = fixture(d, "mm", """graph(%x : {t},
      %w : {w}):
  %y : Float(2, 4, strides=[4, 1], requires_grad=0, device=cpu) = aten::matmul(%x, %w)
  return (%y)
""".format(t=clilib.T23, w=W4))
    r = run([ir, "-o", "x.onnx"], cwd=d)
    assert r.rc == 1, "matmul of [2, 3] by [4] must not export: %r" % r
    assert_in("[2, 3]", r)


@test
def node_arity_checked(d):
    bn = fixture(d, "bn", """graph(%x : {t},
      %w : {w}):
  %2 : int = prim::Constant[value=1]()
  %y : {t} = aten::batch_norm(%x, %w, %2)
  return (%y)
""".format(t=clilib.T23, w=W3))
    relu = fixture(d, "relu2", """graph(%x : {t},
      %w : {w}):
  %y : {t} = aten::relu(%x, %w)
  return (%y)
""".format(t=clilib.T23, w=W4))
    for ir, line, want in [(bn, 4, "aten::batch_norm takes 9 inputs, got 3"),
                           (relu, 3, "aten::relu takes 1 input, got 2")]:
        r = run([ir, "-o", "x.onnx"], cwd=d)
        assert r.rc == 1, "wrong number of inputs must not export: %r" % r
        assert error_line(r).startswith("%s:%d:" % (ir, line)), r
        assert_in(want, r)


def unpack_without_input_no_crash(d):
    for kind in ["prim::TupleUnpack", "prim::ListUnpack"]:
        ir = fixture(d, kind[6:], """graph(%x : {t}):
  %a : int = {k}()
  %y : {t} = aten::add(%x, %x, %a)
  return (%y)
""".format(t=clilib.T23, k=kind))
        r = run([ir, "-o", "x.onnx"], cwd=d)
        assert r.rc == 1, r


def pool_zero_stride_no_crash(d):
    pre = """graph(%x : Float(1, 1, 4, 4, strides=[16, 16, 4, 1], requires_grad=0, device=cpu)):
  %k : int = prim::Constant[value=2]()
  %z : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  %none : NoneType = prim::Constant()
  %ks : int[] = prim::ListConstruct(%k, %k)
  %st : int[] = prim::ListConstruct(%z, %z)
  %pd : int[] = prim::ListConstruct(%z, %z)
  %dl : int[] = prim::ListConstruct(%one, %one)
  %y : Float(1, 1, 2, 2, strides=[4, 4, 2, 1], requires_grad=0, device=cpu) = """
    for i, call in enumerate(["aten::max_pool2d(%x, %ks, %st, %pd, %dl, %f)",
                              "aten::avg_pool2d(%x, %ks, %st, %pd, %f, %f, %none)"]):
        ir = fixture(d, "pool%d" % i, pre + call + "\n  return (%y)\n")
        r = run([ir, "-o", "x.onnx"], cwd=d)
        assert r.rc == 1, r


# ---- output files ---------------------------------------------------------

@test
def output_directory_missing(d):
    ir = mlp(d)
    r = run([ir, "-o", "nodir/x.onnx"], cwd=d, expect=2)
    assert_in("nodir/x.onnx", r)
    assert not os.path.exists(os.path.join(d, "nodir"))
    assert listing(d) == ["tiny_mlp.ir", "tiny_mlp.safetensors"]


@test
def output_is_a_directory(d):
    ir = mlp(d)
    os.mkdir(os.path.join(d, "out.onnx"))
    write(os.path.join(d, "out.onnx", "keep"), b"k")
    r = run([ir, "-o", "out.onnx"], cwd=d, expect=2)
    assert_in("out.onnx", r)
    assert listing(os.path.join(d, "out.onnx")) == ["keep"]
    assert_no_temps(d)


@test
def output_is_a_fifo(d):
    # never replace something that is not a regular file (think -o /dev/null
    # run as root: the rename would replace the device node)
    ir = mlp(d)
    fifo = os.path.join(d, "pipe.onnx")
    os.mkfifo(fifo)
    r = run([ir, "-o", fifo], cwd=d, expect=2)
    assert_in(fifo, r)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the fifo was replaced"
    assert_no_temps(d)


FAILING = [
    ("unsupported op", lambda d: [fixture(d, "u", unary_ir("aten::frobnicate"))], 1),
    ("parse error", lambda d: [fixture(d, "p", "graph(%x : Float(2,\n")], 1),
    ("bad opset", lambda d: [mlp(d), "--opset", "3"], 2),
    ("missing ir", lambda d: ["missing.ir"], 2),
    ("truncated weights", lambda d: [mlp(d), "--weights", write(os.path.join(d, "t.st"), b"\x10\0\0\0")], 2),
    ("unknown dynamic axis input", lambda d: [mlp(d), "--dynamic-axes", "nope:0=b"], 2),
    ("too many input names", lambda d: [mlp(d), "--input-names", "a,b,c"], 2),
    ("weight shape", lambda d: [fixture(d, "w", CF_IR, st_bytes({"b": ("F32", [5], f32(1, 2, 3, 4, 5))}))], 1),
]


@test
def existing_output_untouched_on_failure(d):
    marker = b"MARKER: not a model\n" * 10
    out = os.path.join(d, "out.onnx")
    for what, args, rc in FAILING:
        write(out, marker)
        os.chmod(out, 0o640)
        before = os.stat(out)
        r = run(args(d) + ["-o", out], cwd=d)
        assert r.rc == rc, "%s: %r" % (what, r)
        assert read(out) == marker, "%s: the existing output was changed" % what
        after = os.stat(out)
        assert (after.st_ino, after.st_mode, after.st_mtime_ns) == (
            before.st_ino, before.st_mode, before.st_mtime_ns), what
        assert_no_temps(d)


@test
def existing_output_replaced_on_success(d):
    ir = mlp(d)
    out = write(os.path.join(d, "out.onnx"), b"MARKER" * 1000)
    run([ir, "-o", out], cwd=d, expect=0)
    onnx_load(out)
    run([ir, "-o", "fresh.onnx"], cwd=d, expect=0)
    assert read(out) == read(os.path.join(d, "fresh.onnx"))
    assert_no_temps(d)
    assert listing(d) == ["fresh.onnx", "out.onnx", "tiny_mlp.ir", "tiny_mlp.safetensors"]


@test
def no_temp_files_left(d):
    ir = mlp(d)
    sub = os.path.join(d, "out")
    os.mkdir(sub)
    run([ir, "-o", os.path.join(sub, "m.onnx")], cwd=d, expect=0)
    assert listing(sub) == ["m.onnx"]
    run([ir, "-o", os.path.join(sub, "m.onnx"), "--verbose"], cwd=d, expect=0)
    assert listing(sub) == ["m.onnx"]
    for what, args, rc in FAILING:
        r = run(args(d) + ["-o", os.path.join(sub, "f.onnx")], cwd=d)
        assert r.rc == rc, "%s: %r" % (what, r)
        assert listing(sub) == ["m.onnx"], "%s: %s" % (what, listing(sub))
    assert_no_temps(d)


@test
def output_mode_follows_umask_restrictive(d):
    ir = mlp(d)
    for um in [0o022, 0o077, 0o027]:
        out = os.path.join(d, "m%o.onnx" % um)
        run([ir, "-o", out], cwd=d, umask=um, expect=0)
        mode = stat.S_IMODE(os.stat(out).st_mode)
        assert mode & ~(0o666 & ~um) == 0, "umask %03o gave mode %03o" % (um, mode)
        assert mode & 0o600 == 0o600, "umask %03o gave mode %03o" % (um, mode)


@test
def output_mode_follows_umask_permissive(d):
    ir = mlp(d)
    for um in [0o002, 0o000]:
        out = os.path.join(d, "m%o.onnx" % um)
        run([ir, "-o", out], cwd=d, umask=um, expect=0)
        mode = stat.S_IMODE(os.stat(out).st_mode)
        assert mode == 0o666 & ~um, "umask %03o gave mode %03o" % (um, mode)


BIG_IR = """graph(%x : Float(2, 1024, strides=[1024, 1], requires_grad=0, device=cpu),
      %b : Float(1024, strides=[1], requires_grad=0, device=cpu)):
  %2 : int = prim::Constant[value=1]()
  %z : Float(2, 1024, strides=[1024, 1], requires_grad=0, device=cpu) = aten::add(%x, %b, %2)
  return (%z)
"""


@test
def external_data_files(d):
    ir = fixture(d, "big", BIG_IR, st_bytes({"b": ("F32", [1024], f32(*range(1024)))}))
    base = ["big.ir", "big.safetensors"]
    run([ir, "-o", "e.onnx", "--external-data"], cwd=d, expect=0)
    assert listing(d) == base + ["e.onnx", "e.onnx.data"], listing(d)
    onnx_load(os.path.join(d, "e.onnx"))
    model, data = read(os.path.join(d, "e.onnx")), read(os.path.join(d, "e.onnx.data"))
    # deterministic, model and data
    os.mkdir(os.path.join(d, "again"))
    run([ir, "-o", "again/e.onnx", "--external-data"], cwd=d, expect=0)
    assert read(os.path.join(d, "again", "e.onnx")) == model
    assert read(os.path.join(d, "again", "e.onnx.data")) == data
    # a failed export touches neither file
    truncated = write(os.path.join(d, "t.st"), b"\1")
    for bad in [["--output-names", "a,b"], ["--external-data-name", "../x.bin"],
                ["--weights", truncated]]:
        write(os.path.join(d, "e.onnx"), b"MODEL")
        write(os.path.join(d, "e.onnx.data"), b"DATA")
        r = run([ir, "-o", "e.onnx", "--external-data"] + bad, cwd=d, expect=2)
        assert read(os.path.join(d, "e.onnx")) == b"MODEL", r
        assert read(os.path.join(d, "e.onnx.data")) == b"DATA", r
        assert_no_temps(d)
    os.remove(truncated)
    # named data file; reference mode writes no data file
    run([ir, "-o", "n.onnx", "--external-data", "--external-data-name", "w.bin"], cwd=d, expect=0)
    run([ir, "-o", "r.onnx", "--external-data=reference"], cwd=d, expect=0)
    assert listing(d) == sorted(base + ["again", "e.onnx", "e.onnx.data", "n.onnx", "r.onnx", "w.bin"]), listing(d)
    assert read(os.path.join(d, "w.bin")) == data


# ---- determinism ----------------------------------------------------------

@test
def deterministic_output(d):
    ir = mlp(d)
    cf = fixture(d, "cf", CF_IR, CF_ST)
    add = fixture(d, "add", ADD_IR)
    variants = [
        (ir, []),
        (ir, ["--dynamic-axes", "0:0=batch"]),
        (ir, ["--input-names", "input", "--output-names", "logits"]),
        (ir, ["--keep-initializers-as-inputs"]),
        (ir, ["--opset", "11", "--input-names", "input", "--dynamic-axes", "input:0=batch,input:1"]),
        (ir, ["--doc-string", "hello"]),
        (ir, ["--opset", "9", "--no-constant-folding", "--keep-initializers-as-inputs"]),
        (cf, []), (cf, ["--no-constant-folding"]), (cf, ["--keep-initializers-as-inputs"]),
        (add, ["--input-names", "a,b", "--output-names", "sum,relu", "--dynamic-axes", "a:0=n,b:0=n"]),
    ]
    seen = {}
    for i, (model, opts) in enumerate(variants):
        a, b = os.path.join(d, "a%d.onnx" % i), os.path.join(d, "sub%d" % i, "other_name.onnx")
        os.mkdir(os.path.dirname(b))
        r1 = run([model, "-o", a] + opts, cwd=d, expect=0)
        r2 = run(opts + ["--output", b, model], cwd=os.path.dirname(b), expect=0)
        assert r1.out == r2.out == b"" and r1.err == r2.err == "", (r1, r2)
        assert read(a) == read(b), "run twice, different bytes: %s %s" % (model, opts)
        onnx_load(a)
        seen.setdefault(read(a), []).append(i)
    # each option changes the model (else the test above proves little)
    assert len(seen) == len(variants), "variants giving the same model: %s" % [
        v for v in seen.values() if len(v) > 1]


@test
def names_and_axes_in_model(d):
    ir = mlp(d)
    out = os.path.join(d, "m.onnx")
    run([ir, "-o", out, "--input-names", "input", "--output-names", "logits",
         "--dynamic-axes", "input:0=batch"], cwd=d, expect=0)
    m = onnx_load(out)
    assert [i.name for i in m.graph.input] == ["input"]
    assert [o.name for o in m.graph.output] == ["logits"]
    dims = m.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == "batch" and dims[1].dim_value == 8
    assert m.producer_name == "onnxexp"
    # the default dim_param name
    run([ir, "-o", out, "--dynamic-axes", "0:1"], cwd=d, expect=0)
    m = onnx_load(out)
    assert m.graph.input[0].type.tensor_type.shape.dim[1].dim_param == "0_dim_1"
    # fewer names than inputs: the rest keep their IR names
    add = fixture(d, "add", ADD_IR)
    run([add, "-o", out, "--input-names", "first", "--output-names", "s"], cwd=d, expect=0)
    m = onnx_load(out)
    assert [i.name for i in m.graph.input] == ["first", "y"]
    assert [o.name for o in m.graph.output] == ["s", "r"]
    # --dynamic-axes may be repeated
    run([add, "-o", out, "--dynamic-axes", "x:0=n", "--dynamic-axes", "y:1=k"], cwd=d, expect=0)
    m = onnx_load(out)
    dx = m.graph.input[0].type.tensor_type.shape.dim
    dy = m.graph.input[1].type.tensor_type.shape.dim
    assert (dx[0].dim_param, dy[1].dim_param) == ("n", "k"), (dx, dy)


def dynamic_axis_on_output(d):
    ir = mlp(d)
    out = os.path.join(d, "m.onnx")
    run([ir, "-o", out, "--output-names", "y", "--dynamic-axes", "y:0=rows"], cwd=d, expect=0)
    m = onnx_load(out)
    dims = m.graph.output[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == "rows", "output dims: %s" % dims


@test
def keep_initializers_as_inputs_in_model(d):
    ir = mlp(d)
    out = os.path.join(d, "m.onnx")
    run([ir, "-o", out, "--keep-initializers-as-inputs"], cwd=d, expect=0)
    m = onnx_load(out)
    inits = sorted(i.name for i in m.graph.initializer)
    assert inits == ["fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight"]
    assert sorted(i.name for i in m.graph.input) == sorted(["0"] + inits)
    assert m.graph.input[0].name == "0"


@test
def no_constant_folding_in_model(d):
    cf = fixture(d, "cf", CF_IR, CF_ST)
    run([cf, "-o", "f.onnx"], cwd=d, expect=0)
    run([cf, "-o", "n.onnx", "--no-constant-folding"], cwd=d, expect=0)
    f, n = onnx_load(os.path.join(d, "f.onnx")), onnx_load(os.path.join(d, "n.onnx"))
    assert "Mul" not in [x.op_type for x in f.graph.node]
    assert "Mul" in [x.op_type for x in n.graph.node]


# ---- printing -------------------------------------------------------------

@test
def plain_export_is_silent(d):
    ir = mlp(d)
    r = run([ir, "-o", "m.onnx"], cwd=d, expect=0)
    assert r.out == b"" and r.err == "", r


@test
def pretty_prints_and_writes_nothing(d):
    ir = mlp(d)
    r = run([ir, "--pretty"], cwd=d, expect=0)
    text = r.out.decode()
    assert "Gemm" in text and "fc1.weight" in text, r
    assert r.err == ""
    assert listing(d) == ["tiny_mlp.ir", "tiny_mlp.safetensors"]
    # the printed graph follows the options
    r2 = run([ir, "--pretty", "--input-names", "input", "--opset", "13"], cwd=d, expect=0)
    assert "input" in r2.out.decode() and r2.out != r.out
    # deterministic
    assert run([ir, "--pretty"], cwd=d, expect=0).out == r.out
    # -o with --pretty: still nothing written (a warning says so)
    r3 = run([ir, "--pretty", "-o", "m.onnx"], cwd=d, expect=0)
    assert r3.out == r.out
    assert listing(d) == ["tiny_mlp.ir", "tiny_mlp.safetensors"], listing(d)
    # a failed --pretty prints no graph
    u = fixture(d, "u", unary_ir("aten::frobnicate"))
    r = run([u, "--pretty"], cwd=d, expect=1)
    assert r.out == b""


@test
def verbose_prints_and_writes(d):
    ir = mlp(d)
    pretty = run([ir, "--pretty"], cwd=d, expect=0).out
    r = run([ir, "-o", "v.onnx", "--verbose"], cwd=d, expect=0)
    assert r.out == pretty, r
    run([ir, "-o", "p.onnx"], cwd=d, expect=0)
    assert read(os.path.join(d, "v.onnx")) == read(os.path.join(d, "p.onnx"))
    # a verbose run whose write fails exits 2 and leaves nothing
    r = run([ir, "-o", "nodir/v.onnx", "--verbose"], cwd=d, expect=2, stdout_ok=True)
    assert not os.path.exists(os.path.join(d, "nodir"))


# ---- --dynamic-axes, --input-names ----------------------------------------

@test
def dynamic_axes_bad_syntax(d):
    ir = mlp(d)
    for spec in ["0", "0:", ":0=b", "0:x", "0:-1", "0:1.5", "", ",", "0:0=b,", "0:0=b,,0:1",
                 "0:=b", "0:0x=b", "0:99999999999999999999=b", "0:4294967296=b",
                 "0:2147483648"]:
        r = run([ir, "-o", "x.onnx", "--dynamic-axes", spec], cwd=d)
        assert r.rc == 2, "%r: %r" % (spec, r)
        assert_in("--dynamic-axes", r)
        assert len(r.lines) == 1, r
    assert listing(d) == ["tiny_mlp.ir", "tiny_mlp.safetensors"]


@test
def dynamic_axes_unknown_name_and_range(d):
    ir = mlp(d)
    r = run([ir, "-o", "x.onnx", "--dynamic-axes", "nope:0=b"], cwd=d, expect=2)
    assert_in("'nope'", r)
    r = run([ir, "-o", "x.onnx", "--dynamic-axes", "0:2=b"], cwd=d, expect=2)
    assert_in("out of range", r)
    assert_in("2", r)
    # a weight is no input whose axes can be dynamic... the input was renamed
    r = run([ir, "-o", "x.onnx", "--input-names", "input", "--dynamic-axes", "0:0=b"], cwd=d, expect=2)
    assert_in("'0'", r)
    assert listing(d) == ["tiny_mlp.ir", "tiny_mlp.safetensors"]


@test
def too_many_names(d):
    ir = mlp(d)
    r = run([ir, "-o", "x.onnx", "--input-names", "a,b"], cwd=d, expect=2)
    assert_in("input names", r)
    r = run([ir, "-o", "x.onnx", "--output-names", "a,b,c"], cwd=d, expect=2)
    assert_in("output names", r)
    add = fixture(d, "add", ADD_IR)
    run([add, "-o", "x.onnx", "--input-names", "a,b,c"], cwd=d, expect=2)
    assert not os.path.exists(os.path.join(d, "x.onnx"))


@test
def empty_names(d):
    add = fixture(d, "add", ADD_IR)
    for flag, v in [("--input-names", ""), ("--input-names", "a,"), ("--input-names", ",b"),
                    ("--output-names", "s,,r")]:
        r = run([add, "-o", "x.onnx", flag, v], cwd=d, expect=2)
        assert_in(flag, r)
    assert not os.path.exists(os.path.join(d, "x.onnx"))


if __name__ == "__main__":
    sys.exit(main(__doc__.splitlines()[1]))
