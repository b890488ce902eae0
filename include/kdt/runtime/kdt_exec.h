// kdt_exec.h - execution support for emitted C++: run-time checks, the
// semaphore and DMA bookkeeping of the interpretation path, element-wise
// math for every float dtype, and the pieces of the optional harness.
// Included (embedded) after kdt_runtime.h by every emitted file.
#ifndef KDT_RUNTIME_KDT_EXEC_H
#define KDT_RUNTIME_KDT_EXEC_H

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <string>
#include <vector>

#include "kdt_runtime.h"

namespace kdt_rt {

// ---------------------------------------------------------------------------
// Run-time diagnostics: a failed check stops the launch with one of these.
// Locations carry the KD file, line/column and byte range, so that `kdt run`
// can render them like its compile-time diagnostics.
// ---------------------------------------------------------------------------
struct SourceLoc {
  const char* file;
  int line;
  int column;
  uint32_t begin;
  uint32_t end;
};

struct RunError {
  std::string code;
  std::string message;
  SourceLoc loc{"", 0, 0, 0, 0};
  std::vector<std::pair<std::string, SourceLoc>> notes;
};

struct RunFailure {
  RunError error;
};

[[noreturn]] inline void fail(const char* code, const SourceLoc& loc, std::string message) {
  RunError e;
  e.code = code;
  e.message = std::move(message);
  e.loc = loc;
  throw RunFailure{std::move(e)};
}

struct RunOptions {
  bool eager_dma = false;   // --dma-mode=eager: data moves at dma_start
  int program_order = 0;    // 0 forward, 1 reverse, 2 shuffle
  uint64_t seed = 0;        // for shuffle (and, in the harness, the inputs)
};

// The order in which a device runs its programs (flattened grid indices).
inline std::vector<int64_t> program_order(int64_t count, const RunOptions& options) {
  std::vector<int64_t> order(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) order[static_cast<size_t>(i)] = i;
  if (options.program_order == 1) std::reverse(order.begin(), order.end());
  if (options.program_order == 2) {
    SplitMix64 rng{options.seed ^ 0x5eedULL};
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.next() % i]);
  }
  return order;
}

inline int64_t checked_index(int64_t start, int64_t size, int64_t dim, const SourceLoc& loc, const char* what) {
  if (start < 0 || start + size > dim) {
    fail("out-of-bounds", loc,
         std::string(what) + " " + std::to_string(start) + (size > 1 ? ":" + std::to_string(start + size) : "") +
             " is out of bounds for a dimension of size " + std::to_string(dim));
  }
  return start;
}

template <class T>
inline T checked_divisor(T divisor, const SourceLoc& loc) {
  if (divisor == T(0)) fail("division-by-zero", loc, "integer division by zero");
  return divisor;
}

// ---------------------------------------------------------------------------
// Semaphores. A DMA semaphore keeps the queue of DMAs started on it; each
// wait retires the oldest. `landed` DMAs have moved their data already.
// ---------------------------------------------------------------------------
constexpr int kMaxCaptured = 16;

struct RefShadow;
struct DmaSemaphore;

// An element set of a ref as a box: one [start, start + size) per ref
// dimension (a dropped dimension has size 1). Views are exactly boxes.
constexpr int kMaxRank = 16;  // kdt::kMaxRefRank (include/kdt/limits.h): the checker refuses more
struct Box {
  int rank = 0;
  int64_t start[kMaxRank] = {};
  int64_t size[kMaxRank] = {};
};

inline bool overlap(const Box& a, const Box& b) {
  for (int d = 0; d < a.rank; ++d) {
    if (a.start[d] + a.size[d] <= b.start[d] || b.start[d] + b.size[d] <= a.start[d]) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Happens-before for the cross-program race check (spec section 1). Two
// programs with different parallel ids are never ordered (a grid's
// programs may run in any order, and nothing connects them); the same
// program on different devices is ordered through semaphores only. So each
// (device, program) keeps a vector clock over the devices: entry d is the
// latest event of program `flat` on device d known to happen before now.
// A signal releases the signaller's clock into the semaphore and a wait
// acquires it; a DMA carries its starter's clock to the wait that retires it.
// (A wait acquires every signal its semaphore received so far, not only the
// ones it consumes: a race hidden that way is missed, none is invented.)
// ---------------------------------------------------------------------------
struct ProgramClock {
  int device = 0;
  int64_t flat = 0;
  std::vector<uint32_t> vc;

  void init(int dev, int64_t program, int devices) {
    device = dev;
    flat = program;
    vc.assign(static_cast<size_t>(devices), 0);
    vc[static_cast<size_t>(dev)] = 1;
  }
  // After a release, later events of this program are not covered by it.
  void tick() { ++vc[static_cast<size_t>(device)]; }
  void join(const std::vector<uint32_t>& other) {
    for (size_t d = 0; d < other.size() && d < vc.size(); ++d) vc[d] = std::max(vc[d], other[d]);
  }
};

// One access recorded in a shadow: who, at which point of its clock, where.
struct Epoch {
  int64_t flat = -1;  // -1: none
  int device = 0;
  uint32_t clock = 0;
  bool by_dma = false;
  const SourceLoc* loc = nullptr;

  static Epoch of(const ProgramClock& c, const SourceLoc* where, bool dma) {
    return {c.flat, c.device, c.vc[static_cast<size_t>(c.device)], dma, where};
  }
  bool none() const { return flat < 0; }
  // Whether this access happens before everything `c` does from now on.
  bool before(const ProgramClock& c) const {
    if (none()) return true;
    if (flat != c.flat) return false;
    return clock <= c.vc[static_cast<size_t>(device)];
  }
};

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

// ---------------------------------------------------------------------------
// Simulated devices: one thread per device, but only one runs at a time.
// The baton passes (round-robin) when the running device blocks in a wait
// or finishes, so every run is reproducible and no C++ data race can occur.
// A deadlock is detected exactly: no device can run and one is blocked.
// ---------------------------------------------------------------------------
struct BlockedWait {
  std::string what;  // "sem_wait on `s` (value 0, needs 1)"
  SourceLoc loc{"", 0, 0, 0, 0};
  int64_t program = 0;
};

class DeviceScheduler {
 public:
  explicit DeviceScheduler(int devices)
      : state_(static_cast<size_t>(devices), State::Ready), ready_(static_cast<size_t>(devices)),
        blocked_(static_cast<size_t>(devices)) {}

  // Runs body(device) for every device; returns the first failure, if any.
  bool run(const std::function<void(int)>& body, RunError& failure) {
    int n = static_cast<int>(state_.size());
    current_ = 0;
    state_[0] = State::Running;
    std::vector<std::thread> threads;
    for (int d = 0; d < n; ++d) {
      try {
        threads.emplace_back(device_thread(d, body));
      } catch (const std::exception& x) {
        std::lock_guard<std::mutex> lock(mutex_);
        abort_with(resource_error("cannot start the thread of device " + std::to_string(d) + " (" + x.what() + ")"));
        break;
      }
    }
    for (std::thread& t : threads) t.join();
    if (aborted_) failure = failure_;
    return !aborted_;
  }

 private:
  // Memory or threads ran out: a diagnostic, never std::terminate.
  static RunError resource_error(std::string message) {
    RunError e;
    e.code = "limit-exceeded";
    e.message = std::move(message);
    return e;
  }

  // Called with the mutex held: keeps the first failure, wakes every device.
  void abort_with(const RunError& e) {
    if (!aborted_) failure_ = e;
    aborted_ = true;
    cv_.notify_all();
  }

  // Device `d`'s thread: waits for the baton, runs, passes it on.
  std::function<void()> device_thread(int d, const std::function<void(int)>& body) {
    return [this, d, &body] {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return current_ == d || aborted_; });
        if (aborted_) return;
      }
      try {
        body(d);
      } catch (const RunFailure& f) {
        std::lock_guard<std::mutex> lock(mutex_);
        abort_with(f.error);
        return;
      } catch (const Aborted&) {
        return;
      } catch (const std::exception& x) {
        std::lock_guard<std::mutex> lock(mutex_);
        abort_with(resource_error("the launch ran out of resources on device " + std::to_string(d) + " (" + x.what() + ")"));
        return;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      state_[static_cast<size_t>(d)] = State::Done;
      pass_baton(d);
    };
  }

 public:
  // Blocks `device` until `ready()` holds, letting other devices run.
  void wait_until(int device, const std::function<bool()>& ready, const BlockedWait& info) {
    if (ready()) return;
    std::unique_lock<std::mutex> lock(mutex_);
    size_t d = static_cast<size_t>(device);
    state_[d] = State::Blocked;
    ready_[d] = ready;
    blocked_[d] = info;
    pass_baton(device);
    cv_.wait(lock, [&] { return current_ == device || aborted_; });
    if (aborted_) throw Aborted{};
    state_[d] = State::Running;
  }

 private:
  enum class State { Ready, Running, Blocked, Done };
  struct Aborted {};

  // Called with the mutex held by the device giving up the baton.
  void pass_baton(int from) {
    int n = static_cast<int>(state_.size());
    for (int step = 1; step <= n; ++step) {
      size_t d = static_cast<size_t>((from + step) % n);
      if (state_[d] == State::Ready || (state_[d] == State::Blocked && ready_[d]())) {
        state_[d] = State::Running;
        current_ = static_cast<int>(d);
        cv_.notify_all();
        return;
      }
    }
    bool any_blocked = false;
    RunError e;
    e.code = "deadlock";
    for (size_t d = 0; d < state_.size(); ++d) {
      if (state_[d] != State::Blocked) continue;
      std::string where = "device " + std::to_string(d) + ", program " + std::to_string(blocked_[d].program) +
                          ": " + blocked_[d].what;
      if (!any_blocked) {
        e.loc = blocked_[d].loc;
        e.message = "deadlock: no device can run; " + where;
      } else {
        e.notes.emplace_back("also blocked: " + where, blocked_[d].loc);
      }
      any_blocked = true;
    }
    if (any_blocked) {
      failure_ = e;
      aborted_ = true;
    }
    current_ = -1;
    cv_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  int current_ = 0;
  bool aborted_ = false;
  RunError failure_;
  std::vector<State> state_;
  std::vector<std::function<bool()>> ready_;
  std::vector<BlockedWait> blocked_;
};

inline int checked_device(int64_t device, int64_t devices, const SourceLoc& loc) {
  if (device < 0 || device >= devices) {
    fail("out-of-bounds", loc,
         "device " + std::to_string(device) + " does not exist; the kernel runs on " + std::to_string(devices) +
             (devices == 1 ? " device" : " devices"));
  }
  return static_cast<int>(device);
}

// ---------------------------------------------------------------------------
// Element-wise math, one overload set per float dtype; f16/bf16 compute in
// f32 and round once (spec section 1).
// ---------------------------------------------------------------------------
#define KDT_MATH_UNARY(name, expr)                                            \
  inline float name(float x) { return expr; }                                 \
  inline double name(double x) { return expr; }                               \
  inline f16 name(f16 h) { return f16_from_f32(name(to_f32(h))); }            \
  inline bf16 name(bf16 h) { return bf16_from_f32(name(to_f32(h))); }
namespace math {
KDT_MATH_UNARY(exp, std::exp(x))
KDT_MATH_UNARY(log, std::log(x))
KDT_MATH_UNARY(sqrt, std::sqrt(x))
KDT_MATH_UNARY(rsqrt, kdt_rt::rsqrt(x))
KDT_MATH_UNARY(tanh, std::tanh(x))
KDT_MATH_UNARY(sin, std::sin(x))
KDT_MATH_UNARY(cos, std::cos(x))
KDT_MATH_UNARY(abs, std::fabs(x))
KDT_MATH_UNARY(floor, std::floor(x))
KDT_MATH_UNARY(ceil, std::ceil(x))
}  // namespace math
#undef KDT_MATH_UNARY

// Arithmetic on every dtype with KD's rules: integers wrap, f16/bf16 round
// after each operation, floats are plain IEEE (no contraction: emitted
// files are compiled with -ffp-contract=off by `kdt run`, and each
// operation here is a separate statement-level expression).
template <class T> inline T op_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) return wrap_add(a, b); else return a + b;
}
template <class T> inline T op_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>) return wrap_sub(a, b); else return a - b;
}
template <class T> inline T op_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) return wrap_mul(a, b); else return a * b;
}
template <class T> inline T op_neg(T a) {
  if constexpr (std::is_integral_v<T>) return wrap_neg(a); else return -a;
}
inline f16 op_add(f16 a, f16 b) { return add(a, b); }
inline f16 op_sub(f16 a, f16 b) { return sub(a, b); }
inline f16 op_mul(f16 a, f16 b) { return mul(a, b); }
inline f16 op_neg(f16 a) { return neg(a); }
inline bf16 op_add(bf16 a, bf16 b) { return add(a, b); }
inline bf16 op_sub(bf16 a, bf16 b) { return sub(a, b); }
inline bf16 op_mul(bf16 a, bf16 b) { return mul(a, b); }
inline bf16 op_neg(bf16 a) { return neg(a); }

template <class T> inline T op_div(T a, T b) { return a / b; }
inline f16 op_div(f16 a, f16 b) { return div(a, b); }
inline bf16 op_div(bf16 a, bf16 b) { return div(a, b); }
template <class T> inline T op_rem(T a, T b) { return static_cast<T>(std::fmod(a, b)); }
inline f16 op_rem(f16 a, f16 b) { return f16_from_f32(std::fmod(to_f32(a), to_f32(b))); }
inline bf16 op_rem(bf16 a, bf16 b) { return bf16_from_f32(std::fmod(to_f32(a), to_f32(b))); }

// Comparisons: native for arithmetic types, through f32 for f16/bf16.
template <class T> inline float cmp_value(T x) { return static_cast<float>(x); }
inline float cmp_value(f16 x) { return to_f32(x); }
inline float cmp_value(bf16 x) { return to_f32(x); }

// ---------------------------------------------------------------------------
// Shadows for the run-time checks `race` and `uninitialized-read`: per ref
// instance, which elements were ever written, which DMAs are in flight on
// it (as boxes), and, for writable @global parameters, the history of each
// element that the cross-program check needs (spec section 1).
// ---------------------------------------------------------------------------
struct Claim {
  std::shared_ptr<DmaRecord> dma;
  Box box;
  bool destination;
};

// What one access does to the elements it touches.
enum class Access {
  Read,
  Write,
  Update,     // `+=`, `-=`, `*=`: a read, then a write
  Accumulate  // an add=true DMA's destination: atomic per element
};

// Marks an Epoch slot whose accesses are several, concurrent ones (kept in
// RefShadow::shared_reads or shared_accums).
constexpr int64_t kSharedEpoch = -2;

// The cross-program history of one element: its last plain write, and
// the reads and accumulations since that no later access has covered.
struct ElementHistory {
  Epoch write;
  Epoch read;
  Epoch accum;
};

using SharedEpochs = std::unordered_map<size_t, std::vector<Epoch>>;

struct RefShadow {
  const char* name = "";
  std::vector<int64_t> shape;
  bool track_written = false;  // scratch and `out` parameters
  bool track_writers = false;  // writable @global parameters (cross-program races)
  std::vector<uint8_t> written;
  std::vector<ElementHistory> history;
  SharedEpochs shared_reads, shared_accums;
  std::vector<Claim> claims;

  void init(const char* ref_name, std::vector<int64_t> ref_shape, bool written_tracking, bool writer_tracking) {
    name = ref_name;
    shape = std::move(ref_shape);
    track_written = written_tracking;
    track_writers = writer_tracking;
  }

  size_t count() const {
    size_t n = 1;
    for (int64_t d : shape) n *= static_cast<size_t>(d);
    return n;
  }

  // The shadows are made when first needed: most refs never need one.
  std::vector<uint8_t>& written_flags() {
    if (written.empty()) written.assign(count(), 0);
    return written;
  }
  std::vector<ElementHistory>& histories() {
    if (history.empty()) history.assign(count(), ElementHistory{});
    return history;
  }

  // The one-element box of flat offset `offset`.
  Box element_box(size_t offset) const {
    Box b;
    b.rank = static_cast<int>(shape.size());
    for (int d = b.rank - 1; d >= 0; --d) {
      size_t dim = static_cast<size_t>(shape[static_cast<size_t>(d)]);
      b.start[d] = static_cast<int64_t>(offset % dim);
      b.size[d] = 1;
      offset /= dim;
    }
    return b;
  }

  // Calls f(flat offset) for every element of `box`, row by row: the last
  // dimension is contiguous, so the inner loop is a plain increment.
  template <class F>
  void for_each(const Box& box, F&& f) const {
    if (box.rank == 0) {
      f(size_t{0});
      return;
    }
    int last = box.rank - 1;
    int64_t idx[kMaxRank] = {};
    size_t rows = 1;
    for (int d = 0; d < last; ++d) rows *= static_cast<size_t>(box.size[d]);
    for (size_t row = 0; row < rows; ++row) {
      size_t offset = 0;
      for (int d = 0; d < box.rank; ++d) {
        offset = offset * static_cast<size_t>(shape[static_cast<size_t>(d)]) +
                 static_cast<size_t>(box.start[d] + (d < last ? idx[d] : 0));
      }
      for (int64_t k = 0; k < box.size[last]; ++k) f(offset + static_cast<size_t>(k));
      for (int d = last - 1; d >= 0; --d) {
        if (++idx[d] < box.size[d]) break;
        idx[d] = 0;
      }
    }
  }
};

[[noreturn]] inline void race(const SourceLoc& loc, std::string message, const std::string& note,
                              const SourceLoc& other) {
  RunError e;
  e.code = "race";
  e.message = std::move(message);
  e.loc = loc;
  e.notes.emplace_back(note, other);
  throw RunFailure{std::move(e)};
}

// The first access of `slot` (or of its shared set) not ordered before `c`.
inline const Epoch* unordered(const Epoch& slot, const SharedEpochs& shared, size_t element, const ProgramClock& c) {
  if (slot.flat != kSharedEpoch) return slot.before(c) ? nullptr : &slot;
  for (const Epoch& e : shared.at(element)) {
    if (!e.before(c)) return &e;
  }
  return nullptr;
}

// Adds `now` (an access by `c`) to a set of reads or accumulations: it
// replaces the accesses ordered before it; a concurrent one makes the set shared.
inline void add_epoch(Epoch& slot, SharedEpochs& shared, size_t element, const Epoch& now, const ProgramClock& c) {
  if (slot.flat != kSharedEpoch) {
    if (slot.before(c)) {
      slot = now;
      return;
    }
    shared[element] = {slot};
    slot.flat = kSharedEpoch;
  }
  std::vector<Epoch>& set = shared[element];
  set.erase(std::remove_if(set.begin(), set.end(), [&](const Epoch& e) { return e.before(c); }), set.end());
  set.push_back(now);
}

inline void clear_epochs(Epoch& slot, SharedEpochs& shared, size_t element) {
  if (slot.flat == kSharedEpoch) shared.erase(element);
  slot = Epoch{};
}

[[noreturn]] inline void cross_program_race(const RefShadow& r, Access kind, bool by_dma, const SourceLoc* loc,
                                            const Epoch& other, const char* other_did, const ProgramClock& c) {
  std::string what = std::string("`") + r.name + "` elements";
  std::string action;
  if (by_dma) {
    action = kind == Access::Read         ? "this DMA reads " + what
             : kind == Access::Accumulate ? "this DMA accumulates into " + what
                                          : "this DMA writes " + what;
  } else {
    action = (kind == Access::Read ? "read of " : kind == Access::Update ? "update of " : "write to ") + what;
  }
  std::string message = action + " " + other_did + " by another program" + (other.by_dma ? "'s DMA" : "");
  if (other.flat != c.flat) {
    message += "; programs of a grid may run in any order";
  } else {
    message += " (the same program on device " + std::to_string(other.device) +
               "), and no semaphore orders the two accesses";
  }
  std::string note = other.by_dma ? "the other DMA was started here"
                                  : std::string("the other program ") +
                                        (std::string(other_did) == "written" ? "wrote" : "read") + " them here";
  race(*loc, message, note, *other.loc);
}

// The cross-program check of one element (`check`) and its record
// (`record`), for an access `kind` by program `c`.
inline void track_element(RefShadow& r, size_t element, Access kind, bool by_dma, const ProgramClock& c,
                          const SourceLoc* loc, bool check, bool record) {
  ElementHistory& h = r.history[element];
  if (check) {
    if (!h.write.before(c)) cross_program_race(r, kind, by_dma, loc, h.write, "written", c);
    if (kind != Access::Accumulate) {
      if (const Epoch* o = unordered(h.accum, r.shared_accums, element, c)) {
        cross_program_race(r, kind, by_dma, loc, *o, "accumulated into", c);
      }
    }
    if (kind != Access::Read) {
      if (const Epoch* o = unordered(h.read, r.shared_reads, element, c)) {
        cross_program_race(r, kind, by_dma, loc, *o, "read", c);
      }
    }
  }
  if (!record) return;
  Epoch now = Epoch::of(c, loc, by_dma);
  switch (kind) {
    case Access::Read: add_epoch(h.read, r.shared_reads, element, now, c); break;
    case Access::Accumulate: add_epoch(h.accum, r.shared_accums, element, now, c); break;
    case Access::Write:
    case Access::Update:
      h.write = now;
      clear_epochs(h.read, r.shared_reads, element);
      clear_epochs(h.accum, r.shared_accums, element);
      break;
  }
}

[[noreturn]] inline void never_written(const RefShadow& r, const SourceLoc& loc, bool by_dma, Access kind) {
  std::string what = std::string("`") + r.name + "` elements never written";
  fail("uninitialized-read", loc,
       by_dma ? (kind == Access::Accumulate ? "this DMA accumulates into " : "this DMA reads ") + what
              : (kind == Access::Update ? "update of " : "read of ") + what);
}

// A load, store or update of `box` of a ref by program `c`.
inline void check_access(RefShadow& r, const Box& box, Access kind, const ProgramClock& c, const SourceLoc* loc) {
  bool writes = kind != Access::Read;
  for (const Claim& cl : r.claims) {
    if (!overlap(cl.box, box)) continue;
    if (cl.destination) {
      race(*loc, std::string(writes ? "write to" : "read of") + " `" + r.name +
                     "` elements that an in-flight DMA is writing",
           "the DMA was started here and is retired only by its dma_wait", cl.dma->loc);
    }
    if (writes) {
      race(*loc, std::string("write to `") + r.name + "` elements that an in-flight DMA is reading",
           "the DMA was started here", cl.dma->loc);
    }
  }
  if (r.track_writers) {
    r.histories();
    r.for_each(box, [&](size_t e) { track_element(r, e, kind, false, c, loc, true, true); });
  }
  if (r.track_written) {
    std::vector<uint8_t>& written = r.written_flags();
    if (kind == Access::Read || kind == Access::Update) {
      r.for_each(box, [&](size_t e) {
        if (!written[e]) never_written(r, *loc, false, kind);
      });
    }
    if (writes) r.for_each(box, [&](size_t e) { written[e] = 1; });
  }
}

// A masked-on element, checked on its own.
inline void check_element(RefShadow& r, size_t offset, Access kind, const ProgramClock& c, const SourceLoc* loc) {
  if (r.claims.empty() && !r.track_writers && !r.track_written) return;
  check_access(r, r.element_box(offset), kind, c, loc);
}

// A DMA starts (by program `c`): its destination may not overlap another
// in-flight DMA's (unless both accumulate), nor its source another DMA's
// destination or its own destination; its source (and, for an add, its
// destination) must have been written; and no access of another program
// that is not ordered before this start may conflict with it. The DMA's
// own accesses are recorded when it is retired (retire_claims).
inline void claim_dma(const std::shared_ptr<DmaRecord>& dma, ProgramClock& c) {
  RefShadow& src = *dma->src_shadow;
  RefShadow& dst = *dma->dst_shadow;
  if (&src == &dst && overlap(dma->src_box, dma->dst_box)) {
    race(dma->loc, std::string("this DMA's source and destination overlap in `") + src.name +
                       "`: its destination is written while its source is still being read",
         "both views are of this DMA", dma->loc);
  }
  for (const Claim& cl : dst.claims) {
    if (cl.destination && overlap(cl.box, dma->dst_box) && !(cl.dma->add && dma->add)) {
      race(dma->loc, std::string("this DMA writes `") + dst.name + "` elements that another in-flight DMA writes",
           "the other DMA was started here", cl.dma->loc);
    }
  }
  for (const Claim& cl : src.claims) {
    if (cl.destination && overlap(cl.box, dma->src_box)) {
      race(dma->loc, std::string("this DMA reads `") + src.name + "` elements that an in-flight DMA is writing",
           "the other DMA was started here", cl.dma->loc);
    }
  }
  Access dst_kind = dma->add ? Access::Accumulate : Access::Write;
  if (src.track_writers) {
    src.histories();
    src.for_each(dma->src_box, [&](size_t e) { track_element(src, e, Access::Read, true, c, &dma->loc, true, false); });
  }
  if (dst.track_writers) {
    dst.histories();
    dst.for_each(dma->dst_box, [&](size_t e) { track_element(dst, e, dst_kind, true, c, &dma->loc, true, false); });
  }
  if (src.track_written) {
    std::vector<uint8_t>& written = src.written_flags();
    src.for_each(dma->src_box, [&](size_t e) {
      if (!written[e]) never_written(src, dma->loc, true, Access::Read);
    });
  }
  // An add reads its destination.
  if (dma->add && dst.track_written) {
    std::vector<uint8_t>& written = dst.written_flags();
    dst.for_each(dma->dst_box, [&](size_t e) {
      if (!written[e]) never_written(dst, dma->loc, true, Access::Accumulate);
    });
  }
  src.claims.push_back({dma, dma->src_box, false});
  dst.claims.push_back({dma, dma->dst_box, true});
  dma->clock = c.vc;
  c.tick();
}

inline void release_claim(RefShadow& r, const DmaRecord* dma, bool destination) {
  for (size_t i = 0; i < r.claims.size(); ++i) {
    if (r.claims[i].dma.get() == dma && r.claims[i].destination == destination) {
      r.claims.erase(r.claims.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }
}

// The DMA has read its source: recorded as a read by the retiring program.
inline void retire_source(DmaRecord& dma, const ProgramClock& c) {
  if (dma.src_released) return;
  release_claim(*dma.src_shadow, &dma, false);
  dma.src_released = true;
  RefShadow& src = *dma.src_shadow;
  if (src.track_writers) {
    src.histories();
    src.for_each(dma.src_box, [&](size_t e) { track_element(src, e, Access::Read, true, c, &dma.loc, false, true); });
  }
}

// A wait by program `c` retires `dma` on `sem`: the destination side when
// it is the destination semaphore (and the source side too for a local
// DMA), the source side when it is a remote DMA's `src_sem`. The
// destination's writes are recorded as the retiring program's: only from
// there on is the data known to have landed.
inline void retire_claims(DmaRecord& dma, const DmaSemaphore* sem, ProgramClock& c) {
  if (!dma.dst_shadow) return;
  if (sem != dma.dst_sem) {
    retire_source(dma, c);
    return;
  }
  c.join(dma.clock);
  RefShadow& dst = *dma.dst_shadow;
  release_claim(dst, &dma, true);
  if (dst.track_written) {
    std::vector<uint8_t>& written = dst.written_flags();
    dst.for_each(dma.dst_box, [&](size_t e) { written[e] = 1; });
  }
  if (dst.track_writers) {
    dst.histories();
    Access kind = dma.add ? Access::Accumulate : Access::Write;
    dst.for_each(dma.dst_box, [&](size_t e) { track_element(dst, e, kind, true, c, &dma.loc, false, true); });
  }
  if (!dma.has_src_sem) retire_source(dma, c);
}

}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_EXEC_H
