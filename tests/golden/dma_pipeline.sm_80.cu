namespace kdt_kernels {

// Kernel `dma_pipeline`: grid [4] = 4 blocks of 128 threads, 132240 bytes of dynamic shared memory.
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
  kdt_cu::DmaQueue<1> kdt_q_in_sem[2] = {};
  unsigned char* const kdt_bar_in_sem = kdt_smem + 132096;
  kdt_cu::DmaQueue<1> kdt_q_out_sem[2] = {};
  unsigned char* const kdt_bar_out_sem = kdt_smem + 132224;
  int32_t kdt_sem_stored[1] = {};
  [[maybe_unused]] unsigned kdt_bulk_groups = 0;
  if (kdt_tid == 0) {
    for (int b_ = 0; b_ < 2; ++b_) kdt_cu::mbar_init(kdt_smem + 132096 + 8 * b_);
    for (int b_ = 0; b_ < 2; ++b_) kdt_cu::mbar_init(kdt_smem + 132224 + 8 * b_);
    kdt_cu::mbar_init_fence();
  }
  __syncthreads();
#line 27 "samples/dma_pipeline.kd"
  // assert: checked on the C++ path only
  int32_t base = kdt_cu::op_mul(kdt_pid0, int32_t(512));
#line 28
  (void)base;
#line 31
  {  // DMA: dst = src, 32768 bytes
#line 31
    const int64_t start0_ = static_cast<int64_t>(base);
#line 31
    const bool kdt_async = KDT_HAS_CP_ASYNC && ((reinterpret_cast<uintptr_t>(x + (start0_ + 0) * 256) | reinterpret_cast<uintptr_t>(kdt_s_in_buf + 0)) & 15) == 0;
#line 31
    if (kdt_async) {
#line 31
      __syncthreads();
#line 31
      for (int64_t c_ = kdt_tid; c_ < 2048; c_ += kdt_nt) {
#line 31
        const int64_t row_ = c_ / 2048, col_ = c_ % 2048;
#line 31
        (void)row_;
#line 31
        kdt_cu::cp_async<16>(reinterpret_cast<unsigned char*>(kdt_s_in_buf + 0) + col_ * 16, reinterpret_cast<const unsigned char*>(x + (start0_ + 0) * 256) + col_ * 16);
#line 31
      }
#line 31
      kdt_cu::cp_async_complete_on(kdt_bar_in_sem + (int32_t(0)) * 8 + 8 * kdt_cu::dma_next_slot(kdt_q_in_sem[(int32_t(0))]));
#line 31
      kdt_cu::dma_push(kdt_q_in_sem[(int32_t(0))], 1, "samples/dma_pipeline.kd:31:5: dma_start on `in_sem`");
#line 31
    } else {
#line 31
      __syncthreads();
#line 31
      for (int64_t e1_ = kdt_tid; e1_ < 8192; e1_ += kdt_nt) {
#line 31
        const int64_t i1_0_ = (e1_ / 256);
#line 31
        (void)i1_0_;
#line 31
        const int64_t i1_1_ = e1_ % 256;
#line 31
        (void)i1_1_;
#line 31
        kdt_s_in_buf[(i1_0_) * 256 + (i1_1_)] = x[(start0_ + i1_0_) * 256 + (i1_1_)];
#line 31
      }
#line 31
      __syncthreads();
#line 31
      kdt_cu::dma_push(kdt_q_in_sem[(int32_t(0))], 0, "samples/dma_pipeline.kd:31:5: dma_start on `in_sem`");
#line 31
    }
#line 31
  }
#line 33
  for (int64_t t_it = int32_t(0); t_it < int32_t(16); t_it += 1) {
#line 33
    const int32_t t = static_cast<int32_t>(t_it);
#line 33
    (void)t;
    int32_t slot = kdt_cu::int_rem<int32_t>(t, int32_t(2));
#line 34
    (void)slot;
    int32_t other = kdt_cu::op_sub(int32_t(1), slot);
#line 35
    (void)other;
#line 37
    if ((kdt_cu::op_add(t, int32_t(1)) < int32_t(16))) {
      {  // DMA: dst = src, 32768 bytes
#line 38
        const int64_t start2_ = static_cast<int64_t>(kdt_cu::op_add(base, kdt_cu::op_mul(kdt_cu::op_add(t, int32_t(1)), int32_t(32))));
#line 38
        const int64_t start3_ = static_cast<int64_t>(other);
#line 38
        const bool kdt_async = KDT_HAS_CP_ASYNC && ((reinterpret_cast<uintptr_t>(x + (start2_ + 0) * 256) | reinterpret_cast<uintptr_t>(kdt_s_in_buf + (start3_) * 8192)) & 15) == 0;
#line 38
        if (kdt_async) {
#line 38
          __syncthreads();
#line 38
          for (int64_t c_ = kdt_tid; c_ < 2048; c_ += kdt_nt) {
#line 38
            const int64_t row_ = c_ / 2048, col_ = c_ % 2048;
#line 38
            (void)row_;
#line 38
            kdt_cu::cp_async<16>(reinterpret_cast<unsigned char*>(kdt_s_in_buf + (start3_) * 8192) + col_ * 16, reinterpret_cast<const unsigned char*>(x + (start2_ + 0) * 256) + col_ * 16);
#line 38
          }
#line 38
          kdt_cu::cp_async_complete_on(kdt_bar_in_sem + (other) * 8 + 8 * kdt_cu::dma_next_slot(kdt_q_in_sem[(other)]));
#line 38
          kdt_cu::dma_push(kdt_q_in_sem[(other)], 1, "samples/dma_pipeline.kd:38:13: dma_start on `in_sem`");
#line 38
        } else {
#line 38
          __syncthreads();
#line 38
          for (int64_t e4_ = kdt_tid; e4_ < 8192; e4_ += kdt_nt) {
#line 38
            const int64_t i4_0_ = (e4_ / 256);
#line 38
            (void)i4_0_;
#line 38
            const int64_t i4_1_ = e4_ % 256;
#line 38
            (void)i4_1_;
#line 38
            kdt_s_in_buf[(start3_) * 8192 + (i4_0_) * 256 + (i4_1_)] = x[(start2_ + i4_0_) * 256 + (i4_1_)];
#line 38
          }
#line 38
          __syncthreads();
#line 38
          kdt_cu::dma_push(kdt_q_in_sem[(other)], 0, "samples/dma_pipeline.kd:38:13: dma_start on `in_sem`");
#line 38
        }
#line 38
      }
#line 38
    }
#line 40
    kdt_cu::dma_retire(kdt_q_in_sem[(slot)], kdt_bar_in_sem + (slot) * 8, "samples/dma_pipeline.kd:40:9: dma_wait on `in_sem`", kdt_bulk_groups);
#line 43
    if ((t >= int32_t(2))) {
      kdt_cu::dma_retire(kdt_q_out_sem[(slot)], kdt_bar_out_sem + (slot) * 8, "samples/dma_pipeline.kd:44:13: dma_wait on `out_sem`", kdt_bulk_groups);
#line 44
    }
#line 47
    const int64_t start5_ = static_cast<int64_t>(slot);
#line 47
    const int64_t start6_ = static_cast<int64_t>(slot);
#line 47
    __syncthreads();
#line 47
    for (int64_t e7_ = kdt_tid; e7_ < 8192; e7_ += kdt_nt) {
#line 47
      const int64_t i7_0_ = (e7_ / 256);
#line 47
      (void)i7_0_;
#line 47
      const int64_t i7_1_ = e7_ % 256;
#line 47
      (void)i7_1_;
#line 47
      kdt_s_out_buf[(start6_) * 8192 + (i7_0_) * 256 + (i7_1_)] = kdt_cu::op_add(kdt_cu::op_mul(kdt_cu::maximum(kdt_s_in_buf[(start5_) * 8192 + (i7_0_) * 256 + (i7_1_)], 0x0p+0f), scale), 0x1p+0f);
#line 47
    }
#line 47
    __syncthreads();
#line 49
    {  // DMA: dst = src, 32768 bytes
#line 49
      const int64_t start8_ = static_cast<int64_t>(slot);
#line 49
      const int64_t start9_ = static_cast<int64_t>(kdt_cu::op_add(base, kdt_cu::op_mul(t, int32_t(32))));
#line 49
      __syncthreads();
#line 49
      for (int64_t e10_ = kdt_tid; e10_ < 8192; e10_ += kdt_nt) {
#line 49
        const int64_t i10_0_ = (e10_ / 256);
#line 49
        (void)i10_0_;
#line 49
        const int64_t i10_1_ = e10_ % 256;
#line 49
        (void)i10_1_;
#line 49
        y[(start9_ + i10_0_) * 256 + (i10_1_)] = kdt_s_out_buf[(start8_) * 8192 + (i10_0_) * 256 + (i10_1_)];
#line 49
      }
#line 49
      __syncthreads();
#line 49
      kdt_cu::dma_push(kdt_q_out_sem[(slot)], 0, "samples/dma_pipeline.kd:49:9: dma_start on `out_sem`");
#line 49
    }
    kdt_sem_stored[0] += int32_t(1);
#line 33
  }
#line 54
  kdt_cu::dma_retire(kdt_q_out_sem[(int32_t(0))], kdt_bar_out_sem + (int32_t(0)) * 8, "samples/dma_pipeline.kd:54:5: dma_wait on `out_sem`", kdt_bulk_groups);
  kdt_cu::dma_retire(kdt_q_out_sem[(int32_t(1))], kdt_bar_out_sem + (int32_t(1)) * 8, "samples/dma_pipeline.kd:55:5: dma_wait on `out_sem`", kdt_bulk_groups);
  // assert: checked on the C++ path only
  if (kdt_sem_stored[0] < int32_t(16)) kdt_cu::fail("samples/dma_pipeline.kd:57:5: sem_wait on `stored`", "nothing else can raise this semaphore: a deadlock");
#line 57
  kdt_sem_stored[0] -= int32_t(16);
}
#line 1662 "<stdout>"

#ifndef __CUDACC_RTC__
constexpr unsigned dma_pipeline_threads = 128;
constexpr unsigned dma_pipeline_blocks = 4;
constexpr size_t dma_pipeline_shared_bytes = 132240;
// Launches `dma_pipeline` on `stream`: device pointers (row-major), scalars by value.
// Returns the launch status (cudaGetLastError after the launch).
inline cudaError_t dma_pipeline(const float* x, float scale, float* y, cudaStream_t stream = 0) {
  if (cudaError_t e = kdt_cu::shared_memory_fits("dma_pipeline", kdt_kernels::dma_pipeline_shared_bytes); e != cudaSuccess) return e;
  if (kdt_kernels::dma_pipeline_shared_bytes > 48 * 1024) {
    cudaError_t e = cudaFuncSetAttribute(kdt_kernels::dma_pipeline_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kdt_kernels::dma_pipeline_shared_bytes));
    if (e != cudaSuccess) return e;
  }
  kdt_kernels::dma_pipeline_kernel<<<dim3(kdt_kernels::dma_pipeline_blocks), dim3(kdt_kernels::dma_pipeline_threads), kdt_kernels::dma_pipeline_shared_bytes, stream>>>(x, scale, y);
  return cudaGetLastError();
}
#endif  // __CUDACC_RTC__

}  // namespace kdt_kernels
