// The XLA FFI binding of the CUDA output (issue 18): one handler per
// kernel for jax.ffi.register_ffi_target(platform="CUDA"), written after
// the kernels and their launchers.
#pragma once

#include "code_writer.h"
#include "kdt/emit/emit_cuda.h"
#include "kdt/ir/ir.h"

namespace kdt::emit {

// Every kernel must be single-device (the driver refuses devices(N)).
void emit_cuda_xla_ffi(const ir::Module& module, const CudaEmitOptions& options, CodeWriter& w);

}  // namespace kdt::emit
