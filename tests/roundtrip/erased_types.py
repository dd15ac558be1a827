#!/usr/bin/python3
"""Type-erased round trip: no dtype is ever guessed.

Each fixture's model.ir is rewritten as torch prints scripted graphs:
every node output and block input loses its type (`Float(2, 3, ...)`
becomes `Tensor`); only the graph inputs keep theirs. The exporter must
then either
  - export a model whose outputs have exactly the dtypes torch gave
    (meta.json "output_dtypes"), the types inferred from the inputs
    (jit_infer_types.c), or
  - fail with exit 1 and a located error (e.g. a dtype it cannot derive,
    named at its node),
and never export a model whose output dtype differs from torch's: that is
a dtype decided for a value whose dtype was unknown.

    erased_types.py --onnxexp BIN --fixtures DIR --work DIR [--opset N] [--only NAME...]
"""

import argparse
import json
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import mapping

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import st  # noqa: E402

TENSOR_TYPE = re.compile(
    r"(?<!::)\b(?:Float|Double|Half|BFloat16|Long|Int|Short|Char|Byte|Bool|ComplexFloat|ComplexDouble)"
    r"\((?:[^()]|\([^()]*\))*\)")
# A traced Python number is a 0-d Double/Long constant; a scripted one is a
# float/int constant, which promotes as a number, not as a 0-d tensor.
WRAPPED = re.compile(r"%([\w.]+) : (Double|Long)\(requires_grad=0, device=cpu\) = prim::Constant\[value=\{([-+.e0-9a-z]+)\}\]")
LOCATED = re.compile(r"^onnxexp: error: [^:\n]+:\d+:\d+: ", re.M)


def number(m, numbers):
    numbers.add("constant:" + m.group(1))
    v = m.group(3)
    if m.group(2) == "Double":
        return "%%%s : float = prim::Constant[value=%s]" % (m.group(1), v if any(c in v for c in ".en") else v + ".")
    return "%%%s : int = prim::Constant[value=%s]" % (m.group(1), v)


def erase(text, numbers):
    """Node and block types become `Tensor`; the graph header keeps its
    own, and constants theirs (torch types them from their value). The
    names of constants made numbers go into the set numbers."""
    end = text.find("):\n")
    head, body = text[:end + 3], text[end + 3:]
    lines = [WRAPPED.sub(lambda m: number(m, numbers), ln) if "= prim::Constant" in ln else TENSOR_TYPE.sub("Tensor", ln)
             for ln in body.split("\n")]
    return head + "\n".join(lines)


def outputs(path):
    """[(dtype name or "?", static shape or None)] of the model's outputs."""
    m = onnx.load(path)
    res = []
    for o in m.graph.output:
        tt = o.type.tensor_type
        et = tt.elem_type
        shape = None
        if tt.HasField("shape") and all(d.HasField("dim_value") for d in tt.shape.dim):
            shape = [d.dim_value for d in tt.shape.dim]
        res.append((str(np.dtype(mapping.TENSOR_TYPE_TO_NP_TYPE[et])) if et else "?", shape))
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxexp", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--only", nargs="+")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    names = sorted(a.only or os.listdir(a.fixtures))
    stats = {"exported": 0, "refused": 0, "skipped": 0}
    bad = []
    for name in names:
        d = os.path.join(a.fixtures, name)
        try:
            meta = json.load(open(os.path.join(d, "meta.json")))
            text = open(os.path.join(d, "model.ir")).read()
        except OSError:
            continue
        if meta.get("expect_error") or a.opset not in meta.get("opsets", [a.opset]):
            stats["skipped"] += 1
            continue
        ir = os.path.join(a.work, name + ".ir")
        out = os.path.join(a.work, name + ".onnx")
        numbers = set()
        with open(ir, "w") as f:
            f.write(erase(text, numbers))
        if os.path.exists(out):
            os.remove(out)
        cmd = [a.onnxexp, ir, "-o", out, "--opset", str(a.opset)] + meta.get("cli_args", [])
        w = os.path.join(d, "model.safetensors")
        if os.path.exists(w) and numbers:
            kept = {k: v for k, v in st.load(w).items() if k not in numbers}
            w = os.path.join(a.work, name + ".safetensors")
            st.save(kept, w)
        if os.path.exists(w):
            cmd += ["--weights", w]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode == 1 and LOCATED.search(r.stderr):
            stats["refused"] += 1
            if a.verbose:
                print("%-32s refused: %s" % (name, r.stderr.strip().splitlines()[0]))
            continue
        if r.returncode != 0:
            bad.append("%s: exit %d: %s" % (name, r.returncode, r.stderr.strip()[:300]))
            continue
        stats["exported"] += 1
        outs = outputs(out)
        got, want = [o[0] for o in outs], meta.get("output_dtypes", [])
        # inferred dims are checked too: a static output shape is torch's
        ref = st.header(os.path.join(d, "outputs.safetensors"))
        for k, (_, shape) in enumerate(outs):
            if len(outs) == len(want) and shape is not None and "out%d" % k in ref and \
                    shape != ref["out%d" % k]["shape"]:
                bad.append("%s: output %d exported with shape %s, torch gives %s"
                           % (name, k, shape, ref["out%d" % k]["shape"]))
        # "?": the exporter left the dtype to the runtime; not a guess
        if len(got) == len(want) and any(g != w and g != "?" for g, w in zip(got, want)):
            bad.append("%s: exported with output dtypes %s, torch gives %s" % (name, got, want))
        elif a.verbose:
            print("%-32s exported %s" % (name, got))
    print("erased_types: %(exported)d exported with torch's dtypes, %(refused)d refused "
          "with a located error, %(skipped)d skipped" % stats + (", %d WRONG" % len(bad) if bad else ""))
    for b in bad:
        print("FAIL " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
