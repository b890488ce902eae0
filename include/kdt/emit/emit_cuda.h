// The compiled path: emit_cuda(ir::Module before discharge) -> CUDA C++,
// and the PTX of that CUDA through NVRTC (loaded at run time) or nvcc.
#pragma once

#include <string>

#include "kdt/diag/engine.h"
#include "kdt/ir/ir.h"

namespace kdt {

struct CudaEmitOptions {
  std::string arch = "sm_90";  // --arch
  int threads = 128;           // --threads (a kernel's threads(T) wins)
  std::string input_name;
};

// Returns false (with diagnostics) when a construct cannot be compiled.
bool emit_cuda(const ir::Module& module, const SourceManager& sources, const CudaEmitOptions& options,
               DiagnosticEngine& diags, std::string& out);

// Compiles CUDA C++ to PTX for `arch`. On failure returns false and sets
// `error` (a missing toolchain says so: `cuda-toolchain-missing`).
bool compile_to_ptx(const std::string& cuda, const std::string& arch, std::string& ptx, std::string& error);

}  // namespace kdt
