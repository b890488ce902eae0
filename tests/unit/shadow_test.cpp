// Unit tests for include/kdt/runtime/kdt_shadow.h: the written bits and the
// runs of element histories that replaced the per-element shadow (issue 17).
// Each structure is compared with a plain per-element model written here,
// over seeded random operations.
#include <doctest/doctest.h>

#include "kdt/runtime/kdt_exec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace kdt_rt;

struct Lcg {
  uint64_t state;
  size_t below(size_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<size_t>((state >> 33) % n);
  }
};

Epoch epoch_of(int64_t flat, uint32_t clock) {
  Epoch e;
  e.flat = flat;
  e.clock = clock;
  return e;
}

// The maximal runs of equal histories in a per-element model.
size_t runs_of(const std::vector<ElementHistory>& model) {
  size_t runs = 1;
  for (size_t i = 1; i < model.size(); ++i) runs += !same_history(model[i - 1], model[i]);
  return runs;
}

const SourceLoc kWriteA{"a.kd", 3, 5, 0, 1};
const SourceLoc kReadB{"a.kd", 7, 9, 2, 3};

}  // namespace

TEST_SUITE("runtime") {

TEST_CASE("written bits: ranges across word boundaries against a per-element model") {
  for (size_t size : {1u, 63u, 64u, 65u, 200u, 1000u}) {
    ElementBits bits;
    bits.allocate(size);
    std::vector<bool> model(size, false);
    Lcg rng{size};
    for (int step = 0; step < 400; ++step) {
      size_t a = rng.below(size), b = rng.below(size + 1);
      if (a > b) std::swap(a, b);
      bool value = rng.below(3) != 0;
      if (value) {
        bits.set(a, b);
      } else {
        bits.clear(a, b);
      }
      for (size_t i = a; i < b; ++i) model[i] = value;
      size_t c = rng.below(size), d = rng.below(size + 1);
      if (c > d) std::swap(c, d);
      bool all = true;
      for (size_t i = c; i < d; ++i) all = all && model[i];
      CHECK(bits.all_set(c, d) == all);
    }
    size_t count = 0;
    for (size_t i = 0; i < size; ++i) {
      CHECK(bits.test(i) == model[i]);
      count += model[i];
    }
    CHECK(bits.count() == count);
    CHECK(bits.all() == (count == size));
    bits.set(0, size);
    CHECK(bits.all());
    bits.clear_all();
    CHECK(bits.count() == 0);
  }
}

TEST_CASE("history runs: updates and visits agree with a per-element model, neighbours merged") {
  const size_t size = 300;
  HistoryRuns runs;
  runs.allocate(size);
  std::vector<ElementHistory> model(size);
  Lcg rng{7};
  for (uint32_t step = 1; step <= 500; ++step) {
    size_t a = rng.below(size), b = rng.below(size + 1);
    if (a > b) std::swap(a, b);
    // Few distinct epochs, so that neighbours often become equal again.
    Epoch e = epoch_of(static_cast<int64_t>(rng.below(3)), static_cast<uint32_t>(rng.below(2)));
    bool read = rng.below(2) != 0;
    auto apply = [&](ElementHistory& h) {
      if (read) {
        h.reads.push_back(e);
      } else {
        h.write = e;
        h.reads.clear();
      }
    };
    runs.update(a, b, apply);
    for (size_t i = a; i < b; ++i) apply(model[i]);
    for (size_t i = 0; i < size; i += 7) {
      size_t visited = 0;
      runs.visit(i, i + 1, [&](const ElementHistory& h) {
        ++visited;
        CHECK(same_history(h, model[i]));
      });
      CHECK(visited == 1);
    }
    REQUIRE(runs.runs() == runs_of(model));
  }
}

TEST_CASE("race check by runs: the first conflicting element in row-major order names its writer") {
  RefShadow y;
  y.init("y", {4, 8}, false, true);
  ProgramClock a, b;
  a.init(0, 0, 1);
  b.init(0, 1, 1);
  // Program 0 writes rows 1..2, columns 2..5.
  check_access(y, Box{2, {1, 2}, {2, 4}}, Access::Write, a, &kWriteA);
  CHECK(y.histories().runs() == 5);  // untouched, row 1's box, between, row 2's box, the rest
  // Program 1 reads columns 6..7 of every row: disjoint, no race.
  check_access(y, Box{2, {0, 6}, {4, 2}}, Access::Read, b, &kReadB);
  // Reading column 5 of row 2 meets program 0's write.
  try {
    check_access(y, Box{2, {2, 5}, {1, 3}}, Access::Read, b, &kReadB);
    FAIL("no race reported");
  } catch (const RunFailure& f) {
    CHECK(f.error.code == Code::Race);
    CHECK(f.error.loc.line == 7);
    CHECK(f.error.message == "read of `y` elements written by another program; programs of a grid may run in any order");
    REQUIRE(f.error.notes.size() == 1);
    CHECK(f.error.notes[0].second.line == 3);
  }
}

TEST_CASE("a ref written whole by one program is one run and fully written") {
  RefShadow y;
  y.init("y", {64, 1024}, true, true);
  ProgramClock a;
  a.init(0, 0, 1);
  for (int64_t row = 0; row < 64; row += 16) check_access(y, Box{2, {row, 0}, {16, 1024}}, Access::Write, a, &kWriteA);
  CHECK(y.histories().runs() == 1);
  CHECK(y.fully_written());
}

}  // TEST_SUITE
