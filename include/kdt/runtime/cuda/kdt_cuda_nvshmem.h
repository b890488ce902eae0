// kdt_cuda_nvshmem.h - devices(N) as NVSHMEM PEs (`kdt --emit=cuda
// --devices=nvshmem`, issue 20; docs/distributed.md): one PE per KD device,
// one grid per PE started with nvshmemx_collective_launch. The ref
// parameters and the sync buffer (semaphore counters, staging rings) are on
// the symmetric heap, so this PE's address of an object is also its name on
// every other PE. A remote DMA is nvshmem_putmem_nbi per contiguous run and
// a signal (nvshmemx_signal_op, NVSHMEM_SIGNAL_ADD) on the receiver's
// counter once every run is complete (nvshmem_quiet); waits are
// nvshmem_signal_wait_until. What needs the peer's memory by load and store
// (an add=true DMA, atomics on the peer's elements; a DMA into the peer's
// scratch, staged in its sync buffer) goes through nvshmem_ptr, which
// reaches the PEs of this node (NVLink, PCIe): across nodes it traps,
// naming the KD statement. Appended to the CUDA runtime in that mode only;
// compile with nvcc -rdc=true and link libnvshmem_host and
// libnvshmem_device.
#ifndef KDT_RUNTIME_CUDA_KDT_CUDA_NVSHMEM_H_
#define KDT_RUNTIME_CUDA_KDT_CUDA_NVSHMEM_H_

#include <nvshmem.h>
#include <nvshmemx.h>

namespace kdt_cu {

__device__ inline uint64_t* signal_word(unsigned long long* counter) { return reinterpret_cast<uint64_t*>(counter); }

// Block-uniform: raises PE `pe`'s copy of the symmetric `counter` by
// `amount` once every earlier put of the block is complete and every
// earlier store is visible system-wide.
__device__ inline void signal_pe(unsigned long long* counter, long long amount, int pe) {
  nvshmem_quiet();  // this thread's puts are complete at their targets
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();  // stores through nvshmem_ptr pointers (add=true, staging)
    nvshmemx_signal_op(signal_word(counter), static_cast<uint64_t>(amount), NVSHMEM_SIGNAL_ADD, pe);
  }
  __syncthreads();
}

// Block-uniform: waits until this PE's `counter` holds `amount`, then
// lowers it (by a signal to itself: the counter's other writers are signals).
__device__ inline void wait_pe(unsigned long long* counter, long long amount, const char* site = nullptr) {
  __syncthreads();
  if (threadIdx.x == 0) {
#if KDT_CU_DEBUG
    const unsigned long long start = global_timer();
    while (static_cast<long long>(nvshmem_signal_fetch(signal_word(counter))) < amount) {
      __nanosleep(64);
      if (global_timer() - start > KDT_CU_WAIT_TIMEOUT_NS) fail(site, "the wait timed out: a deadlock, nothing signals it");
    }
#else
    (void)site;
    nvshmem_signal_wait_until(signal_word(counter), NVSHMEM_CMP_GE, static_cast<uint64_t>(amount));
#endif
    nvshmemx_signal_op(signal_word(counter), static_cast<uint64_t>(-amount), NVSHMEM_SIGNAL_ADD, nvshmem_my_pe());
    __threadfence();
  }
  __syncthreads();
}

// Block-uniform read of this PE's `counter` (thread 0 reads, everyone gets it).
__device__ inline int32_t read_pe(unsigned long long* counter, void* scratch) {
  __syncthreads();
  if (threadIdx.x == 0) *static_cast<int32_t*>(scratch) = static_cast<int32_t>(nvshmem_signal_fetch(signal_word(counter)));
  __syncthreads();
  const int32_t v = *static_cast<int32_t*>(scratch);
  __syncthreads();
  return v;
}

// PE `pe`'s copy of the symmetric `ptr` by load and store, or a trap
// naming the KD statement when that PE is not reachable so (another node).
template <class T>
__device__ inline T* peer_or_fail(T* ptr, int pe, const char* site) {
  T* peer = static_cast<T*>(nvshmem_ptr(ptr, pe));
  if (!peer) fail(site, "this DMA reaches the other device's memory by load and store (add=true, or a scratch destination), "
                        "and nvshmem_ptr gives no such access to it (another node)");
  return peer;
}

}  // namespace kdt_cu

#endif  // KDT_RUNTIME_CUDA_KDT_CUDA_NVSHMEM_H_
