namespace kdt_kernels {

// Peer table of `peer_scratch`: entry d is device d's copy (peer access enabled by the caller).
struct peer_scratch_peers {
  unsigned long long* sync[4];  // sync buffers (peer_scratch_sync_bytes each)
};
// Kernel `peer_scratch`: grid [4] = 4 blocks of 128 threads, 3088 bytes of dynamic shared memory.
__global__ void __launch_bounds__(128) peer_scratch_kernel(const float* x, float* y, const peer_scratch_peers kdt_peers, const int32_t kdt_device)
{
  extern __shared__ __align__(128) unsigned char kdt_smem[];
  const int64_t kdt_tid = threadIdx.x;
  const int64_t kdt_nt = blockDim.x;
  (void)kdt_tid;
  (void)kdt_nt;
  unsigned char* const kdt_red = kdt_smem + 2048;
  (void)kdt_red;
  const int64_t kdt_flat = blockIdx.x;
  const int32_t kdt_pid0 = static_cast<int32_t>(kdt_flat / 1 % 4);
  (void)kdt_pid0;
  float* const kdt_s_inbox = reinterpret_cast<float*>(kdt_smem + 0);  // scratch f32[256] @shared
  (void)kdt_s_inbox;
  float* const kdt_s_acc = reinterpret_cast<float*>(kdt_smem + 1024);  // scratch f32[256] @shared
  (void)kdt_s_acc;
  // semaphore `recv`: counters in the sync buffer (other devices raise it)
  kdt_cu::DmaQueue<2> kdt_q_send[1] = {};
  unsigned char* const kdt_bar_send = kdt_smem + 3072;
  // semaphore `ready`: counters in the sync buffer (other devices raise it)
  [[maybe_unused]] unsigned kdt_bulk_groups = 0;
  // semaphore `recv` is staged: each wait applies the oldest slot of its ring
  auto kdt_apply_recv = [&](unsigned char* const slot_) {
    const long long* const header_ = kdt_cu::stage_header(slot_);
    if (header_[0] == 0) {  // the DMA of line 44
      __syncthreads();
      for (int64_t e0_ = kdt_tid; e0_ < 256; e0_ += kdt_nt) {
        const int64_t i0_0_ = e0_;
        (void)i0_0_;
        kdt_s_inbox[(i0_0_)] = reinterpret_cast<const float*>(slot_ + 32)[e0_];
      }
      __syncthreads();
    } else if (header_[0] == 1) {  // the DMA of line 47
      __syncthreads();
      for (int64_t e1_ = kdt_tid; e1_ < 256; e1_ += kdt_nt) {
        const int64_t i1_0_ = e1_;
        (void)i1_0_;
        kdt_s_acc[(i1_0_)] = kdt_cu::op_add<float>(kdt_s_acc[(i1_0_)], reinterpret_cast<const float*>(slot_ + 32)[e1_]);
      }
      __syncthreads();
    }
    kdt_cu::stage_release(slot_);
  };
  if (kdt_tid == 0) {
    for (int b_ = 0; b_ < 2; ++b_) kdt_cu::mbar_init(kdt_smem + 3072 + 8 * b_);
    kdt_cu::mbar_init_fence();
  }
  __syncthreads();
#line 39 "samples/peer_scratch.kd"
  int32_t i = kdt_pid0;
#line 39
  (void)i;
  int32_t left = kdt_cu::int_rem<int32_t>(kdt_cu::op_sub(kdt_cu::op_add(kdt_device, int32_t(4)), int32_t(1)), int32_t(4));
#line 40
  (void)left;
  const int64_t start2_ = static_cast<int64_t>(i);
#line 41
  __syncthreads();
#line 41
  for (int64_t e3_ = kdt_tid; e3_ < 256; e3_ += kdt_nt) {
#line 41
    const int64_t i3_0_ = e3_;
#line 41
    (void)i3_0_;
#line 41
    kdt_s_acc[(i3_0_)] = x[(start2_) * 256 + (i3_0_)];
#line 41
  }
#line 41
  __syncthreads();
  kdt_cu::signal_sys((kdt_peers.sync[(left)] + kdt_flat * 2 + 0 + 0), int32_t(1));
#line 42
  // to_right (KD function), expanded here
#line 22
  int32_t right_result = kdt_cu::int_rem<int32_t>(kdt_cu::op_add(kdt_device, int32_t(1)), int32_t(4));
#line 22
  (void)right_result;
#line 44
  {  // DMA to device `device`: dst = src, 1024 bytes
#line 44
    const int64_t start4_ = static_cast<int64_t>(i);
#line 44
    const int32_t device5_ = right_result;
#line 44
    // staged: lands in device device5_'s staging ring, applied by its wait
#line 44
    unsigned char* const slot6_ = kdt_cu::stage_claim((reinterpret_cast<unsigned char*>(kdt_peers.sync[device5_]) + 64 + kdt_flat * 8464), 1056, kdt_red);
#line 44
    if (kdt_tid == 0) {
#line 44
      long long* const header_ = kdt_cu::stage_header(slot6_);
#line 44
      header_[0] = 0;
#line 44
      header_[1] = 0;
#line 44
    }
#line 44
    __syncthreads();
#line 44
    for (int64_t e7_ = kdt_tid; e7_ < 256; e7_ += kdt_nt) {
#line 44
      const int64_t i7_0_ = e7_;
#line 44
      (void)i7_0_;
#line 44
      reinterpret_cast<float*>(slot6_ + 32)[e7_] = x[(start4_) * 256 + (i7_0_)];
#line 44
    }
#line 44
    __syncthreads();
#line 44
    kdt_cu::stage_publish(slot6_);
#line 44
    kdt_cu::dma_push(kdt_q_send[0], 0, "samples/peer_scratch.kd:44:5: dma_start on `send` (source)");
#line 44
    kdt_cu::signal_sys((kdt_peers.sync[device5_] + kdt_flat * 2 + 1 + 0), 1024);
#line 44
  }
  kdt_cu::wait_sys((kdt_peers.sync[kdt_device] + kdt_flat * 2 + 0 + 0), int32_t(1), "samples/peer_scratch.kd:45:5: sem_wait on `ready`");
#line 45
  // add_to_right (KD function), expanded here
#line 22
  int32_t right_result_2 = kdt_cu::int_rem<int32_t>(kdt_cu::op_add(kdt_device, int32_t(1)), int32_t(4));
#line 22
  (void)right_result_2;
#line 47
  {  // DMA to device `device`: dst += src, 1024 bytes
#line 47
    const int64_t start8_ = static_cast<int64_t>(i);
#line 47
    const int32_t device9_ = right_result_2;
#line 47
    // staged: lands in device device9_'s staging ring, applied by its wait
#line 47
    unsigned char* const slot10_ = kdt_cu::stage_claim((reinterpret_cast<unsigned char*>(kdt_peers.sync[device9_]) + 64 + kdt_flat * 8464), 1056, kdt_red);
#line 47
    if (kdt_tid == 0) {
#line 47
      long long* const header_ = kdt_cu::stage_header(slot10_);
#line 47
      header_[0] = 1;
#line 47
      header_[1] = 0;
#line 47
    }
#line 47
    __syncthreads();
#line 47
    for (int64_t e11_ = kdt_tid; e11_ < 256; e11_ += kdt_nt) {
#line 47
      const int64_t i11_0_ = e11_;
#line 47
      (void)i11_0_;
#line 47
      reinterpret_cast<float*>(slot10_ + 32)[e11_] = x[(start8_) * 256 + (i11_0_)];
#line 47
    }
#line 47
    __syncthreads();
#line 47
    kdt_cu::stage_publish(slot10_);
#line 47
    kdt_cu::dma_push(kdt_q_send[0], 0, "samples/peer_scratch.kd:47:5: dma_start on `send` (source)");
#line 47
    kdt_cu::signal_sys((kdt_peers.sync[device9_] + kdt_flat * 2 + 1 + 0), 1024);
#line 47
  }
  kdt_cu::dma_retire(kdt_q_send[0], kdt_bar_send + 0 * 16, "samples/peer_scratch.kd:48:5: dma_wait on `send`", kdt_bulk_groups);
#line 48
  kdt_cu::wait_sys((kdt_peers.sync[kdt_device] + kdt_flat * 2 + 1 + 0), 1024, "samples/peer_scratch.kd:48:5: dma_wait on `recv`");
#line 48
  kdt_apply_recv(kdt_cu::stage_take((reinterpret_cast<unsigned char*>(kdt_peers.sync[kdt_device]) + 64 + kdt_flat * 8464), 1056, kdt_red));
  kdt_cu::dma_retire(kdt_q_send[0], kdt_bar_send + 0 * 16, "samples/peer_scratch.kd:49:5: dma_wait on `send`", kdt_bulk_groups);
#line 49
  kdt_cu::wait_sys((kdt_peers.sync[kdt_device] + kdt_flat * 2 + 1 + 0), 1024, "samples/peer_scratch.kd:49:5: dma_wait on `recv`");
#line 49
  kdt_apply_recv(kdt_cu::stage_take((reinterpret_cast<unsigned char*>(kdt_peers.sync[kdt_device]) + 64 + kdt_flat * 8464), 1056, kdt_red));
  const int64_t start12_ = static_cast<int64_t>(i);
#line 50
  const bool vec13_ = ((reinterpret_cast<uintptr_t>(y + (start12_) * 256)) & 15) == 0;
#line 50
  if (vec13_) {
#line 50
    __syncthreads();
#line 50
    for (int64_t c_ = kdt_tid; c_ < 64; c_ += kdt_nt) {
#line 50
      const int64_t row_ = c_ / 64, col_ = c_ % 64;
#line 50
      (void)row_;
#line 50
      alignas(16) float piece_[4];
#line 50
      for (int q_ = 0; q_ < 4; ++q_) {
#line 50
        const int64_t e14_ = c_ * 4 + q_;
#line 50
        const int64_t i14_0_ = e14_;
#line 50
        (void)i14_0_;
#line 50
        piece_[q_] = kdt_cu::op_add(kdt_cu::op_mul(kdt_s_inbox[(i14_0_)], 0x1p+1f), kdt_s_acc[(i14_0_)]);
#line 50
      }
#line 50
      reinterpret_cast<uint4*>(y + (start12_) * 256)[col_] = *reinterpret_cast<const uint4*>(piece_);
#line 50
    }
#line 50
    __syncthreads();
#line 50
  } else {
#line 50
    __syncthreads();
#line 50
    for (int64_t e15_ = kdt_tid; e15_ < 256; e15_ += kdt_nt) {
#line 50
      const int64_t i15_0_ = e15_;
#line 50
      (void)i15_0_;
#line 50
      y[(start12_) * 256 + (i15_0_)] = kdt_cu::op_add(kdt_cu::op_mul(kdt_s_inbox[(i15_0_)], 0x1p+1f), kdt_s_acc[(i15_0_)]);
#line 50
    }
#line 50
    __syncthreads();
#line 50
  }
}
#line 1678 "<stdout>"

#ifndef __CUDACC_RTC__
constexpr int peer_scratch_devices = 4;
constexpr unsigned peer_scratch_threads = 128;
constexpr unsigned peer_scratch_blocks = 4;
constexpr size_t peer_scratch_shared_bytes = 3088;
constexpr size_t peer_scratch_sync_bytes = 33920;
// Launches `peer_scratch` on 4 devices at once. Every argument is indexed by device: device d runs
// on CUDA device `device[d]` and stream `stream[d]` with its own parameters; `sync[d]` is
// peer_scratch_sync_bytes of memory on device d (zeroed here). Peer access between the devices must be
// enabled. Returns the first error.
inline cudaError_t peer_scratch(const float* const (&x)[4], float* const (&y)[4], void* const (&sync)[4], const int (&device)[4], const cudaStream_t (&stream)[4]) {
  kdt_kernels::peer_scratch_peers peers{};
  for (int d = 0; d < 4; ++d) {
    peers.sync[d] = static_cast<unsigned long long*>(sync[d]);
  }
  kdt_cu::DeviceGroup<4> group(device, stream);
  cudaError_t e = group.prepare("peer_scratch", reinterpret_cast<const void*>(kdt_kernels::peer_scratch_kernel), kdt_kernels::peer_scratch_threads, kdt_kernels::peer_scratch_shared_bytes, kdt_kernels::peer_scratch_blocks, sync, kdt_kernels::peer_scratch_sync_bytes);
  for (int d = 0; d < 4 && e == cudaSuccess; ++d) {
    const float* x_ = x[d];
    float* y_ = y[d];
    int32_t device_ = d;
    void* args[] = {&x_, &y_, &peers, &device_};
    e = group.launch(d, reinterpret_cast<const void*>(kdt_kernels::peer_scratch_kernel), kdt_kernels::peer_scratch_blocks, kdt_kernels::peer_scratch_threads, args, kdt_kernels::peer_scratch_shared_bytes);
  }
  return group.finish(e);
}
#endif  // __CUDACC_RTC__

}  // namespace kdt_kernels
