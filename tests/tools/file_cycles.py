#!/usr/bin/env python3
"""File-level reference cycles in the exporter core, read from object files.

Each object file defines some symbols and uses others (`nm`); file A depends
on file B when A uses a symbol B defines. A strongly connected component of
more than one file is a cycle: none of its files can be read, tested or
replaced without the others. The core's passes are meant to form a DAG under
the pipeline (issue 23), so this check fails on any cycle in
src/export/internal/ except the pairs listed in ALLOWED (a parser and its
sub-parser call each other by nature of recursive descent).

src/symbolic/ is reported too but is not held to a DAG: the op table holds
the handlers' addresses and the handlers call back into the lowering engine,
which is dispatch, not a tangle. References made by the table file itself
are data, so they are left out of the graph.

usage: file_cycles.py OBJ_DIR [--all]   (OBJ_DIR: build/CMakeFiles/oxp_core.dir;
       objects map to sources under the checkout this script is in)
exit status 1 when a cycle outside ALLOWED exists in the core.
"""
import os
import subprocess
import sys

# Each entry is a set of source files (relative to src/) allowed to form one
# component, with the reason.
ALLOWED = [
    # Tensor and attribute literals appear inside node lines; each sub-parser
    # calls back into the token reader of the line parser.
    ({"export/internal/parse/parser.c", "export/internal/parse/parse_attr.c",
      "export/internal/parse/parse_tensor.c",
      "export/internal/parse/parse_type.c"}, "parser / sub-parsers"),
]
TABLE_FILES = {"symbolic/op_table.c"}


def objects(root, top):
    """(source path under src/, object path) of each object whose source
    still exists (a build tree keeps objects of removed files)."""
    for d, _, fs in os.walk(root):
        for f in fs:
            if f.endswith(".c.o"):
                p = os.path.join(d, f)
                rel = os.path.relpath(p, root)
                src = rel[:-2]
                if not os.path.exists(os.path.join(top, src)):
                    continue
                if src.startswith("src/"):
                    src = src[4:]
                yield src, p


def symbols(path):
    out = subprocess.run(["nm", "-P", path], capture_output=True, text=True,
                         check=True).stdout
    defs, uses = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            uses.add(name)
        elif kind in "TDBRCVW":
            defs.add(name)
    return defs, uses


def sccs(nodes, edges):
    """Tarjan's algorithm, iterative."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]; counter[0] += 1
                    stack.append(nxt); on.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop(); on.discard(w); comp.add(w)
                    if w == v:
                        break
                out.append(comp)
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = sys.argv[1]
    show_all = "--all" in sys.argv
    defs_of, uses_of = {}, {}
    top = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    for src, path in objects(root, top):
        defs_of[src], uses_of[src] = symbols(path)
    if not defs_of:
        print(f"file_cycles: no object files under {root}", file=sys.stderr)
        return 2
    owner = {}
    for src, ds in defs_of.items():
        for s in ds:
            owner[s] = src
    edges = {}
    for src, us in uses_of.items():
        if src in TABLE_FILES:
            continue
        edges[src] = {owner[s] for s in us if s in owner and owner[s] != src}
    bad = 0
    for comp in sorted(sccs(set(defs_of), edges), key=lambda c: sorted(c)):
        if len(comp) < 2:
            continue
        core = all(f.startswith("export/internal/") for f in comp)
        allowed = next((why for files, why in ALLOWED if comp <= files), None)
        if core and not allowed:
            bad += 1
            tag = "CYCLE"
        elif not core and not show_all:
            continue
        else:
            tag = f"allowed ({allowed})" if allowed else "symbolic"
        print(f"{tag}: {len(comp)} files")
        for f in sorted(comp):
            inner = sorted(edges.get(f, set()) & comp)
            print(f"  {f} -> {', '.join(inner)}")
    n = len(defs_of)
    print(f"file_cycles: {n} object files, {bad} core cycle(s) outside the "
          f"allowed list")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
