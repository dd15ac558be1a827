#!/bin/sh
# replay.sh BINDIR CORPUS: runs every replay_<target> over CORPUS/<target>/.
# Used by ctest fuzz.replay; fails on the first target that fails.
set -e
bin=$1
corpus=$2
for t in fuzz_parse_ir fuzz_safetensors fuzz_export fuzz_check_model; do
  "$bin/replay_$t" "$corpus/$t"
done
