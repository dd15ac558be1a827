#!/bin/sh
# ci_run.sh PROGRAM TARGET SECONDS SRC WORK: ctest's fuzz.run_TARGET. Runs
# one libFuzzer program for SECONDS from the committed corpus (read-only:
# new inputs go to WORK/corpus, a crash to WORK/crash-*), and fails on any
# crash, timeout, leak, sanitizer report or out-of-memory. fuzz.sh is the
# same run for longer sessions by hand.
set -eu
prog=$1 t=$2 secs=$3 src=$4 work=$5
rm -rf "$work"
mkdir -p "$work/corpus"
case $t in
  fuzz_safetensors) dict=$src/tests/fuzz/st.dict; seeds=$src/tests/data/st ;;
  fuzz_check_model) dict=; seeds= ;; # the committed corpus is the seed
  *) dict=$src/tests/fuzz/ir.dict; seeds=$src/tests/data/ir ;;
esac
exec "$prog" ${dict:+-dict="$dict"} -max_total_time="$secs" -timeout=1 \
  -rss_limit_mb=2560 -max_len=16384 -print_final_stats=1 \
  -artifact_prefix="$work/" "$work/corpus" "$src/tests/fuzz/corpus/$t" ${seeds:+"$seeds"}
