#!/usr/bin/env bash
# CUDA tools from PyPI for the tests of the compiled path, in a virtual
# environment of their own (BUILD/cuda-tools), only where nvcc is (without
# it those tests are skipped and nothing is downloaded):
#   nvidia-nvshmem-cu13     the NVSHMEM headers and libraries for compiling
#                           `kdt --emit=cuda --devices=nvshmem` (issue 20);
#   nvidia-cuda-cuobjdump,  cuobjdump -sass (which runs nvdisasm beside it),
#   nvidia-cuda-nvdisasm    for the SASS checks of issue 19 (the CUDA
#                           toolkits here ship nvcc and ptxas only), linked
#                           as BUILD/cuda-tools/bin/cuobjdump.
# Usage: bash scripts/setup-cuda-tools.sh [BUILD_DIR]   (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
nvcc=${NVCC:-$(command -v nvcc || true)}
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -z "$nvcc" ]; then
  echo "setup-cuda-tools: no nvcc; the NVSHMEM and SASS checks will be skipped"
  exit 0
fi
venv=$build/cuda-tools
site() { ls -d "$venv"/lib/python3*/site-packages 2>/dev/null | head -n 1; }
if ! [ -f "$(site)/nvidia/nvshmem/include/nvshmem.h" ] || ! [ -x "$venv/bin/cuobjdump" ] ||
   ! ls "$(site)"/nvidia/cu*/bin/nvdisasm >/dev/null 2>&1; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check nvidia-nvshmem-cu13 nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm
  tool=$(ls "$(site)"/nvidia/cu*/bin/cuobjdump | head -n 1)
  ln -sf "$(realpath "$tool")" "$venv/bin/cuobjdump"
fi
ls -d "$(site)/nvidia/nvshmem" "$venv/bin/cuobjdump"
