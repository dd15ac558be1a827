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


class Known:
    def __init__(self, ident, owner, forms, what, repro, match):
        self.id, self.owner, self.forms, self.what, self.repro, self.match = ident, owner, forms, what, repro, match


K = Known
KNOWN = [
    # ---- onnxexp: invalid models (type constraints of the ONNX op not met)
    K("unary-float-op-on-int", "onnxexp", ALL, "sigmoid/tanh of an integer or bool tensor: torch computes in float32, "
      "onnxexp emits Sigmoid/Tanh on the integer type (onnx.checker: unsupported type)", "invalid-trace-sigmoid",
      lambda s, v, o: s.op in ("sigmoid", "tanh") and _isint(v[0])),
    K("neg-uint8", "onnxexp", ALL, "neg of a uint8 tensor: ONNX Neg has no uint8 (invalid model)", "invalid-trace-neg",
      lambda s, v, o: s.op == "neg" and _dt(v[0]) == torch.uint8),
    K("relu-uint8", "onnxexp", ALL, "relu of a uint8 tensor: ONNX Relu has no uint8 (invalid model)", "invalid-trace-relu",
      lambda s, v, o: s.op in ("relu", "relu6", "hardtanh", "threshold") and _dt(v[0]) == torch.uint8),
    K("celu-not-f32", "onnxexp", ALL, "celu of float64/float16: ONNX Celu is float32 only (invalid model)", "invalid-trace-celu",
      lambda s, v, o: s.op == "celu" and _dt(v[0]) != torch.float32),
    K("bool-add-mul", "onnxexp", ALL, "add/mul of two bool tensors: ONNX Add/Mul have no bool (invalid model)",
      "invalid-trace-add-bool", lambda s, v, o: s.op in ("add", "mul", "sub", "rsub") and o and _dt(o[0]) == torch.bool),
    K("square-bool", "onnxexp", ("script", "dynamic"), "square of a bool tensor in a scripted graph (invalid model)",
      "invalid-script-square", lambda s, v, o: s.op == "square" and _dt(v[0]) == torch.bool),
    K("one-hot-0d", "onnxexp", ALL, "F.one_hot of a 0-d index tensor: OneHot needs indices of rank >= 1 (invalid model)",
      "invalid-trace-one_hot", lambda s, v, o: s.op == "one_hot" and v[0].dim() == 0),
    K("repeat-interleave-empty", "onnxexp", ALL, "repeat_interleave of an empty tensor: Reshape with 0 and -1 (invalid model)",
      "invalid-trace-repeat_interleave", lambda s, v, o: s.op == "repeat_interleave" and _empty(v[0])),
    # ---- onnxexp: wrong values or dtypes
    K("all-any-uint8", "onnxexp", ALL, "all/any of a uint8 tensor: torch returns uint8, onnxexp bool", "mismatch-script-all",
      lambda s, v, o: s.op in ("all", "any") and _dt(v[0]) == torch.uint8),
    K("std-var-one-element", "onnxexp", ALL, "unbiased std/var over one element: torch gives NaN (0/0), onnxexp -0.0",
      "mismatch-trace-std", lambda s, v, o: s.op in ("std", "var", "std_mean", "var_mean") and not _has_nan(v[0]) and
      any(_has_nan(x) for x in o)),
    K("mean-empty", "onnxexp", ALL, "mean over an empty dim: torch gives NaN, the export 0", "mismatch-trace-mean",
      lambda s, v, o: s.op in ("mean", "var_mean", "std_mean") and _empty(v[0])),
    K("clamp-inf", "onnxexp", ALL, "clamp/clamp_max/clamp_min of -inf/inf: the export's Clip bounds are +-FLT_MAX, so "
      "infinities come out finite", "mismatch-trace-clamp_max",
      lambda s, v, o: s.op in ("clamp", "clamp_max", "clamp_min", "hardtanh") and _has_inf(v[0])),
    K("layer-norm-f64", "onnxexp", ALL, "layer_norm of float64: LayerNormalization's stash_type stays float32, so "
      "the statistics lose double precision (1e-8 relative)", "mismatch-trace-layer_norm",
      lambda s, v, o: s.op in ("layer_norm", "group_norm", "instance_norm") and _dt(v[0]) == torch.float64),
    K("squeeze-dynamic-rank", "onnxexp", ("dynamic",), "squeeze() without dims of a tensor with a dynamic axis: the "
      "output's rank is unknown and its type has no shape (onnx.checker: 'shape' required)", "invalid-dynamic-squeeze",
      lambda s, v, o: s.op == "squeeze" and ("squeeze()" in s.template or s.template == "torch.squeeze({0})")),
    # ---- onnxexp, scripted graphs: result dtypes (scalar type analysis over untyped values)
    K("script-like-dtype", "onnxexp", ("script", "dynamic"), "zeros_like/ones_like/full_like(x, dtype=D) in a scripted "
      "graph: the result keeps x's dtype (or another), not D", "mismatch-script-full_like",
      lambda s, v, o: s.op in ("zeros_like", "ones_like", "full_like") and "dtype=" in s.template),
    K("script-dtype", "onnxexp", ("script", "dynamic"), "prod, logsumexp, var_mean, einsum, clamp with tensor bounds or "
      "an integer tensor with float bounds, stack/cat of mixed dtypes, pow of integers, log/sum of integer tensors: "
      "wrong result dtype (or none) in a scripted graph", "mismatch-script-prod_silu",
      lambda s, v, o: s.op in ("prod", "logsumexp", "var_mean", "std_mean", "einsum", "cumsum") or
      (s.op in ("clamp", "clamp_min", "clamp_max") and (len(s.ins) > 1 or _isint(v[0]))) or
      (s.op in ("stack", "cat") and len({_dt(x) for x in v}) > 1) or (s.op == "pow" and all(_isint(x) or x is None for x in v))),
    # ---- onnxruntime
    K("ort-reduce-min-max-nan", "onnxruntime", ALL, "amin/amax/aminmax/max.dim/min.dim over NaN: onnxruntime's "
      "ReduceMin/ReduceMax/ArgMin skip NaN, torch (and numpy, the ONNX reference) propagate it", "mismatch-trace-amin",
      lambda s, v, o: s.op in ("amin", "amax", "aminmax", "max", "min", "argmax", "argmin", "max_pool1d", "max_pool2d",
                               "adaptive_max_pool1d", "adaptive_max_pool2d") and _has_nan(v[0])),
    K("ort-resize-inf", "onnxruntime", ALL, "linear/bilinear interpolation next to inf: onnxruntime's Resize multiplies "
      "the zero weight with inf (NaN), torch does not read that neighbour", "mismatch-dynamic-upsample_linear1d",
      lambda s, v, o: s.op.startswith("upsample_") and _has_inf(v[0])),
    K("ort-gemm-empty-k", "onnxruntime", ALL, "addmm/baddbmm/linear with an empty inner dim: onnxruntime's Gemm "
      "returns C without scaling it by beta", "mismatch-trace-addmm",
      lambda s, v, o: s.op in ("addmm", "baddbmm", "linear", "matmul", "mm", "bmm") and any(_empty(x) for x in v)),
    K("ort-pool-empty", "onnxruntime", ALL, "pooling an empty tensor: onnxruntime's pool kernels fail", "ort-error-trace-adaptive_avg_pool1d",
      lambda s, v, o: ("pool" in s.op or s.op.startswith("upsample") or s.op.startswith("conv")) and _empty(v[0])),
    K("ort-int-pow-overflow", "onnxruntime", ALL, "integer pow that overflows: torch wraps, onnxruntime's Pow goes "
      "through double and returns INT64_MIN", "mismatch-trace-pow",
      lambda s, v, o: s.op == "pow" and o and _isint(o[0]) and o[0].numel() > 0 and bool(
          (o[0].double().abs() >= 2 ** 31).any() or any(isinstance(x, torch.Tensor) and _isint(x) and x.numel() and
                                                       bool((x.double().abs() > 2 ** 20).any()) for x in v))),
    # ---- onnx
    K("onnx-slice-empty-negative-step", "onnx", ALL, "flip of an empty tensor: onnx 1.12's Slice shape inference with "
      "a negative step gives 1 for an empty axis (the checker then rejects onnxexp's correct 0)", "invalid-trace-flip",
      lambda s, v, o: s.op in ("flip",) and _empty(v[0])),
]


def check(prog, s, vals, outs):
    """None, or the entry s hits: raises for all-forms entries, records
    partial ones in prog.excluded (form -> id)."""
    if not ENABLED[0]:
        return None
    for k in KNOWN:
        try:
            hit = k.match(s, vals, outs)
        except Exception:  # noqa: BLE001  (a predicate on an unusual statement)
            hit = False
        if hit:
            HITS[k.id] += 1
            if set(k.forms) >= set(ALL):
                return k
            for f in k.forms:
                prog.excluded.setdefault(f, k.id)
    return None
