// kdt_cuda_ops.h - the values of the CUDA runtime: dtypes, the KD casts,
// arithmetic with KD semantics (op_add<T>, int_div, shl, ...), math and
// block reductions.
// Part of the kdt CUDA runtime: included by kdt_cuda.h (after its includes
// and feature macros), not on its own.
#ifndef KDT_RUNTIME_CUDA_KDT_CUDA_OPS_H_
#define KDT_RUNTIME_CUDA_KDT_CUDA_OPS_H_

namespace kdt_cu {

// ----- failures on the GPU -----
// A wait that cannot complete traps after this long: always for waits on
// other devices, and for every mbarrier wait under KDT_CU_DEBUG
// (--cuda-debug).
#ifndef KDT_CU_WAIT_TIMEOUT_NS
#define KDT_CU_WAIT_TIMEOUT_NS 10000000000ull  // 10 s
#endif
__device__ inline unsigned long long global_timer() {
#if defined(KDT_CU_HOST)
  return 0;  // the tests' host model finds deadlocks itself
#else
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#endif
}
// Stops the kernel: prints the KD location `site` ("file:line:col: what
// the statement is", emitted at each call) and `why`, then traps. The
// message reaches the host's stdout when the device's printf buffer is
// flushed, which a trap does not guarantee: best effort.
__device__ inline void fail(const char* site, const char* why) {
  printf("kdt: %s: %s (block %d, thread %d)\n", site ? site : "(unknown KD location)", why,
         static_cast<int>(blockIdx.x), static_cast<int>(threadIdx.x));
  __trap();
}

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

// A 64-bit integer as f32 rounded to odd: truncated, with the lowest bit
// set when anything was cut off. f32 keeps 13 more bits than f16 and 16 more
// than bf16, so rounding this to either is the one correct rounding of the
// integer; through f64 (53 bits) a large integer would be rounded twice.
template <class I>
__device__ inline float to_f32_round_odd(I x) {
  float t = is_signed_int<I>::value ? __ll2float_rz(static_cast<long long>(x)) : __ull2float_rz(static_cast<unsigned long long>(x));
  if (static_cast<I>(t) != x) t = __uint_as_float(__float_as_uint(t) | 1u);
  return t;
}

// ----- convert<To>(x): the KD casts (section 3) -----
template <class To, class From>
__device__ inline To convert(From x) {
  if constexpr (is_narrow<From>::value) {
    return convert<To>(to_f32(x));
  } else if constexpr (is_narrow<To>::value && is_int<From>::value && sizeof(From) == 8) {
    return from_f32<To>(to_f32_round_odd(x));
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
// One thread's reduction of n >= 1 elements x[0], x[stride], ... in the C++
// path's order (kdt_reduce.h, docs/interpretation.md): 32 lanes, lane l
// taking elements l, l + 32, ... (a sum's from +0), combined by halving as
// warp_reduce does. So an axis reduction gives the C++ path's bits
// whichever way the block splits it. Every lane index is static after
// unrolling, so the lanes stay in registers. A: the accumulator (f32 for
// f16/bf16 elements).
template <int H, class A, class Op>
__device__ inline void halve_lanes(A (&lane)[32], int64_t count, Op op) {
#pragma unroll
  for (int l = 0; l < H; ++l) {
    if (l + H < count) lane[l] = op(lane[l], lane[l + H]);
  }
}
template <class A, class T, class Op>
__device__ inline A lanes_reduce(const T* x, int64_t n, int64_t stride, bool from_zero, Op op) {
  auto widen = [](T v) -> A {
    if constexpr (is_narrow<T>::value) return to_f32(v); else return v;
  };
  A lane[32];
#pragma unroll
  for (int l = 0; l < 32; ++l) {
    lane[l] = A();
    if (l < n) lane[l] = from_zero ? op(A(), widen(x[l * stride])) : widen(x[l * stride]);
  }
  int64_t j = 32;
  for (; j + 32 <= n; j += 32) {
#pragma unroll
    for (int l = 0; l < 32; ++l) lane[l] = op(lane[l], widen(x[(j + l) * stride]));
  }
#pragma unroll
  for (int l = 0; l < 32; ++l) {
    if (j + l < n) lane[l] = op(lane[l], widen(x[(j + l) * stride]));
  }
  const int64_t count = n < 32 ? n : 32;
  // One call per step, so that every index is a constant (a loop over h
  // is not unrolled by nvcc, and the lanes would go to local memory).
  halve_lanes<16>(lane, count, op);
  halve_lanes<8>(lane, count, op);
  halve_lanes<4>(lane, count, op);
  halve_lanes<2>(lane, count, op);
  halve_lanes<1>(lane, count, op);
  return lane[0];
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

}  // namespace kdt_cu

#endif  // KDT_RUNTIME_CUDA_KDT_CUDA_OPS_H_
