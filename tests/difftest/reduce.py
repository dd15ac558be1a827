"""Reduces a failing program while it still fails the same way, and writes
the result out as a reproducer.

Steps, repeated until none helps (or the time is up): keep one output, or
drop one; from the last statement to the first, drop it (if nothing reads
it) or cut it (its outputs become new inputs holding the values it
computed, so the program stays valid); inline an `if` (either branch) or a
`for` (one iteration); drop unused inputs and weights; replace edge values
(NaN, inf, huge, tiny, extreme integers) with plain ones. A candidate
counts only if torch still runs it (guards included) and the chosen form
still fails with the same signature: (outcome, form, kind).
"""

import json
import os
import shutil
import time

import torch

from program import GuardFailed, Interp, Stmt


def used_names(prog):
    read = set(prog.outputs)
    for s in prog.walk():
        read.update(s.reads())
    return read


def dce(prog):
    """Drops assignments nothing reads (writes stay: they may land in an
    alias), then unused inputs and weights."""
    changed = True
    while changed:
        changed = False
        read = used_names(prog)
        keep = []
        for s in prog.stmts:
            if s.kind == "assign" and not any(o in read for o in s.outs):
                changed = True
                continue
            keep.append(s)
        prog.stmts = keep
    read = used_names(prog)
    prog.inputs = [(n, t) for n, t in prog.inputs if n in read]
    prog.weights = [w for w in prog.weights if w[0] in read]
    return prog


def candidates(prog, snap):
    """Smaller programs, most promising first."""
    out = []
    if len(prog.outputs) > 1:
        for o in prog.outputs:
            c = prog.copy()
            c.outputs = [o]
            c.container = "single"
            out.append(c)
        for k in range(len(prog.outputs)):
            c = prog.copy()
            c.outputs = prog.outputs[:k] + prog.outputs[k + 1:]
            out.append(c)
    if prog.container != "single" and len(prog.outputs) == 1:
        c = prog.copy()
        c.container = "single"
        out.append(c)
    read = used_names(prog)
    for i in reversed(range(len(prog.stmts))):
        s = prog.stmts[i]
        if s.kind == "write" or (s.kind == "assign" and not any(o in read for o in s.outs)):
            c = prog.copy()
            del c.stmts[i]
            out.append(c)
            continue
        if s.kind in ("if", "for"):
            for blk in ([s.body, s.orelse] if s.kind == "if" else [s.body]):
                c = prog.copy()
                inl = [x.copy() for x in blk]
                if s.kind == "for":
                    inl = [Stmt("assign", [s.loopvar], "0", [], "loopvar", cost=0, exact=True)] + inl
                c.stmts[i:i + 1] = inl
                out.append(c)
            # a write inside a block: drop it
            for j, x in enumerate(s.body):
                if x.kind == "write":
                    c = prog.copy()
                    del c.stmts[i].body[j]
                    out.append(c)
        if s.kind == "assign" and len(s.outs) == 1:
            # bypass: readers of the output read one of the statement's inputs instead
            for a in dict.fromkeys(s.reads()):
                if a == s.outs[0]:
                    continue
                c = prog.copy()
                del c.stmts[i]
                rename(c, s.outs[0], a, start=i)
                out.append(c)
        have = {n for n, _ in prog.inputs} | {n for n, _, _ in prog.weights}
        if s.kind == "assign" and all(o in snap and o not in have for o in s.outs):
            c = prog.copy()
            del c.stmts[i]
            for o in s.outs:
                if o in read:
                    c.inputs.append((o, snap[o].clone()))
            out.append(c)
    for k, (n, t) in enumerate(prog.inputs):
        plain = plain_values(t)
        if plain is not None:
            c = prog.copy()
            c.inputs[k] = (n, plain)
            out.append(c)
    for k, (n, t, kind) in enumerate(prog.weights):
        c = prog.copy()
        c.weights.pop(k)
        c.inputs.append((n, t.clone()))
        out.append(c)
    return out


def rename(prog, old, new, start=0):
    """Every read of old (from statement start on, and the outputs) reads new."""
    def fix(stmts):
        for s in stmts:
            s.ins = [new if n == old else n for n in s.ins]
            fix(s.body)
            fix(s.orelse)
    fix(prog.stmts[start:])
    prog.outputs = [new if n == old else n for n in prog.outputs]


def plain_values(t):
    """t with its edge values replaced by ordinary ones, or None if it has none."""
    if t.dtype == torch.bool or t.numel() == 0:
        return None
    if t.dtype.is_floating_point:
        a = t.double()
        bad = ~torch.isfinite(a) | (a.abs() > 1e4) | ((a != 0) & (a.abs() < 1e-4)) | ((a == 0) & (torch.signbit(a)))
        if not bool(bad.any()):
            return None
        return torch.where(bad, torch.full_like(a, 0.5), a).to(t.dtype)
    info = torch.iinfo(t.dtype)
    a = t.long()
    bad = (a < -1000) | (a > 1000)
    if not bool(bad.any()):
        return None
    return torch.where(bad, torch.full_like(a, 3), a).to(t.dtype)


def reduce(prog, test, budget_s=120, log=None):
    """The smallest program found that still passes test (which says: fails
    the same way). Returns (program, tests run)."""
    t_end = time.time() + budget_s
    best = dce(prog.copy())
    if not test(best):
        best = prog.copy()
    n = 0
    progress = True
    while progress and time.time() < t_end:
        progress = False
        try:
            it = Interp(best).run()
            snap = it.snap
        except Exception:  # noqa: BLE001
            snap = {}
        for c in candidates(best, snap):
            if time.time() > t_end:
                break
            c = dce(c)
            if not c.outputs:
                continue
            try:
                Interp(c).run(snap=False)
            except (GuardFailed, Exception):  # noqa: BLE001
                continue
            n += 1
            try:
                ok = test(c)
            except Exception:  # noqa: BLE001  (a candidate the harness cannot build is no good)
                ok = False
            if ok:
                best = c
                progress = True
                if log:
                    log("  reduce: %d ops, %d inputs" % (best.n_ops(), len(best.inputs)))
                break
    return best, n


# ----------------------------------------------------------------------
# reproducers


def tensor_literal(t):
    """Python source rebuilding t exactly (NaN, inf, -0.0 included)."""
    dt = str(t.dtype).replace("torch.", "")
    flat = t.reshape(-1).tolist()

    def one(v):
        if isinstance(v, bool):
            return "True" if v else "False"
        if isinstance(v, int):
            return str(v)
        if v != v:
            return 'float("nan")'
        if v in (float("inf"), float("-inf")):
            return 'float("inf")' if v > 0 else '-float("inf")'
        return repr(v)

    body = "[" + ", ".join(one(v) for v in flat) + "]"
    return "torch.tensor(%s, dtype=torch.%s).reshape(%s)" % (body, dt, list(t.shape))


REPRO = '''#!/usr/bin/python3
"""difftest reproducer: {title}

    /usr/bin/python3 {path} [--onnxexp PATH] [--peer]

Exports M in the {form} form{dyn} with onnxexp at opset {opset}, runs it in
onnxruntime, compares with torch eager and prints the outcome; exits 1
while the bug is there. Found: {outcome}: {detail}
Beside this file: model.ir, model.safetensors and inputs.K.safetensors (what
onnxexp was given), program.json + program.safetensors (the program, which
tests/difftest/replay.py runs).
"""

import os
import sys

import torch

{source}


INPUTS = [
{inputs}]
WEIGHTS = {{
{weights}}}

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import replay

    sys.exit(replay.main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
'''


def write_repro(d, prog, form, dyn_choice, opset, outcome, detail, title, files_from=None):
    """Writes d/repro.py (the program as a module, with its values) and
    copies the exported form's model.ir, sidecar and inputs beside it."""
    os.makedirs(d, exist_ok=True)
    src = prog.source().replace("import torch\nimport torch.nn.functional as F\n", "import torch.nn.functional as F  # noqa: E402\n")
    ins = "".join("    %s,  # %s\n" % (tensor_literal(t), n) for n, t in prog.inputs)
    ws = "".join("    %r: %s,\n" % (n, tensor_literal(t)) for n, t, _ in prog.weights)
    path = os.path.join("tests", "difftest", "found", os.path.basename(d), "repro.py")
    text = REPRO.format(title=title, path=path, form=form,
                        dyn=" (dynamic axes: size %s, run again at %s)" % (dyn_choice[0], dyn_choice[1]) if dyn_choice else "",
                        opset=opset, outcome=outcome, detail=detail.replace('"""', "'''")[:300], source=src.strip(),
                        inputs=ins, weights=ws)
    with open(os.path.join(d, "repro.py"), "w") as f:
        f.write(text)
    if files_from:
        for name in os.listdir(files_from):
            if name in ("model.ir", "model.safetensors") or (name.startswith("inputs.") and name.endswith(".safetensors")):
                shutil.copy(os.path.join(files_from, name), os.path.join(d, name))
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(dict(form=form, dynamic=dyn_choice, opset=opset, outcome=outcome, detail=detail, title=title,
                       ops=prog.ops(), n_ops=prog.n_ops()), f, indent=1, sort_keys=True)
        f.write("\n")
