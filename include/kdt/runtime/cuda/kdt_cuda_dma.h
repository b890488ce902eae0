// kdt_cuda_dma.h - DMAs on the compiled path: atomic accumulation (add=true),
// the in-flight queues of DMA semaphores, bulk copies, cp.async and mbarriers.
// Part of the kdt CUDA runtime: included by kdt_cuda.h (after its includes
// and feature macros), not on its own.
#ifndef KDT_RUNTIME_CUDA_KDT_CUDA_DMA_H_
#define KDT_RUNTIME_CUDA_KDT_CUDA_DMA_H_

namespace kdt_cu {

// ----- atomic accumulation (DMA add=true into @global) -----
// `System` selects system scope: a remote DMA adds into a peer device's
// memory, where other devices may add at the same time.
template <bool System> __device__ inline unsigned cas32(unsigned* p, unsigned expected, unsigned desired) {
  if constexpr (System) return atomicCAS_system(p, expected, desired);
  else return atomicCAS(p, expected, desired);
}
// 8- and 16-bit elements (and f16/bf16 under system scope): a CAS loop on
// the containing 32-bit word.
template <bool System, class T>
__device__ inline void atomic_add_small(T* p, T v) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  unsigned int* word = reinterpret_cast<unsigned int*>(a & ~uintptr_t(3));
  const unsigned shift = static_cast<unsigned>(a & 3u) * 8u;
  const unsigned mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
  unsigned old = *word, assumed;
  do {
    assumed = old;
    const unsigned short lane = static_cast<unsigned short>((assumed & mask) >> shift);
    T cur;
    if constexpr (sizeof(T) == 1) cur = static_cast<T>(lane);
    else memcpy(&cur, &lane, 2);
    const T sum = op_add(cur, v);
    unsigned short sum_bits = 0;
    memcpy(&sum_bits, &sum, sizeof(T));
    const unsigned bits = (static_cast<unsigned>(sum_bits) << shift) & mask;
    old = cas32<System>(word, assumed, (assumed & ~mask) | bits);
  } while (assumed != old);
}
template <bool System = false, class T>
__device__ inline void atomic_add(T* p, T v) {
  if constexpr (sizeof(T) <= 2 && (is_int<T>::value || System)) atomic_add_small<System>(p, v);
  else if constexpr (is_int<T>::value && sizeof(T) == 4) {
    if constexpr (System) atomicAdd_system(reinterpret_cast<unsigned int*>(p), static_cast<unsigned int>(v));
    else atomicAdd(reinterpret_cast<unsigned int*>(p), static_cast<unsigned int>(v));
  } else if constexpr (is_int<T>::value) {
    if constexpr (System) atomicAdd_system(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
    else atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else if constexpr (System) atomicAdd_system(p, v);
  else atomicAdd(p, v);
}

// ----- DMA in-flight queues (one per DMA semaphore element) -----
// Every thread keeps the same copy (all control flow is block-uniform).
// kind: 0 = completed cooperatively, 1 = mbarrier phase of slot `pos`
// (bulk copies, or every thread's cp.async), 2 = bulk group of the elected
// thread, whose sequence number in the program's bulk groups is group[pos].
// Cap: the most DMAs in flight on the element at once, which the emitter
// takes from the program where it is known statically (issue 19, item 1),
// else kQueue (kdt_cuda_limits.h); at most 32, the bits of `phase`.
template <int Cap>
struct DmaQueue {
  static_assert(Cap >= 1 && Cap <= 32, "a DMA queue holds 1 to 32 DMAs");
  unsigned char kind[Cap];
  unsigned group[Cap];
  unsigned phase;
  int head;
  int n;
  // Bytes started and not yet waited: what sem_read of a DMA semaphore
  // returns (spec section 7 allows any value up to it). Kept only for the
  // semaphores a kernel reads.
  long long unwaited;
};
template <int Cap>
__device__ inline int dma_push(DmaQueue<Cap>& q, int kind, const char* site = nullptr, unsigned group = 0) {
  if (q.n >= Cap) fail(site, "more DMAs in flight on one semaphore element than its queue holds (the static bound was unknown)");
  const int pos = (q.head + q.n) % Cap;
  q.kind[pos] = static_cast<unsigned char>(kind);
  q.group[pos] = group;
  ++q.n;
  return pos;
}
template <int Cap>
__device__ inline int dma_next_slot(const DmaQueue<Cap>& q) { return (q.head + q.n) % Cap; }

__device__ inline unsigned smem_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// mbarriers exist from sm_80 (cp.async completes on them); expect_tx, try_wait
// and the bulk copies from sm_90.
__device__ inline void mbar_init(void* bar) {
#if defined(KDT_CU_HOST)
  kdt_cu_host::mbar_init(bar);
#elif KDT_HAS_CP_ASYNC
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(bar)) : "memory");
#else
  (void)bar;
#endif
}
__device__ inline void mbar_init_fence() {
#if KDT_HAS_BULK && !defined(KDT_CU_HOST)
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}
__device__ inline void fence_proxy_async_shared() {
#if KDT_HAS_BULK && !defined(KDT_CU_HOST)
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}
// Generic-proxy writes of global memory (stores, atomics, a peer's remote
// writes) before a bulk copy of the same bytes by the async proxy.
__device__ inline void fence_proxy_async_global() {
#if KDT_HAS_BULK && !defined(KDT_CU_HOST)
  asm volatile("fence.proxy.async.global;" ::: "memory");
#endif
}
__device__ inline void mbar_expect_tx(void* bar, unsigned bytes) {
#if defined(KDT_CU_HOST)
  kdt_cu_host::mbar_expect_tx(bar, bytes);
#elif KDT_HAS_BULK
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
#else
  (void)bar; (void)bytes; __trap();
#endif
}
// Under KDT_CU_DEBUG (--cuda-debug) the wait is bounded: past
// KDT_CU_WAIT_TIMEOUT_NS it fails at `site`, naming the semaphore.
__device__ inline void mbar_wait(void* bar, unsigned parity, const char* site = nullptr) {
#if defined(KDT_CU_HOST)
  if (!kdt_cu_host::mbar_wait(bar, parity)) fail(site, "the DMA never completes (host model)");
#elif KDT_HAS_CP_ASYNC
#if defined(KDT_CU_DEBUG)
  const unsigned long long start = global_timer();
#else
  (void)site;
#endif
  unsigned done = 0;
  do {
#if KDT_HAS_BULK
    asm volatile(
        "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done) : "r"(smem_addr(bar)), "r"(parity) : "memory");
#else
    asm volatile(
        "{\n\t.reg .pred p;\n\tmbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done) : "r"(smem_addr(bar)), "r"(parity) : "memory");
#endif
#if defined(KDT_CU_DEBUG)
    if (!done && global_timer() - start > KDT_CU_WAIT_TIMEOUT_NS) fail(site, "the DMA never completed (--cuda-debug bound)");
#endif
  } while (!done);
#else
  (void)bar; (void)parity; fail(site, "mbarriers need sm_80");
#endif
}
// global -> shared, completing `bytes` on the mbarrier.
__device__ inline void bulk_g2s(void* dst, const void* src, unsigned bytes, void* bar) {
#if defined(KDT_CU_HOST)
  kdt_cu_host::bulk_g2s(dst, src, bytes, bar);
#elif KDT_HAS_BULK
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               ::"r"(smem_addr(dst)), "l"(src), "r"(bytes), "r"(smem_addr(bar)) : "memory");
#else
  (void)dst; (void)src; (void)bytes; (void)bar; __trap();
#endif
}
// shared -> global in the elected thread's bulk group.
__device__ inline void bulk_s2g(void* dst, const void* src, unsigned bytes) {
#if defined(KDT_CU_HOST)
  kdt_cu_host::bulk_s2g(dst, src, bytes);
#elif KDT_HAS_BULK
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               ::"l"(dst), "r"(smem_addr(src)), "r"(bytes) : "memory");
#else
  (void)dst; (void)src; (void)bytes; __trap();
#endif
}
// dst += src shared -> global by the bulk reduce engine, in the elected
// thread's bulk group. `.add.f32` flushes subnormals to zero; f16/bf16 use
// `.noftz`; i64 uses `.u64` (the same two's-complement sum).
#define KDT_CU_BULK_ADD(suffix)                                                                     \
  asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add" suffix " [%0], [%1], %2;" \
               ::"l"(dst), "r"(smem_addr(src)), "r"(bytes) : "memory")
template <class T>
__device__ inline void bulk_s2g_add(T* dst, const T* src, unsigned bytes) {
#if defined(KDT_CU_HOST)
  kdt_cu_host::bulk_s2g_add(dst, src, bytes);
#elif KDT_HAS_BULK
  if constexpr (sizeof(T) == 4 && is_flt<T>::value) KDT_CU_BULK_ADD(".f32");
  else if constexpr (sizeof(T) == 8 && is_flt<T>::value) KDT_CU_BULK_ADD(".f64");
  else if constexpr (sizeof(T) == 4 && is_int<T>::value && is_signed_int<T>::value) KDT_CU_BULK_ADD(".s32");
  else if constexpr (sizeof(T) == 4 && is_int<T>::value) KDT_CU_BULK_ADD(".u32");
  else if constexpr (sizeof(T) == 8 && is_int<T>::value) KDT_CU_BULK_ADD(".u64");
  else if constexpr (is_same<T, f16>::value) KDT_CU_BULK_ADD(".noftz.f16");
  else if constexpr (is_same<T, bf16>::value) KDT_CU_BULK_ADD(".noftz.bf16");
  else {
    __trap();  // not a dtype the bulk reduce engine adds: kdt never emits this
  }
#else
  (void)dst; (void)src; (void)bytes; __trap();
#endif
}
#undef KDT_CU_BULK_ADD

__device__ inline void bulk_commit() {
#if defined(KDT_CU_HOST)
  kdt_cu_host::bulk_commit();
#elif KDT_HAS_BULK
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#endif
}
// Waits until at most `younger` of the elected thread's bulk groups are
// still pending: the groups complete in order, so that completes every group
// committed before the last `younger` ones (issue 19, item 9: a wait for one
// bulk store leaves the stores started after it in flight, which keeps a
// pipeline's later stores going). The count is an immediate in PTX: past 7
// it waits for all but 7, which waits longer than needed, never less.
__device__ inline void bulk_wait_group(unsigned younger) {
#if defined(KDT_CU_HOST)
  kdt_cu_host::bulk_wait_group(younger < 7u ? younger : 7u);
#elif KDT_HAS_BULK
  switch (younger < 7u ? younger : 7u) {
    case 0: asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); break;
    case 1: asm volatile("cp.async.bulk.wait_group 1;" ::: "memory"); break;
    case 2: asm volatile("cp.async.bulk.wait_group 2;" ::: "memory"); break;
    case 3: asm volatile("cp.async.bulk.wait_group 3;" ::: "memory"); break;
    case 4: asm volatile("cp.async.bulk.wait_group 4;" ::: "memory"); break;
    case 5: asm volatile("cp.async.bulk.wait_group 5;" ::: "memory"); break;
    case 6: asm volatile("cp.async.bulk.wait_group 6;" ::: "memory"); break;
    default: asm volatile("cp.async.bulk.wait_group 7;" ::: "memory"); break;
  }
  asm volatile("fence.proxy.async;" ::: "memory");
#else
  (void)younger;
#endif
}

// sm_80+: one global -> shared cp.async of W = 4, 8 or 16 bytes by the
// calling thread (16 bytes bypass L1: .cg; 4 and 8 take .ca, the only form
// PTX has for them).
template <int W>
__device__ inline void cp_async(void* dst, const void* src) {
  static_assert(W == 4 || W == 8 || W == 16, "cp.async copies 4, 8 or 16 bytes");
#if defined(KDT_CU_HOST)
  kdt_cu_host::cp_async(dst, src, W);
#elif KDT_HAS_CP_ASYNC
  if constexpr (W == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_addr(dst)), "l"(src) : "memory");
  else asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(smem_addr(dst)), "l"(src), "n"(W) : "memory");
#else
  (void)dst; (void)src; __trap();
#endif
}
// Block-uniform: the mbarrier's current phase completes once every thread's
// earlier cp.async has landed. Each thread's arrive raises the pending
// count and lowers it when its copies land (no .noinc); the elected thread's
// plain arrive, after the barrier, is the one the mbarrier was set up for.
__device__ inline void cp_async_complete_on(void* bar) {
#if defined(KDT_CU_HOST)
  kdt_cu_host::cp_async_arrive(bar);
  __syncthreads();
  if (threadIdx.x == 0) kdt_cu_host::mbar_arrive(bar);
#elif KDT_HAS_CP_ASYNC
  asm volatile("cp.async.mbarrier.arrive.shared.b64 [%0];" ::"r"(smem_addr(bar)) : "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("{\n\t.reg .b64 state;\n\tmbarrier.arrive.shared.b64 state, [%0];\n\t}" ::"r"(smem_addr(bar)) : "memory");
  }
#else
  (void)bar; __trap();
#endif
}

// Retires the oldest DMA of `q`: waits for it as it was issued.
// `bulk_groups`: the program's bulk groups committed so far.
template <int Cap>
__device__ inline void dma_retire(DmaQueue<Cap>& q, unsigned char* bars, const char* site = nullptr,
                                  unsigned bulk_groups = 0) {
  if (q.n <= 0) fail(site, "a dma_wait with no DMA in flight on its semaphore: a deadlock");
  const int pos = q.head;
  const int kind = q.kind[pos];
  if (kind == 1) {
    mbar_wait(bars + kMbarBytes * pos, (q.phase >> pos) & 1u, site);
    q.phase ^= 1u << pos;
  } else if (kind == 2) {
    if (threadIdx.x == 0) bulk_wait_group(bulk_groups - q.group[pos]);
  }
  __syncthreads();
  q.head = (q.head + 1) % Cap;
  --q.n;
}

}  // namespace kdt_cu

#endif  // KDT_RUNTIME_CUDA_KDT_CUDA_DMA_H_
