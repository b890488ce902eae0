namespace kdt_kernels {

// Tensor maps of `matmul` (one per global ref and box shape), encoded by its launcher;
// ok == 0: a map could not be encoded and every DMA copies row by row.
struct matmul_tensor_maps {
  kdt_cu::TensorMap map[3];
  int ok;
};
// Kernel `matmul`: grid [8, 8] = 64 blocks of 128 threads, 99712 bytes of dynamic shared memory.
__global__ void __launch_bounds__(128) matmul_kernel(const float* a, const float* b, float* c, const __grid_constant__ matmul_tensor_maps kdt_tensor_maps)
{
  extern __shared__ __align__(128) unsigned char kdt_smem[];
  const int64_t kdt_tid = threadIdx.x;
  const int64_t kdt_nt = blockDim.x;
  (void)kdt_tid;
  (void)kdt_nt;
  unsigned char* const kdt_red = kdt_smem + 81920;
  (void)kdt_red;
  const int64_t kdt_flat = blockIdx.x;
  const int32_t kdt_pid1 = static_cast<int32_t>(kdt_flat / 1 % 8);
  (void)kdt_pid1;
  const int32_t kdt_pid0 = static_cast<int32_t>(kdt_flat / 8 % 8);
  (void)kdt_pid0;
  float* const kdt_s_a_blocks = reinterpret_cast<float*>(kdt_smem + 0);  // scratch f32[2, 64, 32] @shared
  (void)kdt_s_a_blocks;
  float* const kdt_s_b_blocks = reinterpret_cast<float*>(kdt_smem + 16384);  // scratch f32[2, 32, 64] @shared
  (void)kdt_s_b_blocks;
  float* const kdt_s_c_blocks = reinterpret_cast<float*>(kdt_smem + 32768);  // scratch f32[2, 64, 64] @shared
  (void)kdt_s_c_blocks;
  float* const kdt_s_acc = reinterpret_cast<float*>(kdt_smem + 65536);  // scratch f32[64, 64] @shared
  (void)kdt_s_acc;
  kdt_cu::DmaQueue<1> kdt_q_a_sems[2] = {};
  unsigned char* const kdt_bar_a_sems = kdt_smem + 82944;
  kdt_cu::DmaQueue<1> kdt_q_b_sems[2] = {};
  unsigned char* const kdt_bar_b_sems = kdt_smem + 83072;
  kdt_cu::DmaQueue<1> kdt_q_c_sems[2] = {};
  unsigned char* const kdt_bar_c_sems = kdt_smem + 83200;
  [[maybe_unused]] unsigned kdt_bulk_groups = 0;
  if (kdt_tid == 0) {
    for (int b_ = 0; b_ < 2; ++b_) kdt_cu::mbar_init(kdt_smem + 82944 + 8 * b_);
    for (int b_ = 0; b_ < 2; ++b_) kdt_cu::mbar_init(kdt_smem + 83072 + 8 * b_);
    for (int b_ = 0; b_ < 2; ++b_) kdt_cu::mbar_init(kdt_smem + 83200 + 8 * b_);
    kdt_cu::mbar_init_fence();
  }
  __syncthreads();
#line 21 "samples/block_matmul.kd"
  int32_t i = kdt_pid0;
#line 21
  (void)i;
#line 21
  int32_t j = kdt_pid1;
#line 21
  (void)j;
#line 18
  int32_t a_slot = int32_t(0);
#line 18
  (void)a_slot;
#line 18
  int32_t a_at0 = int32_t(0);
#line 18
  (void)a_at0;
#line 18
  int32_t a_next0 = int32_t(0);
#line 18
  (void)a_next0;
#line 18
  int32_t a_at1 = int32_t(0);
#line 18
  (void)a_at1;
#line 18
  int32_t a_next1 = int32_t(0);
#line 18
  (void)a_next1;
#line 18
  bool a_incoming = false;
#line 18
  (void)a_incoming;
#line 18
  bool a_prefetched = false;
#line 18
  (void)a_prefetched;
  int32_t b_slot = int32_t(0);
#line 19
  (void)b_slot;
#line 19
  int32_t b_at0 = int32_t(0);
#line 19
  (void)b_at0;
#line 19
  int32_t b_next0 = int32_t(0);
#line 19
  (void)b_next0;
#line 19
  int32_t b_at1 = int32_t(0);
#line 19
  (void)b_at1;
#line 19
  int32_t b_next1 = int32_t(0);
#line 19
  (void)b_next1;
#line 19
  bool b_incoming = false;
#line 19
  (void)b_incoming;
#line 19
  bool b_prefetched = false;
#line 19
  (void)b_prefetched;
  int32_t c_slot = int32_t(0);
#line 20
  (void)c_slot;
#line 20
  int32_t c_at0 = int32_t(0);
#line 20
  (void)c_at0;
#line 20
  int32_t c_next0 = int32_t(0);
#line 20
  (void)c_next0;
#line 20
  int32_t c_at1 = int32_t(0);
#line 20
  (void)c_at1;
#line 20
  int32_t c_next1 = int32_t(0);
#line 20
  (void)c_next1;
#line 20
  bool c_changes = false;
#line 20
  (void)c_changes;
#line 20
  bool c_writing = false;
#line 20
  (void)c_writing;
#line 20
  bool c_fresh = true;
#line 20
  (void)c_fresh;
  for (int64_t k_it = int32_t(0); k_it < int32_t(16); k_it += 1) {
#line 21
    const int32_t k = static_cast<int32_t>(k_it);
#line 21
    (void)k;
#line 21
    if ((k == int32_t(0))) {
#line 21
      a_at0 = i;
#line 21
      a_at1 = k;
#line 18
      {  // DMA: dst = src, 8192 bytes
#line 18
        const int64_t start0_ = static_cast<int64_t>(kdt_cu::op_mul(a_at0, int32_t(64)));
#line 18
        const int64_t start1_ = static_cast<int64_t>(kdt_cu::op_mul(a_at1, int32_t(32)));
#line 18
        const int64_t start2_ = static_cast<int64_t>(a_slot);
#line 18
        const bool kdt_bulk = KDT_HAS_BULK && ((reinterpret_cast<uintptr_t>(a + (start0_ + 0) * 512 + (start1_ + 0)) | reinterpret_cast<uintptr_t>(kdt_s_a_blocks + (start2_) * 2048)) & 15) == 0;
#line 18
        if (kdt_bulk) {
#line 18
          kdt_cu::fence_proxy_async_shared();
#line 18
          __syncthreads();
#line 18
          if (kdt_tid == 0) {
#line 18
            kdt_cu::mbar_expect_tx(kdt_bar_a_sems + (a_slot) * 8 + 8 * kdt_cu::dma_next_slot(kdt_q_a_sems[(a_slot)]), 8192u);
#line 18
            if (kdt_tensor_maps.ok && (kdt_cu::smem_addr(kdt_s_a_blocks + (start2_) * 2048) & 127) == 0) {
#line 18
              const int kdt_box[5] = {static_cast<int>(start1_), static_cast<int>(start0_), 0, 0, 0};
#line 18
              kdt_cu::tensor_g2s<2>(kdt_s_a_blocks + (start2_) * 2048, &kdt_tensor_maps.map[0], kdt_box, kdt_bar_a_sems + (a_slot) * 8 + 8 * kdt_cu::dma_next_slot(kdt_q_a_sems[(a_slot)]));
#line 18
            } else {
#line 18
              for (int64_t r0_ = 0; r0_ < 64; ++r0_) {
#line 18
                kdt_cu::bulk_g2s(kdt_s_a_blocks + (start2_) * 2048 + (r0_) * 32, a + (start0_ + r0_) * 512 + (start1_ + 0), 128u, kdt_bar_a_sems + (a_slot) * 8 + 8 * kdt_cu::dma_next_slot(kdt_q_a_sems[(a_slot)]));
#line 18
              }
#line 18
            }
#line 18
          }
#line 18
          kdt_cu::dma_push(kdt_q_a_sems[(a_slot)], 1, "samples/block_matmul.kd:18:39: dma_start on `a_sems`");
#line 18
        } else {
#line 18
          __syncthreads();
#line 18
          for (int64_t e3_ = kdt_tid; e3_ < 2048; e3_ += kdt_nt) {
#line 18
            const int64_t i3_0_ = (e3_ / 32);
#line 18
            (void)i3_0_;
#line 18
            const int64_t i3_1_ = e3_ % 32;
#line 18
            (void)i3_1_;
#line 18
            kdt_s_a_blocks[(start2_) * 2048 + (i3_0_) * 32 + (i3_1_)] = a[(start0_ + i3_0_) * 512 + (start1_ + i3_1_)];
#line 18
          }
#line 18
          __syncthreads();
#line 18
          kdt_cu::dma_push(kdt_q_a_sems[(a_slot)], 0, "samples/block_matmul.kd:18:39: dma_start on `a_sems`");
#line 18
        }
#line 18
      }
#line 21
      a_incoming = true;
#line 21
      b_at0 = k;
#line 21
      b_at1 = j;
#line 19
      {  // DMA: dst = src, 8192 bytes
#line 19
        const int64_t start4_ = static_cast<int64_t>(kdt_cu::op_mul(b_at0, int32_t(32)));
#line 19
        const int64_t start5_ = static_cast<int64_t>(kdt_cu::op_mul(b_at1, int32_t(64)));
#line 19
        const int64_t start6_ = static_cast<int64_t>(b_slot);
#line 19
        const bool kdt_bulk = KDT_HAS_BULK && ((reinterpret_cast<uintptr_t>(b + (start4_ + 0) * 512 + (start5_ + 0)) | reinterpret_cast<uintptr_t>(kdt_s_b_blocks + (start6_) * 2048)) & 15) == 0;
#line 19
        if (kdt_bulk) {
#line 19
          kdt_cu::fence_proxy_async_shared();
#line 19
          __syncthreads();
#line 19
          if (kdt_tid == 0) {
#line 19
            kdt_cu::mbar_expect_tx(kdt_bar_b_sems + (b_slot) * 8 + 8 * kdt_cu::dma_next_slot(kdt_q_b_sems[(b_slot)]), 8192u);
#line 19
            if (kdt_tensor_maps.ok && (kdt_cu::smem_addr(kdt_s_b_blocks + (start6_) * 2048) & 127) == 0) {
#line 19
              const int kdt_box[5] = {static_cast<int>(start5_), static_cast<int>(start4_), 0, 0, 0};
#line 19
              kdt_cu::tensor_g2s<2>(kdt_s_b_blocks + (start6_) * 2048, &kdt_tensor_maps.map[1], kdt_box, kdt_bar_b_sems + (b_slot) * 8 + 8 * kdt_cu::dma_next_slot(kdt_q_b_sems[(b_slot)]));
#line 19
            } else {
#line 19
              for (int64_t r0_ = 0; r0_ < 32; ++r0_) {
#line 19
                kdt_cu::bulk_g2s(kdt_s_b_blocks + (start6_) * 2048 + (r0_) * 64, b + (start4_ + r0_) * 512 + (start5_ + 0), 256u, kdt_bar_b_sems + (b_slot) * 8 + 8 * kdt_cu::dma_next_slot(kdt_q_b_sems[(b_slot)]));
#line 19
              }
#line 19
            }
#line 19
          }
#line 19
          kdt_cu::dma_push(kdt_q_b_sems[(b_slot)], 1, "samples/block_matmul.kd:19:39: dma_start on `b_sems`");
#line 19
        } else {
#line 19
          __syncthreads();
#line 19
          for (int64_t e7_ = kdt_tid; e7_ < 2048; e7_ += kdt_nt) {
#line 19
            const int64_t i7_0_ = (e7_ / 64);
#line 19
            (void)i7_0_;
#line 19
            const int64_t i7_1_ = e7_ % 64;
#line 19
            (void)i7_1_;
#line 19
            kdt_s_b_blocks[(start6_) * 2048 + (i7_0_) * 64 + (i7_1_)] = b[(start4_ + i7_0_) * 512 + (start5_ + i7_1_)];
#line 19
          }
#line 19
          __syncthreads();
#line 19
          kdt_cu::dma_push(kdt_q_b_sems[(b_slot)], 0, "samples/block_matmul.kd:19:39: dma_start on `b_sems`");
#line 19
        }
#line 19
      }
#line 21
      b_incoming = true;
#line 21
      c_at0 = i;
#line 21
      c_at1 = j;
#line 21
    }
#line 18
    if (a_incoming) {
#line 18
      kdt_cu::dma_retire(kdt_q_a_sems[(a_slot)], kdt_bar_a_sems + (a_slot) * 8, "samples/block_matmul.kd:18:39: dma_wait on `a_sems`", kdt_bulk_groups);
#line 18
      a_incoming = false;
#line 18
    }
    if (b_incoming) {
#line 19
      kdt_cu::dma_retire(kdt_q_b_sems[(b_slot)], kdt_bar_b_sems + (b_slot) * 8, "samples/block_matmul.kd:19:39: dma_wait on `b_sems`", kdt_bulk_groups);
#line 19
      b_incoming = false;
#line 19
    }
    if (c_fresh) {
#line 20
      c_fresh = false;
#line 20
    }
    if ((kdt_cu::op_add(k, int32_t(1)) < int32_t(16))) {
#line 21
      int32_t k_next = kdt_cu::op_add(k, int32_t(1));
#line 21
      (void)k_next;
#line 18
      a_next0 = i;
#line 18
      a_next1 = k_next;
#line 18
      if (((a_next0 != a_at0) || (a_next1 != a_at1))) {
#line 18
        {  // DMA: dst = src, 8192 bytes
#line 18
          const int64_t start8_ = static_cast<int64_t>(kdt_cu::op_mul(a_next0, int32_t(64)));
#line 18
          const int64_t start9_ = static_cast<int64_t>(kdt_cu::op_mul(a_next1, int32_t(32)));
#line 18
          const int64_t start10_ = static_cast<int64_t>(kdt_cu::op_sub(int32_t(1), a_slot));
#line 18
          const bool kdt_bulk = KDT_HAS_BULK && ((reinterpret_cast<uintptr_t>(a + (start8_ + 0) * 512 + (start9_ + 0)) | reinterpret_cast<uintptr_t>(kdt_s_a_blocks + (start10_) * 2048)) & 15) == 0;
#line 18
          if (kdt_bulk) {
#line 18
            kdt_cu::fence_proxy_async_shared();
#line 18
            __syncthreads();
#line 18
            if (kdt_tid == 0) {
#line 18
              kdt_cu::mbar_expect_tx(kdt_bar_a_sems + (kdt_cu::op_sub(int32_t(1), a_slot)) * 8 + 8 * kdt_cu::dma_next_slot(kdt_q_a_sems[(kdt_cu::op_sub(int32_t(1), a_slot))]), 8192u);
#line 18
              if (kdt_tensor_maps.ok && (kdt_cu::smem_addr(kdt_s_a_blocks + (start10_) * 2048) & 127) == 0) {
#line 18
                const int kdt_box[5] = {static_cast<int>(start9_), static_cast<int>(start8_), 0, 0, 0};
#line 18
                kdt_cu::tensor_g2s<2>(kdt_s_a_blocks + (start10_) * 2048, &kdt_tensor_maps.map[0], kdt_box, kdt_bar_a_sems + (kdt_cu::op_sub(int32_t(1), a_slot)) * 8 + 8 * kdt_cu::dma_next_slot(kdt_q_a_sems[(kdt_cu::op_sub(int32_t(1), a_slot))]));
#line 18
              } else {
#line 18
                for (int64_t r0_ = 0; r0_ < 64; ++r0_) {
#line 18
                  kdt_cu::bulk_g2s(kdt_s_a_blocks + (start10_) * 2048 + (r0_) * 32, a + (start8_ + r0_) * 512 + (start9_ + 0), 128u, kdt_bar_a_sems + (kdt_cu::op_sub(int32_t(1), a_slot)) * 8 + 8 * kdt_cu::dma_next_slot(kdt_q_a_sems[(kdt_cu::op_sub(int32_t(1), a_slot))]));
#line 18
                }
#line 18
              }
#line 18
            }
#line 18
            kdt_cu::dma_push(kdt_q_a_sems[(kdt_cu::op_sub(int32_t(1), a_slot))], 1, "samples/block_matmul.kd:18:39: dma_start on `a_sems`");
#line 18
          } else {
#line 18
            __syncthreads();
#line 18
            for (int64_t e11_ = kdt_tid; e11_ < 2048; e11_ += kdt_nt) {
#line 18
              const int64_t i11_0_ = (e11_ / 32);
#line 18
              (void)i11_0_;
#line 18
              const int64_t i11_1_ = e11_ % 32;
#line 18
              (void)i11_1_;
#line 18
              kdt_s_a_blocks[(start10_) * 2048 + (i11_0_) * 32 + (i11_1_)] = a[(start8_ + i11_0_) * 512 + (start9_ + i11_1_)];
#line 18
            }
#line 18
            __syncthreads();
#line 18
            kdt_cu::dma_push(kdt_q_a_sems[(kdt_cu::op_sub(int32_t(1), a_slot))], 0, "samples/block_matmul.kd:18:39: dma_start on `a_sems`");
#line 18
          }
#line 18
        }
#line 18
        a_prefetched = true;
#line 18
      }
      b_next0 = k_next;
#line 19
      b_next1 = j;
#line 19
      if (((b_next0 != b_at0) || (b_next1 != b_at1))) {
#line 19
        {  // DMA: dst = src, 8192 bytes
#line 19
          const int64_t start12_ = static_cast<int64_t>(kdt_cu::op_mul(b_next0, int32_t(32)));
#line 19
          const int64_t start13_ = static_cast<int64_t>(kdt_cu::op_mul(b_next1, int32_t(64)));
#line 19
          const int64_t start14_ = static_cast<int64_t>(kdt_cu::op_sub(int32_t(1), b_slot));
#line 19
          const bool kdt_bulk = KDT_HAS_BULK && ((reinterpret_cast<uintptr_t>(b + (start12_ + 0) * 512 + (start13_ + 0)) | reinterpret_cast<uintptr_t>(kdt_s_b_blocks + (start14_) * 2048)) & 15) == 0;
#line 19
          if (kdt_bulk) {
#line 19
            kdt_cu::fence_proxy_async_shared();
#line 19
            __syncthreads();
#line 19
            if (kdt_tid == 0) {
#line 19
              kdt_cu::mbar_expect_tx(kdt_bar_b_sems + (kdt_cu::op_sub(int32_t(1), b_slot)) * 8 + 8 * kdt_cu::dma_next_slot(kdt_q_b_sems[(kdt_cu::op_sub(int32_t(1), b_slot))]), 8192u);
#line 19
              if (kdt_tensor_maps.ok && (kdt_cu::smem_addr(kdt_s_b_blocks + (start14_) * 2048) & 127) == 0) {
#line 19
                const int kdt_box[5] = {static_cast<int>(start13_), static_cast<int>(start12_), 0, 0, 0};
#line 19
                kdt_cu::tensor_g2s<2>(kdt_s_b_blocks + (start14_) * 2048, &kdt_tensor_maps.map[1], kdt_box, kdt_bar_b_sems + (kdt_cu::op_sub(int32_t(1), b_slot)) * 8 + 8 * kdt_cu::dma_next_slot(kdt_q_b_sems[(kdt_cu::op_sub(int32_t(1), b_slot))]));
#line 19
              } else {
#line 19
                for (int64_t r0_ = 0; r0_ < 32; ++r0_) {
#line 19
                  kdt_cu::bulk_g2s(kdt_s_b_blocks + (start14_) * 2048 + (r0_) * 64, b + (start12_ + r0_) * 512 + (start13_ + 0), 256u, kdt_bar_b_sems + (kdt_cu::op_sub(int32_t(1), b_slot)) * 8 + 8 * kdt_cu::dma_next_slot(kdt_q_b_sems[(kdt_cu::op_sub(int32_t(1), b_slot))]));
#line 19
                }
#line 19
              }
#line 19
            }
#line 19
            kdt_cu::dma_push(kdt_q_b_sems[(kdt_cu::op_sub(int32_t(1), b_slot))], 1, "samples/block_matmul.kd:19:39: dma_start on `b_sems`");
#line 19
          } else {
#line 19
            __syncthreads();
#line 19
            for (int64_t e15_ = kdt_tid; e15_ < 2048; e15_ += kdt_nt) {
#line 19
              const int64_t i15_0_ = (e15_ / 64);
#line 19
              (void)i15_0_;
#line 19
              const int64_t i15_1_ = e15_ % 64;
#line 19
              (void)i15_1_;
#line 19
              kdt_s_b_blocks[(start14_) * 2048 + (i15_0_) * 64 + (i15_1_)] = b[(start12_ + i15_0_) * 512 + (start13_ + i15_1_)];
#line 19
            }
#line 19
            __syncthreads();
#line 19
            kdt_cu::dma_push(kdt_q_b_sems[(kdt_cu::op_sub(int32_t(1), b_slot))], 0, "samples/block_matmul.kd:19:39: dma_start on `b_sems`");
#line 19
          }
#line 19
        }
#line 19
        b_prefetched = true;
#line 19
      }
      c_next0 = i;
#line 20
      c_next1 = j;
#line 20
      c_changes = ((c_next0 != c_at0) || (c_next1 != c_at1));
#line 20
    }
#line 24
    if ((k == int32_t(0))) {
#line 24
      __syncthreads();
#line 24
      for (int64_t e16_ = kdt_tid; e16_ < 4096; e16_ += kdt_nt) {
#line 24
        const int64_t i16_0_ = (e16_ / 64);
#line 24
        (void)i16_0_;
#line 24
        const int64_t i16_1_ = e16_ % 64;
#line 24
        (void)i16_1_;
#line 24
        kdt_s_acc[(i16_0_) * 64 + (i16_1_)] = 0x0p+0f;
#line 24
      }
#line 24
      __syncthreads();
#line 24
    }
    const int64_t start18_ = static_cast<int64_t>(a_slot);
#line 25
    const int64_t start19_ = static_cast<int64_t>(b_slot);
#line 25
    float* const t17_ = reinterpret_cast<float*>(kdt_smem + 83328);
#line 25
    __syncthreads();
#line 25
    for (int64_t o_ = kdt_tid; o_ < 4096; o_ += kdt_nt) {
#line 25
      const int64_t r_ = o_ / 64, c_ = o_ % 64;
#line 25
      float acc_ = float();
#line 25
      for (int64_t k_ = 0; k_ < 32; ++k_) acc_ = kdt_cu::op_add(acc_, kdt_cu::op_mul((kdt_s_a_blocks + (start18_) * 2048)[r_ * 32 + k_], (kdt_s_b_blocks + (start19_) * 2048)[k_ * 64 + c_]));
#line 25
      t17_[o_] = acc_;
#line 25
    }
#line 25
    __syncthreads();
#line 25
    for (int64_t e20_ = kdt_tid; e20_ < 4096; e20_ += kdt_nt) {
#line 25
      const int64_t i20_0_ = (e20_ / 64);
#line 25
      (void)i20_0_;
#line 25
      const int64_t i20_1_ = e20_ % 64;
#line 25
      (void)i20_1_;
#line 25
      kdt_s_acc[(i20_0_) * 64 + (i20_1_)] = kdt_cu::op_add(kdt_s_acc[(i20_0_) * 64 + (i20_1_)], t17_[e20_]);
#line 25
    }
#line 25
    __syncthreads();
    if ((k == kdt_cu::op_sub(int32_t(16), int32_t(1)))) {
#line 26
      const int64_t start21_ = static_cast<int64_t>(c_slot);
#line 26
      __syncthreads();
#line 26
      for (int64_t e22_ = kdt_tid; e22_ < 4096; e22_ += kdt_nt) {
#line 26
        const int64_t i22_0_ = (e22_ / 64);
#line 26
        (void)i22_0_;
#line 26
        const int64_t i22_1_ = e22_ % 64;
#line 26
        (void)i22_1_;
#line 26
        kdt_s_c_blocks[(start21_) * 4096 + (i22_0_) * 64 + (i22_1_)] = kdt_s_acc[(i22_0_) * 64 + (i22_1_)];
#line 26
      }
#line 26
      __syncthreads();
#line 26
    }
#line 18
    if (a_prefetched) {
#line 18
      a_slot = kdt_cu::op_sub(int32_t(1), a_slot);
#line 18
      a_at0 = a_next0;
#line 18
      a_at1 = a_next1;
#line 18
      a_incoming = true;
#line 18
      a_prefetched = false;
#line 18
    }
    if (b_prefetched) {
#line 19
      b_slot = kdt_cu::op_sub(int32_t(1), b_slot);
#line 19
      b_at0 = b_next0;
#line 19
      b_at1 = b_next1;
#line 19
      b_incoming = true;
#line 19
      b_prefetched = false;
#line 19
    }
    if (((k == int32_t(15)) || c_changes)) {
#line 20
      {  // DMA: dst = src, 16384 bytes
#line 20
        const int64_t start23_ = static_cast<int64_t>(c_slot);
#line 20
        const int64_t start24_ = static_cast<int64_t>(kdt_cu::op_mul(c_at0, int32_t(64)));
#line 20
        const int64_t start25_ = static_cast<int64_t>(kdt_cu::op_mul(c_at1, int32_t(64)));
#line 20
        const bool kdt_bulk = KDT_HAS_BULK && ((reinterpret_cast<uintptr_t>(kdt_s_c_blocks + (start23_) * 4096) | reinterpret_cast<uintptr_t>(c + (start24_ + 0) * 512 + (start25_ + 0))) & 15) == 0;
#line 20
        if (kdt_bulk) {
#line 20
          kdt_cu::fence_proxy_async_shared();
#line 20
          __syncthreads();
#line 20
          if (kdt_tid == 0) {
#line 20
            if (kdt_tensor_maps.ok && (kdt_cu::smem_addr(kdt_s_c_blocks + (start23_) * 4096) & 127) == 0) {
#line 20
              const int kdt_box[5] = {static_cast<int>(start25_), static_cast<int>(start24_), 0, 0, 0};
#line 20
              kdt_cu::tensor_s2g<2, false>(&kdt_tensor_maps.map[2], kdt_box, kdt_s_c_blocks + (start23_) * 4096);
#line 20
            } else {
#line 20
              for (int64_t r0_ = 0; r0_ < 64; ++r0_) {
#line 20
                kdt_cu::bulk_s2g(c + (start24_ + r0_) * 512 + (start25_ + 0), kdt_s_c_blocks + (start23_) * 4096 + (r0_) * 64, 256u);
#line 20
              }
#line 20
            }
#line 20
            kdt_cu::bulk_commit();
#line 20
          }
#line 20
          kdt_cu::dma_push(kdt_q_c_sems[(c_slot)], 2, "samples/block_matmul.kd:20:40: dma_start on `c_sems`", ++kdt_bulk_groups);
#line 20
        } else {
#line 20
          __syncthreads();
#line 20
          for (int64_t e26_ = kdt_tid; e26_ < 4096; e26_ += kdt_nt) {
#line 20
            const int64_t i26_0_ = (e26_ / 64);
#line 20
            (void)i26_0_;
#line 20
            const int64_t i26_1_ = e26_ % 64;
#line 20
            (void)i26_1_;
#line 20
            c[(start24_ + i26_0_) * 512 + (start25_ + i26_1_)] = kdt_s_c_blocks[(start23_) * 4096 + (i26_0_) * 64 + (i26_1_)];
#line 20
          }
#line 20
          __syncthreads();
#line 20
          kdt_cu::dma_push(kdt_q_c_sems[(c_slot)], 0, "samples/block_matmul.kd:20:40: dma_start on `c_sems`");
#line 20
        }
#line 20
      }
#line 20
      if (c_writing) {
#line 20
        kdt_cu::dma_retire(kdt_q_c_sems[(kdt_cu::op_sub(int32_t(1), c_slot))], kdt_bar_c_sems + (kdt_cu::op_sub(int32_t(1), c_slot)) * 8, "samples/block_matmul.kd:20:40: dma_wait on `c_sems`", kdt_bulk_groups);
#line 20
      }
#line 20
      c_writing = true;
#line 20
      c_slot = kdt_cu::op_sub(int32_t(1), c_slot);
#line 20
      c_at0 = c_next0;
#line 20
      c_at1 = c_next1;
#line 20
      c_fresh = true;
#line 20
    }
  }
#line 21
  if (c_writing) {
#line 20
    kdt_cu::dma_retire(kdt_q_c_sems[(kdt_cu::op_sub(int32_t(1), c_slot))], kdt_bar_c_sems + (kdt_cu::op_sub(int32_t(1), c_slot)) * 8, "samples/block_matmul.kd:20:40: dma_wait on `c_sems`", kdt_bulk_groups);
#line 20
  }
#line 27
}
#line 2123 "<stdout>"

#ifndef __CUDACC_RTC__
constexpr unsigned matmul_threads = 128;
constexpr unsigned matmul_blocks = 64;
constexpr size_t matmul_shared_bytes = 99712;
// Launches `matmul` on `stream`: device pointers (row-major), scalars by value.
// Returns the launch status (cudaGetLastError after the launch).
inline cudaError_t matmul(const float* a, const float* b, float* c, cudaStream_t stream = 0) {
  if (cudaError_t e = kdt_cu::shared_memory_fits("matmul", kdt_kernels::matmul_shared_bytes); e != cudaSuccess) return e;
  if (kdt_kernels::matmul_shared_bytes > 48 * 1024) {
    cudaError_t e = cudaFuncSetAttribute(kdt_kernels::matmul_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kdt_kernels::matmul_shared_bytes));
    if (e != cudaSuccess) return e;
  }
  kdt_kernels::matmul_tensor_maps kdt_tensor_maps{};
  kdt_tensor_maps.ok = 1;
  {  // `a`, boxes of [64, 32]
    const cuuint64_t dims[] = {512u, 512u}, strides[] = {2048u};
    const cuuint32_t box[] = {32u, 64u};
    kdt_tensor_maps.ok &= kdt_cu::encode_tensor_map(&kdt_tensor_maps.map[0], a, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dims, strides, box, "matmul", "a");
  }
  {  // `b`, boxes of [32, 64]
    const cuuint64_t dims[] = {512u, 512u}, strides[] = {2048u};
    const cuuint32_t box[] = {64u, 32u};
    kdt_tensor_maps.ok &= kdt_cu::encode_tensor_map(&kdt_tensor_maps.map[1], b, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dims, strides, box, "matmul", "b");
  }
  {  // `c`, boxes of [64, 64]
    const cuuint64_t dims[] = {512u, 512u}, strides[] = {2048u};
    const cuuint32_t box[] = {64u, 64u};
    kdt_tensor_maps.ok &= kdt_cu::encode_tensor_map(&kdt_tensor_maps.map[2], c, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dims, strides, box, "matmul", "c");
  }
  kdt_kernels::matmul_kernel<<<dim3(kdt_kernels::matmul_blocks), dim3(kdt_kernels::matmul_threads), kdt_kernels::matmul_shared_bytes, stream>>>(a, b, c, kdt_tensor_maps);
  return cudaGetLastError();
}
#endif  // __CUDACC_RTC__

}  // namespace kdt_kernels
