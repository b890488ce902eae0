#!/usr/bin/env bash
# Quick start, step 2: builds kdt and its tests and runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/CMakeCache.txt ] || cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build
# NVSHMEM and cuobjdump from PyPI for the compiled path's tests (where nvcc is).
bash scripts/setup-cuda-tools.sh build
ctest --test-dir build --output-on-failure -j2
# The Python package (pip install ./python in a virtual environment, then pytest).
bash scripts/test-python.sh
