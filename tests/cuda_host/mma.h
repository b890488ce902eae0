// Stands in for CUDA's <mma.h> when kdt's device runtime is compiled for
// the host (kdt_cuda_host.h): the warp matrix functions exist only on the
// GPU, and kdt_cuda_mma.h names just this type outside device code.
#pragma once
namespace nvcuda {
namespace wmma {
namespace precision {
struct tf32;
}  // namespace precision
}  // namespace wmma
}  // namespace nvcuda
