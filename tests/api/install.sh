#!/bin/sh
# install.sh BUILD WORK: cmake --install BUILD into WORK/prefix, and check
# that the prefix holds the public headers only, the libraries, the
# pkg-config file and the CMake package.
set -eu
build=$1 work=$2
prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
fail() { echo "api.install: $*" >&2; exit 1; }
libdir=$(ls -d "$prefix"/lib*/ | head -n1)
for f in include/onnxexp/onnxexp.h include/onnxexp/version.h include/onnxexp/export.h \
         include/onnxexp/builder.h include/onnxexp/symbolic_helper.h include/onnxexp/utils.h \
         include/onnxexp/verification.h include/onnxexp/diag.h; do
  [ -f "$prefix/$f" ] || fail "missing $f"
done
extra=$(cd "$prefix/include" && find . -type f ! -path './onnxexp/*.h')
[ -z "$extra" ] || fail "headers outside onnxexp/: $extra"
for h in oxp.h shim.h api_core.h sym.h version.h.in; do
  [ ! -e "$prefix/include/onnxexp/$h" ] || fail "private file $h installed"
done
[ -f "$libdir/libonnxexp.a" ] || fail "no libonnxexp.a in $libdir"
[ -e "$libdir/libonnxexp.so" ] || fail "no libonnxexp.so in $libdir"
[ -f "$libdir/pkgconfig/onnxexp.pc" ] || fail "no onnxexp.pc"
[ -f "$libdir/cmake/onnxexp/onnxexpConfig.cmake" ] || fail "no onnxexpConfig.cmake"
# The headers stand alone, in C99 and in C++.
printf '#include <onnxexp/onnxexp.h>\nint main(void){return onnxexp_version()==0;}\n' >"$work/c99.c"
cc -std=c99 -pedantic -Wall -Werror -I"$prefix/include" -c "$work/c99.c" -o "$work/c99.o"
if command -v c++ >/dev/null 2>&1; then
  cp "$work/c99.c" "$work/cxx.cc"
  c++ -Wall -Werror -I"$prefix/include" -c "$work/cxx.cc" -o "$work/cxx.o"
fi
echo "installed into $prefix"
