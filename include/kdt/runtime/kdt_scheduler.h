// kdt_scheduler.h - how the C++ path runs a launch: the program order of
// a device and the simulated devices (one thread each, one running at a
// time), with exact deadlock detection.
#ifndef KDT_RUNTIME_KDT_SCHEDULER_H
#define KDT_RUNTIME_KDT_SCHEDULER_H

#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <vector>
// The launch code emitted around the scheduler uses these through the prelude.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "kdt_api.h"
#include "kdt_checks.h"
#include "kdt_numerics.h"

namespace kdt_rt {

struct RunOptions {
  bool eager_dma = false;   // --dma-mode=eager: data moves at dma_start
  int program_order = 0;    // 0 forward, 1 reverse, 2 shuffle
  int dma_order = 0;        // --dma-order: which DMA a wait retires: 0 fifo, 1 lifo, 2 shuffle
  uint64_t seed = 0;        // for shuffle (and, in the harness, the inputs)
  int jobs = 1;             // -j: threads for the programs of a launch that can use them (kdt_parallel.h)
};

// Whether a launch with remote operations but no sem_read, built without
// run-time checks, runs its devices at the same time (free_running below):
// with -j, and with fifo, the one order in which a DMA semaphore fed by one
// device retires the same DMA in every schedule.
inline bool runs_free(const RunOptions& options) { return options.jobs > 1 && options.dma_order == 0; }

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

// ---------------------------------------------------------------------------
// Simulated devices: one thread per device, but only one runs at a time.
// The baton passes (round-robin) when the running device blocks in a wait
// or finishes, so every run is reproducible and no C++ data race can occur.
// A deadlock is detected exactly: no device can run and one is blocked.
// A device that reads a semaphore (sem_read) first lets the others run
// until they block or finish (spec section 17), so a polling loop sees
// what they can do. A read inside a `while` loop that finds the semaphore
// as that same read last found it, the device having done nothing in
// between, is blocked until another device changes it, so a poll that can
// never end is a deadlock, not a hang.
// Each device waits on a condition variable of its own, so passing the
// baton wakes one thread, not all of them.
// Free-running devices (`-j N` without run-time checks, set by the
// launcher: free_running): the devices run at the same time, at most N at
// once, and only their communication is serialised (Comm). Without
// sem_read, with every semaphore waited by its own device only and a DMA
// semaphore's DMAs all started by one device (enqueue, kdt_dma.h), what a
// device does depends on what it receives, not on when: a race-free
// kernel's outputs are the baton's bit for bit, and a deadlock is one in
// every schedule (a Kahn process network). A launch that fails, or finds a
// DMA semaphore fed by two devices, runs again with the baton.
// A program's tiles live on its device thread's stack, which is sized for
// them (StackNeed): a launch whose tiles do not fit in memory fails with a
// diagnostic at the largest tile instead of overflowing the stack.
// ---------------------------------------------------------------------------
struct BlockedWait {
  BlockedWait() = default;
  BlockedWait(std::string what_, SourceLoc loc_, int64_t program_) : what(std::move(what_)), loc(loc_), program(program_) {}
  // A literal's string is made here, not in the kernel: GCC gives the
  // allocator of a string built in place from a literal the line of the
  // enclosing function's end, where a debugger would then stop.
  BlockedWait(const char* what_, SourceLoc loc_, int64_t program_) : what(what_), loc(loc_), program(program_) {}
  std::string what;  // "sem_wait on `s` (value 0, needs 1)"
  SourceLoc loc{"", 0, 0, 0, 0};
  int64_t program = 0;
};

// A polling read (sem_read inside a `while`) at one site: what it last
// found, and the rule both schedulers apply. A read that finds the counter
// as it last did, the device having had no effect in between, is blocked
// (`wait_for(ready)`) until the value changes: a poll that can never end is
// a deadlock, not a hang.
struct PollSite {
  const void* counter = nullptr;
  int64_t value = 0;
  uint64_t effects = 0;
};
template <class Count, class Land, class WaitFor>
int64_t poll_counter(PollSite& last, const void* key, uint64_t effects, const Count& count, const Land& land,
                     const WaitFor& wait_for) {
  if (last.counter == key && last.value == count() && last.effects == effects) {
    const int64_t seen = count();
    wait_for([&] { return count() != seen; });
  }
  land();
  const int64_t value = count();
  last = PollSite{key, value, effects};
  return value;
}

// The deadlock of `device`, blocked in `info`'s wait with no device able to run.
inline RunError deadlock_error(int device, const BlockedWait& info) {
  RunError e;
  e.code = Code::Deadlock;
  e.message = "deadlock: no device can run; device " + std::to_string(device) + ", program " +
              std::to_string(info.program) + ": " + info.what;
  e.loc = info.loc;
  return e;
}

// The stack a program needs beyond the runtime's own: the bytes of the
// tiles its function declares (an upper bound on the live ones) and where
// the largest is declared, for the diagnostic when they do not fit.
struct StackNeed {
  uint64_t tile_bytes = 0;
  SourceLoc largest{"", 0, 0, 0, 0};
  const char* largest_name = "";
};

// The stack of a thread that runs programs: 8 MiB for the runtime (the
// usual default), plus the tiles, in pages.
inline uint64_t program_stack_bytes(const StackNeed& need) {
  return (uint64_t{8} << 20) + ((need.tile_bytes + 4095) / 4096) * 4096;
}

// Starts `thread` running main(arg) on a stack of `stack` bytes; 0 or an errno.
KDT_RT_API int start_thread(uint64_t stack, void* (*main)(void*), void* arg, pthread_t& thread);

// A pause in a polling loop: lets the sibling hardware thread run.
inline void pause_cpu() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Runs body() for `device`: a run-time check's failure, or memory or threads
// running out, becomes `failure` (never std::terminate in a thread); false
// then. Anything else, a scheduler's own abort, passes through.
template <class Body>
bool run_catching(int device, Body&& body, RunError& failure) {
  try {
    body();
    return true;
  } catch (const RunFailure& f) {
    failure = f.error;
  } catch (const std::exception& x) {
    failure.code = Code::LimitExceeded;
    failure.message = "the launch ran out of resources on device " + std::to_string(device) + " (" + x.what() + ")";
    failure.loc = SourceLoc{"", 0, 0, 0, 0};
    failure.notes.clear();
  }
  return false;
}

class DeviceScheduler {
 public:
  explicit DeviceScheduler(int devices);

  // Runs body(device) for every device; returns the first failure, if any.
  bool run(const std::function<void(int)>& body, RunError& failure, const StackNeed& need = {});

  // The launch runs on a ProgramPool instead (kdt_parallel.h): its programs
  // reach no other device, so a wait that cannot go on never will.
  void run_pooled(bool pooled) { pooled_ = pooled; }

  // The launch's devices run at the same time, `jobs` at most (above).
  void free_running(int jobs, int cores) {
    free_ = true;
    jobs_ = std::max(1, jobs);
    // Polling pays only when every device has a place and a core: a
    // device that polls keeps its place from one that could go on.
    spin_ = static_cast<int>(state_.size()) <= jobs_ && jobs_ <= cores;
  }
  bool is_free_running() const { return free_; }

  // The lock a device holds while it communicates (signals, starts, waits,
  // lands DMAs) in a free-running launch; nothing with the baton, which
  // already runs one device at a time. A device that finds the launch
  // aborted stops here.
  class Comm {
   public:
    explicit Comm(DeviceScheduler& scheduler) {
      if (!scheduler.free_) return;
      lock_ = std::unique_lock<std::mutex>(scheduler.mutex_);
      if (scheduler.aborted_) throw Aborted{};
    }

   private:
    friend class DeviceScheduler;
    std::unique_lock<std::mutex> lock_;
  };

  // With `comm` held, after a signal or a DMA reached `device`'s semaphore:
  // a free-running device blocked on it may go on.
  void raised(int device) {
    if (!free_) return;
    const size_t d = static_cast<size_t>(device);
    if (state_[d] == State::Blocked && ready_[d]()) {
      state_[d] = State::Ready;
      grant();
    }
  }

  // A free-running launch whose outcome could depend on its schedule
  // (with `comm` held): it fails, and runs again with the baton.
  [[noreturn]] static void schedule_dependent(const char* why);

  // A thread that cannot start (device `device`'s, or the pool's number
  // `device`): at the largest tile when the stack it needs is what did not fit.
  static RunError start_error(int device, uint64_t stack, const StackNeed& need, int rc);

 private:
  // A thread that cannot start: a diagnostic, never std::terminate.
  static RunError resource_error(std::string message) {
    RunError e;
    e.code = Code::LimitExceeded;
    e.message = std::move(message);
    return e;
  }

  // Called with the mutex held: keeps the first failure, wakes every device.
  void abort_with(const RunError& e) {
    if (!aborted_) failure_ = e;
    aborted_ = true;
    for (std::condition_variable& cv : wake_) cv.notify_all();
  }

  // Called with the mutex held: device `d` waits until it holds the baton.
  void wait_for_baton(std::unique_lock<std::mutex>& lock, int d) {
    wake_[static_cast<size_t>(d)].wait(lock, [&] { return current_ == d || aborted_; });
  }
  // Free-running, the same: until grant() lets `d` run.
  void wait_to_run(std::unique_lock<std::mutex>& lock, int d) {
    wake_[static_cast<size_t>(d)].wait(lock, [&] { return state_[static_cast<size_t>(d)] == State::Running || aborted_; });
  }

  struct Start {
    DeviceScheduler* scheduler = nullptr;
    int device = 0;
  };
  static void* thread_main(void* start) {
    const Start& s = *static_cast<Start*>(start);
    s.scheduler->device_thread(s.device);
    return nullptr;
  }

  // Device `d`'s thread: waits for the baton (free-running: a place), runs,
  // passes it on.
  void device_thread(int d);

 public:
  // Blocks `device` until `ready()` holds, letting other devices run.
  void wait_until(int device, const std::function<bool()>& ready, const BlockedWait& info);
  // The same with `comm` held (released while blocked when free-running).
  void wait_until(int device, const std::function<bool()>& ready, const BlockedWait& info, Comm& comm);

  // sem_read by `device`: a scheduling point. `count()` reads the
  // semaphore's value; `land()` first lands what a read may complete (the
  // reader's DMAs on a DMA semaphore; nothing for a regular one).
  template <class Count, class Land>
  int64_t read_semaphore(int device, const Count& count, const Land& land) {
    yield(device);
    land();
    return count();
  }

  // The same inside a `while` loop, at read site `site` of semaphore `key`:
  // a poll (poll_counter), blocked as `info` when it cannot progress.
  template <class Count, class Land>
  int64_t poll_semaphore(int device, const void* key, const Count& count, const Land& land, int site,
                         const BlockedWait& info) {
    yield(device);
    size_t d = static_cast<size_t>(device);
    return poll_counter(polls_[d][site], key, effects_[d], count, land,
                        [&](const std::function<bool()>& ready) { wait_until(device, ready, info); });
  }

  // A store, DMA, signal or wait by `device`: what makes a repeated read
  // of an unchanged semaphore progress (emitted only in kernels with sem_read).
  void note_effect(int device) { ++effects_[static_cast<size_t>(device)]; }

 private:
  enum class State { Ready, Running, Yielding, Blocked, Done };
  struct Aborted {};

  // Lets every other device run until it blocks or finishes.
  void yield(int device);

  // Called with the mutex held by the device giving up the baton.
  void pass_baton(int from);

  // Free-running (mutex held): runs Ready devices while fewer than jobs_
  // run; when none runs, wakes a blocked one that can go on, or reports
  // the deadlock.
  void grant();
  // The deadlock of the devices blocked now (mutex held): the launch aborts.
  void report_deadlock();

  std::mutex mutex_;
  bool pooled_ = false;
  bool free_ = false;
  int jobs_ = 1;        // free-running: devices that may run at once
  bool spin_ = false;   // free-running: a blocked device polls a little first (free_running)
  int running_ = 0;     // free-running: devices running now
  int next_grant_ = 0;  // free-running: where grant() looks first (round-robin)
  int current_ = 0;
  bool aborted_ = false;
  RunError failure_;
  std::vector<State> state_;
  std::vector<std::condition_variable> wake_;  // one per device: its turn came, or the launch aborted
  const std::function<void(int)>* body_ = nullptr;
  std::vector<std::function<bool()>> ready_;
  std::vector<BlockedWait> blocked_;
  std::vector<std::map<int, PollSite>> polls_;  // each device's last read at each polling site
  std::vector<uint64_t> effects_;  // each device's stores, DMAs, signals and waits so far
};

// ---------------------------------------------------------------------------
// Definitions of the scheduler's larger members, kept out of the class:
// inline in a self-contained file, compiled once into `kdt run`'s runtime
// library, and left out of a kernel that links that library (kdt_api.h).
// ---------------------------------------------------------------------------
#if !defined(KDT_RT_SEPARATE)

KDT_RT_API DeviceScheduler::DeviceScheduler(int devices)
    : state_(static_cast<size_t>(devices), State::Ready), wake_(static_cast<size_t>(devices)),
      ready_(static_cast<size_t>(devices)), blocked_(static_cast<size_t>(devices)),
      polls_(static_cast<size_t>(devices)), effects_(static_cast<size_t>(devices)) {}

KDT_RT_API bool DeviceScheduler::run(const std::function<void(int)>& body, RunError& failure, const StackNeed& need) {
  int n = static_cast<int>(state_.size());
  body_ = &body;
  if (free_) {
    // Every device may run: grant() gives the first jobs_ their places.
    std::lock_guard<std::mutex> lock(mutex_);
    grant();
  } else {
    current_ = 0;
    state_[0] = State::Running;
  }
  const uint64_t stack = program_stack_bytes(need);
  std::vector<pthread_t> threads;
  std::vector<Start> starts(static_cast<size_t>(n));
  for (int d = 0; d < n; ++d) {
    starts[static_cast<size_t>(d)] = Start{this, d};
    pthread_t t;
    int rc = start_thread(stack, &DeviceScheduler::thread_main, &starts[static_cast<size_t>(d)], t);
    if (rc != 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      abort_with(start_error(d, stack, need, rc));
      break;
    }
    threads.push_back(t);
  }
  for (pthread_t t : threads) pthread_join(t, nullptr);
  if (aborted_) failure = failure_;
  return !aborted_;
}

KDT_RT_API int start_thread(uint64_t stack, void* (*main)(void*), void* arg, pthread_t& thread) {
  pthread_attr_t attr;
  int rc = pthread_attr_init(&attr);
  if (rc != 0) return rc;
  if (stack > static_cast<uint64_t>(SIZE_MAX)) rc = ENOMEM;
  if (rc == 0) rc = pthread_attr_setstacksize(&attr, static_cast<size_t>(stack));
  if (rc == 0) rc = pthread_create(&thread, &attr, main, arg);
  pthread_attr_destroy(&attr);
  return rc;
}

KDT_RT_API RunError DeviceScheduler::start_error(int device, uint64_t stack, const StackNeed& need, int rc) {
  const std::string why = std::string(" (") + std::strerror(rc) + ")";
  if (need.tile_bytes < (uint64_t{1} << 20)) {
    return resource_error("cannot start the thread of device " + std::to_string(device) + why);
  }
  RunError e = resource_error("cannot allocate the " + std::to_string(stack >> 20) + " MiB stack of device " +
                              std::to_string(device) + "'s thread for the tiles of a program (" +
                              std::to_string(need.tile_bytes >> 20) + " MiB)" + why + "; the largest, `" +
                              need.largest_name + "`, is declared here");
  e.loc = need.largest;
  return e;
}

KDT_RT_API void DeviceScheduler::device_thread(int d) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (free_) {
      wait_to_run(lock, d);
    } else {
      wait_for_baton(lock, d);
    }
    if (aborted_) return;
  }
  RunError failure;
  try {
    if (!run_catching(d, [&] { (*body_)(d); }, failure)) {
      std::lock_guard<std::mutex> lock(mutex_);
      abort_with(failure);
      return;
    }
  } catch (const Aborted&) {
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  state_[static_cast<size_t>(d)] = State::Done;
  if (free_) {
    --running_;
    grant();
  } else {
    pass_baton(d);
  }
}

KDT_RT_API void DeviceScheduler::wait_until(int device, const std::function<bool()>& ready, const BlockedWait& info) {
  if (ready()) return;
  if (pooled_) throw RunFailure{deadlock_error(device, info)};
  std::unique_lock<std::mutex> lock(mutex_);
  size_t d = static_cast<size_t>(device);
  state_[d] = State::Blocked;
  ready_[d] = ready;
  blocked_[d] = info;
  pass_baton(device);
  wait_for_baton(lock, device);
  if (aborted_) throw Aborted{};
  state_[d] = State::Running;
}

KDT_RT_API void DeviceScheduler::wait_until(int device, const std::function<bool()>& ready, const BlockedWait& info,
                                            Comm& comm) {
  if (!free_) return wait_until(device, ready, info);
  if (ready()) return;
  // A partner running on another core usually raises the semaphore within
  // microseconds: poll a little (64 short pauses, 64 times) before sleeping, which costs
  // a futex wake and a context switch.
  if (spin_) {
    for (int round = 0; round < 64; ++round) {
      comm.lock_.unlock();
      for (int i = 0; i < 64; ++i) pause_cpu();
      comm.lock_.lock();
      if (aborted_) throw Aborted{};
      if (ready()) return;
    }
  }
  const size_t d = static_cast<size_t>(device);
  state_[d] = State::Blocked;
  ready_[d] = ready;
  blocked_[d] = info;
  --running_;
  grant();
  wait_to_run(comm.lock_, device);
  if (aborted_) throw Aborted{};
}

KDT_RT_API void DeviceScheduler::yield(int device) {
  std::unique_lock<std::mutex> lock(mutex_);
  size_t d = static_cast<size_t>(device);
  state_[d] = State::Yielding;
  pass_baton(device);
  wait_for_baton(lock, device);
  if (aborted_) throw Aborted{};
  state_[d] = State::Running;
}

KDT_RT_API void DeviceScheduler::pass_baton(int from) {
  int n = static_cast<int>(state_.size());
  for (int step = 1; step <= n; ++step) {
    size_t d = static_cast<size_t>((from + step) % n);
    if (state_[d] == State::Ready || (state_[d] == State::Blocked && ready_[d]())) {
      state_[d] = State::Running;
      current_ = static_cast<int>(d);
      wake_[d].notify_one();
      return;
    }
  }
  // Nothing else can run: a device that yielded goes on.
  for (int step = 1; step <= n; ++step) {
    size_t d = static_cast<size_t>((from + step) % n);
    if (state_[d] == State::Yielding) {
      state_[d] = State::Running;
      current_ = static_cast<int>(d);
      wake_[d].notify_one();
      return;
    }
  }
  current_ = -1;
  report_deadlock();
}

KDT_RT_API void DeviceScheduler::report_deadlock() {
  bool any_blocked = false;
  RunError e;
  e.code = Code::Deadlock;
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
  for (std::condition_variable& cv : wake_) cv.notify_all();
}

// ----- free-running devices ------------------------------------------------

KDT_RT_API void DeviceScheduler::grant() {
  const int n = static_cast<int>(state_.size());
  const int first = next_grant_;
  for (int step = 0; step < n && running_ < jobs_; ++step) {
    const int d = (first + step) % n;
    if (state_[static_cast<size_t>(d)] != State::Ready) continue;
    state_[static_cast<size_t>(d)] = State::Running;
    ++running_;
    next_grant_ = (d + 1) % n;
    wake_[static_cast<size_t>(d)].notify_one();
  }
  if (running_ > 0 || aborted_) return;
  // Nothing runs: a blocked device that can go on was not raised (cannot
  // happen, but the check is exact either way), or every one is stuck.
  for (int d = 0; d < n; ++d) {
    if (state_[static_cast<size_t>(d)] == State::Blocked && ready_[static_cast<size_t>(d)]()) {
      state_[static_cast<size_t>(d)] = State::Ready;
      return grant();
    }
  }
  report_deadlock();
}

KDT_RT_API void DeviceScheduler::schedule_dependent(const char* why) {
  RunError e;
  e.code = Code::InternalError;
  e.message = std::string("a free-running launch depends on its schedule (") + why + "): it runs again with the baton";
  throw RunFailure{std::move(e)};
}

#endif  // !KDT_RT_SEPARATE

}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_SCHEDULER_H
