// kdt_checks.h - the run-time checks of emitted C++: the errors they stop a
// launch with (codes from the registry, kdt_codes.h), index, divisor and
// device checks, element-set boxes, and the happens-before clocks of the
// cross-program race check. Shadow memory is kdt_shadow.h.
#ifndef KDT_RUNTIME_KDT_CHECKS_H
#define KDT_RUNTIME_KDT_CHECKS_H

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kdt_api.h"
#include "kdt_codes.h"

namespace kdt_rt {

// ---------------------------------------------------------------------------
// Run-time diagnostics: a failed check stops the launch with one of these.
// Locations carry the KD file, line/column and byte range, so that `kdt run`
// can render them like its compile-time diagnostics.
// ---------------------------------------------------------------------------
struct CallSite;

struct SourceLoc {
  const char* file;
  int line;
  int column;
  uint32_t begin;
  uint32_t end;
  // Inside an expanded KD function: the call it was expanded at (spec
  // section 12), whose own `at.call` leads further out.
  const CallSite* call = nullptr;
};

// A call of a KD function, for the notes of a run-time diagnostic inside it.
struct CallSite {
  const char* function;  // the instance: `f` or `f<T = bf16>`
  SourceLoc at;
};

struct RunError {
  RunCode code;
  std::string message;
  SourceLoc loc{"", 0, 0, 0, 0};
  std::vector<std::pair<std::string, SourceLoc>> notes;
};

struct RunFailure {
  RunError error;
};

[[noreturn]] KDT_RT_API void fail(RunCode code, const SourceLoc& loc, std::string message);

[[noreturn]] KDT_RT_API void index_out_of_bounds(int64_t start, int64_t size, int64_t dim, const SourceLoc& loc,
                                                  const char* what);

// Inline: every index of emitted code goes through it; the message is built
// out of line, only when the check fails.
inline int64_t checked_index(int64_t start, int64_t size, int64_t dim, const SourceLoc& loc, const char* what) {
  if (start < 0 || start + size > dim) index_out_of_bounds(start, size, dim, loc, what);
  return start;
}

template <class T>
inline T checked_divisor(T divisor, const SourceLoc& loc) {
  if (divisor == T(0)) fail(Code::DivisionByZero, loc, "integer division by zero");
  return divisor;
}

// One coordinate of `device=(d0, d1, ...)` (spec section 15).
inline int32_t checked_coordinate(int64_t c, int64_t size, const char* axis, const SourceLoc& loc) {
  if (c < 0 || c >= size) {
    fail(Code::OutOfBounds, loc,
         "device coordinate " + std::to_string(c) + " is outside " + axis + " of size " + std::to_string(size));
  }
  return static_cast<int32_t>(c);
}

inline int checked_device(int64_t device, int64_t devices, const SourceLoc& loc) {
  if (device < 0 || device >= devices) {
    fail(Code::OutOfBounds, loc,
         "device " + std::to_string(device) + " does not exist; the kernel runs on " + std::to_string(devices) +
             (devices == 1 ? " device" : " devices"));
  }
  return static_cast<int>(device);
}

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

// ---------------------------------------------------------------------------
// Definitions of the functions declared KDT_RT_API above: inline in a
// self-contained file, compiled once into `kdt run`'s runtime library,
// and left out of a kernel that links that library (kdt_api.h).
// ---------------------------------------------------------------------------
#if !defined(KDT_RT_SEPARATE)

[[noreturn]] KDT_RT_API void fail(RunCode code, const SourceLoc& loc, std::string message) {
  RunError e;
  e.code = code;
  e.message = std::move(message);
  e.loc = loc;
  throw RunFailure{std::move(e)};
}

[[noreturn]] KDT_RT_API void index_out_of_bounds(int64_t start, int64_t size, int64_t dim, const SourceLoc& loc,
                                                  const char* what) {
  fail(Code::OutOfBounds, loc,
       std::string(what) + " " + std::to_string(start) + (size > 1 ? ":" + std::to_string(start + size) : "") +
           " is out of bounds for a dimension of size " + std::to_string(dim));
}

#endif  // !KDT_RT_SEPARATE

}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_CHECKS_H
