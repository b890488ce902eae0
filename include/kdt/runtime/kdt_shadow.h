// kdt_shadow.h - shadow memory for the run-time checks `race` and
// `uninitialized-read`, and the claims of in-flight DMAs on it.
#ifndef KDT_RUNTIME_KDT_SHADOW_H
#define KDT_RUNTIME_KDT_SHADOW_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "kdt_checks.h"
#include "kdt_dma.h"

namespace kdt_rt {

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
  size_t written_count = 0;  // of `written`, those set: a fully written ref's reads skip the scan
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
  bool fully_written() const { return !written.empty() && written_count == written.size(); }
  void mark_written(const Box& box) {
    if (fully_written()) return;
    std::vector<uint8_t>& w = written_flags();
    for_each(box, [&](size_t e) {
      written_count += w[e] == 0;
      w[e] = 1;
    });
  }
  // Calls on_unwritten() if an element of `box` was never written.
  template <class F>
  void check_written(const Box& box, F&& on_unwritten) {
    if (fully_written()) return;
    std::vector<uint8_t>& w = written_flags();
    for_each(box, [&](size_t e) {
      if (!w[e]) on_unwritten();
    });
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
  e.code = Code::Race;
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
  fail(Code::UninitializedRead, loc,
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
    if (kind == Access::Read || kind == Access::Update) r.check_written(box, [&] { never_written(r, *loc, false, kind); });
    if (writes) r.mark_written(box);
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
  // A block spec's write-back is checked when it retires, with its record:
  // nothing but the pipeline reaches the array meanwhile (spec section 13),
  // and another program's DMA into it meanwhile meets this one's claim.
  if (dst.track_writers && !dma->copies_written) {
    dst.histories();
    dst.for_each(dma->dst_box, [&](size_t e) { track_element(dst, e, dst_kind, true, c, &dma->loc, true, false); });
  }
  if (src.track_written && !dma->copies_written) {
    src.check_written(dma->src_box, [&] { never_written(src, dma->loc, true, Access::Read); });
  }
  // An add reads its destination.
  if (dma->add && dst.track_written) {
    dst.check_written(dma->dst_box, [&] { never_written(dst, dma->loc, true, Access::Accumulate); });
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
  if (dst.track_written && dma.copies_written && dma.src_shadow->track_written && !dma.src_shadow->fully_written()) {
    // Element by element, in the boxes' common row-major order.
    RefShadow& src = *dma.src_shadow;
    std::vector<uint8_t> from;
    src.for_each(dma.src_box, [&](size_t e) { from.push_back(src.written_flags()[e]); });
    std::vector<uint8_t>& to = dst.written_flags();
    size_t i = 0;
    dst.for_each(dma.dst_box, [&](size_t e) {
      dst.written_count += static_cast<size_t>(from[i]) - static_cast<size_t>(to[e]);
      to[e] = from[i++];
    });
  } else if (dst.track_written) {
    dst.mark_written(dma.dst_box);
  }
  if (dst.track_writers) {
    dst.histories();
    Access kind = dma.add ? Access::Accumulate : Access::Write;
    dst.for_each(dma.dst_box, [&](size_t e) { track_element(dst, e, kind, true, c, &dma.loc, dma.copies_written, true); });
  }
  if (!dma.has_src_sem) retire_source(dma, c);
}

// The block of scoped scratch `r` is entered (spec section 17): its
// elements are uninitialised again, and a DMA already in flight into it (a
// peer's remote DMA, started before this program entered) is a race: it
// must be ordered after the entry.
inline void enter_scope(RefShadow& r, const SourceLoc& entry) {
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
  std::fill(r.written.begin(), r.written.end(), uint8_t{0});
  r.written_count = 0;
}

// The block of scoped scratch `r` ends (spec section 17): no DMA may
// still be in flight into or out of it.
inline void check_scope_scratch(const RefShadow& r, const SourceLoc& end) {
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

// Block specs (spec section 13). A new output block starts uninitialised
// in its slot `slot` of the double buffer `r`.
inline void forget_block(RefShadow& r, int64_t slot) {
  if (r.written.empty()) return;
  const size_t per_slot = r.count() / static_cast<size_t>(r.shape[0]);
  auto first = r.written.begin() + static_cast<std::ptrdiff_t>(per_slot * static_cast<size_t>(slot));
  auto last = first + static_cast<std::ptrdiff_t>(per_slot);
  r.written_count -= static_cast<size_t>(std::count(first, last, uint8_t{1}));
  std::fill(first, last, uint8_t{0});
}

// A step ends: a block buffer exists for that step only, so the only DMAs
// still in flight on it are the pipeline's own, on its `count` semaphores.
inline void check_block_step(const RefShadow& r, const DmaSemaphore* pipeline, int64_t count, const char* spec,
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

}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_SHADOW_H
