#!/usr/bin/env bash
# Set-up, build, and run the whole test suite (unit and round-trip tests).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
"$top/scripts/build.sh"
build=${BUILD_DIR:-$top/build}
cd "$build"
ctest --output-on-failure -j"$(nproc)" "$@"
