#!/usr/bin/env bash
# bench/run.sh: builds onnxexp (Release) and runs the benchmark against
# torch.onnx.export; prints one table and the targets of issues 8 and 21
# (the "python e2e" rows: onnxexp.export vs torch.onnx.export, both from
# the model in memory).
#
#   bench/run.sh [bench.py options]    e.g. --only encoder,chain
#
# Scratch: $BENCH_DIR (default /tmp/onnxexp-bench); needs about 15 GB free
# there for the 3 GB model (skipped with a note otherwise), which is
# deleted afterwards. The models are generated once and reused.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# The build is the checkout's own (build-bench/, git-ignored): a scratch
# directory shared by two checkouts would hold one CMake cache for both.
build=${BENCH_BUILD_DIR:-$top/build-bench}
if [ -z "${ONNXEXP:-}" ]; then
  cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release -DONNXEXP_TESTS=OFF >/dev/null
  cmake --build "$build" -j"$(nproc)" --target onnxexp onnxexp_shared >/dev/null
  ONNXEXP=$build/src/cli/onnxexp
  export ONNXEXP_LIBRARY=${ONNXEXP_LIBRARY:-$build/src/export/public/libonnxexp.so}
fi
exec /usr/bin/python3 "$top/bench/bench.py" --onnxexp "$ONNXEXP" "$@"
