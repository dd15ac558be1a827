"""The generation context shared by the ops and the views generators.

A Gen holds the program being built and a live interpreter over it: every
proposed statement runs at once on the current values and is kept only if
torch accepts it (and its guards hold), so the generators can propose
loosely and let torch say what is valid.
"""

import math

import numpy as np
import torch

import known
from program import DTYPE_NAME, FLOATS, GuardFailed, Interp, Program, Stmt

# how often each dtype is drawn for a new input
DTYPE_WEIGHTS = [
    (torch.float32, 0.42), (torch.float64, 0.10), (torch.float16, 0.07), (torch.int64, 0.13),
    (torch.int32, 0.08), (torch.int8, 0.04), (torch.uint8, 0.05), (torch.bool, 0.11),
]
MAX_NUMEL = 512
# ops whose ONNX form squares (k=2), cubes (3) or sums (1) in the element
# type where torch accumulates wider: their float inputs are kept below the
# overflow (program.fits); huge values still reach every other op
FITS = {"std": 2, "var": 2, "std_mean": 2, "var_mean": 2, "norm": 3, "linalg_vector_norm": 3, "cosine_similarity": 2,
        "pairwise_distance": 2, "cdist": 2, "layer_norm": 2, "group_norm": 2, "instance_norm": 2, "matmul": 2, "mm": 2,
        "addmm": 2, "mv": 2, "dot": 2, "bmm": 2, "baddbmm": 2, "linear": 2, "einsum": 2, "conv1d": 2, "conv2d": 2,
        "conv_transpose1d": 2, "conv_transpose2d": 2, "sum": 1, "mean": 1, "cumsum": 1, "avg_pool1d": 1, "avg_pool2d": 1,
        "adaptive_avg_pool1d": 1, "adaptive_avg_pool2d": 1, "logsumexp": 1, "scatter_add": 1, "index_add": 1}
ALLOWED_OUT = set(DTYPE_NAME) - {torch.int16}

# float specials, per dtype: huge and tiny magnitudes, subnormals
_HUGE = {torch.float16: 6.0e4, torch.float32: 1.0e30, torch.float64: 1.0e300}
# tiny: small but normal; onnxruntime's vectorized kernels read subnormals
# as zero (FINDINGS.md), which is the runtime's choice, not the exporter's
_TINY = {torch.float16: 1.0e-4, torch.float32: 1.0e-37, torch.float64: 1.0e-300}


def lit(x):
    """A Python literal for a scalar, as source text (TorchScript accepts it)."""
    if isinstance(x, bool):
        return "True" if x else "False"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    if math.isnan(x):
        return 'float("nan")'
    if math.isinf(x):
        return 'float("inf")' if x > 0 else '-float("inf")'
    r = repr(x)
    return r if ("." in r or "e" in r) else r + ".0"


def ilist(xs):
    return "[" + ", ".join(str(int(v)) for v in xs) + "]"


def kind_of(dtype):
    if dtype == torch.bool:
        return "b"
    if dtype.is_floating_point:
        return "f"
    return "i"


class Reject(Exception):
    """The generator's proposal is not usable: try another."""


class Gen:
    def __init__(self, rng, mode="ops", special=None, allow_script_cf=True):
        self.r = rng
        self.prog = Program(mode)
        self.it = Interp(self.prog)
        self.it.on_step = self.known_step
        self.exact = {}  # name -> float values reproducible bit for bit
        self.scope = [[]]  # visible names per nesting level
        self.counter = {"x": 0, "v": 0, "p": 0, "b": 0}
        self.special = special if special is not None else (0.0 if rng.random() < 0.4 else float(rng.choice([0.05, 0.15, 0.3])))
        base = sorted(set(int(v) for v in rng.choice([2, 3, 4, 5, 6, 7], size=3)))
        self.sizes = base
        self.allow_script_cf = allow_script_cf
        self.pending_inputs = []
        self.blocks = [self.prog.stmts]  # statement lists being filled, outermost first
        self.loopvars = []  # (name, value) of the loops being generated
        self.prefer = None  # a name pick() should return if it fits (bodies chain from it)

    # ------------------------------------------------------------------
    # names and values

    def fresh(self, prefix="v"):
        n = "%s%d" % (prefix, self.counter[prefix])
        self.counter[prefix] += 1
        return n

    def visible(self):
        out = []
        for lvl in self.scope:
            out += lvl
        return out

    def meta(self, n):
        return self.it.env[n]

    def rand_dtype(self, kinds="fib"):
        ds = [(d, w) for d, w in DTYPE_WEIGHTS if kind_of(d) in kinds]
        p = np.array([w for _, w in ds])
        return ds[int(self.r.choice(len(ds), p=p / p.sum()))][0]

    def rand_dim(self):
        u = self.r.random()
        if u < 0.18:
            return 1
        if u < 0.21:
            return 0
        return int(self.r.choice(self.sizes))

    def rand_shape(self, ndim=None, lo=0, hi=4, nonempty=False):
        if ndim is None:
            ndim = int(self.r.choice(range(lo, hi + 1)))
        for _ in range(20):
            s = [self.rand_dim() for _ in range(ndim)]
            if nonempty:
                s = [d or 1 for d in s]
            if int(np.prod(s)) <= MAX_NUMEL:
                return s
        return [1] * ndim

    def values(self, shape, dtype, distinct=False, lo=None, hi=None):
        """Random input values, with edge values at the program's rate."""
        r = self.r
        n = int(np.prod(shape)) if shape else 1
        if dtype == torch.bool:
            return torch.from_numpy(r.random(n) < 0.5).reshape(shape)
        if dtype.is_floating_point:
            if distinct:
                a = np.sort(r.standard_normal(n) * 3)
                a = a + np.arange(n) * 0.05  # spread: no two close
                a = r.permutation(a)
            elif lo is not None:
                a = r.uniform(lo, hi, n)
            else:
                a = r.standard_normal(n) * float(r.choice([1.0, 1.0, 3.0, 0.01, 100.0]))
                if self.special:
                    sp = [0.0, -0.0, math.nan, math.inf, -math.inf, _HUGE[dtype], -_HUGE[dtype],
                          _TINY[dtype], -_TINY[dtype], 1.0, -1.0, 0.5]
                    mask = r.random(n) < self.special
                    a[mask] = r.choice(sp, size=int(mask.sum()))
            t = torch.from_numpy(a).to(dtype)
            return t.reshape(shape)
        info = torch.iinfo(dtype)
        if distinct:
            a = r.permutation(n) - (n // 2 if info.min < 0 else 0)
        else:
            l = max(info.min, -6 if lo is None else lo)
            h = min(info.max, 7 if hi is None else hi)
            a = r.integers(l, h, n, endpoint=False) if h > l else np.full(n, l)
            if self.special and lo is None:
                sp = [info.min, info.min + 1, info.max, info.max - 1, 0, -1 if info.min < 0 else 1]
                mask = r.random(n) < self.special
                a = a.astype(np.int64)
                a[mask] = r.choice(sp, size=int(mask.sum()))
        return torch.from_numpy(np.asarray(a, dtype=np.int64)).to(dtype).reshape(shape)

    def exact_input(self, t):
        """A new user input holding exactly the tensor t."""
        name = self.fresh("x")
        self.prog.inputs.append((name, t))
        self.it.bind(name, t.clone(), 0, {name})
        self.exact[name] = True
        self.scope[0].append(name)
        self.pending_inputs.append(name)
        return name

    def new_input(self, shape, dtype, distinct=False, lo=None, hi=None, weight_ok=True):
        """A new user input (or, sometimes, a parameter or buffer)."""
        t = self.values(list(shape), dtype, distinct, lo, hi)
        u = self.r.random()
        if weight_ok and u < 0.15 and len(shape) >= 1:
            kind = "param" if dtype.is_floating_point and u < 0.1 else "buffer"
            n = self.fresh("p" if kind == "param" else "b")
            self.prog.weights.append((n, t, kind))
        else:
            n = self.fresh("x")
            self.prog.inputs.append((n, t))
        self.it.bind(n, t.clone(), 0, {n})
        self.exact[n] = True
        self.scope[0].append(n)
        self.pending_inputs.append(n)
        return n

    def pick(self, kinds="fib", ndim=(0, 6), pred=None, new_p=0.15, shape=None, dtype=None):
        """An existing value (recent ones first, so chains form) or a new input."""
        cands = []
        if self.prefer is not None and self.prefer in self.it.env:
            t = self.it.env[self.prefer]
            if (kind_of(t.dtype) in kinds and ndim[0] <= t.dim() <= ndim[1] and (dtype is None or t.dtype == dtype)
                    and (pred is None or pred(t)) and self.r.random() < 0.9):
                return self.prefer
        for n in self.visible():
            t = self.it.env[n]
            if not isinstance(t, torch.Tensor):
                continue
            if kind_of(t.dtype) not in kinds or not ndim[0] <= t.dim() <= ndim[1]:
                continue
            if dtype is not None and t.dtype != dtype:
                continue
            if pred and not pred(t):
                continue
            cands.append(n)
        if cands and self.r.random() > new_p:
            if self.r.random() < 0.6:
                return cands[-1 - int(self.r.integers(0, min(3, len(cands))))]
            return cands[int(self.r.integers(0, len(cands)))]
        if shape is None:
            shape = self.rand_shape(lo=ndim[0], hi=min(ndim[1], 4))
        return self.new_input(shape, dtype or self.rand_dtype(kinds))

    def bshape(self, shape):
        """A shape that broadcasts with `shape` (dims dropped or set to 1)."""
        s = list(shape)
        r = self.r
        if s and r.random() < 0.3:
            s = s[int(r.integers(0, len(s) + 1)):]
        s = [1 if (d != 0 and r.random() < 0.3) else d for d in s]
        if r.random() < 0.1 and len(s) < 4:
            s = [1] + s
        return s

    def scalar(self, kind="f"):
        r = self.r
        if kind == "b":
            return bool(r.random() < 0.5)
        if kind == "i":
            return int(r.choice([-3, -2, -1, 0, 1, 2, 3, 5, 7]))
        v = float(r.choice([0.5, -1.5, 2.0, 3.0, 0.25, -0.75, 1.0, 0.0, 1e-3, 100.0, 0.1]))
        if self.special and r.random() < 0.1:
            v = float(r.choice([math.inf, -math.inf, math.nan, -0.0]))
        return v

    def partner(self, a, kinds=None, scalar_p=0.25):
        """The second operand of a broadcasting binary op: (template text,
        ins) for a tensor name or a Python scalar literal."""
        t = self.it.env[a]
        k = kind_of(t.dtype)
        kinds = kinds or "fib"
        r = self.r
        u = r.random()
        if u < scalar_p:
            sk = k if r.random() < 0.6 else r.choice(list(kinds))
            return lit(self.scalar(sk)), []
        if u < scalar_p + 0.1:
            return None, [self.new_input([], self.rand_dtype(kinds))]
        cands = []
        for n in self.visible():
            v = self.it.env[n]
            if n == a or not isinstance(v, torch.Tensor) or kind_of(v.dtype) not in kinds:
                continue
            try:
                torch.broadcast_shapes(tuple(t.shape), tuple(v.shape))
            except RuntimeError:
                continue
            cands.append(n)
        if cands and r.random() < 0.5:
            return None, [cands[int(r.integers(0, len(cands)))]]
        dt = t.dtype if r.random() < 0.6 and k in kinds else self.rand_dtype(kinds)
        return None, [self.new_input(self.bshape(t.shape), dt)]

    # ------------------------------------------------------------------
    # statements

    def all_exact(self, ins):
        return all(self.exact.get(n, True) or not (isinstance(self.it.env.get(n), torch.Tensor)
                                                   and self.it.env[n].dtype.is_floating_point) for n in ins)

    def emit(self, template, ins, op, nout=1, cost=1, exact=False, guard=None, pre=None, kind="assign"):
        """Proposes one statement; runs it; keeps it (returns its outputs) or raises Reject."""
        outs = [self.fresh() for _ in range(nout)] if kind == "assign" else []
        if op in FITS:
            fit = " and ".join("_fits({%d}, %d)" % (i, FITS[op]) for i in range(len(ins)))
            guard = fit if not guard else "(%s) and %s" % (guard, fit)
        s = Stmt(kind, outs, template, ins, op, cost=cost, exact=exact, guard=guard, pre=pre)
        self.run_or_reject(s)
        return outs

    def run_or_reject(self, s):
        try:
            self.it.step(s)
            for n in s.outs:
                t = self.it.env[n]
                if t.dtype not in ALLOWED_OUT or t.numel() > MAX_NUMEL * 4 or t.dim() > 6:
                    raise Reject("output %s %s" % (t.dtype, list(t.shape)))
                if t.is_complex() or t.layout != torch.strided:
                    raise Reject("output layout")

        except (Reject, GuardFailed, RuntimeError, TypeError, ValueError, IndexError, ZeroDivisionError,
                OverflowError, NotImplementedError, AttributeError, AssertionError, KeyError) as e:
            self.undo(s)
            raise Reject(str(e))
        self.current_block().append(s)
        ex = s.exact and self.all_exact(s.reads())
        # A float16 result of arithmetic is not reproducible bit for bit:
        # onnxruntime computes chains of float16 ops in float32 and drops
        # the casts between them, so torch's rounding of each step is not
        # there (b0 * x then floor division by x: -5.00097 in torch, -5
        # exactly in onnxruntime; ops seed 9202 program 32468).
        if s.cost and any(isinstance(self.it.env.get(n), torch.Tensor) and self.it.env[n].dtype == torch.float16
                          for n in (s.outs or s.ins[:1])):
            ex = False
        for n in s.outs:
            self.exact[n] = ex
            self.scope[-1].append(n)
        if s.kind == "write":
            self.exact[s.ins[0]] = self.exact.get(s.ins[0], True) and ex
        self.pending_inputs = []
        return s

    def known_step(self, it, s):
        """Interp.on_step: a statement hitting a known bug (known.py) is not
        kept, also when it runs inside a loop with other values each time."""
        k = known.check(self.prog, s, [it.env.get(n) for n in s.ins], [it.env[n] for n in s.outs], it.env)
        if k is not None:
            raise GuardFailed("known bug " + k.id)

    def drop_pending(self):
        """Forgets the inputs made for a proposal that was given up."""
        for n in self.pending_inputs:
            self.prog.inputs = [(m, t) for m, t in self.prog.inputs if m != n]
            self.prog.weights = [w for w in self.prog.weights if w[0] != n]
            self.scope[0] = [m for m in self.scope[0] if m != n]
            self.it.env.pop(n, None)
        self.pending_inputs = []

    def undo(self, s):
        """Forgets a rejected statement and the inputs made for it."""
        for n in self.pending_inputs:
            self.prog.inputs = [(m, t) for m, t in self.prog.inputs if m != n]
            self.prog.weights = [w for w in self.prog.weights if w[0] != n]
            self.scope[0] = [m for m in self.scope[0] if m != n]
            self.it.env.pop(n, None)
        self.pending_inputs = []
        if s.kind in ("write", "if", "for"):
            self.replay()
        else:
            for n in s.outs:
                self.it.env.pop(n, None)

    def replay(self):
        """Rebuilds the interpreter's state from the kept statements (a
        rejected write may have landed half-way); the blocks being filled
        run straight-line after them, as they did while generated."""
        it = Interp(self.prog)
        it.on_step = self.known_step
        it.run()
        for k, blk in enumerate(self.blocks[1:]):
            for lv, val in self.loopvars:
                it.env[lv] = val
            it.run(blk)
        self.it = it

    def current_block(self):
        return self.blocks[-1]

    def add_control(self, s):
        """Keeps a finished if/for statement if the whole program still runs."""
        self.current_block().append(s)
        try:
            self.replay()
        except Exception as e:  # noqa: BLE001  (anything torch raises)
            self.current_block().pop()
            self.replay()
            raise Reject(str(e))
        for n in s.outs:
            self.exact[n] = False
            if n not in self.scope[-1]:
                self.scope[-1].append(n)


def dims_arg(r, ndim, k=None, allow_neg=True):
    """k distinct dims of a rank-ndim tensor, some negative."""
    if ndim == 0:
        return []
    k = k if k is not None else int(r.integers(1, ndim + 1))
    ds = sorted(int(d) for d in r.choice(ndim, size=min(k, ndim), replace=False))
    return [d - ndim if allow_neg and r.random() < 0.4 else d for d in ds]


def one_dim(r, ndim):
    if ndim == 0:
        return int(r.choice([0, -1]))
    d = int(r.integers(0, ndim))
    return d - ndim if r.random() < 0.4 else d
