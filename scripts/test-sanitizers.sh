#!/usr/bin/env bash
# The whole test suite with kdt and its tests built under AddressSanitizer
# and UndefinedBehaviorSanitizer (-DKDT_SANITIZE=ON; issue 8), in
# build-asan/. Any report fails the run: UBSan does not recover, ASan aborts,
# LeakSanitizer is on. Left out: the CMake-package test (it installs kdt,
# which says nothing more about memory safety) and e2e_sanitized_samples
# (it sanitizes the emitted code, which the regular run does already) and
# gpu_check_build (nvcc builds of harnesses; kdt's own part of it, --emit=cuda
# of every sample, runs sanitized in the cuda_* tests). No suppressions are needed:
# the uninstrumented ANTLR runtime from Debian reports nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
# The end-to-end tests reuse the regular build's compile cache (when it has
# one): the emitted kernels are the same, only kdt is instrumented.
cache="$PWD/build-asan/kdt-cache"
[ -d build/kdt-cache ] && cache="$PWD/build/kdt-cache"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKDT_SANITIZE=ON \
  -DKDT_TEST_CACHE_DIR="$cache" >/dev/null
cmake --build build-asan
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan --output-on-failure -j2 -E "cmake_consumer|e2e_sanitized_samples|gpu_check_build"
