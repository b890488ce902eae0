// Stands in for CUDA's <mma.h> when kdt's device runtime is compiled for
// the host (kdt_cuda_host.h, KDT_CU_HOST): the warp matrix functions that
// kdt_cuda_mma.h calls, on fragments that hold their whole tile in every
// lane. Each lane loads, multiplies and stores the whole tile (the same
// values, so the 32 stores agree); the products are summed in K order onto
// the accumulator, in its type — the order one of the GPU's may take (the
// spec fixes none within a `dot`).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace nvcuda {
namespace wmma {

struct matrix_a;
struct matrix_b;
struct accumulator;
struct row_major;
struct col_major;
enum layout_t { mem_row_major, mem_col_major };
namespace precision {
struct tf32;
}  // namespace precision

template <class T> struct storage { using type = T; };
template <> struct storage<precision::tf32> { using type = float; };

template <class Use, int M, int N, int K> struct tile;
template <int M, int N, int K> struct tile<matrix_a, M, N, K> { static constexpr int rows = M, cols = K; };
template <int M, int N, int K> struct tile<matrix_b, M, N, K> { static constexpr int rows = K, cols = N; };
template <int M, int N, int K> struct tile<accumulator, M, N, K> { static constexpr int rows = M, cols = N; };

template <class Use, int M, int N, int K, class T, class Layout = void>
struct fragment {
  static constexpr int rows = tile<Use, M, N, K>::rows, cols = tile<Use, M, N, K>::cols;
  static constexpr int num_elements = rows * cols;
  typename storage<T>::type x[rows * cols];
};

inline float widen(float v) { return v; }
inline float widen(__half v) { return __half2float(v); }
inline float widen(__nv_bfloat16 v) { return __bfloat162float(v); }
inline int widen(signed char v) { return v; }
inline int widen(unsigned char v) { return v; }

// Row-major tiles only: the layouts kdt uses. A load and a store are
// warp-wide on the GPU: every lane has loaded before any lane stores (an
// accumulator loaded and stored back is read once), so the lanes meet
// after a load.
template <class F, class P>
inline void load_matrix_sync(F& f, const P* p, unsigned ldm) {
  for (int r = 0; r < F::rows; ++r) {
    for (int c = 0; c < F::cols; ++c) f.x[r * F::cols + c] = p[static_cast<size_t>(r) * ldm + c];
  }
  __syncwarp();
}
template <class F, class P>
inline void load_matrix_sync(F& f, const P* p, unsigned ldm, layout_t) {
  load_matrix_sync(f, p, ldm);
}
template <class P, class F>
inline void store_matrix_sync(P* p, const F& f, unsigned ldm, layout_t) {
  for (int r = 0; r < F::rows; ++r) {
    for (int c = 0; c < F::cols; ++c) p[static_cast<size_t>(r) * ldm + c] = f.x[r * F::cols + c];
  }
}
template <class F, class V>
inline void fill_fragment(F& f, V v) {
  for (int e = 0; e < F::num_elements; ++e) f.x[e] = v;
}
template <class D, class A, class B, class C>
inline void mma_sync(D& d, const A& a, const B& b, const C& c) {
  constexpr int M = A::rows, K = A::cols, N = B::cols;
  std::remove_reference_t<decltype(d.x[0])> out[M * N];
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      auto acc = c.x[i * N + j];
      for (int k = 0; k < K; ++k) acc += widen(a.x[i * K + k]) * widen(b.x[k * N + j]);
      out[i * N + j] = acc;
    }
  }
  std::memcpy(d.x, out, sizeof out);
}
// cvt.rna.tf32.f32: 10 mantissa bits, to nearest, ties away from zero.
inline float __float_to_tf32(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & ~0x1fffu;
  std::memcpy(&v, &u, 4);
  return v;
}

}  // namespace wmma
}  // namespace nvcuda
