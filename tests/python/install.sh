#!/bin/sh
# install.sh PREFIX PYTHON: after `cmake --install` into PREFIX (the
# api.install test), the Python package is in PYTHON's site-packages under
# PREFIX with the library installed beside it, and works from there alone:
# imported from outside the checkout, it loads PREFIX's library (not the
# build's) and exports.
set -eu
prefix=$1 python=$2
fail() { echo "python.install: $*" >&2; exit 1; }
site=$("$python" "$(dirname "$0")/../../python/sitedir.py" "$prefix")
[ -f "$site/onnxexp/__init__.py" ] || fail "no package in $site"
[ -f "$site/onnxexp/_config.py" ] || fail "no _config.py in $site/onnxexp"
[ ! -e "$site/onnxexp/sitedir.py" ] || fail "sitedir.py installed"
cd /
out=$(env -u ONNXEXP_LIBRARY -u ONNXEXP_BUILD_DIR PYTHONPATH="$site" "$python" -c '
import io, sys, torch, onnxexp
b = io.BytesIO()
onnxexp.export(torch.nn.Linear(3, 2), torch.randn(1, 3), b)
print(onnxexp.__file__)
print(onnxexp.library_path())
print(len(b.getvalue()))
') || fail "import or export failed"
echo "$out"
echo "$out" | sed -n 1p | grep -q "^$site/onnxexp/__init__.py$" || fail "imported from elsewhere"
echo "$out" | sed -n 2p | grep -q "^$prefix/" || fail "the library is not the installed one"
echo "python.install: ok"
