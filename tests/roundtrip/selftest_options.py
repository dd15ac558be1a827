#!/usr/bin/python3
"""Self-test of the round-trip harness's option checks: each must be able to
fail, not only pass.

    /usr/bin/python3 tests/roundtrip/selftest_options.py --onnxexp CLI [--work DIR] [--node NODE]

Generates a few fx_options fixtures, runs the harness on them (they must
pass), then plants one fault at a time and asserts the harness reports it:
a wrong reference for a further input set, a --dynamic-axes dim_param the
model lacks, an expected output dim_param, expect nodes / no_nodes /
opset_import / doc_string mismatches, an expect_error list with one missing
part, and a CLI whose two exports differ (determinism). Exit 0 when every
fault is caught.
"""

import argparse
import io
import json
import os
import shutil
import stat
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
sys.path.insert(0, HERE)

import gen_fixtures  # noqa: E402
import roundtrip as rt  # noqa: E402
import st  # noqa: E402

NAMES = ["opt_dyn_mlp", "opt_aten_fallback_opset", "opt_doc_string", "opt_err_broadcast_add", "opt_no_export_params"]
FAILURES = []


def expect(cond, what):
    print("%s  %s" % ("ok  " if cond else "FAIL", what))
    if not cond:
        FAILURES.append(what)


def harness(cli, fx, work, names, node, extra=()):
    log = io.StringIO()
    code, cases = rt.run(["--onnxexp", cli, "--fixtures", fx, "--work", work, "--opset", "17", "--node", node,
                          "--only"] + list(names) + list(extra), out=log)
    return code, {c.name: c for c in cases}, log.getvalue()


def planted(fx, name, tmp, edit_meta=None, edit_dir=None):
    """A copy of fixture name under tmp with its meta (and files) edited."""
    d = os.path.join(tmp, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    shutil.copytree(os.path.join(fx, name), d)
    if edit_meta:
        with open(os.path.join(d, "meta.json")) as f:
            meta = json.load(f)
        edit_meta(meta)
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f)
    if edit_dir:
        edit_dir(d)
    return d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxexp", required=True)
    ap.add_argument("--work")
    ap.add_argument("--node", default=shutil.which("node") or "node")
    a = ap.parse_args()
    cli = os.path.abspath(a.onnxexp)
    work = os.path.abspath(a.work) if a.work else tempfile.mkdtemp(prefix="oxp-selftest-opts-")
    if os.path.isdir(work):
        shutil.rmtree(work)
    fx, bad, rw = (os.path.join(work, d) for d in ("fixtures", "planted", "rt"))
    os.makedirs(bad)
    expect(gen_fixtures.main([fx, "-q", "--only"] + NAMES) == 0, "generator ran")

    code, cases, log = harness(cli, fx, rw, NAMES, a.node)
    expect(code == 0, "the unplanted fixtures pass:\n" + log)

    def case_of(edit_meta=None, edit_dir=None, name="opt_dyn_mlp", extra=()):
        planted(fx, name, bad, edit_meta, edit_dir)
        _, cs, _ = harness(cli, bad, os.path.join(work, "rt_planted"), [name], a.node, extra)
        return cs[name]

    def wrong_set2(d):
        ref = st.load(os.path.join(d, "outputs.2.safetensors"))
        ref["out0"] = ref["out0"].copy()
        ref["out0"][3, 1] += 0.01
        st.save(ref, os.path.join(d, "outputs.2.safetensors"))

    c = case_of(edit_dir=wrong_set2)
    expect(c.status == "FAIL" and c.stage == "compare" and "input set 2" in c.detail,
           "a wrong reference for input set 2 is reported (%s: %s)" % (c.stage, c.detail))
    c = case_of(lambda m: m.update(cli_args=m["cli_args"][:-2]))  # exported without the dynamic axis
    expect(c.status == "FAIL" and c.stage == "ort" and "input set 1" in c.detail and "['batch', 5]" in c.detail,
           "a static model run at other sizes, and its output without the dim_param, are reported (%s: %s)"
           % (c.stage, c.detail))
    c = case_of(lambda m: m["cli_args"].__setitem__(-1, "x:0=batch,x:1=feat"))
    expect(c.status == "PASS", "a dynamic feature axis is fine too (%s: %s)" % (c.stage, c.detail))

    # a CLI that ignores --dynamic-axes: the dim_param check catches it
    deaf = os.path.join(work, "no_dynamic_axes_cli.sh")
    with open(deaf, "w") as f:
        f.write("#!%s\nimport subprocess, sys\na = sys.argv[1:]\n" % sys.executable)
        f.write("while '--dynamic-axes' in a:\n    i = a.index('--dynamic-axes'); del a[i:i + 2]\n")
        f.write("sys.exit(subprocess.call([%r] + a))\n" % cli)
    os.chmod(deaf, os.stat(deaf).st_mode | stat.S_IXUSR)
    _, cs, _ = harness(deaf, fx, os.path.join(work, "rt_deaf"), ["opt_dyn_mlp"], a.node)
    c = cs["opt_dyn_mlp"]
    expect(c.status == "FAIL" and "x: dim 0 is 3, expected dim_param 'batch'" in c.detail,
           "a --dynamic-axes input without its dim_param is reported (%s: %s)" % (c.stage, c.detail))

    aten = "opt_aten_fallback_opset"
    c = case_of(lambda m: m["expect"]["nodes"][0]["attrs"].update(operator="lgamma"), name=aten)
    expect(c.status == "FAIL" and "0 org.pytorch.aten::ATen" in c.detail, "a missing ATen node is reported (%s)" % c.detail)
    c = case_of(lambda m: m["expect"]["nodes"][0].update(outputs=[["float64", [2, 3]]]), name=aten)
    expect(c.status == "FAIL" and "output 0" in c.detail, "a wrong ATen output type is reported (%s)" % c.detail)
    c = case_of(lambda m: m["expect"].update(opset_import={"org.pytorch.aten": 4}), name=aten)
    expect(c.status == "FAIL" and "opset_import" in c.detail, "a wrong custom opset version is reported (%s)" % c.detail)
    c = case_of(lambda m: m["expect"].update(no_nodes=[{"op_type": "Gemm"}]), name=aten)
    expect(c.status == "FAIL" and "unexpected Gemm" in c.detail, "an unexpected node is reported (%s)" % c.detail)
    c = case_of(lambda m: m["expect"].update(doc_string="other"), name="opt_doc_string")
    expect(c.status == "FAIL" and "doc_string" in c.detail, "a wrong doc_string is reported (%s)" % c.detail)
    c = case_of(lambda m: m.update(expect_error=m["expect_error"] + ["[5, 5]"]), name="opt_err_broadcast_add")
    expect(c.status == "FAIL" and "[5, 5]" in c.detail, "a missing part of an expect_error list is reported (%s)" % c.detail)

    def weights_half(d):
        w = st.load(os.path.join(d, "model.safetensors"))
        w["w"] = w["w"] * 0.5
        st.save(w, os.path.join(d, "model.safetensors"))

    c = case_of(edit_dir=weights_half, name="opt_no_export_params")
    expect(c.status == "FAIL" and c.stage == "compare",
           "--no-export-params: the weights fed come from model.safetensors (%s: %s)" % (c.stage, c.detail))

    # a CLI whose exports differ from run to run: a doc_string field with the pid appended
    flaky = os.path.join(work, "flaky_cli.sh")
    with open(flaky, "w") as f:
        f.write('#!/bin/sh\n"%s" "$@" || exit $?\nout="$3"\n' % cli)
        f.write("%s -c 'import os,sys; p=sys.argv[1]; s=b\"pid%%06d\" %% os.getppid(); "
                "open(p, \"ab\").write(bytes([0x32, len(s)]) + s)' \"$out\"\n" % sys.executable)
    os.chmod(flaky, os.stat(flaky).st_mode | stat.S_IXUSR)
    code, cs, log = harness(flaky, fx, os.path.join(work, "rt_flaky"), ["opt_doc_string"], a.node)
    c = cs["opt_doc_string"]
    expect(c.status == "FAIL" and c.stage == "determinism", "two different exports are reported (%s: %s)" % (c.stage, c.detail))

    if FAILURES:
        print("selftest_options: %d check(s) failed; work dir kept: %s" % (len(FAILURES), work))
        return 1
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    print("selftest_options: ok, every planted fault caught")
    return 0


if __name__ == "__main__":
    sys.exit(main())
