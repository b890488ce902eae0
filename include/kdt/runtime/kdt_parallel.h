// kdt_parallel.h - `-j N`: the programs of a launch on several threads,
// with the outputs and the diagnostics of one thread (issue 17).
//
// Only a launch whose programs cannot reach one another runs in parallel:
// no remote DMA or signal and no sem_read (the emitter decides; a launch
// with them keeps the baton of kdt_scheduler.h, whose interleaving is what
// makes it reproducible, or, built without checks, runs its devices at
// once: free-running, also there). Such a program touches its own scratch and
// semaphores and the parameters; the parameters' shadows are locked, so the
// run-time checks see every access. Three rules make the result the one
// of `-j 1`:
//   - the programs of a device are handed out in the order `-j 1` runs
//     them (the positions of the program order), each to one thread;
//   - an add=true DMA into a parameter lands only when every program
//     before its own in that order has ended (wait_turn), so each element
//     receives its additions in `-j 1`'s order, bit for bit;
//   - a parallel launch that fails is run again on one thread from the
//     parameters it started with (ParameterSnapshot, in the launcher the
//     emitter writes), so a failure is reported
//     exactly as `-j 1` reports it, whatever the interleaving found first.
// Everything else two programs may share is a race, which the checks
// report in any interleaving (two conflicting accesses meet in the
// shadow whichever comes second), and then the one-thread run reports it.
#ifndef KDT_RUNTIME_KDT_PARALLEL_H
#define KDT_RUNTIME_KDT_PARALLEL_H

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <new>
#include <vector>

#include "kdt_api.h"
#include "kdt_checks.h"
#include "kdt_scheduler.h"

namespace kdt_rt {

// The cores this process may run on: the default of -j.
KDT_RT_API int available_cores();

// Whether a launch of `tasks` (device, program) pairs runs on several threads.
inline bool runs_parallel(const RunOptions& options, int64_t tasks) { return options.jobs > 1 && tasks > 1; }

// One program of an independent launch: task(worker, device, position).
using ProgramTask = std::function<void(int, int, int64_t)>;

// How many workers an independent launch may have: its threads (-j) or,
// on one thread, its devices' threads (each device runs its programs in turn).
inline int workers(const RunOptions& options, int devices) { return std::max(options.jobs, devices); }

class ProgramPool {
 public:
  // Runs task(worker, device, position) for every device and every
  // position below `count`, on `jobs` threads (worker 0 to jobs - 1);
  // false with the first failure. Devices are handed out in order,
  // positions in order in each.
  bool run(int devices, int64_t count, int jobs, const ProgramTask& task, RunError& failure, const StackNeed& need);

  // Called by the program at `position` of `device` before an add=true DMA
  // into a parameter lands: returns once every earlier program of the
  // device has ended. Nothing to wait for when the pool is not running.
  void wait_turn(int device, int64_t position) {
    if (!running_) return;
    const size_t d = static_cast<size_t>(device);
    if (ended_prefix_[d].load(std::memory_order_acquire) >= position) return;
    std::unique_lock<std::mutex> lock(mutex_);
    turn_.wait(lock, [&] { return aborted_ || ended_prefix_[d].load(std::memory_order_relaxed) >= position; });
    if (aborted_) throw Aborted{};
  }

 private:
  struct Aborted {};
  struct Start {
    ProgramPool* pool;
    int worker;
  };
  static void* thread_main(void* start) {
    const Start& s = *static_cast<Start*>(start);
    s.pool->work(s.worker);
    return nullptr;
  }
  void work(int worker);
  // Called with the mutex held: keeps the first failure, wakes every waiter.
  void abort_with(const RunError& e);
  // The program at `position` of `device` ended.
  void ended(int device, int64_t position);

  std::mutex mutex_;
  std::condition_variable turn_;
  bool running_ = false;
  bool aborted_ = false;
  RunError failure_;
  int devices_ = 0;
  int64_t count_ = 0;
  const ProgramTask* task_ = nullptr;
  std::atomic<int64_t> next_{0};  // the next task, device-major
  // Per device: how many of its first positions have all ended, and
  // which of the later ones have.
  std::vector<std::atomic<int64_t>> ended_prefix_;
  std::vector<std::vector<char>> ended_;
};

// Makes `state` as a new one (value-initialised, as std::make_unique makes
// it) in the memory it has: a launch reuses ended programs' states.
template <class State>
inline void renew(State& state) {
  state.~State();
  new (&state) State();
}

// The tiles a launch may keep on the caller's stack: threads get at least
// this much stack (glibc's default is 8 MiB; Python's and XLA's threads have
// more than 1 MiB), and the runtime needs little besides.
constexpr uint64_t kCallerStackTiles = uint64_t{256} << 10;

// Runs program(worker, device, position) for every device and every
// position below `count` of a launch whose programs reach no other
// device's: on the pool with -j (options.jobs threads at most), else
// on the scheduler's device threads, in order (the worker is the device).
inline bool run_independent(DeviceScheduler& scheduler, ProgramPool& pool, int devices, int64_t count,
                            const RunOptions& options, const ProgramTask& program, RunError& failure,
                            const StackNeed& need) {
  if (runs_parallel(options, int64_t{devices} * count)) {
    scheduler.run_pooled(true);
    return pool.run(devices, count, options.jobs, program, failure, need);
  }
  // One device whose tiles any thread's stack holds: on the calling thread,
  // without starting one (a small kernel called from Python or XLA would
  // spend most of its time there).
  if (devices == 1 && need.tile_bytes <= kCallerStackTiles) {
    scheduler.run_pooled(true);
    return run_catching(0, [&] {
      for (int64_t position = 0; position < count; ++position) program(0, 0, position);
    }, failure);
  }
  return scheduler.run([&](int device) {
    for (int64_t position = 0; position < count; ++position) program(device, device, position);
  }, failure, need);
}

// The bytes of the writable parameters a parallel launch starts from, kept
// so that a failed parallel launch can run again on one thread. Only
// `inout` parameters: an `out` parameter's elements are written before they
// are read (or the run fails), so its starting bytes do not matter.
class ParameterSnapshot {
 public:
  void keep(void* data, size_t bytes) {
    const unsigned char* from = static_cast<const unsigned char*>(data);
    saved_.push_back({data, std::vector<unsigned char>(from, from + bytes)});
  }
  void restore() const {
    for (const Saved& s : saved_) std::memcpy(s.data, s.bytes.data(), s.bytes.size());
  }

 private:
  struct Saved {
    void* data;
    std::vector<unsigned char> bytes;
  };
  std::vector<Saved> saved_;
};

// ---------------------------------------------------------------------------
// Definitions of the pool's larger members: inline in a self-contained
// file, compiled once into `kdt run`'s runtime library (kdt_api.h).
// ---------------------------------------------------------------------------
#if !defined(KDT_RT_SEPARATE)

KDT_RT_API int available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

KDT_RT_API bool ProgramPool::run(int devices, int64_t count, int jobs, const ProgramTask& task, RunError& failure,
                                 const StackNeed& need) {
  devices_ = devices;
  count_ = count;
  task_ = &task;
  next_ = 0;
  ended_prefix_ = std::vector<std::atomic<int64_t>>(static_cast<size_t>(devices));
  ended_.assign(static_cast<size_t>(devices), std::vector<char>(static_cast<size_t>(count), 0));
  running_ = true;
  const int threads = static_cast<int>(std::min<int64_t>(jobs, int64_t{devices} * count));
  const uint64_t stack = program_stack_bytes(need);
  std::vector<pthread_t> started;
  std::vector<Start> starts(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    starts[static_cast<size_t>(t)] = Start{this, t};
    pthread_t thread;
    int rc = start_thread(stack, &ProgramPool::thread_main, &starts[static_cast<size_t>(t)], thread);
    if (rc != 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      abort_with(DeviceScheduler::start_error(t, stack, need, rc));
      break;
    }
    started.push_back(thread);
  }
  for (pthread_t thread : started) pthread_join(thread, nullptr);
  running_ = false;
  if (aborted_) failure = failure_;
  return !aborted_;
}

KDT_RT_API void ProgramPool::work(int worker) {
  const int64_t tasks = int64_t{devices_} * count_;
  for (;;) {
    const int64_t t = next_.fetch_add(1);
    if (t >= tasks) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (aborted_) return;
    }
    const int device = static_cast<int>(t / count_);
    const int64_t position = t % count_;
    RunError failure;
    try {
      if (!run_catching(device, [&] { (*task_)(worker, device, position); }, failure)) {
        std::lock_guard<std::mutex> lock(mutex_);
        abort_with(failure);
        return;
      }
    } catch (const Aborted&) {
      return;
    }
    ended(device, position);
  }
}

KDT_RT_API void ProgramPool::abort_with(const RunError& e) {
  if (!aborted_) failure_ = e;
  aborted_ = true;
  turn_.notify_all();
}

KDT_RT_API void ProgramPool::ended(int device, int64_t position) {
  const size_t d = static_cast<size_t>(device);
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<char>& done = ended_[d];
  done[static_cast<size_t>(position)] = 1;
  int64_t prefix = ended_prefix_[d].load(std::memory_order_relaxed);
  const int64_t before = prefix;
  while (prefix < count_ && done[static_cast<size_t>(prefix)]) ++prefix;
  if (prefix == before) return;
  ended_prefix_[d].store(prefix, std::memory_order_release);
  turn_.notify_all();
}

#endif  // !KDT_RT_SEPARATE

}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_PARALLEL_H
