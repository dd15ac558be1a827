#!/usr/bin/python3
"""Self-test of the round-trip harness: proves it can pass AND fail.

    /usr/bin/python3 tests/roundtrip/selftest.py [--work DIR]

1. Generates the mlp, to_type_as and neg_unsupported_op fixtures, exports them
   with torch's own torch.onnx.export (tests/roundtrip/torch_cli.py, the
   "peer") and runs the whole harness: everything must pass.
2. Corrupts the reference outputs (values, dtype, shape, count) and asserts
   that the comparison reports each mismatch.
3. Fake CLIs that break the contract (wrong message, leftover output file,
   exit 0 without a file, a file the checker rejects) must be caught.
4. run.js round-trips every tensor dtype it supports through Identity models.
Exit 0 when the harness behaves, 1 otherwise.
"""

import argparse
import copy
import io
import os
import shutil
import stat
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_fixtures  # noqa: E402
import roundtrip as rt  # noqa: E402
import st  # noqa: E402

PEER = os.path.join(HERE, "torch_cli.py")
FAILURES = []
CHECKS = [0]


def expect(cond, what):
    CHECKS[0] += 1
    if not cond:
        FAILURES.append(what)
        print("selftest: FAILED: " + what)


def fresh_case(fx, name, opset, work):
    import json

    with open(os.path.join(fx, name, "meta.json")) as f:
        meta = json.load(f)
    return rt.Case(name, os.path.join(fx, name), meta, opset, work)


def recompare(case, ref_tensors, fdir_tmp):
    """Compare case.got against a replaced reference; returns the case copy."""
    c = copy.copy(case)
    c.notes = []
    c.status, c.stage, c.detail, c.maxerr = None, "", "", None
    os.makedirs(fdir_tmp, exist_ok=True)
    st.save(ref_tensors, os.path.join(fdir_tmp, "outputs.safetensors"))
    c.fdir = fdir_tmp
    rt.compare(c)
    return c


def write_script(path, body):
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def dtype_roundtrip(work, node):
    """run.js: every supported dtype through an Identity model, bit-exact."""
    import onnx
    from onnx import TensorProto, helper

    rng = np.random.default_rng(1)
    arrays = {
        "f32": (TensorProto.FLOAT, rng.standard_normal((2, 3)).astype(np.float32)),
        "f64": (TensorProto.DOUBLE, rng.standard_normal((3,))),
        "i64": (TensorProto.INT64, np.array([[-(2 ** 40), 3]], dtype=np.int64)),
        "i32": (TensorProto.INT32, np.array([-7, 0, 9], dtype=np.int32)),
        "b": (TensorProto.BOOL, np.array([[True, False], [False, True]])),
        "f16": (TensorProto.FLOAT16, rng.standard_normal((4,)).astype(np.float16)),
        "u8": (TensorProto.UINT8, np.array([0, 128, 255], dtype=np.uint8)),
        "i8": (TensorProto.INT8, np.array([-128, 0, 127], dtype=np.int8)),
        "scalar": (TensorProto.FLOAT, np.array(2.5, dtype=np.float32)),
        "empty": (TensorProto.FLOAT, np.zeros((0, 2), dtype=np.float32)),
    }
    names = sorted(arrays)
    nodes = [helper.make_node("Identity", [n], ["y_" + n]) for n in names]
    ins = [helper.make_tensor_value_info(n, arrays[n][0], list(arrays[n][1].shape)) for n in names]
    outs = [helper.make_tensor_value_info("y_" + n, arrays[n][0], list(arrays[n][1].shape)) for n in names]
    m = helper.make_model(helper.make_graph(nodes, "ids", ins, outs), opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.checker.check_model(m, full_check=True)
    fdir = os.path.join(work, "dtypes")
    os.makedirs(fdir, exist_ok=True)
    onnx.save(m, os.path.join(work, "dtypes.opset13.onnx"))
    st.save({n: a for n, (_, a) in arrays.items()}, os.path.join(fdir, "inputs.safetensors"))
    meta = dict(inputs=names, num_outputs=len(names), opsets=[13])
    c = rt.Case("dtypes", fdir, meta, 13, work)
    rt.run_node([c], work, node)
    expect(c.status is None, "run.js ran the all-dtypes Identity model (%s)" % c.detail)
    if c.status is None:
        got = st.load(c.got)
        for i, n in enumerate(names):
            g, want = got.get("out%d" % i), arrays[n][1]
            expect(g is not None and g.dtype == want.dtype and g.shape == want.shape and np.array_equal(g, want),
                   "run.js round-trips %s (%s %s)" % (n, want.dtype, list(want.shape)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", help="scratch directory (default: a temporary one, removed)")
    ap.add_argument("--node", default=shutil.which("node") or "node")
    a = ap.parse_args()
    tmp = None
    if a.work:
        work = os.path.abspath(a.work)
        if os.path.isdir(work):
            shutil.rmtree(work)
        os.makedirs(work)
    else:
        tmp = tempfile.mkdtemp(prefix="oxp-selftest-")
        work = tmp
    fx = os.path.join(work, "fixtures")
    rw = os.path.join(work, "rt")
    os.makedirs(rw)

    # 1. peer export of real fixtures: the harness must pass them
    rc = gen_fixtures.main([fx, "-q", "--only", "mlp", "to_type_as", "neg_unsupported_op"])
    expect(rc == 0, "generator ran")
    log = io.StringIO()
    code, cases = rt.run(["--onnxexp", PEER, "--fixtures", fx, "--work", rw, "--opset", "17",
                          "--producer", "pytorch", "--node", a.node], out=log)
    expect(code == 0 and len(cases) == 3 and all(c.status == "PASS" for c in cases),
           "torch.onnx.export peer passes mlp, to_type_as, neg_unsupported_op at opset 17:\n" + log.getvalue())
    byname = {c.name: c for c in cases}

    # 2. corrupted references must be reported
    mlp = byname.get("mlp")
    if mlp is not None and mlp.status == "PASS":
        ref = st.load(os.path.join(fx, "mlp", "outputs.safetensors"))
        bad = os.path.join(work, "bad_ref")
        r = dict(ref)
        r["out0"] = ref["out0"].copy()
        r["out0"][1, 2] += 1e-3
        c = recompare(mlp, r, bad)
        expect(c.status == "FAIL" and c.stage == "compare" and "elements off" in c.detail,
               "value perturbation of 1e-3 detected (%s %s)" % (c.status, c.detail))
        expect(c.maxerr is not None and abs(c.maxerr - 1e-3) < 1e-4, "max abs error reported as ~1e-3 (%r)" % c.maxerr)
        r = dict(ref)
        r["out0"] = ref["out0"].copy()
        r["out0"][0, 0] += 2e-6  # below tolerance: must still pass
        c = recompare(mlp, r, bad)
        expect(c.status == "PASS", "perturbation below atol accepted (%s %s)" % (c.status, c.detail))
        c = recompare(mlp, {"out0": ref["out0"].astype(np.float64)}, bad)
        expect(c.status == "FAIL" and "dtype" in c.detail, "dtype mismatch detected (%s)" % c.detail)
        c = recompare(mlp, {"out0": ref["out0"].reshape(-1)}, bad)
        expect(c.status == "FAIL" and "shape" in c.detail, "shape mismatch detected (%s)" % c.detail)
        mlp2 = copy.copy(mlp)
        mlp2.meta = dict(mlp.meta, num_outputs=2)
        c = recompare(mlp2, {"out0": ref["out0"], "out1": ref["out0"]}, bad)
        expect(c.status == "FAIL" and "outputs" in c.detail, "output count mismatch detected (%s)" % c.detail)
        r = {"out0": ref["out0"].copy()}
        r["out0"][0, 0] = np.nan
        c = recompare(mlp, r, bad)
        expect(c.status == "FAIL", "NaN in the reference only detected (%s)" % c.detail)
    tt = byname.get("to_type_as")
    if tt is not None and tt.status == "PASS":
        ref = st.load(os.path.join(fx, "to_type_as", "outputs.safetensors"))
        k = next(k for k in sorted(ref) if ref[k].dtype == np.int32)
        r = dict(ref)
        r[k] = ref[k].copy()
        r[k].flat[0] += 1
        c = recompare(tt, r, os.path.join(work, "bad_ref2"))
        expect(c.status == "FAIL" and "exact" in c.detail, "off-by-one in an int32 output detected (%s)" % c.detail)

    # 3. CLIs that break the contract (in their own work dir)
    good_onnx = os.path.join(work, "mlp.good.onnx")
    if mlp is not None and os.path.exists(mlp.onnx):
        shutil.copy(mlp.onnx, good_onnx)
    rw = os.path.join(work, "rt_fake")
    os.makedirs(rw)
    neg = fresh_case(fx, "neg_unsupported_op", 17, rw)
    msg = 'echo "onnxexp: error: m.ir:3:9: aten::digamma is not supported at opset 17" >&2'
    cli = write_script(os.path.join(work, "cli_leaves_file.sh"), msg + '\ntouch "$3"\nexit 1')
    rt.export(cli, neg)
    expect(neg.status == "FAIL" and "left" in neg.detail, "leftover output of a failed export detected (%s)" % neg.detail)
    neg = fresh_case(fx, "neg_unsupported_op", 17, rw)
    cli = write_script(os.path.join(work, "cli_wrong_msg.sh"), 'echo "onnxexp: error: something else" >&2\nexit 1')
    rt.export(cli, neg)
    expect(neg.status == "FAIL" and "lacks" in neg.detail, "wrong error message detected (%s)" % neg.detail)
    neg = fresh_case(fx, "neg_unsupported_op", 17, rw)
    cli = write_script(os.path.join(work, "cli_exit2.sh"), msg + "\nexit 2")
    rt.export(cli, neg)
    expect(neg.status == "FAIL" and "expected 1" in neg.detail, "wrong exit status detected (%s)" % neg.detail)
    pos = fresh_case(fx, "mlp", 17, rw)
    cli = write_script(os.path.join(work, "cli_noop.sh"), "exit 0")
    rt.export(cli, pos)
    expect(pos.status == "FAIL" and "no output" in pos.detail, "exit 0 without a file detected (%s)" % pos.detail)
    pos = fresh_case(fx, "mlp", 17, rw)
    cli = write_script(os.path.join(work, "cli_garbage.sh"), 'printf "not a model" > "$3"')
    rt.export(cli, pos)
    if pos.status is None:
        rt.check(pos, "")
    expect(pos.status == "FAIL" and pos.stage in ("load", "checker"), "garbage .onnx rejected (%s %s)" % (pos.stage, pos.detail))
    pos = fresh_case(fx, "mlp", 17, rw)
    import onnx

    if os.path.exists(good_onnx):
        m = onnx.load(good_onnx)
        m.graph.node[0].op_type = "NoSuchOp"
        broken = os.path.join(work, "broken.onnx")
        onnx.save(m, broken)
        cli = write_script(os.path.join(work, "cli_broken.sh"), 'cp "%s" "$3"' % broken)
        rt.export(cli, pos)
        rt.check(pos, "")
        expect(pos.status == "FAIL" and pos.stage == "checker", "unknown op rejected by the checker (%s %s)" % (pos.stage, pos.detail))
        pos = fresh_case(fx, "mlp", 17, rw)
        cli = write_script(os.path.join(work, "cli_peer.sh"), 'cp "%s" "$3"' % good_onnx)
        rt.export(cli, pos)
        rt.check(pos, "onnxexp")
        expect(pos.status == "FAIL" and "producer_name" in pos.detail, "producer_name checked (%s)" % pos.detail)

    # 4. run.js dtypes
    dtype_roundtrip(work, a.node)

    if tmp and not FAILURES:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILURES:
        print("selftest: %d check(s) failed; work dir kept: %s" % (len(FAILURES), work))
        return 1
    print("selftest: ok, %d checks (the harness passes a correct export and catches every planted fault)" % CHECKS[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
