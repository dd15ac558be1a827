#!/usr/bin/env bash
# Set-up, build, install, and export the bundled example model with the
# CLI and with the Python package; prints what it wrote.
#
# The install goes to $PREFIX (default ~/.local, no root needed): the
# onnxexp command in $PREFIX/bin, the library, headers, and the Python
# package into the site-packages /usr/bin/python3 searches there (the user
# site for ~/.local), so `import onnxexp` works from anywhere afterwards.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
"$top/scripts/build.sh"
build=${BUILD_DIR:-$top/build}
prefix=${PREFIX:-$HOME/.local}
cmake --install "$build" --prefix "$prefix" >/dev/null
site=$(/usr/bin/python3 "$top/python/sitedir.py" "$prefix")
echo "installed onnxexp into $prefix (Python package: $site/onnxexp)"
mkdir -p "$top/out"
"$build/src/cli/onnxexp" "$top/examples/tiny_mlp.ir" -o "$top/out/tiny_mlp.onnx"
echo "wrote $top/out/tiny_mlp.onnx ($(stat -c %s "$top/out/tiny_mlp.onnx") bytes):"
"$build/src/cli/onnxexp" "$top/examples/tiny_mlp.ir" --pretty
node "$top/tests/node/run_example.js" "$top/out/tiny_mlp.onnx"
# The same model from Python, in one call: the package as installed above
# (run from /, so nothing of the checkout is on the path but the example).
(cd / && /usr/bin/python3 "$top/examples/python_example.py" "$top/out/tiny_mlp_py.onnx")
node "$top/tests/node/run_example.js" "$top/out/tiny_mlp_py.onnx"
