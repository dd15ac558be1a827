"""A random program: statements over named tensors, rendered as an nn.Module.

The generators (gen_ops.py, gen_views.py) build a Program one statement at a
time and keep a statement only if torch runs it; the harness renders it as
Python source, builds the module, traces or scripts it; the reducer edits it
(cuts a statement into a new input holding the value it computed, drops
statements, inlines control flow) and writes it out as a reproducer.

A statement is a template over the names it reads: `{0}`, `{1}`, ... are
replaced by its `ins` when rendered, so renaming and cutting never parse
Python. Parameters and buffers render as `self.NAME`.
"""

import linecache
import math
import re
import os
import sys

import numpy as np
import torch

try:  # registers the torchvision:: ops programs may call (torch.ops.torchvision.nms, ...)
    import torchvision  # noqa: F401
except Exception:  # noqa: BLE001
    pass

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

DTYPES = {
    "float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
    "int64": torch.int64, "int32": torch.int32, "int16": torch.int16, "int8": torch.int8,
    "uint8": torch.uint8, "bool": torch.bool,
}
DTYPE_NAME = {v: k for k, v in DTYPES.items()}
# relative rounding unit per float dtype (README, "Tolerances")
UNIT_OF = {torch.float64: 1e-12, torch.float32: 1e-5, torch.float16: 2e-3}
FLOATS = (torch.float16, torch.float32, torch.float64)


class Stmt:
    """One statement. kind:
      "assign"  outs = template                         (outs: 1 or more names)
      "write"   template (an in-place write; ins[0] is written)
      "if"      if template: body else: orelse; outs are assigned in both
      "for"     for LOOPVAR in range(template): body; outs carried (assigned in body)
    op: the name counted in the statistics (the torch op or construct).
    cost: rounding steps this statement adds to the longest chain (0: exact,
      structural); see README.md, "Tolerances".
    exact: float outputs are reproducible bit for bit (only rounding-free
      ops, on exact inputs): discontinuous ops (floor, comparisons, casts to
      int) take exact inputs, or pass a margin guard.
    guard: a Python expression over `{0}`.. (the ins, after the statement
      ran) and `_out` (first output) that must be true, e.g. no ties before
      a sort; pre: the same, checked before it runs (integer division by
      zero would trap). Both are re-checked for any other input values
      (second size, reduced inputs)."""

    __slots__ = ("kind", "outs", "template", "ins", "op", "cost", "exact", "guard", "pre", "body", "orelse", "loopvar")

    def __init__(self, kind, outs, template, ins, op, cost=1, exact=False, guard=None, pre=None,
                 body=None, orelse=None, loopvar=None):
        self.kind, self.outs, self.template, self.ins, self.op = kind, list(outs), template, list(ins), op
        self.cost, self.exact, self.guard, self.pre = cost, exact, guard, pre
        self.body, self.orelse, self.loopvar = body or [], orelse or [], loopvar

    def copy(self):
        return Stmt(self.kind, self.outs, self.template, self.ins, self.op, self.cost, self.exact, self.guard,
                    self.pre, [s.copy() for s in self.body], [s.copy() for s in self.orelse], self.loopvar)

    def walk(self):
        yield self
        for s in self.body + self.orelse:
            yield from s.walk()

    def reads(self):
        """Every name this statement (and its blocks) reads from outside."""
        inner = set()
        got = []
        for s in self.walk():
            got += [n for n in s.ins if n not in inner]
            if s is not self:
                inner.update(s.outs)
        if self.loopvar:
            got = [n for n in got if n != self.loopvar]
        return got


class Program:
    """inputs: [(name, tensor)] user inputs; weights: [(name, tensor, "param"|"buffer")];
    stmts: [Stmt]; outputs: [name]; container: "single" | "tuple" | "list"."""

    def __init__(self, mode="ops"):
        self.mode = mode
        self.inputs = []
        self.weights = []
        self.stmts = []
        self.outputs = []
        self.container = "tuple"
        self.excluded = {}  # form -> id of the known bug (known.py) it would hit

    def copy(self):
        p = Program(self.mode)
        p.inputs = [(n, t.clone()) for n, t in self.inputs]
        p.weights = [(n, t.clone(), k) for n, t, k in self.weights]
        p.stmts = [s.copy() for s in self.stmts]
        p.outputs = list(self.outputs)
        p.container = self.container
        p.excluded = dict(self.excluded)
        return p

    def weight_names(self):
        return {n for n, _, _ in self.weights}

    def walk(self):
        for s in self.stmts:
            yield from s.walk()

    def ops(self):
        return sorted({s.op for s in self.walk() if s.op})

    def n_ops(self):
        return sum(1 for s in self.walk() if s.kind in ("assign", "write"))

    # ------------------------------------------------------------------
    # rendering

    def ref(self, name):
        return "self." + name if name in self.weight_names() else name

    def render_stmt(self, s, indent):
        pad = " " * indent
        expr = s.template.format(*[self.ref(n) for n in s.ins]) if s.ins else s.template
        if s.kind == "assign":
            return [pad + ", ".join(s.outs) + " = " + expr]
        if s.kind == "write":
            return [pad + expr]
        if s.kind == "if":
            lines = [pad + "if " + expr + ":"]
            lines += self.render_block(s.body, indent + 4)
            lines += [pad + "else:"]
            lines += self.render_block(s.orelse, indent + 4)
            return lines
        if s.kind == "for":
            lines = [pad + "for %s in range(%s):" % (s.loopvar, expr)]
            lines += self.render_block(s.body, indent + 4)
            return lines
        raise ValueError(s.kind)

    def render_block(self, stmts, indent):
        lines = []
        for s in stmts:
            lines += self.render_stmt(s, indent)
        return lines or [" " * indent + "pass"]

    def source(self, cls="M"):
        lines = ["import torch", "import torch.nn.functional as F", "", "",
                 "class %s(torch.nn.Module):" % cls, "    def __init__(self):", "        super().__init__()"]
        for n, t, kind in self.weights:
            z = "torch.zeros(%s, dtype=torch.%s)" % (list(t.shape), DTYPE_NAME[t.dtype])
            if kind == "param":
                lines.append("        self.%s = torch.nn.Parameter(%s)" % (n, z))
            else:
                lines.append("        self.register_buffer(%r, %s)" % (n, z))
        lines.append("")
        lines.append("    def forward(self%s):" % "".join(", " + n for n, _ in self.inputs))
        lines += self.render_block(self.stmts, 8)
        outs = [self.ref(n) for n in self.outputs]
        if self.container == "single":
            lines.append("        return " + outs[0])
        elif self.container == "list":
            lines.append("        return [%s]" % ", ".join(outs))
        else:
            lines.append("        return (%s)" % "".join(o + ", " for o in outs).rstrip(" "))
        return "\n".join(lines) + "\n"

    def module(self, tag):
        """The nn.Module, its weights loaded, in eval mode. `tag` names the
        source in linecache (torch.jit.script reads the source from there)."""
        src = self.source()
        fname = "<difftest %s>" % tag
        linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
        g = {}
        exec(compile(src, fname, "exec"), g)
        m = g["M"]()
        with torch.no_grad():
            for n, t, _ in self.weights:
                getattr(m, n).copy_(t)
        return m.eval()

    def args(self):
        return tuple(t.clone() for _, t in self.inputs)


def flatten(o):
    if isinstance(o, (tuple, list)):
        res = []
        for e in o:
            res.extend(flatten(e))
        return res
    return [o]


# ----------------------------------------------------------------------
# the interpreter: runs statements one by one, for the generators, the
# guards and the magnitudes behind the tolerances

class GuardFailed(Exception):
    pass


def guard_env():
    return {"torch": torch, "F": torch.nn.functional, "math": math, "np": np,
            "_distinct": distinct_along, "_margin": margin_ok, "_int_ok": int_cast_ok, "_nz_div": safe_int_div,
            "_shift_ok": shift_ok, "_fits": fits, "_away": away, "_small": small, "_sum_ok": sum_ok, "_cond_ok": cond_ok,
            "_prod_ok": prod_ok, "_pow_ok": pow_ok, "_finite": finite, "_nonan": nonan, "_margin_set": margin_set,
            "_grid_ok": grid_ok, "_nll_ok": nll_ok, "_iou_margin": iou_margin, "_qmargin": qmargin, "_shape_is": shape_is}


def shape_is(x, shape):
    """A pre-guard of internal ops that do not check their operands' sizes
    (torch._transformer_encoder_layer_fwd segfaults on mismatched weights):
    the operand still has the shape it was generated with."""
    return list(torch.as_tensor(x).shape) == list(shape)


def qmargin(x, m=2e-3):
    """x (what a quantization rounds to an integer) is away from the
    half-way points, where float rounding upstream decides the direction."""
    x = torch.as_tensor(x).detach().double()
    x = x[torch.isfinite(x)]
    frac = x - torch.floor(x)
    return bool(((frac - 0.5).abs() > m).all())


def finite(x):
    """Every element of a float tensor is finite."""
    x = torch.as_tensor(x)
    return not x.dtype.is_floating_point or bool(torch.isfinite(x).all())


def nonan(x):
    x = torch.as_tensor(x)
    return not x.dtype.is_floating_point or not bool(torch.isnan(x).any())


def margin_set(x, s):
    """Finite values of a rounded x are relatively far from every value of s
    (isin, bucketize, searchsorted: equality with a boundary decides)."""
    x = torch.as_tensor(x).detach().double().reshape(-1, 1)
    s = torch.as_tensor(s).detach().double().reshape(1, -1)
    if x.numel() == 0 or s.numel() == 0:
        return True
    rel = 1e-2
    fin = torch.isfinite(x)
    gap = (x - s).abs()
    return bool(((gap > rel * torch.maximum(x.abs(), s.abs()).clamp(min=1)) | ~fin).all())


def grid_ok(grid, align_corners, h, w):
    """grid_sample's source coordinates (nearest mode) are away from the
    half-integers where rounding to the nearest pixel goes either way."""
    g = torch.as_tensor(grid).detach().double()
    out = []
    for k, n in ((0, w), (1, h)):
        c = g[..., k]
        c = (c + 1) / 2 * (n - 1) if align_corners else ((c + 1) * n - 1) / 2
        out.append(c)
    c = torch.cat([o.reshape(-1) for o in out])
    frac = c - torch.floor(c)
    return bool(((frac - 0.5).abs() > 1e-3).all())


def nll_ok(target, ignore):
    """Some target is not ignored (a mean over none is 0/0)."""
    t = torch.as_tensor(target)
    return t.numel() == 0 or bool((t != ignore).any())


def iou_margin(boxes, thr):
    """No two boxes overlap by an IoU within 1e-3 of thr (nms compares it)."""
    b = torch.as_tensor(boxes).detach().double()
    if b.shape[0] < 2:
        return True
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.maximum(b[:, None, :2], b[None, :, :2])
    rb = torch.minimum(b[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    iou = inter / (area[:, None] + area[None, :] - inter)
    return bool(((iou - thr).abs() > 1e-3).all())


def pow_ok(base, e):
    """Where a float base is negative, a computed exponent is far from the
    integers: pow is NaN off them and defined on them, so rounding
    upstream (an exponent of 1e-34 against 0: views seed 9202 program
    35116) must not be able to cross one."""
    if not isinstance(base, torch.Tensor) or not isinstance(e, torch.Tensor) or not e.dtype.is_floating_point:
        return True
    try:
        b, x = torch.broadcast_tensors(base.detach().double(), e.detach().double())
    except RuntimeError:
        return True
    neg = (b < 0) & torch.isfinite(b) & torch.isfinite(x)
    if not bool(neg.any()):
        return True
    x = x[neg]
    frac = x - torch.floor(x)
    rel = MARGIN.get(e.dtype, 1e-2)
    return bool((torch.minimum(frac, 1 - frac) > rel).all())


def small(x, bound):
    """Finite values of x are below bound in magnitude."""
    x = torch.as_tensor(x).detach().double()
    x = x[torch.isfinite(x)]
    return x.numel() == 0 or float(x.abs().max()) < bound


def away(x, points):
    """Finite values of x are relatively far from every point (domain edges
    of log, sqrt, asin, ...), so rounding upstream cannot cross one."""
    x = torch.as_tensor(x)
    rel = MARGIN.get(x.dtype, 1e-2)
    x = x.detach().double()
    fin = torch.isfinite(x)
    for p in points:
        if not bool((((x - p).abs() > rel * max(1.0, abs(p))) | ~fin).all()):
            return False
    return True


# C of the tolerance (harness.tolerance, README "Tolerances"): the cap on
# the magnitude an absolute error scales with
def _cap(dtype):
    return 6e4 if dtype == torch.float16 else 1e6


def sum_ok(x, dims=None, windows=False):
    """A sum or mean whose finite terms do not cancel beyond the cap C:
    per output, sum |x_i| <= n * C + |sum x_i| (n terms). The rounding of a
    sum grows with sum |x_i| and the tolerance's absolute part stops at C,
    so where terms beyond C cancel (1e300 - 1e300 + 0.4) the result is any
    of the order-dependent remainders and no tolerance can judge it;
    below C every sum passes (sum |x_i| <= n * max |x_i|)."""
    x = torch.as_tensor(x)
    if not x.dtype.is_floating_point or x.numel() == 0:
        return True
    a = x.detach().double()
    fin = torch.isfinite(a)
    a = torch.where(fin, a, torch.zeros_like(a))
    if a.dim() == 0:
        return True
    dims = list(dims) if dims else list(range(a.dim()))
    n = math.prod(a.shape[d] for d in dims)
    terms = a.abs().sum(dims)
    total = a.sum(dims).abs()
    # an inf or NaN decides the result, unless the sum is over windows of
    # the dims (pooling), where the non-finite value may lie in another one
    skip = ((~fin).double().sum(dims) > 0) & (not windows)
    return bool(((terms <= n * _cap(x.dtype) + total) | skip).all())


def cond_ok(x, kind):
    """An `if` condition on a float tensor that rounding cannot flip:
    x.sum() > 0 where the sum keeps a margin of MARGIN / 10 of its terms'
    magnitudes from 0 (torch and onnxruntime add in different orders:
    1e30 - 1e30 + 21.6 is 0 or 21.6, views seed 9203 program 293), and
    x.max() > 0.5 with max 1% of its scale from 0.5. A non-finite result
    decides the same way on both sides."""
    x = torch.as_tensor(x)
    if not x.dtype.is_floating_point or x.numel() == 0:
        return True
    a = x.detach().double()
    rel = MARGIN.get(x.dtype, 1e-2) / 10
    if kind == "max":
        m = a.max()
        return not bool(torch.isfinite(m)) or bool((m - 0.5).abs() > 10 * rel * max(1.0, float(m.abs())))
    if not bool(torch.isfinite(a).all()):
        return True
    tot = float(a.abs().sum())
    # partial sums beyond the dtype's range overflow in one order only
    return tot <= torch.finfo(x.dtype).max and abs(float(a.sum())) > rel * tot


def prod_ok(x, dim=None):
    """A product whose partial products stay in the normal range in any
    order: per output, the finite nonzero |x_i| above 1 multiply to below
    the dtype's max and those below 1 to above its smallest normal. Else
    an order that underflows to 0 before meeting an inf gives NaN where
    another gives inf (torch and onnxruntime multiply in different orders:
    difftest seed 9201 program 13650), or overflow and underflow race."""
    x = torch.as_tensor(x)
    if not x.dtype.is_floating_point or x.numel() == 0:
        return True
    a = x.detach().double().abs()
    a = torch.where(torch.isfinite(a) & (a > 0), a, torch.ones_like(a))
    lg = torch.log2(a)
    if dim is None or a.dim() == 0:
        lg = lg.reshape(-1)
        dim = 0
    fi = torch.finfo(x.dtype)
    up = torch.where(lg > 0, lg, torch.zeros_like(lg)).sum(dim)
    down = torch.where(lg < 0, lg, torch.zeros_like(lg)).sum(dim)
    return bool(((up < math.log2(fi.max) - 1) & (down > math.log2(fi.tiny) + 1)).all())


def fits(x, k=2):
    """Finite |x| small enough that x**k summed over x stays finite in x's
    dtype: decompositions that square (var, norms) or sum in the element
    type overflow where torch accumulates wider (README, "Edge values")."""
    x = torch.as_tensor(x)
    if not x.dtype.is_floating_point or x.numel() == 0:
        return True
    a = x.detach().double().abs()
    a = a[torch.isfinite(a)]
    if a.numel() == 0:
        return True
    if k == 1 and x.dtype != torch.float16:  # float16's huge is the cap
        # a sum of huge terms that cancel (1e30 - 1e30 + 100) is rounding
        # noise of the summation order (terms absorbed by the huge partial
        # sum), beyond an absolute tolerance capped at 1e6 (harness.tolerance)
        f = x.detach().double()
        f = f[torch.isfinite(f)]
        if bool((f > 1e6).any()) and bool((f < -1e6).any()):
            return False
    return float(a.max()) ** k * x.numel() <= torch.finfo(x.dtype).max / 16


def distinct_along(t, dim=None):
    """No ties (and no NaN) along dim: sort/topk/argmax orders are unique."""
    if t.numel() == 0:
        return True
    t = t.detach()
    if t.dtype.is_floating_point and bool(torch.isnan(t).any()):
        return False
    if dim is None or t.dim() == 0:
        t, dim = t.reshape(-1), 0
    s = torch.sort(t.double(), dim=dim)[0]
    if s.size(dim) <= 1:
        return True
    # neighbours apart by more than rounding upstream could move them
    hi, lo = s.narrow(dim, 1, s.size(dim) - 1), s.narrow(dim, 0, s.size(dim) - 1)
    gap = hi - lo
    rel = MARGIN.get(t.dtype, 1e-2) / 10 if t.dtype.is_floating_point else 0
    return bool((gap > rel * torch.maximum(hi.abs(), lo.abs()).clamp(min=1e-30)).all()) if rel else bool((gap != 0).all())


MARGIN = {torch.float16: 0.05, torch.float32: 1e-2, torch.float64: 1e-2}


def margin_ok(x, kind, y=None):
    """A discontinuous op's input is far from its jumps, so rounding
    differences upstream cannot flip it: kind "int" (floor/ceil/round/trunc
    /cast to int), "cmp" (x against y), "zero" (sign). The margin is
    relative (float16 values carry more rounding: a wider one)."""
    rel = max(MARGIN.get(getattr(x, "dtype", None), 1e-2), MARGIN.get(getattr(y, "dtype", None), 1e-2))
    x = x.detach().double()
    if kind == "cmp":
        y = torch.as_tensor(y).detach().double()
        a, b = torch.broadcast_tensors(x, y)
        fin = torch.isfinite(a) & torch.isfinite(b)
        gap = (a - b).abs()
        scale = torch.maximum(a.abs(), b.abs()).clamp(min=1)
        # non-finite values after rounding steps: how inf and NaN came about
        # upstream (0 * inf, inf - inf) is the upstream ops' business
        return bool((gap > rel * scale).all()) and bool(fin.all())
    fin = torch.isfinite(x)
    if kind == "zero":
        return bool(((x.abs() > rel / 10) | ~fin).all())
    frac = x - torch.floor(x)
    near = torch.minimum(frac, 1 - frac)
    half = (frac - 0.5).abs()
    return bool(((near > rel) & (half > rel) | ~fin | (x.abs() > 2 ** 40)).all())


def int_cast_ok(x, dtype):
    """A float -> integer cast is defined: finite, in range (C leaves the rest undefined)."""
    x = x.detach().double()
    if not bool(torch.isfinite(x).all()):
        return False
    if x.numel() == 0:
        return True
    info = torch.iinfo(dtype) if dtype != torch.bool else None
    if info is None:
        return True
    return bool((x > info.min).all() and (x < info.max).all())


def safe_int_div(a, b):
    """Integer division is defined: no zero divisor, no MIN / -1."""
    a, b = torch.as_tensor(a), torch.as_tensor(b)
    if a.dtype.is_floating_point or b.dtype.is_floating_point or a.dtype == torch.bool and b.dtype == torch.bool:
        return True
    if bool((b == 0).any()):
        return False
    try:
        aa, bb = torch.broadcast_tensors(a.long(), b.long())
    except RuntimeError:
        return True
    dt = torch.result_type(a, b)  # a Python scalar divisor keeps a's width
    lo = torch.iinfo(dt).min if dt != torch.uint8 else 0
    return not bool(((aa == lo) & (bb == -1)).any())


def shift_ok(a, b):
    b = torch.as_tensor(b)
    bits = torch.iinfo(torch.promote_types(torch.as_tensor(a).dtype, b.dtype)).bits
    return bool(((b >= 0) & (b < bits)).all())


def eval_guard(expr, ins, env, genv, out=None):
    names = []
    local = dict(genv)
    for k, n in enumerate(ins):
        local["_a%d" % k] = env[n]
        names.append("_a%d" % k)
    local["_out"] = out
    return bool(eval(expr.format(*names), local))


PRODUCTS = ("mul", "div", "square", "mul_", "div_", "__imul__", "__itruediv__", "setitem*=", "setitem/=")
DEPTH_CAP = 1e6  # past this a float32 rtol passes 10: the value is not checked, only NaN and inf places


def _literal_exponent(template):
    m = re.search(r"\*\*\s*\(?\s*(-?[0-9.e+-]+)|pow\([^,]+,\s*(-?[0-9.e+-]+)", template)
    try:
        return abs(float(m.group(1) or m.group(2))) if m else 1.0
    except ValueError:
        return 1.0


class Interp:
    """Runs a program statement by statement on given inputs.

    env: name -> current tensor (aliases stay aliases, writes land as in
    eager). mags: name -> largest finite |value| the name held; depth: name
    -> rounding steps on its longest chain. snap: name -> the value just
    after the statement that defined it (what a cut puts in its place)."""

    def __init__(self, prog):
        self.prog = prog
        self.genv = guard_env()
        self.env = {}
        self.mags = {}
        self.depth = {}
        self.snap = {}
        self.cone = {}
        self.unit = {}  # name -> the least precise float dtype on its chains
        self.rand = set()  # names holding unspecified values (random ops, op names ending in "~")
        self.on_step = None  # called after each statement (the generator's known-bug check)
        for n, t in prog.inputs:
            self.bind(n, t.clone(), 0, {n})
        for n, t, _ in prog.weights:
            self.bind(n, t.clone(), 0, {n})

    def bind(self, n, t, depth, cone):
        self.env[n] = t
        self.depth[n] = depth
        self.cone[n] = cone
        self.note_mag(n)
        self.note_unit(n, cone)

    def note_unit(self, n, cone):
        us = [self.unit.get(m) for m in cone if m != n] + [UNIT_OF.get(getattr(self.env.get(n), "dtype", None))]
        us = [u for u in us if u is not None]
        if us:
            self.unit[n] = max(us)

    def note_mag(self, n):
        t = self.env[n]
        m = 0.0
        if isinstance(t, torch.Tensor) and t.numel() and t.dtype != torch.bool:
            a = t.detach().double().abs()
            a = a[torch.isfinite(a)]
            if a.numel():
                m = float(a.max())
        self.mags[n] = max(self.mags.get(n, 0.0), m)

    def local(self):
        loc = {"torch": torch, "F": torch.nn.functional, "self": None}
        loc.update(self.env)
        return loc

    def expr(self, s):
        return s.template.format(*s.ins) if s.ins else s.template

    def run(self, stmts=None, snap=True):
        for s in (self.prog.stmts if stmts is None else stmts):
            self.step(s, snap)
        return self

    def step(self, s, snap=True):
        if s.pre and not eval_guard(s.pre, s.ins, self.env, self.genv):
            raise GuardFailed("pre: " + s.pre)
        dep = self.chain_depth(s)
        cone = set()
        for n in s.reads():
            cone |= self.cone.get(n, {n})
        if s.kind == "assign":
            loc = self.local()
            val = eval(self.expr(s), {"torch": torch, "F": torch.nn.functional, "math": math}, loc)
            vals = [val] if len(s.outs) == 1 else list(val)
            if len(vals) != len(s.outs):
                raise ValueError("%d values for %d names" % (len(vals), len(s.outs)))
            for n, v in zip(s.outs, vals):
                if s.op == "loopvar":  # an inlined loop's counter
                    self.env[n] = v
                    continue
                if not isinstance(v, torch.Tensor):
                    raise TypeError("%s is %s, not a tensor" % (n, type(v).__name__))
                self.bind(n, v, dep, cone | {n})
                if s.op.endswith("~") or any(m in self.rand for m in s.reads()):
                    self.rand.add(n)
                if snap:
                    self.snap[n] = v.detach().clone()
        elif s.kind == "write":
            loc = self.local()
            exec(self.expr(s), {"torch": torch, "F": torch.nn.functional, "math": math}, loc)
            t = s.ins[0]
            # the write lands in every alias of t (a base written through
            # its view: views seed 9202 program 3541)
            for a in self.aliases(t):
                self.depth[a] = max(self.depth.get(a, 0), dep)
                self.cone[a] = self.cone.get(a, {a}) | cone
                self.note_unit(a, self.cone[a])
            # every name may alias the written one: re-measure them all
            for n in self.env:
                self.note_mag(n)
        elif s.kind == "if":
            c = eval(self.expr(s), {"torch": torch, "F": torch.nn.functional, "math": math}, self.local())
            # the known-bug check of the condition sees the values it read,
            # not what the branch then wrote over them (views seed 9202
            # program 2347: copy_ overwrote the NaN that x.max() read)
            if self.on_step is not None:
                self.on_step(self, s)
            self.run(s.body if c else s.orelse, snap)
            for n in s.outs:
                self.depth[n] = max(self.depth.get(n, 0), dep)
                self.cone[n] = self.cone.get(n, {n}) | cone
        elif s.kind == "for":
            k = eval(self.expr(s), {"torch": torch, "F": torch.nn.functional, "math": math}, self.local())
            for i in range(int(k)):
                self.env[s.loopvar] = i
                self.run(s.body, snap)
            self.env.pop(s.loopvar, None)
            for n in s.outs:
                self.depth[n] = self.depth.get(n, 0) + s.cost * max(int(k) - 1, 0)
                self.cone[n] = self.cone.get(n, {n}) | cone
        if s.guard and not eval_guard(s.guard, s.ins, self.env, self.genv, self.env.get(s.outs[0]) if s.outs else None):
            raise GuardFailed(s.guard)
        if self.on_step is not None and s.kind in ("assign", "write"):
            self.on_step(self, s)

    def aliases(self, name):
        """name and every other name whose tensor shares its storage."""
        t = self.env.get(name)
        out = [name]
        if not isinstance(t, torch.Tensor):
            return out
        try:
            p = t.storage().data_ptr()
        except (RuntimeError, NotImplementedError):
            return out
        for n, u in self.env.items():
            if n != name and isinstance(u, torch.Tensor) and u.numel() and t.numel():
                try:
                    if u.storage().data_ptr() == p:
                        out.append(n)
                except (RuntimeError, NotImplementedError):
                    pass
        return out

    def chain_depth(self, s):
        """Rounding depth after s (README, "Tolerances"). Relative errors
        add up through a product or quotient (x * x doubles x's: squaring
        in a loop compounds, views seed 9202 program 3541) and scale by the
        exponent through pow (gelu's error to the power -5: seed 9103
        program 1060); elsewhere the deepest input counts."""
        ds = [self.depth.get(n, 0) for n in s.ins]
        if not ds:
            return s.cost
        if s.op in PRODUCTS:
            d = sum(ds) * (2 if s.op == "square" else 1)
        elif s.op == "pow":
            e = self._max_abs(s.ins[1]) if len(s.ins) > 1 else _literal_exponent(s.template)
            lb = self._max_abs(s.ins[0], log=True)
            d = ds[0] * max(1.0, e) + sum(ds[1:]) * max(1.0, e * lb)
        else:
            d = max(ds)
        return min(d, DEPTH_CAP) + s.cost

    def _max_abs(self, name, log=False):
        """Largest finite |value| of name (|ln|x|| with log), 1 if none."""
        t = self.env.get(name)
        if not isinstance(t, torch.Tensor):
            return abs(float(t)) if isinstance(t, (int, float)) and math.isfinite(t) else 1.0
        a = t.detach().double().abs()
        a = a[torch.isfinite(a) & (a > 0)] if log else a[torch.isfinite(a)]
        if a.numel() == 0:
            return 1.0
        return float(a.log().abs().max()) if log else float(a.max())

    def unit_of(self, name):
        return max([self.unit.get(n, 0.0) for n in self.cone.get(name, {name})] + [self.unit.get(name, 0.0)])

    def scale(self, name):
        """The largest finite magnitude on the chains leading to name."""
        return max([self.mags.get(n, 0.0) for n in self.cone.get(name, {name})] + [self.mags.get(name, 0.0)])


# ----------------------------------------------------------------------
# saving and loading (reproducers): statements as JSON, values as safetensors


def stmt_to_json(s):
    d = {"kind": s.kind, "outs": s.outs, "template": s.template, "ins": s.ins, "op": s.op, "cost": s.cost,
         "exact": s.exact}
    for k in ("guard", "pre", "loopvar"):
        if getattr(s, k):
            d[k] = getattr(s, k)
    if s.body:
        d["body"] = [stmt_to_json(x) for x in s.body]
    if s.orelse:
        d["orelse"] = [stmt_to_json(x) for x in s.orelse]
    return d


def stmt_from_json(d):
    return Stmt(d["kind"], d["outs"], d["template"], d["ins"], d["op"], d.get("cost", 1), d.get("exact", False),
                d.get("guard"), d.get("pre"), [stmt_from_json(x) for x in d.get("body", [])],
                [stmt_from_json(x) for x in d.get("orelse", [])], d.get("loopvar"))


def save_program(prog, d):
    """d/program.json and d/program.safetensors."""
    import os
    import st

    meta = {"mode": prog.mode, "inputs": [n for n, _ in prog.inputs],
            "weights": [[n, k] for n, _, k in prog.weights], "stmts": [stmt_to_json(s) for s in prog.stmts],
            "outputs": prog.outputs, "container": prog.container, "excluded": prog.excluded}
    with open(os.path.join(d, "program.json"), "w") as f:
        import json

        json.dump(meta, f, indent=1)
        f.write("\n")
    vals = {n: st.from_torch(t) for n, t in prog.inputs}
    vals.update({n: st.from_torch(t) for n, t, _ in prog.weights})
    st.save(vals, os.path.join(d, "program.safetensors"))


def load_program(d):
    import json
    import os
    import st

    with open(os.path.join(d, "program.json")) as f:
        meta = json.load(f)
    vals = st.load(os.path.join(d, "program.safetensors"))
    p = Program(meta["mode"])
    p.inputs = [(n, torch.from_numpy(vals[n].copy())) for n in meta["inputs"]]
    p.weights = [(n, torch.from_numpy(vals[n].copy()), k) for n, k in meta["weights"]]
    p.stmts = [stmt_from_json(x) for x in meta["stmts"]]
    p.outputs = meta["outputs"]
    p.container = meta["container"]
    p.excluded = meta.get("excluded", {})
    return p
