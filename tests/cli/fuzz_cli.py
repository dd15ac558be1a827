#!/usr/bin/env python3
"""onnxexp bad-input robustness: mutated IR, safetensors and flags.

  fuzz_cli.py --onnxexp BUILD/src/cli/onnxexp --work DIR [--valgrind PATH --limit N]
              [--seed S] [--cases N] [--keep-failing]

Generates a few hundred inputs deterministically (random.Random(seed)) from
good seeds (examples/tiny_mlp, tests/data/ir/*.ir, hand-written graphs) by
truncation, deletion, insertion of syntax tokens, extreme numbers, swapped,
duplicated and dropped lines, swapped op names and value names, byte flips;
safetensors headers with wrong lengths, dtypes, shapes and offsets; random
flag values. Every case must:

  * exit 0, 1 or 2 (no crash, no signal, no hang), stderr lines prefixed
    "onnxexp: error: " / "onnxexp: warning: " (clilib.run checks);
  * on failure leave no output file and no temporary file;
  * on success leave a model that onnx loads and checks;
  * when the error names a position in the IR, the position is in the file.

With --valgrind every run is under memcheck (--limit picks that many cases,
spread over the whole set, the seeds first). The default seed and size pass;
bigger runs (--cases 2000 --seed N) also reach the crashes that
test_cli.py's known_bug tests pin down (unpack without input, pool stride 0).
"""

import json
import os
import shutil
import random
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clilib  # noqa: E402
from clilib import (ADD_IR, CF_IR, CF_ST, EXAMPLES, RELU_IR, SRC, error_line, listing,  # noqa: E402
                    read, run, write)

TOKENS = ["(", ")", "[", "]", "{", "}", ",", ":", "%", "=", "#", '"', "<Tensor>", "-", "inf",
          "nan", "-inf", "\n", " ", "\t", "\0", "\xff", "\\", "99999999999999999999", "-1", "0",
          "1e308", "aten::", "prim::Constant", "prim::Constant[value=<Tensor>]()",
          "block0():", "-> ()", "Float(", "Float(*, 3)", "int[]", "Tensor?", "(int, int)",
          ", scope: a/b", " # f.py:1:0", "%", "%x.1", "[value=[1, 2]]", "[value=\"s\"]",
          "= prim::Print(%x)", "\n  %q : Tensor = aten::relu(%q)\n", "\r\n", "é", "\U0001F600"]
NUMBERS = ["0", "-1", "1", "2147483648", "-2147483649", "99999999999999999999", "1e308",
           "9223372036854775807", "65536", "3", "-0"]
OPS = ["aten::relu", "aten::add", "aten::linear", "aten::reshape", "aten::view", "aten::cat",
       "aten::size", "aten::matmul", "aten::transpose", "aten::softmax", "aten::conv2d",
       "aten::slice", "aten::select", "aten::unsqueeze", "aten::mean", "aten::max_pool2d",
       "aten::batch_norm", "aten::layer_norm", "prim::ListConstruct", "prim::ListUnpack",
       "prim::TupleConstruct", "prim::TupleUnpack", "prim::Constant", "prim::If", "prim::Loop",
       "aten::frobnicate", "prim::GetAttr", "aten::Int", "aten::embedding", "aten::index"]
DTYPES = ["F16", "BF16", "F64", "F32", "I64", "I32", "I8", "U8", "BOOL", "F8_E4M3", "X", "", 7, None]


def seeds():
    """(name, ir text, safetensors bytes or None)."""
    out = [("tiny_mlp", read(os.path.join(EXAMPLES, "tiny_mlp.ir")).decode(),
            read(os.path.join(EXAMPLES, "tiny_mlp.safetensors"))),
           ("relu", RELU_IR, None), ("add", ADD_IR, None), ("cf", CF_IR, CF_ST)]
    d = os.path.join(SRC, "tests", "data", "ir")
    for n in sorted(os.listdir(d)):
        if n.endswith(".ir"):
            out.append((n[:-3], read(os.path.join(d, n)).decode(), None))
    return out


# ---- IR mutations ---------------------------------------------------------

def m_truncate(rng, b):
    return b[:rng.randrange(len(b) + 1)]


def m_delete(rng, b):
    i = rng.randrange(len(b) + 1)
    return b[:i] + b[i + rng.randint(1, 20):]


def m_insert(rng, b):
    i = rng.randrange(len(b) + 1)
    return b[:i] + rng.choice(TOKENS).encode("utf-8", "surrogatepass") + b[i:]


def m_number(rng, b):
    ms = list(re.finditer(rb"\d+", b))
    if not ms:
        return m_insert(rng, b)
    m = rng.choice(ms)
    return b[:m.start()] + rng.choice(NUMBERS).encode() + b[m.end():]


def m_lines(rng, b):
    ls = b.split(b"\n")
    if len(ls) < 3:
        return m_delete(rng, b)
    i, j = rng.randrange(len(ls)), rng.randrange(len(ls))
    k = rng.randrange(3)
    if k == 0:
        ls[i], ls[j] = ls[j], ls[i]
    elif k == 1:
        ls.insert(j, ls[i])
    else:
        del ls[i]
    return b"\n".join(ls)


def m_flip(rng, b):
    if not b:
        return b"\xff"
    i = rng.randrange(len(b))
    return b[:i] + bytes([b[i] ^ (1 << rng.randrange(8))]) + b[i + 1:]


def m_value(rng, b):
    names = sorted(set(re.findall(rb"%[\w.]+", b)))
    if len(names) < 2:
        return m_insert(rng, b)
    ms = list(re.finditer(rb"%[\w.]+", b))
    m = rng.choice(ms)
    return b[:m.start()] + rng.choice(names) + b[m.end():]


def m_op(rng, b):
    ms = list(re.finditer(rb"\b(aten|prim)::\w+", b))
    if not ms:
        return m_insert(rng, b)
    m = rng.choice(ms)
    return b[:m.start()] + rng.choice(OPS).encode() + b[m.end():]


def m_type(rng, b):
    ms = list(re.finditer(rb": (Float\([^)]*\)|Tensor|int|float|bool|str|int\[\]|Long\([^)]*\))", b))
    if not ms:
        return m_insert(rng, b)
    m = rng.choice(ms)
    t = rng.choice([b"Tensor", b"int", b"float", b"bool", b"str", b"int[]", b"Tensor[]",
                    b"NoneType", b"Tensor?", b"Device", b"(int, Tensor)", b"Float(*, *)",
                    b"Long(2, strides=[1], requires_grad=0, device=cpu)", b"Float()",
                    b"Double(2, 3, strides=[3, 1], requires_grad=0, device=cpu)",
                    b"Float(0, 3, strides=[3, 1], requires_grad=0, device=cpu)", b"__torch__.Foo"])
    return b[:m.start()] + b": " + t + b[m.end():]


IR_MUTATIONS = [m_truncate, m_delete, m_insert, m_number, m_lines, m_flip, m_value, m_op, m_type]


# ---- safetensors mutations ------------------------------------------------

def st_split(b):
    (n,) = struct.unpack("<Q", b[:8])
    return json.loads(b[8:8 + n]), b[8 + n:]


def st_join(hdr, data, raw=None):
    h = raw if raw is not None else json.dumps(hdr, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    return struct.pack("<Q", len(h)) + h + data


def s_truncate(rng, b):
    return b[:rng.randrange(len(b))]


def s_hlen(rng, b):
    (n,) = struct.unpack("<Q", b[:8])
    v = rng.choice([0, 1, n - 1, n + 1, n + 8, n - 8, len(b), len(b) - 7, 2**32, 2**63, 2**64 - 1])
    return struct.pack("<Q", max(0, min(v, 2**64 - 1))) + b[8:]


def s_flip_header(rng, b):
    (n,) = struct.unpack("<Q", b[:8])
    i = 8 + rng.randrange(max(1, n))
    return b[:i] + bytes([b[i] ^ (1 << rng.randrange(8))]) + b[i + 1:] if i < len(b) else b


def s_field(rng, b):
    hdr, data = st_split(b)
    keys = [k for k in hdr if k != "__metadata__"]
    k = rng.choice(keys)
    e = hdr[k]
    what = rng.randrange(7)
    if what == 0:
        e["dtype"] = rng.choice(DTYPES)
    elif what == 1:
        e["shape"] = rng.choice([[], [0], [-1], [2**40], [2**62, 2**62], [1] * 40, [4, 4],
                                 "x", None, [1.5], [len(data)]])
    elif what == 2:
        a, z = e["data_offsets"]
        e["data_offsets"] = rng.choice([[z, a], [a, z + 1], [a - 1, z], [-1, z], [0, 2**63],
                                        [a, a], [0, len(data)], [a], [a, z, 0], "x",
                                        [2**64 - 4, 2**64 + 4], [a + 0.5, z]])
    elif what == 3:
        del e[rng.choice(["dtype", "shape", "data_offsets"])]
    elif what == 4:
        hdr["__metadata__"] = rng.choice([{"format": "pt"}, {"k": 1}, [1], "x", None])
    elif what == 5:
        hdr[rng.choice(["", "\u00e9", "a" * 300, k + "\0", "constant:1"])] = dict(e)
    else:
        hdr[k] = rng.choice([None, 1, "x", [], {}])
    try:
        return st_join(hdr, data)
    except (TypeError, ValueError):
        return b


def s_raw_header(rng, b):
    hdr, data = st_split(b)
    raw = json.dumps(hdr, separators=(",", ":")).encode()
    choice = rng.randrange(5)
    if choice == 0:   # duplicate key
        k = next(iter(hdr))
        raw = raw[:-1] + b"," + json.dumps({k: hdr[k]})[1:-1].encode() + b"}"
    elif choice == 1:
        raw = raw[:rng.randrange(len(raw))]
    elif choice == 2:
        raw = raw.replace(b"[", b"[-", 1)
    elif choice == 3:
        raw = b"{" + b'"a":' * 0 + b"[" * 5000 + b"]" * 5000 + b"}"
    else:
        raw = raw + b"\0\0\0"
    return st_join(None, data, raw)


def s_append(rng, b):
    return b + bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))


ST_MUTATIONS = [s_truncate, s_hlen, s_flip_header, s_field, s_field, s_raw_header, s_append]

# ---- flags ----------------------------------------------------------------

FLAG_VALUES = {
    "--dynamic-axes": ["0:0", "0:0=b", "x:0=n,y:1=m", "0:1=a,0:1=b", "0:0=b=c", "::0=x", "0:0=%",
                       "a:b:0=c", "0:0=" + "n" * 300, "0:9=x", "y:0", "r:0=q", "z:1=w"],
    "--input-names": ["a", "a,b", "a,a", "fc1.weight", "x,x", "0", "%x", "a,b,c,d", "é,ü"],
    "--output-names": ["o", "o,p", "0", "x", "o,o", "fc1.bias"],
    "--opset": ["9", "10", "11", "13", "16", "17"],
    "--training": ["eval", "train", "preserve"],
    "--operator-export-type": ["onnx", "onnx_aten", "onnx_aten_fallback", "onnx_fallthrough"],
    "--custom-opset": ["a=1", "aten=2", "=3", "b.c=99"],
    "--doc-string": ["", "doc", "x" * 2000],
}
BOOL_FLAGS = ["--no-constant-folding", "--keep-initializers-as-inputs", "--no-export-params",
              "--strip-doc-string", "-q", "--verbose"]


def cases(rng, n_ir, n_st, n_flags):
    """[(label, ir bytes, st bytes or None, extra args)] deterministic in rng."""
    ss = seeds()
    out = [("seed %s" % name, ir.encode(), st, []) for name, ir, st in ss]
    for i in range(n_ir):
        name, ir, st = ss[i % len(ss)]
        b = ir.encode()
        ms = [rng.choice(IR_MUTATIONS) for _ in range(rng.choice([1, 1, 2, 3]))]
        for m in ms:
            b = m(rng, b)
        out.append(("ir %s %s" % (name, "+".join(m.__name__ for m in ms)), b, st, []))
    with_st = [s for s in ss if s[2] is not None]
    for i in range(n_st):
        name, ir, st = with_st[i % len(with_st)]
        b = st
        ms = [rng.choice(ST_MUTATIONS) for _ in range(rng.choice([1, 1, 2]))]
        for m in ms:
            try:
                b = m(rng, b)
            except (ValueError, KeyError, TypeError, AttributeError, IndexError, struct.error):
                pass  # an earlier mutation broke what this one edits
        out.append(("st %s %s" % (name, "+".join(m.__name__ for m in ms)), ir.encode(), b, []))
    for i in range(n_flags):
        name, ir, st = ss[i % 4]
        args = []
        for f in rng.sample(sorted(FLAG_VALUES), rng.randint(1, 3)):
            args += [f, rng.choice(FLAG_VALUES[f])]
        args += rng.sample(BOOL_FLAGS, rng.randint(0, 2))
        out.append(("flags %s %s" % (name, " ".join(args)), ir.encode(), st, args))
    return out


class InvalidModel(AssertionError):
    """Exit 0 with a model onnx rejects: an exporter bug (semantic checks of
    the lowering), not a CLI one; see the known_bug tests in test_cli.py.
    Reported, and fatal only with --strict-models."""


def check_case(d, k, label, ir, st, args):
    ir_path = write(os.path.join(d, "case%d.ir" % k), ir)
    st_path = os.path.join(d, "case%d.safetensors" % k)
    if st is not None:
        write(st_path, st)
    outdir = os.path.join(d, "out")
    shutil.rmtree(outdir, ignore_errors=True)  # a failed case may have left its model
    os.makedirs(outdir)
    out = os.path.join(outdir, "m.onnx")
    r = run([ir_path, "-o", out] + args, cwd=d, stdout_ok="--verbose" in args)
    assert r.rc in (0, 1, 2), "%s: exit %d: %r" % (label, r.rc, r)
    if r.rc != 0:
        assert listing(outdir) == [], "%s: failed run left %s" % (label, listing(outdir))
        msg = error_line(r)
        m = re.match(re.escape(ir_path) + r":(\d+):(\d+): ", msg)
        if m:
            nlines = ir.count(b"\n") + 1
            line, col = int(m.group(1)), int(m.group(2))
            assert 1 <= line <= nlines and col >= 1, "%s: position %d:%d outside the file (%d lines): %r" % (
                label, line, col, nlines, r)
    else:
        assert listing(outdir) == ["m.onnx"], "%s: %s" % (label, listing(outdir))
        try:
            clilib.onnx_load(out)
        except Exception as e:
            raise InvalidModel("%s: exit 0 but the model does not check: %s\n%r" % (
                label, str(e).splitlines()[0] if str(e) else type(e).__name__, r))
        os.remove(out)
    os.remove(ir_path)
    if st is not None:
        os.remove(st_path)
    return r.rc


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--onnxexp", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--valgrind", metavar="PATH")
    ap.add_argument("--limit", type=int, default=0, help="run only N cases, spread evenly")
    ap.add_argument("--seed", type=int, default=20240)
    ap.add_argument("--cases", type=int, default=300, help="mutated IR cases (plus half as many "
                    "safetensors and a sixth as many flag cases)")
    ap.add_argument("--keep-failing", action="store_true", help="keep the inputs of failing cases")
    ap.add_argument("--strict-models", action="store_true",
                    help="an exit-0 model that onnx rejects fails the run (default: reported)")
    a = ap.parse_args()
    clilib.ONNXEXP = os.path.abspath(a.onnxexp)
    if a.valgrind:
        clilib.WRAPPER = [a.valgrind] + clilib.VALGRIND_FLAGS
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rng = random.Random(a.seed)
    cs = cases(rng, a.cases, a.cases // 2, a.cases // 6)
    nseeds = len(seeds())
    if a.limit and a.limit < len(cs):
        rest = cs[nseeds:]
        step = len(rest) / max(1, a.limit - nseeds)
        cs = cs[:nseeds] + [rest[int(i * step)] for i in range(max(0, a.limit - nseeds))]
    import collections
    tally = collections.Counter()
    failures, invalid = [], []
    for k, (label, ir, st, args) in enumerate(cs):
        try:
            tally[check_case(work, k, label, ir, st, args)] += 1
        except AssertionError as e:
            if isinstance(e, InvalidModel) and not a.strict_models:
                invalid.append((k, label, str(e)))
                tally["invalid"] += 1
                continue
            failures.append((k, label, str(e)))
            if a.keep_failing:
                write(os.path.join(work, "failing%d.ir" % k), ir)
                if st is not None:
                    write(os.path.join(work, "failing%d.safetensors" % k), st)
                write(os.path.join(work, "failing%d.args" % k), " ".join(args))
    for k, label, e in invalid:
        print("KNOWN case %d (%s): %s" % (k, label, e.splitlines()[0]))
    for k, label, e in failures:
        print("FAIL case %d (%s)\n  %s" % (k, label, e.replace("\n", "\n  ")))
    print("%d cases: %d exit 0, %d exit 1, %d exit 2; %d exit 0 with a model onnx rejects "
          "(known exporter bugs); %d failed" % (
              len(cs), tally[0], tally[1], tally[2], tally["invalid"], len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
