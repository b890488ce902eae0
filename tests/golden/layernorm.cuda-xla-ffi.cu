namespace kdt_kernels {

// Kernel `layernorm`: grid [64] = 64 blocks of 128 threads, 17696 bytes of dynamic shared memory.
__global__ void __launch_bounds__(128) layernorm_kernel(const float* x, const float* gamma, const float* beta, float eps, float* y, float* rstd)
{
  extern __shared__ __align__(128) unsigned char kdt_smem[];
  const int64_t kdt_tid = threadIdx.x;
  const int64_t kdt_nt = blockDim.x;
  (void)kdt_tid;
  (void)kdt_nt;
  unsigned char* const kdt_red = kdt_smem + 8192;
  (void)kdt_red;
  const int64_t kdt_flat = blockIdx.x;
  const int32_t kdt_pid0 = static_cast<int32_t>(kdt_flat / 1 % 64);
  (void)kdt_pid0;
  float* const kdt_s_xs = reinterpret_cast<float*>(kdt_smem + 0);  // scratch f32[8, 256] @shared
  (void)kdt_s_xs;
  kdt_cu::DmaQueue<1> kdt_q_ld[1] = {};
  unsigned char* const kdt_bar_ld = kdt_smem + 9216;
  [[maybe_unused]] unsigned kdt_bulk_groups = 0;
  if (kdt_tid == 0) {
    for (int b_ = 0; b_ < 1; ++b_) kdt_cu::mbar_init(kdt_smem + 9216 + 8 * b_);
    kdt_cu::mbar_init_fence();
  }
  __syncthreads();
#line 21 "samples/layernorm.kd"
  // assert: checked on the C++ path only
  int32_t r0 = kdt_cu::op_mul(kdt_pid0, int32_t(8));
#line 22
  (void)r0;
#line 24
  {  // DMA: dst = src, 8192 bytes
#line 24
    const int64_t start0_ = static_cast<int64_t>(r0);
#line 24
    const bool kdt_bulk = KDT_HAS_BULK && ((reinterpret_cast<uintptr_t>(x + (start0_ + 0) * 256) | reinterpret_cast<uintptr_t>(kdt_s_xs + 0)) & 15) == 0;
#line 24
    if (kdt_bulk) {
#line 24
      kdt_cu::fence_proxy_async_shared();
#line 24
      __syncthreads();
#line 24
      if (kdt_tid == 0) {
#line 24
        kdt_cu::mbar_expect_tx(kdt_bar_ld + 0 * 8 + 8 * kdt_cu::dma_next_slot(kdt_q_ld[0]), 8192u);
#line 24
        kdt_cu::bulk_g2s(kdt_s_xs + 0, x + (start0_ + 0) * 256, 8192u, kdt_bar_ld + 0 * 8 + 8 * kdt_cu::dma_next_slot(kdt_q_ld[0]));
#line 24
      }
#line 24
      kdt_cu::dma_push(kdt_q_ld[0], 1, "samples/layernorm.kd:24:5: dma_start on `ld`");
#line 24
    } else {
#line 24
      __syncthreads();
#line 24
      for (int64_t e1_ = kdt_tid; e1_ < 2048; e1_ += kdt_nt) {
#line 24
        const int64_t i1_0_ = (e1_ / 256);
#line 24
        (void)i1_0_;
#line 24
        const int64_t i1_1_ = e1_ % 256;
#line 24
        (void)i1_1_;
#line 24
        kdt_s_xs[(i1_0_) * 256 + (i1_1_)] = x[(start0_ + i1_0_) * 256 + (i1_1_)];
#line 24
      }
#line 24
      __syncthreads();
#line 24
      kdt_cu::dma_push(kdt_q_ld[0], 0, "samples/layernorm.kd:24:5: dma_start on `ld`");
#line 24
    }
#line 24
  }
  kdt_cu::dma_retire(kdt_q_ld[0], kdt_bar_ld + 0 * 8, "samples/layernorm.kd:25:5: dma_wait on `ld`", kdt_bulk_groups);
#line 27
  float* const t = kdt_s_xs;
  float* const mean = reinterpret_cast<float*>(kdt_smem + 9344);
#line 28
  float* const t2_ = reinterpret_cast<float*>(kdt_smem + 9472);
#line 28
  __syncthreads();
#line 28
  for (int64_t o3_ = kdt_tid / 32; o3_ < 8; o3_ += kdt_nt / 32) {
#line 28
    const int64_t lane_ = kdt_tid % 32;
#line 28
    float acc_ = float();
#line 28
    for (int64_t r_ = lane_; r_ < 256; r_ += 32) acc_ = kdt_cu::AddOp{}(acc_, t[(o3_ / 1) * 256 + o3_ % 1 + r_ * 1]);
#line 28
    acc_ = kdt_cu::warp_reduce(acc_, 32u, 32u, kdt_cu::AddOp{});
#line 28
    if (lane_ == 0) t2_[o3_] = acc_;
#line 28
  }
#line 28
  __syncthreads();
#line 28
  for (int64_t e4_ = kdt_tid; e4_ < 8; e4_ += kdt_nt) {
#line 28
    const int64_t i4_0_ = e4_;
#line 28
    (void)i4_0_;
#line 28
    const int64_t i4_1_ = e4_ % 1;
#line 28
    (void)i4_1_;
#line 28
    mean[e4_] = kdt_cu::op_div(t2_[e4_], kdt_cu::convert<float>(int32_t(256)));
#line 28
  }
#line 28
  __syncthreads();
  float c[16];  // in registers
#line 29
  (void)c;
#line 29
  __syncthreads();
#line 29
  #pragma unroll
#line 29
  for (int k6_ = 0; k6_ < 16; ++k6_) {
#line 29
    const int64_t e5_ = kdt_tid + k6_ * 128;
#line 29
    const int64_t i5_0_ = (e5_ / 256);
#line 29
    (void)i5_0_;
#line 29
    const int64_t i5_1_ = e5_ % 256;
#line 29
    (void)i5_1_;
#line 29
    c[k6_] = kdt_cu::op_sub(t[e5_], mean[i5_0_]);
#line 29
  }
#line 29
  __syncthreads();
  float variance[1];  // in registers
#line 30
  (void)variance;
#line 30
  float* const t8_ = reinterpret_cast<float*>(kdt_smem + 9472);
#line 30
  __syncthreads();
#line 30
  #pragma unroll
#line 30
  for (int k10_ = 0; k10_ < 16; ++k10_) {
#line 30
    const int64_t e9_ = kdt_tid + k10_ * 128;
#line 30
    const int64_t i9_0_ = (e9_ / 256);
#line 30
    (void)i9_0_;
#line 30
    const int64_t i9_1_ = e9_ % 256;
#line 30
    (void)i9_1_;
#line 30
    t8_[e9_] = kdt_cu::op_mul(c[k10_], c[k10_]);
#line 30
  }
#line 30
  __syncthreads();
#line 30
  float* const t7_ = reinterpret_cast<float*>(kdt_smem + 17664);
#line 30
  for (int64_t o11_ = kdt_tid / 32; o11_ < 8; o11_ += kdt_nt / 32) {
#line 30
    const int64_t lane_ = kdt_tid % 32;
#line 30
    float acc_ = float();
#line 30
    for (int64_t r_ = lane_; r_ < 256; r_ += 32) acc_ = kdt_cu::AddOp{}(acc_, t8_[(o11_ / 1) * 256 + o11_ % 1 + r_ * 1]);
#line 30
    acc_ = kdt_cu::warp_reduce(acc_, 32u, 32u, kdt_cu::AddOp{});
#line 30
    if (lane_ == 0) t7_[o11_] = acc_;
#line 30
  }
#line 30
  __syncthreads();
#line 30
  #pragma unroll
#line 30
  for (int k13_ = 0; k13_ < 1; ++k13_) {
#line 30
    const int64_t e12_ = kdt_tid + k13_ * 128;
#line 30
    if (e12_ >= 8) break;
#line 30
    const int64_t i12_0_ = e12_;
#line 30
    (void)i12_0_;
#line 30
    const int64_t i12_1_ = e12_ % 1;
#line 30
    (void)i12_1_;
#line 30
    variance[k13_] = kdt_cu::op_div(t7_[e12_], kdt_cu::convert<float>(int32_t(256)));
#line 30
  }
#line 30
  __syncthreads();
  float* const rs = reinterpret_cast<float*>(kdt_smem + 9472);
#line 31
  #pragma unroll
#line 31
  for (int k15_ = 0; k15_ < 1; ++k15_) {
#line 31
    const int64_t e14_ = kdt_tid + k15_ * 128;
#line 31
    if (e14_ >= 8) break;
#line 31
    const int64_t i14_0_ = e14_;
#line 31
    (void)i14_0_;
#line 31
    const int64_t i14_1_ = e14_ % 1;
#line 31
    (void)i14_1_;
#line 31
    rs[e14_] = kdt_cu::math::rsqrt(kdt_cu::op_add(variance[k15_], eps));
#line 31
  }
#line 31
  __syncthreads();
  float* const g = reinterpret_cast<float*>(kdt_smem + 9600);
#line 32
  float* const t17_ = reinterpret_cast<float*>(kdt_smem + 10624);
#line 32
  const bool vec18_ = ((reinterpret_cast<uintptr_t>(gamma + 0) | reinterpret_cast<uintptr_t>(t17_)) & 15) == 0;
#line 32
  if (vec18_) {
#line 32
    __syncthreads();
#line 32
    for (int64_t c_ = kdt_tid; c_ < 64; c_ += kdt_nt) {
#line 32
      const int64_t row_ = c_ / 64, col_ = c_ % 64;
#line 32
      (void)row_;
#line 32
      reinterpret_cast<uint4*>(t17_)[c_] = reinterpret_cast<const uint4*>(gamma + 0)[col_];
#line 32
    }
#line 32
    __syncthreads();
#line 32
  } else {
#line 32
    __syncthreads();
#line 32
    for (int64_t e19_ = kdt_tid; e19_ < 256; e19_ += kdt_nt) {
#line 32
      const int64_t i19_0_ = e19_;
#line 32
      (void)i19_0_;
#line 32
      t17_[e19_] = gamma[(i19_0_)];
#line 32
    }
#line 32
    __syncthreads();
#line 32
  }
#line 32
  __syncthreads();
#line 32
  for (int64_t e20_ = kdt_tid; e20_ < 256; e20_ += kdt_nt) {
#line 32
    const int64_t i20_0_ = (e20_ / 256);
#line 32
    (void)i20_0_;
#line 32
    const int64_t i20_1_ = e20_ % 256;
#line 32
    (void)i20_1_;
#line 32
    g[e20_] = t17_[e20_];
#line 32
  }
#line 32
  __syncthreads();
  float* const t22_ = reinterpret_cast<float*>(kdt_smem + 10624);
#line 33
  const bool vec23_ = ((reinterpret_cast<uintptr_t>(beta + 0) | reinterpret_cast<uintptr_t>(t22_)) & 15) == 0;
#line 33
  if (vec23_) {
#line 33
    __syncthreads();
#line 33
    for (int64_t c_ = kdt_tid; c_ < 64; c_ += kdt_nt) {
#line 33
      const int64_t row_ = c_ / 64, col_ = c_ % 64;
#line 33
      (void)row_;
#line 33
      reinterpret_cast<uint4*>(t22_)[c_] = reinterpret_cast<const uint4*>(beta + 0)[col_];
#line 33
    }
#line 33
    __syncthreads();
#line 33
  } else {
#line 33
    __syncthreads();
#line 33
    for (int64_t e24_ = kdt_tid; e24_ < 256; e24_ += kdt_nt) {
#line 33
      const int64_t i24_0_ = e24_;
#line 33
      (void)i24_0_;
#line 33
      t22_[e24_] = beta[(i24_0_)];
#line 33
    }
#line 33
    __syncthreads();
#line 33
  }
#line 33
  const int64_t start25_ = static_cast<int64_t>(r0);
#line 33
  __syncthreads();
#line 33
  #pragma unroll
#line 33
  for (int k27_ = 0; k27_ < 16; ++k27_) {
#line 33
    const int64_t e26_ = kdt_tid + k27_ * 128;
#line 33
    const int64_t i26_0_ = (e26_ / 256);
#line 33
    (void)i26_0_;
#line 33
    const int64_t i26_1_ = e26_ % 256;
#line 33
    (void)i26_1_;
#line 33
    y[(start25_ + i26_0_) * 256 + (i26_1_)] = kdt_cu::op_add(kdt_cu::op_mul(kdt_cu::op_mul(c[k27_], rs[i26_0_]), g[i26_1_]), t22_[i26_1_]);
#line 33
  }
#line 33
  __syncthreads();
  const int64_t start28_ = static_cast<int64_t>(r0);
#line 34
  const bool vec29_ = ((reinterpret_cast<uintptr_t>(rstd + (start28_ + 0))) & 15) == 0;
#line 34
  if (vec29_) {
#line 34
    __syncthreads();
#line 34
    for (int64_t c_ = kdt_tid; c_ < 2; c_ += kdt_nt) {
#line 34
      const int64_t row_ = c_ / 2, col_ = c_ % 2;
#line 34
      (void)row_;
#line 34
      alignas(16) float piece_[4];
#line 34
      for (int q_ = 0; q_ < 4; ++q_) {
#line 34
        const int64_t e30_ = c_ * 4 + q_;
#line 34
        const int64_t i30_0_ = e30_;
#line 34
        (void)i30_0_;
#line 34
        const int64_t i30_1_ = e30_ % 1;
#line 34
        (void)i30_1_;
#line 34
        piece_[q_] = rs[e30_];
#line 34
      }
#line 34
      reinterpret_cast<uint4*>(rstd + (start28_ + 0))[col_] = *reinterpret_cast<const uint4*>(piece_);
#line 34
    }
#line 34
    __syncthreads();
#line 34
  } else {
#line 34
    __syncthreads();
#line 34
    for (int64_t e31_ = kdt_tid; e31_ < 8; e31_ += kdt_nt) {
#line 34
      const int64_t i31_0_ = e31_;
#line 34
      (void)i31_0_;
#line 34
      const int64_t i31_1_ = e31_ % 1;
#line 34
      (void)i31_1_;
#line 34
      rstd[(start28_ + i31_0_)] = rs[e31_];
#line 34
    }
#line 34
    __syncthreads();
#line 34
  }
}
#line 1852 "<stdout>"

#ifndef __CUDACC_RTC__
constexpr unsigned layernorm_threads = 128;
constexpr unsigned layernorm_blocks = 64;
constexpr size_t layernorm_shared_bytes = 17696;
// Launches `layernorm` on `stream`: device pointers (row-major), scalars by value.
// Returns the launch status (cudaGetLastError after the launch).
inline cudaError_t layernorm(const float* x, const float* gamma, const float* beta, float eps, float* y, float* rstd, cudaStream_t stream = 0) {
  if (cudaError_t e = kdt_cu::shared_memory_fits("layernorm", kdt_kernels::layernorm_shared_bytes); e != cudaSuccess) return e;
  if (kdt_kernels::layernorm_shared_bytes > 48 * 1024) {
    cudaError_t e = cudaFuncSetAttribute(kdt_kernels::layernorm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kdt_kernels::layernorm_shared_bytes));
    if (e != cudaSuccess) return e;
  }
  kdt_kernels::layernorm_kernel<<<dim3(kdt_kernels::layernorm_blocks), dim3(kdt_kernels::layernorm_threads), kdt_kernels::layernorm_shared_bytes, stream>>>(x, gamma, beta, eps, y, rstd);
  return cudaGetLastError();
}
#endif  // __CUDACC_RTC__

}  // namespace kdt_kernels

// ===== XLA FFI handlers for the CUDA platform (--emit=cuda-xla-ffi, docs/c-api.md) =====
// One handler per kernel, `kdt_xla_cuda_KERNEL`, for jax.ffi.register_ffi_target(platform="CUDA").
// Compile with nvcc and the headers jaxlib ships: -isystem $(python -c 'import jax; print(jax.ffi.include_dir())').
#ifndef __CUDACC_RTC__
#include "xla/ffi/api/ffi.h"

// The kernels of this file, their parameters (kind, dtype, the shape a caller passes) and the binding.
extern "C" __attribute__((visibility("default"))) const char* kdt_module_json(void) {
  return "{\"abi\":1,\"binding\":\"cuda-xla-ffi\",\"checks\":false,\"kernels\":[{\"devices\":1,\"grid\":[64],\"mesh\":[1],\"name\":\"layernorm\",\"params\":[{\"dtype\":\"f32\",\"kind\":\"in\",\"name\":\"x\",\"shape\":[512,256]},{\"dtype\":\"f32\",\"kind\":\"in\",\"name\":\"gamma\",\"shape\":[256]},{\"dtype\":\"f32\",\"kind\":\"in\",\"name\":\"beta\",\"shape\":[256]},{\"dtype\":\"f32\",\"kind\":\"scalar\",\"name\":\"eps\"},{\"dtype\":\"f32\",\"kind\":\"out\",\"name\":\"y\",\"shape\":[512,256]},{\"dtype\":\"f32\",\"kind\":\"out\",\"name\":\"rstd\",\"shape\":[512,1]}],\"symbol\":\"kdt_xla_cuda_layernorm\"}],\"source\":\"samples/layernorm.kd\"}";
}

namespace kdt_bind {
namespace ffi = xla::ffi;
// A buffer of the wrong type or size (a caller that bypassed kdt.jax's checks).
static bool fits(const ffi::AnyBuffer& b, ffi::DataType type, size_t count) {
  return b.element_type() == type && b.element_count() == count;
}
// A CUDA error as the FFI error JAX raises.
static ffi::Error cuda_error(const char* kernel, const char* what, cudaError_t e) {
  return ffi::Error(ffi::ErrorCode::kInternal, std::string("kdt: kernel `") + kernel + "`: " + what + ": " +
                    cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}
}  // namespace kdt_bind

// Kernel `layernorm`.
static kdt_bind::ffi::Error kdt_xla_cuda_layernorm_impl(cudaStream_t stream, kdt_bind::ffi::AnyBuffer x_in, kdt_bind::ffi::AnyBuffer gamma_in, kdt_bind::ffi::AnyBuffer beta_in, kdt_bind::ffi::Result<kdt_bind::ffi::AnyBuffer> y_out, kdt_bind::ffi::Result<kdt_bind::ffi::AnyBuffer> rstd_out, float eps_attr) {
  if (!(kdt_bind::fits(x_in, kdt_bind::ffi::DataType::F32, 131072) && kdt_bind::fits(gamma_in, kdt_bind::ffi::DataType::F32, 256) && kdt_bind::fits(beta_in, kdt_bind::ffi::DataType::F32, 256) && kdt_bind::fits(*y_out, kdt_bind::ffi::DataType::F32, 131072) && kdt_bind::fits(*rstd_out, kdt_bind::ffi::DataType::F32, 512))) {
    return kdt_bind::ffi::Error(kdt_bind::ffi::ErrorCode::kInvalidArgument, "kdt: kernel `layernorm` was called with buffers of other dtypes or sizes than its parameters");
  }
  cudaError_t e = kdt_kernels::layernorm(static_cast<const float*>(x_in.untyped_data()), static_cast<const float*>(gamma_in.untyped_data()), static_cast<const float*>(beta_in.untyped_data()), eps_attr, static_cast<float*>(y_out->untyped_data()), static_cast<float*>(rstd_out->untyped_data()), stream);
  if (e != cudaSuccess) return kdt_bind::cuda_error("layernorm", "launch", e);
  return kdt_bind::ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(kdt_xla_cuda_layernorm, kdt_xla_cuda_layernorm_impl, kdt_bind::ffi::Ffi::Bind().Ctx<kdt_bind::ffi::PlatformStream<cudaStream_t>>().Arg<kdt_bind::ffi::AnyBuffer>().Arg<kdt_bind::ffi::AnyBuffer>().Arg<kdt_bind::ffi::AnyBuffer>().Ret<kdt_bind::ffi::AnyBuffer>().Ret<kdt_bind::ffi::AnyBuffer>().Attr<float>("eps"));

#endif  // __CUDACC_RTC__
