// The host model's own checks (run by emulate.py before any kernel): each
// case is a small hand-written kernel whose outcome the model must report.
//   selfcheck CASE   exits 0 where the model behaved as it should
#include "kdt_cuda_host.h"

namespace {

// A block barrier only some threads reach (the others return): the model
// must stop (exit 71).
void divergent_barrier() {
  if (threadIdx.x == 0) __syncthreads();
}

// Thread t writes shared[t], then after the barrier reads its neighbour's.
int neighbours[64];
void barrier_orders() {
  int* shared = reinterpret_cast<int*>(kdt_host::shared_memory());
  shared[threadIdx.x] = static_cast<int>(threadIdx.x) * 10;
  __syncthreads();
  neighbours[threadIdx.x] = shared[(threadIdx.x + 1) % blockDim.x];
}

// A bulk copy lands at the wait, not before: a read ahead of the wait sees
// the stale bytes, one after it the copied ones.
const int source[4] = {1, 2, 3, 4};
int before_wait = -1, after_wait = -1;
void copy_lands_at_wait() {
  unsigned char* shared = kdt_host::shared_memory();
  void* bar = shared;
  int* dst = reinterpret_cast<int*>(shared + 16);
  if (threadIdx.x == 0) {
    kdt_cu::mbar_init(bar);
    kdt_cu::mbar_expect_tx(bar, sizeof source);
    kdt_cu::bulk_g2s(dst, source, sizeof source, bar);
    before_wait = dst[2];
  }
  __syncthreads();
  kdt_cu::mbar_wait(bar, 0);
  if (threadIdx.x == 0) after_wait = dst[2];
}

// Two devices each waiting for the other to signal first: exit 71.
unsigned long long counters[2];
void devices_deadlock(unsigned device) {
  kdt_cu::wait_sys(&counters[device], 1);
  kdt_cu::signal_sys(&counters[1 - device], 1);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "divergent_barrier") kdt_host::launch(1, 1, 64, 0, [](unsigned) { divergent_barrier(); });
  if (what == "barrier_orders") {
    kdt_host::launch(1, 2, 64, 256, [](unsigned) { barrier_orders(); });
    for (int t = 0; t < 64; ++t) {
      if (neighbours[t] != (t + 1) % 64 * 10) return 1;
    }
  }
  if (what == "copy_lands_at_wait") {
    kdt_host::launch(1, 1, 32, 64, [](unsigned) { copy_lands_at_wait(); });
    const int stale = static_cast<int>(0xA5A5A5A5u);
    if (before_wait != stale || after_wait != 3) return 1;
  }
  if (what == "devices_deadlock") kdt_host::launch(2, 1, 32, 0, [](unsigned d) { devices_deadlock(d); });
  return 0;
}
