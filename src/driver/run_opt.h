// How hard `kdt run` optimises a kernel (issue 17: flags for the speed of
// the whole run, compile included). A first `kdt run` of a small kernel
// spends most of its time in the C++ compiler; a kernel that computes for
// long deserves -O2. The choice changes speed only: with FP contraction
// off and no fast-math, every level gives the same bits.
#pragma once

#include <cstdint>
#include <string>

#include "kdt/ir/ir.h"

namespace kdt {

// Measured on the samples (bench/README.md): -O1 compiles a kernel in
// about 0.7x -O2's time, -Og in about 0.55x. Up to about a million element
// operations a launch takes milliseconds even at -Og. Above about 1.7e7,
// -O2 pays for its extra 0.3-0.5 s of compiling within a few runs from the
// cache (softmax.kd, 3.8e7, runs in 80 ms at -O2 and 148 ms at -O1).
constexpr int64_t kDebugOptUpToOps = int64_t{1} << 20;
constexpr int64_t kOptimiseAboveOps = int64_t{1} << 24;

// A rough count of the element operations one launch of `k` performs:
// every expression counts the elements of its value (a `dot` M x N x K, a
// DMA its elements), loops with constant bounds their trip count, loops
// without one 64 iterations, an `if` its costliest clause; times the
// programs, steps and devices. Saturates instead of overflowing.
int64_t estimate_element_ops(const ir::Kernel& k);

// "-Og", "-O1" or "-O2" for the kernel's translation unit.
std::string kernel_opt_level(const ir::Kernel& k);

}  // namespace kdt
