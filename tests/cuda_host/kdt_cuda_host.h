// The CUDA execution model on the host, for testing the compiled path
// without a GPU (tests/cuda_host/emulate.py): a `__global__` function kdt
// emitted runs here as one fiber per CUDA thread, block after block, with
// `__syncthreads()` and warp shuffles as points where the fibers meet.
// What it covers is what a kernel's text uses besides memory: thread and
// block indices, dynamic shared memory, block barriers, `__shfl_down_sync`
// and the value runtime (kdt_cuda_ops.h, compiled for the host). DMAs,
// mbarriers, tensor cores and inline PTX are not emulated; emulate.py
// leaves such kernels out and says so.
//
// Fibers (ucontext) rather than OS threads: a block's threads switch only
// at barriers, in thread order, so a run is deterministic, fast, and a
// barrier some threads of a block never reach is reported instead of
// hanging.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <ucontext.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#define __launch_bounds__(...)

struct kdt_host_dim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local kdt_host_dim3 threadIdx, blockIdx;
inline kdt_host_dim3 blockDim, gridDim;

// ----- device intrinsics the value runtime uses, with the GPU's results -----
[[noreturn]] inline void __trap() {
  std::fflush(stdout);
  std::fprintf(stderr, "emulated CUDA: __trap() (block %u, thread %u)\n", blockIdx.x, threadIdx.x);
  std::exit(70);
}
inline float __uint_as_float(unsigned u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline float __int_as_float(int i) {
  float f;
  std::memcpy(&f, &i, 4);
  return f;
}
inline double __longlong_as_double(long long i) {
  double d;
  std::memcpy(&d, &i, 8);
  return d;
}
inline unsigned __float_as_uint(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}
// Conversions rounding toward zero: the nearest float, stepped toward zero
// where it overshoots.
template <class I>
inline float kdt_host_to_float_rz(I x) {
  float f = static_cast<float>(x);
  const long double exact = static_cast<long double>(x), got = static_cast<long double>(f);
  if ((exact >= 0 && got > exact) || (exact < 0 && got < exact)) f = std::nextafter(f, 0.0f);
  return f;
}
inline float __ll2float_rz(long long x) { return kdt_host_to_float_rz(x); }
inline float __ull2float_rz(unsigned long long x) { return kdt_host_to_float_rz(x); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }

namespace kdt_host {

// One CUDA thread: its fiber and what it waits for.
struct Fiber {
  ucontext_t context;
  std::vector<char> stack;
  enum class State { Running, AtBlockBarrier, AtWarpBarrier, Done } state = State::Running;
};

struct Block {
  std::vector<Fiber> fibers;
  ucontext_t scheduler;
  unsigned current = 0;
  std::function<void()> body;
  // A warp shuffle's values, one per lane of each warp.
  std::vector<unsigned long long> lanes;
};
inline Block* block = nullptr;

inline void yield(Fiber::State why) {
  Fiber& f = block->fibers[block->current];
  f.state = why;
  swapcontext(&f.context, &block->scheduler);
}

inline void fiber_main() {
  block->body();
  block->fibers[block->current].state = Fiber::State::Done;
  setcontext(&block->scheduler);
}

[[noreturn]] inline void stuck(const char* what) {
  std::fprintf(stderr, "emulated CUDA: block %u: %s\n", blockIdx.x, what);
  std::exit(71);
}

// Runs the fibers until all are done; releases a barrier once every
// thread that has not returned waits at it (a warp barrier: every thread
// of that warp).
inline void schedule() {
  const unsigned n = static_cast<unsigned>(block->fibers.size());
  for (;;) {
    for (unsigned t = 0; t < n; ++t) {
      Fiber& f = block->fibers[t];
      if (f.state != Fiber::State::Running) continue;
      block->current = t;
      threadIdx.x = t;
      swapcontext(&block->scheduler, &f.context);
    }
    unsigned done = 0, at_block = 0;
    for (const Fiber& f : block->fibers) {
      done += f.state == Fiber::State::Done;
      at_block += f.state == Fiber::State::AtBlockBarrier;
    }
    if (done == n) return;
    bool released = false;
    for (unsigned w = 0; w * 32 < n; ++w) {
      const unsigned end = std::min(n, w * 32 + 32);
      bool all = true;
      for (unsigned t = w * 32; t < end; ++t) all = all && block->fibers[t].state == Fiber::State::AtWarpBarrier;
      if (!all) continue;
      for (unsigned t = w * 32; t < end; ++t) block->fibers[t].state = Fiber::State::Running;
      released = true;
    }
    if (released) continue;
    if (at_block + done == n && at_block > 0) {
      if (done) stuck("__syncthreads() after some threads returned");
      for (Fiber& f : block->fibers) f.state = Fiber::State::Running;
      continue;
    }
    stuck("threads wait at different barriers (a barrier in divergent code)");
  }
}

// Runs `kernel` (one thread's code) over `blocks` blocks of `threads`
// threads, `before_block` before each block's threads start.
inline void launch(unsigned blocks, unsigned threads, const std::function<void()>& before_block,
                   const std::function<void()>& kernel) {
  blockDim.x = threads;
  gridDim.x = blocks;
  Block b;
  b.body = kernel;
  b.lanes.assign(((threads + 31) / 32) * 32, 0);
  block = &b;
  for (unsigned id = 0; id < blocks; ++id) {
    blockIdx.x = id;
    before_block();
    b.fibers.assign(threads, Fiber{});
    for (Fiber& f : b.fibers) {
      f.stack.resize(256 * 1024);
      getcontext(&f.context);
      f.context.uc_stack.ss_sp = f.stack.data();
      f.context.uc_stack.ss_size = f.stack.size();
      f.context.uc_link = nullptr;
      makecontext(&f.context, fiber_main, 0);
    }
    schedule();
  }
  block = nullptr;
}

}  // namespace kdt_host

inline void __syncthreads() { kdt_host::yield(kdt_host::Fiber::State::AtBlockBarrier); }

// Lane (lane + delta)'s value, or the caller's own past the warp's end;
// every thread of the warp takes part (kdt's shuffles always are convergent).
template <class T>
inline T __shfl_down_sync(unsigned, T v, unsigned delta, int width = 32) {
  static_assert(sizeof(T) <= 8, "a shuffled value is at most 8 bytes");
  const unsigned t = threadIdx.x, lane = t % 32u, n = blockDim.x;
  unsigned long long bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  kdt_host::block->lanes[t] = bits;
  kdt_host::yield(kdt_host::Fiber::State::AtWarpBarrier);
  const unsigned src = lane + delta;
  T out = v;
  if (src < static_cast<unsigned>(width) && t - lane + src < n) {
    std::memcpy(&out, &kdt_host::block->lanes[t - lane + src], sizeof(T));
  }
  kdt_host::yield(kdt_host::Fiber::State::AtWarpBarrier);
  return out;
}

// The value runtime, as kdt embeds it (its PTX-only helpers are never called here).
#include "kdt/runtime/cuda/kdt_cuda_limits.h"
#include "kdt/runtime/cuda/kdt_cuda_ops.h"
