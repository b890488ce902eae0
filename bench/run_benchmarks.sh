#!/usr/bin/env bash
# Benchmarks of the interpretation path: kdt's emitted C++ (checks off and
# on) against hand-written C++, side by side in one process, with the
# flags of `kdt run` (-O2 -march=native, contraction off).
# Usage: bash bench/run_benchmarks.sh [BUILD_DIR]   (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
kdt=$build/kdt
out=$build/bench
mkdir -p "$out"
cxx=${CXX:-c++}
flags="-std=c++17 -O2 -ffp-contract=off -march=native"

emit() {  # emit FLAGS... -> one C++ file with every benchmark kernel
  local tmp
  tmp=$(mktemp -d)
  "$kdt" --emit=cpp "$@" bench/kernels.kd -o "$tmp/a.cpp"
  "$kdt" --emit=cpp "$@" samples/matmul.kd -o "$tmp/b.cpp"
  "$kdt" --emit=cpp "$@" samples/softmax.kd -o "$tmp/c.cpp"
  cat "$tmp/a.cpp" "$tmp/b.cpp" "$tmp/c.cpp"
  rm -rf "$tmp"
}
emit --no-checks > "$out/emitted_unchecked.cpp"
# The checked build lives in its own namespace so both link into one program.
emit | sed 's/kdt_kernels/kdt_checked/g' > "$out/emitted_checked.cpp"
# The block-spec matmul (section 13) has the hand-pipelined sample's name: its own namespaces.
"$kdt" --emit=cpp --no-checks --kernel=matmul samples/block_matmul.kd -o "$out/blocks.cpp"
sed 's/kdt_kernels/kdt_blocks/g' "$out/blocks.cpp" > "$out/emitted_blocks_unchecked.cpp"
"$kdt" --emit=cpp --kernel=matmul samples/block_matmul.kd -o "$out/blocks.cpp"
sed 's/kdt_kernels/kdt_blocks_checked/g' "$out/blocks.cpp" > "$out/emitted_blocks_checked.cpp"
$cxx $flags -I"$out" bench/bench_main.cpp -o "$out/bench"

echo "compiler: $($cxx --version | head -1); flags: $flags; $(nproc) cores"
"$out/bench"

# The BLAS anchor for `dot` (issue 17): numpy's sgemm on one thread, with
# the BLAS library that numpy loads named (Debian's alternatives: netlib
# libblas3, or OpenBLAS once libopenblas0 is installed).
blas=$(readlink -f /etc/alternatives/libblas.so.3-x86_64-linux-gnu 2>/dev/null || echo unknown)
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 /usr/bin/python3 - "$blas" <<'PY' || echo "numpy anchor skipped (no numpy)"
import sys, time
import numpy as np
for n in (512, 1024):
    rng = np.random.default_rng(n)
    a = rng.random((n, n), dtype=np.float32)
    b = rng.random((n, n), dtype=np.float32)
    times = []
    for _ in range(9):
        t0 = time.perf_counter()
        a @ b
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    print(f"numpy sgemm {n}^3 f32, 1 thread ({sys.argv[1]}): min {times[0]:.3f} ms median {times[4]:.3f} ms "
          f"({2 * n**3 / times[0] / 1e6:.1f} GFLOP/s at the min)")
# The softmax anchor: the same rows, the same computation, in NumPy.
x = np.random.default_rng(4).uniform(-1, 1, (4096, 1024)).astype(np.float32)
times = []
for _ in range(9):
    t0 = time.perf_counter()
    m = x.max(axis=1, keepdims=True)
    e = np.exp(x - m)
    y = e / e.sum(axis=1, keepdims=True)
    times.append((time.perf_counter() - t0) * 1e3)
times.sort()
print(f"numpy softmax 4096x1024 f32: min {times[0]:.3f} ms median {times[4]:.3f} ms")
PY

# kdt run on a cache hit, against running the cached binary directly.
# A cache of its own, so that the one entry in it is this kernel's.
mkdir -p "$out/run"
rm -rf "$out/run-cache"
export KDT_CACHE_DIR=$out/run-cache
"$kdt" run samples/accumulate_blocks.kd --random-all --output-dir "$out/run" 2>/dev/null
cached=$(ls "$KDT_CACHE_DIR"/*/kernel)
t0=$(date +%s%N); for _ in 1 2 3 4 5 6 7 8 9 10; do "$kdt" run samples/accumulate_blocks.kd --random-all --output-dir "$out/run" 2>/dev/null; done; t1=$(date +%s%N)
for _ in 1 2 3 4 5 6 7 8 9 10; do "$cached" --random-all --output-dir "$out/run" >/dev/null; done; t2=$(date +%s%N)
echo "kdt run cache hit: $(( (t1 - t0) / 10000000 )) ms per run; cached binary alone: $(( (t2 - t1) / 10000000 )) ms per run"

# devices(N): the cost per (device, program) of a ring exchange at N = 2 and
# N = 64 (issue 17: within 2x), alternated, three runs each.
mkdir -p "$out/ring"
for n in 2 64; do
  "$kdt" --emit=cpp --harness --no-checks -D ND=$n -D R=2048 -D BR=1 -D C=4 samples/ring_exchange.kd -o "$out/ring$n.cpp"
  $cxx $flags "$out/ring$n.cpp" -o "$out/ring$n"
done
# Each with -j 1 (one device at a time, the baton) and with every core (the
# devices run at the same time: free-running, this build has no checks).
for n in 2 64 2 64 2 64; do
  for j in 1 "$(nproc)"; do
    "$out/ring$n" --random-all --jobs "$j" --output-dir "$out/ring" 2>&1 |
      awk -v n=$n -v j=$j '/^time:/ { printf "ring exchange devices(%d) x 2048 programs, -j %d: %.1f ms, %.1f us per (device, program)\n", n, j, $2, $2 * 1000 / (n * 2048) }'
  done
done

# First runs (issue 17): every sample with no kernel in the cache, the
# runtime library built once before (what a user meets after the first
# kernel of a kdt version): median and max wall time over the samples.
first=$out/first
rm -rf "$first"
mkdir -p "$first/base" "$first/out"
KDT_CACHE_DIR=$first/base "$kdt" run samples/accumulate_blocks.kd --random-all --output-dir "$first/out" >/dev/null 2>&1
for s in samples/*.kd; do
  rm -rf "$first/cache"
  mkdir -p "$first/cache"
  cp -a "$first"/base/rt-* "$first/cache/"
  t0=$(date +%s%N)
  if KDT_CACHE_DIR=$first/cache "$kdt" run "$s" --random-all --output-dir "$first/out" >/dev/null 2>&1; then
    t1=$(date +%s%N)
    echo "$(( (t1 - t0) / 1000000 )) $(basename "$s")"
  fi
done | sort -n | tee "$first/times.txt" |
  awk '{ t[NR] = $1 } END { printf "first kdt run, %d samples: median %d ms, min %d ms, max %d ms\n", NR, t[int((NR + 1) / 2)], t[1], t[NR] }'

# The Python package's call overhead (issue 18), when build/pyenv holds it
# (scripts/test-python.sh makes it).
if [ -x build/pyenv/bin/python ] && build/pyenv/bin/python -c "import kdt, jax" 2>/dev/null; then
  KDT_CACHE_DIR=$out/run-cache build/pyenv/bin/python bench/python_overhead.py
else
  echo "python overhead skipped (no build/pyenv with kdt and jax: run scripts/test-python.sh)"
fi
