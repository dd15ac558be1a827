#!/bin/sh
# fuzz.sh TARGET [SECONDS] [BUILD]: builds the libFuzzer programs with
# clang into BUILD (default /tmp/build-libfuzzer) and runs TARGET
# (fuzz_parse_ir, fuzz_safetensors, fuzz_export or fuzz_check_model) for
# SECONDS (default 300) on one core, starting from the committed corpus
# plus the seeds it names; new inputs go to BUILD/corpus/TARGET, crashes
# to BUILD/artifacts/.
# Needs clang and libclang-rt-dev; nothing in the normal build needs them.
set -eu
t=$1
secs=${2:-300}
build=${3:-/tmp/build-libfuzzer}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER=clang -DONNXEXP_LIBFUZZER=ON >/dev/null
cmake --build "$build" -j2 --target "$t" >/dev/null
mkdir -p "$build/corpus/$t" "$build/artifacts"
case $t in
  fuzz_safetensors) dict=$here/st.dict; seeds="$src/tests/data/st" ;;
  fuzz_check_model) dict=; seeds= ;; # the committed corpus is the seed
  *) dict=$here/ir.dict; seeds="$src/tests/data/ir" ;;
esac
exec "$build/tests/$t" ${dict:+-dict="$dict"} -max_total_time="$secs" -timeout=1 \
  -rss_limit_mb=2560 -max_len=16384 -print_final_stats=1 \
  -artifact_prefix="$build/artifacts/$t-" \
  "$build/corpus/$t" "$here/corpus/$t" $seeds
