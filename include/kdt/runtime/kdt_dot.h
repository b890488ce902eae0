// kdt_dot.h - `dot` of floating-point tiles on the C++ path (issue 17): a
// register-blocked micro-kernel over packed panels, BLIS's structure.
//
// Every element of C is computed exactly as the plain loop computes it,
// in the same order:
//   c = 0;  for k in 0 .. K-1:  c = c + a[i, k] * b[k, j]
// with one rounding per multiplication and per addition (no contraction,
// spec section 1). Blocking changes only which elements are computed side
// by side, never the operations on one element, so the result is the same
// bit for bit on every target and vector width, and the C++ path stays
// deterministic. (The spec fixes no order within a `dot`; this is kdt's,
// documented in docs/interpretation.md.)
#ifndef KDT_RUNTIME_KDT_DOT_H
#define KDT_RUNTIME_KDT_DOT_H

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kdt_numerics.h"

namespace kdt_rt {
namespace dot_detail {

#if defined(__GNUC__)
// GCC and Clang vector extensions: the micro-kernel's accumulators are
// kRows x kVectors vectors held in registers. The block sizes fit the
// register file: 32 registers with AVX-512, 16 with AVX or SSE.
#if defined(__AVX512F__)
constexpr int kVectorBytes = 64;
constexpr int kRows = 6;
constexpr int kVectors = 4;
#elif defined(__AVX__)
constexpr int kVectorBytes = 32;
constexpr int kRows = 6;
constexpr int kVectors = 2;
#else
constexpr int kVectorBytes = 16;
constexpr int kRows = 4;
constexpr int kVectors = 2;
#endif
typedef float VecF32 __attribute__((vector_size(kVectorBytes)));
typedef double VecF64 __attribute__((vector_size(kVectorBytes)));
template <class T> struct VecOf;
template <> struct VecOf<float> { using type = VecF32; };
template <> struct VecOf<double> { using type = VecF64; };

template <class T>
constexpr int64_t lanes() { return kVectorBytes / static_cast<int64_t>(sizeof(T)); }
// Columns of one B panel, and of one micro-tile of C.
template <class T>
constexpr int64_t panel_width() { return kVectors * lanes<T>(); }

// C[rows, cols] (row stride ldc) = A (kRows x K) times B (K x
// panel_width). A's element (r, k) is a[r * a_row + k * a_k]; B's row k
// starts at b + k * b_k. Packed panels are zero-padded to whole blocks;
// only the first rows x cols of the block are stored.
template <class T>
inline void micro_kernel(int64_t K, const T* __restrict a, int64_t a_row, int64_t a_k, const T* __restrict b,
                         int64_t b_k, T* __restrict c, int64_t ldc, int64_t rows, int64_t cols) {
  using V = typename VecOf<T>::type;
  constexpr int64_t L = lanes<T>();
  V acc[kRows][kVectors];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) acc[r][v] = V{};
  }
  for (int64_t k = 0; k < K; ++k) {
    V bv[kVectors];
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) std::memcpy(&bv[v], b + k * b_k + v * L, sizeof(V));
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      const V av = V{} + a[r * a_row + k * a_k];
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; ++v) {
        const V product = av * bv[v];
        acc[r][v] = acc[r][v] + product;
      }
    }
  }
  if (rows == kRows && cols == panel_width<T>()) {
    for (int r = 0; r < kRows; ++r) {
      for (int v = 0; v < kVectors; ++v) std::memcpy(c + r * ldc + v * L, &acc[r][v], sizeof(V));
    }
    return;
  }
  T whole[kRows][kVectors * L];
  std::memcpy(whole, acc, sizeof whole);
  for (int64_t r = 0; r < rows; ++r) std::memcpy(c + r * ldc, whole[r], static_cast<size_t>(cols) * sizeof(T));
}

// Packing buffers, one pair per thread (device threads run in parallel),
// grown as needed and never shrunk: no allocation per `dot` once warm.
template <class T>
inline std::vector<T>& pack_buffer(int which) {
  thread_local std::vector<T> buffers[2];
  return buffers[which];
}

// Operands already of the accumulator's type are read in place where a
// whole block fits (rows of B are contiguous, and a row of A is one
// broadcast per k); the rest is packed: converted operands, and the
// blocks at the bottom and right edges, zero-padded.
template <class T, class TA, class TB>
inline void dot_blocked(T* c, const TA* a, const TB* b, int64_t M, int64_t K, int64_t N) {
  constexpr int64_t W = panel_width<T>();
  constexpr bool a_in_place = std::is_same_v<TA, T>, b_in_place = std::is_same_v<TB, T>;
  const int64_t panels = (N + W - 1) / W;
  // B as column panels of width W, each k-major, zero-padded on the right.
  std::vector<T>& pb = pack_buffer<T>(0);
  pb.resize(static_cast<size_t>(panels * K * W));
  for (int64_t p = 0; p < panels; ++p) {
    const int64_t j0 = p * W, width = N - j0 < W ? N - j0 : W;
    if (b_in_place && width == W) continue;
    T* panel = pb.data() + p * K * W;
    for (int64_t k = 0; k < K; ++k) {
      T* row = panel + k * W;
      for (int64_t j = 0; j < width; ++j) row[j] = convert<T>(b[k * N + j0 + j]);
      for (int64_t j = width; j < W; ++j) row[j] = T{};
    }
  }
  // A one block of kRows rows at a time, k-major, zero-padded below.
  std::vector<T>& pa = pack_buffer<T>(1);
  pa.resize(static_cast<size_t>(K * kRows));
  for (int64_t i0 = 0; i0 < M; i0 += kRows) {
    const int64_t rows = M - i0 < kRows ? M - i0 : kRows;
    const T* ablock = pa.data();
    int64_t a_row = 1, a_k = kRows;
    if constexpr (a_in_place) {
      if (rows == kRows) {
        ablock = reinterpret_cast<const T*>(a) + i0 * K;
        a_row = K;
        a_k = 1;
      }
    }
    if (ablock == pa.data()) {
      for (int64_t k = 0; k < K; ++k) {
        for (int64_t r = 0; r < kRows; ++r) pa[static_cast<size_t>(k * kRows + r)] = r < rows ? convert<T>(a[(i0 + r) * K + k]) : T{};
      }
    }
    for (int64_t p = 0; p < panels; ++p) {
      const int64_t j0 = p * W, width = N - j0 < W ? N - j0 : W;
      const T* bpanel = pb.data() + p * K * W;
      int64_t b_k = W;
      if constexpr (b_in_place) {
        if (width == W) {
          bpanel = reinterpret_cast<const T*>(b) + j0;
          b_k = N;
        }
      }
      micro_kernel<T>(K, ablock, a_row, a_k, bpanel, b_k, c + i0 * N + j0, N, rows, width);
    }
  }
}
#endif  // __GNUC__

}  // namespace dot_detail

// C[M, N] = A[M, K] B[K, N] for a floating-point accumulator T (f32 or
// f64), A and B row-major and converted to T as they are packed.
template <class T, class TA, class TB>
inline void dot(T* c, const TA* a, const TB* b, int64_t M, int64_t K, int64_t N) {
#if defined(__GNUC__)
  dot_detail::dot_blocked<T>(c, a, b, M, K, N);
#else
  // Other compilers: the same operations in the same order, i-k-j.
  for (int64_t j = 0; j < M * N; ++j) c[j] = T{};
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t k = 0; k < K; ++k) {
      const T x = convert<T>(a[i * K + k]);
      for (int64_t j = 0; j < N; ++j) c[i * N + j] = op_add(c[i * N + j], op_mul(x, convert<T>(b[k * N + j])));
    }
  }
#endif
}

}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_DOT_H
