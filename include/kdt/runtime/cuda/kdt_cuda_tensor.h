// kdt_cuda_tensor.h - multi-row DMAs through tensor maps (issue 19, item 9):
// one elected thread issues a whole box with `cp.async.bulk.tensor` (or its
// reduce-add) where the bulk path would issue one `cp.async.bulk` per row.
// Part of the kdt CUDA runtime: included by kdt_cuda.h (after kdt_cuda_dma.h).
//
// The launcher encodes one map per (global ref, box shape) the kernel uses
// (encode_tensor_map, through the driver's cuTensorMapEncodeTiled reached
// with cudaGetDriverEntryPointByVersion, or cudaGetDriverEntryPoint before
// CUDA 12.5: no -lcuda) and passes them in one
// __grid_constant__ struct with an `ok` flag. Where any map cannot be
// encoded (a base pointer not 16-byte aligned, an old driver) `ok` is 0 and
// every DMA takes its row-by-row bulk copies instead: the same bytes on the
// same mbarrier or bulk group, so the queues and waits do not change.
#ifndef KDT_RUNTIME_CUDA_KDT_CUDA_TENSOR_H_
#define KDT_RUNTIME_CUDA_KDT_CUDA_TENSOR_H_

namespace kdt_cu {

// The driver's CUtensorMap: 128 opaque bytes, 64-byte aligned (cuda.h is a
// host header, which NVRTC does not have; the layout is the driver's ABI).
struct alignas(64) TensorMap {
  unsigned long long opaque[16];
};

// One asm per rank (the number of coordinates is part of the instruction):
// %0 the shared address, %1 the map's generic address (a __grid_constant__
// parameter), %2.. the box's start in the ref, innermost dimension first as
// the map lists them, %7 a load's mbarrier.
#define KDT_CU_C2 "{%2, %3}"
#define KDT_CU_C3 "{%2, %3, %4}"
#define KDT_CU_C4 "{%2, %3, %4, %5}"
#define KDT_CU_C5 "{%2, %3, %4, %5, %6}"
#define KDT_CU_TENSOR_OPERANDS \
  "r"(smem_addr(smem)), "l"(reinterpret_cast<uint64_t>(map)), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4])
#define KDT_CU_TENSOR_G2S(r)                                                                                        \
  asm volatile("cp.async.bulk.tensor." #r "d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, " KDT_CU_C##r \
               "], [%7];" ::KDT_CU_TENSOR_OPERANDS, "r"(smem_addr(bar)) : "memory")
#define KDT_CU_TENSOR_S2G(r)                                                                                   \
  asm volatile("cp.async.bulk.tensor." #r "d.global.shared::cta.bulk_group [%1, " KDT_CU_C##r "], [%0];" \
               ::KDT_CU_TENSOR_OPERANDS : "memory")
#define KDT_CU_TENSOR_ADD(r)                                                                                          \
  asm volatile("cp.reduce.async.bulk.tensor." #r "d.global.shared::cta.add.bulk_group [%1, " KDT_CU_C##r "], [%0];" \
               ::KDT_CU_TENSOR_OPERANDS : "memory")
#define KDT_CU_BY_RANK(op) \
  if constexpr (Rank == 2) op(2); \
  else if constexpr (Rank == 3) op(3); \
  else if constexpr (Rank == 4) op(4); \
  else op(5)

// global -> shared: the box at `c` into `smem` (128-byte aligned), its bytes
// completing on the mbarrier.
template <int Rank>
__device__ inline void tensor_g2s(void* smem, const TensorMap* map, const int (&c)[5], void* bar) {
  static_assert(Rank >= 2 && Rank <= 5, "tensor maps of rank 2 to 5");
#if KDT_HAS_BULK && !defined(KDT_CU_HOST)
  KDT_CU_BY_RANK(KDT_CU_TENSOR_G2S);
#else
  (void)smem; (void)map; (void)c; (void)bar; __trap();
#endif
}
// shared -> global, in the elected thread's bulk group; `Add` reduces
// (dst += src) in the map's element type (the emitter chooses it for f32,
// i32 and u32 only; an f32 add's map is FLOAT32_FTZ, so it flushes
// subnormals as the bulk reduce and the atomics do).
template <int Rank, bool Add>
__device__ inline void tensor_s2g(const TensorMap* map, const int (&c)[5], const void* smem) {
  static_assert(Rank >= 2 && Rank <= 5, "tensor maps of rank 2 to 5");
#if KDT_HAS_BULK && !defined(KDT_CU_HOST)
  if constexpr (Add) {
    KDT_CU_BY_RANK(KDT_CU_TENSOR_ADD);
  } else {
    KDT_CU_BY_RANK(KDT_CU_TENSOR_S2G);
  }
#else
  (void)map; (void)c; (void)smem; __trap();
#endif
}
#undef KDT_CU_BY_RANK
#undef KDT_CU_TENSOR_ADD
#undef KDT_CU_TENSOR_S2G
#undef KDT_CU_TENSOR_G2S
#undef KDT_CU_TENSOR_OPERANDS
#undef KDT_CU_C5
#undef KDT_CU_C4
#undef KDT_CU_C3
#undef KDT_CU_C2

#ifndef __CUDACC_RTC__
// A tensor map over a whole row-major ref: `dims` and `box` innermost first,
// `strides` the byte strides of dimensions 1..rank-1. False where the driver
// refuses it (or has no cuTensorMapEncodeTiled): the kernel then copies row
// by row. Under --cuda-debug that is said on stderr (`kernel`, `ref`: KD
// names), so a check on a GPU sees which route its DMAs took.
inline bool encode_tensor_map(TensorMap* map, const void* base, CUtensorMapDataType dtype, unsigned rank,
                              const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box, const char* kernel,
                              const char* ref) {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found);
#else  // CUDA 12.0-12.4: the versioned query does not exist yet
    const cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &found);
#endif
    if (e != cudaSuccess || found != cudaDriverEntryPointSuccess) fn = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  const cuuint32_t unit[5] = {1, 1, 1, 1, 1};
  CUtensorMap m;
  const CUresult e = encode == nullptr ? CUDA_ERROR_NOT_FOUND
                                       : encode(&m, dtype, rank, const_cast<void*>(base), dims, strides, box, unit,
                                                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                                CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (e != CUDA_SUCCESS) {
#if defined(KDT_CU_DEBUG)
    fprintf(stderr, "kdt: note: kernel `%s`: no tensor map for `%s` (%s, CUresult %d): its DMAs copy row by row\n", kernel,
            ref, encode == nullptr ? "the driver has no cuTensorMapEncodeTiled" : "cuTensorMapEncodeTiled refused it",
            static_cast<int>(e));
#else
    (void)kernel, (void)ref;
#endif
    return false;
  }
  static_assert(sizeof(CUtensorMap) == sizeof(TensorMap), "the driver's tensor map is 128 bytes");
  memcpy(map, &m, sizeof m);
  return true;
}
#endif

}  // namespace kdt_cu

#endif  // KDT_RUNTIME_CUDA_KDT_CUDA_TENSOR_H_
