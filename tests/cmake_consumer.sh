#!/bin/sh
# The CMake package end to end: install kdt from an existing build tree into
# a staged prefix, configure and build samples/cmake-consumer against it with
# Ninja, run it, then edit a .kd file that the kernels include and check that
# the rebuild regenerates the kernel and the program sees the new constant.
#
# Usage: cmake_consumer.sh SOURCE_DIR BUILD_DIR WORK_DIR [CMAKE [NINJA]]
set -eu
src=$1
build=$2
work=$3
cmake=${4:-cmake}
ninja=${5:-ninja}

rm -rf "$work"
mkdir -p "$work"
stage=$work/stage
consumer=$work/consumer
cbuild=$work/consumer-build

echo "== cmake --install $build --prefix $stage"
"$cmake" --install "$build" --prefix "$stage" >"$work/install.log"
test -x "$stage/bin/kdt"
test -f "$stage/share/man/man1/kdt.1"
test -f "$stage/include/kdt/runtime/kdt_runtime.h"
ls "$stage"/lib*/cmake/kdt/kdtConfig.cmake >/dev/null

# A copy of the consumer, so that the edit below never touches the sources.
cp -R "$src/samples/cmake-consumer" "$consumer"

echo "== configure and build the consumer"
"$cmake" -S "$consumer" -B "$cbuild" -G Ninja -DCMAKE_MAKE_PROGRAM="$ninja" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$stage" >"$work/configure.log"
"$cmake" --build "$cbuild" >"$work/build1.log"
"$cbuild/consumer" 3 | tee "$work/run1.log"
grep -q '^ok$' "$work/run1.log"

echo "== a rebuild with nothing changed does nothing"
"$cmake" --build "$cbuild" -- -n -d explain >"$work/build-noop.log" 2>&1
if ! grep -q "no work to do" "$work/build-noop.log"; then
  cat "$work/build-noop.log"
  echo "FAIL: the build is not up to date after building" >&2
  exit 1
fi

echo "== edit the included scale_params.kd: SCALE = 3 -> 5"
params=$consumer/kernels/include/scale_params.kd
sed 's/^const SCALE = 3;/const SCALE = 5;/' "$params" >"$params.new"
grep -q 'SCALE = 5' "$params.new"
mv "$params.new" "$params"
touch "$params"
"$cmake" --build "$cbuild" >"$work/build2.log"
cat "$work/build2.log"
grep -q 'scale_rows.kd.h' "$work/build2.log" || { echo "FAIL: scale_rows.kd.h was not regenerated" >&2; exit 1; }
"$cbuild/consumer" 5 | tee "$work/run2.log"
grep -q '^ok$' "$work/run2.log"
if "$cbuild/consumer" 3 >/dev/null; then
  echo "FAIL: the rebuilt program still computes with SCALE = 3" >&2
  exit 1
fi
echo "cmake consumer: ok"
rm -rf "$work"
