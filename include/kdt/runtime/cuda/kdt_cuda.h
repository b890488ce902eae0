// kdt CUDA device runtime (the compiled path). Embedded verbatim into every
// `kdt --emit=cuda` output (the build embeds it with cmake/EmbedText.cmake);
// also usable on its own with nvcc or NVRTC.
// A classic guard (not #pragma once): in generated files this is the main file,
// and several generated files may be included into one translation unit.
#ifndef KDT_RUNTIME_CUDA_KDT_CUDA_H_
#define KDT_RUNTIME_CUDA_KDT_CUDA_H_
#ifdef __CUDACC_RTC__
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef unsigned long long uintptr_t;
#else
#include <cstdint>
#include <cuda_runtime.h>
#endif
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define KDT_HAS_BULK 1
#else
#define KDT_HAS_BULK 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define KDT_HAS_CP_ASYNC 1
#else
#define KDT_HAS_CP_ASYNC 0
#endif

namespace kdt_cu {

using f16 = __half;
using bf16 = __nv_bfloat16;

// ----- type traits (no <type_traits> under NVRTC) -----
template <class A, class B> struct is_same { static constexpr bool value = false; };
template <class A> struct is_same<A, A> { static constexpr bool value = true; };
template <class T> struct is_narrow { static constexpr bool value = false; };
template <> struct is_narrow<f16> { static constexpr bool value = true; };
template <> struct is_narrow<bf16> { static constexpr bool value = true; };
template <class T> struct is_flt { static constexpr bool value = false; };
template <> struct is_flt<float> { static constexpr bool value = true; };
template <> struct is_flt<double> { static constexpr bool value = true; };
template <class T> struct is_int { static constexpr bool value = false; };
template <> struct is_int<int8_t> { static constexpr bool value = true; };
template <> struct is_int<int16_t> { static constexpr bool value = true; };
template <> struct is_int<int32_t> { static constexpr bool value = true; };
template <> struct is_int<int64_t> { static constexpr bool value = true; };
template <> struct is_int<uint8_t> { static constexpr bool value = true; };
template <> struct is_int<uint16_t> { static constexpr bool value = true; };
template <> struct is_int<uint32_t> { static constexpr bool value = true; };
template <> struct is_int<uint64_t> { static constexpr bool value = true; };
template <class T> struct uns;
template <> struct uns<int8_t> { using type = uint8_t; };
template <> struct uns<int16_t> { using type = uint16_t; };
template <> struct uns<int32_t> { using type = uint32_t; };
template <> struct uns<int64_t> { using type = uint64_t; };
template <> struct uns<uint8_t> { using type = uint8_t; };
template <> struct uns<uint16_t> { using type = uint16_t; };
template <> struct uns<uint32_t> { using type = uint32_t; };
template <> struct uns<uint64_t> { using type = uint64_t; };
template <class T> struct is_signed_int { static constexpr bool value = false; };
template <> struct is_signed_int<int8_t> { static constexpr bool value = true; };
template <> struct is_signed_int<int16_t> { static constexpr bool value = true; };
template <> struct is_signed_int<int32_t> { static constexpr bool value = true; };
template <> struct is_signed_int<int64_t> { static constexpr bool value = true; };
template <class T> struct limits;
template <> struct limits<int8_t> { static constexpr double lo = -128.0, hi = 127.0; };
template <> struct limits<int16_t> { static constexpr double lo = -32768.0, hi = 32767.0; };
template <> struct limits<int32_t> { static constexpr double lo = -2147483648.0, hi = 2147483647.0; };
template <> struct limits<int64_t> { static constexpr double lo = -9223372036854775808.0, hi = 9223372036854775808.0; };
template <> struct limits<uint8_t> { static constexpr double lo = 0.0, hi = 255.0; };
template <> struct limits<uint16_t> { static constexpr double lo = 0.0, hi = 65535.0; };
template <> struct limits<uint32_t> { static constexpr double lo = 0.0, hi = 4294967295.0; };
template <> struct limits<uint64_t> { static constexpr double lo = 0.0, hi = 18446744073709551616.0; };

// ----- f16 / bf16 -----
__host__ __device__ inline f16 f16_bits(unsigned short b) { __half_raw r; r.x = b; return f16(r); }
__host__ __device__ inline bf16 bf16_bits(unsigned short b) { __nv_bfloat16_raw r; r.x = b; return bf16(r); }
__device__ inline float to_f32(f16 x) { return __half2float(x); }
__device__ inline float to_f32(bf16 x) { return __bfloat162float(x); }
template <class T> __device__ inline T from_f32(float v);
template <> __device__ inline f16 from_f32<f16>(float v) { return __float2half_rn(v); }
template <> __device__ inline bf16 from_f32<bf16>(float v) { return __float2bfloat16_rn(v); }
template <class T> __device__ inline T from_f64(double v);
template <> __device__ inline f16 from_f64<f16>(double v) { return __double2half(v); }
template <> __device__ inline bf16 from_f64<bf16>(double v) { return __double2bfloat16(v); }

// ----- convert<To>(x): the KD casts (section 3) -----
template <class To, class From>
__device__ inline To convert(From x) {
  if constexpr (is_narrow<From>::value) {
    return convert<To>(to_f32(x));
  } else if constexpr (is_narrow<To>::value) {
    return from_f64<To>(static_cast<double>(x));
  } else if constexpr (sizeof(To) == 1 && To(2) == To(1)) {  // bool
    return x != From(0);
  } else if constexpr (is_int<To>::value && is_flt<From>::value) {
    double v = static_cast<double>(x);
    if (v != v) return To(0);
    if (v <= limits<To>::lo) return static_cast<To>(limits<To>::lo);
    if (v >= limits<To>::hi) return is_signed_int<To>::value ? To(~(typename uns<To>::type(1) << (sizeof(To) * 8 - 1)))
                                                             : To(~To(0));
    return static_cast<To>(x);
  } else {
    return static_cast<To>(x);
  }
}

// ----- arithmetic with KD semantics -----
template <class T> __device__ inline T op_add(T a, T b) {
  if constexpr (is_narrow<T>::value) return from_f32<T>(to_f32(a) + to_f32(b));
  else if constexpr (is_int<T>::value) return static_cast<T>(static_cast<typename uns<T>::type>(a) + static_cast<typename uns<T>::type>(b));
  else return a + b;
}
template <class T> __device__ inline T op_sub(T a, T b) {
  if constexpr (is_narrow<T>::value) return from_f32<T>(to_f32(a) - to_f32(b));
  else if constexpr (is_int<T>::value) return static_cast<T>(static_cast<typename uns<T>::type>(a) - static_cast<typename uns<T>::type>(b));
  else return a - b;
}
template <class T> __device__ inline T op_mul(T a, T b) {
  if constexpr (is_narrow<T>::value) return from_f32<T>(to_f32(a) * to_f32(b));
  else if constexpr (is_int<T>::value) return static_cast<T>(static_cast<typename uns<T>::type>(a) * static_cast<typename uns<T>::type>(b));
  else return a * b;
}
template <class T> __device__ inline T op_div(T a, T b) {
  if constexpr (is_narrow<T>::value) return from_f32<T>(to_f32(a) / to_f32(b));
  else return a / b;
}
__device__ inline float fmod_(float a, float b) { return fmodf(a, b); }
__device__ inline double fmod_(double a, double b) { return fmod(a, b); }
template <class T> __device__ inline T op_rem(T a, T b) {
  if constexpr (is_narrow<T>::value) return from_f32<T>(fmodf(to_f32(a), to_f32(b)));
  else return fmod_(a, b);
}
template <class T> __device__ inline T op_neg(T a) {
  if constexpr (is_narrow<T>::value) return from_f32<T>(-to_f32(a));
  else if constexpr (is_int<T>::value) return static_cast<T>(typename uns<T>::type(0) - static_cast<typename uns<T>::type>(a));
  else return -a;
}
// Integer division: truncates; INT_MIN / -1 wraps; division by zero gives 0
// (the C++ path reports it; the GPU has no check).
template <class T> __device__ inline T int_div(T a, T b) {
  if (b == T(0)) return T(0);
  if constexpr (is_signed_int<T>::value) {
    if (b == T(-1)) return op_neg(a);
  }
  return static_cast<T>(a / b);
}
template <class T> __device__ inline T int_rem(T a, T b) {
  if (b == T(0)) return T(0);
  if constexpr (is_signed_int<T>::value) {
    if (b == T(-1)) return T(0);
  }
  return static_cast<T>(a % b);
}
// Shifts clamp the amount to the bit width, as PTX does.
template <class T, class S> __device__ inline T shl(T a, S amount) {
  const uint64_t k = static_cast<uint64_t>(amount);
  if (k >= sizeof(T) * 8u) return T(0);
  using U = typename uns<T>::type;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) << k));
}
template <class T, class S> __device__ inline T shr(T a, S amount) {
  const uint64_t k = static_cast<uint64_t>(amount);
  if constexpr (is_signed_int<T>::value) {
    if (k >= sizeof(T) * 8u) return a < 0 ? T(-1) : T(0);
    if (a < 0) return static_cast<T>(~(~a >> k));
    return static_cast<T>(a >> k);
  } else {
    if (k >= sizeof(T) * 8u) return T(0);
    return static_cast<T>(a >> k);
  }
}
// NaN-propagating maximum / minimum; maximum(-0, +0) == +0.
template <class T> __device__ inline T maximum(T a, T b) {
  if constexpr (is_narrow<T>::value) return from_f32<T>(maximum(to_f32(a), to_f32(b)));
  else if constexpr (is_flt<T>::value) {
    if (a != a || b != b) return a + b;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
  } else return a > b ? a : b;
}
template <class T> __device__ inline T minimum(T a, T b) {
  if constexpr (is_narrow<T>::value) return from_f32<T>(minimum(to_f32(a), to_f32(b)));
  else if constexpr (is_flt<T>::value) {
    if (a != a || b != b) return a + b;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
  } else return a < b ? a : b;
}
template <class T> __device__ inline auto cmp_value(T x) {
  if constexpr (is_narrow<T>::value) return to_f32(x);
  else return x;
}

namespace math {
#define KDT_CU_MATH(name, f32fn, f64fn)                                          \
  template <class T> __device__ inline T name(T x) {                             \
    if constexpr (is_narrow<T>::value) return from_f32<T>(f32fn(to_f32(x)));    \
    else if constexpr (sizeof(T) == 4) return f32fn(x);                          \
    else return f64fn(x);                                                        \
  }
KDT_CU_MATH(exp, expf, ::exp)
KDT_CU_MATH(log, logf, ::log)
KDT_CU_MATH(sqrt, sqrtf, ::sqrt)
KDT_CU_MATH(rsqrt, rsqrtf, ::rsqrt)
KDT_CU_MATH(tanh, tanhf, ::tanh)
KDT_CU_MATH(sin, sinf, ::sin)
KDT_CU_MATH(cos, cosf, ::cos)
KDT_CU_MATH(floor, floorf, ::floor)
KDT_CU_MATH(ceil, ceilf, ::ceil)
#undef KDT_CU_MATH
template <class T> __device__ inline T abs(T x) {
  if constexpr (is_narrow<T>::value) return from_f32<T>(fabsf(to_f32(x)));
  else if constexpr (is_flt<T>::value) return sizeof(T) == 4 ? T(fabsf(float(x))) : T(fabs(double(x)));
  else if constexpr (is_signed_int<T>::value) return x < 0 ? op_neg(x) : x;
  else return x;
}
}  // namespace math

// ----- block reductions (warp shuffles, then shared memory) -----
// Deterministic: the combination order depends only on the thread count.
struct AddOp { template <class T> __device__ T operator()(T a, T b) const { return op_add(a, b); } };
struct MaxOp { template <class T> __device__ T operator()(T a, T b) const { return maximum(a, b); } };
struct MinOp { template <class T> __device__ T operator()(T a, T b) const { return minimum(a, b); } };
// __shfl_down_sync of any 1..8-byte value, moved as its bits.
template <class A>
__device__ inline A shfl_down(unsigned lanes, A v, unsigned offset) {
  static_assert(sizeof(A) <= 8, "a reduction accumulator is at most 8 bytes");
  if constexpr (sizeof(A) <= 4) {
    unsigned bits = 0;
    memcpy(&bits, &v, sizeof(A));
    bits = __shfl_down_sync(lanes, bits, offset);
    memcpy(&v, &bits, sizeof(A));
  } else {
    unsigned long long bits = 0;
    memcpy(&bits, &v, sizeof(A));
    bits = __shfl_down_sync(lanes, bits, offset);
    memcpy(&v, &bits, sizeof(A));
  }
  return v;
}
// Tree over the values of the first `count` lanes of the calling warp, of
// which the first `present` lanes take part; lane 0 gets the result.
template <class A, class Op>
__device__ inline A warp_reduce(A v, unsigned present, unsigned count, Op op) {
  const unsigned lane = threadIdx.x % 32u;
  const unsigned lanes = present >= 32u ? 0xffffffffu : (1u << present) - 1u;
  for (unsigned offset = 16; offset > 0; offset >>= 1) {
    const A other = shfl_down(lanes, v, offset);
    if (lane + offset < count) v = op(v, other);
  }
  return v;
}
// Every thread of the block passes its partial; every thread gets the total.
// `scratch_bytes` holds one A per warp (kdt reserves 8 bytes per thread).
template <class A, class Op>
__device__ inline A block_reduce(A v, void* scratch_bytes, Op op) {
  A* scratch = static_cast<A*>(scratch_bytes);
  const unsigned t = threadIdx.x, n = blockDim.x;
  const unsigned warp = t / 32u, warps = (n + 31u) / 32u;
  const unsigned in_warp = warp + 1 < warps ? 32u : n - 32u * warp;
  v = warp_reduce(v, in_warp, in_warp, op);
  __syncthreads();
  if (t % 32u == 0) scratch[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = t < warps ? scratch[t] : scratch[0];
    v = warp_reduce(v, n < 32u ? n : 32u, warps, op);
    if (t == 0) scratch[0] = v;
  }
  __syncthreads();
  A r = scratch[0];
  __syncthreads();
  return r;
}

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

// ----- semaphores shared between devices (devices(N) > 1) -----
// A 64-bit counter in global memory per (program, semaphore element), in a
// per-device sync buffer that the peers reach through the peer table.
// Signals add with release semantics at system scope; the owning program
// alone lowers its counters, after an acquire load has seen enough.
#ifndef KDT_CU_WAIT_TIMEOUT_NS
#define KDT_CU_WAIT_TIMEOUT_NS 10000000000ull  // a wait that never completes traps after 10 s
#endif
__device__ inline unsigned long long global_timer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ inline long long load_acquire_sys(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return static_cast<long long>(v);
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
__device__ inline void wait_sys(unsigned long long* counter, long long amount) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned long long start = global_timer();
    while (load_acquire_sys(counter) < amount) {
      __nanosleep(64);
      if (global_timer() - start > KDT_CU_WAIT_TIMEOUT_NS) __trap();  // deadlock: nothing will signal it
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

// ----- DMA in-flight queues (one per DMA semaphore element) -----
// Every thread keeps the same copy (all control flow is block-uniform).
// kind: 0 = completed cooperatively, 1 = mbarrier phase of slot `pos`
// (bulk copies, or every thread's cp.async), 2 = bulk group of the elected
// thread.
constexpr int kQueue = 8;
struct DmaQueue {
  unsigned char kind[kQueue];
  unsigned phase;
  int head;
  int n;
};
__device__ inline int dma_push(DmaQueue& q, int kind) {
  if (q.n >= kQueue) __trap();  // more DMAs in flight on one semaphore than the queue holds
  const int pos = (q.head + q.n) % kQueue;
  q.kind[pos] = static_cast<unsigned char>(kind);
  ++q.n;
  return pos;
}
__device__ inline int dma_next_slot(const DmaQueue& q) { return (q.head + q.n) % kQueue; }

__device__ inline unsigned smem_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// mbarriers exist from sm_80 (cp.async completes on them); expect_tx, try_wait
// and the bulk copies from sm_90.
__device__ inline void mbar_init(void* bar) {
#if KDT_HAS_CP_ASYNC
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(bar)) : "memory");
#else
  (void)bar;
#endif
}
__device__ inline void mbar_init_fence() {
#if KDT_HAS_BULK
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}
__device__ inline void fence_proxy_async_shared() {
#if KDT_HAS_BULK
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}
__device__ inline void mbar_expect_tx(void* bar, unsigned bytes) {
#if KDT_HAS_BULK
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
#else
  (void)bar; (void)bytes; __trap();
#endif
}
__device__ inline void mbar_wait(void* bar, unsigned parity) {
#if KDT_HAS_BULK
  unsigned done = 0;
  do {
    asm volatile(
        "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done) : "r"(smem_addr(bar)), "r"(parity) : "memory");
  } while (!done);
#elif KDT_HAS_CP_ASYNC
  unsigned done = 0;
  do {
    asm volatile(
        "{\n\t.reg .pred p;\n\tmbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done) : "r"(smem_addr(bar)), "r"(parity) : "memory");
  } while (!done);
#else
  (void)bar; (void)parity; __trap();
#endif
}
// global -> shared, completing `bytes` on the mbarrier.
__device__ inline void bulk_g2s(void* dst, const void* src, unsigned bytes, void* bar) {
#if KDT_HAS_BULK
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               ::"r"(smem_addr(dst)), "l"(src), "r"(bytes), "r"(smem_addr(bar)) : "memory");
#else
  (void)dst; (void)src; (void)bytes; (void)bar; __trap();
#endif
}
// shared -> global in the elected thread's bulk group.
__device__ inline void bulk_s2g(void* dst, const void* src, unsigned bytes) {
#if KDT_HAS_BULK
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
#if KDT_HAS_BULK
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
#if KDT_HAS_BULK
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#endif
}
__device__ inline void bulk_wait_all() {
#if KDT_HAS_BULK
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  asm volatile("fence.proxy.async;" ::: "memory");
#endif
}

// sm_80+: one global -> shared cp.async of W = 4, 8 or 16 bytes by the
// calling thread (16 bytes bypass L1: .cg; 4 and 8 take .ca, the only form
// PTX has for them).
template <int W>
__device__ inline void cp_async(void* dst, const void* src) {
  static_assert(W == 4 || W == 8 || W == 16, "cp.async copies 4, 8 or 16 bytes");
#if KDT_HAS_CP_ASYNC
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
#if KDT_HAS_CP_ASYNC
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
__device__ inline void dma_retire(DmaQueue& q, unsigned char* bars) {
  if (q.n <= 0) __trap();  // a wait with nothing in flight: deadlock
  const int pos = q.head;
  const int kind = q.kind[pos];
  if (kind == 1) {
    mbar_wait(bars + 8 * pos, (q.phase >> pos) & 1u);
    q.phase ^= 1u << pos;
  } else if (kind == 2) {
    if (threadIdx.x == 0) bulk_wait_all();
  }
  __syncthreads();
  q.head = (q.head + 1) % kQueue;
  --q.n;
}

#ifndef __CUDACC_RTC__
// ----- host: launching a devices(N) kernel -----
// Holds the devices and streams of one multi-device launch. prepare() zeroes
// every sync buffer and makes every stream wait until all of them are zero
// (a peer may signal a device as soon as it starts); launch() starts one
// cooperative launch, so that every program of the device is resident (a
// program may wait for its twin on another device); finish() cleans up and
// restores the caller's current device.
template <int N>
class DeviceGroup {
 public:
  DeviceGroup(const int (&device)[N], const cudaStream_t (&stream)[N]) : device_(device), stream_(stream) {
    if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
  }
  cudaError_t prepare(const void* kernel, unsigned threads, size_t shared_bytes, unsigned blocks, void* const (&sync)[N],
                      size_t sync_bytes) {
    for (int d = 0; d < N; ++d) {
      cudaError_t e = cudaSetDevice(device_[d]);
      if (e == cudaSuccess && shared_bytes > 48 * 1024) {
        e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes));
      }
      if (e == cudaSuccess) e = fits(kernel, threads, shared_bytes, blocks);
      if (e == cudaSuccess) e = cudaMemsetAsync(sync[d], 0, sync_bytes, stream_[d]);
      if (e == cudaSuccess) e = cudaEventCreateWithFlags(&zeroed_[d], cudaEventDisableTiming);
      if (e == cudaSuccess) e = cudaEventRecord(zeroed_[d], stream_[d]);
      if (e != cudaSuccess) return e;
    }
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

#endif  // KDT_RUNTIME_CUDA_KDT_CUDA_H_
