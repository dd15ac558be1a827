#!/usr/bin/python3
"""views_quick.py: a small, fast generator of in-place writes through chains
of views (issue 17), checked against torch: each program clones (or
scales) its input into a base, takes random views of views (slices with
negative and stepped bounds, select, narrow, transpose, permute, movedim,
t, diagonal, view/reshape/flatten, unsqueeze/squeeze, detach), writes
through random ones (add_, mul_, sub_, fill_, zero_, clamp_, masked_fill_,
copy_, setitem with ints, index tensors, masks and ellipsis, augmented
setitem) in float32/float64/int64/int32, snapshots reads in between, and
returns the base, some views and the snapshots. With --script the module is
scripted and some writes sit in an `if` or a `for`.

    tests/difftest/views_quick.py ONNXEXP SEED COUNT WORKDIR [script]

Each program is exported by the CLI, run in onnxruntime (one node batch) and
compared with the torch module (the scripted one with --script). Prints
the outcome counts and the named errors by message; exits 1 on any
mismatch or crash. tests/difftest/run.py is the broader tester; this one
was the first used on functionalization (35,000 programs by hand)."""
import json, os, random, subprocess, sys, warnings, traceback
import numpy as np
import torch
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import st  # noqa: E402

CLI = sys.argv[1]
SEED = int(sys.argv[2]); COUNT = int(sys.argv[3]); WORK = sys.argv[4]
SCRIPT = len(sys.argv) > 5 and sys.argv[5] == "script"
RUN_JS = os.path.join(HERE, "..", "node", "run.js")
os.makedirs(WORK, exist_ok=True)
warnings.simplefilter("ignore")
torch.set_num_threads(1)


def view_step(r, name, t):
    nd = t.dim()
    ops = []
    if nd >= 1:
        d = r.randrange(-nd, nd)
        n = t.shape[d]
        a = r.randint(-n - 1, n + 1); b = r.choice([None, r.randint(-n - 1, n + 2)]); s = r.choice([1, 1, 2, 3])
        ops.append("%s[%s%s:%s:%s]" % (name, ":, " * (d % nd), a, "" if b is None else b, s))
        if n > 0:
            ops.append("%s.select(%d, %d)" % (name, d, r.randint(-n, n - 1)))
            st0 = r.randint(0, n - 1); ops.append("%s.narrow(%d, %d, %d)" % (name, d, st0, r.randint(0, n - st0)))
        ops.append("%s.unsqueeze(%d)" % (name, r.randint(-nd - 1, nd)))
        ops.append("%s.detach()" % name)
        ops.append("%s.view(-1)" % name)
        ops.append("%s.reshape(-1)" % name)
        ops.append("%s.flatten()" % name)
    if nd >= 2:
        d0, d1 = r.sample(range(nd), 2)
        ops.append("%s.transpose(%d, %d)" % (name, d0, d1))
        p = list(range(nd)); r.shuffle(p)
        ops.append("%s.permute(%s)" % (name, ", ".join(map(str, p))))
        ops.append("%s.diagonal(%d, %d, %d)" % (name, r.randint(-2, 2), d0, d1))
        ops.append("%s.movedim(%d, %d)" % (name, d0, d1))
    if nd == 2:
        ops.append("%s.t()" % name)
    ones = [i for i in range(nd) if t.shape[i] == 1]
    if ones:
        ops.append("%s.squeeze(%d)" % (name, r.choice(ones)))
    if nd >= 1 and t.numel() > 0 and t.shape[-1] % 2 == 0:
        ops.append("%s.view(%s)" % (name, ", ".join(map(str, list(t.shape[:-1]) + [2, t.shape[-1] // 2]))))
    if not ops:
        ops.append("%s.detach()" % name)
    return r.choice(ops)


def write_step(r, name, t, others):
    c = round(r.uniform(-3, 3), 2)
    ops = ["%s.add_(%s)" % (name, c), "%s.mul_(%s)" % (name, c), "%s.fill_(%s)" % (name, c),
           "%s.zero_()" % name, "%s.clamp_(%s, %s)" % (name, -abs(c), abs(c) + 0.1),
           "%s.masked_fill_(%s > 0, %s)" % (name, name, c), "%s[...] = %s" % (name, c),
           "%s.sub_(%s * 0.5)" % (name, name)]
    src = [o for o in others if tuple(o[1].shape) == tuple(t.shape) or o[1].dim() <= t.dim()]
    if src:
        o = r.choice(src)
        ops.append("%s.copy_(%s * 2 + 1)" % (name, o[0]))
        ops.append("%s.add_(%s)" % (name, o[0]))
    if t.dim() >= 1 and t.shape[0] > 0:
        ops.append("%s[%d] = %s" % (name, r.randint(-t.shape[0], t.shape[0] - 1), c))
        ops.append("%s[%s] = %s" % (name, "torch.tensor([%d])" % r.randint(0, t.shape[0] - 1), c))
    if t.dim() >= 2 and t.shape[1] > 0:
        ops.append("%s[:, %d:] += %s" % (name, r.randint(0, t.shape[1] - 1), c))
        ops.append("%s[:, torch.tensor([%d])] += %s" % (name, r.randint(0, t.shape[1] - 1), c))
    if t.dim() >= 1:
        ops.append("%s[%s > 0] = %s" % (name, name, c))
        ops.append("%s[..., %d] = %s" % (name, r.randint(-t.shape[-1], max(t.shape[-1] - 1, 0)) if t.shape[-1] else 0, c))
    if t.dtype.is_floating_point is False:
        c = int(c * 3)
        ops = [o.replace(str(round(c, 2)), str(c)) for o in ops]
        ops += ["%s.add_(%d)" % (name, c), "%s.mul_(%d)" % (name, c), "%s.fill_(%d)" % (name, c)]
    return r.choice(ops)


def gen(r):
    shape = [r.randint(1, 5) for _ in range(r.randint(1, 3))]
    dt = r.choice(["float32"] * 4 + ["float64", "int64", "int32"])
    x = torch.randn(*shape).mul(4).to(getattr(torch, dt))
    lines = []
    env = {"torch": torch}
    start = r.choice(["x.clone()", "x * 1.5", "x + 0"])
    lines.append("b0 = " + start)
    env["x"] = x.clone(); exec(lines[0], env)
    vars_ = ["b0"]; outs = ["b0"]; k = 0
    for step in range(r.randint(2, 10)):
        kind = r.random()
        v = r.choice(vars_)
        t = env[v]
        if kind < 0.45:
            line = "v%d = %s" % (k, view_step(r, v, t)); nv = "v%d" % k; k += 1
        elif kind < 0.85:
            line = write_step(r, v, t, [(o, env[o]) for o in vars_ if o != v]); nv = None
        else:
            line = "r%d = %s * 1" % (k, v); nv = "r%d" % k; k += 1
        try:
            exec(line, env)
        except Exception:
            continue
        lines.append(line)
        if nv:
            vars_.append(nv)
            if nv.startswith("r") or r.random() < 0.3:
                outs.append(nv)
    src = "class M(torch.nn.Module):\n    def forward(self, x):\n"
    ind = "        "
    for li, l in enumerate(lines):
        # in script mode, some writes go inside an if or a loop
        if SCRIPT and li > 0 and not l.startswith(("v", "r")) and r.random() < 0.3:
            if r.random() < 0.5:
                src += ind + "if bool(b0.sum() > 0):\n" + ind + "    " + l + "\n"
            else:
                src += ind + "for _i in range(2):\n" + ind + "    " + l + "\n"
            continue
        src += ind + l + "\n"
    src += "        return (%s,)\n" % ", ".join(outs)
    return src, (shape, dt)


def main():
    jobs = []; progs = []
    stats = {"match": 0, "error": 0, "mismatch": 0, "crash": 0, "skip": 0}
    errs = {}
    for i in range(COUNT):
        r = random.Random(SEED * 100003 + i)
        src, (shape, dt) = gen(r)
        d = os.path.join(WORK, "p%d" % i)
        os.makedirs(d, exist_ok=True)
        try:
            import importlib.util
            pf = os.path.join(d, "prog.py")
            open(pf, "w").write("import torch\n" + src)
            spec = importlib.util.spec_from_file_location("prog%d_%d" % (SEED, i), pf)
            mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
            m = mod.M()
            if SCRIPT:
                m = torch.jit.script(m)
            x = torch.randn(*shape).mul(4).to(getattr(torch, dt))
            with torch.no_grad():
                ref = m(x.clone())
            with torch.onnx.utils.exporter_context(m, torch.onnx.TrainingMode.EVAL, False):
                g, params, _, _ = torch.onnx.utils._create_jit_graph(m, (x.clone(),))
        except Exception as e:
            stats["skip"] += 1
            if os.environ.get("VF_DEBUG"): traceback.print_exc()
            continue
        consts = {}
        def walk(b):
            for n in b.nodes():
                if n.kind() == "prim::Constant" and n.hasAttribute("value") and n.kindOf("value") == "t":
                    consts["constant:" + n.output().debugName()] = st.from_torch(n.t("value"))
                if n.kind() == "prim::Constant" and n.hasAttribute("value") and n.kindOf("value") == "ival" and isinstance(n.ival("value"), list):
                    for k, t in enumerate(n.ival("value")):
                        if isinstance(t, torch.Tensor):
                            consts["constant:%s.%d" % (n.output().debugName(), k)] = st.from_torch(t)
                for bb in n.blocks():
                    walk(bb)
        walk(g)
        open(os.path.join(d, "model.ir"), "w").write(str(g))
        st.save(consts, os.path.join(d, "model.safetensors"))
        inname = list(g.inputs())[0].debugName()
        st.save({inname: st.from_torch(x)}, os.path.join(d, "in.safetensors"))
        p = subprocess.run([CLI, os.path.join(d, "model.ir"), "-o", os.path.join(d, "m.onnx"), "-q"],
                           capture_output=True, text=True)
        if p.returncode == 1:
            stats["error"] += 1
            key = p.stderr.split(": ", 3)[-1].strip()[:90]
            errs[key] = errs.get(key, 0) + 1
            continue
        if p.returncode != 0:
            stats["crash"] += 1
            print("CRASH", d, p.returncode, p.stderr[-300:])
            continue
        jobs.append({"model": os.path.join(d, "m.onnx"), "inputs": os.path.join(d, "in.safetensors"),
                     "outputs": os.path.join(d, "out.safetensors")})
        refs = ref if isinstance(ref, tuple) else (ref,)
        progs.append((d, refs))
    jp = os.path.join(WORK, "jobs.json")
    json.dump(jobs, open(jp, "w"))
    subprocess.run(["node", RUN_JS, jp], capture_output=True)
    for d, refs in progs:
        try:
            got = st.load(os.path.join(d, "out.safetensors"))
        except Exception as e:
            stats["crash"] += 1; print("ORTFAIL", d); continue
        ok = True
        for k, rt in enumerate(refs):
            gt = got.get("out%d" % k)
            rn = rt.detach().numpy()
            if gt is None or tuple(gt.shape) != tuple(rn.shape) or not np.allclose(gt, rn, rtol=1e-4, atol=1e-5, equal_nan=True):
                ok = False
        if ok:
            stats["match"] += 1
        else:
            stats["mismatch"] += 1
            print("MISMATCH", d)
    print(json.dumps(stats))
    for k, v in sorted(errs.items(), key=lambda kv: -kv[1])[:15]:
        print("%5d  %s" % (v, k))
    return 1 if stats["mismatch"] or stats["crash"] else 0


sys.exit(main())
