#!/usr/bin/env bash
# Devices as MPI ranks (issue 20): the ring all-reduce of
# samples/ring_allreduce.kd on 4 ranks against MPI_Allreduce in the same run
# (large messages: 64 MiB per device; small: 16 KiB, for the cost per DMA),
# and the same kernel on the simulated devices (`kdt run`'s time line).
# Usage: bash bench/mpi_allreduce.sh [BUILD_DIR]   (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
kdt=$build/kdt
out=$build/bench
mkdir -p "$out"
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
run() {  # run ROWS COLS ROUNDS: 4 devices of ROWS x COLS f32, one program
  local rows=$1 cols=$2
  "$kdt" --emit=cpp --devices=mpi --no-checks --max-tile-bytes=100000000 samples/ring_allreduce.kd -D ND=4 -D B=$((rows / 4)) -D C="$cols" \
    -D BC="$cols" -o "$out/ring_allreduce_mpi.cpp"
  mpicxx -std=c++17 -O2 -march=native -ffp-contract=off -I"$out" bench/mpi_allreduce.cpp -o "$out/mpi_allreduce"
  mpirun -n 4 --oversubscribe "${root[@]}" "$out/mpi_allreduce" "$rows" "$cols" "$3"
  # The simulated devices on the same kernel, for comparison (its launch's time, inputs generated).
  "$kdt" run --no-checks --max-tile-bytes=100000000 samples/ring_allreduce.kd -D ND=4 -D B=$((rows / 4)) -D C="$cols" -D BC="$cols" \
    --random-all --output-dir "$out/sim" 2>&1 | sed -n 's/^time: /simulated devices (kdt run, one launch): /p'
}
echo "== large messages: 64 MiB per device"
run 4096 4096 7
echo "== small messages: 16 KiB per device (6 DMAs of 4 KiB per device per launch)"
run 64 64 31
