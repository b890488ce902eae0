// Choices: the generator's only source of decisions.
#include "kd_gen.h"

namespace kdt::gen {

Choices::Choices(uint64_t seed) : state_(seed) {}

Choices::Choices(const uint8_t* data, size_t size) : from_bytes_(true), data_(data), size_(size) {}

uint64_t Choices::next64() {
  // SplitMix64.
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t Choices::below(uint64_t n) {
  if (n <= 1) return 0;
  if (from_bytes_) {
    // As few bytes as n needs (one for most decisions, so that a fuzzer's
    // mutations stay local), zeros once the input is used up: a short input
    // still yields a small complete program.
    uint64_t v = 0;
    for (uint64_t left = n - 1; left != 0; left >>= 8) v = (v << 8) | (pos_ < size_ ? data_[pos_++] : 0);
    return v % n;
  }
  return next64() % n;
}

bool Choices::coin() { return below(2) == 1; }

bool Choices::chance(unsigned percent) { return below(100) < percent; }

int64_t Choices::range(int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo) + 1));
}

}  // namespace kdt::gen
