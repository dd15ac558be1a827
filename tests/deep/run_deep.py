#!/usr/bin/env python3
"""deep.inputs: deep or huge IR neither overflows the stack nor goes
quadratic, and a nesting limit that is hit is a named, located error.

  run_deep.py --onnxexp BIN --work DIR [--chain N] [-k NAME,...]

The inputs are generated into DIR by gen_deep.py at run time. Runs that
prove a margin do so under a 1 MB stack (RLIMIT_STACK), an eighth of the
usual default. The limits are read from src/export/internal/core/oxp.h, where
they are defined once.
"""
import argparse
import os
import re
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_deep  # noqa: E402

OXP_H = os.path.join(HERE, "..", "..", "src", "export", "internal", "core", "oxp.h")
SMALL_STACK = 1 << 20
# protobuf's default recursion limit (100 nested messages) makes onnx and
# onnxruntime refuse models with more than 31 nested If/Loop levels.
LOADABLE_DEPTH = 31


def limits():
    text = open(OXP_H).read()
    return {k: int(v) for k, v in
            re.findall(r"\b(OXP_MAX_\w+) = (\d+)", text)}


LIMITS = limits()
BLOCKS = LIMITS["OXP_MAX_BLOCK_DEPTH"]
TYPES = LIMITS["OXP_MAX_TYPE_DEPTH"]
RANK = LIMITS["OXP_MAX_TYPE_RANK"]


class Failed(Exception):
    pass


def small_stack():
    resource.setrlimit(resource.RLIMIT_STACK, (SMALL_STACK, SMALL_STACK))


def export(args, ir, stack=True, flags=()):
    out = ir[:-3] + ".onnx"
    if os.path.exists(out):
        os.remove(out)
    t0 = time.monotonic()
    where = [] if "--pretty" in flags else ["-o", out]
    r = subprocess.run([args.onnxexp, ir, *where, "-q", *flags],
                       capture_output=True, text=True,
                       preexec_fn=small_stack if stack else None)
    r.seconds = time.monotonic() - t0
    r.out = out
    if r.returncode < 0:
        raise Failed(f"{os.path.basename(ir)}: killed by signal "
                     f"{-r.returncode}\n{r.stderr[-2000:]}")
    return r


def gen(args, kind, n, tag=""):
    path = os.path.join(args.work, f"{kind}{n}{tag}.ir")
    gen_deep.write(kind, n, path)
    return path


def expect_ok(args, ir, stack=True, flags=()):
    r = export(args, ir, stack, flags)
    written = "--pretty" in flags and r.stdout or \
        os.path.exists(r.out) and os.path.getsize(r.out)
    if r.returncode != 0 or not written:
        raise Failed(f"{os.path.basename(ir)}: exit {r.returncode}, "
                     f"expected 0\n{r.stderr[-2000:]}")
    return r


def expect_limit(args, ir, what, line, col):
    r = export(args, ir)
    want = f"{ir}:{line}:{col}: {what} (onnxexp's limit)"
    if r.returncode != 1 or want not in r.stderr:
        raise Failed(f"{os.path.basename(ir)}: exit {r.returncode}, "
                     f"expected 1 with\n  {want}\ngot\n{r.stderr[-2000:]}")
    if os.path.exists(r.out):
        raise Failed(f"{os.path.basename(ir)}: failed export left {r.out}")


def nth_block_header(ir, n):
    """Line and column of the n-th `blockK(` header (1-based)."""
    seen = 0
    with open(ir) as f:
        for lineno, text in enumerate(f, 1):
            col = text.find("block")
            if col >= 0 and re.match(r"block\d+\(", text[col:]):
                seen += 1
                if seen == n:
                    return lineno, col + 1
    raise Failed(f"{ir}: fewer than {n} block headers")


def check_onnx(path, full=True):
    import onnx
    m = onnx.load(path)
    onnx.checker.check_model(m, full_check=full)
    return m


def nesting_of(m):
    depth, g = 0, m.graph
    while True:
        sub = [a.g for n in g.node for a in n.attribute if a.HasField("g")]
        if not sub:
            return depth
        depth, g = depth + 1, sub[0]


# ---- cases ----------------------------------------------------------------


def case_blocks_loadable(args):
    """If and Loop nested as deep as protobuf readers accept: the model
    passes onnx's full check and keeps every level."""
    for kind in ("if", "loop"):
        ir = gen(args, kind, LOADABLE_DEPTH)
        expect_ok(args, ir)
        got = nesting_of(check_onnx(ir[:-3] + ".onnx"))
        if got != LOADABLE_DEPTH:
            raise Failed(f"{kind}: {got} nested subgraphs in the model, "
                         f"expected {LOADABLE_DEPTH}")


def case_blocks_at_limit(args):
    """Exactly the limit exports within a 1 MB stack, also printed and
    with external data (each walks the blocks its own way)."""
    for kind in ("if", "loop"):
        ir = gen(args, kind, BLOCKS)
        for flags in ((), ("--pretty",), ("--external-data",)):
            expect_ok(args, ir, flags=flags)


def case_blocks_over_limit(args):
    """One level more is the named error at the block that goes too deep,
    and so is 100,000 levels (no crash in a 1 MB stack)."""
    for kind in ("if", "loop"):
        for n in (BLOCKS + 1, 100000):
            ir = gen(args, kind, n)
            line, col = nth_block_header(ir, BLOCKS + 1)
            expect_limit(args, ir, f"blocks nested deeper than {BLOCKS}",
                         line, col)


def find_text(ir, text):
    """Line and column of the first occurrence of text."""
    with open(ir) as f:
        for lineno, line in enumerate(f, 1):
            if text in line:
                return lineno, line.index(text) + 1
    raise Failed(f"{ir}: no line with {text!r}")


def case_types(args):
    """Tuple, list and optional types: the limit passes, one more is the
    named error at the token that goes too deep, 100,000 too."""
    what = f"type nested deeper than {TYPES}"
    ir = gen(args, "tuple", TYPES)
    expect_ok(args, ir)
    check_onnx(ir[:-3] + ".onnx")
    for kind in ("tuple_type", "list", "optional"):
        expect_ok(args, gen(args, kind, TYPES))
        for n in (TYPES + 1, 100000):
            ir = gen(args, kind, n)
            if kind == "tuple_type":
                # the first element of the (TYPES + 1)-th tuple, which
                # sits inside TYPES + 1 tuples
                line, col = find_text(ir, "(Tensor, ")
                col += len("(Tensor, ") * TYPES + 1
            else:
                token = "[]" if kind == "list" else "?"
                base = "int" if kind == "list" else "Tensor"
                line, col = find_text(ir, base + token)
                col += len(base) + len(token) * TYPES
            expect_limit(args, ir, what, line, col)


def case_rank(args):
    """A tensor type of the limit's rank exports; one size more is the
    named error at that size."""
    ir = gen(args, "rank", RANK)
    expect_ok(args, ir)
    check_onnx(ir[:-3] + ".onnx")
    ir = gen(args, "rank", RANK + 1)
    line, col = find_text(ir, "Float(")
    expect_limit(args, ir, f"tensor rank above {RANK}", line,
                 col + len("Float(") + len("1, ") * RANK)


def case_long_tokens(args):
    """A 10 MB value name and an attribute nested 1,000,000 brackets deep
    are plain text to the parser: no recursion, no limit."""
    expect_ok(args, gen(args, "name", 10_000_000))
    expect_ok(args, gen(args, "attr", 1_000_000))


def case_chain(args):
    """A flat graph of --chain nodes exports (no per-node recursion: a
    1 MB stack), and so do 100,000 no-op Reshapes, which the exporter
    removes one replace at a time (quadratic once; would time out)."""
    r = expect_ok(args, gen(args, "chain", args.chain))
    print(f"    chain of {args.chain} nodes: {r.seconds:.1f} s")
    r = expect_ok(args, gen(args, "noop_chain", 100000))
    print(f"    100000 no-op reshapes: {r.seconds:.1f} s")
    m = check_onnx(r.out, full=False)
    if any(n.op_type == "Reshape" for n in m.graph.node):
        raise Failed("a no-op Reshape is left in the model")


CASES = [(name[5:], fn) for name, fn in sorted(globals().items())
         if name.startswith("case_")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxexp", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--chain", type=int, default=1_000_000,
                    help="nodes of the flat chain")
    ap.add_argument("-k", help="comma-separated case names")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    only = set(args.k.split(",")) if args.k else None
    failed = 0
    for name, fn in CASES:
        if only and name not in only:
            continue
        t0 = time.monotonic()
        try:
            fn(args)
            print(f"ok   {name} ({time.monotonic() - t0:.1f} s)")
        except Failed as e:
            failed += 1
            print(f"FAIL {name}: {e}")
    for f in os.listdir(args.work):
        os.remove(os.path.join(args.work, f))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
