namespace kdt_kernels {

// Kernel `dma_pipeline`: grid [4] = 4 blocks of 128 threads, 132352 bytes of dynamic shared memory.
__global__ void __launch_bounds__(128) dma_pipeline_kernel(const float* x, float scale, float* y)
{
  extern __shared__ __align__(128) unsigned char kdt_smem[];
  const int64_t kdt_tid = threadIdx.x;
  const int64_t kdt_nt = blockDim.x;
  (void)kdt_tid;
  (void)kdt_nt;
  unsigned char* const kdt_red = kdt_smem + 131072;
  (void)kdt_red;
  const int64_t kdt_flat = blockIdx.x;
  const int32_t kdt_pid0 = static_cast<int32_t>(kdt_flat / 1 % 4);
  (void)kdt_pid0;
  float* const kdt_s_in_buf = reinterpret_cast<float*>(kdt_smem + 0);  // scratch f32[2, 32, 256] @shared
  (void)kdt_s_in_buf;
  float* const kdt_s_out_buf = reinterpret_cast<float*>(kdt_smem + 65536);  // scratch f32[2, 32, 256] @shared
  (void)kdt_s_out_buf;
  kdt_cu::DmaQueue kdt_q_in_sem[2] = {};
  unsigned char* const kdt_bar_in_sem = kdt_smem + 132096;
  kdt_cu::DmaQueue kdt_q_out_sem[2] = {};
  unsigned char* const kdt_bar_out_sem = kdt_smem + 132224;
  int32_t kdt_sem_stored[1] = {};
  if (kdt_tid == 0) {
    for (int b_ = 0; b_ < 16; ++b_) kdt_cu::mbar_init(kdt_smem + 132096 + 8 * b_);
    for (int b_ = 0; b_ < 16; ++b_) kdt_cu::mbar_init(kdt_smem + 132224 + 8 * b_);
    kdt_cu::mbar_init_fence();
  }
  __syncthreads();
#line 27 "samples/dma_pipeline.kd"
  // assert: checked on the C++ path only
#line 28 "samples/dma_pipeline.kd"
  int32_t base = kdt_cu::op_mul(kdt_pid0, int32_t(512));
  (void)base;
#line 31 "samples/dma_pipeline.kd"
  {  // DMA: dst = src, 32768 bytes
    const int64_t start0_ = static_cast<int64_t>(base);
    const bool kdt_async = KDT_HAS_CP_ASYNC && ((reinterpret_cast<uintptr_t>(x + (start0_ + 0) * 256) | reinterpret_cast<uintptr_t>(kdt_s_in_buf + 0)) & 15) == 0;
    if (kdt_async) {
      __syncthreads();
      for (int64_t c_ = kdt_tid; c_ < 2048; c_ += kdt_nt) {
        const int64_t row_ = c_ / 2048, col_ = c_ % 2048;
        (void)row_;
        kdt_cu::cp_async<16>(reinterpret_cast<unsigned char*>(kdt_s_in_buf + 0) + col_ * 16, reinterpret_cast<const unsigned char*>(x + (start0_ + 0) * 256) + col_ * 16);
      }
      kdt_cu::cp_async_complete_on(kdt_bar_in_sem + (int32_t(0)) * 64 + 8 * kdt_cu::dma_next_slot(kdt_q_in_sem[(int32_t(0))]));
      kdt_cu::dma_push(kdt_q_in_sem[(int32_t(0))], 1);
    } else {
      __syncthreads();
      for (int64_t e1_ = kdt_tid; e1_ < 8192; e1_ += kdt_nt) {
        const int64_t i1_0_ = (e1_ / 256);
        (void)i1_0_;
        const int64_t i1_1_ = e1_ % 256;
        (void)i1_1_;
        kdt_s_in_buf[(i1_0_) * 256 + (i1_1_)] = x[(start0_ + i1_0_) * 256 + (i1_1_)];
      }
      __syncthreads();
      kdt_cu::dma_push(kdt_q_in_sem[(int32_t(0))], 0);
    }
  }
#line 33 "samples/dma_pipeline.kd"
  for (int64_t t_it = int32_t(0); t_it < int32_t(16); t_it += 1) {
    const int32_t t = static_cast<int32_t>(t_it);
    (void)t;
#line 34 "samples/dma_pipeline.kd"
    int32_t slot = kdt_cu::int_rem<int32_t>(t, int32_t(2));
    (void)slot;
#line 35 "samples/dma_pipeline.kd"
    int32_t other = kdt_cu::op_sub(int32_t(1), slot);
    (void)other;
#line 37 "samples/dma_pipeline.kd"
    if ((kdt_cu::op_add(t, int32_t(1)) < int32_t(16))) {
#line 38 "samples/dma_pipeline.kd"
      {  // DMA: dst = src, 32768 bytes
        const int64_t start2_ = static_cast<int64_t>(kdt_cu::op_add(base, kdt_cu::op_mul(kdt_cu::op_add(t, int32_t(1)), int32_t(32))));
        const int64_t start3_ = static_cast<int64_t>(other);
        const bool kdt_async = KDT_HAS_CP_ASYNC && ((reinterpret_cast<uintptr_t>(x + (start2_ + 0) * 256) | reinterpret_cast<uintptr_t>(kdt_s_in_buf + (start3_) * 8192)) & 15) == 0;
        if (kdt_async) {
          __syncthreads();
          for (int64_t c_ = kdt_tid; c_ < 2048; c_ += kdt_nt) {
            const int64_t row_ = c_ / 2048, col_ = c_ % 2048;
            (void)row_;
            kdt_cu::cp_async<16>(reinterpret_cast<unsigned char*>(kdt_s_in_buf + (start3_) * 8192) + col_ * 16, reinterpret_cast<const unsigned char*>(x + (start2_ + 0) * 256) + col_ * 16);
          }
          kdt_cu::cp_async_complete_on(kdt_bar_in_sem + (other) * 64 + 8 * kdt_cu::dma_next_slot(kdt_q_in_sem[(other)]));
          kdt_cu::dma_push(kdt_q_in_sem[(other)], 1);
        } else {
          __syncthreads();
          for (int64_t e4_ = kdt_tid; e4_ < 8192; e4_ += kdt_nt) {
            const int64_t i4_0_ = (e4_ / 256);
            (void)i4_0_;
            const int64_t i4_1_ = e4_ % 256;
            (void)i4_1_;
            kdt_s_in_buf[(start3_) * 8192 + (i4_0_) * 256 + (i4_1_)] = x[(start2_ + i4_0_) * 256 + (i4_1_)];
          }
          __syncthreads();
          kdt_cu::dma_push(kdt_q_in_sem[(other)], 0);
        }
      }
    }
#line 40 "samples/dma_pipeline.kd"
    kdt_cu::dma_retire(kdt_q_in_sem[(slot)], kdt_bar_in_sem + (slot) * 64);
#line 43 "samples/dma_pipeline.kd"
    if ((t >= int32_t(2))) {
#line 44 "samples/dma_pipeline.kd"
      kdt_cu::dma_retire(kdt_q_out_sem[(slot)], kdt_bar_out_sem + (slot) * 64);
    }
#line 47 "samples/dma_pipeline.kd"
    const int64_t start5_ = static_cast<int64_t>(slot);
    const int64_t start6_ = static_cast<int64_t>(slot);
    __syncthreads();
    for (int64_t e7_ = kdt_tid; e7_ < 8192; e7_ += kdt_nt) {
      const int64_t i7_0_ = (e7_ / 256);
      (void)i7_0_;
      const int64_t i7_1_ = e7_ % 256;
      (void)i7_1_;
      kdt_s_out_buf[(start6_) * 8192 + (i7_0_) * 256 + (i7_1_)] = kdt_cu::op_add(kdt_cu::op_mul(kdt_cu::maximum(kdt_s_in_buf[(start5_) * 8192 + (i7_0_) * 256 + (i7_1_)], 0x0p+0f), scale), 0x1p+0f);
    }
    __syncthreads();
#line 49 "samples/dma_pipeline.kd"
    {  // DMA: dst = src, 32768 bytes
      const int64_t start8_ = static_cast<int64_t>(slot);
      const int64_t start9_ = static_cast<int64_t>(kdt_cu::op_add(base, kdt_cu::op_mul(t, int32_t(32))));
      __syncthreads();
      for (int64_t e10_ = kdt_tid; e10_ < 8192; e10_ += kdt_nt) {
        const int64_t i10_0_ = (e10_ / 256);
        (void)i10_0_;
        const int64_t i10_1_ = e10_ % 256;
        (void)i10_1_;
        y[(start9_ + i10_0_) * 256 + (i10_1_)] = kdt_s_out_buf[(start8_) * 8192 + (i10_0_) * 256 + (i10_1_)];
      }
      __syncthreads();
      kdt_cu::dma_push(kdt_q_out_sem[(slot)], 0);
    }
#line 50 "samples/dma_pipeline.kd"
    kdt_sem_stored[0] += int32_t(1);
  }
#line 54 "samples/dma_pipeline.kd"
  kdt_cu::dma_retire(kdt_q_out_sem[(int32_t(0))], kdt_bar_out_sem + (int32_t(0)) * 64);
#line 55 "samples/dma_pipeline.kd"
  kdt_cu::dma_retire(kdt_q_out_sem[(int32_t(1))], kdt_bar_out_sem + (int32_t(1)) * 64);
#line 56 "samples/dma_pipeline.kd"
  // assert: checked on the C++ path only
#line 57 "samples/dma_pipeline.kd"
  if (kdt_sem_stored[0] < int32_t(16)) __trap();
  kdt_sem_stored[0] -= int32_t(16);
}

#ifndef __CUDACC_RTC__
constexpr unsigned dma_pipeline_threads = 128;
constexpr unsigned dma_pipeline_blocks = 4;
constexpr size_t dma_pipeline_shared_bytes = 132352;
// Launches `dma_pipeline` on `stream`: device pointers (row-major), scalars by value.
// Returns the launch status (cudaGetLastError after the launch).
inline cudaError_t dma_pipeline(const float* x, float scale, float* y, cudaStream_t stream = 0) {
  if (dma_pipeline_shared_bytes > 48 * 1024) {
    cudaError_t e = cudaFuncSetAttribute(dma_pipeline_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dma_pipeline_shared_bytes));
    if (e != cudaSuccess) return e;
  }
  dma_pipeline_kernel<<<dim3(dma_pipeline_blocks), dim3(dma_pipeline_threads), dma_pipeline_shared_bytes, stream>>>(x, scale, y);
  return cudaGetLastError();
}
#endif  // __CUDACC_RTC__

}  // namespace kdt_kernels
