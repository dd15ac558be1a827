#!/usr/bin/env bash
# Set-up, build, and export the bundled example model; prints what it wrote.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
"$top/scripts/build.sh"
build=${BUILD_DIR:-$top/build}
mkdir -p "$top/out"
"$build/src/cli/onnxexp" "$top/examples/tiny_mlp.ir" -o "$top/out/tiny_mlp.onnx"
echo "wrote $top/out/tiny_mlp.onnx ($(stat -c %s "$top/out/tiny_mlp.onnx") bytes):"
"$build/src/cli/onnxexp" "$top/examples/tiny_mlp.ir" --pretty
node "$top/tests/node/run_example.js" "$top/out/tiny_mlp.onnx"
