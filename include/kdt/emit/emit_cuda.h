// The compiled path: emit_cuda(ir::Module before discharge) -> CUDA C++.
// Its PTX (NVRTC or nvcc) is the driver's: kdt/driver/ptx_compile.h.
#pragma once

#include <string>

#include "kdt/diag/engine.h"
#include "kdt/ir/ir.h"

namespace kdt {

struct CudaEmitOptions {
  std::string arch = "sm_90";  // --arch
  int threads = 128;           // --threads (a kernel's threads(T) wins)
  std::string input_name;
  std::string output_name = "<stdout>";
  // --cuda-debug: `#define KDT_CU_DEBUG 1` first, which bounds every
  // mbarrier wait (a trap naming the KD statement instead of a hang).
  bool debug = false;  // the emitted file's own name, for `#line` (emit_cpp.h)
  // "xla-ffi": an XLA FFI handler per kernel for the CUDA platform after
  // the launchers (--emit=cuda-xla-ffi; single-device kernels only).
  std::string binding;
  // Issue 20 (--devices=nvshmem): a devices(N) kernel runs one PE per
  // device, launched with nvshmemx_collective_launch (kdt_cuda_nvshmem.h).
  bool nvshmem = false;
  // --cuda-tf32 (issue 19, item 8): `dot` over f32 runs on tensor cores in
  // TF32 (inputs rounded to 10 mantissa bits, f32 accumulation). Off by
  // default: exact f32, as the C++ path.
  bool tf32 = false;
};

// Why `kernel` cannot have a CUDA XLA FFI handler ("" when it can).
std::string cuda_ffi_refusal(const ir::Kernel& kernel);

// Returns false (with diagnostics) when a construct cannot be compiled.
bool emit_cuda(const ir::Module& module, const SourceManager& sources, const CudaEmitOptions& options,
               DiagnosticEngine& diags, std::string& out);

}  // namespace kdt
