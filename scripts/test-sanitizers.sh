#!/usr/bin/env bash
# kdt and its tests built under AddressSanitizer and UndefinedBehaviorSanitizer
# (-DKDT_SANITIZE=ON; issue 8) in build-asan/, and the suites that exercise
# kdt's own code run again. Any report fails the run: UBSan does not recover,
# ASan aborts, LeakSanitizer is on. No suppressions are needed: the
# uninstrumented ANTLR runtime from Debian reports nothing.
#
# Slow suites run once (in scripts/test.sh), not twice: left out here are
# those whose time goes to other programs on kdt's output — nvcc
# (cuda_nvcc_*, cuda_link, cuda_nvshmem, gpu_check_build), g++ on the emitted
# CUDA run by the host model (cuda_emulated), mpirun
# (e2e_mpi), gdb (e2e_gdb), cmake/cpack (cmake_consumer, cpack_deb),
# Neovim and zsh (neovim_lsp, completion_zsh), the sanitized or re-run
# emitted programs (e2e_sanitized_samples, e2e_jobs_determinism). kdt's
# part of each (emitting CUDA, NVSHMEM, MPI harnesses, #line, launching)
# runs sanitized in the unit suites and the end-to-end ones kept below.
# -O1, as ASan's documentation advises: a third less compile time than -O2.
set -euo pipefail
cd "$(dirname "$0")/.."
# The end-to-end tests reuse the regular build's compile cache (when it has
# one): the emitted kernels are the same, only kdt is instrumented.
cache="$PWD/build-asan/kdt-cache"
[ -d build/kdt-cache ] && cache="$PWD/build/kdt-cache"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DKDT_SANITIZE=ON -DKDT_TEST_CACHE_DIR="$cache" >/dev/null
cmake --build build-asan --target kdt kdt_tests kdt_difftest kdt_gen_selfcheck kdt_fuzz_replay
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
suites=(syntax check diagnostics cli robustness samples runtime docs lsp ptx races run names registry
        cuda_emit cuda_ptx e2e_samples e2e_dma_property e2e_regressions e2e_difftest e2e_difftest_protocol
        gen_selfcheck gen_static_clean c_api line_directives sarif_schema completion
        fuzz_regressions fuzz_seeds_front_end fuzz_seeds_pipeline fuzz_seeds_npy)
pattern="^($(IFS='|'; echo "${suites[*]}"))\$"
ctest --test-dir build-asan --output-on-failure -j2 -R "$pattern"
# Every kept suite exists (a renamed one would drop out silently otherwise).
found=$(ctest --test-dir build-asan -N -R "$pattern" | sed -n 's/^Total Tests: //p')
[ "$found" = "${#suites[@]}" ] || { echo "test-sanitizers: $found of ${#suites[@]} suites found" >&2; exit 1; }
