#!/usr/bin/env bash
# The NVSHMEM headers and libraries for compiling `kdt --emit=cuda
# --devices=nvshmem` in the tests (issue 20): the nvidia-nvshmem-cu13 wheel
# from PyPI in a virtual environment of its own (build/nvshmem-venv). Only
# where nvcc is (without it the test is skipped and nothing is downloaded).
# Usage: bash scripts/setup-nvshmem.sh [BUILD_DIR]   (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
nvcc=${NVCC:-$(command -v nvcc || true)}
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -z "$nvcc" ]; then
  echo "setup-nvshmem: no nvcc; the NVSHMEM compile test will be skipped"
  exit 0
fi
venv=$build/nvshmem-venv
if ! ls "$venv"/lib/python3*/site-packages/nvidia/nvshmem/include/nvshmem.h >/dev/null 2>&1; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check nvidia-nvshmem-cu13
fi
ls -d "$venv"/lib/python3*/site-packages/nvidia/nvshmem
