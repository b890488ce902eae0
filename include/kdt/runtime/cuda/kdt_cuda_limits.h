// kdt_cuda_limits.h - constants of the CUDA runtime that the CUDA emitter
// (src/emit/) must agree with. Plain C++ (no CUDA), so that kdt's own code
// can include it and tie its copies with static_assert.
// Part of the kdt CUDA runtime: included by kdt_cuda.h.
#ifndef KDT_RUNTIME_CUDA_KDT_CUDA_LIMITS_H_
#define KDT_RUNTIME_CUDA_KDT_CUDA_LIMITS_H_

namespace kdt_cu {

// DMAs in flight per DMA semaphore element (DmaQueue's slots).
constexpr int kQueue = 8;
// Bytes of one mbarrier: the emitter lays out kQueue of them per element.
constexpr int kMbarBytes = 8;

}  // namespace kdt_cu

#endif  // KDT_RUNTIME_CUDA_KDT_CUDA_LIMITS_H_
