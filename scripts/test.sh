#!/usr/bin/env bash
# Set-up, build, and run the whole test suite twice: in the plain build
# (build/, or $BUILD_DIR) and again in a build with AddressSanitizer and
# UndefinedBehaviorSanitizer by clang (build-asan/, or $SAN_BUILD_DIR),
# which also runs each libFuzzer target for 30 seconds and reads the plain
# build's fixtures. Any sanitizer report
# fails its test. SANITIZE=0 skips the second pass; arguments go to both
# ctest runs (e.g. -R roundtrip).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
"$top/scripts/build.sh"
build=${BUILD_DIR:-$top/build}
jobs=$(nproc)
status=0
echo "== tests: plain build ($build)"
(cd "$build" && ctest --output-on-failure -j"$jobs" "$@") || status=1

if [ "${SANITIZE:-1}" != 0 ]; then
  san=${SAN_BUILD_DIR:-$top/build-asan}
  echo "== tests: ASan + UBSan build ($san)"
  cmake -S "$top" -B "$san" -DCMAKE_C_COMPILER=clang \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DONNXEXP_SANITIZE=address,undefined -DONNXEXP_LIBFUZZER=ON \
        -DONNXEXP_FIXTURES_DIR="$build/fixtures" >/dev/null
  cmake --build "$san" -j"$jobs" >/dev/null
  (cd "$san" && ctest --output-on-failure -j"$jobs" "$@") || status=1
fi
exit $status
