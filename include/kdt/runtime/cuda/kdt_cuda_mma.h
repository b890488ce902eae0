// kdt_cuda_mma.h - `dot` on tensor cores (issue 19, item 8): the warp
// matrix functions of CUDA C++ (nvcuda::wmma, <mma.h>), which compile to
// `wmma.mma.sync` in PTX and HMMA/IMMA instructions in SASS.
// Part of the kdt CUDA runtime: included by kdt_cuda.h.
//
// Why wmma and not hand-written `mma.sync` fragments: the library owns the
// register layout of each fragment per architecture, so the same source is
// right on sm_80 and sm_90 (where it runs as HMMA; sm_90a's warpgroup
// MMAs are kdt_cuda_wgmma.h).
//
// The emitter calls dot_mma only where it applies: 16-multiple shapes,
// a block of whole warps (the warp matrix functions need all 32 lanes), and
// operands whose 16x16 (16x8) sub-tiles start on 32-byte boundaries, which
// dot_mma_aligned tests at run time (tile values in shared memory always do;
// a view of a global ref may not). Each warp computes whole 16x16 output
// tiles, K in order; the results are written row-major with stride N.
#ifndef KDT_RUNTIME_CUDA_KDT_CUDA_MMA_H_
#define KDT_RUNTIME_CUDA_KDT_CUDA_MMA_H_

#include <mma.h>

namespace kdt_cu {

// The wmma element type of a kdt dtype, and the K of one step: 16 for 16-
// and 8-bit inputs, 8 for TF32.
template <typename In> struct MmaShape;
// Load is what memory holds; Frag what the fragment is declared with (TF32
// fragments load from f32 memory and are rounded after the load).
template <typename F, typename L, int K, bool Tf32 = false> struct MmaShapeOf {
  using Frag = F;
  using Load = L;
  static constexpr int kK = K;
  static constexpr bool kTf32 = Tf32;
};
template <> struct MmaShape<bf16> : MmaShapeOf<__nv_bfloat16, __nv_bfloat16, 16> {};
template <> struct MmaShape<f16> : MmaShapeOf<__half, __half, 16> {};
template <> struct MmaShape<int8_t> : MmaShapeOf<signed char, signed char, 16> {};
template <> struct MmaShape<uint8_t> : MmaShapeOf<unsigned char, unsigned char, 16> {};
template <> struct MmaShape<float> : MmaShapeOf<nvcuda::wmma::precision::tf32, float, 8, true> {};

__device__ inline bool dot_mma_aligned(const void* a, const void* b, const void* c) {
  return ((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b) | reinterpret_cast<uintptr_t>(c)) & 31) == 0;
}

// c[M, N] = a[M, K] · b[K, N], all row-major; with Accumulate, c += a · b,
// the accumulators starting from c (`acc += dot(a, b)`). Called by every
// thread of the block (block-uniform control flow, as every kdt tile
// statement).
template <int M, int N, int K, bool Accumulate = false, typename In, typename Acc>
__device__ inline void dot_mma(const In* a, const In* b, Acc* c) {
#if (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800) || defined(KDT_CU_HOST)  // KDT_CU_HOST: the tests' host model
  namespace wmma = nvcuda::wmma;
  using Shape = MmaShape<In>;
  constexpr int kK = Shape::kK;
  static_assert(M % 16 == 0 && N % 16 == 0 && K % kK == 0, "the emitter checks the shape");
  using Frag = typename Shape::Frag;
  using Load = typename Shape::Load;
  const Load* la = reinterpret_cast<const Load*>(a);
  const Load* lb = reinterpret_cast<const Load*>(b);
  const int warp = static_cast<int>(threadIdx.x / 32), warps = static_cast<int>(blockDim.x / 32);
  for (int t = warp; t < (M / 16) * (N / 16); t += warps) {
    const int i = t / (N / 16) * 16, j = t % (N / 16) * 16;
    wmma::fragment<wmma::accumulator, 16, 16, kK, Acc> acc;
    if constexpr (Accumulate) {
      wmma::load_matrix_sync(acc, c + i * N + j, N, wmma::mem_row_major);
    } else {
      wmma::fill_fragment(acc, Acc(0));
    }
    for (int k = 0; k < K; k += kK) {
      wmma::fragment<wmma::matrix_a, 16, 16, kK, Frag, wmma::row_major> fa;
      wmma::fragment<wmma::matrix_b, 16, 16, kK, Frag, wmma::row_major> fb;
      wmma::load_matrix_sync(fa, la + i * K + k, K);
      wmma::load_matrix_sync(fb, lb + k * N + j, N);
      if constexpr (Shape::kTf32) {
        // TF32 keeps 10 mantissa bits: the inputs are rounded, the
        // accumulation stays f32 (only with --cuda-tf32).
        for (int e = 0; e < fa.num_elements; ++e) fa.x[e] = wmma::__float_to_tf32(fa.x[e]);
        for (int e = 0; e < fb.num_elements; ++e) fb.x[e] = wmma::__float_to_tf32(fb.x[e]);
      }
      wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(c + i * N + j, acc, N, wmma::mem_row_major);
  }
#else
  // Never called: the emitter uses dot_mma for sm_80 and later only.
  (void)a, (void)b, (void)c;
  __trap();
#endif
}

}  // namespace kdt_cu

#endif  // KDT_RUNTIME_CUDA_KDT_CUDA_MMA_H_
