"""Known bugs the generator steers around, so that the fixed sample in the
test suite stays a regression test: each entry names the construct, whose
bug it is (onnxexp, onnxruntime, onnx, torch), the forms it affects and its
reproducer under tests/difftest/found/ (FINDINGS.md has the list).

A statement matching an entry for every form is not generated; one matching
an entry for some forms marks those forms n/a ("known: ID") for the whole
program. When a bug is fixed, delete its entry: the sample then covers the
construct again. `run.py --no-exclusions` generates them all.
"""

import collections
import re

import torch

ALL = ("trace", "script", "dynamic")
ENABLED = [True]
HITS = collections.Counter()  # entry id -> statements steered around


def _dt(v):
    return getattr(v, "dtype", None)


def _isint(v):
    d = _dt(v)
    return d is not None and not d.is_floating_point


def _has_nan(v):
    return isinstance(v, torch.Tensor) and v.dtype.is_floating_point and bool(torch.isnan(v).any())


def _has_inf(v):
    return isinstance(v, torch.Tensor) and v.dtype.is_floating_point and bool(torch.isinf(v).any())


def _empty(v):
    return isinstance(v, torch.Tensor) and v.numel() == 0


def _pow_overflows(s, v, o=None):
    """The integer pow s computes, redone in double, leaves the int32 range
    (operands cast to the result's dtype first, as torch does: a uint8
    result takes an exponent of -4 as 252)."""
    env = {"torch": torch}
    names = []
    rt = _dt(o[0]) if o else None
    for i, x in enumerate(v):
        if isinstance(x, torch.Tensor) and rt is not None and not rt.is_floating_point and rt != torch.bool:
            x = x.to(rt)
        env["_d%d" % i] = x.double() if isinstance(x, torch.Tensor) else x
        names.append("_d%d" % i)
    r = eval(s.template.format(*names), env)
    return bool((~torch.isfinite(r) | (r.abs() >= 2 ** 31)).any())


def _big_quotient(s, v, o=None):
    """The quotient is beyond 2^52; or, for a float16 floor division, beyond
    511: torch's vectorized loop rounds each step to float16, its scalar loop
    (tensors under 32 elements, tails) computes in float32, and the two differ
    from there on."""
    env = {"torch": torch}
    names = []
    for i, x in enumerate(v):
        env["_d%d" % i] = x.double() if isinstance(x, torch.Tensor) else x
        names.append("_d%d" % i)
    t = s.template.format(*names)
    for f in ("torch.remainder(", "torch.fmod(", "torch.div("):
        t = t.replace(f, "torch.true_divide(")
    t = t.replace("//", "/").replace("%", "/").replace(", rounding_mode='trunc'", "").replace(", rounding_mode='floor'", "")
    q = torch.as_tensor(eval(t, env))
    q = q[torch.isfinite(q)]
    floor = s.op == "floor_divide" or "rounding_mode='floor'" in s.template
    lim = 511 if floor and o and o[0].dtype == torch.float16 else 2 ** 52
    return bool((q.abs() > lim).any())


def _dup_scatter(s, v):
    """Does scatter's index (the first int64 tensor after self) repeat a
    position along its dim? Conservatively true when unsure."""
    idx = [x for x in v[1:] if isinstance(x, torch.Tensor) and x.dtype == torch.int64]
    if not idx:
        return True
    i = idx[0]
    if i.dim() == 0 or i.numel() < 2:
        return False
    for d in range(i.dim()):
        moved = i.movedim(d, -1).reshape(-1, i.shape[d])
        if any(len(set(r.tolist())) < len(r) for r in moved):
            return True
    return False


def _ln_rows_cancel(s, v):
    """Some row layer_norm normalizes (its last len(normalized_shape) dims)
    has a spread small against its mean (the test of
    ort-layer-norm-cancellation, per row instead of over the tensor)."""
    m = re.search(r"\[([0-9, ]*)\]", s.template)
    x = v[0]
    if not m or not isinstance(x, torch.Tensor) or not x.dtype.is_floating_point or x.numel() < 2:
        return False
    k = len([d for d in m.group(1).split(",") if d.strip()])
    rows = x.detach().double().reshape(-1, max(1, int(torch.tensor(x.shape[x.dim() - k:]).prod()) if k else 1))
    if rows.size(1) < 2 or not bool(torch.isfinite(rows).all()):
        return False
    return bool((rows.std(1) < 0.05 * rows.abs().mean(1)).any())


def _ln_rows_single(s, v):
    """layer_norm over rows of one element (normalized_shape [1]) holding
    a nonzero value: exactly 0 after normalizing, but torch's mean and
    rstd of one element are a few ulp off and 1/sqrt(eps) magnifies it."""
    m = re.search(r"\[([0-9, ]*)\]", s.template)
    x = v[0]
    if not m or not isinstance(x, torch.Tensor) or not x.dtype.is_floating_point or x.numel() == 0:
        return False
    dims = [int(d) for d in m.group(1).split(",") if d.strip()]
    if not dims or any(d != 1 for d in dims):
        return False
    return bool(((x != 0) & torch.isfinite(x)).any())


def _gn_groups_flat(s, v):
    """Some group group_norm normalizes has a spread small against its mean
    (a group of one element has none)."""
    m = re.search(r"group_norm\(\{0\}, (\d+)", s.template)
    x = v[0]
    if not m or not isinstance(x, torch.Tensor) or not x.dtype.is_floating_point or x.numel() == 0 or x.dim() < 2:
        return False
    rows = x.detach().double().reshape(x.size(0) * int(m.group(1)), -1)
    rows = rows[torch.isfinite(rows).all(1)]  # a group holding inf or NaN gives NaN on both sides
    return rows.numel() > 0 and bool((rows.std(1, unbiased=False) < 0.05 * rows.abs().mean(1)).any())


def _f16_overflows(s, v, o):
    """A float16 result with inf from operands without it (for an in-place
    write, o is its target after the write and v[0] the same tensor)."""
    ins = v[1:] if s.kind == "write" else v
    fin = not any(isinstance(x, torch.Tensor) and x.dtype.is_floating_point and _has_inf(x) for x in ins)
    return bool(o) and _dt(o[0]) == torch.float16 and _has_inf(o[0]) and fin


def _f16_underflows(s, v, o):
    """A float16 result holding 0 where the same expression over the
    operands in float32 is nonzero (the product of two 1e-4 is 1e-8)."""
    if s.kind == "write" or not o or _dt(o[0]) != torch.float16 or not bool((o[0] == 0).any()):
        return False
    env = {"torch": torch, "F": torch.nn.functional}
    names = []
    for i, x in enumerate(v):
        env["_w%d" % i] = x.float() if isinstance(x, torch.Tensor) and x.dtype == torch.float16 else x
        names.append("_w%d" % i)
    r = eval(s.template.format(*names), env)
    r = r[0] if isinstance(r, (tuple, list)) else r
    if not isinstance(r, torch.Tensor) or r.shape != o[0].shape:
        return False
    return bool(((o[0] == 0) & (r != 0) & torch.isfinite(r)).any())


def _norm_stat_size(s, v):
    """batch_norm of an empty input with a weight, bias or running
    statistic whose size is not the channel count."""
    if not (isinstance(v[0], torch.Tensor) and _empty(v[0]) and v[0].dim() >= 2):
        return False
    c = v[0].shape[1]
    return any(isinstance(x, torch.Tensor) and x.dim() == 1 and x.numel() != c for x in v[1:])


def _products_overflow(a, b):
    """The largest finite magnitudes of a and b multiply beyond half a's dtype's range."""
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.dtype.is_floating_point and a.numel()
            and b.numel()):
        return False
    m = []
    for x in (a, b):
        x = x.detach().double().abs()
        x = x[torch.isfinite(x)]
        m.append(float(x.max()) if x.numel() else 0.0)
    return m[0] * m[1] >= torch.finfo(a.dtype).max / 2


class Known:
    def __init__(self, ident, owner, forms, what, repro, match):
        self.id, self.owner, self.forms, self.what, self.repro, self.match = ident, owner, forms, what, repro, match


K = Known
KNOWN = [
    # ---- onnxexp: invalid models (type constraints of the ONNX op not met)
    # ---- onnxexp: wrong values or dtypes
    K("dropout-train-identity", "onnxexp", ALL, "dropout, alpha_dropout, feature_dropout, feature_alpha_dropout with "
      "training=True and p > 0: exported as the identity (p=1 gives the input, torch zeros). This is --training eval, "
      "the default (docs/cli.md: inference behaviour whatever the node's flag); torch.onnx.export keeps a node's "
      "train=True with a warning. Open: follow torch, or say so at export", "dropout-train-identity",
      lambda s, v, o: s.op in ("dropout", "alpha_dropout", "feature_dropout", "feature_alpha_dropout") and
      "training=True" in s.template and not re.search(r"\(\{0\}, 0\.0,", s.template)),
    K("masked-scatter-mask-rank", "onnxexp", ALL, "masked_scatter whose mask has more dims than self (the result "
      "takes the broadcast shape): ScatterND into self as it is fails in onnxruntime (so does torch.onnx.export's)",
      "masked-scatter-mask-rank", lambda s, v, o: s.op == "masked_scatter" and isinstance(v[1], torch.Tensor) and
      v[1].dim() > v[0].dim()),
    K("squeeze-dynamic-rank", "onnxexp", ("script", "dynamic"), "squeeze() without dims of a tensor with a dynamic "
      "axis, or of a scripted graph's tensor of unknown shape (squeeze-script-rank): the output's rank is unknown and "
      "its type has no shape (onnx.checker: 'shape' required)", "invalid-dynamic-squeeze",
      lambda s, v, o: s.op == "squeeze" and ("squeeze()" in s.template or s.template == "torch.squeeze({0})")),
    K("tensordot-empty-crash", "onnxexp", ALL, "tensordot with an empty dim: onnxruntime-node dies on the exported "
      "model (matmul of the same operands runs; whose bug is open: the exporter's Reshape/MatMul chain for an empty "
      "operand, or onnxruntime)", "tensordot-empty-crash",
      lambda s, v, o: s.op == "tensordot" and any(_empty(x) for x in v)),
    K("conv-tbc-kernel-longer", "onnxexp", ALL, "conv_tbc whose kernel is longer than the padded time axis: torch "
      "gives an empty output, the exported Conv fails in onnxruntime (invalid input shape; torch.onnx.export's too)",
      "conv-tbc-kernel-longer", lambda s, v, o: s.op == "conv_tbc" and bool(o) and _empty(o[0])),
    # ---- onnxruntime
    K("ort-bernoulli-inverted", "onnxruntime", ALL, "bernoulli of a probability tensor: onnxruntime's Bernoulli draws 1 "
      "where p is 0 and 0 where p is 1 (a one-node Bernoulli of [[0, 1, 0], [0, 0, 1]] gives [[1, 0, 1], [1, 1, 0]])",
      "ort-bernoulli-inverted", lambda s, v, o: s.op in ("bernoulli", "bernoulli~") and s.template.startswith(
          "torch.bernoulli({0})")),
    K("ort-unique-nan", "onnxruntime", ALL, "unique of a tensor holding NaN: onnxruntime's Unique drops NaN (a one-node "
      "Unique of [1, nan, nan, 0, -0, 2] gives [0, 1, 2]); torch keeps each NaN", "ort-unique-nan",
      lambda s, v, o: s.op in ("unique", "_unique", "unique_dim") and _has_nan(v[0])),
    K("ort-random-normal-scale0", "onnxruntime", ALL, "normal(mean, 0.0, size) (RandomNormalLike with scale 0): "
      "onnxruntime-node dies (a one-node RandomNormalLike with scale=0 shows it; scale 1 runs)", "ort-random-normal-scale0",
      lambda s, v, o: s.op == "normal" and not s.ins),
    K("ort-reduce-min-max-nan", "onnxruntime", ALL, "amin/amax/aminmax/max.dim/min.dim over NaN: onnxruntime's "
      "ReduceMin/ReduceMax/ArgMin skip NaN, torch (and numpy, the ONNX reference) propagate it", "mismatch-trace-amin",
      lambda s, v, o: s.op in ("amin", "amax", "aminmax", "max", "min", "argmax", "argmin", "max_pool1d", "max_pool2d",
                               "adaptive_max_pool1d", "adaptive_max_pool2d") and _has_nan(v[0]) or
      s.op in ("norm", "linalg_vector_norm") and 'float("inf")' in s.template and _has_nan(v[0])),
    K("ort-resize-inf", "onnxruntime", ALL, "linear/bilinear interpolation next to inf or NaN: onnxruntime's Resize "
      "multiplies the zero weight with it (NaN), torch does not read that neighbour", "mismatch-dynamic-upsample_linear1d",
      lambda s, v, o: s.op.startswith("upsample_") and (_has_inf(v[0]) or _has_nan(v[0]))),
    K("ort-gemm-empty-k", "onnxruntime", ALL, "addmm/baddbmm/linear with an empty inner dim: onnxruntime's Gemm "
      "returns C without scaling it by beta", "mismatch-trace-addmm",
      lambda s, v, o: s.op in ("addmm", "baddbmm", "linear", "matmul", "mm", "bmm", "mv", "dot", "outer", "einsum",
                               "cdist", "conv1d", "conv2d") and any(_empty(x) for x in v)),
    K("ort-pool-empty", "onnxruntime", ALL, "pooling an empty tensor: onnxruntime's pool kernels fail", "ort-error-trace-adaptive_avg_pool1d",
      lambda s, v, o: ("pool" in s.op or s.op.startswith("upsample") or s.op.startswith("conv")) and _empty(v[0])),
    K("ort-int-pow-overflow", "onnxruntime", ALL, "integer pow that overflows: torch wraps, onnxruntime's Pow goes "
      "through double and returns INT_MIN", "mismatch-trace-pow", lambda s, v, o: s.op == "pow" and o and _isint(o[0]) and
      _pow_overflows(s, v, o)),
    K("ort-empty-topk-einsum", "onnxruntime", ALL, "sort/argsort/topk/einsum of an empty tensor: onnxruntime-node "
      "dies (TopK, Einsum)", "crash-trace-sort", lambda s, v, o: s.op in ("sort", "argsort", "topk", "einsum") and
      any(_empty(x) for x in v)),
    K("ort-pad-negative", "onnxruntime", ALL, "constant pad with a negative pad: onnxruntime's Pad returns "
      "uninitialized memory where the pad value should be", "mismatch-trace-constant_pad_nd",
      lambda s, v, o: s.op in ("constant_pad_nd", "pad") and "-" in s.template.split("[")[1].split("]")[0]),
    K("ort-fmod-int64", "onnxruntime", ALL, "fmod of int64 values beyond 2^53: onnxruntime's Mod(fmod=1) goes "
      "through double", "mismatch-trace-fmod", lambda s, v, o: s.op in ("fmod", "remainder") and any(
          isinstance(x, torch.Tensor) and _isint(x) and x.numel() and bool((x.double().abs() > 2 ** 52).any()) for x in v)),
    K("f16-cmp-int-overflow", "unknown", ALL, "float16 compared with an integer tensor beyond float16's range: one "
      "element differs (-inf against -inf); not isolated (onnxruntime's Cast and Equal each agree with torch)",
      "mismatch-trace-ne", lambda s, v, o: s.op in ("eq", "ne", "lt", "le", "gt", "ge") and
      any(_dt(x) == torch.float16 for x in v) and any(isinstance(x, torch.Tensor) and _isint(x) and x.numel() and
                                                       bool((x.double().abs() > 65504).any()) for x in v)),
    K("ort-erf-nan", "onnxruntime", ALL, "erf/gelu of NaN: onnxruntime's Erf returns 1", "mismatch-trace-erf",
      lambda s, v, o: s.op in ("erf", "gelu") and _has_nan(v[0])),
    K("ort-one-hot-empty", "onnxruntime", ALL, "one_hot of an empty index tensor: onnxruntime-node dies (OneHot)",
      "crash-trace-one_hot", lambda s, v, o: s.op == "one_hot" and _empty(v[0])),
    K("ort-log-softmax-inf", "onnxruntime", ALL, "log_softmax/softmax of a row of infinities: torch gives NaN, "
      "onnxruntime -inf", "mismatch-trace-log_softmax",
      lambda s, v, o: s.op in ("softmax", "log_softmax", "logsumexp") and _has_inf(v[0])),
    K("ort-log-softmax-f64-nan", "onnxruntime", ALL, "log_softmax of float64 with NaN in a row other than the "
      "first: onnxruntime's double LogSoftmax gives ln(1e20) = 46.05 for that row's finite elements (torch NaN; "
      "a one-node LogSoftmax over [[1, 2, 3], [nan, 0.99, nan]] shows it, the float32 kernel is right)",
      "ort-log-softmax-f64-nan",
      lambda s, v, o: s.op in ("log_softmax", "_log_softmax") and _dt(v[0]) == torch.float64 and _has_nan(v[0])),
    K("ort-prelu-nan-slope", "onnxruntime", ALL, "prelu with a NaN/inf slope: onnxruntime's PRelu multiplies positive "
      "inputs by it too (NaN), the spec and torch pass them through", "mismatch-trace-prelu",
      lambda s, v, o: s.op == "prelu" and (not bool(torch.isfinite(v[1]).all()) or _has_inf(v[0]))),
    K("ort-layer-norm-cancellation", "onnxruntime", ALL, "layer_norm/group_norm of values whose spread is small "
      "against their mean: onnxruntime's one-pass variance (E[x^2] - E[x]^2) cancels; torch's does not (1e-2 off)",
      "mismatch-trace-layer_norm-cancel", lambda s, v, o: s.op in ("layer_norm", "group_norm", "instance_norm", "batch_norm")
      and v[0].numel() > 1 and v[0].dtype.is_floating_point and bool(torch.isfinite(v[0]).all()) and
      float(v[0].double().std()) < 0.05 * float(v[0].double().abs().mean())),
    K("ort-sqrt-inf-negzero", "onnxruntime", ALL, "sqrt/rsqrt of inf or -0.0: onnxruntime's Sqrt gives NaN for inf "
      "and +0 for -0 (IEEE: inf, -0)", "mismatch-trace-rsqrt", lambda s, v, o: s.op in ("sqrt", "rsqrt") and
      isinstance(v[0], torch.Tensor) and v[0].dtype.is_floating_point and
      bool((torch.isinf(v[0]) | ((v[0] == 0) & torch.signbit(v[0]))).any())),
    K("ort-softmax-empty", "onnxruntime", ALL, "softmax/log_softmax of an empty tensor: onnxruntime's ReduceMax fails",
      "ort-error-trace-softmax", lambda s, v, o: s.op in ("softmax", "log_softmax", "logsumexp") and _empty(v[0])),
    K("ort-cast-chain", "onnxruntime", ALL, "a float cast to an integer type, then to bool: onnxruntime skips the "
      "integer step even with optimizations disabled (-0.449 -> int64 0 -> bool gives True); logical ops on such "
      "integers meet it too (they cast to bool)", "mismatch-trace-to",
      lambda s, v, o: ((s.op in ("to", "type_as") and o and _dt(o[0]) == torch.bool) or s.op.startswith("logical_") or
                       s.op in ("all", "any", "nonzero", "where")) and any(
          _isint(x) and _cast_from_float(n) for n, x in zip(s.ins, v))),
    K("ort-resize-nearest-ratio", "onnxruntime", ALL, "nearest interpolation to a size that does not divide into a "
      "whole upscale: onnxruntime computes the source index as dst / (out/in) in float (6.9999 -> 6), torch as "
      "floor(dst * in/out) (7)", "mismatch-trace-upsample_nearest1d",
      lambda s, v, o: s.op.startswith("upsample_nearest") and o and any(
          oo % ii != 0 for ii, oo in zip(v[0].shape[2:], o[0].shape[2:]) if ii)),
    K("ort-max-min-nan-bound", "onnxruntime", ALL, "clamp with a NaN bound tensor, maximum/minimum with NaN: "
      "onnxruntime's Max/Min return the other operand, torch NaN", "mismatch-trace-clamp-nan",
      lambda s, v, o: s.op in ("clamp", "clamp_min", "clamp_max", "maximum", "minimum", "max", "min") and
      len(s.ins) > 1 and any(_has_nan(x) for x in v[1:])),
    K("ort-norm-inf-weight", "onnxruntime", ALL, "batch_norm/layer_norm/group_norm with an infinite or huge weight, "
      "bias or running statistic: onnxruntime folds them into a scale and shift first (inf - inf, 1e30 - 1e30)",
      "mismatch-trace-batch_norm", lambda s, v, o: s.op in ("batch_norm", "layer_norm", "group_norm", "instance_norm")
      and any(isinstance(x, torch.Tensor) and x.dtype.is_floating_point and x.numel() and
              (not bool(torch.isfinite(x).all()) or bool((x.abs() > 1e6).any())) for x in v[1:])),
    K("ort-glu-sigmoid-tail", "onnxruntime", ALL, "glu of a huge value gated by a very negative one: onnxruntime's "
      "Sigmoid is 7% off in relative terms at -14, which the product makes visible", "mismatch-trace-glu",
      lambda s, v, o: s.op in ("glu", "silu", "mish") and isinstance(v[0], torch.Tensor) and v[0].numel() and
      bool((v[0].abs() > 1e6).any()) and bool((v[0] < -10).any())),
    K("ort-conv-nonfinite-weight", "onnxruntime", ALL, "convolution with a padded input and an infinite or NaN "
      "weight: onnxruntime multiplies it with the zero padding (NaN), torch skips padding taps",
      "mismatch-trace-conv1d", lambda s, v, o: s.op.startswith("conv") and len(v) > 1 and
      any(isinstance(x, torch.Tensor) and x.dtype.is_floating_point and not bool(torch.isfinite(x).all()) for x in v[1:])),
    K("quotient-beyond-2^52", "none", ALL, "remainder/fmod/floor division whose quotient is beyond 2^52: the result "
      "is rounding noise on both sides (torch gives NaN, the export a tiny number); float16 floor division whose "
      "quotient is beyond 511: torch's vectorized and scalar loops differ (float16 steps against float32)",
      "mismatch-trace-remainder",
      lambda s, v, o: (s.op in ("remainder", "fmod", "floor_divide") or "rounding_mode" in s.template) and
      _big_quotient(s, v, o)),
    K("ort-cast-tiny-f16", "onnxruntime", ALL, "float64 values below float16's smallest subnormal cast to float16: "
      "onnxruntime's Cast does not give 0 (-1e-300 stays nonzero)", "mismatch-trace-half",
      lambda s, v, o: s.op == "to" and o and _dt(o[0]) == torch.float16 and _dt(v[0]) == torch.float64 and bool(
          ((v[0] != 0) & (v[0].abs() < 6e-8)).any())),
    K("ort-cast-f16-overflow", "onnxruntime", ALL, "values beyond float16's range converted to float16 (by .half(), "
      "or by promotion: a float16 tensor + an int32 one) and then used by an op onnxruntime computes in float32 (Add, "
      "Mul): onnxruntime drops the Cast pair it inserts around that op, so the value stays finite (inf * 0 gives 0, "
      "-inf + 2147483647 gives -inf; torch NaN); a Cast whose result is a graph output gives inf (ops seed 1 program "
      "456, seed 9101 program 1466)", "ort-cast-f16-overflow",
      lambda s, v, o: bool(o) and _dt(o[0]) == torch.float16 and any(
          isinstance(x, torch.Tensor) and x.dtype != torch.float16 and x.numel() and
          bool((torch.isfinite(x.double()) & (x.double().abs() > 65504)).any()) for x in v)),
    K("ort-f16-chain-overflow", "onnxruntime", ALL, "a float16 op whose result overflows to inf (300 * 300): "
      "onnxruntime computes chains of float16 ops in float32 and drops the casts between them, so the value stays "
      "finite (90000 - 90000 gives 0, torch inf - inf = NaN) (views seed 9101 program 2801)", "ort-f16-chain-overflow",
      lambda s, v, o: _f16_overflows(s, v, o)),
    K("torch-pow-half", "torch", ALL, "pow(x, 0.5) of -inf: torch computes it as sqrt (NaN), C's pow and ONNX Pow give "
      "+inf", "mismatch-trace-pow-half", lambda s, v, o: s.op == "pow" and "0.5" in s.template and _has_inf(v[0])),
    K("ort-gather-empty", "onnxruntime", ALL, "gather of an empty tensor with an index tensor larger in another dim: "
      "torch accepts it (nothing to read), onnxruntime's GatherElements refuses", "ort-error-dynamic-gather",
      lambda s, v, o: s.op in ("gather", "scatter", "scatter_add") and any(_empty(x) for x in v)),
    K("ort-reducemax-nan", "onnxruntime", ALL, "max()/min() of a tensor holding NaN: torch gives NaN, onnxruntime's "
      "ReduceMax/ReduceMin skip it (so an `if x.max() > 0.5` takes the other branch: views seed 1 program 392)",
      "mismatch-script-masked_scatter__primIf-11-2",
      lambda s, v, o: (".max()" in s.template or ".min()" in s.template) and any(_has_nan(x) for x in v)),
    K("masked-scatter-strided", "torch", ALL, "masked_scatter_ into a tensor not laid out contiguously (x.t(), a "
      "permuted input): torch takes the source's elements in memory order, the export (and torch's own docs) in "
      "index order", "mismatch-trace-masked_scatter_-1-148",
      lambda s, v, o: s.op == "masked_scatter" and isinstance(v[0], torch.Tensor) and not v[0].is_contiguous()),
    K("scatter-duplicate-index", "none", ALL, "scatter_ with an index that repeats a position: which write wins is "
      "unspecified in torch and in ONNX ScatterElements (a NaN written or not)", "mismatch-script-primIf_scatter__zero_-1-392",
      lambda s, v, o: s.op == "scatter" and len(v) > 2 and isinstance(v[2], torch.Tensor) and v[2].numel() > 0 and
      _dup_scatter(s, v)),
    K("ort-where-negzero", "onnxruntime", ALL, "where selecting -0.0 (broadcasting): onnxruntime's Where gives +0.0, "
      "which a later reciprocal or division turns into +inf instead of -inf", "mismatch-trace-reciprocal_where",
      lambda s, v, o: s.op in ("where", "masked_fill") and any(
          isinstance(x, torch.Tensor) and x.dtype.is_floating_point and bool(((x == 0) & torch.signbit(x)).any())
          for x in v)),
    K("torch-sign-nan", "torch", ALL, "sign of NaN: torch 1.13 gives 0, ONNX Sign (and numpy) NaN", "mismatch-trace-sign",
      lambda s, v, o: s.op == "sign" and _has_nan(v[0])),
    K("torch-index-bool-0d-script", "torch", ("script", "dynamic"), "x[b] with a 0-d bool tensor b in TorchScript: "
      "torch 1.13's aten::index ignores the mask when x is empty (x[False] of a [1, 0, 2] x is [1, 0, 2], eager "
      "[0, 1, 0, 2]) and fails an internal assert (IndexKernelUtils.h, ntensor >= 3) when it is not; the scripted "
      "module is the script and dynamic forms' reference, onnxexp gives eager's mask (seed 9201 program 29796)",
      "torch-index-bool-0d-script",
      lambda s, v, o: s.op == "index" and any(isinstance(x, torch.Tensor) and x.dtype == torch.bool and x.dim() == 0
                                              for x in v[1:])),
    K("torch-gelu-negzero", "torch", ALL, "gelu (erf form) of float32 values below about -5.5, where it underflows: "
      "torch 1.13's float32 kernel gives +0.0, its float64 kernel, the tanh form and x * Phi(x) (onnxexp's Erf "
      "lowering) -0.0, so a later division gives inf for -inf (seed 9201 program 17812: x / atanh(gelu(-163)))",
      "torch-gelu-negzero",
      lambda s, v, o: s.op == "gelu" and "tanh" not in s.template and bool(o) and _dt(o[0]) == torch.float32 and
      bool(((o[0] == 0) & (v[0] < 0)).any())),
    K("ort-layer-norm-cancellation-row", "onnxruntime", ALL, "layer_norm of a row whose spread is small against its "
      "mean, in a tensor whose spread is not (the whole-tensor test of ort-layer-norm-cancellation misses it): the "
      "same one-pass variance; a one-node LayerNormalization of [1.0661391, 1.0607525] gives 0.6480606, torch (float32 "
      "and float64) 0.6484065 (seed 9201 program 1146)", "ort-layer-norm-cancellation-row",
      lambda s, v, o: s.op == "layer_norm" and _ln_rows_cancel(s, v)),
    K("torch-layer-norm-flat-row", "torch", ALL, "layer_norm over rows of one element: the normalized value is "
      "exactly 0 (onnxruntime gives the bias), torch's is a few ulp of the value times 1/sqrt(eps) off (a row [261.0] "
      "with weight -100.8 gives bias - 0.05: seed 9301 program 10034)", "torch-layer-norm-flat-row",
      lambda s, v, o: s.op == "layer_norm" and _ln_rows_single(s, v)),
    K("torch-group-norm-flat-group", "torch", ALL, "group_norm of a group whose spread is small against its mean "
      "(a group of one element): torch's mean is a few ulp off the values, and 1/sqrt(eps) magnifies that (a group "
      "[93.97] normalizes to 0.001 in torch, exactly 0 in onnxruntime and in exact arithmetic: seed 9203 program 192)",
      "torch-group-norm-flat-group", lambda s, v, o: s.op == "group_norm" and _gn_groups_flat(s, v)),
    K("ort-f16-chain-underflow", "onnxruntime", ALL, "a float16 op whose result underflows to 0 (-1e-4 * -1e-4): "
      "onnxruntime computes chains of float16 ops in float32 without the casts between them, so the next op sees "
      "1e-8 (a Mul then a Greater against 0 gives true; the Mul's own output, 0, is right); then 1e-8 % -inf is "
      "-inf, not 0 (seed 9202 program 27484)", "ort-f16-chain-underflow",
      lambda s, v, o: _f16_underflows(s, v, o)),
    K("torch-batch-norm-empty-stat-size", "torch", ALL, "batch_norm of an empty input whose weight, bias or running "
      "statistics are not of the channel count (a parameter sized for the traced channels, the dynamic form's "
      "second size): torch checks the sizes only when there are elements, onnxruntime's BatchNormalization "
      "refuses (seed 9202 program 16438)", "torch-batch-norm-empty-stat-size",
      lambda s, v, o: s.op in ("batch_norm", "instance_norm") and _norm_stat_size(s, v)),
    K("cross-product-overflow", "none", ALL, "cross/linalg.cross whose finite products overflow (1e30 * 1e30 in "
      "float32) next to an infinite one: torch's kernel fuses the multiply and the subtraction (fma(1e30, 1e30, -inf) "
      "= -inf), the export's separate Mul and Sub give inf - inf = NaN (seed 1 program 222)", "cross-product-overflow",
      lambda s, v, o: s.op in ("cross", "linalg_cross") and _products_overflow(v[0], v[1])),
    # ---- onnx
    K("onnx-slice-empty-negative-step", "onnx", ALL, "flip of an empty tensor: onnx 1.12's Slice shape inference with "
      "a negative step gives 1 for an empty axis (the checker then rejects onnxexp's correct 0)", "invalid-trace-flip",
      lambda s, v, o: s.op in ("flip",) and _empty(v[0])),
]


CTX = [None]  # (program, env) of the statement being checked


def _producer(name):
    """The statement that defined name in the program being generated."""
    prog = CTX[0][0]
    for st in reversed(list(prog.walk())):
        if name in st.outs:
            return st
    return None


def _cast_from_float(name):
    p = _producer(name)
    while p is not None and p.op in ("clone", "contiguous", "detach") and p.ins:
        p = _producer(p.ins[0])  # exported as nothing: the Casts meet
    if p is None or p.op not in ("to", "type_as"):  # the casts (gen_ops: type_as is one too)
        return False
    src = CTX[0][1].get(p.ins[0])
    return isinstance(src, torch.Tensor) and src.dtype.is_floating_point


class _Op:
    """A statement as the predicates see it: an in-place write (add_, x += y,
    x[i] += y) under the name of the op it applies (add)."""

    def __init__(self, s):
        self.kind, self.ins, self.outs, self.template = s.kind, s.ins, s.outs, s.template
        op = s.op.rstrip("_")
        self.op = {"iadd": "add", "isub": "sub", "imul": "mul", "setitem+=": "add", "setitem-=": "sub",
                   "setitem*=": "mul", "__iand": "bitwise_and", "__ior": "bitwise_or"}.get(op, op)


def check(prog, s, vals, outs, env=None):
    CTX[0] = (prog, env or {})
    weights = prog.weight_names()
    if s.kind == "write":
        s = _Op(s)
        outs = [vals[0]] if vals else []
    """None, or the entry s hits: raises for all-forms entries, records
    partial ones in prog.excluded (form -> id)."""
    if not ENABLED[0]:
        return None
    for k in KNOWN:
        try:
            hit = k.match(s, vals, outs) if k.match.__code__.co_argcount == 3 else k.match(s, vals, outs, weights)
        except Exception:  # noqa: BLE001  (a predicate on an unusual statement)
            hit = False
        if hit:
            HITS[k.id] += 1
            if set(k.forms) >= set(ALL):
                return k
            for f in k.forms:
                prog.excluded.setdefault(f, k.id)
    return None
