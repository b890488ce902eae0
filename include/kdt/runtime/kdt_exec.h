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
#include <memory>
#include <mutex>
#include <thread>
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
};

struct DmaSemaphore {
  std::deque<std::shared_ptr<DmaRecord>> in_flight;
};

struct RegularSemaphore {
  int64_t value = 0;
};

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
      threads.emplace_back([this, d, &body] {
        {
          std::unique_lock<std::mutex> lock(mutex_);
          cv_.wait(lock, [&] { return current_ == d || aborted_; });
          if (aborted_) return;
        }
        try {
          body(d);
        } catch (const RunFailure& f) {
          std::lock_guard<std::mutex> lock(mutex_);
          if (!aborted_) failure_ = f.error;
          aborted_ = true;
          cv_.notify_all();
          return;
        } catch (const Aborted&) {
          return;
        }
        std::lock_guard<std::mutex> lock(mutex_);
        state_[static_cast<size_t>(d)] = State::Done;
        pass_baton(d);
      });
    }
    for (std::thread& t : threads) t.join();
    if (aborted_) failure = failure_;
    return !aborted_;
  }

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
// it (as boxes), and which program last wrote each @global element.
// ---------------------------------------------------------------------------
struct Claim {
  std::shared_ptr<DmaRecord> dma;
  Box box;
  bool destination;
};

struct RefShadow {
  const char* name = "";
  std::vector<int64_t> shape;
  bool track_written = false;  // scratch and `out` parameters
  bool track_writers = false;  // @global parameters (cross-program races)
  std::vector<uint8_t> written;
  std::vector<int64_t> writer;  // program (device * programs + flat) + 1; 0 = none
  std::vector<const SourceLoc*> writer_loc;
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

// A load (write = false) or store by `program` of `box` of a ref.
inline void check_access(RefShadow& r, const Box& box, bool write, int64_t program, const SourceLoc* loc) {
  for (const Claim& c : r.claims) {
    if (!overlap(c.box, box)) continue;
    if (c.destination) {
      race(*loc, std::string(write ? "write to" : "read of") + " `" + r.name +
                     "` elements that an in-flight DMA is writing",
           "the DMA was started here and is retired only by its dma_wait", c.dma->loc);
    }
    if (write) {
      race(*loc, std::string("write to `") + r.name + "` elements that an in-flight DMA is reading",
           "the DMA was started here", c.dma->loc);
    }
  }
  if (r.track_writers) {
    if (r.writer.empty()) {
      r.writer.assign(r.count(), 0);
      r.writer_loc.assign(r.count(), nullptr);
    }
    r.for_each(box, [&](size_t e) {
      int64_t w = r.writer[e];
      if (w != 0 && w != program + 1) {
        race(*loc, std::string(write ? "write to" : "read of") + " `" + r.name +
                       "` elements written by another program; programs of a grid may run in any order",
             "the other program wrote them here", *r.writer_loc[e]);
      }
      if (write) {
        r.writer[e] = program + 1;
        r.writer_loc[e] = loc;
      }
    });
  }
  if (r.track_written) {
    if (r.written.empty()) r.written.assign(r.count(), 0);
    if (write) {
      r.for_each(box, [&](size_t e) { r.written[e] = 1; });
    } else {
      r.for_each(box, [&](size_t e) {
        if (!r.written[e]) {
          fail("uninitialized-read", *loc, std::string("read of `") + r.name + "` elements never written");
        }
      });
    }
  }
}

// Masked accesses check element by element.
inline void check_written(RefShadow& r, size_t offset, const SourceLoc* loc) {
  if (!r.track_written) return;
  if (r.written.empty()) r.written.assign(r.count(), 0);
  if (!r.written[offset]) fail("uninitialized-read", *loc, std::string("read of `") + r.name + "` elements never written");
}

inline void mark_written(RefShadow& r, size_t offset) {
  if (!r.track_written) return;
  if (r.written.empty()) r.written.assign(r.count(), 0);
  r.written[offset] = 1;
}

// A DMA starts: its destination may not overlap another in-flight DMA's
// (unless both accumulate), nor its source another DMA's destination; its
// source must have been written.
inline void claim_dma(const std::shared_ptr<DmaRecord>& dma) {
  RefShadow& src = *dma->src_shadow;
  RefShadow& dst = *dma->dst_shadow;
  for (const Claim& c : dst.claims) {
    if (c.destination && overlap(c.box, dma->dst_box) && !(c.dma->add && dma->add)) {
      race(dma->loc, std::string("this DMA writes `") + dst.name + "` elements that another in-flight DMA writes",
           "the other DMA was started here", c.dma->loc);
    }
  }
  for (const Claim& c : src.claims) {
    if (c.destination && overlap(c.box, dma->src_box)) {
      race(dma->loc, std::string("this DMA reads `") + src.name + "` elements that an in-flight DMA is writing",
           "the other DMA was started here", c.dma->loc);
    }
  }
  if (src.track_written) {
    if (src.written.empty()) src.written.assign(src.count(), 0);
    src.for_each(dma->src_box, [&](size_t e) {
      if (!src.written[e]) {
        fail("uninitialized-read", dma->loc, std::string("this DMA reads `") + src.name + "` elements never written");
      }
    });
  }
  src.claims.push_back({dma, dma->src_box, false});
  dst.claims.push_back({dma, dma->dst_box, true});
}

inline void release_claim(RefShadow& r, const DmaRecord* dma, bool destination) {
  for (size_t i = 0; i < r.claims.size(); ++i) {
    if (r.claims[i].dma.get() == dma && r.claims[i].destination == destination) {
      r.claims.erase(r.claims.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }
}

// A wait retires `dma` on `sem`: the destination side when it is the
// destination semaphore (and the source side too for a local DMA), the
// source side when it is a remote DMA's `src_sem`.
inline void retire_claims(DmaRecord& dma, const DmaSemaphore* sem) {
  if (!dma.dst_shadow) return;
  if (sem == dma.dst_sem) {
    release_claim(*dma.dst_shadow, &dma, true);
    if (dma.dst_shadow->track_written) {
      if (dma.dst_shadow->written.empty()) dma.dst_shadow->written.assign(dma.dst_shadow->count(), 0);
      dma.dst_shadow->for_each(dma.dst_box, [&](size_t e) { dma.dst_shadow->written[e] = 1; });
    }
    if (!dma.has_src_sem && !dma.src_released) {
      release_claim(*dma.src_shadow, &dma, false);
      dma.src_released = true;
    }
  } else if (!dma.src_released) {
    release_claim(*dma.src_shadow, &dma, false);
    dma.src_released = true;
  }
}

}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_EXEC_H
