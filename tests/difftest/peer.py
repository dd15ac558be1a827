"""The peer, torch.onnx.export, in a worker process of its own.

    /usr/bin/python3 tests/difftest/peer.py      (started by harness.PeerWorker)

It reads one job per stdin line, {"id", "dir", "program", "forms", "fixed",
"opset"}: loads the program (program.json + program.safetensors in
"program"), rebuilds the forms named (the dynamic one with the main
process's choice of sizes), exports each with torch.onnx.export and checks
it with onnx.checker, and answers per form {"id", "start": form} before and
{"id", "done": form, "outcome", "detail", "key", "onnx", "jobs"} after.
torch's exporter can die of a signal (SIGFPE in its Reshape shape
inference of empty tensors): the main process then sees the form that was
started and not done, counts it as the peer's crash and starts a new
worker. Running beside the main process, the peer costs no wall time on a
machine with two cores.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")  # torch.jit.script's warnings about list types

import numpy as np  # noqa: E402
import torch  # noqa: E402

import harness  # noqa: E402
from program import load_program  # noqa: E402


def serve(inp, out):
    torch.set_num_threads(1)
    for line in inp:
        if not line.strip():
            continue
        job = json.loads(line)
        try:
            prog = load_program(job["program"])
            forms = harness.make_forms(prog, np.random.default_rng(0), "peer%s" % job["id"], want=tuple(job["forms"]),
                                       fixed=tuple(job["fixed"]) if job.get("fixed") else None)
        except Exception as e:  # noqa: BLE001  (the program did not rebuild here: no peer result, not a peer crash)
            for name in job["forms"]:
                out.write(json.dumps({"id": job["id"], "done": name, "outcome": "n/a", "detail": "peer worker: %s: %s" % (
                    type(e).__name__, harness.first_line(e)), "key": "peer worker could not rebuild the program",
                                      "onnx": None, "jobs": []}) + "\n")
            out.write(json.dumps({"id": job["id"], "end": True}) + "\n")
            out.flush()
            continue
        for f in forms:
            out.write(json.dumps({"id": job["id"], "start": f.name}) + "\n")
            out.flush()
            if f.na:
                res = harness.Result(f.name, "peer").set("n/a", f.na, f.na.split(" (")[0])
            else:
                res = harness.run_peer(f, os.path.join(job["dir"], f.name), job["opset"])
                if res.outcome is None:
                    harness.check_model(res, job["opset"])
            out.write(json.dumps({"id": job["id"], "done": f.name, "outcome": res.outcome, "detail": res.detail,
                                  "key": res.key, "onnx": res.onnx, "jobs": res.jobs}) + "\n")
            out.flush()
        out.write(json.dumps({"id": job["id"], "end": True}) + "\n")
        out.flush()


if __name__ == "__main__":
    # answers go to the original stdout; anything torch or onnx prints goes to stderr
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    serve(sys.stdin, out)
