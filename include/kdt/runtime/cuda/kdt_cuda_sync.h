// kdt_cuda_sync.h - semaphores shared between devices (devices(N) > 1) and,
// on the host, the launch of a multi-device kernel.
// Part of the kdt CUDA runtime: included by kdt_cuda.h (after its includes
// and feature macros), not on its own.
#ifndef KDT_RUNTIME_CUDA_KDT_CUDA_SYNC_H_
#define KDT_RUNTIME_CUDA_KDT_CUDA_SYNC_H_

namespace kdt_cu {

// ----- semaphores shared between devices (devices(N) > 1) -----
// A 64-bit counter in global memory per (program, semaphore element), in a
// per-device sync buffer that the peers reach through the peer table.
// Signals add with release semantics at system scope; the owning program
// alone lowers its counters, after an acquire load has seen enough.
__device__ inline long long load_acquire_sys(const unsigned long long* p) {
#if defined(KDT_CU_HOST)
  return static_cast<long long>(*p);  // the tests' host model: one thread runs at a time
#else
  unsigned long long v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return static_cast<long long>(v);
#endif
}
// Block-uniform: every earlier write of the block happens before the signal.
__device__ inline void signal_sys(unsigned long long* counter, long long amount) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    atomicAdd_system(counter, static_cast<unsigned long long>(amount));
  }
  __syncthreads();
}
// Block-uniform: waits until the counter holds `amount`, then lowers it.
__device__ inline void wait_sys(unsigned long long* counter, long long amount, const char* site = nullptr) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned long long start = global_timer();
    while (load_acquire_sys(counter) < amount) {
      __nanosleep(64);
      if (global_timer() - start > KDT_CU_WAIT_TIMEOUT_NS) fail(site, "the wait timed out: a deadlock, nothing signals it");
    }
    atomicAdd_system(counter, static_cast<unsigned long long>(-amount));
    __threadfence();
  }
  __syncthreads();
}
// Block-uniform read (thread 0 reads, everyone gets its value).
__device__ inline int32_t read_sys(const unsigned long long* counter, void* scratch) {
  __syncthreads();
  if (threadIdx.x == 0) *static_cast<int32_t*>(scratch) = static_cast<int32_t>(load_acquire_sys(counter));
  __syncthreads();
  const int32_t v = *static_cast<int32_t*>(scratch);
  __syncthreads();
  return v;
}

// ----- staging rings: remote DMAs into @shared (spec section 7) -----
// One ring per (program, semaphore element) in the receiver's sync buffer:
// its tail (tickets the senders take) and head (the receiver's next slot),
// then kQueue slots. A slot starts with its turn: 2L while free for lap L,
// 2L + 1 once lap L's sender published it; the receiver's release makes it
// 2L + 2. Then the site and the destination's starts (stage_header), then
// the payload.
__device__ inline unsigned long long* stage_turn(unsigned char* slot) { return reinterpret_cast<unsigned long long*>(slot); }
__device__ inline long long* stage_header(unsigned char* slot) { return reinterpret_cast<long long*>(slot + 8); }
__device__ inline void wait_turn(const unsigned long long* turn, unsigned long long want) {
  const unsigned long long start = global_timer();
  while (static_cast<unsigned long long>(load_acquire_sys(turn)) != want) {
    __nanosleep(64);
    if (global_timer() - start > KDT_CU_WAIT_TIMEOUT_NS) __trap();  // the slot is never freed or published
  }
}
// The slot of `ticket` (lap ticket / kQueue), once it is free for that lap
// (a sender) or `published` in it (the receiver).
__device__ inline unsigned char* await_slot(unsigned char* ring, unsigned long long ticket, long long slot_bytes,
                                            bool published) {
  unsigned char* const slot = ring + 16 + static_cast<long long>(ticket % kQueue) * slot_bytes;
  wait_turn(stage_turn(slot), 2 * (ticket / kQueue) + (published ? 1 : 0));
  return slot;
}
// Block-uniform: thread 0's slot pointer, shared with the block through `scratch`.
__device__ inline unsigned char* share_slot(unsigned char* slot, void* scratch) {
  if (threadIdx.x == 0) *static_cast<unsigned char**>(scratch) = slot;
  __syncthreads();
  unsigned char* const out = *static_cast<unsigned char* const*>(scratch);
  __syncthreads();
  return out;
}
// Block-uniform (sender): the slot of the next ticket, once the receiver
// has applied its previous lap.
__device__ inline unsigned char* stage_claim(unsigned char* ring, long long slot_bytes, void* scratch) {
  __syncthreads();
  unsigned char* slot = nullptr;
  if (threadIdx.x == 0) {
    const unsigned long long ticket = atomicAdd_system(reinterpret_cast<unsigned long long*>(ring), 1ull);
    slot = await_slot(ring, ticket, slot_bytes, false);
  }
  return share_slot(slot, scratch);
}
// Block-uniform (sender): after every thread's writes into the slot, it is ready.
__device__ inline void stage_publish(unsigned char* slot) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    atomicAdd_system(stage_turn(slot), 1ull);
  }
  __syncthreads();
}
// Block-uniform (receiver): the oldest slot, once its sender published it.
__device__ inline unsigned char* stage_take(unsigned char* ring, long long slot_bytes, void* scratch) {
  __syncthreads();
  unsigned char* slot = nullptr;
  if (threadIdx.x == 0) {
    unsigned long long* const head = reinterpret_cast<unsigned long long*>(ring) + 1;
    const unsigned long long ticket = *head;  // only this program moves its head
    *head = ticket + 1;
    slot = await_slot(ring, ticket, slot_bytes, true);
  }
  return share_slot(slot, scratch);
}
// Block-uniform (receiver): after every thread's reads, the slot is free.
__device__ inline void stage_release(unsigned char* slot) { stage_publish(slot); }

#ifndef __CUDACC_RTC__
// ----- host: launching a devices(N) kernel -----
// Holds the devices and streams of one multi-device launch. prepare() zeroes
// every sync buffer and makes every stream wait until all of them are zero
// (a peer may signal a device as soon as it starts); launch() starts one
// cooperative launch, so that every program of the device is resident (a
// program may wait for its twin on another device); finish() cleans up and
// restores the caller's current device.
// Whether `bytes` of dynamic shared memory per block fit the current
// device (its opt-in maximum, which the compile-time table of
// kdt_cuda_limits.h can only assume); if not, says so on stderr, naming
// the kernel, and returns cudaErrorInvalidConfiguration.
inline cudaError_t shared_memory_fits(const char* kernel, size_t bytes) {
  int device = 0, optin = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e != cudaSuccess) return e;
  if (bytes <= static_cast<size_t>(optin)) return cudaSuccess;
  std::fprintf(stderr, "kdt: kernel `%s` needs %zu bytes of shared memory per block; CUDA device %d allows %d\n", kernel,
               bytes, device, optin);
  return cudaErrorInvalidConfiguration;
}

template <int N>
class DeviceGroup {
 public:
  DeviceGroup(const int (&device)[N], const cudaStream_t (&stream)[N]) : device_(device), stream_(stream) {
    if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
  }
  cudaError_t prepare(const char* name, const void* kernel, unsigned threads, size_t shared_bytes, unsigned blocks,
                      void* const (&sync)[N], size_t sync_bytes) {
    // Every KD device's grid must run at the same time as the others (a
    // program may wait for its twin on another device): separate
    // cooperative launches on one GPU do not promise that (issue 19, item 7).
    for (int d = 0; d < N; ++d) {
      for (int p = d + 1; p < N; ++p) {
        if (device_[d] != device_[p]) continue;
        std::fprintf(stderr,
                     "kdt: kernel `%s` puts KD devices %d and %d on CUDA device %d: a devices(N) kernel needs its N grids "
                     "running at once, which separate launches on one GPU do not guarantee; give each KD device its own "
                     "GPU\n",
                     name, d, p, device_[d]);
        return cudaErrorNotSupported;
      }
    }
    for (int d = 0; d < N; ++d) {
      cudaError_t e = cudaSetDevice(device_[d]);
      if (e == cudaSuccess) e = shared_memory_fits(name, shared_bytes);
      if (e == cudaSuccess && shared_bytes > 48 * 1024) {
        e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes));
      }
      if (e == cudaSuccess) e = fits(kernel, threads, shared_bytes, blocks);
      if (e == cudaSuccess) e = cudaMemsetAsync(sync[d], 0, sync_bytes, stream_[d]);
      if (e == cudaSuccess) e = cudaEventCreateWithFlags(&zeroed_[d], cudaEventDisableTiming);
      if (e == cudaSuccess) e = cudaEventRecord(zeroed_[d], stream_[d]);
      if (e != cudaSuccess) return e;
    }
    if (cudaError_t e = peers_have_atomics(name); e != cudaSuccess) return e;
    for (int d = 0; d < N; ++d) {
      for (int p = 0; p < N; ++p) {
        if (p == d) continue;
        cudaError_t e = cudaStreamWaitEvent(stream_[d], zeroed_[p], 0);
        if (e != cudaSuccess) return e;
      }
    }
    return cudaSuccess;
  }
  cudaError_t launch(int d, const void* kernel, unsigned blocks, unsigned threads, void** args, size_t shared_bytes) {
    cudaError_t e = cudaSetDevice(device_[d]);
    if (e != cudaSuccess) return e;
    return cudaLaunchCooperativeKernel(kernel, dim3(blocks), dim3(threads), args, shared_bytes, stream_[d]);
  }
  cudaError_t finish(cudaError_t status) {
    for (int d = 0; d < N; ++d) {
      if (zeroed_[d]) cudaEventDestroy(zeroed_[d]);  // released once the stream passed it
    }
    if (previous_ >= 0) cudaSetDevice(previous_);
    return status;
  }

 private:
  // Signals and add=true DMAs are atomics on a peer's memory: every pair of
  // distinct GPUs must support them natively over their link (issue 19,
  // item 6); if not, says which pair on stderr, naming the kernel.
  cudaError_t peers_have_atomics(const char* name) const {
    for (int d = 0; d < N; ++d) {
      for (int p = 0; p < N; ++p) {
        if (device_[d] == device_[p]) continue;
        int access = 0, atomics = 0;
        cudaError_t e = cudaDeviceGetP2PAttribute(&access, cudaDevP2PAttrAccessSupported, device_[d], device_[p]);
        if (e == cudaSuccess) e = cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, device_[d], device_[p]);
        if (e != cudaSuccess) return e;
        if (access && atomics) continue;
        std::fprintf(stderr,
                     "kdt: kernel `%s`: CUDA device %d cannot %s CUDA device %d's memory (%s); its remote signals and "
                     "DMAs need both\n",
                     name, device_[d], access ? "use native atomics on" : "access", device_[p],
                     access ? "cudaDevP2PAttrNativeAtomicSupported" : "cudaDevP2PAttrAccessSupported");
        return cudaErrorPeerAccessUnsupported;
      }
    }
    return cudaSuccess;
  }

  // Whether every block of the grid can be resident on the current device at once.
  static cudaError_t fits(const void* kernel, unsigned threads, size_t shared_bytes, unsigned blocks) {
    int device = 0, cooperative = 0, sms = 0, per_sm = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(threads), shared_bytes);
    if (e != cudaSuccess) return e;
    if (!cooperative) return cudaErrorNotSupported;
    if (static_cast<long long>(per_sm) * sms < static_cast<long long>(blocks)) return cudaErrorCooperativeLaunchTooLarge;
    return cudaSuccess;
  }

  const int (&device_)[N];
  const cudaStream_t (&stream_)[N];
  cudaEvent_t zeroed_[N] = {};
  int previous_ = -1;
};
#endif  // __CUDACC_RTC__

}  // namespace kdt_cu

#endif  // KDT_RUNTIME_CUDA_KDT_CUDA_SYNC_H_
