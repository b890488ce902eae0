namespace kdt_kernels {

// Peer table of `mesh_allreduce`: entry d is device d's copy (peer access enabled by the caller).
struct mesh_allreduce_peers {
  float* hbm[8];
  unsigned long long* sync[8];  // sync buffers (mesh_allreduce_sync_bytes each)
};
// Kernel `mesh_allreduce`: grid [2] = 2 blocks of 128 threads, 5256 bytes of dynamic shared memory.
__global__ void __launch_bounds__(128) mesh_allreduce_kernel(const float* data, float* out, float* hbm, const mesh_allreduce_peers kdt_peers, const int32_t kdt_device)
{
  extern __shared__ __align__(128) unsigned char kdt_smem[];
  const int64_t kdt_tid = threadIdx.x;
  const int64_t kdt_nt = blockDim.x;
  (void)kdt_tid;
  (void)kdt_nt;
  unsigned char* const kdt_red = kdt_smem + 4096;
  (void)kdt_red;
  const int64_t kdt_flat = blockIdx.x;
  const int32_t kdt_pid0 = static_cast<int32_t>(kdt_flat / 1 % 2);
  (void)kdt_pid0;
  float* const kdt_s_receive_scratch = reinterpret_cast<float*>(kdt_smem + 0);  // scratch f32[8, 128] @shared
  (void)kdt_s_receive_scratch;
  // semaphore `barrier`: counters in the sync buffer (other devices raise it)
  // semaphore `capacity`: counters in the sync buffer (other devices raise it)
  // semaphore `recv`: counters in the sync buffer (other devices raise it)
  kdt_cu::DmaQueue<1> kdt_q_send[2] = {};
  unsigned char* const kdt_bar_send = kdt_smem + 5120;
  kdt_cu::DmaQueue<1> kdt_q_copy_sem[1] = {};
  unsigned char* const kdt_bar_copy_sem = kdt_smem + 5248;
  [[maybe_unused]] unsigned kdt_bulk_groups = 0;
  if (kdt_tid == 0) {
    for (int b_ = 0; b_ < 2; ++b_) kdt_cu::mbar_init(kdt_smem + 5120 + 8 * b_);
    for (int b_ = 0; b_ < 1; ++b_) kdt_cu::mbar_init(kdt_smem + 5248 + 8 * b_);
    kdt_cu::mbar_init_fence();
  }
  __syncthreads();
#line 80 "samples/mesh_allreduce.kd"
  int32_t c0 = kdt_cu::op_mul(kdt_pid0, int32_t(128));
#line 80
  (void)c0;
  int32_t me = kdt_device;
#line 81
  (void)me;
#line 84
  int32_t ny = int32_t(4);
#line 84
  (void)ny;
  int32_t right_y = kdt_cu::int_rem<int32_t>(kdt_cu::op_add(kdt_cu::int_rem<int32_t>(kdt_device, int32_t(4)), int32_t(1)), ny);
#line 85
  (void)right_y;
  int32_t left_y = kdt_cu::int_rem<int32_t>(kdt_cu::op_sub(kdt_cu::op_add(kdt_cu::int_rem<int32_t>(kdt_device, int32_t(4)), ny), int32_t(1)), ny);
#line 86
  (void)left_y;
  int32_t right_y_id = kdt_cu::op_add(kdt_cu::op_sub(me, kdt_cu::int_rem<int32_t>(kdt_device, int32_t(4))), right_y);
#line 87
  (void)right_y_id;
  int32_t left_y_id = kdt_cu::op_add(kdt_cu::op_sub(me, kdt_cu::int_rem<int32_t>(kdt_device, int32_t(4))), left_y);
#line 88
  (void)left_y_id;
#line 90
  int32_t nx = int32_t(2);
#line 90
  (void)nx;
  int32_t right_x = kdt_cu::int_rem<int32_t>(kdt_cu::op_add(kdt_cu::int_div<int32_t>(kdt_device, int32_t(4)), int32_t(1)), nx);
#line 91
  (void)right_x;
  int32_t left_x = kdt_cu::int_rem<int32_t>(kdt_cu::op_sub(kdt_cu::op_add(kdt_cu::int_div<int32_t>(kdt_device, int32_t(4)), nx), int32_t(1)), nx);
#line 92
  (void)left_x;
  int32_t right_x_id = kdt_cu::op_add(me, kdt_cu::op_mul(kdt_cu::op_sub(right_x, kdt_cu::int_div<int32_t>(kdt_device, int32_t(4))), ny));
#line 93
  (void)right_x_id;
  int32_t left_x_id = kdt_cu::op_add(me, kdt_cu::op_mul(kdt_cu::op_sub(left_x, kdt_cu::int_div<int32_t>(kdt_device, int32_t(4))), ny));
#line 94
  (void)left_x_id;
#line 94
  // ring_prologue (KD function), expanded here
#line 98
  int32_t dma_device = (kdt_cu::int_div<int32_t>(kdt_device, int32_t(4)) * 4 + right_y);
#line 98
  (void)dma_device;
  int32_t left = left_y_id;
#line 99
  (void)left;
#line 99
  int32_t right = right_y_id;
#line 99
  (void)right;
#line 99
  // local_barrier (KD function), expanded here
#line 47
  int32_t left_2 = left;
#line 47
  (void)left_2;
#line 47
  int32_t right_2 = right;
#line 47
  (void)right_2;
#line 47
  // signal (KD function), expanded here
#line 37
  int32_t neighbor = left_2;
#line 37
  (void)neighbor;
#line 30
  kdt_cu::signal_sys((kdt_peers.sync[(neighbor)] + kdt_flat * 6 + 0 + (int32_t(1))), int32_t(1));
#line 30
  // signal (KD function), expanded here
#line 38
  int32_t neighbor_2 = right_2;
#line 38
  (void)neighbor_2;
#line 30
  kdt_cu::signal_sys((kdt_peers.sync[(neighbor_2)] + kdt_flat * 6 + 0 + (int32_t(1))), int32_t(1));
#line 39
  kdt_cu::wait_sys((kdt_peers.sync[kdt_device] + kdt_flat * 6 + 0 + (int32_t(1))), int32_t(2), "samples/mesh_allreduce.kd:39:5: sem_wait on `barrier`");
#line 48
  {  // DMA to device `device`: dst = src, 4096 bytes
#line 48
    const int64_t start0_ = static_cast<int64_t>(c0);
#line 48
    const int64_t start1_ = static_cast<int64_t>(c0);
#line 48
    const int32_t device2_ = dma_device;
#line 48
    float* const peer3_ = kdt_peers.hbm[device2_];
#line 48
    __syncthreads();
#line 48
    for (int64_t e4_ = kdt_tid; e4_ < 1024; e4_ += kdt_nt) {
#line 48
      const int64_t i4_0_ = (e4_ / 128);
#line 48
      (void)i4_0_;
#line 48
      const int64_t i4_1_ = e4_ % 128;
#line 48
      (void)i4_1_;
#line 48
      peer3_[(i4_0_) * 256 + (start1_ + i4_1_)] = data[(i4_0_) * 256 + (start0_ + i4_1_)];
#line 48
    }
#line 48
    __syncthreads();
#line 48
    kdt_cu::dma_push(kdt_q_send[(int32_t(1))], 0, "samples/mesh_allreduce.kd:48:5: dma_start on `send` (source)");
#line 48
    kdt_cu::signal_sys((kdt_peers.sync[device2_] + kdt_flat * 6 + 4 + (int32_t(1))), 4096);
#line 48
  }
  kdt_cu::dma_retire(kdt_q_send[(int32_t(1))], kdt_bar_send + (int32_t(1)) * 8, "samples/mesh_allreduce.kd:49:5: dma_wait on `send`", kdt_bulk_groups);
#line 49
  kdt_cu::wait_sys((kdt_peers.sync[kdt_device] + kdt_flat * 6 + 4 + (int32_t(1))), 4096, "samples/mesh_allreduce.kd:49:5: dma_wait on `recv`");
  const int64_t start5_ = static_cast<int64_t>(c0);
#line 50
  const bool vec6_ = ((reinterpret_cast<uintptr_t>(out + (start5_ + 0))) & 15) == 0;
#line 50
  if (vec6_) {
#line 50
    __syncthreads();
#line 50
    for (int64_t c_ = kdt_tid; c_ < 256; c_ += kdt_nt) {
#line 50
      const int64_t row_ = c_ / 32, col_ = c_ % 32;
#line 50
      (void)row_;
#line 50
      alignas(16) float piece_[4];
#line 50
      for (int q_ = 0; q_ < 4; ++q_) {
#line 50
        const int64_t e7_ = c_ * 4 + q_;
#line 50
        const int64_t i7_0_ = (e7_ / 128);
#line 50
        (void)i7_0_;
#line 50
        const int64_t i7_1_ = e7_ % 128;
#line 50
        (void)i7_1_;
#line 50
        piece_[q_] = 0x0p+0f;
#line 50
      }
#line 50
      reinterpret_cast<uint4*>(out + (((row_ / 1) % 8)) * 256 + (start5_ + 0))[col_] = *reinterpret_cast<const uint4*>(piece_);
#line 50
    }
#line 50
    __syncthreads();
#line 50
  } else {
#line 50
    __syncthreads();
#line 50
    for (int64_t e8_ = kdt_tid; e8_ < 1024; e8_ += kdt_nt) {
#line 50
      const int64_t i8_0_ = (e8_ / 128);
#line 50
      (void)i8_0_;
#line 50
      const int64_t i8_1_ = e8_ % 128;
#line 50
      (void)i8_1_;
#line 50
      out[(i8_0_) * 256 + (start5_ + i8_1_)] = 0x0p+0f;
#line 50
    }
#line 50
    __syncthreads();
#line 50
  }
#line 100
  for (int64_t step_it = int32_t(0); step_it < ny; step_it += 1) {
#line 100
    const int32_t step = static_cast<int32_t>(step_it);
#line 100
    (void)step;
    int32_t working_slot = kdt_cu::int_rem<int32_t>(step, int32_t(2));
#line 101
    (void)working_slot;
    int32_t receiving_slot = kdt_cu::op_sub(int32_t(1), working_slot);
#line 102
    (void)receiving_slot;
#line 102
    // reduce_step (KD function), expanded here
#line 105
    int32_t dma_device_2 = (kdt_cu::int_div<int32_t>(kdt_device, int32_t(4)) * 4 + right_y);
#line 105
    (void)dma_device_2;
    int32_t left_3 = left_y_id;
#line 106
    (void)left_3;
#line 106
    // signal (KD function), expanded here
#line 60
    int32_t neighbor_3 = left_3;
#line 60
    (void)neighbor_3;
#line 30
    kdt_cu::signal_sys((kdt_peers.sync[(neighbor_3)] + kdt_flat * 6 + 2 + (int32_t(1))), int32_t(1));
#line 61
    {  // DMA: dst = src, 4096 bytes
#line 61
      const int64_t start9_ = static_cast<int64_t>(working_slot);
#line 61
      const int64_t start10_ = static_cast<int64_t>(c0);
#line 61
      const bool kdt_async = KDT_HAS_CP_ASYNC && ((reinterpret_cast<uintptr_t>(hbm + (start9_) * 2048 + (start10_ + 0)) | reinterpret_cast<uintptr_t>(kdt_s_receive_scratch + 0)) & 15) == 0;
#line 61
      if (kdt_async) {
#line 61
        __syncthreads();
#line 61
        for (int64_t c_ = kdt_tid; c_ < 256; c_ += kdt_nt) {
#line 61
          const int64_t row_ = c_ / 32, col_ = c_ % 32;
#line 61
          (void)row_;
#line 61
          kdt_cu::cp_async<16>(reinterpret_cast<unsigned char*>(kdt_s_receive_scratch + (((row_ / 1) % 8)) * 128) + col_ * 16, reinterpret_cast<const unsigned char*>(hbm + (start9_) * 2048 + (((row_ / 1) % 8)) * 256 + (start10_ + 0)) + col_ * 16);
#line 61
        }
#line 61
        kdt_cu::cp_async_complete_on(kdt_bar_copy_sem + 0 * 8 + 8 * kdt_cu::dma_next_slot(kdt_q_copy_sem[0]));
#line 61
        kdt_cu::dma_push(kdt_q_copy_sem[0], 1, "samples/mesh_allreduce.kd:61:5: dma_start on `copy_sem`");
#line 61
      } else {
#line 61
        __syncthreads();
#line 61
        for (int64_t e11_ = kdt_tid; e11_ < 1024; e11_ += kdt_nt) {
#line 61
          const int64_t i11_0_ = (e11_ / 128);
#line 61
          (void)i11_0_;
#line 61
          const int64_t i11_1_ = e11_ % 128;
#line 61
          (void)i11_1_;
#line 61
          kdt_s_receive_scratch[(i11_0_) * 128 + (i11_1_)] = hbm[(start9_) * 2048 + (i11_0_) * 256 + (start10_ + i11_1_)];
#line 61
        }
#line 61
        __syncthreads();
#line 61
        kdt_cu::dma_push(kdt_q_copy_sem[0], 0, "samples/mesh_allreduce.kd:61:5: dma_start on `copy_sem`");
#line 61
      }
#line 61
    }
    kdt_cu::wait_sys((kdt_peers.sync[kdt_device] + kdt_flat * 6 + 2 + (int32_t(1))), int32_t(1), "samples/mesh_allreduce.kd:62:5: sem_wait on `capacity`");
    {  // DMA to device `device`: dst = src, 4096 bytes
#line 63
      const int64_t start12_ = static_cast<int64_t>(working_slot);
#line 63
      const int64_t start13_ = static_cast<int64_t>(c0);
#line 63
      const int64_t start14_ = static_cast<int64_t>(receiving_slot);
#line 63
      const int64_t start15_ = static_cast<int64_t>(c0);
#line 63
      const int32_t device16_ = dma_device_2;
#line 63
      float* const peer17_ = kdt_peers.hbm[device16_];
#line 63
      __syncthreads();
#line 63
      for (int64_t e18_ = kdt_tid; e18_ < 1024; e18_ += kdt_nt) {
#line 63
        const int64_t i18_0_ = (e18_ / 128);
#line 63
        (void)i18_0_;
#line 63
        const int64_t i18_1_ = e18_ % 128;
#line 63
        (void)i18_1_;
#line 63
        peer17_[(start14_) * 2048 + (i18_0_) * 256 + (start15_ + i18_1_)] = hbm[(start12_) * 2048 + (i18_0_) * 256 + (start13_ + i18_1_)];
#line 63
      }
#line 63
      __syncthreads();
#line 63
      kdt_cu::dma_push(kdt_q_send[(int32_t(1))], 0, "samples/mesh_allreduce.kd:63:5: dma_start on `send` (source)");
#line 63
      kdt_cu::signal_sys((kdt_peers.sync[device16_] + kdt_flat * 6 + 4 + (int32_t(1))), 4096);
#line 63
    }
    kdt_cu::dma_retire(kdt_q_copy_sem[0], kdt_bar_copy_sem + 0 * 8, "samples/mesh_allreduce.kd:64:5: dma_wait on `copy_sem`", kdt_bulk_groups);
    const int64_t start19_ = static_cast<int64_t>(c0);
#line 65
    __syncthreads();
#line 65
    for (int64_t e20_ = kdt_tid; e20_ < 1024; e20_ += kdt_nt) {
#line 65
      const int64_t i20_0_ = (e20_ / 128);
#line 65
      (void)i20_0_;
#line 65
      const int64_t i20_1_ = e20_ % 128;
#line 65
      (void)i20_1_;
#line 65
      out[(i20_0_) * 256 + (start19_ + i20_1_)] = kdt_cu::op_add(out[(i20_0_) * 256 + (start19_ + i20_1_)], kdt_s_receive_scratch[(i20_0_) * 128 + (i20_1_)]);
#line 65
    }
#line 65
    __syncthreads();
    kdt_cu::dma_retire(kdt_q_send[(int32_t(1))], kdt_bar_send + (int32_t(1)) * 8, "samples/mesh_allreduce.kd:66:5: dma_wait on `send`", kdt_bulk_groups);
#line 66
    kdt_cu::wait_sys((kdt_peers.sync[kdt_device] + kdt_flat * 6 + 4 + (int32_t(1))), 4096, "samples/mesh_allreduce.kd:66:5: dma_wait on `recv`");
#line 100
  }
#line 100
  // ring_prologue (KD function), expanded here
#line 113
  int32_t dma_device_3 = (right_x * 4 + kdt_cu::int_rem<int32_t>(kdt_device, int32_t(4)));
#line 113
  (void)dma_device_3;
  int32_t left_4 = left_x_id;
#line 114
  (void)left_4;
#line 114
  int32_t right_3 = right_x_id;
#line 114
  (void)right_3;
#line 114
  // local_barrier (KD function), expanded here
#line 47
  int32_t left_5 = left_4;
#line 47
  (void)left_5;
#line 47
  int32_t right_4 = right_3;
#line 47
  (void)right_4;
#line 47
  // signal (KD function), expanded here
#line 37
  int32_t neighbor_4 = left_5;
#line 37
  (void)neighbor_4;
#line 30
  kdt_cu::signal_sys((kdt_peers.sync[(neighbor_4)] + kdt_flat * 6 + 0 + (int32_t(0))), int32_t(1));
#line 30
  // signal (KD function), expanded here
#line 38
  int32_t neighbor_5 = right_4;
#line 38
  (void)neighbor_5;
#line 30
  kdt_cu::signal_sys((kdt_peers.sync[(neighbor_5)] + kdt_flat * 6 + 0 + (int32_t(0))), int32_t(1));
#line 39
  kdt_cu::wait_sys((kdt_peers.sync[kdt_device] + kdt_flat * 6 + 0 + (int32_t(0))), int32_t(2), "samples/mesh_allreduce.kd:39:5: sem_wait on `barrier`");
#line 48
  {  // DMA to device `device`: dst = src, 4096 bytes
#line 48
    const int64_t start21_ = static_cast<int64_t>(c0);
#line 48
    const int64_t start22_ = static_cast<int64_t>(c0);
#line 48
    const int32_t device23_ = dma_device_3;
#line 48
    float* const peer24_ = kdt_peers.hbm[device23_];
#line 48
    __syncthreads();
#line 48
    for (int64_t e25_ = kdt_tid; e25_ < 1024; e25_ += kdt_nt) {
#line 48
      const int64_t i25_0_ = (e25_ / 128);
#line 48
      (void)i25_0_;
#line 48
      const int64_t i25_1_ = e25_ % 128;
#line 48
      (void)i25_1_;
#line 48
      peer24_[(i25_0_) * 256 + (start22_ + i25_1_)] = out[(i25_0_) * 256 + (start21_ + i25_1_)];
#line 48
    }
#line 48
    __syncthreads();
#line 48
    kdt_cu::dma_push(kdt_q_send[(int32_t(0))], 0, "samples/mesh_allreduce.kd:48:5: dma_start on `send` (source)");
#line 48
    kdt_cu::signal_sys((kdt_peers.sync[device23_] + kdt_flat * 6 + 4 + (int32_t(0))), 4096);
#line 48
  }
  kdt_cu::dma_retire(kdt_q_send[(int32_t(0))], kdt_bar_send + (int32_t(0)) * 8, "samples/mesh_allreduce.kd:49:5: dma_wait on `send`", kdt_bulk_groups);
#line 49
  kdt_cu::wait_sys((kdt_peers.sync[kdt_device] + kdt_flat * 6 + 4 + (int32_t(0))), 4096, "samples/mesh_allreduce.kd:49:5: dma_wait on `recv`");
  const int64_t start26_ = static_cast<int64_t>(c0);
#line 50
  const bool vec27_ = ((reinterpret_cast<uintptr_t>(out + (start26_ + 0))) & 15) == 0;
#line 50
  if (vec27_) {
#line 50
    __syncthreads();
#line 50
    for (int64_t c_ = kdt_tid; c_ < 256; c_ += kdt_nt) {
#line 50
      const int64_t row_ = c_ / 32, col_ = c_ % 32;
#line 50
      (void)row_;
#line 50
      alignas(16) float piece_[4];
#line 50
      for (int q_ = 0; q_ < 4; ++q_) {
#line 50
        const int64_t e28_ = c_ * 4 + q_;
#line 50
        const int64_t i28_0_ = (e28_ / 128);
#line 50
        (void)i28_0_;
#line 50
        const int64_t i28_1_ = e28_ % 128;
#line 50
        (void)i28_1_;
#line 50
        piece_[q_] = 0x0p+0f;
#line 50
      }
#line 50
      reinterpret_cast<uint4*>(out + (((row_ / 1) % 8)) * 256 + (start26_ + 0))[col_] = *reinterpret_cast<const uint4*>(piece_);
#line 50
    }
#line 50
    __syncthreads();
#line 50
  } else {
#line 50
    __syncthreads();
#line 50
    for (int64_t e29_ = kdt_tid; e29_ < 1024; e29_ += kdt_nt) {
#line 50
      const int64_t i29_0_ = (e29_ / 128);
#line 50
      (void)i29_0_;
#line 50
      const int64_t i29_1_ = e29_ % 128;
#line 50
      (void)i29_1_;
#line 50
      out[(i29_0_) * 256 + (start26_ + i29_1_)] = 0x0p+0f;
#line 50
    }
#line 50
    __syncthreads();
#line 50
  }
#line 115
  for (int64_t step_2_it = int32_t(0); step_2_it < nx; step_2_it += 1) {
#line 115
    const int32_t step_2 = static_cast<int32_t>(step_2_it);
#line 115
    (void)step_2;
    int32_t working_slot_2 = kdt_cu::int_rem<int32_t>(step_2, int32_t(2));
#line 116
    (void)working_slot_2;
    int32_t receiving_slot_2 = kdt_cu::op_sub(int32_t(1), working_slot_2);
#line 117
    (void)receiving_slot_2;
#line 117
    // reduce_step (KD function), expanded here
#line 120
    int32_t dma_device_4 = (right_x * 4 + kdt_cu::int_rem<int32_t>(kdt_device, int32_t(4)));
#line 120
    (void)dma_device_4;
    int32_t left_6 = left_x_id;
#line 121
    (void)left_6;
#line 121
    // signal (KD function), expanded here
#line 60
    int32_t neighbor_6 = left_6;
#line 60
    (void)neighbor_6;
#line 30
    kdt_cu::signal_sys((kdt_peers.sync[(neighbor_6)] + kdt_flat * 6 + 2 + (int32_t(0))), int32_t(1));
#line 61
    {  // DMA: dst = src, 4096 bytes
#line 61
      const int64_t start30_ = static_cast<int64_t>(working_slot_2);
#line 61
      const int64_t start31_ = static_cast<int64_t>(c0);
#line 61
      const bool kdt_async = KDT_HAS_CP_ASYNC && ((reinterpret_cast<uintptr_t>(hbm + (start30_) * 2048 + (start31_ + 0)) | reinterpret_cast<uintptr_t>(kdt_s_receive_scratch + 0)) & 15) == 0;
#line 61
      if (kdt_async) {
#line 61
        __syncthreads();
#line 61
        for (int64_t c_ = kdt_tid; c_ < 256; c_ += kdt_nt) {
#line 61
          const int64_t row_ = c_ / 32, col_ = c_ % 32;
#line 61
          (void)row_;
#line 61
          kdt_cu::cp_async<16>(reinterpret_cast<unsigned char*>(kdt_s_receive_scratch + (((row_ / 1) % 8)) * 128) + col_ * 16, reinterpret_cast<const unsigned char*>(hbm + (start30_) * 2048 + (((row_ / 1) % 8)) * 256 + (start31_ + 0)) + col_ * 16);
#line 61
        }
#line 61
        kdt_cu::cp_async_complete_on(kdt_bar_copy_sem + 0 * 8 + 8 * kdt_cu::dma_next_slot(kdt_q_copy_sem[0]));
#line 61
        kdt_cu::dma_push(kdt_q_copy_sem[0], 1, "samples/mesh_allreduce.kd:61:5: dma_start on `copy_sem`");
#line 61
      } else {
#line 61
        __syncthreads();
#line 61
        for (int64_t e32_ = kdt_tid; e32_ < 1024; e32_ += kdt_nt) {
#line 61
          const int64_t i32_0_ = (e32_ / 128);
#line 61
          (void)i32_0_;
#line 61
          const int64_t i32_1_ = e32_ % 128;
#line 61
          (void)i32_1_;
#line 61
          kdt_s_receive_scratch[(i32_0_) * 128 + (i32_1_)] = hbm[(start30_) * 2048 + (i32_0_) * 256 + (start31_ + i32_1_)];
#line 61
        }
#line 61
        __syncthreads();
#line 61
        kdt_cu::dma_push(kdt_q_copy_sem[0], 0, "samples/mesh_allreduce.kd:61:5: dma_start on `copy_sem`");
#line 61
      }
#line 61
    }
    kdt_cu::wait_sys((kdt_peers.sync[kdt_device] + kdt_flat * 6 + 2 + (int32_t(0))), int32_t(1), "samples/mesh_allreduce.kd:62:5: sem_wait on `capacity`");
    {  // DMA to device `device`: dst = src, 4096 bytes
#line 63
      const int64_t start33_ = static_cast<int64_t>(working_slot_2);
#line 63
      const int64_t start34_ = static_cast<int64_t>(c0);
#line 63
      const int64_t start35_ = static_cast<int64_t>(receiving_slot_2);
#line 63
      const int64_t start36_ = static_cast<int64_t>(c0);
#line 63
      const int32_t device37_ = dma_device_4;
#line 63
      float* const peer38_ = kdt_peers.hbm[device37_];
#line 63
      __syncthreads();
#line 63
      for (int64_t e39_ = kdt_tid; e39_ < 1024; e39_ += kdt_nt) {
#line 63
        const int64_t i39_0_ = (e39_ / 128);
#line 63
        (void)i39_0_;
#line 63
        const int64_t i39_1_ = e39_ % 128;
#line 63
        (void)i39_1_;
#line 63
        peer38_[(start35_) * 2048 + (i39_0_) * 256 + (start36_ + i39_1_)] = hbm[(start33_) * 2048 + (i39_0_) * 256 + (start34_ + i39_1_)];
#line 63
      }
#line 63
      __syncthreads();
#line 63
      kdt_cu::dma_push(kdt_q_send[(int32_t(0))], 0, "samples/mesh_allreduce.kd:63:5: dma_start on `send` (source)");
#line 63
      kdt_cu::signal_sys((kdt_peers.sync[device37_] + kdt_flat * 6 + 4 + (int32_t(0))), 4096);
#line 63
    }
    kdt_cu::dma_retire(kdt_q_copy_sem[0], kdt_bar_copy_sem + 0 * 8, "samples/mesh_allreduce.kd:64:5: dma_wait on `copy_sem`", kdt_bulk_groups);
    const int64_t start40_ = static_cast<int64_t>(c0);
#line 65
    __syncthreads();
#line 65
    for (int64_t e41_ = kdt_tid; e41_ < 1024; e41_ += kdt_nt) {
#line 65
      const int64_t i41_0_ = (e41_ / 128);
#line 65
      (void)i41_0_;
#line 65
      const int64_t i41_1_ = e41_ % 128;
#line 65
      (void)i41_1_;
#line 65
      out[(i41_0_) * 256 + (start40_ + i41_1_)] = kdt_cu::op_add(out[(i41_0_) * 256 + (start40_ + i41_1_)], kdt_s_receive_scratch[(i41_0_) * 128 + (i41_1_)]);
#line 65
    }
#line 65
    __syncthreads();
    kdt_cu::dma_retire(kdt_q_send[(int32_t(0))], kdt_bar_send + (int32_t(0)) * 8, "samples/mesh_allreduce.kd:66:5: dma_wait on `send`", kdt_bulk_groups);
#line 66
    kdt_cu::wait_sys((kdt_peers.sync[kdt_device] + kdt_flat * 6 + 4 + (int32_t(0))), 4096, "samples/mesh_allreduce.kd:66:5: dma_wait on `recv`");
#line 115
  }
#line 123
}
#line 2080 "<stdout>"

#ifndef __CUDACC_RTC__
constexpr int mesh_allreduce_devices = 8;
constexpr unsigned mesh_allreduce_threads = 128;
constexpr unsigned mesh_allreduce_blocks = 2;
constexpr size_t mesh_allreduce_shared_bytes = 5256;
constexpr size_t mesh_allreduce_sync_bytes = 96;
// Launches `mesh_allreduce` on 8 devices at once. Every argument is indexed by device: device d runs
// on CUDA device `device[d]` and stream `stream[d]` with its own parameters; `sync[d]` is
// mesh_allreduce_sync_bytes of memory on device d (zeroed here). Peer access between the devices must be
// enabled. Returns the first error.
inline cudaError_t mesh_allreduce(const float* const (&data)[8], float* const (&out)[8], float* const (&hbm)[8], void* const (&sync)[8], const int (&device)[8], const cudaStream_t (&stream)[8]) {
  kdt_kernels::mesh_allreduce_peers peers{};
  for (int d = 0; d < 8; ++d) {
    peers.hbm[d] = hbm[d];
    peers.sync[d] = static_cast<unsigned long long*>(sync[d]);
  }
  kdt_cu::DeviceGroup<8> group(device, stream);
  cudaError_t e = group.prepare("mesh_allreduce", reinterpret_cast<const void*>(kdt_kernels::mesh_allreduce_kernel), kdt_kernels::mesh_allreduce_threads, kdt_kernels::mesh_allreduce_shared_bytes, kdt_kernels::mesh_allreduce_blocks, sync, kdt_kernels::mesh_allreduce_sync_bytes);
  for (int d = 0; d < 8 && e == cudaSuccess; ++d) {
    const float* data_ = data[d];
    float* out_ = out[d];
    float* hbm_ = hbm[d];
    int32_t device_ = d;
    void* args[] = {&data_, &out_, &hbm_, &peers, &device_};
    e = group.launch(d, reinterpret_cast<const void*>(kdt_kernels::mesh_allreduce_kernel), kdt_kernels::mesh_allreduce_blocks, kdt_kernels::mesh_allreduce_threads, args, kdt_kernels::mesh_allreduce_shared_bytes);
  }
  return group.finish(e);
}
#endif  // __CUDACC_RTC__

}  // namespace kdt_kernels
