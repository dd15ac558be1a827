"""Ops mode, continued (issue 19, coverage): the mapped ops the first
families did not reach. Each family below registers into gen_ops.FAMILIES
(imported at the end of gen_ops.py, so the draw order is gen_ops' families,
then these).

Random ops (README, "Random ops"): where torch gives a deterministic case
it is generated and compared as any other op (dropout and its variants with
p=0 or p=1 in train mode, bernoulli of 0/1 probabilities, normal with std 0,
multinomial of one-hot rows, randint over a one-value range); otherwise
(rand, randn, *_like, empty*, bernoulli/normal of other arguments) the
statement's op name ends in "~": its outputs are compared by dtype and
shape only (program.Interp marks them, harness.judge skips the values) and
no other statement reads them (they are sinks), so nothing downstream
depends on unspecified values.
"""

import math

import numpy as np
import torch

from gen import Reject, dims_arg, ilist, kind_of, lit, one_dim
from gen_ops import T, _fin, _interp_guard, family, margin_guard, red_cost

try:  # registers torchvision::nms, roi_align, roi_pool with the dispatcher
    import torchvision  # noqa: F401

    HAVE_TV = True
except Exception:  # noqa: BLE001
    HAVE_TV = False


def _choice(r, xs):
    return xs[int(r.integers(0, len(xs)))]


def _const_input(g, t, weight_ok=False):
    """A new user input holding exactly t."""
    return g.exact_input(t)


def _fguard(g, ins, extra=None):
    """Finite inputs below 1e3 (ops whose ONNX forms expand into long chains
    of arithmetic: RNN cells, attention, losses, special functions)."""
    gs = ["_small({%d}, 1e3) and _finite({%d})" % (i, i) for i in range(len(ins))
          if isinstance(g.it.env.get(ins[i]), torch.Tensor) and g.it.env[ins[i]].dtype.is_floating_point]
    if extra:
        gs.append(extra)
    return " and ".join(gs) or None


def _fixed(g, ins):
    """A pre-guard: every tensor operand keeps its current shape (internal
    ops that trust their operands' sizes crash on others, e.g. at the
    dynamic form's second size; that form is then n/a)."""
    return " and ".join("_shape_is({%d}, %s)" % (i, ilist(T(g, n).shape)) for i, n in enumerate(ins)
                        if isinstance(g.it.env.get(n), torch.Tensor))


def _pick_f(g, ndim=(0, 4), f16=False, new_p=0.15):
    return g.pick("f", ndim=ndim, pred=None if f16 else (lambda v: v.dtype != torch.float16), new_p=new_p)


# ----------------------------------------------------------------------
# more elementwise ops

# name, template, cost, exact, guard kind, kinds
UNARY2 = [
    ("expm1", "torch.expm1({0})", 2, False, None, "fi"), ("frac", "torch.frac({0})", 0, True, "int", "f"),
    ("sgn", "torch.sgn({0})", 0, True, "zero", "fi"), ("signbit", "torch.signbit({0})", 0, True, "zero", "fi"),
    ("sinc", "torch.sinc({0})", 3, False, "trig", "f"), ("i0", "torch.i0({0})", 4, False, "small50", "f"),
    ("special_i0e", "torch.special.i0e({0})", 4, False, "small50", "f"),
    ("special_i1", "torch.special.i1({0})", 4, False, "small50", "f"),
    ("special_i1e", "torch.special.i1e({0})", 4, False, "small50", "f"),
    ("special_entr", "torch.special.entr({0})", 3, False, "away:0", "f"),
    ("logit", "torch.logit({0})", 3, False, "away:0, 1", "f"), ("logit", "torch.logit({0}, eps=0.25)", 3, False, "away:0.25, 0.75", "f"),
    ("deg2rad", "torch.deg2rad({0})", 1, False, None, "f"), ("rad2deg", "torch.rad2deg({0})", 1, False, None, "f"),
    ("isneginf", "torch.isneginf({0})", 0, True, None, "fi"), ("isposinf", "torch.isposinf({0})", 0, True, None, "fi"),
    ("tanhshrink", "F.tanhshrink({0})", 3, False, None, "f"), ("positive", "torch.positive({0})", 0, True, None, "fi"),
    ("conj_physical", "torch.conj_physical({0})", 0, True, None, "fi"), ("resolve_conj", "torch.resolve_conj({0})", 0, True, None, "fib"),
    ("resolve_neg", "torch.resolve_neg({0})", 0, True, None, "fib"), ("alias", "torch.ops.aten.alias({0})", 0, True, None, "fib"),
    ("_conj", "torch._conj({0})", 0, True, None, "fi"), ("is_floating_point", "{0} * {0}.is_floating_point()", 1, True, None, "fi"),
    ("rrelu", "F.rrelu({0}, 0.1, 0.3, training=False)", 1, False, None, "f"),
    ("square", "torch.square({0})", 1, False, None, "fi"),
]

BINARY2 = [
    ("atan2", "torch.atan2({0}, {1})", 2, False, "atan2"), ("copysign", "torch.copysign({0}, {1})", 0, True, "sign1"),
    ("hypot", "torch.hypot({0}, {1})", 2, False, "fits"), ("logaddexp", "torch.logaddexp({0}, {1})", 3, False, "small10"),
    ("logaddexp2", "torch.logaddexp2({0}, {1})", 3, False, "small10"), ("fmax", "torch.fmax({0}, {1})", 0, True, None),
    ("fmin", "torch.fmin({0}, {1})", 0, True, None), ("heaviside", "torch.heaviside({0}, {1})", 0, True, "zero0"),
    ("xlogy", "torch.xlogy({0}, {1})", 3, False, "away1:0"), ("special_xlog1py", "torch.special.xlog1py({0}, {1})", 3, False, "away1:-1"),
    ("float_power", "torch.float_power({0}, {1})", 3, False, "pow"), ("true_divide", "torch.true_divide({0}, {1})", 1, False, "den"),
    ("floor_divide", "torch.floor_divide({0}, {1})", 1, True, "int"),
]


@family(5, "unary2")
def unary2(g):
    r = g.r
    name, tpl, cost, keeps, disc, kinds = _choice(r, UNARY2)
    a = g.pick(kinds)
    guard = None
    if not g.all_exact([a]) and disc:
        if disc == "trig":
            guard = "_small({0}, 100.0)"
        elif disc.startswith("away:"):
            guard = "_away({0}, [%s])" % disc[5:]
        elif disc != "small50":
            guard = margin_guard(g, [a], disc)
    if disc == "small50":
        guard = "_small({0}, 50.0)"
    if name in ("i0", "special_i0e", "special_i1", "special_i1e", "special_entr", "logit", "sinc", "tanhshrink"):
        guard = "(%s) and _finite({0})" % guard if guard else "_finite({0})"
    if name == "special_entr":  # -x ln x: NaN below 0, the sign of a rounded 0 decides
        guard = (guard + " and " if guard else "") + "_away({0}, [0])"
    g.emit(tpl, [a], name, cost=cost, exact=keeps, guard=guard)


@family(5, "binary2")
def binary2(g):
    r = g.r
    name, tpl, cost, keeps, disc = _choice(r, BINARY2)
    a = g.pick("fi")
    _, ins = g.partner(a, "fi", scalar_p=0)
    ins = [a] + ins
    ex = g.all_exact(ins)
    guard, pre = None, None
    if disc == "atan2" and not ex:  # atan2(+-0, x < 0) = +-pi: the sign of a rounded 0 decides
        guard = "_margin({0}, 'zero') and _margin({1}, 'zero')"
    elif disc == "sign1" and not ex:
        guard = "_margin({1}, 'zero')"
    elif disc == "fits":
        guard = "_fits({0}, 2) and _fits({1}, 2)"
    elif disc == "small10":
        guard = "_small({0}, 10.0) and _small({1}, 10.0)"
    elif disc == "zero0" and not ex:
        guard = "_margin({0}, 'zero')"
    elif disc and disc.startswith("away1:"):
        guard = "_finite({0}) and _finite({1})" + ("" if ex else " and _away({1}, [%s])" % disc[6:])
    elif disc == "pow":
        guard = "_pow_ok({0}, {1}) and _finite({0}) and _small({0}, 1e3) and _small({1}, 8.0)"
    elif disc == "den" and not ex:
        guard = "_away({1}, [0])"
    elif disc == "int":
        pre = "_nz_div({0}, {1})"
        if not ex:
            guard = "_margin(({0} / {1}).double(), 'int')"
    g.emit(tpl, ins, name, cost=cost, exact=keeps and ex, guard=guard, pre=pre)


@family(3, "inplace_act")
def inplace_act(g):
    """The in-place activation forms (F.relu(x, inplace=True), ...) on a
    clone, so no other value is written."""
    r = g.r
    forms = [("relu_", "F.relu({0}.clone(), inplace=True)", 0), ("elu_", "F.elu({0}.clone(), 0.5, inplace=True)", 2),
             ("celu_", "F.celu({0}.clone(), 1.0, inplace=True)", 2), ("selu_", "F.selu({0}.clone(), inplace=True)", 2),
             ("leaky_relu_", "F.leaky_relu({0}.clone(), 0.2, inplace=True)", 1),
             ("hardtanh_", "F.hardtanh({0}.clone(), -1.0, 2.0, inplace=True)", 0),
             ("relu6_", "F.relu6({0}.clone(), inplace=True)", 0),
             ("hardsigmoid_", "F.hardsigmoid({0}.clone(), inplace=True)", 1),
             ("hardswish_", "F.hardswish({0}.clone(), inplace=True)", 2), ("silu_", "F.silu({0}.clone(), inplace=True)", 2),
             ("mish_", "F.mish({0}.clone(), inplace=True)", 3),
             ("threshold_", "F.threshold({0}.clone(), 0.5, -2.0, inplace=True)", 0),
             ("rrelu_", "F.rrelu({0}.clone(), 0.1, 0.3, training=False, inplace=True)", 1),
             ("dropout_", "F.dropout({0}.clone(), 0.5, training=False, inplace=True)", 0),
             ("alpha_dropout_", "F.alpha_dropout({0}.clone(), 0.5, training=False, inplace=True)", 0),
             ("feature_alpha_dropout_", "F.feature_alpha_dropout({0}.clone(), 0.5, training=False, inplace=True)", 0),
             ("feature_dropout_", "F.dropout2d({0}.clone(), 0.5, training=False, inplace=True)", 0)]
    name, tpl, cost = _choice(r, forms)
    a = g.pick("f", ndim=(3, 4) if name == "feature_dropout_" else (0, 4))
    guard = None
    if name == "threshold_" and not g.all_exact([a]):
        guard = "_margin({0}, 'cmp', 0.5)"
    g.emit(tpl, [a], name, cost=cost, exact=cost == 0, guard=guard)


# ----------------------------------------------------------------------
# more reductions and scans


@family(5, "reduce2")
def reduce2(g):
    r = g.r
    u = int(r.integers(0, 16))
    if u == 0:
        a = g.pick("f")
        t = T(g, a)
        ds = dims_arg(r, t.dim())
        op = _choice(r, ["nansum", "nanmean"])
        g.emit("torch.%s({0}, %s, keepdim=%s)" % (op, ilist(ds), lit(bool(r.random() < 0.5))) if ds else "torch.%s({0})" % op,
               [a], op, cost=red_cost(t, ds) + 2, guard="_sum_ok(torch.nan_to_num({0}, nan=0.0), %s) and _fits({0}, 1)" % (ilist(ds) if ds else "None"))
    elif u == 1:
        a = g.pick("fi", ndim=(1, 3), new_p=0.4)
        t = T(g, a)
        op = _choice(r, ["median", "nanmedian"])
        if r.random() < 0.4:
            g.emit("torch.%s({0})" % op, [a], op, cost=0, exact=True, guard="_distinct({0})")
        else:
            d = one_dim(r, t.dim())
            g.emit("torch.%s({0}, %d, keepdim=%s)" % (op, d, lit(bool(r.random() < 0.5))), [a], op, nout=2, cost=0, exact=True,
                   guard="_distinct({0}, %d)" % d)
    elif u == 2:
        a = g.pick("i", ndim=(1, 3), new_p=0.4)
        t = T(g, a)
        d = one_dim(r, t.dim())
        g.emit("torch.mode({0}, %d).values" % d, [a], "mode", cost=0, exact=True)
    elif u == 3:
        a = g.pick("fi", ndim=(1, 3), new_p=0.4)
        t = T(g, a)
        d = one_dim(r, t.dim())
        k = int(r.integers(1, max(2, t.shape[d] + 1)))
        g.emit("torch.kthvalue({0}, %d, %d, keepdim=%s)" % (k, d, lit(bool(r.random() < 0.5))), [a], "kthvalue", nout=2, cost=0,
               exact=True, guard="_distinct({0}, %d)" % d)
    elif u == 4:
        a = g.pick("fi", ndim=(1, 4))
        t = T(g, a)
        d = one_dim(r, t.dim())
        if not t.dtype.is_floating_point:
            g.emit("torch.cumprod({0}.clamp(-2, 2), %d)" % d, [a], "cumprod", cost=0, exact=True,
                   guard="{0}.size(%d) <= 6 and {0}.dtype != torch.int8 and {0}.dtype != torch.uint8" % d)
        else:
            g.emit("torch.cumprod({0}, %d)" % d, [a], "cumprod", cost=red_cost(t, [d]), guard="_prod_ok({0}, %d)" % d)
    elif u == 5:
        a = g.pick("fi", ndim=(1, 4), new_p=0.4)
        t = T(g, a)
        d = one_dim(r, t.dim())
        op = _choice(r, ["cummax", "cummin"])
        g.emit("torch.%s({0}, %d)" % (op, d), [a], op, nout=2, cost=0, exact=True, guard="_distinct({0}, %d)" % d)
    elif u == 6:
        a = g.pick("f", ndim=(1, 4))
        t = T(g, a)
        d = one_dim(r, t.dim())
        g.emit("torch.logcumsumexp({0}, %d)" % d, [a], "logcumsumexp", cost=red_cost(t, [d]) + 4,
               guard="_finite({0}) and _small({0}, 1e3)")
    elif u == 7:
        a = g.pick("fib", ndim=(1, 4))
        t = T(g, a)
        ds = dims_arg(r, t.dim())
        g.emit("torch.count_nonzero({0}, %s)" % ilist(ds) if r.random() < 0.7 else "torch.count_nonzero({0})", [a],
               "count_nonzero", cost=0, exact=True, guard=margin_guard(g, [a], "zero"))
    elif u == 8:
        a = g.pick("fi", ndim=(1, 4))
        t = T(g, a)
        d = one_dim(r, t.dim())
        n = int(r.choice([1, 1, 2]))
        g.emit("torch.diff({0}, n=%d, dim=%d)" % (n, d), [a], "diff", cost=n, exact=not t.dtype.is_floating_point)
    elif u == 9:
        a = _pick_f(g, ndim=(1, 2))
        t = T(g, a)
        o = _choice(r, ["None", "2", "1", 'float("inf")', "'fro'"])
        if o == "'fro'" and t.dim() != 2:
            o = "None"
        g.emit("torch.linalg.norm({0}, %s)" % o, [a], "linalg_norm", cost=red_cost(t) + 4,
               guard="_fits({0}, 3)" + (" and _nonan({0})" if "inf" in o else ""))
    elif u == 10:
        a = _pick_f(g, ndim=(2, 3))
        t = T(g, a)
        o = _choice(r, ["'fro'", "1", "-1", 'float("inf")', '-float("inf")'])
        g.emit("torch.linalg.matrix_norm({0}, %s)" % o, [a], "linalg_matrix_norm", cost=red_cost(t) + 4,
               guard="_fits({0}, 3) and _nonan({0})")
    elif u == 11:
        a = _pick_f(g, ndim=(2, 4))
        t = T(g, a)
        g.emit("torch.norm({0}, p='fro', dim=[-2, -1], keepdim=%s)" % lit(bool(r.random() < 0.5)), [a], "frobenius_norm",
               cost=red_cost(t) + 4, guard="_fits({0}, 3)")
    elif u == 12:
        n = int(r.integers(1, 4))
        sh = ([int(r.choice([1, 2]))] if r.random() < 0.3 else []) + [n, n]
        x = g.new_input(sh, torch.float32 if r.random() < 0.7 else torch.float64, lo=-2.0, hi=2.0)
        op = _choice(r, ["linalg_det", "logdet"])
        if op == "linalg_det":
            g.emit("torch.linalg.det({0})", [x], op, cost=30, guard="_finite({0})")
        else:
            g.emit("torch.logdet({0})", [x], op, cost=30, guard="_finite({0}) and _away(torch.linalg.det({0}.double()), [0])")
    elif u == 13:
        a = g.pick("fi", ndim=(1, 3))
        t = T(g, a)
        op = _choice(r, ["max", "min"])
        g.emit("torch.%s({0}, %d, keepdim=True).values" % (op, one_dim(r, t.dim())), [a], op, cost=0, exact=True)
    elif u == 14:
        a = g.pick("f", ndim=(1, 4))
        t = T(g, a)
        ds = dims_arg(r, t.dim())
        g.emit("torch.std({0}, %s, correction=0)" % ilist(ds) if False else "torch.var({0}, %s, False)" % ilist(ds), [a], "var",
               cost=red_cost(t, ds) + 4, guard="_fits({0}, 2)")
    else:
        a = g.pick("f", ndim=(2, 4))
        t = T(g, a)
        d = one_dim(r, t.dim())
        g.emit("torch._softmax({0}, %d, False)" % d if r.random() < 0.5 else "torch._log_softmax({0}, %d, False)" % d, [a],
               "_softmax", cost=red_cost(t, [d]) + 4, guard="_finite({0})")


# ----------------------------------------------------------------------
# more shape, indexing and scatter ops


@family(8, "shape2")
def shape2(g):
    r = g.r
    u = int(r.integers(0, 24))
    a = g.pick("fib")
    t = T(g, a)
    nd = t.dim()
    if u == 0 and nd >= 2:
        k = int(r.integers(-3, 5))
        ds = [int(v) for v in r.choice(nd, 2, replace=False)]
        g.emit("torch.rot90({0}, %d, %s)" % (k, ilist(ds)), [a], "rot90", cost=0, exact=True)
    elif u == 1:
        op = _choice(r, ["hstack", "vstack"])
        sh = list(t.shape)
        if op == "hstack" and nd >= 2:
            sh[1] = int(r.choice([0, 1, 2]))
        elif op == "hstack" and nd == 1:
            sh[0] = int(r.choice([0, 1, 2]))
        elif nd >= 1:
            sh[0] = int(r.choice([1, 2]))
        b = g.new_input(sh, t.dtype if r.random() < 0.7 else g.rand_dtype())
        g.emit("torch.%s([{0}, {1}])" % op, [a, b], op, cost=0, exact=True)
    elif u == 2:
        op = _choice(r, ["atleast_1d", "atleast_2d", "atleast_3d"])
        g.emit("torch.%s({0})" % op, [a], op, cost=0, exact=True)
    elif u == 3:
        sh = [(int(r.choice(g.sizes)) if d == 1 and r.random() < 0.6 else d) for d in t.shape]
        if r.random() < 0.3:
            sh = [int(r.choice(g.sizes))] + sh
        g.emit("torch.broadcast_to({0}, %s)" % ilist(sh), [a], "broadcast_to", cost=0, exact=True)
    elif u == 4 and nd:
        d = one_dim(r, nd)
        sh = list(t.shape)
        sh[d] = int(r.integers(0, 4))
        idx = g.new_input(sh, torch.int64, lo=0, hi=max(t.shape[d], 1), weight_ok=False)
        if t.shape[d] == 0:
            raise Reject("empty dim")
        g.emit("torch.take_along_dim({0}, {1}, %d)" % d, [a, idx], "take_along_dim", cost=0, exact=True)
    elif u == 5:
        a = g.pick("fib", ndim=(0, 1))
        b = g.pick("fib", ndim=(0, 1), new_p=0.5)
        if T(g, a).dtype != T(g, b).dtype:
            b = g.new_input([int(r.choice(g.sizes))], T(g, a).dtype)
        ix = _choice(r, ["ij", "xy"])
        g.emit("torch.meshgrid({0}, {1}, indexing='%s')" % ix, [a, b], "meshgrid", nout=2, cost=0, exact=True)
    elif u == 6:
        a = _pick_f(g, ndim=(1, 3))
        t = T(g, a)
        nd = t.dim()
        k = int(r.integers(1, nd + 1))
        sh = list(t.shape[nd - k:]) + [int(r.choice(g.sizes))]
        b = _fin(g, sh, t.dtype)
        if r.random() < 0.5:
            g.emit("torch.tensordot({0}, {1}, %d)" % k, [a, b], "tensordot", cost=red_cost(t, list(range(nd - k, nd))) + 2,
                   guard="_fits({0}, 2) and _fits({1}, 2)")
        else:
            da = list(range(nd - k, nd))
            g.emit("torch.tensordot({0}, {1}, dims=(%s, %s))" % (ilist(da), ilist(list(range(k)))), [a, b], "tensordot",
                   cost=red_cost(t, da) + 2, guard="_fits({0}, 2) and _fits({1}, 2)")
    elif u == 7 and nd:
        d = one_dim(r, nd)
        n = t.shape[d]
        if n == 0:
            raise Reject("empty")
        i = int(r.integers(-n, n))
        sh = list(t.shape)
        del sh[d % nd]
        src = g.new_input(sh, t.dtype)
        g.emit("torch.select_scatter({0}, {1}, %d, %d)" % (d, i), [a, src], "select_scatter", cost=0, exact=True)
    elif u == 8 and nd:
        d = one_dim(r, nd)
        n = t.shape[d]
        st = int(r.integers(0, n + 1))
        step = int(r.choice([1, 1, 2]))
        en = int(r.integers(st, n + 1))
        cnt = len(range(st, en, step))
        sh = list(t.shape)
        sh[d % nd] = cnt
        src = g.new_input(sh, t.dtype)
        g.emit("torch.slice_scatter({0}, {1}, %d, %d, %d, %d)" % (d, st, en, step), [a, src], "slice_scatter", cost=0, exact=True)
    elif u == 9 and nd >= 2:
        off = int(r.integers(-1, 2))
        d1, d2 = [int(v) for v in r.choice(nd, 2, replace=False)]
        sh = list(torch.diagonal(t, off, d1, d2).shape)
        src = g.new_input(sh, t.dtype)
        g.emit("torch.diagonal_scatter({0}, {1}, %d, %d, %d)" % (off, d1, d2), [a, src], "diagonal_scatter", cost=0, exact=True)
    elif u == 10 and nd:
        d = one_dim(r, nd)
        sh = list(t.shape)
        n = sh[d]
        if n == 0:
            raise Reject("empty")
        red = _choice(r, ["sum", "prod", "mean", "amax", "amin"])
        incl = lit(bool(r.random() < 0.5))
        idx = g.new_input(sh, torch.int64, lo=0, hi=n, weight_ok=False)
        src = g.new_input(sh, t.dtype)
        flt = t.dtype.is_floating_point
        # sum/prod/mean of repeated positions in floats: order-dependent rounding
        guard = "_distinct({1}, %d)" % d if flt and red in ("sum", "prod", "mean") else None
        if red == "mean" and not flt:
            raise Reject("integer mean")
        if red in ("amax", "amin") and flt:
            guard = "_nonan({0}) and _nonan({2})"
        if red == "prod" and not flt:
            raise Reject("integer prod overflows")
        if red == "prod":
            guard += " and _prod_ok({0}) and _prod_ok({2})"
        g.emit("torch.scatter_reduce({0}, %d, {1}, {2}, '%s', include_self=%s)" % (d, red, incl), [a, idx, src], "scatter_reduce",
               cost=2 if red in ("sum", "prod", "mean") else 0, exact=red in ("amax", "amin"), guard=guard)
    elif u == 11 and t.is_contiguous():
        n = t.numel()
        if n == 0:
            raise Reject("empty")
        k = int(r.integers(1, 3))
        size = [int(r.integers(1, 4)) for _ in range(k)]
        stride = [int(r.integers(0, 3)) for _ in range(k)]
        off = int(r.integers(0, 3))
        if off + sum((s - 1) * st for s, st in zip(size, stride)) >= n:
            raise Reject("as_strided out of range")
        g.emit("torch.as_strided({0}, %s, %s, %d)" % (ilist(size), ilist(stride), off), [a], "as_strided", cost=0, exact=True)
    elif u == 12:
        g.emit("{0}.T", [a], "numpy_T", cost=0, exact=True)
    elif u == 13 and nd:
        d = one_dim(r, nd)
        k = int(r.integers(1, 4))
        n = t.shape[d]
        if r.random() < 0.5:
            cnt = len(torch.empty(n).chunk(k)) if n else 1
            g.emit("torch.unsafe_chunk({0}, %d, %d)" % (k, d), [a], "unsafe_chunk", nout=cnt, cost=0, exact=True)
        else:
            cnt = len(torch.empty(n).split(k)) if n else 1
            g.emit("torch.unsafe_split({0}, %d, %d)" % (k, d), [a], "unsafe_split", nout=cnt, cost=0, exact=True)
    elif u == 14:
        a = g.pick("fi", ndim=(0, 3))
        t = T(g, a)
        te = g.new_input([int(r.integers(1, 5))], t.dtype, weight_ok=False)
        g.emit("torch.isin({0}, {1}, invert=%s)" % lit(bool(r.random() < 0.3)), [a, te], "isin", cost=0, exact=True,
               guard=None if g.all_exact([a]) else "_margin_set({0}, {1})")
    elif u in (15, 16):
        a = g.pick("fi", ndim=(0, 3))
        t = T(g, a)
        dt = t.dtype if r.random() < 0.8 else g.rand_dtype("fi")
        k = int(r.integers(1, 6))
        b = torch.sort(g.values([k], dt, distinct=True))[0]
        bn = _const_input(g, b)
        right = lit(bool(r.random() < 0.5))
        guard = "bool(({1}.reshape(-1)[1:] > {1}.reshape(-1)[:-1]).all())"  # still sorted at the second size
        if not g.all_exact([a]):
            guard += " and _margin_set({0}, {1})"
        if u == 15:
            g.emit("torch.bucketize({0}, {1}, right=%s)" % right, [a, bn], "bucketize", cost=0, exact=True, guard=guard)
        else:
            if t.dim() == 0:
                raise Reject("0-d")
            g.emit("torch.searchsorted({1}, {0}, right=%s)" % right, [a, bn], "searchsorted", cost=0, exact=True, guard=guard)
    elif u == 17:
        n = int(r.integers(0, 8))
        x = g.new_input([n], torch.int64, lo=0, hi=6, weight_ok=False)
        if r.random() < 0.5:
            g.emit("torch.bincount({0}, minlength=%d)" % int(r.integers(0, 8)), [x], "bincount", cost=0, exact=True)
        else:
            w = g.new_input([n], torch.float32 if r.random() < 0.5 else torch.float64, lo=-2.0, hi=2.0)
            g.emit("torch.bincount({0}, {1})", [x, w], "bincount", cost=red_cost(T(g, w)))
    elif u == 18:
        a = g.pick("fib", ndim=(1, 3), new_p=0.3)
        t = T(g, a)
        if not g.all_exact([a]):
            raise Reject("unique of rounded values")
        guard = None
        v = int(r.integers(0, 4))
        if v == 0:
            g.emit("torch.unique_consecutive({0})", [a], "unique_consecutive", cost=0, exact=True, guard=guard)
        elif v == 1:
            g.emit("torch.unique_consecutive({0}, return_inverse=True, return_counts=True)", [a], "unique_consecutive", nout=3,
                   cost=0, exact=True, guard=guard)
        elif v == 2:
            g.emit("torch.unique({0}, sorted=True, return_inverse=%s, return_counts=%s)" % (
                lit(bool(r.random() < 0.5)), lit(bool(r.random() < 0.5))) if False else "torch.unique({0}, sorted=True)", [a],
                "unique", cost=0, exact=True, guard=guard)
        else:
            d = one_dim(r, t.dim())
            g.emit("torch.unique_consecutive({0}, dim=%d)" % d if r.random() < 0.5 else "torch.unique({0}, dim=%d)" % d, [a],
                   "unique_dim", cost=0, exact=True, guard=guard)
    elif u == 19:
        n = int(r.choice(g.sizes))
        dim = int(r.choice(g.sizes))
        w = g.new_input([n, dim], torch.float32, lo=-2.0, hi=2.0)
        bags = int(r.integers(1, 4))
        idx = g.new_input([bags, int(r.integers(1, 4))], torch.int64, lo=0, hi=n, weight_ok=False)
        mode = _choice(r, ["sum", "mean", "max"])
        g.emit("F.embedding_bag({0}, {1}, mode='%s')" % mode, [idx, w], "embedding_bag", cost=3, exact=mode == "max")
    elif u == 20:
        a = _pick_f(g, ndim=(4, 4))
        t = T(g, a)
        k = [int(r.integers(1, 3)), int(r.integers(1, 3))]
        p = int(r.integers(0, 2))
        s = int(r.integers(1, 3))
        g.emit("F.unfold({0}, %s, dilation=1, padding=%d, stride=%d)" % (ilist(k), p, s), [a], "im2col", cost=0, exact=True)
    elif u == 21:
        c = int(r.choice([1, 2]))
        k = [int(r.integers(1, 3)), int(r.integers(1, 3))]
        out = [int(r.choice(g.sizes)), int(r.choice(g.sizes))]
        p, s = int(r.integers(0, 2)), int(r.integers(1, 3))
        L = 1
        for o, kk in zip(out, k):
            L *= (o + 2 * p - kk) // s + 1
        if L <= 0:
            raise Reject("fold")
        x = g.new_input([int(r.choice([1, 2])), c * k[0] * k[1], L], torch.float32)
        g.emit("F.fold({0}, %s, %s, padding=%d, stride=%d)" % (ilist(out), ilist(k), p, s), [x], "col2im", cost=3,
               guard="_sum_ok({0}) and _fits({0}, 1)")
    elif u == 22:
        a = g.pick("fi", ndim=(1, 3))
        t = T(g, a)
        d = one_dim(r, t.dim())
        g.emit("torch.index_put({0}, (%s{1},), {2})" % ("", ), [a, g.new_input([1], torch.int64, lo=0, hi=max(1, t.shape[0]),
                                                                            weight_ok=False),
                                                   g.new_input([], t.dtype)], "index_put", cost=0, exact=True)
    else:
        a = g.pick("fib", ndim=(1, 3))
        t = T(g, a)
        g.emit("torch.masked_scatter({0}, {1}, {2})", [a, g.pick("b", shape=g.bshape(t.shape), new_p=0.7),
                                                      g.new_input([t.numel()], t.dtype)], "masked_scatter", cost=0, exact=True,
               guard="{0}.is_contiguous()")


# ----------------------------------------------------------------------
# more nn: 3-d convolution and pooling, interpolation, sampling, losses


@family(8, "nn2")
def nn2(g):
    r = g.r
    u = int(r.integers(0, 14))
    if u == 0:
        sh = [int(r.choice([1, 2])), int(r.choice([1, 2, 3]))] + [int(r.choice(g.sizes)) for _ in range(3)]
        x = g.new_input(sh, torch.float32)
        cin = sh[1]
        ks = [int(r.integers(1, 3)) for _ in range(3)]
        cout = int(r.integers(1, 3))
        if r.random() < 0.6:
            w = _fin(g, [cout, cin] + ks)
            g.emit("F.conv3d({0}, {1}, None, stride=%d, padding=%d)" % (int(r.integers(1, 3)), int(r.integers(0, 2))), [x, w],
                   "conv3d", cost=red_cost(T(g, w)) + 3, guard="_fits({0}, 2) and _fits({1}, 2) and _finite({1})")
        else:
            w = _fin(g, [cin, cout] + ks)
            g.emit("F.conv_transpose3d({0}, {1}, stride=%d)" % int(r.integers(1, 3)), [x, w], "conv_transpose3d",
                   cost=red_cost(T(g, w)) + 3, guard="_fits({0}, 2) and _fits({1}, 2) and _finite({1})")
    elif u == 1:
        a = g.pick("f", ndim=(5, 5), pred=lambda v: v.dtype != torch.float16, new_p=0.0) if any(
            isinstance(g.it.env[n], torch.Tensor) and g.it.env[n].dim() == 5 for n in g.visible()) else \
            g.new_input([1, 2] + [int(r.choice(g.sizes)) for _ in range(3)], torch.float32)
        t = T(g, a)
        if t.numel() == 0:
            raise Reject("empty")
        op = _choice(r, ["max", "avg", "amax", "aavg", "maxi"])
        k = int(r.integers(1, 3))
        if op == "max":
            g.emit("F.max_pool3d({0}, %d, %d)" % (k, int(r.integers(1, 3))), [a], "max_pool3d", cost=0, exact=True,
                   guard="_nonan({0})")
        elif op == "maxi":
            g.emit("F.max_pool3d({0}, %d, return_indices=True)[0]" % k, [a], "max_pool3d_with_indices", cost=0, exact=True,
                   guard="_nonan({0})")
        elif op == "avg":
            g.emit("F.avg_pool3d({0}, %d, %d)" % (k, int(r.integers(1, 3))), [a], "avg_pool3d", cost=5,
                   guard="_sum_ok({0}, [-3, -2, -1], True) and _fits({0}, 1)")
        elif op == "amax":
            g.emit("F.adaptive_max_pool3d({0}, %d)" % int(r.choice([1, 2])), [a], "adaptive_max_pool3d", cost=0, exact=True,
                   guard="_nonan({0})")
        else:
            g.emit("F.adaptive_avg_pool3d({0}, %d)" % int(r.choice([1, 2])), [a], "adaptive_avg_pool3d", cost=5,
                   guard="_sum_ok({0}, [-3, -2, -1], True) and _fits({0}, 1)")
    elif u == 2:
        a = g.pick("f", ndim=(3, 4), pred=lambda v: v.dtype != torch.float16 and v.numel() > 0)
        t = T(g, a)
        d = t.dim() - 2
        g.emit("F.max_pool%dd({0}, 2, return_indices=True)[0]" % d, [a], "max_pool%dd_with_indices" % d, cost=0, exact=True,
               guard="_nonan({0})")
    elif u == 3:
        sh = [1, int(r.choice([1, 2]))] + [int(r.choice(g.sizes)) for _ in range(3)]
        x = g.new_input(sh, torch.float32)
        mode = _choice(r, ["nearest", "trilinear", "nearest-exact"])
        size = ilist([int(r.choice(g.sizes)) for _ in range(3)])
        if mode == "trilinear":
            g.emit("F.interpolate({0}, size=%s, mode='trilinear', align_corners=%s)" % (size, lit(bool(r.random() < 0.5))), [x],
                   "upsample_trilinear3d", cost=5, guard=_interp_guard + " and _finite({0})")
        elif mode == "nearest":
            g.emit("F.interpolate({0}, scale_factor=2.0, mode='nearest')", [x], "upsample_nearest3d", cost=0, exact=True)
        else:
            g.emit("F.interpolate({0}, scale_factor=2.0, mode='nearest-exact')", [x], "_upsample_nearest_exact3d", cost=0, exact=True)
    elif u == 4:
        a = g.pick("f", ndim=(3, 4), pred=lambda v: v.dtype != torch.float16 and v.numel() > 0)
        t = T(g, a)
        if t.dim() == 4 and r.random() < 0.6:
            g.emit("F.interpolate({0}, size=%s, mode='bicubic', align_corners=%s)" % (
                ilist([int(r.choice(g.sizes)), int(r.choice(g.sizes))]), lit(bool(r.random() < 0.5))), [a], "upsample_bicubic2d",
                cost=6, guard=_interp_guard + " and _finite({0})")
        else:
            g.emit("F.interpolate({0}, scale_factor=2.0, mode='nearest-exact')", [a],
                   "_upsample_nearest_exact%dd" % (t.dim() - 2), cost=0, exact=True)
    elif u == 5:
        n, c = int(r.choice([1, 2])), int(r.choice([1, 2]))
        h, w = int(r.choice(g.sizes)), int(r.choice(g.sizes))
        x = g.new_input([n, c, h, w], torch.float32)
        oh, ow = int(r.choice(g.sizes)), int(r.choice(g.sizes))
        grid = g.new_input([n, oh, ow, 2], torch.float32, lo=-1.2, hi=1.2)
        mode = _choice(r, ["bilinear", "nearest"])
        pad = _choice(r, ["zeros", "border", "reflection"])
        ac = lit(bool(r.random() < 0.5))
        guard = "_small({0}, 1e3) and _finite({0})"
        if mode == "nearest":
            guard += " and _grid_ok({1}, %s, %d, %d)" % (ac, h, w)
        g.emit("F.grid_sample({0}, {1}, mode='%s', padding_mode='%s', align_corners=%s)" % (mode, pad, ac), [x, grid],
               "grid_sampler", cost=6, exact=False, guard=guard)
    elif u == 6:
        n = int(r.choice([1, 2]))
        theta = g.new_input([n, 2, 3], torch.float32, lo=-1.0, hi=1.0)
        size = [n, int(r.choice([1, 3])), int(r.choice(g.sizes)), int(r.choice(g.sizes))]
        g.emit("F.affine_grid({0}, %s, align_corners=%s)" % (ilist(size), lit(bool(r.random() < 0.5))), [theta],
               "affine_grid_generator", cost=4)
    elif u in (7, 8, 9):
        _loss(g)
    elif u == 10:
        v = g.new_input([int(r.choice(g.sizes)), int(r.choice(g.sizes))], torch.float32, lo=0.5, hi=2.0)
        gg = g.new_input([T(g, v).shape[0], 1], torch.float32, lo=0.5, hi=2.0)
        # torch's kernel does not check g's size (it reads past it): _fixed
        g.emit("torch._weight_norm({0}, {1}, 0)", [v, gg], "_weight_norm", cost=red_cost(T(g, v)) + 4, pre=_fixed(g, [v, gg]))
    elif u == 11:
        a = g.pick("f", ndim=(1, 4), pred=lambda v: v.dtype != torch.float16)
        t = T(g, a)
        n = t.shape[-1]
        if n == 0:
            raise Reject("empty")
        op = _choice(r, ["rfft", "fft", "ifft", "irfft", "fftn"])
        guard = "_finite({0}) and _small({0}, 1e4)"
        cost = 4 * (1 + int(math.log2(max(n, 1)))) + 4
        if op == "rfft":
            g.emit("torch.view_as_real(torch.fft.rfft({0}))", [a], "fft_rfft", cost=cost, guard=guard)
        elif op == "fft":
            g.emit("torch.view_as_real(torch.fft.fft({0}))", [a], "fft_fft", cost=cost, guard=guard)
        elif op == "ifft":
            g.emit("torch.view_as_real(torch.fft.ifft({0}))", [a], "fft_ifft", cost=cost, guard=guard)
        elif op == "fftn":
            g.emit("torch.view_as_real(torch.fft.fftn({0}, dim=[-1]))", [a], "fft_fftn", cost=cost, guard=guard)
        else:
            g.emit("torch.fft.irfft(torch.fft.rfft({0}), n=%d)" % n, [a], "fft_irfft", cost=2 * cost, guard=guard)
    elif u == 12:
        n = int(r.integers(1, 9))
        g.emit("torch.hann_window(%d, periodic=%s)" % (n, lit(bool(r.random() < 0.5))), [], "hann_window", cost=3)
    else:
        ln = int(r.integers(8, 20))
        x = g.new_input([ln] if r.random() < 0.5 else [int(r.choice([1, 2])), ln], torch.float32)
        nfft = int(r.choice([4, 8]))
        hop = int(r.choice([1, 2, 4]))
        win = "torch.hann_window(%d)" % nfft if r.random() < 0.5 else "None"
        g.emit("torch.view_as_real(torch.stft({0}, %d, hop_length=%d, window=%s, center=False, return_complex=True))" % (
            nfft, hop, win), [x], "stft", cost=20, guard="_finite({0}) and _small({0}, 1e4)")


def _loss(g):
    r = g.r
    red = _choice(r, ["mean", "sum", "none"])
    u = int(r.integers(0, 11))
    n = int(r.choice(g.sizes))
    c = int(r.choice(g.sizes))
    guard = "_finite({0}) and _small({0}, 1e3)"
    if u == 0:
        x = g.new_input([n, c], torch.float32)
        if r.random() < 0.3:
            tg = g.new_input([n, c], torch.float32, lo=0.0, hi=1.0)
            g.emit("F.cross_entropy({0}, {1}, reduction='%s')" % red, [x, tg], "cross_entropy_loss", cost=red_cost(T(g, x)) + 8,
                   guard=guard)
        else:
            tg = g.new_input([n], torch.int64, lo=0, hi=c, weight_ok=False)
            ls = lit(float(r.choice([0.0, 0.0, 0.1])))
            g.emit("F.cross_entropy({0}, {1}, reduction='%s', label_smoothing=%s)" % (red, ls), [x, tg], "cross_entropy_loss",
                   cost=red_cost(T(g, x)) + 8, guard=guard)
    elif u == 1:
        x = g.new_input([n, c], torch.float32)
        tg = g.new_input([n], torch.int64, lo=0, hi=c, weight_ok=False)
        ii = int(r.choice([-100, 0, 1]))
        if r.random() < 0.5:
            w = g.new_input([c], torch.float32, lo=0.5, hi=2.0)
            g.emit("F.nll_loss({0}, {1}, {2}, ignore_index=%d, reduction='%s')" % (ii, red), [x, tg, w], "nll_loss", cost=8,
                   guard=guard + " and _nll_ok({1}, %d)" % ii)
        else:
            g.emit("F.nll_loss({0}, {1}, ignore_index=%d, reduction='%s')" % (ii, red), [x, tg], "nll_loss", cost=8,
                   guard=guard + " and _nll_ok({1}, %d)" % ii)
    elif u == 2:
        h, w = int(r.choice(g.sizes)), int(r.choice(g.sizes))
        four = r.random() < 0.6
        x = g.new_input([n, c, h, w] if four else [n, c, h], torch.float32)
        tg = g.new_input([n, h, w] if four else [n, h], torch.int64, lo=0, hi=c, weight_ok=False)
        g.emit("F.nll_loss({0}, {1}, reduction='%s')" % red, [x, tg], "nll_loss2d" if four else "nll_loss_nd",
               cost=red_cost(T(g, x)) + 6, guard=guard)
    elif u == 3:
        x = g.new_input([n, c], torch.float32, lo=-3.0, hi=0.0)
        lt = r.random() < 0.5
        tg = g.new_input([n, c], torch.float32, lo=-3.0 if lt else 0.1, hi=0.0 if lt else 1.0)
        red = _choice(r, ["mean", "sum", "none", "batchmean"])
        g.emit("F.kl_div({0}, {1}, reduction='%s', log_target=%s)" % (red, lit(lt)), [x, tg], "kl_div",
               cost=red_cost(T(g, x)) + 6, guard=guard)
    elif u == 4:
        x = g.new_input([n, c], torch.float32)
        tg = g.new_input([n, c], torch.float32, lo=0.0, hi=1.0)
        if r.random() < 0.5:
            pw = g.new_input([c], torch.float32, lo=0.5, hi=2.0)
            g.emit("F.binary_cross_entropy_with_logits({0}, {1}, pos_weight={2}, reduction='%s')" % red, [x, tg, pw],
                   "binary_cross_entropy_with_logits", cost=red_cost(T(g, x)) + 8, guard=guard)
        else:
            g.emit("F.binary_cross_entropy_with_logits({0}, {1}, reduction='%s')" % red, [x, tg],
                   "binary_cross_entropy_with_logits", cost=red_cost(T(g, x)) + 8, guard=guard)
    elif u in (5, 6, 7, 8):
        a = g.pick("f", ndim=(0, 3), pred=lambda v: v.dtype != torch.float16)
        t = T(g, a)
        b = g.new_input(list(t.shape), t.dtype)
        op = ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss"][u - 5]
        extra = ""
        eg = ""
        if op == "smooth_l1_loss":
            beta = float(r.choice([1.0, 0.5]))
            extra, eg = ", beta=%s" % lit(beta), " and _margin(({0} - {1}).abs(), 'cmp', %s)" % lit(beta)
        elif op == "huber_loss":
            dl = float(r.choice([1.0, 2.0]))
            extra, eg = ", delta=%s" % lit(dl), " and _margin(({0} - {1}).abs(), 'cmp', %s)" % lit(dl)
        g.emit("F.%s({0}, {1}, reduction='%s'%s)" % (op, red, extra), [a, b], op, cost=red_cost(t) + 4,
               guard=guard + " and _finite({1}) and _small({1}, 1e3)" + eg)
    elif u == 9:
        x = g.new_input([n, c], torch.float32)
        y = _const_input(g, torch.from_numpy(np.where(r.random(n * c) < 0.5, 1.0, -1.0)).float().reshape(n, c))
        m = float(r.choice([1.0, 0.5]))
        g.emit("F.hinge_embedding_loss({0}, {1}, margin=%s, reduction='%s')" % (lit(m), red), [x, y], "hinge_embedding_loss",
               cost=red_cost(T(g, x)) + 4, guard=guard + " and _margin({0}, 'cmp', %s)" % lit(m))
    else:
        x1, x2 = g.new_input([n], torch.float32), g.new_input([n], torch.float32)
        y = _const_input(g, torch.from_numpy(np.where(r.random(n) < 0.5, 1.0, -1.0)).float())
        g.emit("F.margin_ranking_loss({0}, {1}, {2}, margin=0.5, reduction='%s')" % red, [x1, x2, y], "margin_ranking_loss",
               cost=red_cost(T(g, x1)) + 4, guard=guard + " and _finite({1}) and _small({1}, 1e3)")


# ----------------------------------------------------------------------
# recurrent layers and attention (weights as parameters)


def _w(g, shape, scale=0.5):
    return g.new_input(shape, torch.float32, lo=-scale, hi=scale)


@family(4, "rnn")
def rnn(g):
    r = g.r
    kind = _choice(r, ["lstm", "gru", "rnn_tanh", "rnn_relu", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"])
    seq, batch = int(r.choice(g.sizes)), int(r.choice([1, 2, 3]))
    inp, hid = int(r.choice([1, 2, 3, 4])), int(r.choice([1, 2, 3]))
    gates = {"lstm": 4, "gru": 3}.get(kind.replace("_cell", ""), 1)
    if kind.endswith("_cell"):
        x = g.new_input([batch, inp], torch.float32, lo=-2.0, hi=2.0)
        h = g.new_input([batch, hid], torch.float32, lo=-1.0, hi=1.0)
        ws = [_w(g, [gates * hid, inp]), _w(g, [gates * hid, hid]), _w(g, [gates * hid]), _w(g, [gates * hid])]
        if kind == "lstm_cell":
            c = g.new_input([batch, hid], torch.float32, lo=-1.0, hi=1.0)
            g.emit("torch.lstm_cell({0}, [{1}, {2}], {3}, {4}, {5}, {6})", [x, h, c] + ws, kind, nout=2, cost=20, pre=_fixed(g, [x, h, c] + ws))
        else:
            g.emit("torch.%s({0}, {1}, {2}, {3}, {4}, {5})" % kind, [x, h] + ws, kind, cost=20, pre=_fixed(g, [x, h] + ws))
        return
    layers = int(r.choice([1, 1, 2]))
    bidir = bool(r.random() < 0.3)
    bias = bool(r.random() < 0.7)
    bf = bool(r.random() < 0.4)
    dirs = 2 if bidir else 1
    x = g.new_input([batch, seq, inp] if bf else [seq, batch, inp], torch.float32, lo=-2.0, hi=2.0)
    params = []
    for layer in range(layers):
        for _ in range(dirs):
            isz = inp if layer == 0 else hid * dirs
            params += [_w(g, [gates * hid, isz]), _w(g, [gates * hid, hid])]
            if bias:
                params += [_w(g, [gates * hid]), _w(g, [gates * hid])]
    h0 = g.new_input([layers * dirs, batch, hid], torch.float32, lo=-1.0, hi=1.0)
    plist = "[" + ", ".join("{%d}" % (i + (3 if kind == "lstm" else 2)) for i in range(len(params))) + "]"
    tail = "%s, %d, 0.0, False, %s, %s" % (lit(bias), layers, lit(bidir), lit(bf))
    cost = 20 * seq * layers
    if kind == "lstm":
        c0 = g.new_input([layers * dirs, batch, hid], torch.float32, lo=-1.0, hi=1.0)
        g.emit("torch.lstm({0}, [{1}, {2}], %s, %s)" % (plist, tail), [x, h0, c0] + params, "lstm", nout=3, cost=cost,
               pre=_fixed(g, [x, h0, c0] + params))
    else:
        g.emit("torch.%s({0}, {1}, %s, %s)" % (kind, plist, tail), [x, h0] + params, kind, nout=2, cost=cost, pre=_fixed(g, [x, h0] + params))


@family(2, "attention")
def attention(g):
    r = g.r
    heads = int(r.choice([1, 2]))
    e = heads * int(r.choice([1, 2, 3]))
    b, lq = int(r.choice([1, 2])), int(r.choice(g.sizes))
    x = g.new_input([b, lq, e], torch.float32, lo=-2.0, hi=2.0)
    qkv_w, qkv_b = _w(g, [3 * e, e]), _w(g, [3 * e])
    pw, pb = _w(g, [e, e]), _w(g, [e])
    if r.random() < 0.5:
        g.emit("torch._native_multi_head_attention({0}, {0}, {0}, %d, %d, {1}, {2}, {3}, {4}, need_weights=False)[0]" % (e, heads),
               [x, qkv_w, qkv_b, pw, pb], "_native_multi_head_attention", cost=40,
               pre=_fixed(g, [x, qkv_w, qkv_b, pw, pb]))
    else:
        ff = int(r.choice([2, 4]))
        ws = [_w(g, [e]), _w(g, [e]), _w(g, [e]), _w(g, [e]), _w(g, [ff, e]), _w(g, [ff]), _w(g, [e, ff]), _w(g, [e])]
        ws[0] = g.new_input([e], torch.float32, lo=0.5, hi=1.5)
        ws[2] = g.new_input([e], torch.float32, lo=0.5, hi=1.5)
        g.emit("torch._transformer_encoder_layer_fwd({0}, %d, %d, {1}, {2}, {3}, {4}, %s, %s, 1e-5, {5}, {6}, {7}, {8}, {9}, {10}, "
               "{11}, {12})" % (e, heads, lit(bool(r.random() < 0.5)), lit(bool(r.random() < 0.5))),
               [x, qkv_w, qkv_b, pw, pb] + ws, "_transformer_encoder_layer_fwd", cost=80,
               pre=_fixed(g, [x, qkv_w, qkv_b, pw, pb] + ws))


# ----------------------------------------------------------------------
# random ops: deterministic cases compared as usual, the rest by dtype and shape


@family(4, "random")
def random_ops(g):
    r = g.r
    u = int(r.integers(0, 16))
    if u == 0:
        a = g.pick("f")
        p = _choice(r, ["0.0", "1.0"])
        fn = _choice(r, ["F.dropout", "F.alpha_dropout", "F.feature_alpha_dropout", "F.dropout1d", "F.dropout2d", "F.dropout3d"])
        nd = T(g, a).dim()
        if fn == "F.dropout1d" and nd not in (2, 3) or fn == "F.dropout2d" and nd not in (3, 4) or fn == "F.dropout3d" and nd not in (4, 5):
            fn = "F.dropout"
        if fn == "F.feature_alpha_dropout" and nd < 2:
            fn = "F.alpha_dropout"
        op = {"F.dropout": "dropout", "F.alpha_dropout": "alpha_dropout", "F.feature_alpha_dropout": "feature_alpha_dropout"}.get(
            fn, "feature_dropout")
        g.emit("%s({0}, %s, training=True)" % (fn, p), [a], op, cost=0, exact=True)
    elif u == 1:
        sh = g.rand_shape()
        pv = torch.from_numpy((r.random(int(np.prod(sh)) if sh else 1) < 0.5).astype(np.float64)).reshape(sh)
        p = _const_input(g, pv.to(_choice(r, [torch.float32, torch.float64])))
        g.emit("torch.bernoulli({0})", [p], "bernoulli", cost=0, exact=True)
    elif u == 2:
        a = g.pick("f")
        g.emit("torch.bernoulli({0}, %s)" % _choice(r, ["0.0", "1.0"]), [a], "bernoulli", cost=0, exact=True)
    elif u == 3:
        a = g.pick("f", pred=lambda v: v.dtype != torch.float16)
        if r.random() < 0.5:
            g.emit("torch.normal({0}, 0.0)", [a], "normal", cost=0, exact=True)
        else:
            g.emit("torch.normal(%s, 0.0, %s)" % (lit(float(r.choice([0.0, 2.5, -1.0]))), ilist(g.rand_shape())), [], "normal",
                   cost=0, exact=True)
    elif u == 4:
        rows = int(r.integers(1, 4))
        k = int(r.choice(g.sizes))
        oh = torch.zeros(rows, k, dtype=torch.float32)
        oh[torch.arange(rows), torch.from_numpy(r.integers(0, k, rows))] = float(r.choice([1.0, 0.5, 3.0]))
        p = _const_input(g, oh if r.random() < 0.7 else oh[0].clone())
        ns = int(r.integers(1, 4))
        g.emit("torch.multinomial({0}, %d, True)" % ns if r.random() < 0.6 else "torch.multinomial({0}, 1)", [p], "multinomial",
               cost=0, exact=True, guard="bool((({0} != 0).sum(-1) == 1).all())")  # one-hot rows (also at the second size)
    elif u == 5:
        lo = int(r.integers(-3, 5))
        if r.random() < 0.5:
            g.emit("torch.randint(%d, %d, %s)" % (lo, lo + 1, ilist(g.rand_shape())), [], "randint", cost=0, exact=True)
        else:
            a = g.pick("fi")
            g.emit("torch.randint_like({0}, %d, %d)" % (lo if T(g, a).dtype != torch.uint8 else abs(lo), (lo if T(g, a).dtype != torch.uint8 else abs(lo)) + 1),
                   [a], "randint_like", cost=0, exact=True)
    else:
        _random_shape_only(g, u)


def _random_shape_only(g, u):
    """Unspecified values: op names end in "~" (compared by dtype and shape; never read)."""
    r = g.r
    sh = ilist(g.rand_shape())
    dt = _choice(r, ["float32", "float64"])
    forms = [("rand~", "torch.rand(%s)" % sh, False), ("randn~", "torch.randn(%s, dtype=torch.%s)" % (sh, dt), False),
             ("rand_like~", "torch.rand_like({0})", True), ("randn_like~", "torch.randn_like({0})", True),
             ("randint~", "torch.randint(0, 10, %s)" % sh, False), ("randint_like~", "torch.randint_like({0}, 5)", True),
             ("empty~", "torch.empty(%s, dtype=torch.%s)" % (sh, dt), False), ("empty_like~", "torch.empty_like({0})", True),
             ("new_empty~", "{0}.new_empty(%s)" % sh, True), ("bernoulli~", "torch.bernoulli({0}, 0.5)", True),
             ("normal~", "torch.normal({0}, 1.0)", True), ("dropout~", "F.dropout({0}, 0.5, training=True)", True)]
    name, tpl, takes = forms[(u * 7 + int(r.integers(0, len(forms)))) % len(forms)]
    ins = [g.pick("f", pred=lambda v: v.dtype != torch.float16)] if takes else []
    outs = g.emit(tpl, ins, name, cost=0)
    for n in outs:  # a sink: nothing reads an unspecified value
        for lvl in g.scope:
            if n in lvl:
                lvl.remove(n)


# ----------------------------------------------------------------------
# scripted builtins: sizes, scalars, lists, tensors made from Python values


@family(5, "builtins")
def builtins(g):
    r = g.r
    a = g.pick("fib", ndim=(1, 4))
    t = T(g, a)
    nd = t.dim()
    u = int(r.integers(0, 17))
    if u == 16:
        g.emit("{0} * int({0}.is_pinned())", [a], "is_pinned", cost=1, exact=True)
    elif u == 0:
        g.emit("{0} * len({0}.size())", [a], "len", cost=1, exact=True)
    elif u == 1:
        g.emit("{0}.reshape(list({0}.size()))", [a], "list", cost=0, exact=True)
    elif u == 2:
        g.emit("{0}.reshape([{0}.size(0)] + [-1])" if t.numel() else "{0}.reshape([{0}.size(0)] + [0])", [a], "reshape", cost=0, exact=True)
    elif u == 3:
        g.emit("torch.tensor([{0}.size(0), {0}.dim(), {0}.numel()])", [a], "tensor", cost=0, exact=True)
    elif u == 4:
        g.emit("torch.full_like({0}, float({0}.numel()))" if r.random() < 0.5 else "{0} + int({0}.size(-1))", [a], "Float", cost=1,
               exact=True)
    elif u == 5:
        b = g.pick("f", ndim=(0, 0), new_p=0.5)
        g.emit("{0} * float({1})" if r.random() < 0.5 else "{0} * {1}.item()", [a, b], "Float", cost=1,
               guard="_finite({1}) and _small({1}, 1e3)")
    elif u == 6:
        g.emit("{0}.new_zeros([max({0}.size(0), 2), min({0}.dim(), 3)])", [a], "prim::max", cost=0, exact=True)
    elif u == 7:
        g.emit("torch.zeros([2, 3], dtype={0}.dtype)", [a], "prim::dtype", cost=0, exact=True)
    elif u == 8:
        g.emit("torch.scalar_tensor(%s)" % lit(float(r.choice([0.5, -2.0, 3.0]))), [], "scalar_tensor", cost=0, exact=True)
    elif u == 9:
        g.emit("torch.as_tensor({0}, dtype=torch.float64)", [a], "as_tensor", cost=0, exact=True,
               guard=None if t.dtype != torch.float16 else "True")
    elif u == 10:
        g.emit("{0} + ({0}.size(0) // 2)", [a], "floordiv", cost=1, exact=True)
    elif u == 11:
        g.emit("torch.tensor(%s)" % lit(float(r.choice([1.5, -0.25, 7.0]))) if r.random() < 0.5 else
               "torch.tensor([%d, %d], dtype=torch.int32)" % (int(r.integers(-5, 5)), int(r.integers(-5, 5))), [], "tensor",
               cost=0, exact=True)
    elif u == 12:
        g.emit("{0}.flatten()[:{0}.size(0)]", [a], "slice", cost=0, exact=True)
    elif u == 13:
        g.emit("torch.arange({0}.size(-1)) * bool({0}.numel() > 2)", [a], "Bool", cost=0, exact=True)
    elif u == 14:
        g.emit("torch._shape_as_tensor({0})", [a], "_shape_as_tensor", cost=0, exact=True)
    else:
        g.emit("{0}.view({0}.size())", [a], "view", cost=0, exact=True)


# ----------------------------------------------------------------------
# quantization (fake quantize: float to float) and torchvision ops


@family(2, "quant")
def quant(g):
    r = g.r
    u = int(r.integers(0, 4 if HAVE_TV else 3))
    if u == 0:
        a = g.pick("f", dtype=torch.float32)
        sc = float(r.choice([0.1, 0.25, 0.05]))
        zp = int(r.choice([0, 3, -2]))
        g.emit("torch.fake_quantize_per_tensor_affine({0}, %s, %d, -128, 127)" % (lit(sc), zp), [a],
               "fake_quantize_per_tensor_affine", cost=1, guard="_margin({0} / %s, 'int') and _finite({0})" % lit(sc))
    elif u == 1:
        a = g.pick("f", ndim=(1, 4), dtype=torch.float32)
        t = T(g, a)
        c = t.shape[0]
        if c == 0:
            raise Reject("empty")
        scale = _const_input(g, torch.from_numpy(r.choice([0.1, 0.25, 0.5], c)).float())
        zp = _const_input(g, torch.from_numpy(r.integers(-3, 4, c)).int())
        g.emit("torch.fake_quantize_per_channel_affine({0}, {1}, {2}, 0, -128, 127)", [a, scale, zp],
               "fake_quantize_per_channel_affine", cost=1,
               guard="_margin({0} / {1}.reshape([-1] + [1] * ({0}.dim() - 1)), 'int') and _finite({0})")
    elif u == 2:
        a = g.pick("f", dtype=torch.float32)
        sc = float(r.choice([0.1, 0.25]))
        g.emit("torch.dequantize(torch.quantize_per_tensor({0}, %s, %d, torch.quint8))" % (lit(sc), int(r.choice([0, 10, 128]))),
               [a], "quantize_per_tensor", cost=1, guard="_margin({0} / %s, 'int') and _finite({0})" % lit(sc))
    else:
        n = int(r.integers(1, 7))
        xy = torch.from_numpy(r.integers(0, 10, (n, 2))).float()
        wh = torch.from_numpy(r.integers(1, 6, (n, 2))).float()
        boxes = _const_input(g, torch.cat([xy, xy + wh], 1))
        scores = _const_input(g, torch.from_numpy(r.permutation(n)).float() / 4)
        if r.random() < 0.5:
            g.emit("torch.ops.torchvision.nms({0}, {1}, %s)" % lit(float(r.choice([0.3, 0.5, 0.7]))), [boxes, scores], "nms",
                   cost=0, exact=True, guard="_iou_margin({0}, 0.3) and _iou_margin({0}, 0.5) and _iou_margin({0}, 0.7)")
        else:
            feat = g.new_input([1, int(r.choice([1, 2])), int(r.choice(g.sizes)) + 4, int(r.choice(g.sizes)) + 4], torch.float32)
            bi = _const_input(g, torch.cat([torch.zeros(n, 1), torch.cat([xy, xy + wh], 1) / 2], 1))
            if r.random() < 0.5:
                g.emit("torch.ops.torchvision.roi_align({0}, {1}, 1.0, 2, 2, 2, %s)" % lit(bool(r.random() < 0.5)), [feat, bi],
                       "roi_align", cost=6, guard="_small({0}, 1e3) and _finite({0})")
            else:
                g.emit("torch.ops.torchvision.roi_pool({0}, {1}, 1.0, 2, 2)[0]", [feat, bi], "roi_pool", cost=0, exact=True,
                       guard="_nonan({0})")


# ----------------------------------------------------------------------
# internal and low-level forms: _cast_*, convolution, explicit pads, ...

_CASTS2 = [("_cast_Byte", torch.uint8), ("_cast_Char", torch.int8), ("_cast_Double", torch.float64),
           ("_cast_Float", torch.float32), ("_cast_Half", torch.float16), ("_cast_Int", torch.int32),
           ("_cast_Long", torch.int64), ("_cast_Short", torch.int16)]


@family(6, "misc")
def misc(g):
    r = g.r
    u = int(r.integers(0, 16))
    if u == 0:
        misc_cast(g, f16_guard=True)
    elif u == 1:
        a = _pick_f(g, ndim=(0, 2))
        t = T(g, a)
        n, m = int(r.choice(g.sizes)), int(r.choice(g.sizes))
        v1, v2 = _fin(g, [n], torch.float32), _fin(g, [m], torch.float32)
        inp = g.new_input(g.bshape([n, m]), torch.float32)
        g.emit("torch.addr({0}, {1}, {2}, beta=%s, alpha=%s)" % (lit(float(r.choice([1.0, 0.5]))), lit(float(r.choice([1.0, 2.0])))),
               [inp, v1, v2], "addr", cost=3, guard="_fits({1}, 2) and _fits({2}, 2) and _finite({1}) and _finite({2})")
    elif u == 2:
        a = g.pick("f", ndim=(3, 4), pred=lambda v: v.dtype != torch.float16 and v.numel() > 0)
        t = T(g, a)
        dd = t.dim() - 2
        cin, cout = t.shape[1], int(r.integers(1, 3))
        ks = [int(r.integers(1, 3)) for _ in range(dd)]
        w = _fin(g, [cout, cin] + ks, t.dtype)
        one, zero = ilist([1] * dd), ilist([0] * dd)
        if r.random() < 0.5:
            g.emit("torch.convolution({0}, {1}, None, %s, %s, %s, False, %s, 1)" % (one, zero, one, zero), [a, w], "convolution",
                   cost=red_cost(T(g, w)) + 3, guard="_fits({0}, 2) and _fits({1}, 2) and _finite({1})")
        elif r.random() < 0.5:
            g.emit("torch._convolution({0}, {1}, None, %s, %s, %s, False, %s, 1, False, False, True, True)" % (one, zero, one, zero),
                   [a, w], "_convolution", cost=red_cost(T(g, w)) + 3, guard="_fits({0}, 2) and _fits({1}, 2) and _finite({1})")
        else:
            g.emit("F.conv%dd({0}, {1}, padding='%s')" % (dd, _choice(r, ["same", "valid"])), [a, w], "_convolution_mode",
                   cost=red_cost(T(g, w)) + 3, guard="_fits({0}, 2) and _fits({1}, 2) and _finite({1})")
    elif u == 3:
        tt, b, c = int(r.choice(g.sizes)), int(r.choice([1, 2])), int(r.choice([1, 2, 3]))
        x = g.new_input([tt, b, c], torch.float32)
        k, co = int(r.integers(1, 4)), int(r.choice([1, 2]))
        w, bias = _fin(g, [k, c, co]), _fin(g, [co])
        g.emit("torch.conv_tbc({0}, {1}, {2}, %d)" % int(r.integers(0, 2)), [x, w, bias], "conv_tbc", cost=red_cost(T(g, w)) + 3,
               guard="_fits({0}, 2) and _fits({1}, 2) and _finite({1}) and _finite({2})")
    elif u == 4:
        a = g.pick("f", ndim=(2, 5), pred=lambda v: v.numel() > 0)
        t = T(g, a)
        dd = min(t.dim() - 1, 3)
        kind = _choice(r, ["reflection", "replication"])
        pads = []
        for d in range(dd):
            n = t.shape[t.dim() - 1 - d]
            hi = n - 1 if kind == "reflection" else 2
            pads += [int(r.integers(0, max(hi, 0) + 1)), int(r.integers(0, max(hi, 0) + 1))]
        g.emit("torch._C._nn.%s_pad%dd({0}, %s)" % (kind, dd, ilist(pads)), [a], "%s_pad%dd" % (kind, dd), cost=0, exact=True)
    elif u == 5:
        a = g.pick("fib", ndim=(1, 4))
        t = T(g, a)
        sh = list(reversed(list(t.shape)))
        g.emit("torch._reshape_from_tensor({0}, torch.tensor(%s))" % ilist(sh), [a], "_reshape_from_tensor", cost=0, exact=True)
    elif u == 6:
        a = g.pick("fib", ndim=(1, 4))
        g.emit("torch._dim_arange({0}, %d)" % one_dim(r, T(g, a).dim()), [a], "_dim_arange", cost=0, exact=True)
    elif u == 7:
        a = g.pick("fib")
        v = g.scalar(kind_of(T(g, a).dtype))
        if r.random() < 0.5:
            g.emit("torch.fill({0}, %s)" % lit(v), [a], "fill", cost=0, exact=True)
        else:
            g.emit("torch.ops.aten.zero({0})", [a], "zero", cost=0, exact=True)
    elif u == 8:
        a = g.pick("fi", ndim=(1, 3), pred=lambda v: 3 in v.shape)
        t = T(g, a)
        d = list(t.shape).index(3) if 3 in t.shape else None
        if d is None:
            raise Reject("no dim of 3")
        b = g.new_input(list(t.shape), t.dtype)
        g.emit("torch.linalg.cross({0}, {1}, dim=%d)" % d, [a, b], "linalg_cross", cost=2,
               guard="_finite({0}) and _finite({1}) and _fits({0}, 2) and _fits({1}, 2)")
    elif u == 9:
        a = g.pick("fib")
        g.emit("torch.ops.aten.lift({0})" if r.random() < 0.5 else "torch.ops.aten.lift_fresh({0})", [a], "lift", cost=0, exact=True)
    elif u == 10:
        n, dim = int(r.choice(g.sizes)), int(r.choice(g.sizes))
        w = g.new_input([n, dim], torch.float32, lo=-2.0, hi=2.0)
        idx = g.new_input(g.rand_shape(lo=1, hi=2), torch.int64, lo=0, hi=n, weight_ok=False)
        g.emit("F.embedding({0}, {1}.clone(), max_norm=%s)" % lit(float(r.choice([1.0, 2.0]))), [idx, w], "embedding_renorm", cost=6)
    elif u == 11:
        a = g.pick("f", ndim=(1, 4), pred=lambda v: v.dtype != torch.float16)
        t = T(g, a)
        ns = list(t.shape[-1:])
        g.emit("torch.native_layer_norm({0}, %s, None, None, 1e-5)[0]" % ilist(ns), [a], "native_layer_norm",
               cost=red_cost(t, [t.dim() - 1]) + 6, guard="_fits({0}, 2)")
    elif u == 12:
        a = g.pick("f")
        g.emit("torch.native_dropout({0}, 0.0, True)[0]" if r.random() < 0.5 else "torch.native_dropout({0}, 0.5, False)[0]", [a],
               "native_dropout", cost=0, exact=True)
    elif u == 13:
        a = g.pick("fib", ndim=(1, 3))
        t = T(g, a)
        g.emit("torch.nonzero({0}, as_tuple=True)[0]", [a], "nonzero_numpy", cost=0, exact=True, guard=margin_guard(g, [a], "zero"))
    elif u == 14:
        a = g.pick("f", ndim=(2, 2), pred=lambda v: v.dtype != torch.float16)
        t = T(g, a)
        g.emit("torch.linalg.matrix_norm({0}, 'fro', dim=(0, 1))", [a], "linalg_matrix_norm", cost=red_cost(t) + 4, guard="_fits({0}, 3)")
    else:
        a = g.pick("fib", ndim=(3, 5), pred=lambda v: v.numel() > 0)
        t = T(g, a)
        pads = []
        for d in range(t.dim() - 2):
            n = t.shape[t.dim() - 1 - d]
            pads += [int(r.integers(0, n + 1)), int(r.integers(0, n + 1))]
        g.emit("torch._C._nn._pad_circular({0}, %s)" % ilist(pads), [a], "_pad_circular", cost=0, exact=True)


_Q = "torch.quantize_per_tensor({%d}, 0.1, 10, torch.quint8)"
_DQ = "torch.dequantize(" + _Q + ")"
# name, template over quantized operands (%s), the float result the
# requantization rounds (over dequantized operands), output scale
QOPS = [("add", "torch.ops.quantized.add(%s, %s, 0.17, 3)", "(%s + %s) / 0.17", 2),
        ("add_relu", "torch.ops.quantized.add_relu(%s, %s, 0.17, 3)", "(%s + %s) / 0.17", 2),
        ("mul", "torch.ops.quantized.mul(%s, %s, 0.17, 3)", "(%s * %s) / 0.17", 2),
        ("mul_relu", "torch.ops.quantized.mul_relu(%s, %s, 0.17, 3)", "(%s * %s) / 0.17", 2),
        ("cat", "torch.ops.quantized.cat([%s, %s], 0, 0.17, 3)", "torch.cat([%s, %s]) / 0.17", 2),
        ("cat_relu", "torch.ops.quantized.cat_relu([%s, %s], 0, 0.17, 3)", "torch.cat([%s, %s]) / 0.17", 2),
        ("sigmoid", "torch.ops.quantized.sigmoid(%s, 0.00390625, 0)", "torch.sigmoid(%s) / 0.00390625", 1),
        ("hardswish", "torch.ops.quantized.hardswish(%s, 0.17, 3)", "F.hardswish(%s) / 0.17", 1),
        ("leaky_relu", "torch.ops.quantized.leaky_relu(%s, 0.25, False, 0.17, 3)", "F.leaky_relu(%s, 0.25) / 0.17", 1),
        ("relu6", "torch.ops.quantized.relu6(%s, False)", "%s / 0.1", 1)]


@family(4, "quantized")
def quantized(g):
    """quantized:: ops on quantize_per_tensor'd operands, dequantized in the
    same statement (a quantized tensor is no output). Every rounding step
    (the inputs', the result's requantization) keeps its argument away from
    the half-way points (_qmargin)."""
    r = g.r
    if r.random() < 0.15:
        a = g.pick("fib", ndim=(1, 3), new_p=0.3)
        if not g.all_exact([a]):
            raise Reject("unique of rounded values")
        g.emit("torch._unique({0}, True, %s)[0]" % lit(bool(r.random() < 0.5)), [a], "_unique", cost=0, exact=True)
        return
    if r.random() < 0.15:
        seq, b, c = int(r.choice(g.sizes)), int(r.choice([1, 2, 3])), int(r.choice([1, 2]))
        x = g.new_input([seq, b, c], torch.float32)
        lens = sorted([int(r.integers(1, seq + 1)) for _ in range(b)], reverse=True)
        lens[0] = seq
        ln = _const_input(g, torch.tensor(lens, dtype=torch.int64))
        pk = "torch._pack_padded_sequence({0}, {1}, False)"
        g.emit("torch._pad_packed_sequence(%s[0], %s[1], False, 0.0, %d)[0]" % (pk, pk, seq), [x, ln], "_pad_packed_sequence",
               cost=0, exact=True, pre=_fixed(g, [x, ln]))
        return
    if r.random() < 0.4:
        _qnorm(g)
        return
    name, tpl, fl, n = _choice(r, QOPS)
    a = g.pick("f", ndim=(1, 3), pred=lambda v: v.numel() > 0, dtype=torch.float32)
    ins = [a] + ([g.new_input(list(T(g, a).shape), torch.float32)] if n == 2 else [])
    qs = tuple(_Q % i for i in range(n))
    dqs = tuple(_DQ % i for i in range(n))
    guard = " and ".join(["_finite({%d}) and _small({%d}, 12.0) and _qmargin({%d} / 0.1)" % (i, i, i) for i in range(n)] +
                         ["_qmargin(%s)" % (fl % dqs)])
    g.emit("torch.dequantize(%s)" % (tpl % qs), ins, name, cost=1, guard=guard, pre=_fixed(g, ins))


def _qnorm(g):
    """quantized:: normalization layers (plain tensor weights), their
    result requantized at scale 0.17."""
    r = g.r
    kind = _choice(r, ["batch_norm1d", "batch_norm2d", "batch_norm3d", "layer_norm", "group_norm", "instance_norm"])
    relu = kind.startswith("batch_norm") and r.random() < 0.4
    nd = {"batch_norm1d": int(r.choice([2, 3])), "batch_norm2d": 4, "batch_norm3d": 5}.get(kind, int(r.choice([3, 4])))
    c = int(r.choice([1, 2, 4]))
    sh = [int(r.choice([1, 2])), c] + [int(r.choice(g.sizes)) for _ in range(nd - 2)]
    if math.prod(sh) > 256:
        raise Reject("size")
    x = g.new_input(sh, torch.float32, lo=-3.0, hi=3.0)
    w, b = g.new_input([c], torch.float32, lo=0.5, hi=1.5), g.new_input([c], torch.float32, lo=-0.5, hi=0.5)
    q = _Q % 0
    if kind.startswith("batch_norm"):
        mean, var = g.new_input([c], torch.float32, lo=-0.5, hi=0.5), g.new_input([c], torch.float32, lo=0.5, hi=2.0)
        op = kind + ("_relu" if relu else "")
        tpl = "torch.ops.quantized.%s(%s, {1}, {2}, {3}, {4}, 1e-5, 0.17, 3)" % (op, q)
        fl = "F.batch_norm(%s, {3}, {4}, {1}, {2}, False, 0.0, 1e-5)" % (_DQ % 0)
        if relu:
            fl = "F.relu(%s)" % fl
        ins = [x, w, b, mean, var]
    elif kind == "layer_norm":
        op = kind
        tpl = "torch.ops.quantized.layer_norm(%s, [%d], {1}, {2}, 1e-5, 0.17, 3)" % (q, sh[-1])
        w, b = g.new_input([sh[-1]], torch.float32, lo=0.5, hi=1.5), g.new_input([sh[-1]], torch.float32, lo=-0.5, hi=0.5)
        fl = "F.layer_norm(%s, [%d], {1}, {2}, 1e-5)" % (_DQ % 0, sh[-1])
        ins = [x, w, b]
    elif kind == "group_norm":
        op = kind
        gr = int(r.choice([d for d in (1, 2) if c % d == 0]))
        tpl = "torch.ops.quantized.group_norm(%s, %d, {1}, {2}, 1e-5, 0.17, 3)" % (q, gr)
        fl = "F.group_norm(%s, %d, {1}, {2}, 1e-5)" % (_DQ % 0, gr)
        ins = [x, w, b]
    else:
        op = kind
        tpl = "torch.ops.quantized.instance_norm(%s, {1}, {2}, 1e-5, 0.17, 3)" % q
        fl = "F.instance_norm(%s, None, None, {1}, {2}, True, 0.0, 1e-5)" % (_DQ % 0)
        ins = [x, w, b]
    # the normalized values carry the statistics' rounding: a wider margin
    g.emit("torch.dequantize(%s)" % tpl, ins, op, cost=12, guard="_qmargin({0} / 0.1) and _qmargin(%s / 0.17, 2e-2)" % fl,
           pre=_fixed(g, ins))


# ----------------------------------------------------------------------
# more draws of what the families above reach rarely (coverage): the 3-d
# and 4-d layers of gen_ops.linalg, the losses, the internal casts


@family(4, "linalg4d")
def linalg4d(g):
    """gen_ops.linalg on a new or existing 3-d/4-d float input (conv2d,
    pools, pixel_shuffle, interpolation need one; few values have that rank)."""
    import gen_ops

    r = g.r
    nd = int(r.choice([3, 4, 4]))
    a = g.pick("f", ndim=(nd, nd), pred=lambda v: v.dtype != torch.float16 and v.numel() > 0, new_p=0.5,
               shape=g.rand_shape(nd, nonempty=True), dtype=torch.float32 if r.random() < 0.8 else torch.float64)
    g.prefer = a
    try:
        gen_ops.linalg(g)
    finally:
        g.prefer = None


@family(2, "loss")
def loss(g):
    _loss(g)


@family(2, "cast2")
def cast2(g):
    r = g.r
    u = int(r.integers(0, 5))
    if u < 3:
        misc_cast(g)
    elif u == 3:
        a = g.pick("i")
        op = _choice(r, ["bitwise_left_shift", "bitwise_right_shift"])
        _, ins = g.partner(a, "i", scalar_p=0)
        g.emit("torch.%s({0}, {1})" % op, [a] + ins, op, cost=0, exact=True, pre="_shift_ok({0}, {1})")
    else:
        a = g.pick("fib", ndim=(1, 4))
        t = T(g, a)
        d = one_dim(r, t.dim())
        n = t.shape[d]
        parts = []
        rest = n
        while rest > 0 and len(parts) < 3:
            p = int(r.integers(0, rest + 1))
            parts.append(p)
            rest -= p
        parts.append(rest)
        g.emit("torch.unsafe_split_with_sizes({0}, %s, %d)" % (ilist(parts), d), [a], "unsafe_split_with_sizes",
               nout=len(parts), cost=0, exact=True)


def misc_cast(g, f16_guard=False):
    """One _cast_* op; f16_guard: a float cast to float16 keeps values in
    its range and away from its subnormals."""
    r = g.r
    name, dt = _choice(r, _CASTS2)
    a = g.pick("fib")
    src = T(g, a).dtype
    guard = None
    if src.is_floating_point and not dt.is_floating_point:
        guard = "_int_ok({0}, torch.%s)" % str(dt).replace("torch.", "")
        if not g.all_exact([a]):
            guard += " and _margin({0}, 'int')"
    elif not src.is_floating_point and src != torch.bool and not dt.is_floating_point:
        guard = "_int_ok({0}.double(), torch.%s)" % str(dt).replace("torch.", "")
    elif f16_guard and dt == torch.float16 and src != torch.float16:
        guard = "_small({0}, 6e4) and _away({0}.abs(), [0]) or not bool(({0} != 0).any())" if src.is_floating_point else None
    tail = ".long()" if dt == torch.int16 else ""
    g.emit("torch.%s({0})%s" % (name, tail), [a], name, cost=1 if dt == torch.float16 else 0, exact=True, guard=guard)
