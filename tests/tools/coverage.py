#!/usr/bin/env python3
"""Compares onnxexp's op registry with two legacy exporters: torch 1.13's
(read from the installed torch) and PyTorch main's (the names and opsets in
tests/tools/torch_main_ops.txt, read from its symbolic_opset*.py files).

Run with /usr/bin/python3 (torch is needed):
    tests/tools/coverage.py ONNXEXP [--markdown docs/ops.md]
Prints `covered N of M` against each registry for the aten ops it maps, the
ops it maps that onnxexp does not (each with its reason from docs/ops-notes
when one is given there), and with --markdown writes the supported-ops table
generated from `onnxexp --list-ops` (op, first opset, where torch's
exporters stand, notes).

With --results (written by tests/roundtrip/roundtrip.py --results) the table
also says at which opsets each op passed a round trip, and the script lists
ops that no passing round trip exercises at their first opset, the default
opset and the last one (17 and 21 today; read from opsets.def and export.h).
"""
import argparse
import json
import glob
import os
import re
import subprocess
import sys


def dunder_name(name):
    """torch registers dunder ops with one trailing underscore dropped
    ("aten::__and_" is aten::__and__)."""
    m = re.fullmatch(r"(aten::__\w+?)_", name)
    if m and not name.endswith("__"):
        return m.group(1) + "__"
    return name


def torch_ops():
    from torch.onnx._internal import registration
    ops = {}
    for name in registration.registry.all_functions():
        group = registration.registry.get_function_group(name)
        opsets = sorted(group._functions._base.keys()) if group else []
        full = dunder_name(name)
        ops[full] = sorted(set(ops.get(full, [])) | set(opsets))
    return ops


MAIN_OPS = os.path.join(os.path.dirname(__file__), "torch_main_ops.txt")


def main_ops(path=MAIN_OPS):
    """PyTorch main's registry, kept as data: lines `NAME<TAB>OPSETS`."""
    ops = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, opsets = line.rstrip("\n").split("\t")
            full = dunder_name(name)
            ops[full] = sorted(set(ops.get(full, [])) | {int(v) for v in opsets.split(",")})
    return ops


def report(label, ref, ours, notes):
    """Prints the coverage of one registry's aten ops; returns (summary, missing)."""
    aten = sorted(n for n in ref if n.startswith("aten::"))
    missing = [n for n in aten if n not in ours]
    summary = f"covered {len(aten) - len(missing)} of {len(aten)}"
    print(f"{label}: {summary}")
    if not missing:
        print("  not covered: (none)")
    for n in missing:
        print(f"  not covered: {n} (torch opsets {','.join(map(str, ref[n]))})"
              + (f": {notes[n]}" if n in notes else ""))
    return summary, missing


def torch_column(op, old, new):
    """Where torch's exporters stand on op: from which registry it maps it."""
    if op in old:
        return "1.13"
    if op in new:
        return "main"
    return "none"


def onnxexp_ops(exe):
    out = subprocess.run([exe, "--list-ops"], check=True, capture_output=True, text=True).stdout
    ops = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            ops[parts[0]] = int(parts[1])
    return ops


def load_notes(path):
    """Notes per op kept by hand, one file per op family in docs/ops-notes/:
    lines `op<TAB>note` (for covered ops: caveats; for the rest: the reason)."""
    notes = {}
    for fn in sorted(glob.glob(os.path.join(path, "*.txt"))):
        with open(fn) as f:
            for line in f:
                if "\t" in line and not line.startswith("#"):
                    op, note = line.rstrip("\n").split("\t", 1)
                    notes[op] = note
    return notes


def opsets():
    """The supported opsets (rows of src/export/internal/core/opsets.def) and the
    default opset (export.h), so a new opset row moves the check here too."""
    src = os.path.join(os.path.dirname(__file__), "..", "..", "src", "export", "internal")
    with open(os.path.join(src, "core", "opsets.def")) as f:
        rows = [int(v) for v in re.findall(r"^OXP_OPSET\((\d+),", f.read(), re.M)]
    with open(os.path.join(src, "export.h")) as f:
        default = int(re.search(r"OXP_OPSET_DEFAULT = (\d+)", f.read()).group(1))
    return rows, default


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onnxexp")
    ap.add_argument("--markdown")
    ap.add_argument("--results", help="roundtrip.py --results JSON")
    ap.add_argument("--notes", default=os.path.join(os.path.dirname(__file__), "..", "..", "docs", "ops-notes"))
    a = ap.parse_args()
    ref = torch_ops()
    new = main_ops()
    ours = onnxexp_ops(a.onnxexp)
    notes = load_notes(a.notes)
    summary, missing = report("torch 1.13", ref, ours, notes)
    main_summary, main_missing = report("torch main", new, ours, notes)
    extra = sorted(n for n in ours if n not in ref and n not in new)
    tested = {}
    if a.results:
        with open(a.results) as f:
            for case in json.load(f):
                if case["status"] == "PASS" and not case["negative"]:
                    for op in case["ops"]:
                        tested.setdefault(op, set()).add(case["opset"])
        rows, default = opsets()
        gaps = []
        for op in sorted(ours):
            want = {v for v in (ours[op], default, rows[-1]) if v >= ours[op]}
            have = tested.get(op, set())
            if not want <= have:
                gaps.append(f"{op} (first {ours[op]}; passed at {sorted(have) or 'none'})")
        print(f"round-tripped at first opset, {default} and {rows[-1]}: {len(ours) - len(gaps)} of {len(ours)} ops")
        for g in gaps:
            print("  untested:", g)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write("# Supported ops\n\n")
            f.write("Generated by `tests/tools/coverage.py` from `onnxexp --list-ops`; "
                    "do not edit by hand (notes live in `docs/ops-notes/`).\n\n")
            f.write(f"Against torch 1.13's legacy exporter: **{summary}** aten ops; "
                    f"against PyTorch main's (`tests/tools/torch_main_ops.txt`): "
                    f"**{main_summary}** (onnxexp also maps {len(extra)} ops neither "
                    f"registry lists).\n\n")
            f.write("\"torch\" says where torch's legacy exporter stands on the op: "
                    "mapped by 1.13, only by main, or by none.\n\n")
            if tested:
                f.write("\"round trips\" lists the opsets at which some fixture using the op "
                        "passed the round trip (onnxruntime against torch) in the run that "
                        "generated this page.\n\n")
            f.write("| op | first opset | torch | round trips | notes |\n|---|---|---|---|---|\n")
            for op in sorted(ours):
                rt = ", ".join(map(str, sorted(tested.get(op, ())))) or "-"
                f.write(f"| `{op}` | {ours[op]} | {torch_column(op, ref, new)} | {rt} | "
                        f"{notes.get(op, '')} |\n")
            f.write("\n## Not covered\n\n")
            f.write("| op | torch opsets | reason |\n|---|---|---|\n")
            for op in sorted(set(missing) | set(main_missing)):
                reason = notes.get(op, "not yet mapped")
                where = ref.get(op) or new.get(op)
                tag = "" if op in ref else " (main)"
                f.write(f"| `{op}` | {', '.join(map(str, where))}{tag} | {reason} |\n")
            # ops outside torch's registries that onnxexp refuses by name
            for op in refused_ops():
                if op not in ref and op not in new and op not in ours:
                    f.write(f"| `{op}` | - | {notes.get(op, 'refused by name')} |\n")
    return 0


def refused_ops():
    """The ops src/symbolic/unsupported.def refuses with a named error."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", "src", "symbolic", "unsupported.def")
    with open(path) as f:
        return sorted(re.findall(r'^OXP_NO\("([^"]+)"', f.read(), re.M))


if __name__ == "__main__":
    sys.exit(main())
