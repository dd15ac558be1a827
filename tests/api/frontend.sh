#!/bin/sh
# frontend.sh MODE SRC WORK CC CMAKE NODE: builds examples/frontend.c
# against the library installed in WORK/prefix (MODE pkgconfig or
# find_package), runs it, and runs what it wrote in onnxruntime.
set -eu
mode=$1 src=$2 work=$3 cc=$4 cmake=$5 node=${6:-}
prefix=$work/prefix
libdir=$(ls -d "$prefix"/lib*/ | head -n1)
out=$work/$mode
rm -rf "$out"
mkdir -p "$out"
case $mode in
pkgconfig)
  export PKG_CONFIG_PATH=$libdir/pkgconfig
  # shellcheck disable=SC2046
  "$cc" -std=c99 -Wall -Werror "$src/examples/frontend.c" -o "$out/frontend" \
    $(pkg-config --cflags --libs onnxexp) -Wl,-rpath,"$libdir"
  pkg-config --static --libs onnxexp | grep -q protobuf-c
  bins=$out/frontend
  ;;
find_package)
  "$cmake" -S "$src/tests/install" -B "$out/build" -DCMAKE_PREFIX_PATH="$prefix" \
    -DONNXEXP_EXAMPLE="$src/examples/frontend.c" >"$out/configure.log"
  "$cmake" --build "$out/build" >"$out/build.log"
  bins="$out/build/frontend_shared $out/build/frontend_static"
  ;;
*) echo "unknown mode $mode" >&2; exit 2 ;;
esac
for b in $bins; do
  name=$(basename "$b")
  "$b" "$out/$name.onnx"
  if [ -n "$node" ]; then
    "$node" "$src/tests/node/check_frontend.js" "$out/$name.onnx"
  else
    echo "node not found: onnxruntime check skipped" >&2
  fi
done
