#!/usr/bin/python3
"""Differential tester: random PyTorch programs, exported by onnxexp and by
torch.onnx.export, run in onnxruntime, compared with torch eager.

    /usr/bin/python3 tests/difftest/run.py [--seconds N] [--count N] [--seed S]
        [--mode ops|views|all] [--onnxexp PATH] [--work DIR] [--no-peer]

Runs programs seed S, index 0, 1, 2, ... until --count programs or
--seconds have passed (program k of seed S is always the same program:
`--seed S --only K` re-runs it), then prints the outcome tables (per
outcome, per form, per op, named errors per construct; onnxexp beside the
peer) and reduces every onnxexp bug (mismatch or crash) to a reproducer in
--found. Exit status 1 if onnxexp had a bug, 0 if not, 2 on bad usage.
See README.md.
"""

import argparse
import collections
import json
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")  # torch.jit.script's warnings about list types

import numpy as np  # noqa: E402
import torch  # noqa: E402

import gen_ops  # noqa: E402
import gen_views  # noqa: E402
import harness  # noqa: E402
import known  # noqa: E402
import reduce as reducer  # noqa: E402
from gen import Reject  # noqa: E402
from program import save_program  # noqa: E402

TOP = os.path.dirname(os.path.dirname(HERE))
MODES = {"ops": 0, "views": 1}
RANK = ["crash", "mismatch", "invalid", "ort-error", "error", "ort-unsupported", "match", "n/a"]
FORMS = ("trace", "script", "dynamic")


def default_cli():
    for p in ("build/src/cli/onnxexp", "build/onnxexp"):
        q = os.path.join(TOP, p)
        if os.path.isfile(q):
            return q
    return "onnxexp"


def program_mode(mode, idx):
    if mode == "all":
        return "views" if idx % 2 else "ops"
    return mode


FAMILIES = [None]  # --families: the ops-mode families to draw from (default all)


def make_program(seed, idx, mode, max_ops):
    """Program idx of seed (None if the generator gave up), and its rng for
    the forms (dynamic sizes)."""
    m = program_mode(mode, idx)
    r = np.random.default_rng([seed, idx, MODES[m]])
    torch.manual_seed(seed * 1000003 + idx)
    try:
        prog = (gen_ops.generate(r, max_ops, FAMILIES[0]) if m == "ops" else gen_views.generate(r, max_ops))
    except Reject:
        return None, r
    return prog, r


def worst(outcomes):
    return min(outcomes, key=RANK.index) if outcomes else "n/a"


class Stats:
    def __init__(self):
        self.records = []

    def add(self, rec):
        self.records.append(rec)

    def table(self, out=sys.stdout):
        recs = self.records
        ex = ["onnxexp", "peer"]
        has_peer = any("peer" in fr for r in recs for fr in r["results"].values())
        ex = ex if has_peer else ["onnxexp"]
        w = out.write
        w("\n== programs per mode and outcome (worst over the forms) ==\n")
        modes = sorted({r["mode"] for r in recs})
        w("%-10s %-16s" % ("mode", "outcome") + "".join("%10s" % e for e in ex) + "\n")
        for m in modes + ["all"]:
            rs = [r for r in recs if m in ("all", r["mode"])]
            c = {e: collections.Counter(worst([fr[e]["outcome"] for fr in r["results"].values() if e in fr]) for r in rs) for e in ex}
            for o in RANK:
                if any(c[e][o] for e in ex):
                    w("%-10s %-16s" % (m, o) + "".join("%10d" % c[e][o] for e in ex) + "\n")
            w("%-10s %-16s" % (m, "total") + "".join("%10d" % len(rs) for e in ex) + "\n")
        w("\n== per form and outcome (per mode) ==\n")
        w("%-10s %-9s %-16s" % ("mode", "form", "outcome") + "".join("%10s" % e for e in ex) + "\n")
        for m in modes:
            for f in FORMS:
                c = {e: collections.Counter(r["results"][f][e]["outcome"] for r in recs if r["mode"] == m and f in r["results"] and e in r["results"][f]) for e in ex}
                for o in RANK:
                    if any(c[e][o] for e in ex):
                        w("%-10s %-9s %-16s" % (m, f, o) + "".join("%10d" % c[e][o] for e in ex) + "\n")
        w("\n== per op: programs using it (form results: match / named error / bug / other) ==\n")
        w("%-26s %7s" % ("op", "progs") + "".join("   %-27s" % (e + " m/e/bug/other") for e in ex) + "\n")
        per = collections.defaultdict(lambda: {e: collections.Counter() for e in ex})
        nprog = collections.Counter()
        for r in recs:
            for op in r["ops"]:
                nprog[op] += 1
                for fr in r["results"].values():
                    for e in ex:
                        if e not in fr:
                            continue
                        o = fr[e]["outcome"]
                        k = "m" if o == "match" else "e" if o == "error" else "bug" if o in harness.BUGS else "other" if o != "n/a" else None
                        if k:
                            per[op][e][k] += 1
        for op in sorted(per):
            w("%-26s %7d" % (op[:26], nprog[op]) + "".join(
                "   %-27s" % "/".join(str(per[op][e][k]) for k in ("m", "e", "bug", "other")) for e in ex) + "\n")
        for e in ex:
            keys = collections.Counter()
            for r in recs:
                for fr in r["results"].values():
                    if e in fr and fr[e]["outcome"] in ("error", "ort-unsupported"):
                        keys[("" if fr[e]["outcome"] == "error" else "[ort] ") + (fr[e]["key"] or "?")] += 1
            if keys:
                w("\n== %s: named errors per construct (form results) ==\n" % e)
                for k, n in keys.most_common(40):
                    w("%7d  %s\n" % (n, k))
                if len(keys) > 40:
                    w("%7s  ... %d more constructs\n" % ("", len(keys) - 40))
            na = collections.Counter()
        na = collections.Counter(fr["onnxexp"]["key"] for r in recs for fr in r["results"].values()
                                 if fr["onnxexp"]["outcome"] == "n/a")
        if na:
            w("\n== forms that did not apply ==\n")
            for k, n in na.most_common(12):
                w("%7d  %s\n" % (n, k))


def record(idx, mode, prog, items, t):
    res = {}
    for f, rs in items:
        res[f.name] = {e: {"outcome": r.outcome, "key": r.key, "detail": r.detail[:300]} for e, r in rs.items()}
        if f.choice:
            res[f.name]["choice"] = list(f.choice)
    return {"idx": idx, "mode": mode, "n_ops": prog.n_ops(), "ops": prog.ops(), "results": res, "s": round(t, 4)}


class Bugs:
    """Reduces onnxexp's bugs and writes the reproducers; a failure whose ops
    include those of a reproducer already written for the same signature is
    counted against it instead of being reduced again."""

    def __init__(self, a, session):
        self.a, self.session = a, session
        self.known = []  # (signature, frozenset of ops, dir)
        self.found = []  # (dir, signature, detail, idx)
        os.makedirs(a.found, exist_ok=True)

    def handle(self, idx, seed, mode, prog, form, res, rng_state):
        sig = harness.signature(res)
        ops = frozenset(prog.ops())
        for ksig, kops, d in self.known:
            if ksig == sig and kops <= ops:
                return d, False
        if self.a.no_reduce or (self.a.max_reduce is not None and len(self.found) >= self.a.max_reduce):
            small, n = prog, 0
        else:
            def test(c):
                items = self.session.start(c, np.random.default_rng(0), "reduce", want=(form.name,), fixed=form.choice, peer=False)
                self.session.finish([items])
                r = items[0][1]["onnxexp"]
                return r.outcome is not None and harness.signature(r) == sig
            small, n = reducer.reduce(prog, test, budget_s=self.a.reduce_seconds)
        # the reduced program's exported files, for the reproducer; a
        # reduction whose result no longer fails this way (a candidate's
        # check and this run differ: random ops, torch's RNG state) gives
        # way to the program as it was found, so a reproducer always fails
        def repro_run(p):
            items = self.session.start(p, np.random.default_rng(0), "repro", want=(form.name,), fixed=form.choice, peer=True)
            self.session.finish([items])
            return items[0][1]["onnxexp"], items[0][1].get("peer")
        r, peer = repro_run(small)
        if small is not prog and not (r.outcome is not None and harness.signature(r) == sig):
            small, n = prog, -n
            r, peer = repro_run(small)
        name = "%s-%s-%s-%d-%d" % (sig[0], form.name, "_".join(sorted(small.ops()))[:60].replace(":", "") or "none", seed, idx)
        d = os.path.join(self.a.found, name)
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(d)
        title = "%s in the %s form: %s" % (sig[0], form.name, (r.detail or res.detail)[:160])
        save_program(small, d)
        reducer.write_repro(d, small, form.name, form.choice, self.a.opset, r.outcome or res.outcome, r.detail or res.detail,
                            title, files_from=os.path.join(self.a.work, "repro", form.name))
        with open(os.path.join(d, "meta.json")) as fh:
            meta = json.load(fh)
        # reduce_tests < 0: that many tests ran but their result did not
        # fail on replay, so the program is the unreduced one
        meta.update(seed=seed, index=idx, mode=mode, reduce_tests=n, peer=peer.outcome if peer else None,
                    peer_detail=peer.detail if peer else None, original_ops=sorted(ops), original_detail=res.detail)
        with open(os.path.join(d, "meta.json"), "w") as fh:
            json.dump(meta, fh, indent=1, sort_keys=True)
            fh.write("\n")
        self.known.append((sig, frozenset(small.ops()), d))
        self.found.append((d, sig, r.detail or res.detail, idx))
        return d, True


def coverage(a):
    """The aten ops the generated programs' graphs use, against the mapped ones."""
    import subprocess
    import warnings

    from gen_fixtures import walk_nodes

    torch.set_num_threads(1)
    mapped = {line.split()[0] for line in subprocess.run([a.onnxexp, "--list-ops"], stdout=subprocess.PIPE,
                                                         text=True).stdout.splitlines() if line.strip()}
    used = collections.Counter()
    for idx in range(a.start, a.start + a.count):
        prog, _ = make_program(a.seed, idx, a.mode, a.max_ops)
        if prog is None:
            continue
        m = prog.module("cov%d" % idx)
        for mod in ("trace", "script"):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    g, _ = harness.jit_graph(m if mod == "trace" else torch.jit.script(m), prog.args())
            except Exception:  # noqa: BLE001
                continue
            for k in {n.kind() for n in walk_nodes(g)}:
                used[k] += 1
    hit = sorted(k for k in mapped if used[k])
    miss = sorted(k for k in mapped if not used[k])
    print("%d of %d mapped ops used by %d programs (seed %d, %s):" % (len(hit), len(mapped), a.count, a.seed, a.mode))
    print(" ".join(k.replace("aten::", "") for k in hit))
    print("\nnot used (%d):" % len(miss))
    print(" ".join(k.replace("aten::", "") for k in miss))
    extra = sorted(k for k in used if k not in mapped and k.startswith("aten::"))
    print("\nused but not in --list-ops (in-place forms, handled by the in-place pass): " + " ".join(extra))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--seconds", type=float, help="stop starting programs after this long")
    ap.add_argument("--count", type=int, help="run this many programs")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="first program index")
    ap.add_argument("--only", type=int, nargs="+", metavar="K", help="run just these program indices")
    ap.add_argument("--mode", choices=["ops", "views", "all"], default="all")
    ap.add_argument("--onnxexp", default=default_cli())
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--work", default=os.path.join(TOP, "build", "difftest"))
    ap.add_argument("--found", help="where reproducers go (default WORK/found)")
    ap.add_argument("--node", default=shutil.which("node") or "node")
    ap.add_argument("--no-peer", action="store_true", help="skip torch.onnx.export")
    ap.add_argument("--no-reduce", action="store_true", help="write failing programs as they are")
    ap.add_argument("--reduce-seconds", type=float, default=90, help="time for reducing one failing program")
    ap.add_argument("--max-reduce", type=int, help="reduce at most this many failures (the rest are written as they are)")
    ap.add_argument("--no-exclusions", nargs="*", metavar="ID",
                    help="also generate the constructs of these known bugs (known.py ids; none given: of all)")
    ap.add_argument("--max-ops", type=int, default=40)
    ap.add_argument("--families", help="ops mode: draw only from these families (comma-separated names of "
                                       "gen_ops.FAMILIES), e.g. to test new ones")
    ap.add_argument("--batch", type=int, default=16, help="programs per onnxruntime batch")
    ap.add_argument("--log", help="append one JSON line per program here (default WORK/results.jsonl)")
    ap.add_argument("--keep", action="store_true", help="keep every program's files in WORK")
    ap.add_argument("--summarize", nargs="+", metavar="JSONL", help="print the tables of earlier runs' logs and exit")
    ap.add_argument("--coverage", action="store_true",
                    help="generate --count programs, trace and script them, and print which aten ops of "
                         "`onnxexp --list-ops` their graphs use (no export)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each program's outcome")
    ap.add_argument("-q", "--quiet", action="store_true", help="print only the summary line and bugs")
    a = ap.parse_args(argv)

    if a.summarize:
        st_ = Stats()
        for path in a.summarize:
            with open(path) as fh:
                for line in fh:
                    if line.strip():
                        st_.add(json.loads(line))
        st_.table()
        print("\n%d programs" % len(st_.records))
        return 0
    if a.count is None and a.seconds is None and not a.only:
        a.count = 100
    if a.families:
        FAMILIES[0] = a.families.split(",")
    if a.coverage:
        return coverage(a)
    if a.no_exclusions is not None:
        if a.no_exclusions:
            bad = [i for i in a.no_exclusions if i not in {k.id for k in known.KNOWN}]
            if bad:
                ap.error("no known bug " + ", ".join(bad))
            known.KNOWN[:] = [k for k in known.KNOWN if k.id not in a.no_exclusions]
        else:
            known.ENABLED[0] = False
    a.work = os.path.abspath(a.work)
    a.found = os.path.abspath(a.found or os.path.join(a.work, "found"))
    os.makedirs(a.work, exist_ok=True)
    log = open(a.log or os.path.join(a.work, "results.jsonl"), "a")
    # a fatal signal in torch (or onnx) while stderr is silenced still leaves a trace here
    import faulthandler

    fault_log = open(os.path.join(a.work, "fatal.log"), "w")
    faulthandler.enable(file=fault_log)
    torch.set_num_threads(1)
    session = harness.Session(os.path.abspath(a.onnxexp), a.work, a.opset, a.node, peer=not a.no_peer)
    stats = Stats()
    bugs = Bugs(a, session)
    t0 = time.time()
    gave_up = 0
    pending = []  # [(idx, mode, prog, rng, items, t)] of the batch in flight
    idx_iter = iter(a.only) if a.only else iter(range(a.start, 1 << 62))
    n_started = 0
    bug_lines = []

    def settle(batch):
        session.finish([b[4] for b in batch])
        for idx, mode, prog, rng, items, t in batch:
            rec = record(idx, mode, prog, items, t)
            stats.add(rec)
            log.write(json.dumps(rec) + "\n")
            line = None
            for f, rs in items:
                r = rs["onnxexp"]
                if r.outcome in harness.BUGS:
                    d, new = bugs.handle(idx, a.seed, mode, prog, f, r, None)
                    line = "BUG %s [%s] seed %d index %d (%s): %s -> %s%s" % (
                        r.outcome, f.name, a.seed, idx, mode, r.detail[:200], os.path.relpath(d, os.getcwd()),
                        "" if new else " (known)")
                    bug_lines.append(line)
                    print(line, flush=True)
            if a.verbose:
                print("%6d %-5s %2d ops  %s" % (idx, mode, prog.n_ops(), "  ".join(
                    "%s:%s/%s" % (f, v["onnxexp"]["outcome"], v.get("peer", {}).get("outcome", "-"))
                    for f, v in rec["results"].items())), flush=True)

        log.flush()

    while True:
        if a.count is not None and n_started >= a.count:
            break
        if a.seconds is not None and time.time() - t0 > a.seconds:
            break
        try:
            idx = next(idx_iter)
        except StopIteration:
            break
        n_started += 1
        tp = time.time()
        mode = program_mode(a.mode, idx)
        prog, rng = make_program(a.seed, idx, a.mode, a.max_ops)
        if prog is None:
            gave_up += 1
            continue
        try:
            # a slot per place in the batch: directories are reused, not made and removed per program
            # (the place in the batch, not a count of programs started: after a program the generator
            # gave up on, that count would give two programs of one batch the same directory)
            items = session.start(prog, rng, "p%d" % (idx if a.keep else len(pending)))
        except Exception as e:  # noqa: BLE001  (a harness failure on one program must not end the run)
            print("harness: seed %d index %d: %s: %s" % (a.seed, idx, type(e).__name__, harness.first_line(e)), flush=True)
            gave_up += 1
            continue
        pending.append((idx, mode, prog, rng, items, time.time() - tp))
        if len(pending) >= a.batch:
            settle(pending)
            pending = []
        if not a.quiet and n_started % 200 == 0:
            print("... %d programs, %.1f/s" % (n_started, n_started / (time.time() - t0)), flush=True)
    if pending:
        settle(pending)
    session.close()
    dt = time.time() - t0
    if not a.quiet:
        stats.table()
        if known.HITS:
            print("\n== statement runs steered around known bugs (known.py; a statement counts once per try) ==")
            for k, n in known.HITS.most_common():
                print("%7d  %s" % (n, k))
    n = len(stats.records)
    nbug = len(bug_lines)
    print("\ndifftest: seed %d, %d programs (%s) in %.1fs, %.1f programs/s; %d given up by the generator; "
          "onnxexp bugs: %d (%d reproducers in %s)" % (
              a.seed, n, a.mode, dt, n / dt if dt else 0, gave_up, nbug, len(bugs.found), a.found))
    for line in bug_lines if a.quiet else []:
        pass
    log.close()
    return 1 if nbug else 0


if __name__ == "__main__":
    sys.exit(main())
