// kdt_mpi.h - devices as MPI ranks (`kdt --emit=cpp --devices=mpi`,
// `kdt run --mpi -n N`; docs/distributed.md). Rank r is KD device r and
// runs that device's programs in the program order; nothing is simulated.
//
// What another rank can reach lives in one MPI window per rank, laid out
// the same on every rank (one binary, one layout): a control area, an
// inbox of DMA arrivals, then the launch's own part (the ref parameters
// and every program's state: scratch and semaphores). An address in the
// local window is therefore also the address of the same object on every
// other rank, at the same displacement; the emitted code computes local
// addresses and this runtime sends them to the right rank.
//
// The window is locked once (MPI_Win_lock_all, passive target). Every
// counter (semaphore values, the inbox's head and tail and slots, the
// deadlock detector's epoch and statuses) is read and written with MPI's
// atomic operations only (MPI_Fetch_and_op, MPI_Accumulate,
// MPI_Compare_and_swap), also by its own rank, so they are atomic with
// respect to each other.
//
// A remote DMA moves its data when it starts (MPI_Put, or MPI_Accumulate
// with MPI_SUM for add=true), completes it (MPI_Win_flush), then publishes
// an arrival record in the receiver's inbox: the receiver's waits drain the
// inbox into the destination semaphore's list of DMAs, so a wait retires
// one DMA, checks its byte count and marks its elements written exactly as
// the simulated devices do. A remote signal is an MPI_Accumulate on the
// receiver's counter.
//
// Deadlock is decided, not timed out (a termination-detection protocol):
// every remote effect, once complete, increments an epoch counter on rank
// 0. A rank whose wait cannot go on reads the epoch E, re-checks its
// condition, then publishes "blocked at E" (and "running" again, before it
// does anything else, once its wait is over; "done" after its last
// program). Any rank may then read the epoch, every status and the epoch
// again: when both readings are E and every rank is done or blocked at E,
// no effect landed after any blocked rank last looked and no rank runs to
// make one, so no rank can ever go on. A rank that finds this sets the
// abort word; each blocked rank then reports its own wait.
#ifndef KDT_RUNTIME_KDT_MPI_H
#define KDT_RUNTIME_KDT_MPI_H

// The C API only: MPI's deprecated C++ bindings warn under -Wextra.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>
#include <sched.h>
#include <time.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace kdt_rt {

// What a remote DMA tells its receiver: enough to put it on the
// destination semaphore's list as the simulated devices would.
struct MpiArrival {
  int64_t ready = 0;       // the slot's number + 1, written last (atomically) when the rest is there
  int64_t program = 0;     // flattened program index (the same on both devices)
  int64_t bytes = 0;
  int64_t sem_offset = 0;  // the destination semaphore, in bytes from the start of the program's state
  int32_t site = 0;
  int32_t src_device = 0;
  int32_t add = 0;
  int32_t unused = 0;
  int64_t starts[kMaxCaptured] = {};
  Box dst_box;
};

// A remote DMA arrives (run-time checks): the receiver claims its
// destination as a local DMA's start would, against the DMAs in flight into
// the same elements; an add reads its destination, which must be written.
inline void claim_arrival(const std::shared_ptr<DmaRecord>& dma) {
  RefShadow& dst = *dma->dst_shadow;
  ShadowLock locked(dst);
  check_destination_claims(dst, *dma);
  if (dma->add && dst.track_written) {
    dst.check_written(dma->dst_box, [&] { never_written(dst, dma->loc, true, Access::Accumulate); });
  }
  dst.claims.push_back({dma, dma->dst_box, true});
}

// The record of a remote DMA this rank started, for its receiver;
// `sem_offset` places the destination semaphore in the program's state.
inline MpiArrival mpi_arrival(const DmaRecord& d, int64_t sem_offset) {
  MpiArrival a;
  a.program = d.program;
  a.bytes = d.bytes;
  a.sem_offset = sem_offset;
  a.site = d.site;
  a.src_device = d.src_device;
  a.add = d.add ? 1 : 0;
  std::memcpy(a.starts, d.starts, sizeof a.starts);
  a.dst_box = d.dst_box;
  return a;
}

// The seconds the last launch's programs took on this rank, from the
// barrier where every rank starts to the one where every rank is done:
// the launch without its window set-up and output gather (bench/).
inline double& mpi_last_run_seconds() {
  static double seconds = 0;
  return seconds;
}

// A wait left because another rank failed: this rank reports nothing.
struct MpiAborted {};

// MPI_Init_thread for a harness (MPI_THREAD_SERIALIZED: the programs run
// on a thread of their own, one MPI caller at a time) and MPI_Finalize.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv) {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
      int provided = 0;
      MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
      owned_ = true;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiSession() {
    if (owned_) MPI_Finalize();
  }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

  // Collective: the lowest rank for which `mine` holds, or size().
  int lowest(bool mine) const {
    int me = mine ? rank_ : size_, low = size_;
    MPI_Allreduce(&me, &low, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return low;
  }

 private:
  bool owned_ = false;
  int rank_ = 0;
  int size_ = 1;
};

// Collective, after a launch failed: the deadlock reports of every rank
// become notes of the lowest failing rank's (`reporter`) report, as the
// simulated devices give one deadlock with a note per other blocked
// device. True when this rank's own report was merged there.
inline bool merge_deadlock_reports(RunError& error, int reporter) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string prefix = "deadlock: no device can run; ";
  const bool deadlock = error.code == Code::Deadlock && error.message.rfind(prefix, 0) == 0;
  // file \n line \n column \n begin \n end \n what
  std::string mine;
  if (deadlock) {
    mine = std::string(error.loc.file) + "\n" + std::to_string(error.loc.line) + "\n" + std::to_string(error.loc.column) +
           "\n" + std::to_string(error.loc.begin) + "\n" + std::to_string(error.loc.end) + "\n" +
           error.message.substr(prefix.size());
  }
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<size_t>(size)), offsets(static_cast<size_t>(size));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, reporter, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    offsets[static_cast<size_t>(r)] = total;
    total += lengths[static_cast<size_t>(r)];
  }
  std::string all(static_cast<size_t>(rank == reporter ? total : 0), '\0');
  MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, reporter, MPI_COMM_WORLD);
  if (rank != reporter) return deadlock;
  if (!deadlock) return false;
  static std::vector<std::unique_ptr<std::string>> files;  // the notes' SourceLoc point at these
  for (int r = 0; r < size; ++r) {
    if (r == rank || lengths[static_cast<size_t>(r)] == 0) continue;
    std::vector<std::string> f;
    size_t at = static_cast<size_t>(offsets[static_cast<size_t>(r)]), end = at + static_cast<size_t>(lengths[static_cast<size_t>(r)]);
    while (f.size() < 5) {
      size_t nl = all.find('\n', at);
      f.push_back(all.substr(at, nl - at));
      at = nl + 1;
    }
    files.push_back(std::make_unique<std::string>(f[0]));
    SourceLoc loc{files.back()->c_str(), std::atoi(f[1].c_str()), std::atoi(f[2].c_str()),
                  static_cast<uint32_t>(std::strtoul(f[3].c_str(), nullptr, 10)),
                  static_cast<uint32_t>(std::strtoul(f[4].c_str(), nullptr, 10))};
    error.notes.emplace_back("also blocked: " + all.substr(at, end - at), loc);
  }
  return false;
}

// The MPI type MPI_Accumulate sums `T` as, or MPI_DATATYPE_NULL (f16,
// bf16, bool: no predefined MPI type; summed by compare-and-swap).
template <class T>
MPI_Datatype mpi_sum_type() {
  if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, int8_t>) return MPI_INT8_T;
  else if constexpr (std::is_same_v<T, int16_t>) return MPI_INT16_T;
  else if constexpr (std::is_same_v<T, int32_t>) return MPI_INT32_T;
  else if constexpr (std::is_same_v<T, int64_t>) return MPI_INT64_T;
  else if constexpr (std::is_same_v<T, uint8_t>) return MPI_UINT8_T;
  else if constexpr (std::is_same_v<T, uint16_t>) return MPI_UINT16_T;
  else if constexpr (std::is_same_v<T, uint32_t>) return MPI_UINT32_T;
  else if constexpr (std::is_same_v<T, uint64_t>) return MPI_UINT64_T;
  else return MPI_DATATYPE_NULL;
}

// The unsigned MPI type of an element's bits, for compare-and-swap.
template <size_t Bytes>
MPI_Datatype mpi_bits_type() {
  if constexpr (Bytes == 1) return MPI_UINT8_T;
  else if constexpr (Bytes == 2) return MPI_UINT16_T;
  else if constexpr (Bytes == 4) return MPI_UINT32_T;
  else return MPI_UINT64_T;
}

class MpiScheduler {
 public:
  static constexpr int64_t kInbox = 1024;  // arrival records a rank holds before senders wait for it
  static constexpr int64_t kRunning = 0, kDone = 1;  // statuses; blocked at epoch E is -(E + 1)
  static constexpr int64_t kAbortFailed = 1, kAbortDeadlock = 2;

  explicit MpiScheduler(int devices) : devices_(devices) {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
      int provided = 0;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiScheduler() {
    if (win_ != MPI_WIN_NULL) {
      MPI_Win_unlock_all(win_);
      MPI_Win_free(&win_);
    }
  }
  MpiScheduler(const MpiScheduler&) = delete;
  MpiScheduler& operator=(const MpiScheduler&) = delete;

  int rank() const { return rank_; }

  // A launch on as many ranks as devices; else the message to report.
  std::string size_problem() const {
    if (size_ == devices_) return "";
    return "this kernel runs on " + std::to_string(devices_) + " devices, one per MPI rank, but MPI_COMM_WORLD has " +
           std::to_string(size_) + " rank" + (size_ == 1 ? "" : "s") + " (start it with mpirun -n " +
           std::to_string(devices_) + ")";
  }

  // Collective: allocates and locks the window, `user_bytes` of it for the
  // launch after the control area and the inbox; returns where they start.
  // The launch's part is 64-byte aligned (its tiles and states are), and
  // MPI_Win_allocate may return less aligned memory, differently on each
  // rank: each rank's padding is known to all (pads_).
  char* allocate(size_t user_bytes) {
    user_offset_ = align(inbox_offset() + static_cast<size_t>(kInbox) * sizeof(MpiArrival));
    const size_t total = user_offset_ + 64 + user_bytes;
    MPI_Win_allocate(static_cast<MPI_Aint>(total), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base_, &win_);
    std::memset(base_, 0, user_offset_);
    const int pad = static_cast<int>((64 - reinterpret_cast<std::uintptr_t>(base_ + user_offset_) % 64) % 64);
    pads_.assign(static_cast<size_t>(size_), 0);
    MPI_Allgather(&pad, 1, MPI_INT, pads_.data(), 1, MPI_INT, MPI_COMM_WORLD);
    user_ = base_ + user_offset_ + pad;
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win_);
    return user_;
  }

  // Runs body(rank) on a thread with the stack the tiles need, then waits
  // for every rank (draining the inbox meanwhile). False when any rank
  // failed; `failure` is set only when this rank's own check failed.
  bool run(const std::function<void(int)>& body, RunError& failure, const StackNeed& need = {}) {
    MPI_Win_sync(win_);
    MPI_Barrier(MPI_COMM_WORLD);  // every rank's states exist before any rank reaches them
    const double started = MPI_Wtime();
    struct Start {
      MpiScheduler* self;
      const std::function<void(int)>* body;
    } start{this, &body};
    auto main = [](void* arg) -> void* {
      Start& s = *static_cast<Start*>(arg);
      s.self->device_main(*s.body);
      return nullptr;
    };
    pthread_t thread;
    const uint64_t stack = program_stack_bytes(need);
    if (int rc = start_thread(stack, main, &start, thread); rc != 0) {
      own_failure_ = true;
      failure_ = DeviceScheduler::start_error(rank_, stack, need, rc);
      abort_launch(kAbortFailed);
    } else {
      pthread_join(thread, nullptr);
    }
    publish(kDone);
    // Every rank's last effects are complete before it enters the barrier:
    // what is in the inbox after it is all there is.
    MPI_Request barrier;
    MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
    for (unsigned spin = 0;; ++spin) {
      int finished = 0;
      MPI_Test(&barrier, &finished, MPI_STATUS_IGNORE);
      drain();
      if (finished) break;
      backoff(spin);
    }
    drain();
    MPI_Win_sync(win_);
    mpi_last_run_seconds() = MPI_Wtime() - started;
    if (own_failure_) failure = failure_;
    return agree(!own_failure_ && fetch(0, kAbortOffset) == 0);
  }

  // Collective: true when `ok` holds on every rank.
  bool agree(bool ok) {
    int mine = ok ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all != 0;
  }

  // Collective: rank 0's slices[r] gets rank r's slices[r] (`bytes` each).
  void gather(void* const* slices, size_t bytes) {
    for (size_t done = 0; done < bytes;) {
      const size_t n = std::min(bytes - done, size_t{1} << 30);
      if (rank_ == 0) {
        for (int r = 1; r < size_; ++r) {
          MPI_Recv(static_cast<char*>(slices[r]) + done, static_cast<int>(n), MPI_BYTE, r, 7, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
        }
      } else {
        MPI_Send(static_cast<char*>(slices[rank_]) + done, static_cast<int>(n), MPI_BYTE, 0, 7, MPI_COMM_WORLD);
      }
      done += n;
    }
  }

  // What the launch does with an arrival record it drains.
  std::function<void(const MpiArrival&)> on_arrival;

  // ----- blocking ----------------------------------------------------------
  // Blocks this rank until `ready()` holds, draining the inbox; reports a
  // deadlock (Code::Deadlock at `info`) when no rank can ever go on.
  void wait_until(int device, const std::function<bool()>& ready, const BlockedWait& info) {
    drain();
    if (ready()) return;
    int64_t published = kRunning;
    for (unsigned spin = 0;; ++spin) {
      if (int64_t a = fetch(0, kAbortOffset); a != 0) blocked_abort(a, device, info);
      const int64_t epoch = fetch(0, kEpochOffset);
      drain();
      if (ready()) break;
      if (published != -(epoch + 1)) {
        published = -(epoch + 1);
        publish(published);
      }
      if (deadlocked(epoch)) abort_launch(kAbortDeadlock);
      backoff(spin);
      drain();
      if (ready()) break;
    }
    if (published != kRunning) publish(kRunning);
    MPI_Win_sync(win_);
  }

  // sem_read: no baton to pass here (the ranks run at once); the counter
  // as it is, after the inbox is drained and `land()` has run.
  template <class Count, class Land>
  int64_t read_semaphore(int device, const Count& count, const Land& land) {
    (void)device;
    drain();
    land();
    return count();
  }

  // The same inside a `while` loop: a poll (poll_counter), as with
  // simulated devices.
  template <class Count, class Land>
  int64_t poll_semaphore(int device, const void* key, const Count& count, const Land& land, int site,
                         const BlockedWait& info) {
    drain();
    return poll_counter(polls_[site], key, effects_, count, land,
                        [&](const std::function<bool()>& ready) { wait_until(device, ready, info); });
  }

  void note_effect(int device) {
    (void)device;
    ++effects_;
  }

  // ----- counters ------------------------------------------------------------
  // A counter of this rank's (a semaphore's value), read atomically.
  int64_t load(const int64_t& counter) { return fetch(rank_, displacement(rank_, &counter)); }

  // Adds `delta` to device `device`'s copy of `counter`; a remote add is
  // complete when this returns, and counts as an effect (the epoch).
  void add(int device, const int64_t& counter, int64_t delta) {
    MPI_Accumulate(&delta, 1, MPI_INT64_T, device, displacement(device, &counter), 1, MPI_INT64_T, MPI_SUM, win_);
    MPI_Win_flush(device, win_);
    if (device != rank_) bump_epoch();
  }

  // ----- DMAs ------------------------------------------------------------------
  // The copy of a DMA run into `device`'s copy of `dst` (a local address).
  void put(int device, void* dst, const void* src, size_t bytes) {
    if (device == rank_) {
      std::memcpy(dst, src, bytes);
      return;
    }
    MPI_Aint at = displacement(device, dst);
    const char* from = static_cast<const char*>(src);
    for (size_t done = 0; done < bytes;) {
      const int n = static_cast<int>(std::min(bytes - done, size_t{1} << 30));
      MPI_Put(from + done, n, MPI_BYTE, device, at + static_cast<MPI_Aint>(done), n, MPI_BYTE, win_);
      done += static_cast<size_t>(n);
    }
  }

  // An add=true run into `device`'s copy of `dst`: MPI_Accumulate with
  // MPI_SUM (each element is one addition, atomic with the others'),
  // compare-and-swap per element for types MPI cannot sum. Also used for a
  // local destination that remote DMAs add into, so that the two are atomic
  // with respect to each other.
  template <class T>
  void accumulate(int device, T* dst, const T* src, int64_t n) {
    const MPI_Datatype type = mpi_sum_type<T>();
    if (type != MPI_DATATYPE_NULL) {
      MPI_Aint at = displacement(device, dst);
      for (int64_t done = 0; done < n;) {
        const int count = static_cast<int>(std::min<int64_t>(n - done, int64_t{1} << 28));
        MPI_Accumulate(src + done, count, type, device, at + static_cast<MPI_Aint>(done * sizeof(T)), count, type, MPI_SUM,
                       win_);
        done += count;
      }
      MPI_Win_flush(device, win_);
      return;
    }
    const MPI_Datatype bits = mpi_bits_type<sizeof(T)>();
    for (int64_t j = 0; j < n; ++j) {
      const MPI_Aint at = displacement(device, dst + j);
      T seen{};
      MPI_Fetch_and_op(&seen, &seen, bits, device, at, MPI_NO_OP, win_);
      MPI_Win_flush(device, win_);
      for (;;) {
        T sum = op_add(seen, src[j]);
        T found{};
        MPI_Compare_and_swap(&sum, &seen, &found, bits, device, at, win_);
        MPI_Win_flush(device, win_);
        if (std::memcmp(&found, &seen, sizeof(T)) == 0) break;
        seen = found;
      }
    }
  }

  // A remote DMA's data is complete at `device`; its arrival record goes
  // to that rank's inbox (waiting while the inbox is full).
  void arrive(int device, MpiArrival a) {
    MPI_Win_flush(device, win_);
    const int64_t slot = fetch_add(device, kTailOffset, 1);
    for (unsigned spin = 0; slot - fetch(device, kHeadOffset) >= kInbox; ++spin) {
      if (fetch(0, kAbortOffset) != 0) throw MpiAborted{};
      backoff(spin);
    }
    const MPI_Aint at = static_cast<MPI_Aint>(inbox_offset() + static_cast<size_t>(slot % kInbox) * sizeof(MpiArrival));
    const int body = static_cast<int>(sizeof(MpiArrival) - offsetof(MpiArrival, program));
    MPI_Put(reinterpret_cast<const char*>(&a) + offsetof(MpiArrival, program), body, MPI_BYTE, device,
            at + static_cast<MPI_Aint>(offsetof(MpiArrival, program)), body, MPI_BYTE, win_);
    MPI_Win_flush(device, win_);
    const int64_t ready = slot + 1;
    MPI_Accumulate(&ready, 1, MPI_INT64_T, device, at, 1, MPI_INT64_T, MPI_REPLACE, win_);
    MPI_Win_flush(device, win_);
    bump_epoch();
  }

  // Moves every complete arrival record out of the inbox, in slot order.
  void drain() {
    for (;;) {
      const MPI_Aint at = static_cast<MPI_Aint>(inbox_offset() + static_cast<size_t>(head_ % kInbox) * sizeof(MpiArrival));
      if (fetch(rank_, at) != head_ + 1) return;
      MPI_Win_sync(win_);
      MpiArrival a;
      std::memcpy(&a, base_ + at, sizeof a);
      ++head_;
      int64_t head = head_;
      MPI_Accumulate(&head, 1, MPI_INT64_T, rank_, kHeadOffset, 1, MPI_INT64_T, MPI_REPLACE, win_);
      MPI_Win_flush(rank_, win_);
      if (on_arrival) on_arrival(a);
    }
  }

 private:
  static constexpr MPI_Aint kTailOffset = 0, kHeadOffset = 8, kEpochOffset = 16, kAbortOffset = 24, kStatusOffset = 32;

  static size_t align(size_t n) { return (n + 63) / 64 * 64; }
  size_t inbox_offset() const { return align(static_cast<size_t>(kStatusOffset) + 8 * static_cast<size_t>(devices_)); }
  // Where `local`, an address in this rank's part of the window, is in
  // `device`'s window.
  MPI_Aint displacement(int device, const void* local) const {
    return static_cast<MPI_Aint>(user_offset_) + pads_[static_cast<size_t>(device)] + (static_cast<const char*>(local) - user_);
  }

  int64_t fetch(int device, MPI_Aint at) {
    int64_t none = 0, value = 0;
    MPI_Fetch_and_op(&none, &value, MPI_INT64_T, device, at, MPI_NO_OP, win_);
    MPI_Win_flush(device, win_);
    return value;
  }
  int64_t fetch_add(int device, MPI_Aint at, int64_t delta) {
    int64_t value = 0;
    MPI_Fetch_and_op(&delta, &value, MPI_INT64_T, device, at, MPI_SUM, win_);
    MPI_Win_flush(device, win_);
    return value;
  }
  void bump_epoch() { fetch_add(0, kEpochOffset, 1); }
  void publish(int64_t status) {
    MPI_Accumulate(&status, 1, MPI_INT64_T, 0, kStatusOffset + 8 * rank_, 1, MPI_INT64_T, MPI_REPLACE, win_);
    MPI_Win_flush(0, win_);
  }
  void abort_launch(int64_t why) {
    const int64_t none = 0;
    int64_t found = 0;
    MPI_Compare_and_swap(&why, &none, &found, MPI_INT64_T, 0, kAbortOffset, win_);
    MPI_Win_flush(0, win_);
  }

  // Every rank done or blocked at `epoch`, with no effect in between.
  bool deadlocked(int64_t epoch) {
    std::vector<int64_t> status(static_cast<size_t>(size_));
    MPI_Get_accumulate(nullptr, 0, MPI_INT64_T, status.data(), size_, MPI_INT64_T, 0, kStatusOffset, size_, MPI_INT64_T,
                       MPI_NO_OP, win_);
    MPI_Win_flush(0, win_);
    if (fetch(0, kEpochOffset) != epoch) return false;
    for (int64_t s : status) {
      if (s != kDone && s != -(epoch + 1)) return false;
    }
    return true;
  }

  // The launch was aborted while this rank waited.
  [[noreturn]] void blocked_abort(int64_t why, int device, const BlockedWait& info) {
    if (why != kAbortDeadlock) throw MpiAborted{};
    throw RunFailure{deadlock_error(device, info)};
  }

  void device_main(const std::function<void(int)>& body) {
    RunError failure;
    try {
      if (!run_catching(rank_, [&] { body(rank_); }, failure)) {
        own_failure_ = true;
        failure_ = failure;
        // A deadlock is already the launch's abort; anything else aborts it.
        abort_launch(failure.code == Code::Deadlock ? kAbortDeadlock : kAbortFailed);
      }
    } catch (const MpiAborted&) {
    }
  }

  // Polling: a few yields, then short sleeps, so that ranks sharing a core
  // with the one that works leave it the core.
  static void backoff(unsigned spin) {
    if (spin < 16) {
      sched_yield();
      return;
    }
    timespec pause{0, spin < 256 ? 20000 : 200000};
    nanosleep(&pause, nullptr);
  }

  int devices_ = 1;
  int rank_ = 0;
  int size_ = 1;
  MPI_Win win_ = MPI_WIN_NULL;
  char* base_ = nullptr;
  size_t user_offset_ = 0;  // the launch's part, before each rank's padding
  char* user_ = nullptr;     // this rank's launch part (64-byte aligned)
  std::vector<int> pads_;    // each rank's padding
  int64_t head_ = 0;  // inbox slots drained (only this rank drains)
  uint64_t effects_ = 0;
  std::map<int, PollSite> polls_;
  bool own_failure_ = false;
  RunError failure_;
};

}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_MPI_H
