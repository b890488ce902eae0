#!/bin/sh
# The build part of scripts/gpu-check (issue 19): every sample kernel and
# the compiled path's regression kernels get their `kdt run` reference
# outputs and a host harness built with nvcc for sm_90 and sm_80 (and
# sm_90a where a `dot` runs on wgmma), plus the benchmark programs;
# nothing runs on a GPU. Skipped (CUDA-SKIPPED) without nvcc.
#   usage: gpu_check_build.sh KDT SOURCE_DIR WORK_DIR
set -eu
kdt=$1 src=$2 work=$3
nvcc=""
for candidate in "${CUDA_HOME:-/nonexistent}/bin/nvcc" /usr/local/cuda/bin/nvcc "$(command -v nvcc || true)"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then nvcc=$candidate; break; fi
done
if [ -z "$nvcc" ] || [ -n "${KDT_NO_CUDA:-}" ]; then
  echo "CUDA-SKIPPED: nvcc not found; the GPU check's build part needs it"
  exit 0
fi
rm -rf "$work"
NVCC=$nvcc KDT_GPU_ARCH=sm_90 KDT_GPU_CHECK_NO_RUN=1 KDT_GPU_CHECK_KDT=$kdt KDT_GPU_CHECK_WORK=$work \
  KDT_GPU_CHECK_SUMMARY=$work/summary.txt sh "$src/scripts/gpu-check"
grep -q "^gpu-check: 0 passed, 0 failed, [0-9]* built and not run" "$work/summary.txt"
status=0
grep -q "^bench: bench_tf32 built" "$work/summary.txt" || status=1
grep -q "^bench: bench_bf16 built" "$work/summary.txt" || status=1
grep -q "^bench: bench_bf16_wgmma built" "$work/summary.txt" || status=1
grep -q "^bench: bench built" "$work/summary.txt" || status=1
# The sm_90a pass of a kernel whose `dot` runs on warpgroups (wgmma).
[ -x "$work/generic_matmul_matmul/prog_sm_90a" ] || status=1
[ $status -eq 0 ] && rm -rf "$work"
exit $status
