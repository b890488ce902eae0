// kdt_dma.h - the DMA model of the C++ path: started DMAs, the DMA and
// regular semaphores, and the clocks a signal releases and a wait acquires.
// What a DMA does to shadow memory is kdt_shadow.h.
#ifndef KDT_RUNTIME_KDT_DMA_H
#define KDT_RUNTIME_KDT_DMA_H

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "kdt_checks.h"

namespace kdt_rt {

// ---------------------------------------------------------------------------
// Semaphores. A DMA semaphore keeps the queue of DMAs started on it; each
// wait retires the oldest. `landed` DMAs have moved their data already.
// ---------------------------------------------------------------------------
constexpr int kMaxCaptured = 16;

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
  int64_t starts[kMaxCaptured] = {};
  SourceLoc loc{"", 0, 0, 0, 0};
  // Run-time checks: the element sets and the shadows of both refs.
  bool add = false;
  Box src_box, dst_box;
  RefShadow* src_shadow = nullptr;
  RefShadow* dst_shadow = nullptr;
  const DmaSemaphore* dst_sem = nullptr;
  bool has_src_sem = false;
  bool src_released = false;
  std::vector<uint32_t> clock;  // the starter's vector clock at dma_start
};

struct DmaSemaphore {
  std::deque<std::shared_ptr<DmaRecord>> in_flight;
};

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

}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_DMA_H
