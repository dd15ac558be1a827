"""Ops mode: random DAGs of the aten ops onnxexp maps.

Each generator below proposes one statement for one op family, picking
operands from the values made so far (or new inputs, parameters, buffers,
Python scalars); Gen.emit runs it in torch and keeps it only if torch
accepts it. FAMILIES lists them with their weights; `python3 gen_ops.py`
prints which aten ops of `onnxexp --list-ops` the generator can emit.

The ops these families leave out are drawn by gen_more.py (random ops
with deterministic cases or compared by dtype and shape, RNNs, attention,
losses, quantization, ...); README.md, "The generator", lists what is
still not covered and why.
"""

import math

import torch

from gen import Reject, dims_arg, ilist, kind_of, lit, one_dim
from program import FLOATS, Stmt

FAMILIES = []


def family(weight, name):
    def deco(fn):
        FAMILIES.append((name, weight, fn))
        return fn

    return deco


def T(g, n):
    return g.it.env[n]


def red_cost(t, dims=None):
    """Rounding steps of a reduction: one per halving of the count."""
    n = t.numel() if not dims else max(1, math.prod(t.shape[d] for d in dims) if t.dim() else 1)
    return 1 + int(math.log2(max(n, 1)))


# Linear interpolation weighs neighbours by a source coordinate that
# carries rounding (torch's (i + 0.5) * 2/6 - 0.5 is 1.5e-8, not 0): an
# error of u * |x_j - x_k|, within the tolerance while the values stay
# below its cap C, beyond it not (seed 9201 program 26130: 1.5e-8 * 1e30)
_interp_guard = "_small({0}, 6e4 if {0}.dtype == torch.float16 else 1e6)"


def margin_guard(g, ins, kind):
    """A guard for a discontinuous op whose float input may carry rounding."""
    if g.all_exact(ins):
        return None
    if kind == "cmp":
        return "_margin({0}, 'cmp', {1})" if len(ins) > 1 else None
    return "_margin({0}, '%s')" % kind


# ----------------------------------------------------------------------
# unary elementwise

# name, template, cost, keeps exactness, discontinuous kind, input kinds
UNARY = [
    ("abs", "torch.abs({0})", 0, True, None, "fi"), ("neg", "-{0}", 0, True, None, "fi"),
    ("neg", "torch.neg({0})", 0, True, None, "fi"),
    ("reciprocal", "torch.reciprocal({0})", 1, False, "away:0", "fi"), ("sqrt", "torch.sqrt({0})", 1, False, "away:0", "fi"),
    ("rsqrt", "torch.rsqrt({0})", 2, False, "away:0", "fi"), ("square", "torch.square({0})", 1, False, None, "fi"),
    ("exp", "torch.exp({0})", 2, False, None, "fi"), ("exp2", "torch.exp2({0})", 2, False, None, "fi"),
    ("log", "torch.log({0})", 2, False, "away:0", "fi"), ("log2", "torch.log2({0})", 2, False, "away:0", "fi"),
    ("log10", "torch.log10({0})", 2, False, "away:0", "fi"), ("log1p", "torch.log1p({0})", 2, False, "away:-1", "fi"),
    ("sin", "torch.sin({0})", 2, False, "trig", "fi"), ("cos", "torch.cos({0})", 2, False, "trig", "fi"),
    ("tan", "torch.tan({0})", 3, False, "pole", "fi"), ("asin", "torch.asin({0})", 2, False, "away:-1, 1", "fi"),
    ("acos", "torch.acos({0})", 2, False, "away:-1, 1", "fi"), ("atan", "torch.atan({0})", 2, False, None, "fi"),
    ("sinh", "torch.sinh({0})", 2, False, None, "fi"), ("cosh", "torch.cosh({0})", 2, False, None, "fi"),
    ("asinh", "torch.asinh({0})", 2, False, None, "fi"), ("acosh", "torch.acosh({0})", 2, False, "away:1", "fi"),
    ("atanh", "torch.atanh({0})", 2, False, "away:-1, 1", "fi"), ("erf", "torch.erf({0})", 2, False, None, "fi"),
    ("sign", "torch.sign({0})", 0, True, "zero", "fi"), ("floor", "torch.floor({0})", 0, True, "int", "fi"),
    ("ceil", "torch.ceil({0})", 0, True, "int", "fi"), ("trunc", "torch.trunc({0})", 0, True, "int", "fi"),
    ("round", "torch.round({0})", 0, True, "int", "fi"),
    ("sigmoid", "torch.sigmoid({0})", 2, False, None, "fi"), ("tanh", "torch.tanh({0})", 2, False, None, "fi"),
    ("relu", "torch.relu({0})", 0, True, None, "fi"), ("relu", "F.relu({0})", 0, True, None, "fi"),
    ("gelu", "F.gelu({0})", 2, False, None, "f"), ("gelu", "F.gelu({0}, approximate='tanh')", 3, False, None, "f"),
    ("silu", "F.silu({0})", 2, False, None, "f"), ("mish", "F.mish({0})", 3, False, None, "f"),
    ("elu", "F.elu({0}, alpha=%s)", 2, False, None, "f"), ("selu", "F.selu({0})", 2, False, None, "f"),
    ("celu", "F.celu({0}, alpha=%s)", 2, False, None, "f"),
    ("leaky_relu", "F.leaky_relu({0}, %s)", 1, False, None, "f"),
    ("hardtanh", "F.hardtanh({0}, %s, %s)", 0, True, None, "f"),
    ("hardsigmoid", "F.hardsigmoid({0})", 1, False, None, "f"), ("hardswish", "F.hardswish({0})", 2, False, None, "f"),
    ("softplus", "F.softplus({0}, beta=%s, threshold=%s)", 2, False, None, "f"),
    ("softshrink", "F.softshrink({0}, %s)", 1, False, None, "f"),
    ("hardshrink", "F.hardshrink({0}, %s)", 0, True, None, "f"),
    ("relu6", "F.relu6({0})", 0, True, None, "f"), ("log_sigmoid", "F.logsigmoid({0})", 2, False, None, "f"),
    ("threshold", "F.threshold({0}, %s, %s)", 0, True, "cmp0", "f"),
    ("isnan", "torch.isnan({0})", 0, True, None, "fi"), ("isinf", "torch.isinf({0})", 0, True, None, "fi"),
    ("isfinite", "torch.isfinite({0})", 0, True, None, "fi"),
    ("nan_to_num", "torch.nan_to_num({0})", 0, True, None, "fi"),
    ("nan_to_num", "torch.nan_to_num({0}, nan=%s, posinf=%s, neginf=%s)", 0, True, None, "f"),
    ("logical_not", "torch.logical_not({0})", 0, True, "zero", "fib"),
    ("bitwise_not", "torch.bitwise_not({0})", 0, True, None, "ib"), ("bitwise_not", "~{0}", 0, True, None, "ib"),
    ("clone", "{0}.clone()", 0, True, None, "fib"), ("detach", "{0}.detach()", 0, True, None, "fib"),
    ("contiguous", "{0}.contiguous()", 0, True, None, "fib"),
    ("clamp", "torch.clamp({0}, min=%s)", 0, True, None, "fi"),
    ("clamp", "torch.clamp({0}, max=%s)", 0, True, None, "fi"),
    ("clamp", "torch.clamp({0}, %s, %s)", 0, True, None, "fi"),
    ("clamp_min", "torch.clamp_min({0}, %s)", 0, True, None, "fi"),
    ("clamp_max", "torch.clamp_max({0}, %s)", 0, True, None, "fi"),
]


def _unary_args(g, name, t):
    r = g.r
    if name in ("elu", "celu"):
        return [lit(float(r.choice([1.0, 0.5, 2.0])))]
    if name == "leaky_relu":
        return [lit(float(r.choice([0.01, 0.2, -0.5])))]
    if name == "hardtanh":
        lo = float(r.choice([-1.0, -2.0, 0.0]))
        return [lit(lo), lit(lo + float(r.choice([0.5, 1.0, 3.0])))]
    if name == "softplus":
        return [lit(float(r.choice([1.0, 2.0, 0.5]))), lit(float(r.choice([20.0, 5.0, 1.0])))]
    if name in ("softshrink", "hardshrink"):
        return [lit(float(r.choice([0.5, 0.1, 1.0])))]
    if name == "threshold":
        return [lit(float(r.choice([0.0, 0.5, -1.0]))), lit(float(r.choice([0.0, 2.0, -3.0])))]
    if name == "nan_to_num":
        return [lit(float(r.choice([0.0, 1.5]))), lit(float(r.choice([100.0, 1e4]))), lit(float(r.choice([-7.0, -1e4])))]
    if name in ("clamp_min", "clamp_max") or "clamp" in name:
        isint = not t.dtype.is_floating_point
        lo = int(r.integers(-3, 2)) if isint else float(r.choice([-1.0, -0.5, 0.0]))
        hi = lo + (int(r.integers(0, 4)) if isint else float(r.choice([0.0, 0.5, 2.0])))
        return [lit(lo), lit(hi)]
    return []


def cond_pre(cond):
    """The guard an `if` condition needs (program.cond_ok)."""
    return "_cond_ok({0}, 'sum')" if ".sum()" in cond else "_cond_ok({0}, 'max')" if ".max()" in cond else None


@family(14, "unary")
def unary(g):
    r = g.r
    name, tpl, cost, keeps, disc, kinds = UNARY[int(r.integers(0, len(UNARY)))]
    a = g.pick(kinds if r.random() < 0.85 else "fi"[: len(kinds)] or kinds)
    t = T(g, a)
    args = _unary_args(g, name, t)
    if tpl.count("%s") != len(args):
        args = args[: tpl.count("%s")] + [lit(0.0)] * max(0, tpl.count("%s") - len(args))
    tpl = tpl % tuple(args) if args else tpl
    guard = None
    if disc == "trig":  # a rounded huge argument: sin of it is noise
        guard = None if g.all_exact([a]) else "_small({0}, 100.0)"
    elif disc and disc.startswith("away:"):  # inputs away from the domain's edges (log of a rounded 0)
        guard = None if g.all_exact([a]) else "_away({0}, [%s])" % disc[5:]
    elif disc == "pole":  # tan: inputs away from its poles, where rounding upstream blows up
        guard = None if g.all_exact([a]) else "_small({0}, 100.0) and _margin({0} / math.pi - 0.5, 'int')"
    elif disc == "cmp0":
        guard = None if g.all_exact([a]) else "_margin({0}, 'cmp', %s)" % args[0]
    elif disc:
        guard = margin_guard(g, [a], disc)
    g.emit(tpl, [a], name, cost=cost, exact=keeps, guard=guard)


# ----------------------------------------------------------------------
# binary elementwise, broadcasting, scalars (type promotion)

# name, template, kinds of both operands, cost, exact, discontinuous, pre-guard
BINARY = [
    ("add", "{0} + {1}", "fib", 1, True, None, None), ("add", "torch.add({0}, {1}, alpha=%s)", "fi", 2, False, None, None),
    ("sub", "{0} - {1}", "fi", 1, True, None, None), ("sub", "torch.sub({0}, {1}, alpha=%s)", "fi", 2, False, None, None),
    ("rsub", "torch.rsub({0}, {1})", "fi", 1, True, None, None),
    ("mul", "{0} * {1}", "fib", 1, True, None, None), ("mul", "torch.mul({0}, {1})", "fib", 1, True, None, None),
    ("div", "{0} / {1}", "fi", 1, False, "den", None),
    ("div", "torch.div({0}, {1}, rounding_mode='trunc')", "fi", 1, True, "int", "_nz_div({0}, {1})"),
    ("div", "torch.div({0}, {1}, rounding_mode='floor')", "fi", 1, True, "int", "_nz_div({0}, {1})"),
    ("floor_divide", "{0} // {1}", "fi", 1, True, "int", "_nz_div({0}, {1})"),
    ("remainder", "{0} % {1}", "fi", 1, True, "int", "_nz_div({0}, {1})"),
    ("remainder", "torch.remainder({0}, {1})", "fi", 1, True, "int", "_nz_div({0}, {1})"),
    ("fmod", "torch.fmod({0}, {1})", "fi", 1, True, "int", "_nz_div({0}, {1})"),
    ("pow", "{0} ** {1}", "fi", 3, False, "powexp", None), ("pow", "torch.pow({0}, {1})", "fi", 3, False, "powexp", None),
    ("maximum", "torch.maximum({0}, {1})", "fi", 0, True, None, None),
    ("minimum", "torch.minimum({0}, {1})", "fi", 0, True, None, None),
    ("max", "torch.max({0}, {1})", "fi", 0, True, None, None), ("min", "torch.min({0}, {1})", "fi", 0, True, None, None),
    ("eq", "{0} == {1}", "fib", 0, True, "cmp", None), ("ne", "{0} != {1}", "fib", 0, True, "cmp", None),
    ("lt", "{0} < {1}", "fib", 0, True, "cmp", None), ("le", "{0} <= {1}", "fib", 0, True, "cmp", None),
    ("gt", "{0} > {1}", "fib", 0, True, "cmp", None), ("ge", "{0} >= {1}", "fib", 0, True, "cmp", None),
    ("eq", "torch.eq({0}, {1})", "fib", 0, True, "cmp", None), ("gt", "torch.gt({0}, {1})", "fi", 0, True, "cmp", None),
    ("logical_and", "torch.logical_and({0}, {1})", "fib", 0, True, "zero", None),
    ("logical_or", "torch.logical_or({0}, {1})", "fib", 0, True, "zero", None),
    ("logical_xor", "torch.logical_xor({0}, {1})", "fib", 0, True, "zero", None),
    ("bitwise_and", "{0} & {1}", "ib", 0, True, None, None), ("bitwise_or", "{0} | {1}", "ib", 0, True, None, None),
    ("bitwise_xor", "{0} ^ {1}", "ib", 0, True, None, None),
    ("bitwise_and", "torch.bitwise_and({0}, {1})", "ib", 0, True, None, None),
    ("__lshift__", "{0} << {1}", "i", 0, True, None, "_shift_ok({0}, {1})"),
    ("__rshift__", "{0} >> {1}", "i", 0, True, None, "_shift_ok({0}, {1})"),
]


@family(18, "binary")
def binary(g):
    r = g.r
    name, tpl, kinds, cost, exact, disc, pre = BINARY[int(r.integers(0, len(BINARY)))]
    a = g.pick(kinds)
    text, ins = g.partner(a, kinds)
    if "%s" in tpl:
        tpl = tpl % lit(float(r.choice([2.0, -1.0, 0.5])) if T(g, a).dtype.is_floating_point else int(r.choice([2, -1, 3])))
    swap = False
    if text is not None:
        swap = r.random() < 0.3 and tpl.startswith("{0} ")
        if swap:  # scalar on the left: rsub, __rmul__, __rtruediv__, ...
            tpl = tpl.replace("{0}", "@").replace("{1}", "{0}").replace("@", text)
        else:
            tpl = tpl.replace("{1}", text)
    else:
        a_ins = [a] + ins
        if r.random() < 0.2:
            a_ins = a_ins[::-1]
        ins = a_ins
    ins = [a] if text is not None else ins
    guard = None
    if disc == "cmp":
        guard = None if g.all_exact(ins) else ("_margin({0}, 'cmp', {1})" if len(ins) == 2 else
                                                "_margin({0}, 'cmp', %s)" % (text if "float" not in text else "0.0"))
    elif disc == "int":
        guard = None if g.all_exact(ins) else "_margin(torch.as_tensor(_out).double() * 0 + (%s).double(), 'int')" % (
            "{0} / {1}" if len(ins) == 2 else (("%s / {0}" if swap else "{0} / %s") % text))
    elif disc == "zero":
        guard = None if g.all_exact(ins) else "_margin({0}, 'zero')"
    elif disc == "powexp" and len(ins) == 2 and not g.all_exact(ins[1:]):
        guard = "_pow_ok({0}, {1})"  # a negative base: the exponent's integrality is noise near an integer
    elif disc == "den" and len(ins) == 2 and not g.all_exact(ins[1:]):
        guard = "_away({1}, [0])"  # a rounded 0 divisor: the sign of the inf is noise
    if pre and len(ins) == 1:
        # a scalar operand: it is the divisor unless it moved to the left
        pre = pre.replace("({0}, {1})", "(%s, {0})" % text) if swap else pre.replace("{1}", text)
    g.emit(tpl, ins, name, cost=cost, exact=exact, guard=guard, pre=pre)


@family(4, "ternary")
def ternary(g):
    r = g.r
    u = r.random()
    if u < 0.35:
        a = g.pick("fib")
        c = g.pick("b", shape=g.bshape(T(g, a).shape), new_p=0.5)
        text, ins = g.partner(a)
        if text is not None:
            if r.random() < 0.5:
                g.emit("torch.where({0}, {1}, %s)" % text, [c, a], "where", cost=0, exact=True)
            else:
                g.emit("torch.where({0}, %s, {1})" % text, [c, a], "where", cost=0, exact=True)
        else:
            g.emit("torch.where({0}, {1}, {2})", [c, a] + ins, "where", cost=0, exact=True)
    elif u < 0.55:
        a = g.pick("fib")
        m = g.pick("b", shape=g.bshape(T(g, a).shape), new_p=0.5)
        v = g.scalar(kind_of(T(g, a).dtype) if r.random() < 0.7 else "f")
        g.emit("{0}.masked_fill({1}, %s)" % lit(v), [a, m], "masked_fill", cost=0, exact=True)
    elif u < 0.7:
        a = g.pick("f")
        _, ins = g.partner(a, "f", scalar_p=0)
        w = lit(float(r.choice([0.5, 0.25, 2.0]))) if r.random() < 0.6 else None
        if w:
            g.emit("torch.lerp({0}, {1}, %s)" % w, [a] + ins, "lerp", cost=2)
        else:
            _, ws = g.partner(a, "f", scalar_p=0)
            g.emit("torch.lerp({0}, {1}, {2})", [a] + ins + ws, "lerp", cost=2)
    elif u < 0.85:
        a = g.pick("fi")
        _, b = g.partner(a, "fi", scalar_p=0)
        _, c = g.partner(a, "fi", scalar_p=0)
        op = "addcmul" if r.random() < 0.5 else "addcdiv"
        g.emit("torch.%s({0}, {1}, {2}, value=%s)" % (op, lit(float(r.choice([1.0, 0.5, -2.0])))), [a] + b + c, op, cost=3)
    else:
        a = g.pick("fi")
        _, lo = g.partner(a, "fi", scalar_p=0)
        _, hi = g.partner(a, "fi", scalar_p=0)
        if r.random() < 0.5:
            g.emit("torch.clamp({0}, {1}, {2})", [a] + lo + hi, "clamp", cost=0, exact=True)
        else:
            g.emit("torch.clamp({0}, min={1})", [a] + lo, "clamp", cost=0, exact=True)


# ----------------------------------------------------------------------
# reductions


def _kd(g):
    return lit(bool(g.r.random() < 0.5))


@family(10, "reduce")
def reduce(g):
    r = g.r
    u = int(r.integers(0, 15))
    if u == 0:
        a = g.pick("fib")
        t = T(g, a)
        if r.random() < 0.3 or t.dim() == 0:
            g.emit("torch.sum({0})" if r.random() < 0.7 else "{0}.sum()", [a], "sum", cost=red_cost(t),
                   guard="_sum_ok({0})")
        else:
            ds = dims_arg(r, t.dim())
            dt = ", dtype=torch.float64" if r.random() < 0.1 else ""
            g.emit("torch.sum({0}, %s, keepdim=%s%s)" % (ilist(ds), _kd(g), dt), [a], "sum", cost=red_cost(t, ds),
                   guard="_sum_ok({0}, %s)" % ilist(ds))
    elif u == 1:
        a = g.pick("f")
        t = T(g, a)
        ds = dims_arg(r, t.dim())
        if ds and r.random() < 0.8:
            g.emit("torch.mean({0}, %s, keepdim=%s)" % (ilist(ds), _kd(g)), [a], "mean", cost=red_cost(t, ds) + 1,
                   guard="_sum_ok({0}, %s)" % ilist(ds))
        else:
            g.emit("{0}.mean()", [a], "mean", cost=red_cost(t) + 1, guard="_sum_ok({0})")
    elif u == 2:
        a = g.pick("fib")
        t = T(g, a)
        if t.dim() and r.random() < 0.7:
            d = one_dim(r, t.dim())
            g.emit("torch.prod({0}, %d, keepdim=%s)" % (d, _kd(g)), [a], "prod", cost=red_cost(t, [d]),
                   guard="_prod_ok({0}, %d)" % d)
        else:
            g.emit("torch.prod({0})", [a], "prod", cost=red_cost(t), guard="_prod_ok({0})")
    elif u == 3:
        a = g.pick("fib")
        t = T(g, a)
        op = "amax" if r.random() < 0.5 else "amin"
        ds = dims_arg(r, t.dim())
        g.emit("torch.%s({0}, %s, keepdim=%s)" % (op, ilist(ds), _kd(g)), [a], op, cost=0, exact=True)
    elif u == 4:
        a = g.pick("fib")
        t = T(g, a)
        op = "max" if r.random() < 0.5 else "min"
        if t.dim() == 0 or r.random() < 0.3:
            g.emit("torch.%s({0})" % op, [a], op, cost=0, exact=True)
        else:
            d = one_dim(r, t.dim())
            if r.random() < 0.5:
                g.emit("torch.%s({0}, %d, keepdim=%s)[0]" % (op, d, _kd(g)), [a], op, cost=0, exact=True)
            else:
                g.emit("torch.%s({0}, %d, %s)" % (op, d, _kd(g)), [a], op, nout=2, cost=0, exact=True,
                       guard="_distinct({0}, %d)" % d)
    elif u == 5:
        a = g.pick("fi", new_p=0.4)
        t = T(g, a)
        op = "argmax" if r.random() < 0.5 else "argmin"
        if t.dim() == 0 or r.random() < 0.3:
            g.emit("torch.%s({0})" % op, [a], op, cost=0, exact=True, guard="_distinct({0})")
        else:
            d = one_dim(r, t.dim())
            g.emit("torch.%s({0}, %d, keepdim=%s)" % (op, d, _kd(g)), [a], op, cost=0, exact=True, guard="_distinct({0}, %d)" % d)
    elif u == 6:
        a = g.pick("fib")
        t = T(g, a)
        op = "all" if r.random() < 0.5 else "any"
        if t.dim() == 0 or r.random() < 0.4:
            g.emit("torch.%s({0})" % op, [a], op, cost=0, exact=True, guard=margin_guard(g, [a], "zero"))
        else:
            d = one_dim(r, t.dim())
            g.emit("torch.%s({0}, %d, keepdim=%s)" % (op, d, _kd(g)), [a], op, cost=0, exact=True,
                   guard=margin_guard(g, [a], "zero"))
    elif u == 7:
        a = g.pick("f")
        t = T(g, a)
        op = str(r.choice(["std", "var", "std_mean", "var_mean"]))
        ds = dims_arg(r, t.dim())
        nout = 2 if "_mean" in op else 1
        if ds and r.random() < 0.8:
            g.emit("torch.%s({0}, %s, unbiased=%s, keepdim=%s)" % (op, ilist(ds), lit(bool(r.random() < 0.6)), _kd(g)),
                   [a], op, nout=nout, cost=red_cost(t, ds) + 4)
        else:
            g.emit("torch.%s({0})" % op, [a], op, nout=nout, cost=red_cost(t) + 4)
    elif u == 8:
        a = g.pick("f")
        t = T(g, a)
        ds = dims_arg(r, t.dim())
        g.emit("torch.logsumexp({0}, %s, keepdim=%s)" % (ilist(ds), _kd(g)), [a], "logsumexp", cost=red_cost(t, ds) + 4)
    elif u == 9:
        a = g.pick("f")
        t = T(g, a)
        p = str(r.choice(["1", "2", "3", 'float("inf")', "'fro'"]))
        ds = dims_arg(r, t.dim(), k=int(r.integers(1, 3)) if t.dim() else 0)
        if p == "'fro'" or r.random() < 0.5:
            g.emit("torch.norm({0}, p=%s, dim=%s, keepdim=%s)" % (p if p != "3" else "2", ilist(ds) if ds else "None", _kd(g)),
                   [a], "norm", cost=red_cost(t, ds) + 3)
        else:
            g.emit("torch.linalg.vector_norm({0}, %s, dim=%s, keepdim=%s)" % (p, ilist(ds) if ds else "None", _kd(g)),
                   [a], "linalg_vector_norm", cost=red_cost(t, ds) + 3)
    elif u == 10:
        a = g.pick("fib", ndim=(1, 4))
        t = T(g, a)
        d = one_dim(r, t.dim())
        dt = ", dtype=torch.float64" if r.random() < 0.1 else ""
        g.emit("torch.cumsum({0}, %d%s)" % (d, dt), [a], "cumsum", cost=red_cost(t, [d]))
    elif u == 11:
        a = g.pick("fi", ndim=(1, 4))
        t = T(g, a)
        d = one_dim(r, t.dim())
        g.emit("torch.aminmax({0}, dim=%d, keepdim=%s)" % (d, _kd(g)), [a], "aminmax", nout=2, cost=0, exact=True)
    elif u == 12:
        a = g.pick("f", ndim=(1, 4))
        t = T(g, a)
        d = one_dim(r, t.dim())
        op = str(r.choice(["softmax", "log_softmax"]))
        g.emit("torch.%s({0}, %d)" % (op, d), [a], op, cost=red_cost(t, [d]) + 4)
    elif u == 13:
        a = g.pick("f", ndim=(1, 4))
        t = T(g, a)
        d = one_dim(r, t.dim())
        op = str(r.choice(["softmax", "log_softmax"]))
        g.emit("F.%s({0}, dim=%d)" % (op, d), [a], op, cost=red_cost(t, [d]) + 4)
    else:
        a = g.pick("fi", ndim=(1, 4))
        t = T(g, a)
        d = one_dim(r, t.dim())
        if r.random() < 0.5:
            g.emit("torch.max({0}, dim=%d).values" % d, [a], "max", cost=0, exact=True)
        else:
            g.emit("torch.min({0}, dim=%d).indices" % d, [a], "min", cost=0, exact=True, guard="_distinct({0}, %d)" % d)


# ----------------------------------------------------------------------
# shape and layout


def _factor(r, n, k):
    """k sizes whose product is n (one may be -1)."""
    out = []
    rest = n
    for _ in range(k - 1):
        divs = [d for d in range(1, rest + 1) if rest % d == 0] if rest else [0, 1]
        d = int(r.choice(divs))
        out.append(d)
        rest = rest // d if d else 0
    out.append(rest)
    r.shuffle(out)
    if n and r.random() < 0.4:
        out[int(r.integers(0, len(out)))] = -1
    return out


@family(16, "shape")
def shape(g):
    r = g.r
    u = int(r.integers(0, 26))
    a = g.pick("fib")
    t = T(g, a)
    nd = t.dim()
    if u == 0:
        k = int(r.integers(0, 5)) if t.numel() != 0 else max(1, nd)
        if t.numel() != 1 and k == 0:
            k = 1
        sh = _factor(r, t.numel(), k) if k else []
        m = str(r.choice(["reshape", "view"]))
        if r.random() < 0.7:
            g.emit("{0}.%s(%s)" % (m, ilist(sh)), [a], m, cost=0, exact=True)
        else:
            g.emit("torch.reshape({0}, %s)" % ilist(sh), [a], "reshape", cost=0, exact=True)
    elif u == 1 and nd:
        s = int(r.integers(0, nd))
        e = int(r.integers(s, nd))
        g.emit("torch.flatten({0}, %d, %d)" % (s - nd if r.random() < 0.3 else s, e - nd if r.random() < 0.5 else e),
               [a], "flatten", cost=0, exact=True)
    elif u == 1:
        g.emit("torch.flatten({0})", [a], "flatten", cost=0, exact=True)
    elif u == 2 and nd:
        d = one_dim(r, nd)
        n = t.shape[d]
        sh = _factor(r, n, int(r.integers(1, 4)))
        g.emit("{0}.unflatten(%d, %s)" % (d, ilist(sh)), [a], "unflatten", cost=0, exact=True)
    elif u == 3 and nd:
        p = [int(v) for v in r.permutation(nd)]
        p = [v - nd if r.random() < 0.3 else v for v in p]
        g.emit("{0}.permute(%s)" % ilist(p) if r.random() < 0.6 else "torch.permute({0}, %s)" % ilist(p),
               [a], "permute", cost=0, exact=True)
    elif u == 4 and nd:
        d0, d1 = one_dim(r, nd), one_dim(r, nd)
        g.emit("torch.transpose({0}, %d, %d)" % (d0, d1) if r.random() < 0.5 else "{0}.transpose(%d, %d)" % (d0, d1),
               [a], "transpose", cost=0, exact=True)
    elif u == 5 and nd <= 2:
        g.emit("{0}.t()" if r.random() < 0.5 else "torch.t({0})", [a], "t", cost=0, exact=True)
    elif u == 6:
        if r.random() < 0.4 or not nd:
            g.emit("torch.squeeze({0})", [a], "squeeze", cost=0, exact=True)
        else:
            g.emit("{0}.squeeze(%d)" % one_dim(r, nd), [a], "squeeze", cost=0, exact=True)
    elif u == 7:
        d = int(r.integers(-nd - 1, nd + 1))
        g.emit("torch.unsqueeze({0}, %d)" % d if r.random() < 0.5 else "{0}.unsqueeze(%d)" % d, [a], "unsqueeze", cost=0, exact=True)
    elif u == 8:
        sh = [(int(r.choice(g.sizes)) if d == 1 and r.random() < 0.6 else (-1 if r.random() < 0.4 else d)) for d in t.shape]
        if r.random() < 0.3:
            sh = [int(r.choice(g.sizes))] + sh
        g.emit("{0}.expand(%s)" % ilist(sh), [a], "expand", cost=0, exact=True)
    elif u == 9:
        b = g.pick("fib", pred=lambda v: v.dim() >= nd)
        g.emit("{0}.expand_as({1})", [a, b], "expand_as", cost=0, exact=True)
    elif u == 10:
        reps = [int(r.choice([1, 1, 2, 3])) for _ in range(nd + int(r.integers(0, 2)))]
        if r.random() < 0.5:
            g.emit("{0}.repeat(%s)" % ilist(reps or [2]), [a], "repeat", cost=0, exact=True)
        else:
            g.emit("torch.tile({0}, %s)" % ilist(reps[: max(1, nd)]), [a], "tile", cost=0, exact=True)
    elif u == 11 and nd:
        g.emit("torch.flip({0}, %s)" % ilist(dims_arg(r, nd)), [a], "flip", cost=0, exact=True)
    elif u == 12 and nd:
        ds = dims_arg(r, nd, k=int(r.integers(1, 3)))
        sh = [int(r.integers(-5, 6)) for _ in ds]
        g.emit("torch.roll({0}, %s, %s)" % (ilist(sh), ilist(ds)), [a], "roll", cost=0, exact=True)
    elif u == 13 and nd:
        g.emit("torch.movedim({0}, %d, %d)" % (one_dim(r, nd), one_dim(r, nd)), [a], "movedim", cost=0, exact=True)
    elif u == 14 and nd:
        d = one_dim(r, nd)
        n = t.shape[d]
        st = int(r.integers(-n, n + 1)) if n else 0
        ln = int(r.integers(0, n - (st % n if n and st < 0 else st) + 1)) if n else 0
        g.emit("torch.narrow({0}, %d, %d, %d)" % (d, st, ln) if r.random() < 0.5 else "{0}.narrow(%d, %d, %d)" % (d, st, ln),
               [a], "narrow", cost=0, exact=True)
    elif u == 15 and nd:
        d = one_dim(r, nd)
        n = t.shape[d]
        i = int(r.integers(-n, n)) if n else 0
        g.emit("{0}.select(%d, %d)" % (d, i) if r.random() < 0.5 else "torch.select({0}, %d, %d)" % (d, i),
               [a], "select", cost=0, exact=True)
    elif u in (16, 17) and nd:
        g.emit("{0}[%s]" % _slice_text(r, t.shape), [a], "slice", cost=0, exact=True)
    elif u == 18 and nd:
        d = one_dim(r, nd)
        k = int(r.integers(1, 4))
        op = str(r.choice(["chunk", "split", "tensor_split", "unbind", "split_sizes"]))
        n = t.shape[d]
        if op == "chunk":
            cnt = len(torch.empty(n).chunk(k)) if n else 1
            g.emit("torch.chunk({0}, %d, %d)" % (k, d), [a], "chunk", nout=cnt, cost=0, exact=True)
        elif op == "split":
            cnt = len(torch.empty(n).split(k)) if n else 1
            g.emit("torch.split({0}, %d, %d)" % (k, d), [a], "split", nout=cnt, cost=0, exact=True)
        elif op == "tensor_split":
            cnt = k
            g.emit("torch.tensor_split({0}, %d, %d)" % (k, d), [a], "tensor_split", nout=cnt, cost=0, exact=True)
        elif op == "unbind" and 0 < n <= 6:
            g.emit("torch.unbind({0}, %d)" % d, [a], "unbind", nout=n, cost=0, exact=True)
        else:
            parts = _factor_sum(r, n)
            g.emit("torch.split({0}, %s, %d)" % (ilist(parts), d), [a], "split_with_sizes", nout=len(parts), cost=0, exact=True)
    elif u == 19:
        k = int(r.integers(1, 4))
        d = one_dim(r, nd) if nd else 0
        others = []
        for _ in range(k):
            sh = list(t.shape)
            if nd:
                sh[d] = int(r.choice([0, 1, 2, 3]))
            others.append(g.new_input(sh, t.dtype if r.random() < 0.8 else g.rand_dtype()) if r.random() < 0.6 else a)
        if nd and r.random() < 0.6:
            g.emit("torch.cat([%s], %d)" % (", ".join("{%d}" % i for i in range(k + 1)), d), [a] + others, "cat", cost=0, exact=True)
        else:
            others = [o if T(g, o).shape == t.shape else a for o in others]
            dd = int(r.integers(-nd - 1, nd + 1))
            g.emit("torch.stack([%s], %d)" % (", ".join("{%d}" % i for i in range(k + 1)), dd), [a] + others, "stack", cost=0, exact=True)
    elif u == 20 and nd >= 2:
        d1, d2 = [int(v) for v in r.choice(nd, 2, replace=False)]
        off = int(r.integers(-2, 3))
        g.emit("torch.diagonal({0}, %d, %d, %d)" % (off, d1 - nd if r.random() < 0.4 else d1, d2), [a], "diagonal", cost=0, exact=True)
    elif u == 21 and nd >= 2:
        op = "tril" if r.random() < 0.5 else "triu"
        g.emit("torch.%s({0}, %d)" % (op, int(r.integers(-2, 3))), [a], op, cost=0, exact=True)
    elif u == 22 and nd:
        mode = str(r.choice(["constant", "constant", "reflect", "replicate", "circular"]))
        k = int(r.integers(1, min(nd, 3) + 1))
        pads = [int(r.integers(-1 if mode == "constant" else 0, 3)) for _ in range(2 * k)]
        if mode == "constant":
            g.emit("F.pad({0}, %s, 'constant', %s)" % (ilist(pads), lit(g.scalar(kind_of(t.dtype)) if t.dtype != torch.bool else 0)),
                   [a], "constant_pad_nd", cost=0, exact=True)
        else:
            g.emit("F.pad({0}, %s, mode='%s')" % (ilist(pads), mode), [a], "pad", cost=0, exact=True)
    elif u == 23:
        b = g.new_input(g.bshape(t.shape), g.rand_dtype()) if r.random() < 0.5 else g.pick("fib")
        g.emit("torch.broadcast_tensors({0}, {1})", [a, b], "broadcast_tensors", nout=2, cost=0, exact=True)
    elif u == 24 and nd:
        d = one_dim(r, nd)
        rep = int(r.integers(1, 4))
        g.emit("torch.repeat_interleave({0}, %d, dim=%d)" % (rep, d), [a], "repeat_interleave", cost=0, exact=True)
    elif u == 25 and nd:
        d = one_dim(r, nd)
        n = t.shape[d]
        size = int(r.integers(1, max(2, n + 1)))
        step = int(r.integers(1, 3))
        g.emit("{0}.unfold(%d, %d, %d)" % (d, size, step), [a], "unfold", cost=0, exact=True)
    else:
        g.emit("{0}.view_as({1})" if t.is_contiguous() else "{0}.reshape_as({1})",
               [a, g.new_input(list(t.shape), g.rand_dtype())], "view_as" if t.is_contiguous() else "reshape_as", cost=0, exact=True)


def _factor_sum(r, n):
    parts = []
    rest = n
    while rest > 0 and len(parts) < 4:
        p = int(r.integers(0, rest + 1))
        parts.append(p)
        rest -= p
    parts.append(rest)
    return parts


def _slice_text(r, shape):
    """A basic-indexing subscript: ints, slices (negative bounds, steps), None, ..."""
    items = []
    nd = len(shape)
    used = 0
    k = int(r.integers(1, nd + 1))
    for d in range(k):
        n = shape[d]
        u = r.random()
        if u < 0.2 and n:
            items.append(str(int(r.integers(-n, n))))
        elif u < 0.28:
            items.append("None")
            continue
        else:
            lo = str(int(r.integers(-n - 1, n + 1))) if r.random() < 0.6 else ""
            hi = str(int(r.integers(-n - 1, n + 2))) if r.random() < 0.5 else ""
            st = ":" + str(int(r.choice([1, 2, 3]))) if r.random() < 0.4 else ""
            items.append("%s:%s%s" % (lo, hi, st))
        used += 1
    if r.random() < 0.15 and used < nd:
        items.insert(0, "...")
    return ", ".join(items)


# ----------------------------------------------------------------------
# indexing


def _index_input(g, n, shape, lo_neg=False, distinct=False):
    if distinct:
        t = g.values(list(shape), torch.int64, distinct=True)
        # a permutation of range(k) folded into [0, n)
        t = (t - t.min()) % max(n, 1) if t.numel() else t
        return g.exact_input(t)
    return g.new_input(list(shape), torch.int64, lo=-n if lo_neg else 0, hi=max(n, 1), weight_ok=False)


@family(9, "index")
def index(g):
    r = g.r
    u = int(r.integers(0, 14))
    a = g.pick("fib", ndim=(1, 4))
    t = T(g, a)
    nd = t.dim()
    if nd == 0:
        raise Reject("0-d")
    d = one_dim(r, nd)
    n = t.shape[d]
    if u == 0:
        idx = _index_input(g, n, [int(r.integers(0, 5))])
        g.emit("torch.index_select({0}, %d, {1})" % d, [a, idx], "index_select", cost=0, exact=True)
    elif u == 1:
        sh = list(t.shape)
        sh[d] = int(r.integers(0, 4))
        idx = _index_input(g, n, sh)
        g.emit("torch.gather({0}, %d, {1})" % d, [a, idx], "gather", cost=0, exact=True)
    elif u == 2:
        idx = _index_input(g, t.numel(), g.rand_shape(hi=2), lo_neg=True)
        g.emit("torch.take({0}, {1})", [a, idx], "take", cost=0, exact=True)
    elif u == 3:
        m = g.pick("b", shape=g.bshape(t.shape), new_p=0.6)
        g.emit("torch.masked_select({0}, {1})", [a, m], "masked_select", cost=0, exact=True)
    elif u == 4:
        g.emit("torch.nonzero({0})", [a], "nonzero", cost=0, exact=True, guard=margin_guard(g, [a], "zero"))
    elif u == 5:
        idx = _index_input(g, n, [int(r.integers(1, 4))], lo_neg=True)
        pre = ":, " * (d % nd)
        g.emit("{0}[%s{1}]" % pre, [a, idx], "index", cost=0, exact=True)
    elif u == 6:
        m = g.pick("b", shape=list(t.shape[: int(r.integers(1, nd + 1))]), new_p=0.7)
        g.emit("{0}[{1}]", [a, m], "index", cost=0, exact=True)
    elif u == 7 and nd >= 2:
        i0 = _index_input(g, t.shape[0], [int(r.integers(1, 4))], lo_neg=True)
        i1 = _index_input(g, t.shape[1], [1] if r.random() < 0.3 else list(T(g, i0).shape), lo_neg=True)
        g.emit("{0}[{1}, {2}]", [a, i0, i1], "index", cost=0, exact=True)
    elif u in (8, 9):
        sh = list(t.shape)
        sh[d] = int(r.integers(1, n + 1)) if n else 0
        for k in range(nd):
            if k != d % nd and r.random() < 0.3:
                sh[k] = int(r.integers(1, t.shape[k] + 1)) if t.shape[k] else 0
        idx = _index_input(g, n, sh, distinct=(u == 8))
        if u == 8:
            if r.random() < 0.5:
                src = g.new_input(sh, t.dtype)
                g.emit("torch.scatter({0}, %d, {1}, {2})" % d, [a, idx, src], "scatter", cost=0, exact=True,
                       guard="_distinct({1}, %d)" % d)
            else:
                g.emit("torch.scatter({0}, %d, {1}, %s)" % (d, lit(g.scalar(kind_of(t.dtype)))), [a, idx], "scatter", cost=0,
                       exact=True, guard="_distinct({1}, %d)" % d)
        else:
            src = g.new_input(sh, t.dtype)
            g.emit("torch.scatter_add({0}, %d, {1}, {2})" % d, [a, idx, src], "scatter_add", cost=2)
    elif u == 10:
        k = int(r.integers(1, n + 1)) if n else 0
        idx = _index_input(g, n, [k], distinct=True)
        sh = list(t.shape)
        sh[d] = k
        src = g.new_input(sh, t.dtype)
        op = str(r.choice(["index_add", "index_copy"]))
        g.emit("torch.%s({0}, %d, {1}, {2})" % (op, d), [a, idx, src], op, cost=1 if op == "index_add" else 0,
               exact=op == "index_copy", guard="_distinct({1})")
    elif u == 11:
        idx = _index_input(g, n, [int(r.integers(1, 4))])
        g.emit("torch.index_fill({0}, %d, {1}, %s)" % (d, lit(g.scalar(kind_of(t.dtype)))), [a, idx], "index_fill",
               cost=0, exact=True)
    elif u == 12:
        idx = _index_input(g, n, g.rand_shape(lo=1, hi=2))
        w = g.new_input([n, int(r.choice(g.sizes))], torch.float32)
        g.emit("F.embedding({0}, {1})", [idx, w], "embedding", cost=0, exact=True)
    else:
        idx = _index_input(g, 4, g.rand_shape(hi=2))
        g.emit("F.one_hot({0}, %d)" % int(r.choice([4, 5, 6])), [idx], "one_hot", cost=0, exact=True)


# ----------------------------------------------------------------------
# casts and creation

CASTS = [("to", "{0}.to(torch.%s)"), ("float", "{0}.float()"), ("double", "{0}.double()"), ("half", "{0}.half()"),
         ("long", "{0}.long()"), ("int", "{0}.int()"), ("bool", "{0}.bool()"), ("byte", "{0}.byte()"),
         ("char", "{0}.char()"), ("type_as", "{0}.type_as({1})")]
_CAST_DT = {"float": torch.float32, "double": torch.float64, "half": torch.float16, "long": torch.int64,
            "int": torch.int32, "bool": torch.bool, "byte": torch.uint8, "char": torch.int8}


@family(7, "cast")
def cast(g):
    r = g.r
    name, tpl = CASTS[int(r.integers(0, len(CASTS)))]
    a = g.pick("fib")
    ins = [a]
    if name == "to":
        dt = g.rand_dtype()
        tpl = tpl % str(dt).replace("torch.", "")
    elif name == "type_as":
        b = g.pick("fib", new_p=0.5)
        ins = [a, b]
        dt = T(g, b).dtype
    else:
        dt = _CAST_DT[name]
    src = T(g, a).dtype
    guard = None
    if src.is_floating_point and not dt.is_floating_point and dt != torch.bool:
        guard = "_int_ok({0}, torch.%s)" % str(dt).replace("torch.", "")
        if not g.all_exact([a]):
            guard += " and _margin({0}, 'int')"
    elif src.is_floating_point and dt == torch.bool and not g.all_exact([a]):
        guard = "_margin({0}, 'zero')"
    elif not src.is_floating_point and src != torch.bool and dt not in FLOATS and dt != torch.bool:
        # integer narrowing wraps in torch; ONNX Cast leaves it to the runtime: keep values in range
        guard = "_int_ok({0}.double(), torch.%s)" % str(dt).replace("torch.", "")
    g.emit(tpl, ins, "to" if name != "type_as" else "type_as", cost=1 if dt == torch.float16 else 0, exact=True, guard=guard)


@family(4, "create")
def create(g):
    r = g.r
    u = int(r.integers(0, 11))
    dt = g.rand_dtype()
    dts = str(dt).replace("torch.", "")
    v = g.scalar(kind_of(dt))
    if u < 3:
        a = g.pick("fib")
        op = ["zeros_like", "ones_like", "full_like"][u]
        extra = (", %s" % lit(v)) if op == "full_like" else ""
        dtarg = ", dtype=torch.%s" % dts if r.random() < 0.4 else ""
        g.emit("torch.%s({0}%s%s)" % (op, extra, dtarg), [a], op, cost=0, exact=True)
    elif u < 6:
        a = g.pick("fib")
        sh = g.rand_shape()
        op = ["new_zeros", "new_ones", "new_full"][u - 3]
        extra = (", %s" % lit(g.scalar(kind_of(T(g, a).dtype)))) if op == "new_full" else ""
        g.emit("{0}.%s(%s%s)" % (op, ilist(sh), extra), [a], op, cost=0, exact=True)
    elif u < 8:
        sh = g.rand_shape()
        if u == 6:
            op = str(r.choice(["zeros", "ones"]))
            g.emit("torch.%s(%s, dtype=torch.%s)" % (op, ilist(sh), dts), [], op, cost=0, exact=True)
        else:
            g.emit("torch.full(%s, %s, dtype=torch.%s)" % (ilist(sh), lit(v), dts), [], "full", cost=0, exact=True)
    elif u == 8:
        s0 = int(r.integers(-3, 3))
        e0 = s0 + int(r.integers(0, 8))
        st = int(r.choice([1, 1, 2, 3]))
        if r.random() < 0.5:
            a = g.pick("fib", ndim=(1, 4))
            g.emit("torch.arange({0}.size(%d))" % one_dim(r, T(g, a).dim()), [a], "arange", cost=0, exact=True)
        elif r.random() < 0.5:
            g.emit("torch.arange(%d, %d, %d)" % (s0, e0, st), [], "arange", cost=0, exact=True)
        else:
            g.emit("torch.arange(%s, %s, %s)" % (lit(s0 + 0.5), lit(e0 + 0.25), lit(st * 0.5)), [], "arange", cost=1)
    elif u == 9:
        n = int(r.integers(1, 6))
        if r.random() < 0.5:
            g.emit("torch.eye(%d)" % n, [], "eye", cost=0, exact=True)
        else:
            g.emit("torch.eye(%d, %d, dtype=torch.%s)" % (n, int(r.integers(1, 6)), dts), [], "eye", cost=0, exact=True)
    else:
        g.emit("torch.linspace(%s, %s, %d)" % (lit(float(r.integers(-3, 2))), lit(float(r.integers(2, 6))), int(r.integers(1, 8))),
               [], "linspace", cost=2)


# ----------------------------------------------------------------------
# linear algebra and nn layers (weights as parameters)


def _fin(g, shape, dt=torch.float32):
    return g.new_input(shape, dt)


@family(10, "linalg")
def linalg(g):
    r = g.r
    u = int(r.integers(0, 10))
    a = g.pick("f", ndim=(1, 4), pred=lambda v: v.dtype != torch.float16)
    t = T(g, a)
    nd = t.dim()
    k = t.shape[-1]
    dt = t.dtype
    m = int(r.choice(g.sizes))
    if u == 0:
        if r.random() < 0.5:
            sh = [k, m] if r.random() < 0.8 else [k]
        else:
            sh = list(t.shape[:-2]) + [k, m] if nd >= 2 else [k]
            if sh and r.random() < 0.3:
                sh = [1] * min(len(sh) - 2, 1) + sh[-2:] if len(sh) > 2 else sh
        b = _fin(g, sh, dt)
        g.emit("torch.matmul({0}, {1})" if r.random() < 0.5 else "{0} @ {1}", [a, b], "matmul", cost=red_cost(t, [nd - 1]) + 1)
    elif u == 1 and nd == 2:
        op = str(r.choice(["mm", "addmm", "mv", "linear"]))
        if op == "mm":
            g.emit("torch.mm({0}, {1})", [a, _fin(g, [k, m], dt)], "mm", cost=red_cost(t, [1]) + 1)
        elif op == "addmm":
            c = _fin(g, g.bshape([t.shape[0], m]), dt)
            g.emit("torch.addmm({0}, {1}, {2}, beta=%s, alpha=%s)" % (lit(float(r.choice([1.0, 0.5]))), lit(float(r.choice([1.0, 2.0])))),
                   [c, a, _fin(g, [k, m], dt)], "addmm", cost=red_cost(t, [1]) + 2)
        elif op == "mv":
            g.emit("torch.mv({0}, {1})", [a, _fin(g, [k], dt)], "mv", cost=red_cost(t, [1]) + 1)
        else:
            w = _fin(g, [m, k], dt)
            if r.random() < 0.6:
                g.emit("F.linear({0}, {1}, {2})", [a, w, _fin(g, [m], dt)], "linear", cost=red_cost(t, [1]) + 2)
            else:
                g.emit("F.linear({0}, {1})", [a, w], "linear", cost=red_cost(t, [1]) + 1)
    elif u == 1 and nd == 3:
        op = str(r.choice(["bmm", "baddbmm"]))
        b = _fin(g, [t.shape[0], k, m], dt)
        if op == "bmm":
            g.emit("torch.bmm({0}, {1})", [a, b], "bmm", cost=red_cost(t, [2]) + 1)
        else:
            c = _fin(g, g.bshape([t.shape[0], t.shape[1], m]), dt)
            g.emit("torch.baddbmm({0}, {1}, {2}, beta=%s, alpha=%s)" % (lit(0.5), lit(1.0)), [c, a, b], "baddbmm",
                   cost=red_cost(t, [2]) + 2)
    elif u == 1 or u == 2:
        w = _fin(g, [int(r.choice(g.sizes)), k], dt)
        bias = _fin(g, [T(g, w).shape[0]], dt) if r.random() < 0.6 else None
        g.emit("F.linear({0}, {1}, {2})" if bias else "F.linear({0}, {1})", [a, w] + ([bias] if bias else []), "linear",
               cost=red_cost(t, [nd - 1]) + 2)
    elif u == 3 and nd == 1:
        op = str(r.choice(["dot", "outer"]))
        b = _fin(g, [k] if op == "dot" else [m], dt)
        g.emit("torch.%s({0}, {1})" % op, [a, b], op, cost=red_cost(t) + 1)
    elif u == 3:
        eqs = {2: ["ij,jk->ik", "ij->ji", "ij->j", "ij,ij->i", "ij,kj->ik"], 3: ["bij,bjk->bik", "bij->bji", "bij,bkj->bik", "bij->b"],
               4: ["bhqd,bhkd->bhqk", "abcd->acbd", "abcd,abed->abce"]}.get(nd)
        if not eqs:
            raise Reject("einsum rank")
        eq = str(r.choice(eqs))
        if "," in eq:
            ls, rs = eq.split("->")[0].split(",")
            sizes = dict(zip(ls, t.shape))
            sh = [sizes.get(c, m) for c in rs]
            g.emit("torch.einsum('%s', {0}, {1})" % eq, [a, _fin(g, sh, dt)], "einsum", cost=red_cost(t, [nd - 1]) + 1)
        else:
            g.emit("torch.einsum('%s', {0})" % eq, [a], "einsum", cost=red_cost(t) + 1)
    elif u == 4:
        k2 = int(r.integers(1, nd + 1))
        ns = list(t.shape[nd - k2:])
        if r.random() < 0.5:
            g.emit("F.layer_norm({0}, %s, {1}, {2}, eps=%s)" % (ilist(ns), lit(float(r.choice([1e-5, 1e-3])))),
                   [a, _fin(g, ns, dt), _fin(g, ns, dt)], "layer_norm", cost=red_cost(t, list(range(nd - k2, nd))) + 6)
        else:
            g.emit("F.layer_norm({0}, %s)" % ilist(ns), [a], "layer_norm", cost=red_cost(t, list(range(nd - k2, nd))) + 6)
    elif u == 5 and nd >= 2:
        c = t.shape[1]
        op = str(r.choice(["batch_norm", "group_norm", "instance_norm", "prelu"]))
        if op == "batch_norm":
            rm, rv = _fin(g, [c], dt), g.new_input([c], dt, lo=0.5, hi=2.0)
            g.emit("F.batch_norm({0}, {1}, {2}, {3}, {4}, False, 0.1, %s)" % lit(1e-5), [a, rm, rv, _fin(g, [c], dt), _fin(g, [c], dt)],
                   "batch_norm", cost=6)
        elif op == "group_norm":
            groups = [d for d in range(1, c + 1) if c % d == 0] or [1]
            gg = int(r.choice(groups))
            g.emit("F.group_norm({0}, %d, {1}, {2})" % gg, [a, _fin(g, [c], dt), _fin(g, [c], dt)], "group_norm",
                   cost=red_cost(t) + 6)
        elif op == "instance_norm" and nd >= 3:
            g.emit("F.instance_norm({0})", [a], "instance_norm", cost=red_cost(t, list(range(2, nd))) + 6)
        else:
            g.emit("F.prelu({0}, {1})", [a, _fin(g, [c] if r.random() < 0.6 else [1], dt)], "prelu", cost=1)
    elif u == 6 and nd in (3, 4):
        cin = t.shape[1]
        groups = int(r.choice([d for d in (1, 2, 3) if cin % d == 0] or [1]))
        cout = groups * int(r.integers(1, 3))
        ks = [int(r.integers(1, 4)) for _ in range(nd - 2)]
        stride = int(r.integers(1, 3))
        pad = int(r.integers(0, 2))
        dil = int(r.choice([1, 1, 2]))
        if r.random() < 0.75:
            w = _fin(g, [cout, cin // groups] + ks, dt)
            b = _fin(g, [cout], dt) if r.random() < 0.5 else None
            fn = "conv%dd" % (nd - 2)
            g.emit("F.%s({0}, {1}, %s, stride=%d, padding=%d, dilation=%d, groups=%d)" % (fn, "{2}" if b else "None", stride, pad, dil, groups),
                   [a, w] + ([b] if b else []), fn, cost=red_cost(t, [1]) + 3)
        else:
            w = _fin(g, [cin, cout // groups] + ks, dt)
            fn = "conv_transpose%dd" % (nd - 2)
            g.emit("F.%s({0}, {1}, stride=%d, padding=%d, groups=%d)" % (fn, stride, min(pad, min(ks) - 1), groups),
                   [a, w], fn, cost=red_cost(t, [1]) + 3)
    elif u == 7 and nd in (3, 4):
        k2 = int(r.integers(1, 4))
        s = int(r.integers(1, 3))
        p = int(r.integers(0, k2 // 2 + 1))
        op = str(r.choice(["max", "avg", "amax", "aavg"]))
        dd = nd - 2
        if op == "max":
            g.emit("F.max_pool%dd({0}, %d, %d, %d, ceil_mode=%s)" % (dd, k2, s, p, lit(bool(r.random() < 0.3))), [a],
                   "max_pool%dd" % dd, cost=0, exact=True)
        elif op == "avg":
            g.emit("F.avg_pool%dd({0}, %d, %d, %d, ceil_mode=%s, count_include_pad=%s)" % (
                dd, k2, s, p, lit(bool(r.random() < 0.3)), lit(bool(r.random() < 0.5))), [a], "avg_pool%dd" % dd, cost=4,
                guard="_sum_ok({0}, %s, True)" % ([-1] if dd == 1 else [-2, -1]))  # a window is a sum: seed 9202 program 35270
        elif op == "amax":
            g.emit("F.adaptive_max_pool%dd({0}, %d)" % (dd, int(r.choice([1, 2]))), [a], "adaptive_max_pool%dd" % dd, cost=0, exact=True)
        else:
            g.emit("F.adaptive_avg_pool%dd({0}, %d)" % (dd, int(r.choice([1, 2, 3]))), [a], "adaptive_avg_pool%dd" % dd, cost=4,
                   guard="_sum_ok({0}, %s, True)" % ([-1] if dd == 1 else [-2, -1]))
    elif u == 8:
        op = str(r.choice(["cosine_similarity", "pairwise_distance", "cdist", "cross", "glu"]))
        if op == "cosine_similarity":
            d = one_dim(r, nd)
            g.emit("F.cosine_similarity({0}, {1}, dim=%d)" % d, [a, _fin(g, g.bshape(t.shape), dt)], op, cost=red_cost(t, [d]) + 5)
        elif op == "pairwise_distance" and nd <= 2:
            g.emit("F.pairwise_distance({0}, {1})", [a, _fin(g, list(t.shape), dt)], op, cost=red_cost(t, [nd - 1]) + 4)
        elif op == "cdist" and nd >= 2:
            sh = list(t.shape)
            sh[-2] = m
            g.emit("torch.cdist({0}, {1})", [a, _fin(g, sh, dt)], op, cost=red_cost(t, [nd - 1]) + 4)
        elif op == "cross":
            sh = list(t.shape)
            d = int(r.integers(0, nd))
            sh[d] = 3
            a2 = _fin(g, sh, dt)
            g.emit("torch.cross({0}, {1}, dim=%d)" % d, [a2, _fin(g, sh, dt)], "cross", cost=2)
        else:
            d = one_dim(r, nd)
            g.emit("F.glu({0}, %d)" % d, [a], "glu", cost=2)
    elif u == 9 and nd == 4:
        op = str(r.choice(["pixel_shuffle", "pixel_unshuffle", "nearest", "bilinear"]))
        if op == "pixel_shuffle":
            g.emit("F.pixel_shuffle({0}, 2)", [a], op, cost=0, exact=True)
        elif op == "pixel_unshuffle":
            g.emit("F.pixel_unshuffle({0}, 2)", [a], op, cost=0, exact=True)
        elif op == "nearest":
            g.emit("F.interpolate({0}, scale_factor=2.0, mode='nearest')", [a], "upsample_nearest2d", cost=0, exact=True)
        else:
            g.emit("F.interpolate({0}, size=%s, mode='bilinear', align_corners=%s)" % (
                ilist([int(r.choice(g.sizes)), int(r.choice(g.sizes))]), lit(bool(r.random() < 0.5))), [a], "upsample_bilinear2d", cost=4,
                guard=_interp_guard)
    elif u == 9 and nd == 3:
        mode = str(r.choice(["nearest", "linear"]))
        g.emit("F.interpolate({0}, size=%d, mode='%s')" % (int(r.choice(g.sizes)), mode), [a],
               "upsample_nearest1d" if mode == "nearest" else "upsample_linear1d", cost=0 if mode == "nearest" else 4,
               exact=mode == "nearest", guard=None if mode == "nearest" else _interp_guard)
    else:
        raise Reject("linalg: rank %d" % nd)


@family(4, "sort")
def sort(g):
    r = g.r
    a = g.pick("fi", ndim=(1, 3), new_p=0.4)
    t = T(g, a)
    d = one_dim(r, t.dim())
    u = int(r.integers(0, 3))
    guard = "_distinct({0}, %d)" % d
    if u == 0:
        k = int(r.integers(0, t.shape[d] + 1))
        g.emit("torch.topk({0}, %d, dim=%d, largest=%s)" % (k, d, lit(bool(r.random() < 0.6))), [a], "topk", nout=2,
               cost=0, exact=True, guard=guard)
    elif u == 1:
        g.emit("torch.sort({0}, dim=%d, descending=%s)" % (d, lit(bool(r.random() < 0.5))), [a], "sort", nout=2,
               cost=0, exact=True, guard=guard)
    else:
        g.emit("torch.argsort({0}, dim=%d, descending=%s)" % (d, lit(bool(r.random() < 0.5))), [a], "argsort",
               cost=0, exact=True, guard=guard)


# ----------------------------------------------------------------------
# control flow (scripted form: prim::If / prim::Loop; traced: the taken path)

SHAPE_KEEPING = ("unary", "binary", "ternary", "cast")


@family(6, "control")
def control(g):
    """An `if` on a tensor condition or a `for` over a size, its body drawn
    from the shape-keeping families."""
    r = g.r
    if len(g.blocks) > 2:
        raise Reject("nesting")
    a = g.pick("fib", ndim=(0, 3))
    ta = T(g, a)
    fams = [(n, w, f) for n, w, f in FAMILIES if n in SHAPE_KEEPING]

    def body(start):
        blk = []
        g.blocks.append(blk)
        g.scope.append([])
        cur = start
        try:
            for _ in range(int(r.integers(1, 4))):
                for _ in range(8):
                    n0 = len(blk)
                    _draw(g, fams, prefer=cur)
                    if len(blk) > n0:
                        cur = blk[-1].outs[0] if blk[-1].outs else cur
                        break
        finally:
            g.blocks.pop()
            g.scope.pop()
        return blk, cur

    if r.random() < 0.5:
        c = g.pick("fi", ndim=(0, 3))
        cond = str(r.choice(["bool({0}.sum() > 0)", "bool({0}.max() > 0.5)", "{0}.numel() > 3", "{0}.dim() == 2"]))
        then, t_out = body(a)
        orelse, e_out = body(a)
        if not then or not orelse or t_out == a or e_out == a:
            raise Reject("empty branch")
        tt, te = g.it.env[t_out], g.it.env[e_out]
        if tt.shape != te.shape or tt.dtype != te.dtype:
            raise Reject("branches differ")
        y = g.fresh()
        then[-1].outs[then[-1].outs.index(t_out)] = y
        orelse[-1].outs[orelse[-1].outs.index(e_out)] = y
        s = Stmt("if", [y], cond, [c], "prim::If", cost=max(sum(x.cost for x in then), sum(x.cost for x in orelse)),
                 body=then, orelse=orelse, pre=cond_pre(cond))
        g.add_control(s)
    else:
        acc = g.fresh()
        init = Stmt("assign", [acc], "{0}", [a], "", cost=0, exact=True)
        g.run_or_reject(init)
        lv = "i%d" % len(g.loopvars)
        g.loopvars.append((lv, 0))
        g.it.env[lv] = 0
        try:
            blk, out = body(acc)
            to = g.it.env[out]
            if not blk or out == acc or to.shape != ta.shape or to.dtype != ta.dtype:
                raise Reject("loop changes the carried value")
        except Reject:
            g.current_block().remove(init)
            g.scope[-1].remove(acc)
            g.replay()
            raise
        finally:
            g.loopvars.pop()
            g.it.env.pop(lv, None)
        blk[-1].outs[blk[-1].outs.index(out)] = acc
        if r.random() < 0.4 and ta.dtype != torch.bool:
            # (bool + int is int64: the carried value would change dtype
            # between iterations, FINDINGS.md)
            blk.append(Stmt("assign", [acc], "{0} + {1}", [acc, lv], "add", cost=1))
        cnt = str(r.choice(["2", "3", "{0}.size(0)"])) if ta.dim() else str(r.choice(["2", "3"]))
        s = Stmt("for", [acc], cnt, [a] if "{0}" in cnt else [], "prim::Loop", cost=sum(x.cost for x in blk),
                 body=blk, loopvar=lv)
        try:
            g.add_control(s)
        except Reject:
            g.current_block().remove(init)
            g.scope[-1].remove(acc)
            g.replay()
            raise


def _draw(g, fams, prefer=None):
    r = g.r
    p = [w for _, w, _ in fams]
    tot = float(sum(p))
    name, _, fn = fams[int(r.choice(len(fams), p=[w / tot for w in p]))]
    try:
        if prefer is not None:
            g.prefer = prefer
        fn(g)
    except (Reject, RuntimeError, ValueError, IndexError, ZeroDivisionError) as e:
        # a proposal torch refused before it became a statement: forget its inputs
        g.drop_pending()
        return e
    finally:
        g.prefer = None


# the families of gen_more.py (coverage of the remaining mapped ops) come
# after these in FAMILIES
import gen_more  # noqa: E402,F401


# ----------------------------------------------------------------------
# whole programs


def choose_outputs(g):
    """The values nothing else reads (the DAG's sinks), plus a few others;
    a tuple, a list or a single tensor."""
    r = g.r
    prog = g.prog
    # a sink: no later statement reads it (a loop reading its own carried
    # value does not count)
    later = set()
    sinks = []
    for s in reversed(prog.stmts):
        sinks += [n for n in s.outs if n not in later and n not in sinks]
        later.update(s.reads())
    sinks.reverse()
    defined = [n for s in prog.stmts for n in s.outs]
    outs = sinks[-6:]
    if defined and r.random() < 0.3:
        outs.append(defined[int(r.integers(0, len(defined)))])
    if not outs:
        outs = [defined[-1]] if defined else [prog.inputs[0][0]]
    if r.random() < 0.05 and prog.inputs:
        outs.append(prog.inputs[int(r.integers(0, len(prog.inputs)))][0])
    prog.outputs = outs
    u = r.random()
    prog.container = "single" if len(outs) == 1 and u < 0.6 else ("list" if u < 0.75 else "tuple")


def program_size(r, max_ops):
    """Mostly small programs (fast, easy to reduce), some up to max_ops."""
    u = r.random()
    if u < 0.5:
        return int(r.integers(1, 6))
    if u < 0.85:
        return int(r.integers(4, 16))
    return int(r.integers(10, max_ops + 1))


def generate(r, max_ops=40, families=None):
    from gen import Gen

    g = Gen(r, "ops")
    fams = [f for f in FAMILIES if families is None or f[0] in families]
    target = program_size(r, max_ops)
    for _ in range(int(r.integers(1, 3))):
        g.new_input(g.rand_shape(), g.rand_dtype(), weight_ok=False)
    tries = 0
    # at least 40 tries: a one-statement program whose few proposals torch
    # refused would be given up (a hole in a fixed sample's count)
    while g.prog.n_ops() < target and tries < max(target * 12, 40):
        tries += 1
        _draw(g, fams)
    if not g.prog.stmts:
        raise Reject("nothing generated")
    g.prog.inputs = [(n, t) for n, t in g.prog.inputs]
    choose_outputs(g)
    return g.prog


def mapped_ops():
    """The aten ops this module can emit (by the names the statements count)."""
    return sorted({f[0] for f in FAMILIES})


if __name__ == "__main__":
    import re
    import sys

    src = open(__file__).read()
    names = set(re.findall(r'\(\s*"([a-z_0-9]+)"\s*,\s*"', src)) | set(re.findall(r'"(?:F|torch)\.([a-z_0-9]+)\(', src))
    print(" ".join(sorted(names)))
    sys.exit(0)
