#!/usr/bin/env python3
"""Inputs are never destroyed: an output that is an input is refused.

  test_inputs_untouched.py --onnxexp BUILD/src/cli/onnxexp --work DIR [-k NAME]

Outputs (the model, its external data file) are renamed over their paths,
so before issue 24 `-o model.safetensors` replaced the weights with the
model and exited 0. Every output is now compared with the inputs (the IR,
the weights sidecar, default or --weights) and the data file with the
model, as files (device and inode once links are followed), not by
spelling. Each refusal must: exit 2, name both paths in one
"onnxexp: error:" line, leave every input byte-identical, and leave the
directory exactly as it was (no temporary, no partial output).
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clilib  # noqa: E402
from clilib import error_line, f32, fixture, main, read, run, st_bytes, test  # noqa: E402

IR, ST = "net.ir", "net.safetensors"
EXT = ["--external-data"]

# Linear(64, 64): a 16 KiB weight, so --external-data really writes a data
# file (tensors below 1 KiB stay inline).
NET_IR = """graph(%x : Float(1, 64, strides=[64, 1], requires_grad=0, device=cpu),
      %fc.weight : Float(64, 64, strides=[64, 1], requires_grad=1, device=cpu),
      %fc.bias : Float(64, strides=[1], requires_grad=1, device=cpu)):
  %y : Float(1, 64, strides=[64, 1], requires_grad=1, device=cpu) = aten::linear(%x, %fc.weight, %fc.bias)
  return (%y)
"""
NET_ST = st_bytes({"fc.weight": ("F32", [64, 64], f32(*[(i % 7) - 3.0 for i in range(4096)])),
                   "fc.bias": ("F32", [64], f32(*[0.5] * 64))})


def snapshot(d):
    """Every name under d (hidden ones too) with its link target or bytes."""
    snap = {}
    for root, dirs, files in os.walk(d):
        for n in dirs + files:
            p = os.path.join(root, n)
            key = os.path.relpath(p, d)
            if os.path.islink(p):
                snap[key] = ("link", os.readlink(p))
            elif os.path.isfile(p):
                snap[key] = ("file", read(p))
            else:
                snap[key] = ("dir",)
    return snap


def refused(d, args, out, inp, stdin=None):
    """Runs args in d; asserts the refusal naming out and inp, and that d
    is as it was."""
    before = snapshot(d)
    r = run(args, cwd=d, expect=2, input=stdin)
    msg = error_line(r)
    assert "refusing to write" in msg, r
    assert "'%s'" % out in msg and "'%s'" % inp in msg, \
        "message must name %r and %r: %r" % (out, inp, r)
    assert len(r.lines) == 1, r
    after = snapshot(d)
    assert after == before, "the directory changed: %s" % sorted(
        set(after.items()) ^ set(before.items()))
    return msg


def setup(d):
    fixture(d, "net", NET_IR, NET_ST)
    os.mkdir(os.path.join(d, "out"))
    return d


# ---- the model over an input -------------------------------------------------

@test
def model_over_the_ir(d):
    setup(d)
    assert "the IR" in refused(d, [IR, "-o", IR], IR, IR)


@test
def model_over_the_default_sidecar(d):
    setup(d)
    assert "the weights" in refused(d, [IR, "-o", ST], ST, ST)
    refused(d, [IR, "-o", "./" + ST], "./" + ST, ST)
    refused(d, [IR, "-o", os.path.join(d, ST)], os.path.join(d, ST), ST)
    refused(d, [IR, "-o", "out/../" + ST], "out/../" + ST, ST)


@test
def model_over_weights_flag(d):
    setup(d)
    os.rename(os.path.join(d, ST), os.path.join(d, "w.bin"))
    refused(d, [IR, "--weights", "w.bin", "-o", "w.bin"], "w.bin", "w.bin")
    # the reference mode points into the weights: still never over them
    refused(d, [IR, "--weights", "w.bin", "--external-data=reference", "-o", "w.bin"],
            "w.bin", "w.bin")


@test
def model_over_an_input_through_a_symlink(d):
    setup(d)
    os.symlink(ST, os.path.join(d, "w.link"))
    refused(d, [IR, "-o", "w.link"], "w.link", ST)
    os.symlink("../" + IR, os.path.join(d, "out", "ir.onnx"))
    refused(d, [IR, "-o", "out/ir.onnx"], "out/ir.onnx", IR)
    # the input is the link, the output its target
    os.symlink("out/real.onnx", os.path.join(d, "w2.link"))
    os.rename(os.path.join(d, ST), os.path.join(d, "out", "real.onnx"))
    refused(d, [IR, "--weights", "w2.link", "-o", "out/real.onnx"], "out/real.onnx", "w2.link")


@test
def model_over_an_input_through_a_hard_link(d):
    setup(d)
    os.link(os.path.join(d, ST), os.path.join(d, "out", "w.onnx"))
    os.link(os.path.join(d, IR), os.path.join(d, "out", "ir.onnx"))
    refused(d, [IR, "-o", "out/w.onnx"], "out/w.onnx", ST)
    refused(d, [IR, "-o", "out/ir.onnx"], "out/ir.onnx", IR)


@test
def model_over_the_ir_read_through_dev_stdin(d):
    setup(d)
    # /dev/stdin redirected from a file resolves to that very file
    before = snapshot(d)
    with open(os.path.join(d, IR), "rb") as f:
        p = subprocess.run([clilib.ONNXEXP, "/dev/stdin", "--weights", ST, "-o", IR],
                           cwd=d, stdin=f, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=clilib.TIMEOUT)
    err = p.stderr.decode()
    assert p.returncode == 2, err
    assert err == ("onnxexp: error: refusing to write the model to '%s': it is the same "
                   "file as the IR '/dev/stdin'\n" % IR), err
    assert snapshot(d) == before


# ---- the external data file over an input, or over the model -------------------

@test
def data_over_the_weights(d):
    setup(d)
    refused(d, [IR, "-o", "m.onnx"] + EXT + ["--external-data-name", ST], ST, ST)
    # relative to the model's directory, not the working directory
    os.symlink("../" + ST, os.path.join(d, "out", "w.link"))
    refused(d, [IR, "-o", "out/m.onnx"] + EXT + ["--external-data-name", "w.link"],
            "out/w.link", ST)
    os.link(os.path.join(d, ST), os.path.join(d, "out", "w.hard"))
    refused(d, [IR, "-o", "out/m.onnx"] + EXT + ["--external-data-name", "w.hard"],
            "out/w.hard", ST)
    # --weights elsewhere, the default data name beside the model
    os.rename(os.path.join(d, ST), os.path.join(d, "out", "m.onnx.data"))
    refused(d, [IR, "--weights", "out/m.onnx.data", "-o", "out/m.onnx"] + EXT,
            "out/m.onnx.data", "out/m.onnx.data")


@test
def data_over_the_ir(d):
    setup(d)
    refused(d, [IR, "-o", "m.onnx"] + EXT + ["--external-data-name", IR], IR, IR)
    os.symlink("../" + IR, os.path.join(d, "out", "ir.link"))
    refused(d, [IR, "-o", "out/m.onnx"] + EXT + ["--external-data-name", "ir.link"],
            "out/ir.link", IR)
    os.link(os.path.join(d, IR), os.path.join(d, "out", "ir.hard"))
    refused(d, [IR, "-o", "out/m.onnx"] + EXT + ["--external-data-name", "ir.hard"],
            "out/ir.hard", IR)


@test
def data_over_the_model(d):
    setup(d)
    # by name, whether or not the model exists yet
    refused(d, [IR, "-o", "out/m.onnx"] + EXT + ["--external-data-name", "m.onnx"],
            "out/m.onnx", "out/m.onnx")
    run([IR, "-o", "out/m.onnx"], cwd=d, expect=0)
    refused(d, [IR, "-o", "out/m.onnx"] + EXT + ["--external-data-name", "m.onnx"],
            "out/m.onnx", "out/m.onnx")
    # as a file: a symlink to the model, a hard link of it
    os.symlink("m.onnx", os.path.join(d, "out", "m.link"))
    msg = refused(d, [IR, "-o", "out/m.onnx"] + EXT + ["--external-data-name", "m.link"],
                  "out/m.link", "out/m.onnx")
    assert "the model" in msg, msg
    os.link(os.path.join(d, "out", "m.onnx"), os.path.join(d, "out", "m.hard"))
    refused(d, [IR, "-o", "out/m.onnx"] + EXT + ["--external-data-name", "m.hard"],
            "out/m.hard", "out/m.onnx")


# ---- what is not an input is still written ---------------------------------------

@test
def dangling_symlinks_are_replaced_not_followed(d):
    setup(d)
    # a link to nothing is no input: the rename replaces the link itself
    os.symlink("nowhere.onnx", os.path.join(d, "out", "m.onnx"))
    os.symlink("nowhere.data", os.path.join(d, "out", "m.onnx.data"))
    run([IR, "-o", "out/m.onnx"] + EXT, cwd=d, expect=0)
    assert not os.path.islink(os.path.join(d, "out", "m.onnx"))
    assert not os.path.islink(os.path.join(d, "out", "m.onnx.data"))
    assert os.path.getsize(os.path.join(d, "out", "m.onnx.data")) >= 16384
    assert not os.path.lexists(os.path.join(d, "out", "nowhere.onnx"))
    assert not os.path.lexists(os.path.join(d, "out", "nowhere.data"))
    # a dangling link named like the model: the data file still beside it
    os.symlink("m2.onnx", os.path.join(d, "out", "d.link"))
    run([IR, "-o", "out/m2.onnx"] + EXT + ["--external-data-name", "d.link"], cwd=d, expect=0)
    assert os.path.isfile(os.path.join(d, "out", "m2.onnx"))
    assert not os.path.islink(os.path.join(d, "out", "d.link"))


@test
def unrelated_outputs_are_written(d):
    setup(d)
    st = read(os.path.join(d, ST))
    run([IR, "-o", "m.onnx"] + EXT, cwd=d, expect=0)
    assert os.path.isfile(os.path.join(d, "m.onnx.data"))
    # the same outputs again replace the previous ones: outputs are not inputs
    run([IR, "-o", "m.onnx"] + EXT, cwd=d, expect=0)
    run([IR, "-o", "m.onnx"] + EXT + ["--external-data-name", "m.bin"], cwd=d, expect=0)
    assert os.path.isfile(os.path.join(d, "m.bin"))
    assert read(os.path.join(d, ST)) == st


if __name__ == "__main__":
    sys.exit(main(__doc__.splitlines()[0]))
