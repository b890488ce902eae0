// The wgmma `dot` (include/kdt/runtime/cuda/kdt_cuda_wgmma.h) without a
// GPU: its layout arithmetic is plain C++. The test stages A and B as the
// device code does, then computes each step as the PTX ISA defines a
// K-major, unswizzled operand read through a descriptor — element (r, k)
// at start + (r % 8) * 16 B + (r / 8) * SBO + (k % T) * size + (k / T) * LBO,
// with T the elements of 16 bytes and start, LBO and SBO taken from the
// descriptor's bit fields — and places each accumulator register by the
// fragment map: the product must be A·B computed here with plain loops.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "kdt/runtime/cuda/kdt_cuda_wgmma.h"

namespace {

namespace wg = kdt_cu::wgmma;

// The descriptor's fields, as the PTX ISA lays them out.
struct Fields {
  unsigned start, leading, stride, swizzle;
};
Fields fields_of(unsigned long long desc) {
  return {static_cast<unsigned>(desc & 0x3FFF) << 4, static_cast<unsigned>(desc >> 16 & 0x3FFF) << 4,
          static_cast<unsigned>(desc >> 32 & 0x3FFF) << 4, static_cast<unsigned>(desc >> 62)};
}

// Element (r, k) of a K-major, unswizzled operand that `desc` describes, in
// `smem` (byte addresses from 0), for 4-byte elements (f32 values stand in
// for any type: only the element size matters to the layout).
template <int kBytes>
float read_operand(const std::vector<unsigned char>& smem, unsigned long long desc, int r, int k) {
  const Fields f = fields_of(desc);
  const int per_chunk = 16 / kBytes;
  const size_t at = f.start + static_cast<size_t>(r % 8) * 16 + static_cast<size_t>(r / 8) * f.stride +
                    static_cast<size_t>(k % per_chunk) * kBytes + static_cast<size_t>(k / per_chunk) * f.leading;
  float v = 0;
  if (at + kBytes > smem.size()) FAIL("a descriptor reads past the staging area");
  if (kBytes == 4) {
    std::memcpy(&v, smem.data() + at, 4);
  } else {
    uint16_t bits;
    std::memcpy(&bits, smem.data() + at, 2);
    v = static_cast<float>(bits);  // small integers stored as u16 stand in for 16-bit values
  }
  return v;
}

// Stages a[M, K] and b[K, N] (row-major) as dot_wgmma does, runs every
// tile's steps through the descriptors, writes the fragments to c.
template <int kBytes>
std::vector<float> wgmma_on_host(const std::vector<int>& a, const std::vector<int>& b, int M, int N, int K) {
  using Elem = std::conditional_t<kBytes == 4, float, uint16_t>;
  std::vector<unsigned char> smem(static_cast<size_t>((M + N) * K) * kBytes);
  Elem* sa = reinterpret_cast<Elem*>(smem.data());
  Elem* sb = sa + M * K;
  for (int r = 0; r < M; ++r) {
    for (int k = 0; k < K; ++k) sa[wg::staged_index(r, k, M, kBytes)] = static_cast<Elem>(a[r * K + k]);
  }
  for (int k = 0; k < K; ++k) {
    for (int n = 0; n < N; ++n) sb[wg::staged_index(n, k, N, kBytes)] = static_cast<Elem>(b[k * N + n]);
  }
  const unsigned b_base = static_cast<unsigned>(M * K * kBytes);
  const int step = wg::step_k(kBytes), nt = wg::tile_n(N);
  std::vector<float> c(static_cast<size_t>(M * N), -1.0f);
  for (int m0 = 0; m0 < M; m0 += 64) {
    for (int n0 = 0; n0 < N; n0 += nt) {
      // The tile's 64 x nt product as the instructions compute it.
      std::vector<float> d(static_cast<size_t>(64 * nt), 0.0f);
      for (int s = 0; s < K / step; ++s) {
        auto da = wg::descriptor(static_cast<unsigned>(wg::staged_start(s, m0, M, kBytes) * kBytes));
        auto db = wg::descriptor(b_base + static_cast<unsigned>(wg::staged_start(s, n0, N, kBytes) * kBytes));
        for (int r = 0; r < 64; ++r) {
          for (int n = 0; n < nt; ++n) {
            for (int k = 0; k < step; ++k) {
              d[static_cast<size_t>(r * nt + n)] += read_operand<kBytes>(smem, da, r, k) * read_operand<kBytes>(smem, db, n, k);
            }
          }
        }
      }
      // Each thread of the warpgroup stores its nt / 2 registers.
      for (int warp = 0; warp < 4; ++warp) {
        for (int lane = 0; lane < 32; ++lane) {
          for (int i = 0; i < nt / 2; ++i) {
            const int r = wg::fragment_row(warp, lane, i), n = wg::fragment_col(lane, i);
            c[static_cast<size_t>((m0 + r) * N + n0 + n)] = d[static_cast<size_t>(r * nt + n)];
          }
        }
      }
    }
  }
  return c;
}

template <int kBytes>
void check_product(int M, int N, int K) {
  CAPTURE(kBytes);
  CAPTURE(M);
  CAPTURE(N);
  CAPTURE(K);
  std::vector<int> a(static_cast<size_t>(M * K)), b(static_cast<size_t>(K * N));
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int>((i * 7 + 3) % 11) - 5;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int>((i * 5 + 1) % 13) - 6;
  // 16-bit stand-ins are unsigned: shift them non-negative.
  if (kBytes == 2) {
    for (int& v : a) v += 5;
    for (int& v : b) v += 6;
  }
  const std::vector<float> c = wgmma_on_host<kBytes>(a, b, M, N, K);
  int wrong = 0;
  for (int r = 0; r < M; ++r) {
    for (int n = 0; n < N; ++n) {
      long expected = 0;
      for (int k = 0; k < K; ++k) expected += static_cast<long>(a[r * K + k]) * b[k * N + n];
      if (c[static_cast<size_t>(r * N + n)] != static_cast<float>(expected)) ++wrong;
    }
  }
  CHECK(wrong == 0);
}

TEST_SUITE("cuda_emit") {
  TEST_CASE("wgmma layout: staged operands read through their descriptors give A·B (issue 19, item 8)") {
    // 16-bit operands (bf16, f16): steps of 16; f32 read as TF32: steps of 8.
    check_product<2>(64, 64, 16);
    check_product<2>(128, 40, 48);  // two row tiles, N in tiles of 8, three steps
    check_product<2>(64, 96, 32);   // tiles of 32
    check_product<4>(64, 64, 32);
    check_product<4>(128, 16, 8);
  }

  TEST_CASE("wgmma fragments: the 128 threads' registers cover a 64 x Nt tile once each") {
    for (int nt : {8, 16, 32, 64}) {
      CAPTURE(nt);
      std::set<std::pair<int, int>> seen;
      for (int warp = 0; warp < 4; ++warp) {
        for (int lane = 0; lane < 32; ++lane) {
          for (int i = 0; i < nt / 2; ++i) seen.insert({wg::fragment_row(warp, lane, i), wg::fragment_col(lane, i)});
        }
      }
      CHECK(seen.size() == static_cast<size_t>(64 * nt));
      CHECK(seen.begin()->first == 0);
      CHECK(seen.rbegin()->first == 63);
      CHECK(seen.rbegin()->second == nt - 1);
    }
  }

  TEST_CASE("wgmma descriptor: 16-byte units, LBO 128, SBO 256, no swizzle, 18-bit shared addresses") {
    const Fields f = fields_of(wg::descriptor(0x12340));
    CHECK(f.start == 0x12340);
    CHECK(f.leading == 128);
    CHECK(f.stride == 256);
    CHECK(f.swizzle == 0);
    CHECK(wg::tile_n(40) == 8);
    CHECK(wg::tile_n(96) == 32);
    CHECK(wg::tile_n(128) == 64);
  }
}

}  // namespace
