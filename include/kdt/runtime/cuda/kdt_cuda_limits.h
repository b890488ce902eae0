// kdt_cuda_limits.h - constants of the CUDA runtime that the CUDA emitter
// (src/emit/) must agree with. Plain C++ (no CUDA), so that kdt's own code
// can include it and tie its copies with static_assert.
// Part of the kdt CUDA runtime: included by kdt_cuda.h.
#ifndef KDT_RUNTIME_CUDA_KDT_CUDA_LIMITS_H_
#define KDT_RUNTIME_CUDA_KDT_CUDA_LIMITS_H_

namespace kdt_cu {

// DMAs in flight per DMA semaphore element (DmaQueue's slots) where the
// program gives no static bound; kMaxQueue where it does (the bits of a
// queue's phase mask).
constexpr int kQueue = 8;
constexpr int kMaxQueue = 32;
// Bytes of one mbarrier: the emitter lays out one per queue slot.
constexpr int kMbarBytes = 8;
// (Also what keeps nvcc from calling them unused where no queue is instantiated.)
static_assert(kQueue >= 1 && kQueue <= kMaxQueue, "the default queue fits a queue's phase mask");
static_assert(kMbarBytes == sizeof(unsigned long long), "an mbarrier is one 64-bit word");

// Dynamic shared memory one block may opt in to, by compute capability
// (CUDA C++ Programming Guide, "Technical Specifications per Compute
// Capability": 7.0/7.2 96 KiB, 7.5 64 KiB, 8.0/8.7 163 KiB, 8.6/8.9 99 KiB,
// 9.0 and 10.x 227 KiB, 12.x 99 KiB); an arch outside the table gets the
// 48 KiB every GPU gives without opting in. `sm` is 80 for sm_80 (a or f
// suffixes dropped). The launchers check the device's own value
// (cudaDevAttrMaxSharedMemoryPerBlockOptin) too. Host code only (NVRTC
// refuses unannotated functions).
#ifndef __CUDACC_RTC__
constexpr long long max_shared_per_block(int sm) {
  switch (sm) {
    case 70: case 72: return 98304;
    case 75: return 65536;
    case 80: case 87: return 166912;
    case 86: case 88: case 89: return 101376;
    case 90: case 100: case 101: case 103: case 110: return 232448;
    case 120: case 121: return 101376;
    default: return 49152;
  }
}
#endif  // __CUDACC_RTC__

}  // namespace kdt_cu

#endif  // KDT_RUNTIME_CUDA_KDT_CUDA_LIMITS_H_
