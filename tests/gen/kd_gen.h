// A generator of well-typed KD programs with their expected outputs, for
// differential testing (tests/gen/difftest_main.cpp) and fuzzing. It builds a
// small program model from a stream of choices, prints it as KD text and
// evaluates the model with its own interpreter (tests/gen/eval.cpp), so that
// `expected` owes nothing to kdt's code.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kdt::gen {

// Where the generator's decisions come from: fuzzer bytes (deterministic,
// running out of bytes yields zeros) or a seed (SplitMix64).
class Choices {
 public:
  explicit Choices(uint64_t seed);
  Choices(const uint8_t* data, size_t size);
  uint64_t below(uint64_t n);  // uniform-ish in [0, n); n >= 1
  bool coin();
  // True with probability about percent / 100.
  bool chance(unsigned percent);
  // Uniform in [lo, hi] (lo <= hi).
  int64_t range(int64_t lo, int64_t hi);
  // One of the elements of a non-empty vector.
  template <class T>
  const T& pick(const std::vector<T>& items) {
    return items[below(items.size())];
  }

 private:
  uint64_t next64();
  bool from_bytes_ = false;
  uint64_t state_ = 0;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;
};

struct Array {
  std::string name;             // parameter name in the kernel
  std::string dtype;            // KD dtype name: "f32", "i32", ...
  std::vector<int64_t> shape;   // with devices(N), N > 1: [N, ...] (device-major)
  std::vector<uint8_t> bytes;   // little-endian, row-major element data
};

struct Program {
  std::string source;           // KD text of one kernel (a complete file)
  std::string kernel;           // its name
  std::vector<Array> inputs;    // values for the kernel's input parameters (`in` and `inout` refs)
  std::vector<Array> expected;  // every output parameter (`out`, `inout`), computed by the model evaluator; empty when racy or buggy
  bool racy = false;            // built racy on purpose: `kdt run` must report `race`
  std::string bug;              // a deliberate protocol bug: the code `kdt run` must report
                                // (semaphore-leak, deadlock, dma-wait-mismatch); empty: none
  int devices = 1;              // devices(N) of the kernel
};

Program generate(Choices& choices);

}  // namespace kdt::gen
