#!/usr/bin/env python3
"""Writes the safetensors sidecars of the bad-input suite into files/.

  make_sidecars.py           (re)write every sidecar
  make_sidecars.py --check   exit 1 if a committed sidecar differs

Python stdlib only. Each entry of SIDECARS is one file: the name says what
is wrong with it; the IR it is paired with (files/lin.ir unless cases.txt
says otherwise) declares %w : Float(4, 3) and %b : Float(4). run_bad.py
checks that the committed files match this table before the cases run.
"""

import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "cli"))
from clilib import f32, st_bytes  # noqa: E402

FILES = os.path.join(HERE, "files")

W = ("F32", [4, 3], f32(*range(12)))
B = ("F32", [4], f32(1, 2, 3, 4))
DATA = W[2] + B[2]  # the data section of the good file: w at [0, 48], b at [48, 64]


def good(**override):
    """The good file for lin.ir, with some header entries replaced."""
    return st_bytes({"w": W, "b": B}, header_extra=override or None)


def entry(dtype="F32", shape=(4,), offsets=(48, 64)):
    return {"dtype": dtype, "shape": list(shape), "data_offsets": list(offsets)}


def raw(header, data=DATA, length=None):
    """A file whose header is the given bytes, declared as length bytes."""
    return struct.pack("<Q", len(header) if length is None else length) + header + data


def w_entry(**kw):
    """w's entry with some fields changed (offsets stay [0, 48])."""
    e = {"dtype": "F32", "shape": [4, 3], "data_offsets": [0, 48]}
    e.update(kw)
    return e


SIDECARS = {
    "lin_good": good(),
    # whole-file framing
    "st_empty": b"",
    "st_short": b"\x10\0\0\0\0",
    "st_header_past_end": raw(b'{"w":{}}', b"", length=4096),
    "st_header_absurd": raw(b"{}", length=2**63 + 5),
    "st_header_zero": raw(b"", length=0),
    # the JSON header
    "st_json_truncated": raw(b'{"w":{"dtype":"F32",'),
    "st_json_garbage": raw(b"not json"),
    "st_json_list": raw(b"[1, 2, 3]"),
    "st_json_deep": raw(b"[" * 1000 + b"]" * 1000),
    "st_json_trailing": raw(b"{} {}"),
    "st_json_duplicate": raw(b'{"w":' + json.dumps(w_entry()).encode() +
                             b',"w":' + json.dumps(w_entry()).encode() + b"}"),
    "st_json_no_offsets": good(w={"dtype": "F32", "shape": [4, 3]}),
    "st_metadata_not_string": good(__metadata__={"format": 1}),
    # one tensor's description
    "st_dtype_unknown": good(w=w_entry(dtype="Q99")),
    "st_dtype_not_string": good(w=w_entry(dtype=32)),
    "st_shape_negative": good(w=w_entry(shape=[-4, 3])),
    "st_shape_overflow": good(w=w_entry(shape=[2**32, 2**32, 2**32])),
    "st_shape_not_list": good(w=w_entry(shape="4x3")),
    "st_offsets_past_end": good(b=entry(offsets=(48, 80))),
    "st_offsets_huge": good(b=entry(offsets=(48, 2**64 + 48))),
    "st_offsets_reversed": good(b=entry(offsets=(64, 48))),
    "st_offsets_overlap": good(b=entry(offsets=(32, 48))),
    "st_offsets_size": good(b=entry(offsets=(48, 60))),
    # readable, but not what lin.ir declares
    "st_dtype_mismatch": st_bytes({"w": ("F64", [4, 3], b"\0" * 96), "b": B}),
    "st_shape_mismatch": st_bytes({"w": ("F32", [3, 4], W[2]), "b": B}),
    "st_rank_mismatch": st_bytes({"w": W, "b": ("F32", [2, 2], B[2])}),
    "st_missing_b": st_bytes({"w": W}),
    "st_weight_for_scalar": st_bytes({"w": W, "b": B, "n": ("I64", [], b"\0" * 8)}),
    # for attr_tensor_no_data.ir: its <Tensor> constant %c is Float(2, 3)
    "st_const_dtype": st_bytes({"constant:c": ("I64", [2, 3], b"\0" * 48)}),
    "st_const_shape": st_bytes({"constant:c": ("F32", [3, 2], b"\0" * 24)}),
    # the default sidecar of dflt.ir
    "dflt": b"garbage",
}


def path(name):
    return os.path.join(FILES, name + ".safetensors")


def main(argv):
    check = argv[1:] == ["--check"]
    stale = []
    for name, blob in SIDECARS.items():
        p = path(name)
        if check:
            try:
                with open(p, "rb") as f:
                    same = f.read() == blob
            except OSError:
                same = False
            if not same:
                stale.append(p)
        else:
            with open(p, "wb") as f:
                f.write(blob)
    if stale:
        print("sidecars differ from make_sidecars.py (run it and commit): " + " ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
