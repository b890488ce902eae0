namespace kdt_kernels {

// Peer table of `ring_exchange`: entry d is device d's copy (peer access enabled by the caller).
struct ring_exchange_peers {
  float* recv[4];
  unsigned long long* sync[4];  // sync buffers (ring_exchange_sync_bytes each)
};
// Kernel `ring_exchange`: grid [4] = 4 blocks of 128 threads, 1032 bytes of dynamic shared memory.
__global__ void __launch_bounds__(128) ring_exchange_kernel(const float* x, float* recv, float* mixed, const ring_exchange_peers kdt_peers, const int32_t kdt_device)
{
  extern __shared__ __align__(128) unsigned char kdt_smem[];
  const int64_t kdt_tid = threadIdx.x;
  const int64_t kdt_nt = blockDim.x;
  (void)kdt_tid;
  (void)kdt_nt;
  unsigned char* const kdt_red = kdt_smem + 0;
  (void)kdt_red;
  const int64_t kdt_flat = blockIdx.x;
  const int32_t kdt_pid0 = static_cast<int32_t>(kdt_flat / 1 % 4);
  (void)kdt_pid0;
  // semaphore `ready`: counters in the sync buffer (other devices raise it)
  kdt_cu::DmaQueue<1> kdt_q_send_sem[1] = {};
  unsigned char* const kdt_bar_send_sem = kdt_smem + 1024;
  // semaphore `recv_sem`: counters in the sync buffer (other devices raise it)
  // semaphore `acked`: counters in the sync buffer (other devices raise it)
  [[maybe_unused]] unsigned kdt_bulk_groups = 0;
  if (kdt_tid == 0) {
    for (int b_ = 0; b_ < 1; ++b_) kdt_cu::mbar_init(kdt_smem + 1024 + 8 * b_);
    kdt_cu::mbar_init_fence();
  }
  __syncthreads();
#line 25 "samples/ring_exchange.kd"
  int32_t i = kdt_pid0;
#line 25
  (void)i;
  int32_t me = kdt_device;
#line 26
  (void)me;
  int32_t n = int32_t(4);
#line 27
  (void)n;
  int32_t right = kdt_cu::int_rem<int32_t>(kdt_cu::op_add(me, int32_t(1)), n);
#line 28
  (void)right;
  int32_t left = kdt_cu::int_rem<int32_t>(kdt_cu::op_sub(kdt_cu::op_add(me, n), int32_t(1)), n);
#line 29
  (void)left;
#line 32
  kdt_cu::signal_sys((kdt_peers.sync[(left)] + kdt_flat * 3 + 0 + 0), int32_t(1));
  kdt_cu::signal_sys((kdt_peers.sync[(right)] + kdt_flat * 3 + 0 + 0), int32_t(1));
  kdt_cu::wait_sys((kdt_peers.sync[kdt_device] + kdt_flat * 3 + 0 + 0), int32_t(2), "samples/ring_exchange.kd:34:5: sem_wait on `ready`");
#line 38
  {  // DMA to device `device`: dst = src, 8192 bytes
#line 38
    const int64_t start0_ = static_cast<int64_t>(kdt_cu::op_mul(i, int32_t(32)));
#line 38
    const int64_t start1_ = static_cast<int64_t>(kdt_cu::op_mul(i, int32_t(32)));
#line 38
    const int32_t device2_ = right;
#line 38
    float* const peer3_ = kdt_peers.recv[device2_];
#line 38
    __syncthreads();
#line 38
    for (int64_t e4_ = kdt_tid; e4_ < 2048; e4_ += kdt_nt) {
#line 38
      const int64_t i4_0_ = (e4_ / 64);
#line 38
      (void)i4_0_;
#line 38
      const int64_t i4_1_ = e4_ % 64;
#line 38
      (void)i4_1_;
#line 38
      peer3_[(start1_ + i4_0_) * 64 + (i4_1_)] = x[(start0_ + i4_0_) * 64 + (i4_1_)];
#line 38
    }
#line 38
    __syncthreads();
#line 38
    kdt_cu::dma_push(kdt_q_send_sem[0], 0, "samples/ring_exchange.kd:38:5: dma_start on `send_sem` (source)");
#line 38
    kdt_cu::signal_sys((kdt_peers.sync[device2_] + kdt_flat * 3 + 2 + 0), 8192);
#line 38
  }
#line 40
  kdt_cu::dma_retire(kdt_q_send_sem[0], kdt_bar_send_sem + 0 * 8, "samples/ring_exchange.kd:40:5: dma_wait on `send_sem`", kdt_bulk_groups);
  kdt_cu::wait_sys((kdt_peers.sync[kdt_device] + kdt_flat * 3 + 2 + 0), 8192, "samples/ring_exchange.kd:41:5: dma_wait on `recv_sem`");
#line 45
  kdt_cu::signal_sys((kdt_peers.sync[(left)] + kdt_flat * 3 + 1 + 0), int32_t(1));
  kdt_cu::wait_sys((kdt_peers.sync[kdt_device] + kdt_flat * 3 + 1 + 0), int32_t(1), "samples/ring_exchange.kd:46:5: sem_wait on `acked`");
#line 48
  const int64_t start5_ = static_cast<int64_t>(kdt_cu::op_mul(i, int32_t(32)));
#line 48
  const int64_t start6_ = static_cast<int64_t>(kdt_cu::op_mul(i, int32_t(32)));
#line 48
  const int64_t start7_ = static_cast<int64_t>(kdt_cu::op_mul(i, int32_t(32)));
#line 48
  const bool vec8_ = ((reinterpret_cast<uintptr_t>(mixed + (start7_ + 0) * 64)) & 15) == 0;
#line 48
  if (vec8_) {
#line 48
    __syncthreads();
#line 48
    for (int64_t c_ = kdt_tid; c_ < 512; c_ += kdt_nt) {
#line 48
      const int64_t row_ = c_ / 512, col_ = c_ % 512;
#line 48
      (void)row_;
#line 48
      alignas(16) float piece_[4];
#line 48
      for (int q_ = 0; q_ < 4; ++q_) {
#line 48
        const int64_t e9_ = c_ * 4 + q_;
#line 48
        const int64_t i9_0_ = (e9_ / 64);
#line 48
        (void)i9_0_;
#line 48
        const int64_t i9_1_ = e9_ % 64;
#line 48
        (void)i9_1_;
#line 48
        piece_[q_] = kdt_cu::op_mul(0x1p-1f, kdt_cu::op_add(x[(start5_ + i9_0_) * 64 + (i9_1_)], recv[(start6_ + i9_0_) * 64 + (i9_1_)]));
#line 48
      }
#line 48
      reinterpret_cast<uint4*>(mixed + (start7_ + 0) * 64)[col_] = *reinterpret_cast<const uint4*>(piece_);
#line 48
    }
#line 48
    __syncthreads();
#line 48
  } else {
#line 48
    __syncthreads();
#line 48
    for (int64_t e10_ = kdt_tid; e10_ < 2048; e10_ += kdt_nt) {
#line 48
      const int64_t i10_0_ = (e10_ / 64);
#line 48
      (void)i10_0_;
#line 48
      const int64_t i10_1_ = e10_ % 64;
#line 48
      (void)i10_1_;
#line 48
      mixed[(start7_ + i10_0_) * 64 + (i10_1_)] = kdt_cu::op_mul(0x1p-1f, kdt_cu::op_add(x[(start5_ + i10_0_) * 64 + (i10_1_)], recv[(start6_ + i10_0_) * 64 + (i10_1_)]));
#line 48
    }
#line 48
    __syncthreads();
#line 48
  }
}
#line 1597 "<stdout>"

#ifndef __CUDACC_RTC__
constexpr int ring_exchange_devices = 4;
constexpr unsigned ring_exchange_threads = 128;
constexpr unsigned ring_exchange_blocks = 4;
constexpr size_t ring_exchange_shared_bytes = 1032;
constexpr size_t ring_exchange_sync_bytes = 96;
// Launches `ring_exchange` on 4 devices at once. Every argument is indexed by device: device d runs
// on CUDA device `device[d]` and stream `stream[d]` with its own parameters; `sync[d]` is
// ring_exchange_sync_bytes of memory on device d (zeroed here). Peer access between the devices must be
// enabled. Returns the first error.
inline cudaError_t ring_exchange(const float* const (&x)[4], float* const (&recv)[4], float* const (&mixed)[4], void* const (&sync)[4], const int (&device)[4], const cudaStream_t (&stream)[4]) {
  kdt_kernels::ring_exchange_peers peers{};
  for (int d = 0; d < 4; ++d) {
    peers.recv[d] = recv[d];
    peers.sync[d] = static_cast<unsigned long long*>(sync[d]);
  }
  kdt_cu::DeviceGroup<4> group(device, stream);
  cudaError_t e = group.prepare("ring_exchange", reinterpret_cast<const void*>(kdt_kernels::ring_exchange_kernel), kdt_kernels::ring_exchange_threads, kdt_kernels::ring_exchange_shared_bytes, kdt_kernels::ring_exchange_blocks, sync, kdt_kernels::ring_exchange_sync_bytes);
  for (int d = 0; d < 4 && e == cudaSuccess; ++d) {
    const float* x_ = x[d];
    float* recv_ = recv[d];
    float* mixed_ = mixed[d];
    int32_t device_ = d;
    void* args[] = {&x_, &recv_, &mixed_, &peers, &device_};
    e = group.launch(d, reinterpret_cast<const void*>(kdt_kernels::ring_exchange_kernel), kdt_kernels::ring_exchange_blocks, kdt_kernels::ring_exchange_threads, args, kdt_kernels::ring_exchange_shared_bytes);
  }
  return group.finish(e);
}
#endif  // __CUDACC_RTC__

}  // namespace kdt_kernels
