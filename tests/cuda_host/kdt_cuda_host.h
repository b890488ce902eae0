// The CUDA execution model on the host, for testing the compiled path
// without a GPU (tests/cuda_host/emulate.py): a `__global__` function kdt
// emitted runs here as one fiber per CUDA thread — a single device's blocks
// one after another, several devices' blocks all at once — with
// `__syncthreads()`, warp shuffles and polling waits as the points where
// the fibers switch.
// What it covers is what a kernel's text uses besides memory: thread and
// block indices, dynamic shared memory, block barriers, `__shfl_down_sync`,
// atomics, the device runtime's C++ (kdt_cuda.h compiled for the host with
// KDT_CU_HOST: values, block reductions, DMA queues) and a model of its
// async proxy (bulk copies and reduces, cp.async, mbarriers; below) and
// of the warp matrix functions (mma.h here). wgmma and inline PTX are not
// emulated; emulate.py leaves such kernels out and says so.
//
// Fibers (ucontext) rather than OS threads: threads switch only at those
// points, in a fixed order, so a run is deterministic, fast, and a barrier
// some threads of a block never reach, or devices all waiting for each
// other, is reported instead of hanging.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <ucontext.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#define __launch_bounds__(...)
#define __grid_constant__

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
// The bits of `from` as a To (the __X_as_Y intrinsics).
template <class To, class From>
inline To kdt_host_bits(From from) {
  static_assert(sizeof(To) == sizeof(From), "same size");
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}
inline float __uint_as_float(unsigned u) { return kdt_host_bits<float>(u); }
inline float __int_as_float(int i) { return kdt_host_bits<float>(i); }
inline double __longlong_as_double(long long i) { return kdt_host_bits<double>(i); }
inline unsigned __float_as_uint(float f) { return kdt_host_bits<unsigned>(f); }
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

// One CUDA thread: its fiber and what it waits for. Spinning: it polled
// memory another block may write (a wait on another device) and found it
// unchanged; it runs again, but made no progress.
struct Fiber {
  ucontext_t context;
  void* stack = nullptr;
  enum class State { Running, Spinning, AtBlockBarrier, AtWarpBarrier, Done } state = State::Running;
};

constexpr size_t kStackBytes = 256 * 1024;

// One block of one device: its threads, shared memory and async state.
struct Block {
  unsigned device = 0, id = 0;
  std::vector<Fiber> fibers;
  std::vector<unsigned char> shared;
  std::function<void()> body;  // one thread's code
  // A warp shuffle's values, one per lane of each warp.
  std::vector<unsigned long long> lanes;
  // The async proxy (kdt_cu_host below): each mbarrier by its address, and
  // each thread's cp.async copies not yet tied to one, bulk groups
  // committed (oldest first) and the one still open.
  struct Copy {
    void* dst;
    const void* src;
    unsigned bytes;
    void (*land)(void* dst, const void* src, unsigned bytes);
    bool counts_tx = false;  // a bulk copy: its bytes complete the mbarrier's transaction count
  };
  struct Mbarrier {
    unsigned phase = 0;   // of the current phase: its parity is the low bit
    int pending = 1;      // arrivals the current phase still expects
    long long tx = 0;     // bytes expected and not yet landed
    std::vector<Copy> copies;  // in flight, completing on this mbarrier
  };
  struct ThreadAsync {
    std::vector<Copy> cp_async, open;
    std::vector<std::vector<Copy>> groups;
  };
  std::map<const void*, Mbarrier> mbarriers;
  std::vector<ThreadAsync> async;

  ~Block() {
    for (Fiber& f : fibers) std::free(f.stack);
  }
};

inline ucontext_t scheduler;
inline Block* block = nullptr;  // the running thread's block
inline unsigned current = 0;    // and its index in the block

// The running thread's block's dynamic shared memory.
inline unsigned char* shared_memory() { return block->shared.data(); }

inline void yield(Fiber::State why) {
  Fiber& f = block->fibers[current];
  f.state = why;
  swapcontext(&f.context, &scheduler);
}

inline void fiber_main() {
  block->body();
  block->fibers[current].state = Fiber::State::Done;
  setcontext(&scheduler);
}

[[noreturn]] inline void stuck(Block& b, const char* what) {
  std::fflush(stdout);
  std::fprintf(stderr, "emulated CUDA: device %u, block %u: %s\n", b.device, b.id, what);
  std::exit(71);
}
[[noreturn]] inline void stuck(const char* what) { stuck(*block, what); }

// Releases what can be released in `b`: a warp barrier once every thread of
// the warp waits at it, the block barrier once every thread does. Whether
// anything was.
inline bool release(Block& b) {
  const unsigned n = static_cast<unsigned>(b.fibers.size());
  bool released = false;
  for (unsigned w = 0; w * 32 < n; ++w) {
    const unsigned end = std::min(n, w * 32 + 32);
    bool all = true;
    for (unsigned t = w * 32; t < end; ++t) all = all && b.fibers[t].state == Fiber::State::AtWarpBarrier;
    if (!all) continue;
    for (unsigned t = w * 32; t < end; ++t) b.fibers[t].state = Fiber::State::Running;
    released = true;
  }
  unsigned done = 0, at_block = 0;
  for (const Fiber& f : b.fibers) {
    done += f.state == Fiber::State::Done;
    at_block += f.state == Fiber::State::AtBlockBarrier;
  }
  if (at_block > 0 && at_block + done == n) {
    if (done) stuck(b, "__syncthreads() after some threads returned");
    for (Fiber& f : b.fibers) f.state = Fiber::State::Running;
    released = true;
  }
  return released;
}

// Runs the threads of `blocks` together (all resident at once, as a
// cooperative launch) until every one has returned, each in turn until it
// reaches a barrier, returns or spins. Fails where nothing can move: threads
// of a block at different barriers, or every thread waiting on the others.
// KDT_HOST_SEED (environment; 0 or unset: blocks in order) shuffles the
// order blocks take their turns in, every round, for other interleavings.
inline void run(std::vector<Block*> const& blocks) {
  const char* seed = std::getenv("KDT_HOST_SEED");
  std::mt19937 rng(seed ? static_cast<unsigned>(std::strtoul(seed, nullptr, 10)) : 0u);
  std::vector<Block*> order = blocks;
  for (;;) {
    bool progress = false, all_done = true;
    if (seed && std::strtoul(seed, nullptr, 10) != 0) std::shuffle(order.begin(), order.end(), rng);
    for (Block* b : order) {
      block = b;
      threadIdx.x = 0;
      blockIdx.x = b->id;
      for (unsigned t = 0; t < b->fibers.size(); ++t) {
        Fiber& f = b->fibers[t];
        if (f.state != Fiber::State::Running && f.state != Fiber::State::Spinning) continue;
        current = t;
        threadIdx.x = t;
        f.state = Fiber::State::Running;
        swapcontext(&scheduler, &f.context);
        progress |= f.state != Fiber::State::Spinning;
      }
    }
    for (Block* b : blocks) {
      progress |= release(*b);
      for (const Fiber& f : b->fibers) all_done = all_done && f.state == Fiber::State::Done;
    }
    if (all_done) return;
    if (progress) continue;
    for (Block* b : blocks) {
      bool spinning = false;
      for (const Fiber& f : b->fibers) spinning = spinning || f.state == Fiber::State::Spinning;
      if (!spinning) stuck(*b, "threads wait at different barriers (a barrier in divergent code)");
    }
    stuck(*blocks.front(), "every thread waits for another: a deadlock between blocks or devices");
  }
}

// A block of `threads` threads running `kernel`, its shared memory junk.
inline std::unique_ptr<Block> make_block(unsigned device, unsigned id, unsigned threads, size_t shared_bytes,
                                         std::function<void()> kernel) {
  auto b = std::make_unique<Block>();
  b->device = device;
  b->id = id;
  b->body = std::move(kernel);
  b->shared.assign(std::max<size_t>(shared_bytes, 16), 0xA5);  // stale shared memory
  b->lanes.assign(((threads + 31) / 32) * 32, 0);
  b->async.assign(threads, Block::ThreadAsync{});
  b->fibers.assign(threads, Fiber{});
  for (Fiber& f : b->fibers) {
    f.stack = std::malloc(kStackBytes);  // untouched pages cost nothing
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack;
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = nullptr;
    makecontext(&f.context, fiber_main, 0);
  }
  return b;
}

// Bulk stores nobody waited for still land (after the block: as late as can be).
inline void land_the_rest(Block& b) {
  for (Block::ThreadAsync& a : b.async) {
    a.groups.push_back(a.open);
    for (const auto& group : a.groups) {
      for (const Block::Copy& c : group) c.land(c.dst, c.src, c.bytes);
    }
  }
}

// Runs `kernel(device)` (one thread's code) over `blocks` blocks of
// `threads` threads on each of `devices` devices. One device: block after
// block. Several: every block of every device at once (kdt launches them
// cooperatively: they may wait for each other).
inline void launch(unsigned devices, unsigned blocks, unsigned threads, size_t shared_bytes,
                   const std::function<void(unsigned device)>& kernel) {
  blockDim.x = threads;
  gridDim.x = blocks;
  std::vector<std::unique_ptr<Block>> all;
  for (unsigned d = 0; d < devices; ++d) {
    for (unsigned id = 0; id < blocks; ++id) {
      all.push_back(make_block(d, id, threads, shared_bytes, [&kernel, d] { kernel(d); }));
      if (devices > 1) continue;
      run({all.back().get()});
      land_the_rest(*all.back());
      all.clear();
    }
  }
  if (all.empty()) return;
  std::vector<Block*> together;
  for (auto& b : all) together.push_back(b.get());
  run(together);
  for (auto& b : all) land_the_rest(*b);
}

}  // namespace kdt_host

inline void __syncthreads() { kdt_host::yield(kdt_host::Fiber::State::AtBlockBarrier); }

inline void __syncwarp(unsigned = 0xffffffffu) { kdt_host::yield(kdt_host::Fiber::State::AtWarpBarrier); }

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

// Atomics and fences: fibers switch only at barriers, so a plain
// read-modify-write is atomic and every write is seen in program order.
// An f32 atomic add flushes subnormal inputs and results to zero, as the
// GPU's red/atom.add.f32 does (docs/cuda.md, issue 19 item 6).
inline float flush_subnormal(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
template <class T>
inline T atomicAdd(T* p, T v) {
  const T old = *p;
  if constexpr (std::is_same_v<T, float>) *p = flush_subnormal(flush_subnormal(old) + flush_subnormal(v));
  else *p = old + v;
  return old;
}
template <class T>
inline T atomicAdd_system(T* p, T v) {
  return atomicAdd(p, v);
}
inline unsigned atomicCAS(unsigned* p, unsigned expected, unsigned desired) {
  const unsigned old = *p;
  if (old == expected) *p = desired;
  return old;
}
inline unsigned atomicCAS_system(unsigned* p, unsigned expected, unsigned desired) {
  return atomicCAS(p, expected, desired);
}
inline size_t __cvta_generic_to_shared(const void* p) { return reinterpret_cast<size_t>(p); }
inline void __threadfence() {}
inline void __threadfence_block() {}
inline void __threadfence_system() {}
// A wait for another block or device polls, sleeping between polls: here it
// lets every other thread run first.
inline void __nanosleep(unsigned) { kdt_host::yield(kdt_host::Fiber::State::Spinning); }

// The async proxy of kdt_cuda_dma.h (KDT_CU_HOST). Copies do not land when
// issued: those completing on an mbarrier land when a thread first waits
// on it, bulk stores when their group is waited for (or after the block),
// each reading its source then — the latest the GPU may. So a kernel that
// reads a destination before its wait, or reuses a source before the
// store's wait, reads stale or junk bytes here and its output differs.
namespace kdt_cu_host {

using Block = kdt_host::Block;

inline void copy_bytes(void* dst, const void* src, unsigned bytes) { std::memcpy(dst, src, bytes); }
inline Block::ThreadAsync& mine() { return kdt_host::block->async[threadIdx.x]; }
inline Block::Mbarrier& mbarrier(const void* bar) {
  auto it = kdt_host::block->mbarriers.find(bar);
  if (it == kdt_host::block->mbarriers.end()) kdt_host::stuck("an mbarrier used before mbar_init");
  return it->second;
}

inline void mbar_init(void* bar) { kdt_host::block->mbarriers[bar] = Block::Mbarrier{}; }
inline void mbar_arrive(void* bar) { --mbarrier(bar).pending; }
inline void mbar_expect_tx(void* bar, unsigned bytes) {
  mbarrier(bar).tx += bytes;
  mbar_arrive(bar);
}
inline void bulk_g2s(void* dst, const void* src, unsigned bytes, void* bar) {
  mbarrier(bar).copies.push_back({dst, src, bytes, copy_bytes, true});
}
// Lands what completes on `bar`; whether the phase of parity `parity` is
// then complete (false: it never will, as every arrival came before).
inline bool mbar_wait(void* bar, unsigned parity) {
  Block::Mbarrier& m = mbarrier(bar);
  for (const Block::Copy& c : m.copies) {
    c.land(c.dst, c.src, c.bytes);
    if (c.counts_tx) m.tx -= c.bytes;
  }
  m.copies.clear();
  if ((m.phase & 1u) == parity && m.pending <= 0 && m.tx == 0) {
    ++m.phase;
    m.pending = 1;
  }
  return (m.phase & 1u) != parity;
}
// cp.async: no transaction bytes; the thread's copies complete on the
// mbarrier its cp.async.mbarrier.arrive names.
inline void cp_async(void* dst, const void* src, unsigned bytes) { mine().cp_async.push_back({dst, src, bytes, copy_bytes}); }
inline void cp_async_arrive(void* bar) {
  Block::Mbarrier& m = mbarrier(bar);
  for (const Block::Copy& c : mine().cp_async) m.copies.push_back(c);
  mine().cp_async.clear();
}
inline void bulk_s2g(void* dst, const void* src, unsigned bytes) { mine().open.push_back({dst, src, bytes, copy_bytes}); }
// dst += src element by element, as the bulk reduce engine adds: f32 with
// subnormals flushed (.add.f32), f16/bf16 rounded once (.noftz), integers wrapping.
template <class T>
inline void add_land(void* dst, const void* src, unsigned bytes) {
  T* d = static_cast<T*>(dst);
  const T* s = static_cast<const T*>(src);
  for (unsigned i = 0; i < bytes / sizeof(T); ++i) {
    if constexpr (std::is_same_v<T, float>) {
      d[i] = flush_subnormal(flush_subnormal(d[i]) + flush_subnormal(s[i]));
    } else if constexpr (std::is_same_v<T, __half>) {
      d[i] = __float2half_rn(__half2float(d[i]) + __half2float(s[i]));
    } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
      d[i] = __float2bfloat16_rn(__bfloat162float(d[i]) + __bfloat162float(s[i]));
    } else if constexpr (std::is_integral_v<T>) {
      d[i] = static_cast<T>(static_cast<std::make_unsigned_t<T>>(d[i]) + static_cast<std::make_unsigned_t<T>>(s[i]));
    } else {
      d[i] = d[i] + s[i];
    }
  }
}
template <class T>
inline void bulk_s2g_add(T* dst, const T* src, unsigned bytes) {
  mine().open.push_back({dst, src, bytes, add_land<T>});
}
inline void bulk_commit() {
  mine().groups.push_back(mine().open);
  mine().open.clear();
}
inline void bulk_wait_group(unsigned younger) {
  auto& groups = mine().groups;
  while (groups.size() > younger) {
    for (const Block::Copy& c : groups.front()) c.land(c.dst, c.src, c.bytes);
    groups.erase(groups.begin());
  }
}

}  // namespace kdt_cu_host

// The device runtime as kdt embeds it, with KDT_CU_HOST: its async copies
// and mbarriers call kdt_cu_host above, its `dot_mma` the warp matrix
// functions of tests/cuda_host/mma.h (which stands in for <mma.h>).
#include "kdt/runtime/cuda/kdt_cuda.h"
