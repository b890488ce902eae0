#!/bin/bash
# Line coverage of src/discharge and src/emit (and the rest of src/) reached
# by the fuzzers' corpora: builds kdt_fuzz_replay with clang's source-based
# coverage in BUILD (default /tmp/build-fuzz-cov), replays each target's
# corpus (build-fuzz/corpus/TARGET) through the same target bodies, and
# prints llvm-cov's report.
#
#   tests/fuzz/coverage.sh [BUILD]
set -u
cd "$(dirname "$0")/../.."
root=$PWD
build=${1:-/tmp/build-fuzz-cov}
corpora=${KDT_FUZZ_CORPORA:-$root/build-fuzz/corpus}
if [ ! -f "$build/build.ninja" ]; then
  # No optimisation and no debug info: the quickest build, and exact line counts.
  cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Coverage \
        -DCMAKE_CXX_FLAGS="-fprofile-instr-generate -fcoverage-mapping" >/dev/null || exit 1
fi
cmake --build "$build" --target kdt_fuzz_replay || exit 1
replay=$build/tests/fuzz/kdt_fuzz_replay
profiles=$build/profiles
rm -rf "$profiles"
mkdir -p "$profiles"
for t in lexer front_end pipeline npy outputs; do
  [ -d "$corpora/$t" ] || continue
  echo "== replaying $(ls "$corpora/$t" | wc -l) inputs of $t"
  LLVM_PROFILE_FILE="$profiles/$t.profraw" "$replay" "$t" "$corpora/$t" >/dev/null || exit 1
  llvm-profdata-14 merge -sparse "$profiles/$t.profraw" -o "$profiles/$t.profdata"
  echo "-- $t alone: src/discharge and src/emit"
  llvm-cov-14 report "$replay" -instr-profile="$profiles/$t.profdata" "$root/src/discharge" "$root/src/emit" \
    | tail -1
done
llvm-profdata-14 merge -sparse "$profiles"/*.profraw -o "$profiles/all.profdata"
echo "== all corpora together"
llvm-cov-14 report "$replay" -instr-profile="$profiles/all.profdata" "$root/src/discharge" "$root/src/emit"
echo "== the .npy reader (include/kdt/runtime/kdt_runtime.h, all of it)"
llvm-cov-14 report "$replay" -instr-profile="$profiles/all.profdata" "$root/include/kdt/runtime/kdt_runtime.h" | tail -1
echo "== all of src/ linked into the replay tool"
llvm-cov-14 report "$replay" -instr-profile="$profiles/all.profdata" "$root/src" | tail -1
echo "(HTML: llvm-cov-14 show $replay -instr-profile=$profiles/all.profdata -format=html -output-dir=DIR $root/src)"
