"""Views mode (issue 17): chains of 1-4 views from random bases, in-place
writes through them, reads of the base and of other views before and after.

A program: one or more bases (a clone of an input, the input itself so the
program mutates its argument, a fresh zeros/ones/arange tensor, a
.contiguous() or .detach() alias), views chained from them (slice with
negative and stepped bounds, select, narrow, view/reshape/flatten/unflatten/
view_as, transpose/permute/t/mT, squeeze/unsqueeze, diagonal, detach,
expand, unfold, and tensor indexing, which copies), writes through any of
them (add_, sub_, mul_, div_, fill_, zero_, copy_ with another dtype or a
broadcasting source, masked_fill_, index_put_, index_fill_, index_copy_,
scatter_, clamp_, relu_, neg_, setitem with slices, ints, index tensors
and masks, augmented setitem, `w += v`, `&=`/`|=`), and reads (clones,
arithmetic, reductions) taken between the writes. With torch.jit.script in
mind some writes sit in `for i in range(n)` loops (setitem at i) or in one
branch of an `if`.

torch decides what is valid: a write torch refuses (to an expanded view
with overlapping memory, a dtype it will not cast to) is never kept.
"""

import torch

from gen import Gen, Reject, ilist, kind_of, lit, one_dim
from gen_ops import _slice_text, cond_pre
from program import Stmt


def T(g, n):
    return g.it.env[n]


class ViewGen(Gen):
    def __init__(self, r):
        super().__init__(r, "views", special=0.0 if r.random() < 0.6 else 0.1)
        self.bases = []  # names of bases
        self.views = {}  # view name -> depth of its chain
        self.reads = []  # snapshot names

    def aliases(self):
        env = self.it.env
        return [n for n in self.bases + list(self.views) if n in env]


def new_base(g):
    r = g.r
    u = r.random()
    dt = g.rand_dtype("fffib")
    sh = g.rand_shape(lo=1, hi=4, nonempty=r.random() < 0.9)
    if u < 0.45:
        x = g.new_input(sh, dt, weight_ok=False)
        out = g.emit("{0}.clone()", [x], "clone", cost=0, exact=True)
    elif u < 0.6:
        x = g.new_input(sh, dt, weight_ok=False)
        g.pending_inputs = []  # kept: no statement needed
        return _as_base(g, x)  # the input itself: the program mutates its argument
    elif u < 0.75:
        k = str(r.choice(["zeros", "ones"]))
        out = g.emit("torch.%s(%s, dtype=torch.%s)" % (k, ilist(sh), str(dt).replace("torch.", "")), [], k, cost=0, exact=True)
    elif u < 0.85:
        n = int(r.integers(2, 25))
        out = g.emit("torch.arange(%d)%s" % (n, "" if r.random() < 0.5 else ".float()"), [], "arange", cost=0, exact=True)
    else:
        x = g.new_input(sh, dt, weight_ok=False)
        m = str(r.choice(["contiguous", "detach"]))
        out = g.emit("{0}.%s()" % m, [x], m, cost=0, exact=True)  # an alias of the input
    return _as_base(g, out[0])


def _as_base(g, n):
    g.bases.append(n)
    return n


VIEW_KINDS = ["slice", "slice", "select", "narrow", "view", "reshape", "flatten", "unflatten", "transpose", "permute",
              "t", "mT", "squeeze", "unsqueeze", "diagonal", "detach", "expand", "unfold", "index", "view_as", "alias_assign"]


def new_view(g, src=None):
    """One view of an existing base or view (chains grow to 4)."""
    r = g.r
    if src is None:
        cands = [n for n in g.aliases() if g.views.get(n, 0) < 4]
        if not cands:
            raise Reject("no base")
        src = cands[-1 - int(r.integers(0, min(3, len(cands))))] if r.random() < 0.6 else cands[int(r.integers(0, len(cands)))]
    t = T(g, src)
    nd = t.dim()
    k = str(r.choice(VIEW_KINDS))
    if k == "slice" and nd:
        s = g.emit("{0}[%s]" % _slice_text(r, t.shape), [src], "slice", cost=0, exact=True)
    elif k == "select" and nd:
        d = one_dim(r, nd)
        n = t.shape[d]
        i = int(r.integers(-n, n)) if n else 0
        s = g.emit("{0}.select(%d, %d)" % (d, i) if r.random() < 0.5 else "{0}[%s%d]" % (":, " * (d % nd), i), [src],
                   "select", cost=0, exact=True)
    elif k == "narrow" and nd:
        d = one_dim(r, nd)
        n = t.shape[d]
        st = int(r.integers(0, n + 1)) if n else 0
        s = g.emit("{0}.narrow(%d, %d, %d)" % (d, st, int(r.integers(0, n - st + 1)) if n else 0), [src], "narrow", cost=0, exact=True)
    elif k in ("view", "reshape"):
        from gen_ops import _factor

        sh = _factor(r, t.numel(), int(r.integers(1, 4))) if t.numel() else list(t.shape)
        s = g.emit("{0}.%s(%s)" % (k, ilist(sh)), [src], k, cost=0, exact=True)
    elif k == "flatten" and nd:
        s = g.emit("{0}.flatten(%d)" % int(r.integers(0, nd)), [src], "flatten", cost=0, exact=True)
    elif k == "unflatten" and nd:
        from gen_ops import _factor

        d = one_dim(r, nd)
        s = g.emit("{0}.unflatten(%d, %s)" % (d, ilist(_factor(r, t.shape[d], 2))), [src], "unflatten", cost=0, exact=True)
    elif k == "transpose" and nd:
        s = g.emit("{0}.transpose(%d, %d)" % (one_dim(r, nd), one_dim(r, nd)), [src], "transpose", cost=0, exact=True)
    elif k == "permute" and nd:
        s = g.emit("{0}.permute(%s)" % ilist([int(v) for v in r.permutation(nd)]), [src], "permute", cost=0, exact=True)
    elif k == "t" and nd <= 2:
        s = g.emit("{0}.t()", [src], "t", cost=0, exact=True)
    elif k == "mT" and nd >= 2:
        s = g.emit("{0}.transpose(-2, -1)", [src], "transpose", cost=0, exact=True)
    elif k == "squeeze":
        s = g.emit("{0}.squeeze(%d)" % one_dim(r, nd) if nd and r.random() < 0.7 else "{0}.squeeze()", [src], "squeeze",
                   cost=0, exact=True)
    elif k == "unsqueeze":
        s = g.emit("{0}.unsqueeze(%d)" % int(r.integers(-nd - 1, nd + 1)), [src], "unsqueeze", cost=0, exact=True)
    elif k == "diagonal" and nd >= 2:
        s = g.emit("{0}.diagonal(%d, %d, %d)" % (int(r.integers(-1, 2)), 0, int(r.integers(1, nd))), [src], "diagonal",
                   cost=0, exact=True)
    elif k == "detach":
        s = g.emit("{0}.detach()", [src], "detach", cost=0, exact=True)
    elif k == "expand":
        sh = [int(r.choice(g.sizes)) if d == 1 else -1 for d in t.shape]
        s = g.emit("{0}.expand(%s)" % ilist(sh), [src], "expand", cost=0, exact=True)
    elif k == "unfold" and nd:
        d = one_dim(r, nd)
        n = t.shape[d]
        s = g.emit("{0}.unfold(%d, %d, %d)" % (d, int(r.integers(1, max(2, n + 1))), int(r.integers(1, 3))), [src], "unfold",
                   cost=0, exact=True)
    elif k == "index" and nd:
        n = t.shape[0]
        idx = g.new_input([int(r.integers(1, 4))], torch.int64, lo=-n, hi=max(n, 1), weight_ok=False)
        s = g.emit("{0}[{1}]", [src, idx], "index", cost=0, exact=True)  # a copy, not a view
        g.reads.append(s[0])
        return s[0]
    elif k == "view_as":
        other = g.new_input(list(t.shape), torch.float32, weight_ok=False)
        s = g.emit("{0}.view_as({1})", [src, other], "view_as", cost=0, exact=True)
    elif k == "alias_assign":
        s = g.emit("{0}", [src], "", cost=0, exact=True)  # a second name for the same tensor
    else:
        raise Reject("view %s of rank %d" % (k, nd))
    g.views[s[0]] = g.views.get(src, 0) + 1
    return s[0]


def _src_for(g, t, same_dtype_p=0.7):
    """A value to write into t: (template text, ins): a scalar, a 0-d tensor,
    a tensor of t's shape or one broadcasting to it, maybe another dtype."""
    r = g.r
    u = r.random()
    k = kind_of(t.dtype)
    if u < 0.35:
        return lit(g.scalar(k if r.random() < 0.8 else "i")), []
    dt = t.dtype if r.random() < same_dtype_p else g.rand_dtype("fib")
    if u < 0.45:
        return None, [g.new_input([], dt, weight_ok=False)]
    if u < 0.6:
        # another alias or read of the same shape: reading while writing
        cands = [n for n in g.aliases() + g.reads if n in g.it.env and T(g, n).shape == t.shape]
        if cands:
            return None, [cands[int(r.integers(0, len(cands)))]]
    return None, [g.new_input(g.bshape(list(t.shape)), dt)]


def _idx(g, n, k, unique=True):
    """An int64 index tensor of k positions in a size-n axis (unique: a
    repeated position would make the written value depend on order)."""
    if n == 0:
        k = 0
    t = torch.from_numpy(g.r.permutation(n)[:k].copy()) if unique else torch.from_numpy(g.r.integers(0, max(n, 1), k))
    if g.r.random() < 0.3:
        t = t - n  # negative positions
    name = g.fresh("x")
    g.prog.inputs.append((name, t.long()))
    g.it.bind(name, t.long().clone(), 0, {name})
    g.exact[name] = True
    g.scope[0].append(name)
    g.pending_inputs.append(name)
    return name


def new_write(g, target=None, loopvar=None):
    r = g.r
    if target is None:
        al = g.aliases()
        if not al:
            raise Reject("nothing to write")
        target = al[-1 - int(r.integers(0, min(3, len(al))))] if r.random() < 0.6 else al[int(r.integers(0, len(al)))]
    t = T(g, target)
    nd = t.dim()
    k = kind_of(t.dtype)
    u = int(r.integers(0, 19))
    W = lambda tpl, ins, op, cost=1, exact=True, guard=None: g.emit(tpl, ins, op, cost=cost, exact=exact, guard=guard, kind="write")  # noqa: E731
    if loopvar is not None and nd:
        # setitem at the loop counter
        text, ins = _src_for(g, t.select(0, 0))
        op = str(r.choice(["=", "+=", "*="]))
        if text is not None:
            return W("{0}[{1}] %s %s" % (op, text), [target, loopvar], "setitem" if op == "=" else "setitem" + op)
        return W("{0}[{1}] %s {2}" % op, [target, loopvar] + ins, "setitem" if op == "=" else "setitem" + op)
    if u < 3:
        op = str(r.choice(["add_", "sub_", "mul_", "div_"] if k == "f" else ["add_", "sub_", "mul_"]))
        text, ins = _src_for(g, t)
        alpha = ", alpha=%s" % lit(2 if k == "i" else 0.5) if op in ("add_", "sub_") and r.random() < 0.3 else ""
        if text is not None:
            return W("{0}.%s(%s%s)" % (op, text, alpha), [target], op)
        return W("{0}.%s({1}%s)" % (op, alpha), [target] + ins, op)
    if u == 3:
        text, ins = _src_for(g, t)
        op = str(r.choice(["+=", "-=", "*="]))
        if text is not None:
            return W("{0} %s %s" % (op, text), [target], "iadd" if op == "+=" else "isub" if op == "-=" else "imul")
        return W("{0} %s {1}" % op, [target] + ins, "iadd" if op == "+=" else "isub" if op == "-=" else "imul")
    if u == 4:
        if r.random() < 0.7:
            return W("{0}.fill_(%s)" % lit(g.scalar(k)), [target], "fill_", cost=0)
        return W("{0}.fill_({1})", [target, g.new_input([], t.dtype, weight_ok=False)], "fill_", cost=0)
    if u == 5:
        return W("{0}.zero_()", [target], "zero_", cost=0)
    if u in (6, 7):
        _, ins = _src_for(g, t, same_dtype_p=0.5)
        if not ins:
            ins = [g.new_input(g.bshape(list(t.shape)), g.rand_dtype("fib"))]
        s = T(g, ins[0])
        guard = None
        if s.dtype.is_floating_point and not t.dtype.is_floating_point and t.dtype != torch.bool:
            guard = "_int_ok({1}, torch.%s)" % str(t.dtype).replace("torch.", "")
        elif not s.dtype.is_floating_point and s.dtype != torch.bool and not t.dtype.is_floating_point and t.dtype != torch.bool:
            guard = "_int_ok({1}.double(), torch.%s)" % str(t.dtype).replace("torch.", "")
        return W("{0}.copy_({1})", [target] + ins, "copy_", cost=0, guard=guard)
    if u == 8:
        m = g.new_input(g.bshape(list(t.shape)), torch.bool, weight_ok=False)
        return W("{0}.masked_fill_({1}, %s)" % lit(g.scalar(k)), [target, m], "masked_fill_", cost=0)
    if u == 9 and nd:
        n = t.shape[0]
        idx = _idx(g, n, int(r.integers(1, n + 1)) if n else 0)
        text, ins = _src_for(g, t[T(g, idx)])
        if r.random() < 0.5:
            if text is not None:
                return W("{0}[{1}] = %s" % text, [target, idx], "setitem")
            return W("{0}[{1}] = {2}", [target, idx] + ins, "setitem")
        vals = ins or [g.new_input(list(t[T(g, idx)].shape), t.dtype, weight_ok=False)]
        acc = lit(bool(r.random() < 0.3))
        return W("{0}.index_put_(({1},), {2}, accumulate=%s)" % acc, [target, idx] + vals, "index_put_")
    if u == 10:
        m = g.new_input(list(t.shape[: int(r.integers(1, nd + 1))]) if nd else [], torch.bool, weight_ok=False)
        if r.random() < 0.7:
            return W("{0}[{1}] = %s" % lit(g.scalar(k)), [target, m], "setitem")
        return W("{0}[{1}] = {2}", [target, m, g.new_input([], t.dtype, weight_ok=False)], "setitem")
    if u in (11, 12) and nd:
        sub = _slice_text(r, t.shape)
        try:
            view = eval("t[%s]" % sub)
        except (IndexError, RuntimeError):
            raise Reject("subscript")
        text, ins = _src_for(g, view)
        op = "=" if u == 11 else str(r.choice(["+=", "-=", "*="]))
        name = "setitem" if op == "=" else "setitem" + op
        if text is not None:
            return W("{0}[%s] %s %s" % (sub, op, text), [target], name)
        return W("{0}[%s] %s {1}" % (sub, op), [target] + ins, name)
    if u == 13:
        if k == "f":
            op = str(r.choice(["clamp_", "relu_", "neg_", "abs_", "sigmoid_", "exp_", "floor_"]))
        elif k == "i":
            op = str(r.choice(["clamp_", "neg_", "abs_"]))
        else:
            raise Reject("unary write on bool")
        if op == "clamp_":
            lo = g.scalar(k)
            return W("{0}.clamp_(%s, %s)" % (lit(lo), lit(lo + (2 if k == "i" else 1.5))), [target], op, cost=0)
        return W("{0}.%s()" % op, [target], op, cost=2 if op in ("sigmoid_", "exp_") else 0,
                 exact=op not in ("sigmoid_", "exp_"))
    if u == 14 and nd:
        d = one_dim(r, nd)
        n = t.shape[d]
        idx = _idx(g, n, int(r.integers(1, n + 1)) if n else 0)
        op = str(r.choice(["index_fill_", "index_copy_"]))
        if op == "index_fill_":
            return W("{0}.index_fill_(%d, {1}, %s)" % (d, lit(g.scalar(k))), [target, idx], op, cost=0)
        sh = list(t.shape)
        sh[d] = T(g, idx).numel()
        return W("{0}.index_copy_(%d, {1}, {2})" % d, [target, idx, g.new_input(sh, t.dtype, weight_ok=False)], op, cost=0)
    if u == 15 and nd:
        d = one_dim(r, nd)
        n = t.shape[d]
        sh = list(t.shape)
        sh[d] = 1
        idx = g.new_input(sh, torch.int64, lo=0, hi=max(n, 1), weight_ok=False)
        src = g.new_input(sh, t.dtype, weight_ok=False)
        return W("{0}.scatter_(%d, {1}, {2})" % d, [target, idx, src], "scatter_", cost=0)
    if u == 16 and k in "ib":
        _, ins = _src_for(g, t, same_dtype_p=1.0)
        if not ins:
            ins = [g.new_input(g.bshape(list(t.shape)), t.dtype)]
        op = str(r.choice(["&=", "|="]))
        return W("{0} %s {1}" % op, [target] + ins, "__iand__" if op == "&=" else "__ior__", cost=0)
    if u == 17 and nd and t.shape[-1] > 0:  # [..., 0] of an empty last dim does not exist
        text, ins = _src_for(g, t[..., 0])
        if text is not None:
            return W("{0}[..., 0] = %s" % text, [target], "setitem")
        return W("{0}[..., 0] = {1}", [target] + ins, "setitem")
    m = g.new_input(list(t.shape), torch.bool, weight_ok=False)
    return W("{0}.masked_scatter_({1}, {2})", [target, m, g.new_input(list(t.shape), t.dtype, weight_ok=False)],
             "masked_scatter_", cost=0)


def new_read(g):
    """A snapshot: a value computed from an alias now (later writes must not
    change it), or an output that stays an alias."""
    r = g.r
    al = g.aliases()
    if not al:
        raise Reject("nothing to read")
    g.reads = [n for n in g.reads if n in g.it.env]
    a = al[int(r.integers(0, len(al)))]
    t = T(g, a)
    u = r.random()
    if u < 0.4:
        s = g.emit("{0}.clone()", [a], "clone", cost=0, exact=True)
    elif u < 0.6 and t.dtype != torch.bool:
        tpl = "{0} * 2" if r.random() < 0.5 else "{0} + 1"
        s = g.emit(tpl, [a], "mul" if "*" in tpl else "add", cost=1, exact=True)
    elif u < 0.75 and t.dim():
        s = g.emit("{0}.sum(0)" if t.dtype != torch.bool else "{0}.any(0)", [a], "sum", cost=2)
    elif u < 0.9:
        others = [n for n in al if n != a and T(g, n).shape == t.shape]
        if not others or t.dtype == torch.bool:
            s = g.emit("{0}.clone()", [a], "clone", cost=0, exact=True)
        else:
            s = g.emit("{0} + {1}", [a, others[int(r.integers(0, len(others)))]], "add", cost=1, exact=True)
    else:
        s = g.emit("{0}.contiguous()", [a], "contiguous", cost=0, exact=True)  # may alias a contiguous base
        g.views[s[0]] = g.views.get(a, 0) + 1
        return s[0]
    g.reads.append(s[0])
    return s[0]


def loop_write(g):
    """for i in range(n): target[i] op= ... (a write per iteration, through
    a view defined outside the loop)."""
    r = g.r
    al = [n for n in g.aliases() if T(g, n).dim() >= 1 and T(g, n).shape[0] >= 1]
    if not al:
        raise Reject("no target for a loop")
    target = al[int(r.integers(0, len(al)))]
    n = T(g, target).shape[0]
    lv = "i%d" % len(g.loopvars)
    blk = []
    g.blocks.append(blk)
    g.scope.append([])
    g.loopvars.append((lv, 0))
    g.it.env[lv] = 0
    try:
        for _ in range(int(r.integers(1, 3))):
            for _ in range(6):
                try:
                    new_write(g, target if r.random() < 0.8 else None, loopvar=lv if r.random() < 0.7 else None)
                    break
                except Reject:
                    g.drop_pending()
    finally:
        g.blocks.pop()
        g.scope.pop()
        g.loopvars.pop()
        g.it.env.pop(lv, None)
    if not blk:
        g.replay()
        raise Reject("empty loop")
    cnt = str(r.choice(["{0}.size(0)", str(min(n, int(r.integers(1, 4))))]))
    s = Stmt("for", [], cnt, [target] if "{0}" in cnt else [], "prim::Loop", cost=sum(x.cost for x in blk), body=blk, loopvar=lv)
    g.add_control(s)


def if_write(g):
    """if cond: write else: another write (or nothing)."""
    r = g.r
    c = g.pick("fi", ndim=(0, 3), new_p=0.5)
    cond = str(r.choice(["bool({0}.sum() > 0)", "{0}.numel() > 3", "bool({0}.max() > 0.5)"]))
    branches = []
    for _ in range(2):
        blk = []
        g.blocks.append(blk)
        g.scope.append([])
        try:
            if not branches or r.random() < 0.7:
                for _ in range(6):
                    try:
                        new_write(g)
                        break
                    except Reject:
                        g.drop_pending()
        finally:
            g.blocks.pop()
            g.scope.pop()
        g.replay()  # the branch's writes ran straight-line: undo them
        branches.append(blk)
    if not branches[0]:
        raise Reject("empty then")
    s = Stmt("if", [], cond, [c], "prim::If", cost=max(sum(x.cost for x in b) for b in branches), body=branches[0],
             orelse=branches[1], pre=cond_pre(cond))
    g.add_control(s)


STEPS = [(new_base, 2), (new_view, 6), (new_write, 7), (new_read, 3), (loop_write, 1), (if_write, 1)]


def generate(r, max_ops=40):
    g = ViewGen(r)
    target = int(r.integers(2, 13)) if r.random() < 0.9 else int(r.integers(12, max_ops + 1))
    for _ in range(8):
        try:
            new_base(g)
            break
        except Reject:
            g.drop_pending()
    if not g.bases:
        raise Reject("no base")
    tries = 0
    steps, w = zip(*STEPS)
    p = [x / float(sum(w)) for x in w]
    while g.prog.n_ops() < target and tries < target * 10:
        tries += 1
        fn = steps[int(r.choice(len(steps), p=p))]
        try:
            fn(g)
        except (Reject, RuntimeError, ValueError, IndexError, KeyError, TypeError):
            g.drop_pending()
    if not any(s.kind in ("write", "for", "if") for s in g.prog.stmts):
        try:
            new_write(g)
        except Reject:
            g.drop_pending()
    # outputs: the reads, the bases at the end, a few views (aliases of written bases)
    outs = [n for n in g.reads if n in g.it.env][-4:]
    outs += [b for b in g.bases if b in g.it.env and r.random() < 0.8][:3]
    vs = [n for n in g.views if n in g.it.env]
    if vs:
        outs += [vs[int(k)] for k in r.choice(len(vs), size=min(len(vs), int(r.integers(0, 3))), replace=False)]
    for n, _ in g.prog.inputs:
        if n in g.bases and n not in outs and r.random() < 0.5:
            outs.append(n)  # a mutated argument, returned
    if not outs:
        outs = [g.bases[0]]
    g.prog.outputs = list(dict.fromkeys(outs))
    g.prog.container = "tuple" if len(g.prog.outputs) > 1 or r.random() < 0.5 else "single"
    return g.prog
