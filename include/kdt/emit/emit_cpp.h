// emit_cpp(discharged ir::Module) -> one self-contained C++17 file.
#pragma once

#include <string>

#include "kdt/ir/ir.h"

namespace kdt {

struct CppEmitOptions {
  bool checks = true;    // run-time checks (--no-checks leaves them out)
  // --flush-subnormal-adds: an f32 add=true DMA into @global flushes
  // subnormal inputs and results to zero, as atom/red.add.f32 and the bulk
  // reduce engine do on every GPU route (docs/cuda.md).
  bool flush_subnormal_adds = false;
  bool harness = false;  // add a main() that reads and writes .npy files
  std::string input_name;  // for the header comment
  // The emitted file's own name, for the `#line` directives that return
  // to it after KD lines (-o's path; "<stdout>"; kdt run's "kernel.cpp").
  std::string output_name = "<stdout>";
  // With `harness`: the defaults of the harness's --dma-mode, --dma-order and --program-order.
  std::string dma_mode = "on_wait";
  std::string dma_order = "fifo";
  std::string program_order = "forward";
  // `kdt run` (issue 17): `#include "kdt_prelude.h"` (the header of its
  // cached runtime library, emit_cpp_prelude) instead of the prelude's text.
  bool separate_runtime = false;
  // Issue 18: "c-api" adds an `extern "C"` entry per kernel, "xla-ffi" an
  // XLA FFI handler per kernel (docs/c-api.md); "" neither.
  std::string binding;
  // Issue 20 (--devices=mpi): each KD device is an MPI rank; the launch
  // keeps what other ranks reach in an MPI window (kdt_mpi.h).
  bool mpi = false;
};

std::string emit_cpp(const ir::Module& module, const SourceManager& sources, const CppEmitOptions& options);

// What a self-contained emitted file holds before its kernels: the standard
// headers, the contraction pragma and the runtime prelude. `kdt run` caches
// it as kdt_prelude.h: precompiled, and compiled once into its runtime
// library (-DKDT_RT_LIBRARY); a kernel including it leaves the runtime's
// larger functions to that library (kdt_api.h).
std::string emit_cpp_prelude();

// The runtime prelude embedded into every emitted file.
extern const char* const kRuntimePrelude;
// The MPI part (kdt_mpi.h), after it in --devices=mpi output.
extern const char* const kMpiPrelude;

}  // namespace kdt
