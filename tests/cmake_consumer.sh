#!/bin/sh
# The CMake package end to end: install kdt from an existing build tree into
# a staged prefix (stripped binary, pkg-config file), then, with Ninja and
# with Make, configure and build samples/cmake-consumer against it, run it,
# edit a .kd file that the kernels include and check that the rebuild
# regenerates the kernel and the program sees the new constant, and that an
# edit that leaves kdt's output unchanged does not make later builds run kdt
# again. Last, kdt_add_kernels' configure-time checks for EMIT cuda.
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
fail() { echo "FAIL: $*" >&2; exit 1; }

echo "== cmake --install $build --prefix $stage"
"$cmake" --install "$build" --prefix "$stage" >"$work/install.log"
test -x "$stage/bin/kdt"
test -f "$stage/share/man/man1/kdt.1"
test -f "$stage/include/kdt/runtime/kdt_runtime.h"
test -f "$stage/share/bash-completion/completions/kdt"
ls "$stage"/lib*/cmake/kdt/kdtConfig.cmake >/dev/null

echo "== the installed binary is stripped"
if readelf -S "$stage/bin/kdt" | grep -q '\.debug_info\|\.symtab'; then fail "the installed kdt has debug information or symbols"; fi
"$stage/bin/kdt" --version >/dev/null

echo "== pkg-config --cflags kdt compiles code that includes the runtime"
if command -v pkg-config >/dev/null; then
  flags=$(PKG_CONFIG_PATH="$stage/share/pkgconfig" pkg-config --cflags kdt)
  echo "$flags" | grep -q -- "-I" || fail "pkg-config gave no include flag: $flags"
  "$stage/bin/kdt" --emit=cpp "$src/samples/accumulate_blocks.kd" -o "$work/k.cpp"
  # The emitted file is self-contained; the headers are found through pkg-config alone.
  printf '#include "kdt/runtime/kdt_runtime.h"\nint main() { return 0; }\n' >"$work/pc.cpp"
  # shellcheck disable=SC2086
  c++ -std=c++17 -fsyntax-only $flags "$work/pc.cpp" || fail "the runtime headers are not found through pkg-config"
else
  echo "(no pkg-config: skipped)"
fi

# consumer_with GENERATOR NAME: the whole edit-and-rebuild cycle with one generator.
consumer_with() {
  generator=$1
  name=$2
  consumer=$work/consumer-$name
  cbuild=$work/consumer-$name-build
  cp -R "$src/samples/cmake-consumer" "$consumer"  # a copy: the edits never touch the sources
  echo "== [$name] configure and build the consumer"
  extra=""
  [ "$generator" = Ninja ] && extra="-DCMAKE_MAKE_PROGRAM=$ninja"
  "$cmake" -S "$consumer" -B "$cbuild" -G "$generator" $extra -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$stage" >"$work/configure-$name.log"
  "$cmake" --build "$cbuild" >"$work/build1-$name.log"
  "$cbuild/consumer" 3 | tee "$work/run1-$name.log"
  grep -q '^ok$' "$work/run1-$name.log"

  echo "== [$name] a rebuild with nothing changed runs nothing"
  "$cmake" --build "$cbuild" >"$work/build-noop-$name.log" 2>&1
  if grep -q "Generating\|Building" "$work/build-noop-$name.log"; then
    cat "$work/build-noop-$name.log"
    fail "[$name] the build is not up to date after building"
  fi

  echo "== [$name] edit the included scale_params.kd: SCALE = 3 -> 5"
  params=$consumer/kernels/include/scale_params.kd
  sed 's/^const SCALE = 3;/const SCALE = 5;/' "$params" >"$params.new"
  grep -q 'SCALE = 5' "$params.new"
  mv "$params.new" "$params"
  touch "$params"
  "$cmake" --build "$cbuild" >"$work/build2-$name.log"
  cat "$work/build2-$name.log"
  grep -q 'scale_rows.kd.h' "$work/build2-$name.log" || fail "[$name] scale_rows.kd.h was not regenerated"
  "$cbuild/consumer" 5 | tee "$work/run2-$name.log"
  grep -q '^ok$' "$work/run2-$name.log"
  if "$cbuild/consumer" 3 >/dev/null; then fail "[$name] the rebuilt program still computes with SCALE = 3"; fi

  echo "== [$name] an edit that leaves kdt's output unchanged: kdt runs once, then never again"
  sleep 1
  echo "// a comment at the end changes no output" >>"$params"
  "$cmake" --build "$cbuild" >"$work/build3-$name.log" 2>&1
  grep -q 'scale_rows.kd.h' "$work/build3-$name.log" || fail "[$name] kdt did not run after the edit"
  "$cmake" --build "$cbuild" >"$work/build4-$name.log" 2>&1
  if grep -q "Generating\|Building" "$work/build4-$name.log"; then
    cat "$work/build4-$name.log"
    fail "[$name] kdt runs again on a later build (the rebuild loop)"
  fi
}
consumer_with Ninja ninja
if command -v make >/dev/null; then consumer_with "Unix Makefiles" make; else echo "(no make: skipped)"; fi

echo "== EMIT cuda without the CUDA language is a configure error that says what to do"
nocuda=$work/nocuda
mkdir -p "$nocuda"
cp "$src/samples/accumulate_blocks.kd" "$nocuda/k.kd"
cat >"$nocuda/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(nocuda LANGUAGES CXX)
find_package(kdt CONFIG REQUIRED)
add_library(k STATIC)
kdt_add_kernels(TARGET k SOURCES k.kd EMIT cuda)
CMAKE
if "$cmake" -S "$nocuda" -B "$nocuda/build" -G Ninja -DCMAKE_MAKE_PROGRAM="$ninja" -DCMAKE_PREFIX_PATH="$stage" \
  >"$work/nocuda.log" 2>&1; then
  fail "EMIT cuda without the CUDA language configured"
fi
grep -q "enable_language(CUDA)" "$work/nocuda.log" || { cat "$work/nocuda.log"; fail "the configure error does not say how to fix it"; }

echo "== EMIT cuda takes --arch from CUDA_ARCHITECTURES (the lowest)"
nvcc=$(command -v nvcc || true)
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc" ]; then
  sed -i 's/LANGUAGES CXX)/LANGUAGES CXX CUDA)/; s/^add_library(k STATIC)/add_library(k STATIC)\nset_target_properties(k PROPERTIES CUDA_ARCHITECTURES "90-real;86")/' \
    "$nocuda/CMakeLists.txt"
  rm -rf "$nocuda/build"
  "$cmake" -S "$nocuda" -B "$nocuda/build" -G Ninja -DCMAKE_MAKE_PROGRAM="$ninja" -DCMAKE_PREFIX_PATH="$stage" \
    -DCMAKE_CUDA_COMPILER="$nvcc" >"$work/cuda.log" 2>&1 || { cat "$work/cuda.log"; fail "configure with CUDA"; }
  "$ninja" -C "$nocuda/build" -t commands | grep -q -- '--arch=sm_86' || fail "kdt does not get --arch=sm_86"
else
  echo "(no nvcc: skipped)"
fi
echo "cmake consumer: ok"
rm -rf "$work"
