// kdt_cuda_wgmma.h - `dot` on sm_90a's warpgroup tensor cores (issue 19,
// item 8): `wgmma.mma_async`, HGMMA in SASS. Only for `--arch=sm_90a`
// (wgmma is an sm_90a feature: neither sm_90 nor later archs have it).
// Part of the kdt CUDA runtime: included by kdt_cuda.h.
//
// wgmma reads its operands from shared memory through descriptors, in one
// of the canonical layouts of the PTX ISA ("Shared Memory Matrix Layout").
// kdt's tiles are row-major, which is none of them, so dot_wgmma first
// copies A and B into a staging area the emitter reserves, in the K-major,
// unswizzled layout: for each step of K (16 elements of 16-bit types, 8 of
// f32 read as TF32), groups of 8 rows, each group two "core matrices" of
// 8 rows x 16 bytes (row after row) side by side along K. The descriptor
// then names the byte distance between the two core matrices of a group
// along K (the leading byte offset, 128) and between groups of 8 rows (the
// stride byte offset, 256). B is staged the same way with N as its rows
// (K-major, so no transpose immediates: TF32 has none).
//
// Each warpgroup (4 warps, 128 threads) computes whole 64 x Nt tiles of C
// (Nt = 64, 32, 16 or 8, the largest dividing N), K in order, f32
// accumulation; then every thread writes its accumulator fragment: register
// i of lane l of warp w holds C[16 w + l / 4 + 8 ((i / 2) % 2)][8 (i / 4) +
// 2 (l % 4) + i % 2] (the PTX ISA's figure for the m64nNk16 D fragment).
//
// The layout arithmetic is plain C++ so that the unit tests run it on the
// host (tests/unit/cuda_wgmma_test.cpp: staging, then reading back through
// the descriptor's fields as the ISA defines them, gives the product).
#ifndef KDT_RUNTIME_CUDA_KDT_CUDA_WGMMA_H_
#define KDT_RUNTIME_CUDA_KDT_CUDA_WGMMA_H_

#if defined(__CUDACC__)
#define KDT_CU_HD __host__ __device__
#else
#define KDT_CU_HD
#endif

namespace kdt_cu {
namespace wgmma {

// Bytes of one row of a core matrix, and the descriptor's two distances.
constexpr int kChunkBytes = 16;
constexpr int kLeadingByteOffset = 128;  // the next core matrix along K
constexpr int kStrideByteOffset = 256;   // the next 8 rows

// Elements of one step of K: two core-matrix rows.
KDT_CU_HD constexpr int step_k(int elem_bytes) { return 2 * kChunkBytes / elem_bytes; }

// Where element (row, k) of an operand with `rows` rows lands in the staged
// layout, in elements.
KDT_CU_HD constexpr int staged_index(int row, int k, int rows, int elem_bytes) {
  const int chunk = kChunkBytes / elem_bytes;  // elements per core-matrix row
  const int step = 2 * chunk;
  return k / step * rows * step        // the step of K
         + row / 8 * 8 * step           // the group of 8 rows
         + k % step / chunk * 8 * chunk  // which core matrix of the group
         + row % 8 * chunk               // the row in the core matrix
         + k % chunk;
}

// The first element of step `s` for the rows from `row0` (a multiple of 8):
// what a descriptor's start address names.
KDT_CU_HD constexpr int staged_start(int s, int row0, int rows, int elem_bytes) {
  return staged_index(row0, s * step_k(elem_bytes), rows, elem_bytes);
}

// A shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"):
// bits 0-13 the start address, 16-29 the leading and 32-45 the stride byte
// offsets, each in units of 16 bytes; base offset 0, no swizzle (bits 62-63).
KDT_CU_HD constexpr unsigned long long descriptor(unsigned shared_address) {
  return static_cast<unsigned long long>((shared_address & 0x3FFFF) >> 4) |
         static_cast<unsigned long long>(kLeadingByteOffset >> 4) << 16 |
         static_cast<unsigned long long>(kStrideByteOffset >> 4) << 32;
}

// The element of a 64 x Nt tile of C that accumulator register i of lane
// `lane` of warp `warp` (of its warpgroup) holds.
KDT_CU_HD constexpr int fragment_row(int warp, int lane, int i) { return 16 * warp + lane / 4 + 8 * (i / 2 % 2); }
KDT_CU_HD constexpr int fragment_col(int lane, int i) { return 8 * (i / 4) + 2 * (lane % 4) + i % 2; }

// The N of one tile: the largest of 64, 32, 16, 8 that divides n.
KDT_CU_HD constexpr int tile_n(int n) { return n % 64 == 0 ? 64 : n % 32 == 0 ? 32 : n % 16 == 0 ? 16 : 8; }

}  // namespace wgmma
}  // namespace kdt_cu

#if defined(__CUDACC__)
namespace kdt_cu {
namespace wgmma {

// The accumulator registers of one instruction, "{%0, ..., %(Nt/2 - 1)}",
// and the C++ lvalues bound to them, by Nt.
#define KDT_WG_REGS8 "%0, %1, %2, %3"
#define KDT_WG_REGS16 KDT_WG_REGS8 ", %4, %5, %6, %7"
#define KDT_WG_REGS32 KDT_WG_REGS16 ", %8, %9, %10, %11, %12, %13, %14, %15"
#define KDT_WG_REGS64 \
  KDT_WG_REGS32 ", %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define KDT_WG_ACC8(d) "+f"((d)[0]), "+f"((d)[1]), "+f"((d)[2]), "+f"((d)[3])
#define KDT_WG_ACC16(d) KDT_WG_ACC8(d), KDT_WG_ACC8((d) + 4)
#define KDT_WG_ACC32(d) KDT_WG_ACC16(d), KDT_WG_ACC16((d) + 8)
#define KDT_WG_ACC64(d) KDT_WG_ACC32(d), KDT_WG_ACC32((d) + 16)
// One wgmma adding A·B to the accumulators d: `shape_types` e.g.
// "m64n64k16.f32.bf16.bf16"; A and B descriptors and then the immediates
// (scale-d true: the products add to d, which starts at zero or at c;
// scale-a, scale-b 1; 16-bit types also the transpose flags, 0: both
// operands K-major).
#define KDT_WGMMA(n, shape_types, a_op, b_op, immediates)                                              \
  asm volatile("wgmma.mma_async.sync.aligned." shape_types " {" KDT_WG_REGS##n "}, " a_op ", " b_op \
               ", 1, 1, 1" immediates ";\n"                                                        \
               : KDT_WG_ACC##n(d)                                                                  \
               : "l"(a), "l"(b)                                                                    \
               : "memory")
// The descriptor operands follow the Nt/2 accumulators.
#define KDT_WGMMA_N(n, types, k, a_op, b_op, immediates) \
  KDT_WGMMA(n, "m64n" #n "k" #k ".f32." types, a_op, b_op, immediates)

// bf16 and f16 are both 2 bytes: which one an instruction names.
template <typename T> struct IsBf16 { static constexpr bool value = false; };
template <> struct IsBf16<bf16> { static constexpr bool value = true; };

template <typename In, int Nt>
__device__ inline void mma_async(float* d, unsigned long long a, unsigned long long b) {
  if constexpr (sizeof(In) == 4) {  // f32 operands read as TF32: K-major only, no transpose flags
    if constexpr (Nt == 8) KDT_WGMMA_N(8, "tf32.tf32", 8, "%4", "%5", "");
    if constexpr (Nt == 16) KDT_WGMMA_N(16, "tf32.tf32", 8, "%8", "%9", "");
    if constexpr (Nt == 32) KDT_WGMMA_N(32, "tf32.tf32", 8, "%16", "%17", "");
    if constexpr (Nt == 64) KDT_WGMMA_N(64, "tf32.tf32", 8, "%32", "%33", "");
  } else if constexpr (IsBf16<In>::value) {
    if constexpr (Nt == 8) KDT_WGMMA_N(8, "bf16.bf16", 16, "%4", "%5", ", 0, 0");
    if constexpr (Nt == 16) KDT_WGMMA_N(16, "bf16.bf16", 16, "%8", "%9", ", 0, 0");
    if constexpr (Nt == 32) KDT_WGMMA_N(32, "bf16.bf16", 16, "%16", "%17", ", 0, 0");
    if constexpr (Nt == 64) KDT_WGMMA_N(64, "bf16.bf16", 16, "%32", "%33", ", 0, 0");
  } else {
    if constexpr (Nt == 8) KDT_WGMMA_N(8, "f16.f16", 16, "%4", "%5", ", 0, 0");
    if constexpr (Nt == 16) KDT_WGMMA_N(16, "f16.f16", 16, "%8", "%9", ", 0, 0");
    if constexpr (Nt == 32) KDT_WGMMA_N(32, "f16.f16", 16, "%16", "%17", ", 0, 0");
    if constexpr (Nt == 64) KDT_WGMMA_N(64, "f16.f16", 16, "%32", "%33", ", 0, 0");
  }
}
#undef KDT_WGMMA_N
#undef KDT_WGMMA
#undef KDT_WG_ACC64
#undef KDT_WG_ACC32
#undef KDT_WG_ACC16
#undef KDT_WG_ACC8
#undef KDT_WG_REGS64
#undef KDT_WG_REGS32
#undef KDT_WG_REGS16
#undef KDT_WG_REGS8

// Copies an operand into the staged layout: element (row, k) is
// src[row * row_stride + k * k_stride]; f32 is rounded to TF32 as the
// warp-level path rounds it.
template <typename In, int Rows, int K>
__device__ inline void stage(const In* src, int row_stride, int k_stride, In* dst) {
  for (int e = static_cast<int>(threadIdx.x); e < Rows * K; e += static_cast<int>(blockDim.x)) {
    // The source's contiguous index fastest: row-major A by k, row-major B by n.
    const int row = k_stride == 1 ? e / K : e % Rows, k = k_stride == 1 ? e % K : e / Rows;
    In v = src[row * row_stride + k * k_stride];
    if constexpr (sizeof(In) == 4) v = nvcuda::wmma::__float_to_tf32(v);
    dst[staged_index(row, k, Rows, static_cast<int>(sizeof(In)))] = v;
  }
}

}  // namespace wgmma

// c[M, N] = a[M, K] · b[K, N], all row-major; with Accumulate, c += a · b,
// the accumulators starting from c (`acc += dot(a, b)`). `staging` holds
// (M + N) * K elements, 128-byte aligned, in shared memory. Called by every
// thread of the block (a whole number of warpgroups), block-uniform.
//
// nvcc -arch=sm_90a also embeds compute_90 PTX, for GPUs after sm_90 to
// JIT, which have no wgmma: there each thread computes whole elements.
template <int M, int N, int K, bool Accumulate = false, typename In>
__device__ inline void dot_wgmma(const In* a, const In* b, float* c, unsigned char* staging) {
#if !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  (void)staging;
  for (int o = static_cast<int>(threadIdx.x); o < M * N; o += static_cast<int>(blockDim.x)) {
    float acc = Accumulate ? c[o] : 0.0f;
    for (int k = 0; k < K; ++k) acc += static_cast<float>(a[o / N * K + k]) * static_cast<float>(b[k * N + o % N]);
    c[o] = acc;
  }
#else
  constexpr int kBytes = static_cast<int>(sizeof(In));
  constexpr int kStep = wgmma::step_k(kBytes), kNt = wgmma::tile_n(N);
  static_assert(M % 64 == 0 && N % 8 == 0 && K % kStep == 0, "the emitter checks the shape");
  In* sa = reinterpret_cast<In*>(staging);
  In* sb = sa + M * K;
  wgmma::stage<In, M, K>(a, K, 1, sa);
  wgmma::stage<In, N, K>(b, 1, N, sb);
  // The copies are generic-proxy writes; wgmma reads through the async proxy.
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
  const int groups = static_cast<int>(blockDim.x / 128);
  const unsigned a_base = static_cast<unsigned>(__cvta_generic_to_shared(sa));
  const unsigned b_base = static_cast<unsigned>(__cvta_generic_to_shared(sb));
  for (int t = warp / 4; t < (M / 64) * (N / kNt); t += groups) {
    const int m0 = t / (N / kNt) * 64, n0 = t % (N / kNt) * kNt;
    float d[kNt / 2];
#pragma unroll
    for (int i = 0; i < kNt / 2; ++i) {
      d[i] = Accumulate ? c[(m0 + wgmma::fragment_row(warp % 4, lane, i)) * N + n0 + wgmma::fragment_col(lane, i)] : 0.0f;
    }
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    for (int s = 0; s < K / kStep; ++s) {
      const unsigned a_at = a_base + static_cast<unsigned>(wgmma::staged_start(s, m0, M, kBytes) * kBytes);
      const unsigned b_at = b_base + static_cast<unsigned>(wgmma::staged_start(s, n0, N, kBytes) * kBytes);
      wgmma::mma_async<In, kNt>(d, wgmma::descriptor(a_at), wgmma::descriptor(b_at));
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#pragma unroll
    for (int i = 0; i < kNt / 2; ++i) {
      c[(m0 + wgmma::fragment_row(warp % 4, lane, i)) * N + n0 + wgmma::fragment_col(lane, i)] = d[i];
    }
  }
#endif
}

}  // namespace kdt_cu
#endif  // __CUDACC__

#endif  // KDT_RUNTIME_CUDA_KDT_CUDA_WGMMA_H_
