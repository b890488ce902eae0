// What the DMA-protocol analysis knows on one path of one program: the
// values of its scalar locals, the DMAs in flight on each semaphore (in
// the order the program started them, section 7's fifo), each regular
// semaphore's count, and the errors certain on that path so far.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "symbolic.h"

namespace kdt::analysis {

// One decision on the way to a statement that is the same on every
// execution: an iteration of a loop of constant bounds or a step of the
// sequence (`value` is the counter), or a branch of an `if` whose condition
// is known (`value` is the clause).
struct Frame {
  const ir::Stmt* stmt = nullptr;
  int64_t value = 0;
  bool operator==(const Frame& o) const { return stmt == o.stmt && value == o.value; }
};
using Context = std::vector<Frame>;

// A statement as executed: where, and on which known path.
struct Site {
  const ir::Stmt* stmt = nullptr;
  Context ctx;
  bool operator==(const Site& o) const { return stmt == o.stmt && ctx == o.ctx; }
};

// A view with its starts evaluated when the statement ran.
struct ViewValue {
  int ref = -1;
  std::vector<Value> starts;
  std::vector<int64_t> sizes;
  bool operator==(const ViewValue& o) const { return ref == o.ref && starts == o.starts && sizes == o.sizes; }
};

// One DMA in flight on one semaphore element. A local DMA is on its
// destination semaphore (`receive`: its destination and source are in
// flight); a remote one is on its `src_sem` (only its source is).
struct Flight {
  Site start;
  int64_t bytes = 0;
  bool receive = true;
  bool add = false;
  ViewValue src, dst;
  bool reported = false;  // already a leak at the end of a scope
  bool operator==(const Flight& o) const {
    return start == o.start && bytes == o.bytes && receive == o.receive && add == o.add && src == o.src &&
           dst == o.dst && reported == o.reported;
  }
};

struct SemSlot {
  std::vector<Flight> queue;  // DMA semaphores: oldest first
  int64_t count = 0;          // regular semaphores
  Site last_signal;           // the signal that last raised it
  Site last_wait;             // the wait that last retired a DMA on it
  bool operator==(const SemSlot& o) const {
    return queue == o.queue && count == o.count && last_signal == o.last_signal && last_wait == o.last_wait;
  }
};

// A semaphore array. Untracked: a peer can raise it, or the analysis lost
// which element an operation names; nothing is claimed about it.
struct SemState {
  bool tracked = true;
  std::vector<SemSlot> slots;
  bool operator==(const SemState& o) const { return tracked == o.tracked && (!tracked || slots == o.slots); }
};

enum class Problem {
  Leak,             // a DMA in flight when the program ends
  ScopeLeak,        // ... when the block that declares its semaphore or scratch ends
  RegularLeak,      // a regular semaphore not at 0 when the program ends
  RegularScopeLeak, // ... when the block that declares it ends
  NothingToRetire,  // a dma_wait with no DMA in flight on its semaphore
  WaitMismatch,     // a dma_wait whose bytes differ from the DMA it retires
  RegularBlocked,   // a sem_wait for more than the semaphore can ever hold
  ReadInFlight,     // a read of a destination in flight
  WriteInFlight,    // a store into a destination in flight
  WriteSource,      // a store or DMA into a source in flight
  DmaOverlap,       // a DMA writing a destination in flight (not both add)
};

// An error certain on the path that found it. `at` is the statement (and
// `range` the expression) reported; `other` the DMA start, wait or scope
// end it involves.
struct Finding {
  Problem problem = Problem::Leak;
  Site at;
  SourceRange range;
  Site other;
  int sem = -1;
  int64_t slot = 0;
  int ref = -1;
  int64_t a = 0, b = 0;  // byte counts or semaphore counts
  bool operator==(const Finding& o) const {
    return problem == o.problem && at == o.at && range.file == o.range.file && range.begin == o.range.begin &&
           range.end == o.range.end && other == o.other && sem == o.sem && slot == o.slot && ref == o.ref &&
           a == o.a && b == o.b;
  }
};

// A finding of `problem` at `at` (reported at `range`) on semaphore element `slot` of `sem`.
inline Finding make_finding(Problem problem, Site at, SourceRange range, int sem, int64_t slot) {
  Finding f;
  f.problem = problem;
  f.at = std::move(at);
  f.range = range;
  f.sem = sem;
  f.slot = slot;
  return f;
}

struct State {
  std::vector<Value> locals;
  std::vector<SemState> sems;
  Context ctx;
  std::vector<Finding> findings;
  // The run stops at its first error (as the C++ path's checks do) or
  // where it blocks for ever: nothing after it happens on this path.
  bool stopped = false;
  bool same_facts(const State& o) const { return locals == o.locals && sems == o.sems && ctx == o.ctx; }
};

}  // namespace kdt::analysis
