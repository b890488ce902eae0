// kdt_dma.h - the DMA model of the C++ path: started DMAs, the DMA and
// regular semaphores, and the clocks a signal releases and a wait acquires.
// What a DMA does to shadow memory is kdt_shadow.h.
#ifndef KDT_RUNTIME_KDT_DMA_H
#define KDT_RUNTIME_KDT_DMA_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "kdt_api.h"
#include "kdt_checks.h"
#include "kdt_scheduler.h"

namespace kdt_rt {

// ---------------------------------------------------------------------------
// Semaphores. A DMA semaphore keeps the list of DMAs started on it, oldest
// first; each wait retires one, chosen by --dma-order (take_for_wait).
// `landed` DMAs have moved their data already.
// ---------------------------------------------------------------------------
constexpr int kMaxCaptured = 16;

// The run of an `add=true` DMA: dst[j] += src[j]. Versioned on overlap
// (both may be views of one ref), so that the common disjoint case runs a
// restrict-qualified loop the compiler vectorises; each element is one
// addition either way, so the result does not depend on which loop ran.
template <class T>
inline void add_run(T* dst, const T* src, int64_t n) {
  const auto d = reinterpret_cast<std::uintptr_t>(dst), s = reinterpret_cast<std::uintptr_t>(src);
  const std::uintptr_t bytes = static_cast<std::uintptr_t>(n) * sizeof(T);
  if (d + bytes <= s || s + bytes <= d) {
    T* __restrict out = dst;
    const T* __restrict in = src;
    for (int64_t j = 0; j < n; ++j) out[j] = op_add(out[j], in[j]);
  } else {
    for (int64_t j = 0; j < n; ++j) dst[j] = op_add(dst[j], src[j]);
  }
}

// add_run for f32 under --flush-subnormal-adds: as a GPU adds into global
// memory (atom/red.add.f32 and cp.reduce.async.bulk .add.f32 flush
// subnormal inputs and results to sign-preserving zero).
inline float flush_subnormal(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
inline void add_run_flushing(float* dst, const float* src, int64_t n) {
  for (int64_t j = 0; j < n; ++j) dst[j] = flush_subnormal(op_add(flush_subnormal(dst[j]), flush_subnormal(src[j])));
}

struct RefShadow;
struct DmaSemaphore;

// One started DMA. The destination semaphore's queue holds it and, for a
// remote DMA, so does the sender's `src_sem` queue: whichever wait retires
// it first moves the data (on_wait mode).
struct DmaRecord {
  int site = 0;
  int64_t bytes = 0;
  bool landed = false;
  int src_device = 0;
  int dst_device = 0;
  int64_t program = 0;  // flattened program index (the same on both devices)
  void* issuer = nullptr;  // in a launch of independent programs (kdt_parallel.h), the starter's state
  int64_t starts[kMaxCaptured] = {};
  SourceLoc loc{"", 0, 0, 0, 0};
  // Run-time checks: the element sets and the shadows of both refs.
  bool add = false;
  // A block spec's copy (spec section 13): the destination's elements are
  // written where the source's were; the source need not be written.
  bool copies_written = false;
  Box src_box, dst_box;
  RefShadow* src_shadow = nullptr;
  RefShadow* dst_shadow = nullptr;
  const DmaSemaphore* dst_sem = nullptr;
  bool has_src_sem = false;
  bool src_released = false;
  std::vector<uint32_t> clock;  // the starter's vector clock at dma_start
  // A remote add=true DMA's source as its sender's src_sem wait read it;
  // the addition lands at the receiver's wait (on_wait mode).
  std::vector<unsigned char> staged;
};

struct DmaSemaphore {
  std::deque<std::shared_ptr<DmaRecord>> in_flight;
  int starter = -1;  // free-running launches: the device whose DMAs it holds (enqueue)
  uint64_t waits = 0;  // waits that retired a DMA here (--dma-order=shuffle draws from it)
  // sem_read (spec section 7): the bytes of the DMAs not yet waited here, as
  // if all had landed (a read lands them first, section 17).
  int64_t unwaited_bytes() const {
    int64_t bytes = 0;
    for (const std::shared_ptr<DmaRecord>& d : in_flight) bytes += d->bytes;
    return bytes;
  }
};

// Puts a started DMA on `sem`'s list (with DeviceScheduler::Comm held).
// In a free-running launch, a DMA semaphore's DMAs must all come from one
// device, whose own order then makes fifo's oldest the same in every
// schedule; a second device's makes the launch schedule-dependent, and it
// runs again with the baton (kdt_scheduler.h).
inline void enqueue(const DeviceScheduler& scheduler, DmaSemaphore& sem, std::shared_ptr<DmaRecord> dma) {
  if (scheduler.is_free_running()) {
    if (sem.starter < 0) sem.starter = dma->src_device;
    if (sem.starter != dma->src_device) DeviceScheduler::schedule_dependent("a DMA semaphore fed by two devices");
  }
  sem.in_flight.push_back(std::move(dma));
}

// The DMA a wait for `bytes` retires (spec section 16, --dma-order), taken
// off `sem`'s list, which is not empty. fifo (RunOptions::dma_order 0): the
// oldest, whatever its byte count. lifo (1): the newest with `bytes`;
// shuffle (2): a seeded one among those with `bytes`. When none has
// `bytes`, lifo takes the newest and shuffle a seeded one of all. The caller
// compares the count of the one taken with `bytes` (dma-wait-mismatch).
KDT_RT_API std::shared_ptr<DmaRecord> take_for_wait(DmaSemaphore& sem, int64_t bytes, const RunOptions& options);

struct RegularSemaphore {
  int64_t value = 0;
  std::vector<uint32_t> clock;  // the clocks released into it (run-time checks)
};

// sem_signal: the signaller's past happens before whatever the wait does.
inline void release(RegularSemaphore& sem, ProgramClock& c) {
  if (sem.clock.size() < c.vc.size()) sem.clock.resize(c.vc.size(), 0);
  for (size_t d = 0; d < c.vc.size(); ++d) sem.clock[d] = std::max(sem.clock[d], c.vc[d]);
  c.tick();
}

inline void acquire(ProgramClock& c, const RegularSemaphore& sem) { c.join(sem.clock); }

// ---------------------------------------------------------------------------
// Definitions of the functions declared KDT_RT_API above: inline in a
// self-contained file, compiled once into `kdt run`'s runtime library,
// and left out of a kernel that links that library (kdt_api.h).
// ---------------------------------------------------------------------------
#if !defined(KDT_RT_SEPARATE)

KDT_RT_API std::shared_ptr<DmaRecord> take_for_wait(DmaSemaphore& sem, int64_t bytes, const RunOptions& options) {
  std::deque<std::shared_ptr<DmaRecord>>& q = sem.in_flight;
  size_t pick = 0;
  if (options.dma_order != 0) {
    std::vector<size_t> candidates;
    for (size_t i = 0; i < q.size(); ++i) {
      if (q[i]->bytes == bytes) candidates.push_back(i);
    }
    if (candidates.empty()) {
      for (size_t i = 0; i < q.size(); ++i) candidates.push_back(i);
    }
    if (options.dma_order == 1) {
      pick = candidates.back();
    } else {
      // Seeded by the run's seed, this semaphore's count of waits and its
      // oldest DMA (site, program, devices), so that semaphores draw apart
      // and a run is reproducible.
      const DmaRecord& oldest = *q.front();
      SplitMix64 rng{options.seed ^ 0xd3a0d3a0ULL};
      rng.state ^= sem.waits * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(oldest.site);
      rng.state ^= rng.next() + static_cast<uint64_t>(oldest.program) * 0xBF58476D1CE4E5B9ull +
                   static_cast<uint64_t>(oldest.src_device) * 131 + static_cast<uint64_t>(oldest.dst_device);
      pick = candidates[rng.next() % candidates.size()];
    }
  }
  std::shared_ptr<DmaRecord> d = q[pick];
  q.erase(q.begin() + static_cast<std::ptrdiff_t>(pick));
  ++sem.waits;
  return d;
}

#endif  // !KDT_RT_SEPARATE

}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_DMA_H
