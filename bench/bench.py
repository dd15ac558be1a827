#!/usr/bin/python3
"""onnxexp against torch.onnx.export: one table, every row measured now.

    /usr/bin/python3 bench/bench.py --onnxexp BUILD/src/cli/onnxexp
        [--dir DIR] [--only encoder,chain,core,big] [--peer-timeout S] [--keep]

Generates the models (bench/models.py) into DIR (default $BENCH_DIR or
/tmp/onnxexp-bench; generation is skipped when a model is already there),
then for each row runs onnxexp and the peer (bench/peer.py: the same model
through torch.onnx.export, opset 17, default options) as child processes
and reports wall time, peak RSS (/usr/bin/time on that child),
output size (model plus external data files), and the ratios. onnxexp is
timed best of three (it is cheap); the peer once. The "python e2e" rows
(encoder, chains) run onnxexp.export in a child (bench/e2e.py) on the
model held in memory, as the peer does, and compare its time inside the
call (capture included) with the peer's; for the encoder also the
capture alone (--library: the libonnxexp.so those children load). Then it
checks the exported models in onnxruntime and prints each target of
issues 8 and 21 with whether it was met. The "core" rows (issue 22) count
onnxexp's instructions per IR line with callgrind (independent of the
machine's load), peak RSS per node, and time a 1,000,000-node graph. The 3 GB model is deleted
afterwards unless --keep.
"""

import argparse
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "tests", "tools"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import st  # noqa: E402

PY = "/usr/bin/python3"
RUN_JS = os.path.join(TOP, "tests", "node", "run.js")
MB = 1e6


class Run:
    def __init__(self, ok, wall, rss, out="", err="", cpu=None):
        self.ok, self.wall, self.rss, self.out, self.err = ok, wall, rss, out, err
        self.cpu = cpu  # user + system seconds of the child


def measured_rss(cmd, timeout=None):
    """Runs cmd: wall seconds, CPU seconds and peak RSS of cmd alone.

    The peak comes from /usr/bin/time, not from wait4 here: a child forked
    from this Python process starts with its parent's page tables, and
    Linux keeps that high-water mark across exec, so ru_maxrss would report
    at least this process's own size (hundreds of MB with torch loaded).
    /usr/bin/time is small when it forks the command."""
    fd, tpath = tempfile.mkstemp(prefix="bench_time_")
    os.close(fd)
    full = ["/usr/bin/time", "-f", "%M", "-o", tpath] + list(cmd)
    # CPU time from our own children's rusage (microseconds; time's %U is
    # in hundredths, too coarse for a 10 ms export), less what
    # /usr/bin/time itself costs.
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    # Its own process group, so a timeout kills the command too, not only
    # /usr/bin/time (the command would keep the pipes open).
    p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        os.remove(tpath)
        return Run(False, time.perf_counter() - t0, 0, "", "timed out after %ds" % timeout)
    wall = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime) - TIME_OVERHEAD[0]
    with open(tpath) as f:
        last = (f.read().strip().splitlines() or ["0"])[-1].split()
    os.remove(tpath)
    try:
        rss = int(last[0]) * 1024
    except (ValueError, IndexError):
        rss = 0
    return Run(p.returncode == 0, wall, rss, out.decode(), err.decode(), cpu)


TIME_OVERHEAD = [0.0]


def calibrate():
    """CPU seconds /usr/bin/time adds around a command that does nothing."""
    runs = [measured_rss(["/bin/true"]).cpu for _ in range(5)]
    TIME_OVERHEAD[0] = max(0.0, min(runs))


def sizes(paths):
    return sum(os.path.getsize(p) for p in paths if os.path.isfile(p))


def fmt_s(x):
    return "-" if x is None else ("%.3f s" % x if x < 10 else "%.1f s" % x)


def fmt_mb(x):
    return "-" if x is None else "%.0f MB" % (x / MB)


def ratio(a, b):
    return "-" if not a or not b else "%.1fx" % (a / b)


def settle(outputs=()):
    """Before a timed run: no old output to unlink (ext4 frees a 3 GB
    file's extents synchronously) and no dirty pages of the previous run
    whose writeback would throttle this one."""
    for f in outputs:
        if os.path.exists(f):
            os.remove(f)
    subprocess.run(["sync"])


def best_of(n, cmd, outputs=()):
    runs = []
    for _ in range(n):
        settle(outputs)
        runs.append(measured_rss(cmd))
    ok = [r for r in runs if r.ok]
    if not ok:
        return runs[0]
    b = min(ok, key=lambda r: r.wall)
    b.rss = max(r.rss for r in ok)  # the worst peak, the honest one
    b.cpu = min(r.cpu for r in ok)
    return b


# --------------------------------------------------------------------------


class Bench:
    def __init__(self, a):
        self.a = a
        self.dir = a.dir
        self.rows = []     # table rows
        self.targets = []  # (text, met: True/False/None, detail)
        self.res = {}

    def model_dir(self, name):
        return os.path.join(self.dir, name)

    def gen(self, name):
        # In a child: building a 3 GB model here would leave this process
        # (and so every later fork) gigabytes large.
        t0 = time.time()
        code = "import json, sys, models; print(json.dumps(models.gen(sys.argv[1], sys.argv[2])))"
        r = subprocess.run([PY, "-c", code, name, self.dir], cwd=HERE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise SystemExit("bench: generating %s failed: %s" % (name, r.stderr.decode()[-2000:]))
        meta = json.loads(r.stdout.decode().strip().splitlines()[-1])
        dt = time.time() - t0
        if dt > 1:
            print("bench: generated %s in %.0fs" % (name, dt), file=sys.stderr)
        return meta

    def onnxexp(self, name, out, *flags, n=3, quiet=True):
        d = self.model_dir(name)
        r = best_of(n, [self.a.onnxexp, os.path.join(d, "model.ir"), "-o", out] + (["-q"] if quiet else []) + list(flags),
                    outputs=(out, out + ".data"))
        if not r.ok:
            print("bench: onnxexp failed on %s %s: %s" % (name, " ".join(flags), r.err.strip()), file=sys.stderr)
        r.size = sizes([out, out + ".data"]) if r.ok else None
        return r

    def peer(self, name, out):
        pdir = os.path.join(self.dir, "peer_" + name)
        shutil.rmtree(pdir, ignore_errors=True)
        os.makedirs(pdir)
        path = os.path.join(pdir, os.path.basename(out))
        settle()
        r = measured_rss([PY, os.path.join(HERE, "peer.py"), name, path], timeout=self.a.peer_timeout)
        r.export_s = None
        r.size = None
        if r.ok:
            j = json.loads(r.out.strip().splitlines()[-1])
            r.export_s = j["export_s"]
            r.size = sizes([os.path.join(pdir, f) for f in os.listdir(pdir)])
            r.nfiles = len(os.listdir(pdir))
        else:
            r.reason = (r.err.strip().splitlines() or ["failed"])[-1][:100]
        r.dir, r.path = pdir, path
        return r

    def e2e(self, name, out, capture_only=False):
        """onnxexp.export from Python (bench/e2e.py) in a child: its time
        inside the call (capture included) as export_s, its process's peak
        RSS, the output's size."""
        settle([out])
        cmd = [PY, os.path.join(HERE, "e2e.py"), name, out] + (["--capture-only"] if capture_only else [])
        r = measured_rss(cmd, timeout=self.a.peer_timeout)  # $ONNXEXP_LIBRARY: main() sets it
        r.export_s, r.size = None, None
        if r.ok:
            r.export_s = json.loads(r.out.strip().splitlines()[-1])["export_s"]
            r.size = sizes([out, out + ".data"]) if not capture_only else None
        else:
            print("bench: e2e %s failed: %s" % (name, r.err.strip()[-500:]), file=sys.stderr)
        return r

    def e2e_row(self, name, peer, extra=""):
        """The end-to-end row of one model: onnxexp.export vs
        torch.onnx.export, both from the model in memory, both with capture."""
        out = os.path.join(self.dir, "e2e_" + name + ".onnx")
        ox = self.e2e(name, out)
        pt = peer.export_s if peer is not None and peer.ok else None
        ot = ox.export_s if ox.ok else None
        self.rows.append([name, "python e2e", fmt_s(ot), fmt_s(pt), ratio(pt, ot),
                          fmt_mb(ox.rss if ox.ok else None), fmt_mb(peer.rss if peer is not None and peer.ok else None),
                          fmt_mb(ox.size), fmt_mb(peer.size if peer is not None and peer.ok else None),
                          "onnxexp.export vs torch.onnx.export, same model in memory, capture in both" +
                          ("; " + extra if extra else "")])
        if os.path.exists(out):
            os.remove(out)
        return ox

    def row(self, model, case, ox, peer, extra=""):
        pt = peer.export_s if peer is not None and peer.ok else None
        self.rows.append([
            model, case, fmt_s(ox.wall if ox.ok else None),
            fmt_s(pt) if peer is not None else "",
            ratio(pt, ox.wall if ox.ok else None) if peer is not None else "",
            fmt_mb(ox.rss if ox.ok else None),
            fmt_mb(peer.rss if peer is not None and peer.ok else None) if peer is not None else "",
            fmt_mb(ox.size if ox.ok else None),
            fmt_mb(peer.size if peer is not None and peer.ok else None) if peer is not None else "",
            extra,
        ])
        if peer is not None and not peer.ok:
            self.rows[-1][3] = "fail"
            self.rows[-1][-1] = (extra + "; " if extra else "") + "peer: " + peer.reason

    def target(self, text, met, detail):
        self.targets.append((text, met, detail))

    # ---- 1: transformer encoder ------------------------------------------------

    def encoder(self):
        name = "encoder100m"
        meta = self.gen(name)
        wb = meta["weight_bytes"]
        out = os.path.join(self.dir, "ox_" + name + ".onnx")
        inl = self.onnxexp(name, out)
        ext = self.onnxexp(name, out, "--external-data")
        nof = self.onnxexp(name, out, "--no-constant-folding")
        peer = self.peer(name, name + ".onnx")
        self.row(name, "inline", inl, peer, "%.1fM params, %.0f MB weights" % (meta["params"] / 1e6, wb / MB))
        self.row(name, "--external-data", ext, None)
        self.row(name, "--no-constant-folding", nof, None, "Linear weights borrowed, not transposed")
        cap = self.e2e(name, os.path.join(self.dir, "e2e_capture.onnx"), capture_only=True)
        capture_s = cap.export_s if cap.ok else None
        e2e = self.e2e_row(name, peer, "capture alone %s (the trace both do; the rest of the peer's time, %s, "
                           "is what onnxexp replaces)" % (fmt_s(capture_s), fmt_s(peer.export_s - capture_s)
                                                           if peer.ok and capture_s else "-"))
        if peer.ok and e2e.ok:
            sp = peer.export_s / e2e.export_s
            rest = ("; without the capture both do (%s): %s vs %s, %.1fx" % (
                fmt_s(capture_s), fmt_s(e2e.export_s - capture_s), fmt_s(peer.export_s - capture_s),
                (peer.export_s - capture_s) / max(1e-9, e2e.export_s - capture_s))) if capture_s else ""
            self.target("e2e encoder: onnxexp.export >= 2x faster than torch.onnx.export", sp >= 2,
                        "%.1fx (%s vs %s)%s" % (sp, fmt_s(e2e.export_s), fmt_s(peer.export_s), rest))
            self.target("e2e encoder: peak RSS below the peer's by >= the weights", peer.rss - e2e.rss >= wb,
                        "%s vs %s (%s less; weights %s)" % (fmt_mb(e2e.rss), fmt_mb(peer.rss),
                                                           fmt_mb(peer.rss - e2e.rss), fmt_mb(wb)))
        else:
            self.target("e2e encoder: onnxexp.export >= 2x faster than torch.onnx.export", None, "peer or e2e failed")
        if peer.ok and inl.ok:
            sp = peer.export_s / inl.wall
            self.target("encoder: >= 20x faster than the peer", sp >= 20, "%.1fx (%s vs %s)" % (sp, fmt_s(inl.wall), fmt_s(peer.export_s)))
        else:
            self.target("encoder: >= 20x faster than the peer", None, "peer or onnxexp failed")
        self.target("encoder: peak RSS < 1.2 x weights inline", inl.ok and inl.rss < 1.2 * wb,
                    "%s vs %s limit" % (fmt_mb(inl.rss), fmt_mb(1.2 * wb)))
        self.target("encoder: peak RSS < 200 MB with external data", ext.ok and ext.rss < 200 * MB, fmt_mb(ext.rss))
        shutil.rmtree(peer.dir, ignore_errors=True)

    # ---- 2: chains ---------------------------------------------------------------

    def chains(self):
        per = {}
        for name in ("chain1k", "chain10k", "chain50k"):
            meta = self.gen(name)
            n = meta["aten_ops"]
            out = os.path.join(self.dir, "ox_" + name + ".onnx")
            ox = self.onnxexp(name, out)
            peer = self.peer(name, name + ".onnx") if not self.a.no_peer_chain50k or name != "chain50k" else None
            us = ox.wall / n * 1e6 if ox.ok else None
            cus = ox.cpu / n * 1e6 if ox.ok else None
            per[name] = (us, cus)
            self.row(name, "inline", ox, peer, "%d ops, %d nodes; onnxexp %.1f us/op wall, %.1f us/op CPU"
                     % (n, meta["nodes"], us or 0, cus or 0)
                     + ("; peer %.0f us/op" % (peer.export_s / n * 1e6) if peer is not None and peer.ok else ""))
            if name == "chain50k":
                if peer is not None and peer.ok and ox.ok:
                    sp = peer.export_s / ox.wall
                    self.target("chain50k: >= 100x faster than the peer", sp >= 100, "%.1fx (%s vs %s)" % (sp, fmt_s(ox.wall), fmt_s(peer.export_s)))
                elif peer is not None and not peer.ok and "timed out" in peer.err:
                    sp = self.a.peer_timeout / ox.wall
                    self.target("chain50k: >= 100x faster than the peer", sp >= 100 or None,
                                "peer did not finish in %ds: > %.0fx" % (self.a.peer_timeout, sp))
                else:
                    self.target("chain50k: >= 100x faster than the peer", None, "peer not run or failed")
            e2e = self.e2e_row(name, peer)
            if name == "chain10k":
                if peer is not None and peer.ok and e2e.ok:
                    sp = peer.export_s / e2e.export_s
                    self.target("e2e chain10k: onnxexp.export >= 100x faster than torch.onnx.export", sp >= 100,
                                "%.1fx (%s vs %s)" % (sp, fmt_s(e2e.export_s), fmt_s(peer.export_s)))
                elif peer is not None and not peer.ok and "timed out" in peer.err and e2e.ok:
                    sp = self.a.peer_timeout / e2e.export_s
                    self.target("e2e chain10k: onnxexp.export >= 100x faster than torch.onnx.export",
                                sp >= 100 or None, "peer did not finish in %ds: > %.0fx (onnxexp.export %s)"
                                % (self.a.peer_timeout, sp, fmt_s(e2e.export_s)))
                else:
                    self.target("e2e chain10k: onnxexp.export >= 100x faster than torch.onnx.export", None,
                                "peer or e2e failed")
            if peer is not None:
                shutil.rmtree(peer.dir, ignore_errors=True)
        if per.get("chain1k", (None,))[0] and per.get("chain50k", (None,))[0]:
            # CPU time decides: at 1k the wall time is mostly process start
            # and the fsync, which would flatter the ratio.
            (w1, c1), (w50, c50) = per["chain1k"], per["chain50k"]
            c10 = per.get("chain10k", (0, 0))[1]
            self.target("chain: time/op at 50k <= 1.5 x time/op at 1k (CPU)", bool(c1) and c50 / c1 <= 1.5,
                        "CPU %.1f vs %.1f us/op = %.2fx (10k: %.1f); wall %.1f vs %.1f = %.2fx"
                        % (c50, c1, c50 / c1 if c1 else 0, c10, w50, w1, w50 / w1))

    # ---- core speed (issue 22): instruction counts, memory per node ----------------

    def instructions(self, ir, out):
        """Instructions onnxexp executes on ir (callgrind): independent of the
        machine's load, unlike wall time."""
        r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                            self.a.onnxexp, ir, "-o", out, "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for line in r.stderr.decode().splitlines():
            if "Collected :" in line and r.returncode == 0:
                return int(line.split(":")[-1].strip().replace(",", ""))
        return None

    def core(self):
        if not shutil.which("valgrind"):
            self.target("core: instructions per IR line", None, "valgrind is not installed")
            return
        per_line = {}
        for name in ("chain1k", "chain10k", "chain50k"):
            self.gen(name)
            ir = os.path.join(self.model_dir(name), "model.ir")
            with open(ir, "rb") as f:
                text = f.read()
            lines = text.count(b"\n") + 1
            out = os.path.join(self.dir, "core_" + name + ".onnx")
            n = self.instructions(ir, out)
            ox = self.onnxexp(name, out)
            per_line[name] = n / lines if n else None
            # Peak RSS beyond the input text (which onnxexp maps), per IR node.
            rss_node = (ox.rss - len(text)) / (lines - 1) if ox.ok else None
            self.row(name, "core", ox, None, "%s instructions, %s per IR line (%d lines); peak RSS %s per node "
                     "beyond the %s of text" % ("{:,}".format(n) if n else "-",
                                                "{:,.0f}".format(per_line[name]) if n else "-", lines,
                                                "%.0f B" % rss_node if rss_node else "-", fmt_mb(len(text))))
            if name == "chain10k":
                self.target("core: <= 5,000 instructions per IR line on chain10k", bool(n) and per_line[name] <= 5000,
                            "{:,.0f}".format(per_line[name]) if n else "callgrind failed")
            if name == "chain50k":
                self.target("core: <= 600 B of peak RSS per IR node on chain50k", rss_node is not None and
                            rss_node <= 600, "%.0f B" % rss_node if rss_node else "onnxexp failed")
        if all(per_line.values()):
            lo, hi = min(per_line.values()), max(per_line.values())
            self.target("core: instructions per IR line within 10% from 1k to 50k", hi <= 1.1 * lo,
                        ", ".join("%s %s" % (k, "{:,.0f}".format(v)) for k, v in per_line.items()))
        # A million-node flat graph, as tests/deep generates it.
        sys.path.insert(0, os.path.join(TOP, "tests", "deep"))
        import gen_deep  # noqa: E402
        ir = os.path.join(self.dir, "chain1000000.ir")
        if not os.path.exists(ir):
            gen_deep.write("chain", 1000000, ir)
        out = os.path.join(self.dir, "core_chain1m.onnx")
        r = best_of(1, [self.a.onnxexp, ir, "-o", out, "-q"], outputs=(out,))
        r.size = sizes([out]) if r.ok else None
        self.row("chain1m", "core", r, None, "1,000,000 nodes (tests/deep/gen_deep.py)")
        self.target("core: a 1,000,000-node graph in under 2 s wall", r.ok and r.wall < 2,
                    fmt_s(r.wall) if r.ok else "onnxexp failed: " + r.err.strip()[-200:])
        for f in (out,):
            if os.path.exists(f):
                os.remove(f)

    # ---- 3: 3 GB ---------------------------------------------------------------

    def ort(self, jobs):
        jpath = os.path.join(self.dir, "jobs.json")
        with open(jpath, "w") as f:
            json.dump(jobs, f)
        r = measured_rss(["node", RUN_JS, jpath])
        res = {}
        for line in r.out.splitlines():
            try:
                j = json.loads(line)
                res[j["model"]] = j
            except ValueError:
                pass
        return res, r

    def outputs(self, path):
        with open(path, "rb") as f:
            return st.loads(f.read())["out0"]

    def big(self):
        need = 15e9
        free = shutil.disk_usage(self.dir).free
        if free < need:
            self.target("3 GB model", None, "skipped: %.0f GB free in %s, need %.0f" % (free / 1e9, self.dir, need / 1e9))
            return
        small = "wide_small"
        self.gen(small)
        sd = self.model_dir(small)
        souts = {}
        for mode, flags in (("inline", []), ("file", ["--external-data"]), ("reference", ["--external-data=reference"])):
            o = os.path.join(sd, "ox_%s.onnx" % mode)
            r = self.onnxexp(small, o, *flags, n=1)
            souts[mode] = o if r.ok else None

        name = "wide3g"
        meta = self.gen(name)
        d = self.model_dir(name)
        sidecar = os.path.join(d, "model.safetensors")
        cp_to = os.path.join(d, "copy.safetensors")
        cps = []
        for sync in (False, True):
            cmd = ["/bin/sh", "-c", 'cp "$0" "$1"' + (' && sync "$1"' if sync else ""), sidecar, cp_to]
            cps.append(best_of(3, cmd, outputs=(cp_to,)))
        os.remove(cp_to)
        self.rows.append([name, "cp sidecar", fmt_s(cps[0].wall), "", "", "", "", fmt_mb(os.path.getsize(sidecar)), "",
                          "cp + sync (durable, like onnxexp's fsync): %s" % fmt_s(cps[1].wall)])
        out_f = os.path.join(d, "ox_file.onnx")
        out_r = os.path.join(d, "ox_ref.onnx")
        f = self.onnxexp(name, out_f, "--external-data")
        r = self.onnxexp(name, out_r, "--external-data=reference")
        # no flag: past 2 GiB the writer must switch to file mode by itself
        out_a = os.path.join(d, "ox_auto.onnx")
        au = self.onnxexp(name, out_a, n=1, quiet=False)
        au_ok = au.ok and "2 GiB" in au.err and os.path.exists(out_a + ".data")
        peer = self.peer(name, name + ".onnx")
        wb = meta["weight_bytes"]
        self.row(name, "--external-data", f, peer, "%.2f GB weights; %.2fx cp, %.2fx cp+sync"
                 % (wb / 1e9, f.wall / cps[0].wall, f.wall / cps[1].wall) + (", peer wrote %d files" % peer.nfiles if peer.ok else ""))
        self.row(name, "--external-data=reference", r, None, "model file only; points into the sidecar")
        self.row(name, "(no flag)", au, None, "automatic file mode past 2 GiB: %s" % ("yes, with a note" if au_ok else "NO"))
        self.target("3 GB: --external-data within 1.5x of cp", f.ok and f.wall <= 1.5 * cps[0].wall,
                    "%s vs cp %s (%.2fx; cp+sync %s, %.2fx)" % (fmt_s(f.wall), fmt_s(cps[0].wall), f.wall / cps[0].wall,
                                                           fmt_s(cps[1].wall), f.wall / cps[1].wall))
        self.target("3 GB: --external-data peak RSS < 200 MB", f.ok and f.rss < 200 * MB, fmt_mb(f.rss))
        self.target("3 GB: reference mode < 2 s", r.ok and r.wall < 2, fmt_s(r.wall))
        if peer.ok:
            shutil.rmtree(peer.dir, ignore_errors=True)

        # onnxruntime: the small model in all three modes must agree exactly
        # (same bytes, same graph); the 3 GB ones must load and match torch.
        jobs = []
        for mode, o in souts.items():
            if o:
                jobs.append({"model": o, "inputs": os.path.join(sd, "inputs.safetensors"), "outputs": o + ".out.safetensors"})
        for o in (out_f, out_r):
            if os.path.exists(o):
                jobs.append({"model": o, "inputs": os.path.join(d, "inputs.safetensors"), "outputs": o + ".out.safetensors"})
        res, _ = self.ort(jobs)
        okall = all(res.get(j["model"], {}).get("ok") for j in jobs) and len(jobs) == 5
        detail = []
        same_small = False
        if okall:
            o = {m: self.outputs(p + ".out.safetensors") for m, p in souts.items()}
            same_small = np.array_equal(o["inline"], o["file"]) and np.array_equal(o["inline"], o["reference"])
            ref = self.outputs(os.path.join(d, "outputs.safetensors"))
            gf, gr = self.outputs(out_f + ".out.safetensors"), self.outputs(out_r + ".out.safetensors")
            same_big = np.array_equal(gf, gr)
            err = float(np.max(np.abs(gf - ref)) / (np.max(np.abs(ref)) or 1))
            close = bool(np.allclose(gf, ref, rtol=1e-3, atol=1e-4 * float(np.max(np.abs(ref)))))
            detail.append("small: inline == file == reference: %s" % same_small)
            detail.append("3 GB: file == reference: %s, vs torch max rel err %.1e" % (same_big, err))
            okall = same_small and same_big and close
        else:
            detail.append("; ".join("%s: %s" % (os.path.basename(k), v.get("error", "ok")[:80]) for k, v in res.items()) or "node failed")
        self.target("3 GB: both modes load in onnxruntime, same outputs as inline (smaller size)", okall, "; ".join(detail))
        if not self.a.keep:
            shutil.rmtree(d, ignore_errors=True)

    # ---- output ---------------------------------------------------------------

    def print(self):
        head = ["model", "case", "onnxexp", "peer", "speedup", "ox RSS", "peer RSS", "ox size", "peer size", "notes"]
        rows = [head] + self.rows
        w = [max(len(str(r[i])) for r in rows) for i in range(len(head) - 1)]
        line = lambda r: "  ".join(str(c).ljust(w[i]) if i < len(w) else str(c) for i, c in enumerate(r))  # noqa: E731
        print()
        print(line(head))
        print("  ".join("-" * x for x in w) + "  -----")
        for r in self.rows:
            print(line(r))
        print()
        print("targets (issues 8, 21 and 22):")
        for text, met, detail in self.targets:
            mark = "MET   " if met else ("MISSED" if met is False else "N/A   ")
            print("  [%s] %-66s %s" % (mark, text, detail))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxexp", required=True)
    ap.add_argument("--library", help="libonnxexp.so for the Python rows (default: beside the CLI's build)")
    ap.add_argument("--dir", default=os.environ.get("BENCH_DIR", "/tmp/onnxexp-bench"))
    ap.add_argument("--only", default="encoder,chain,core,big")
    ap.add_argument("--peer-timeout", type=int, default=900)
    ap.add_argument("--no-peer-chain50k", action="store_true", help="skip the slowest peer run")
    ap.add_argument("--keep", action="store_true", help="keep the 3 GB model afterwards")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    a.onnxexp = os.path.abspath(a.onnxexp)
    if not a.library:
        a.library = os.environ.get("ONNXEXP_LIBRARY") or os.path.join(
            os.path.dirname(os.path.dirname(a.onnxexp)), "export", "public", "libonnxexp.so")
    a.library = os.environ["ONNXEXP_LIBRARY"] = os.path.abspath(a.library)
    b = Bench(a)
    calibrate()
    parts = a.only.split(",")
    print("bench: %s, scratch %s (%.0f GB free), %d CPUs" % (
        subprocess.run([a.onnxexp, "--version"], stdout=subprocess.PIPE).stdout.decode().strip(),
        a.dir, shutil.disk_usage(a.dir).free / 1e9, os.cpu_count()), file=sys.stderr)
    if "encoder" in parts:
        b.encoder()
    if "chain" in parts:
        b.chains()
    if "core" in parts:
        b.core()
    if "big" in parts:
        b.big()
    b.print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
