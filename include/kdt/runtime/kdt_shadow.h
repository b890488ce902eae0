// kdt_shadow.h - shadow memory for the run-time checks `race` and
// `uninitialized-read`, and the claims of in-flight DMAs on it.
#ifndef KDT_RUNTIME_KDT_SHADOW_H
#define KDT_RUNTIME_KDT_SHADOW_H

#include <algorithm>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kdt_api.h"
#include "kdt_checks.h"
#include "kdt_dma.h"

namespace kdt_rt {

// ---------------------------------------------------------------------------
// Shadows for the run-time checks `race` and `uninitialized-read`: per ref
// instance, which elements were ever written (one bit each), which DMAs are
// in flight on it (as boxes), and, for writable @global parameters, the
// history of each element that the cross-program check needs (spec section
// 1), kept as runs of elements with one history: a program stores tiles and
// DMAs move boxes, so a 64 MiB array written by 16 DMAs has 16 runs, not
// 16 million histories (issue 17: the shadow is proportional to what is
// tracked, and nothing is zero-filled that no access touched).
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

// One bit per element. Ranges are half-open [begin, end) of flat offsets;
// whole words are handled at once, so marking a row costs a few stores.
class ElementBits {
 public:
  bool allocated() const { return !words_.empty(); }
  void allocate(size_t elements) {
    words_.assign((elements + 63) / 64, 0);
    size_ = elements;
    count_ = 0;
  }
  size_t size() const { return size_; }
  size_t count() const { return count_; }
  bool all() const { return size_ != 0 && count_ == size_; }
  bool test(size_t e) const { return (words_[e / 64] >> (e % 64)) & 1u; }

  void set(size_t begin, size_t end) { apply(begin, end, true); }
  void clear(size_t begin, size_t end) { apply(begin, end, false); }
  void clear_all() {
    std::fill(words_.begin(), words_.end(), uint64_t{0});
    count_ = 0;
  }
  // Whether every bit of [begin, end) is set.
  bool all_set(size_t begin, size_t end) const {
    bool all = true;
    for_words(begin, end, [&](size_t w, uint64_t mask) { all = all && (words_[w] & mask) == mask; });
    return all;
  }

 private:
  static size_t ones(uint64_t w) { return std::bitset<64>(w).count(); }
  static uint64_t mask_from(size_t bit) { return bit >= 64 ? 0 : ~uint64_t{0} << bit; }
  // f(word index, mask of the range's bits in it), word by word.
  template <class F>
  static void for_words(size_t begin, size_t end, F&& f) {
    if (begin >= end) return;
    size_t first = begin / 64, last = (end - 1) / 64;
    for (size_t w = first; w <= last; ++w) {
      uint64_t mask = ~uint64_t{0};
      if (w == first) mask &= mask_from(begin % 64);
      if (w == last) mask &= ~mask_from((end - 1) % 64 + 1);
      f(w, mask);
    }
  }
  void apply(size_t begin, size_t end, bool value) {
    for_words(begin, end, [&](size_t w, uint64_t mask) {
      uint64_t before = words_[w];
      uint64_t after = value ? before | mask : before & ~mask;
      count_ = count_ + ones(after) - ones(before);
      words_[w] = after;
    });
  }

  std::vector<uint64_t> words_;
  size_t size_ = 0;
  size_t count_ = 0;
};

// The cross-program history of an element: its last plain write, and the
// reads and accumulations since that no later access has covered (several
// when concurrent programs made them), in the order they came.
struct ElementHistory {
  Epoch write;
  std::vector<Epoch> reads;
  std::vector<Epoch> accums;
};

inline bool same_epoch(const Epoch& a, const Epoch& b) {
  return a.flat == b.flat && a.device == b.device && a.clock == b.clock && a.by_dma == b.by_dma && a.loc == b.loc;
}
inline bool same_epochs(const std::vector<Epoch>& a, const std::vector<Epoch>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), same_epoch);
}
inline bool same_history(const ElementHistory& a, const ElementHistory& b) {
  return same_epoch(a.write, b.write) && same_epochs(a.reads, b.reads) && same_epochs(a.accums, b.accums);
}

// The histories of a ref's elements as runs: each key starts a run of
// elements with one history, which lasts to the next key (the last run to
// the end of the ref). Neighbouring runs with equal histories are merged
// after each update, so the count of runs follows the access pattern.
class HistoryRuns {
 public:
  bool allocated() const { return !runs_.empty(); }
  void allocate(size_t elements) {
    runs_.clear();
    runs_.emplace(size_t{0}, ElementHistory{});
    size_ = elements;
  }
  size_t runs() const { return runs_.size(); }

  // f(history) for each run that meets [begin, end), in order.
  template <class F>
  void visit(size_t begin, size_t end, F&& f) const {
    auto it = std::prev(runs_.upper_bound(begin));
    for (; it != runs_.end() && it->first < end; ++it) f(it->second);
  }
  // f(history) for the histories of exactly [begin, end), then merges.
  template <class F>
  void update(size_t begin, size_t end, F&& f) {
    if (begin >= end) return;
    auto first = split(begin);
    auto last = split(end);
    for (auto it = first; it != last; ++it) f(it->second);
    merge(first == runs_.begin() ? first : std::prev(first), last);
  }

 private:
  using Map = std::map<size_t, ElementHistory>;
  // The run that starts at `at`, splitting the one around it (end(): `at`
  // is the end of the ref).
  Map::iterator split(size_t at) {
    if (at >= size_) return runs_.end();
    auto next = runs_.upper_bound(at);
    auto run = std::prev(next);
    if (run->first == at) return run;
    return runs_.emplace_hint(next, at, run->second);
  }
  // Merges equal neighbours from `from` up to and including `last`.
  void merge(Map::iterator from, Map::iterator last) {
    auto it = from;
    while (it != runs_.end()) {
      auto next = std::next(it);
      if (next == runs_.end()) break;
      bool stop = next == last;
      if (same_history(it->second, next->second)) {
        runs_.erase(next);
      } else {
        it = next;
      }
      if (stop) break;
    }
  }

  Map runs_;
  size_t size_ = 0;
};

struct RefShadow {
  const char* name = "";
  std::vector<int64_t> shape;
  bool track_written = false;  // scratch and `out` parameters
  bool track_writers = false;  // writable @global parameters (cross-program races)
  ElementBits written;
  HistoryRuns history;
  std::vector<Claim> claims;
  // A parameter's shadow, which the programs of a parallel launch share
  // (kdt_parallel.h), is locked by every check (ShadowLock); a program's
  // scratch shadows are its own and have no lock.
  std::unique_ptr<std::mutex> lock;

  void init(const char* ref_name, std::vector<int64_t> ref_shape, bool written_tracking, bool writer_tracking,
            bool shared = false) {
    name = ref_name;
    shape = std::move(ref_shape);
    track_written = written_tracking;
    track_writers = writer_tracking;
    if (shared) lock = std::make_unique<std::mutex>();
  }

  size_t count() const {
    size_t n = 1;
    for (int64_t d : shape) n *= static_cast<size_t>(d);
    return n;
  }

  // The shadows are made when first needed: most refs never need one.
  ElementBits& written_bits() {
    if (!written.allocated()) written.allocate(count());
    return written;
  }
  HistoryRuns& histories() {
    if (!history.allocated()) history.allocate(count());
    return history;
  }
  bool fully_written() const { return written.all(); }
  void mark_written(const Box& box) {
    if (fully_written()) return;
    ElementBits& w = written_bits();
    for_each_row(box, [&](size_t begin, size_t end) { w.set(begin, end); });
  }
  // Calls on_unwritten() if an element of `box` was never written.
  template <class F>
  void check_written(const Box& box, F&& on_unwritten) {
    if (fully_written()) return;
    ElementBits& w = written_bits();
    for_each_row(box, [&](size_t begin, size_t end) {
      if (!w.all_set(begin, end)) on_unwritten();
    });
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

  // Calls f(begin, end) for the flat offsets of each row of `box`, in
  // row-major order: the last dimension is contiguous.
  template <class F>
  void for_each_row(const Box& box, F&& f) const {
    if (box.rank == 0) {
      f(size_t{0}, size_t{1});
      return;
    }
    int last = box.rank - 1;
    if (box.size[last] <= 0) return;
    int64_t idx[kMaxRank] = {};
    size_t rows = 1;
    for (int d = 0; d < last; ++d) rows *= static_cast<size_t>(box.size[d]);
    for (size_t row = 0; row < rows; ++row) {
      size_t offset = 0;
      for (int d = 0; d < box.rank; ++d) {
        offset = offset * static_cast<size_t>(shape[static_cast<size_t>(d)]) +
                 static_cast<size_t>(box.start[d] + (d < last ? idx[d] : 0));
      }
      f(offset, offset + static_cast<size_t>(box.size[last]));
      for (int d = last - 1; d >= 0; --d) {
        if (++idx[d] < box.size[d]) break;
        idx[d] = 0;
      }
    }
  }
  // Calls f(flat offset) for every element of `box`, in row-major order.
  template <class F>
  void for_each(const Box& box, F&& f) const {
    for_each_row(box, [&](size_t begin, size_t end) {
      for (size_t e = begin; e < end; ++e) f(e);
    });
  }
};

// Holds the locks of one or two shared shadows (in address order, so that
// two checks never wait for each other); nothing for unshared ones.
class ShadowLock {
 public:
  explicit ShadowLock(const RefShadow& a, const RefShadow* b = nullptr) {
    first_ = a.lock.get();
    second_ = b && b != &a ? b->lock.get() : nullptr;
    if (!first_) std::swap(first_, second_);
    if (second_ && second_ < first_) std::swap(first_, second_);
    if (first_) first_->lock();
    if (second_) second_->lock();
  }
  ~ShadowLock() {
    if (second_) second_->unlock();
    if (first_) first_->unlock();
  }
  ShadowLock(const ShadowLock&) = delete;
  ShadowLock& operator=(const ShadowLock&) = delete;

 private:
  std::mutex* first_ = nullptr;
  std::mutex* second_ = nullptr;
};

[[noreturn]] KDT_RT_API void race(const SourceLoc& loc, std::string message, const std::string& note,
                              const SourceLoc& other);

// The first access of `set` not ordered before `c`.
inline const Epoch* unordered(const std::vector<Epoch>& set, const ProgramClock& c) {
  for (const Epoch& e : set) {
    if (!e.before(c)) return &e;
  }
  return nullptr;
}

// Adds `now` (an access by `c`) to a set of reads or accumulations: it
// replaces the accesses ordered before it.
inline void add_epoch(std::vector<Epoch>& set, const Epoch& now, const ProgramClock& c) {
  set.erase(std::remove_if(set.begin(), set.end(), [&](const Epoch& e) { return e.before(c); }), set.end());
  set.push_back(now);
}

[[noreturn]] KDT_RT_API void cross_program_race(const RefShadow& r, Access kind, bool by_dma, const SourceLoc* loc,
                                            const Epoch& other, const char* other_did, const ProgramClock& c);

// The cross-program check (`check`) and record (`record`) of an access
// `kind` by program `c` to `box`, run by run of equal histories. Rows are
// taken in row-major order and runs in order within a row, so the race
// reported is the one of the first element in that order, as if the
// elements were checked one by one.
KDT_RT_API void track_box(RefShadow& r, const Box& box, Access kind, bool by_dma, const ProgramClock& c,
                      const SourceLoc* loc, bool check, bool record);

[[noreturn]] KDT_RT_API void never_written(const RefShadow& r, const SourceLoc& loc, bool by_dma, Access kind);

// A load, store or update of `box` of a ref by program `c`.
KDT_RT_API void check_access(RefShadow& r, const Box& box, Access kind, const ProgramClock& c, const SourceLoc* loc);

// A masked-on element, checked on its own.
inline void check_element(RefShadow& r, size_t offset, Access kind, const ProgramClock& c, const SourceLoc* loc) {
  if (!r.lock && r.claims.empty() && !r.track_writers && !r.track_written) return;
  check_access(r, r.element_box(offset), kind, c, loc);
}

// A DMA starts (by program `c`): its destination may not overlap another
// in-flight DMA's (unless both accumulate), nor its source another DMA's
// destination or its own destination; its source (and, for an add, its
// destination) must have been written; and no access of another program
// that is not ordered before this start may conflict with it. The DMA's
// own accesses are recorded when it is retired (retire_claims).
KDT_RT_API void claim_dma(const std::shared_ptr<DmaRecord>& dma, ProgramClock& c);

KDT_RT_API void release_claim(RefShadow& r, const DmaRecord* dma, bool destination);

// No other in-flight DMA writes the elements `dma` writes into `dst`
// (unless both accumulate).
KDT_RT_API void check_destination_claims(const RefShadow& dst, const DmaRecord& dma);

// The DMA has read its source: recorded as a read by the retiring program.
KDT_RT_API void retire_source(DmaRecord& dma, const ProgramClock& c);
KDT_RT_API void retire_source_locked(DmaRecord& dma, const ProgramClock& c);

// A wait by program `c` retires `dma` on `sem`: the destination side when
// it is the destination semaphore (and the source side too for a local
// DMA), the source side when it is a remote DMA's `src_sem`. The
// destination's writes are recorded as the retiring program's: only from
// there on is the data known to have landed.
KDT_RT_API void retire_claims(DmaRecord& dma, const DmaSemaphore* sem, ProgramClock& c);

// The block of scoped scratch `r` is entered (spec section 17): its
// elements are uninitialised again, and a DMA already in flight into it (a
// peer's remote DMA, started before this program entered) is a race: it
// must be ordered after the entry.
KDT_RT_API void enter_scope(RefShadow& r, const SourceLoc& entry);

// The block of scoped scratch `r` ends (spec section 17): no DMA may
// still be in flight into or out of it.
KDT_RT_API void check_scope_scratch(const RefShadow& r, const SourceLoc& end);

// Block specs (spec section 13). A new output block starts uninitialised
// in its slot `slot` of the double buffer `r`.
KDT_RT_API void forget_block(RefShadow& r, int64_t slot);

// A step ends: a block buffer exists for that step only, so the only DMAs
// still in flight on it are the pipeline's own, on its `count` semaphores.
KDT_RT_API void check_block_step(const RefShadow& r, const DmaSemaphore* pipeline, int64_t count, const char* spec,
                             const SourceLoc& end);

// ---------------------------------------------------------------------------
// Definitions of the functions declared KDT_RT_API above: inline in a
// self-contained file, compiled once into `kdt run`'s runtime library,
// and left out of a kernel that links that library (kdt_api.h).
// ---------------------------------------------------------------------------
#if !defined(KDT_RT_SEPARATE)

[[noreturn]] KDT_RT_API void race(const SourceLoc& loc, std::string message, const std::string& note,
                              const SourceLoc& other) {
  RunError e;
  e.code = Code::Race;
  e.message = std::move(message);
  e.loc = loc;
  e.notes.emplace_back(note, other);
  throw RunFailure{std::move(e)};
}

[[noreturn]] KDT_RT_API void cross_program_race(const RefShadow& r, Access kind, bool by_dma, const SourceLoc* loc,
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

KDT_RT_API void track_box(RefShadow& r, const Box& box, Access kind, bool by_dma, const ProgramClock& c,
                      const SourceLoc* loc, bool check, bool record) {
  HistoryRuns& runs = r.histories();
  const Epoch now = Epoch::of(c, loc, by_dma);
  r.for_each_row(box, [&](size_t begin, size_t end) {
    if (check) {
      runs.visit(begin, end, [&](const ElementHistory& h) {
        if (!h.write.before(c)) cross_program_race(r, kind, by_dma, loc, h.write, "written", c);
        if (kind != Access::Accumulate) {
          if (const Epoch* o = unordered(h.accums, c)) cross_program_race(r, kind, by_dma, loc, *o, "accumulated into", c);
        }
        if (kind != Access::Read) {
          if (const Epoch* o = unordered(h.reads, c)) cross_program_race(r, kind, by_dma, loc, *o, "read", c);
        }
      });
    }
    if (!record) return;
    runs.update(begin, end, [&](ElementHistory& h) {
      switch (kind) {
        case Access::Read: add_epoch(h.reads, now, c); break;
        case Access::Accumulate: add_epoch(h.accums, now, c); break;
        case Access::Write:
        case Access::Update:
          h.write = now;
          h.reads.clear();
          h.accums.clear();
          break;
      }
    });
  });
}

[[noreturn]] KDT_RT_API void never_written(const RefShadow& r, const SourceLoc& loc, bool by_dma, Access kind) {
  std::string what = std::string("`") + r.name + "` elements never written";
  fail(Code::UninitializedRead, loc,
       by_dma ? (kind == Access::Accumulate ? "this DMA accumulates into " : "this DMA reads ") + what
              : (kind == Access::Update ? "update of " : "read of ") + what);
}

KDT_RT_API void check_access(RefShadow& r, const Box& box, Access kind, const ProgramClock& c, const SourceLoc* loc) {
  ShadowLock locked(r);
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
  if (r.track_writers) track_box(r, box, kind, false, c, loc, true, true);
  if (r.track_written) {
    if (kind == Access::Read || kind == Access::Update) r.check_written(box, [&] { never_written(r, *loc, false, kind); });
    if (writes) r.mark_written(box);
  }
}

KDT_RT_API void claim_dma(const std::shared_ptr<DmaRecord>& dma, ProgramClock& c) {
  RefShadow& src = *dma->src_shadow;
  // No destination shadow: a DMA to another MPI rank, whose receiver
  // claims the destination when the DMA arrives (kdt_mpi.h).
  RefShadow* dst = dma->dst_shadow;
  ShadowLock locked(src, dst);
  if (&src == dst && overlap(dma->src_box, dma->dst_box)) {
    race(dma->loc, std::string("this DMA's source and destination overlap in `") + src.name +
                       "`: its destination is written while its source is still being read",
         "both views are of this DMA", dma->loc);
  }
  if (dst) check_destination_claims(*dst, *dma);
  for (const Claim& cl : src.claims) {
    if (cl.destination && overlap(cl.box, dma->src_box)) {
      race(dma->loc, std::string("this DMA reads `") + src.name + "` elements that an in-flight DMA is writing",
           "the other DMA was started here", cl.dma->loc);
    }
  }
  Access dst_kind = dma->add ? Access::Accumulate : Access::Write;
  if (src.track_writers) track_box(src, dma->src_box, Access::Read, true, c, &dma->loc, true, false);
  // A block spec's write-back is checked when it retires, with its record:
  // nothing but the pipeline reaches the array meanwhile (spec section 13),
  // and another program's DMA into it meanwhile meets this one's claim.
  if (dst && dst->track_writers && !dma->copies_written) {
    track_box(*dst, dma->dst_box, dst_kind, true, c, &dma->loc, true, false);
  }
  if (src.track_written && !dma->copies_written) {
    src.check_written(dma->src_box, [&] { never_written(src, dma->loc, true, Access::Read); });
  }
  src.claims.push_back({dma, dma->src_box, false});
  if (dst) {
    // An add reads its destination.
    if (dma->add && dst->track_written) {
      dst->check_written(dma->dst_box, [&] { never_written(*dst, dma->loc, true, Access::Accumulate); });
    }
    dst->claims.push_back({dma, dma->dst_box, true});
  }
  dma->clock = c.vc;
  c.tick();
}

KDT_RT_API void check_destination_claims(const RefShadow& dst, const DmaRecord& dma) {
  for (const Claim& cl : dst.claims) {
    if (cl.destination && overlap(cl.box, dma.dst_box) && !(cl.dma->add && dma.add)) {
      race(dma.loc, std::string("this DMA writes `") + dst.name + "` elements that another in-flight DMA writes",
           "the other DMA was started here", cl.dma->loc);
    }
  }
}

KDT_RT_API void release_claim(RefShadow& r, const DmaRecord* dma, bool destination) {
  for (size_t i = 0; i < r.claims.size(); ++i) {
    if (r.claims[i].dma.get() == dma && r.claims[i].destination == destination) {
      r.claims.erase(r.claims.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }
}

// retire_source with the source's shadow locked.
KDT_RT_API void retire_source_locked(DmaRecord& dma, const ProgramClock& c) {
  if (dma.src_released) return;
  release_claim(*dma.src_shadow, &dma, false);
  dma.src_released = true;
  RefShadow& src = *dma.src_shadow;
  if (src.track_writers) track_box(src, dma.src_box, Access::Read, true, c, &dma.loc, false, true);
}

KDT_RT_API void retire_source(DmaRecord& dma, const ProgramClock& c) {
  ShadowLock locked(*dma.src_shadow);
  retire_source_locked(dma, c);
}

KDT_RT_API void retire_claims(DmaRecord& dma, const DmaSemaphore* sem, ProgramClock& c) {
  // A DMA to another MPI rank has no destination shadow here: its sender
  // retires the source side only (kdt_mpi.h).
  if (sem != dma.dst_sem && dma.src_shadow) {
    retire_source(dma, c);
    return;
  }
  if (!dma.dst_shadow) return;
  ShadowLock locked(*dma.dst_shadow, dma.src_shadow);
  c.join(dma.clock);
  RefShadow& dst = *dma.dst_shadow;
  release_claim(dst, &dma, true);
  if (dst.track_written && dma.copies_written && dma.src_shadow->track_written && !dma.src_shadow->fully_written()) {
    // Element by element, in the boxes' common row-major order.
    RefShadow& src = *dma.src_shadow;
    std::vector<bool> from;
    ElementBits& from_bits = src.written_bits();
    src.for_each(dma.src_box, [&](size_t e) { from.push_back(from_bits.test(e)); });
    ElementBits& to = dst.written_bits();
    size_t i = 0;
    dst.for_each(dma.dst_box, [&](size_t e) {
      if (from[i++]) {
        to.set(e, e + 1);
      } else {
        to.clear(e, e + 1);
      }
    });
  } else if (dst.track_written) {
    dst.mark_written(dma.dst_box);
  }
  if (dst.track_writers) {
    Access kind = dma.add ? Access::Accumulate : Access::Write;
    track_box(dst, dma.dst_box, kind, true, c, &dma.loc, dma.copies_written, true);
  }
  if (!dma.has_src_sem) retire_source_locked(dma, c);
}

KDT_RT_API void enter_scope(RefShadow& r, const SourceLoc& entry) {
  for (const Claim& c : r.claims) {
    if (!c.destination) continue;
    RunError e;
    e.code = Code::Race;
    e.message = std::string("this remote DMA into `") + r.name +
                "` was started before the receiving program entered the block that declares it";
    e.loc = c.dma->loc;
    e.notes.push_back({"the block is entered here", entry});
    throw RunFailure{std::move(e)};
  }
  r.written.clear_all();
}

KDT_RT_API void check_scope_scratch(const RefShadow& r, const SourceLoc& end) {
  if (r.claims.empty()) return;
  const Claim& c = r.claims.front();
  RunError e;
  e.code = Code::SemaphoreLeak;
  e.message = std::string("this DMA is still in flight ") + (c.destination ? "into" : "out of") + " `" + r.name +
              "` when the block that declares it ends";
  e.loc = c.dma->loc;
  e.notes.push_back({"the block ends here", end});
  throw RunFailure{std::move(e)};
}

KDT_RT_API void forget_block(RefShadow& r, int64_t slot) {
  if (!r.written.allocated()) return;
  const size_t per_slot = r.count() / static_cast<size_t>(r.shape[0]);
  const size_t first = per_slot * static_cast<size_t>(slot);
  r.written.clear(first, first + per_slot);
}

KDT_RT_API void check_block_step(const RefShadow& r, const DmaSemaphore* pipeline, int64_t count, const char* spec,
                             const SourceLoc& end) {
  for (const Claim& c : r.claims) {
    bool own = false;
    for (int64_t i = 0; i < count; ++i) own = own || c.dma->dst_sem == &pipeline[i];
    if (own) continue;
    RunError e;
    e.code = Code::Race;
    e.message = std::string("this DMA is still in flight ") + (c.destination ? "into" : "out of") + " the block of `" +
                spec + "` when its step ends; a block buffer exists for one step only, so retire the DMA in the step "
                "that started it";
    e.loc = c.dma->loc;
    e.notes.push_back({"the step ends here (block spec of `" + std::string(spec) + "`)", end});
    throw RunFailure{std::move(e)};
  }
}

#endif  // !KDT_RT_SEPARATE

}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_SHADOW_H
