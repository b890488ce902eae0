// --dma-order (spec section 16, "Completion orders"): which in-flight DMA a
// dma_wait retires. KD guarantees fifo only among one program's DMAs on a
// semaphore, and a TPU none, so a kernel that reads a destination before
// every DMA outstanding with it on its semaphore is waited must be caught
// under lifo and, for some seed, under shuffle; its fixed version passes in
// every order and DMA mode, with the data checked against x.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kdt/runtime/kdt_npy.h"
#include "test_support.h"

namespace {

using kdt::test::RunResult;

// Two DMAs of 32 bytes on `s`, into `a` and `b`; one wait, then a read of `a`.
// Under fifo the wait retires the DMA into `a`; under lifo the one into `b`.
const char* const kOneWait = R"(kernel k(x: in f32[2, 8] @global, y: out f32[2, 8] @global) grid(1) {
    scratch a: f32[8] @shared;
    scratch b: f32[8] @shared;
    sem s: dma;
    dma_start(x[0], a, s);
    dma_start(x[1], b, s);
    dma_wait(s, a);
    y[0] = a;
    dma_wait(s, b);
    y[1] = b;
}
)";

// The fix: both DMAs waited before either destination is read.
const char* const kBothWaited = R"(kernel k(x: in f32[2, 8] @global, y: out f32[2, 8] @global) grid(1) {
    scratch a: f32[8] @shared;
    scratch b: f32[8] @shared;
    sem s: dma;
    dma_start(x[0], a, s);
    dma_start(x[1], b, s);
    dma_wait(s, a);
    dma_wait(s, b);
    y[0] = a;
    y[1] = b;
}
)";

// A 32-byte DMA, then a 16-byte one, waited newest first: fifo retires the
// 32-byte DMA at the 16-byte wait (line 7); lifo and shuffle take the DMA
// with the wait's byte count.
const char* const kNewestFirst = R"(kernel k(x: in f32[12] @global, y: out f32[12] @global) grid(1) {
    scratch a: f32[8] @shared;
    scratch b: f32[4] @shared;
    sem s: dma;
    dma_start(x[ds(0, 8)], a, s);
    dma_start(x[ds(8, 4)], b, s);
    dma_wait(s, b);
    dma_wait(s, a);
    y[ds(0, 8)] = a;
    y[ds(8, 4)] = b;
}
)";

// Two 32-byte DMAs and a 16-byte wait (line 8): no order finds a DMA to retire.
const char* const kNoneMatches = R"(kernel k(x: in f32[16] @global, y: out f32[4] @global) grid(1) {
    scratch a: f32[8] @shared;
    scratch c: f32[8] @shared;
    scratch b: f32[4] @shared;
    sem s: dma;
    dma_start(x[ds(0, 8)], a, s);
    dma_start(x[ds(8, 8)], c, s);
    dma_wait(s, b);
    y[...] = b;
}
)";

const char* const kModes[] = {"eager", "on_wait"};

std::vector<float> iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = 1.5f + static_cast<float>(i);
  return v;
}

void write_f32(const std::string& path, const std::vector<uint64_t>& shape, const std::vector<float>& v) {
  std::string error;
  REQUIRE(kdt_rt::npy_write(path, "<f4", shape, v.data(), v.size() * sizeof(float), error));
}

std::vector<float> read_f32(const std::string& path) {
  kdt_rt::NpyArray a;
  std::string error;
  if (!kdt_rt::npy_read(path, a, error) || a.descr != "<f4") return {};
  std::vector<float> v(a.data.size() / 4);
  std::memcpy(v.data(), a.data.data(), a.data.size());
  return v;
}

struct Kernel {
  kdt::test::TempDir tmp;
  explicit Kernel(const char* source, const std::vector<uint64_t>& x_shape, size_t x_count) {
    kdt::test::write_text(tmp.file("k.kd"), source);
    write_f32(tmp.file("x.npy"), x_shape, iota(x_count));
  }
  // `kdt run` with these flags; the diagnostics as JSON in `diags`.
  RunResult run(const std::string& flags, nlohmann::json& diags) {
    std::filesystem::remove_all(tmp.file("out"));
    // The run-time checks under test: the static ones (section 18) would
    // refuse the fifo-only kernels before they run.
    RunResult r = kdt::test::run_kdt("run --no-static-dma-checks --cxxflags=-O0 --diagnostics-format=json --input x=" +
                                     tmp.file("x.npy") +
                                     " --output-dir " + tmp.file("out") + " " + flags + " " + tmp.file("k.kd"));
    diags = nlohmann::json::parse(r.err, nullptr, false);
    return r;
  }
  std::vector<float> y() { return read_f32(tmp.file("out/y.npy")); }
};

int line_of(const nlohmann::json& d) { return d["locations"][0]["caret"]["line"]; }

// Whether the diagnostic's notes point at `line` (the DMA a message names).
bool note_at(const nlohmann::json& d, int line) {
  for (const nlohmann::json& c : d["children"]) {
    if (c.contains("locations") && !c["locations"].empty() && c["locations"][0]["caret"]["line"] == line) return true;
  }
  return false;
}

}  // namespace

TEST_SUITE("races") {
  TEST_CASE("--dma-order: a read of a destination after one of two waits is caught under lifo and shuffle") {
    Kernel k(kOneWait, {2, 8}, 16);
    const std::vector<float> expected = iota(16);
    for (const char* mode : kModes) {
      CAPTURE(mode);
      nlohmann::json diags;
      // fifo (the default, and spelled out): the wait retires the DMA into `a`.
      for (const char* order : {"", "--dma-order=fifo"}) {
        CAPTURE(order);
        RunResult r = k.run(std::string("--dma-mode=") + mode + " " + order, diags);
        CAPTURE(r.err);
        CHECK(r.status == 0);
        CHECK(k.y() == expected);
      }
      // lifo: the wait retires the DMA into `b`, and `a` is read while its DMA is in flight.
      RunResult r = k.run(std::string("--dma-mode=") + mode + " --dma-order=lifo", diags);
      CAPTURE(r.err);
      CHECK(r.status == 1);
      REQUIRE(diags.is_array());
      REQUIRE(diags.size() == 1);
      CHECK(diags[0]["code"] == "race");
      CHECK(line_of(diags[0]) == 8);
      CHECK(std::string(diags[0]["message"]).find("read of `a` elements that an in-flight DMA is writing") !=
            std::string::npos);
      CHECK(note_at(diags[0], 5));
      // shuffle: each seed retires one of the two, reproducibly; some seed catches it.
      int caught = 0, passed = 0;
      for (int seed = 0; seed < 6; ++seed) {
        CAPTURE(seed);
        std::string flags = std::string("--dma-mode=") + mode + " --dma-order=shuffle --seed " + std::to_string(seed);
        RunResult s = k.run(flags, diags);
        CAPTURE(s.err);
        REQUIRE(diags.is_array());
        if (s.status == 0) {
          ++passed;
          CHECK(diags.empty());
          CHECK(k.y() == expected);
          continue;
        }
        ++caught;
        CHECK(s.status == 1);
        REQUIRE(diags.size() == 1);
        CHECK(diags[0]["code"] == "race");
        CHECK(line_of(diags[0]) == 8);
        // The same seed makes the same choice.
        nlohmann::json again;
        CHECK(k.run(flags, again).status == 1);
        CHECK(again == diags);
      }
      CHECK(caught >= 1);
      CHECK(passed >= 1);
    }
  }

  TEST_CASE("--dma-order: waiting every DMA before reading passes in every order and DMA mode") {
    Kernel k(kBothWaited, {2, 8}, 16);
    const std::vector<float> expected = iota(16);
    for (const char* mode : kModes) {
      for (const char* order : {"fifo", "lifo", "shuffle --seed 0", "shuffle --seed 1", "shuffle --seed 2"}) {
        CAPTURE(mode);
        CAPTURE(order);
        nlohmann::json diags;
        RunResult r = k.run(std::string("--dma-mode=") + mode + " --dma-order=" + order, diags);
        CAPTURE(r.err);
        CHECK(r.status == 0);
        CHECK(diags == nlohmann::json::array());
        CHECK(k.y() == expected);
      }
    }
  }

  TEST_CASE("--dma-order: lifo and shuffle retire a DMA of the wait's byte count; fifo the oldest") {
    Kernel k(kNewestFirst, {12}, 12);
    for (const char* mode : kModes) {
      CAPTURE(mode);
      nlohmann::json diags;
      RunResult r = k.run(std::string("--dma-mode=") + mode + " --dma-order=fifo", diags);
      CAPTURE(r.err);
      CHECK(r.status == 1);
      REQUIRE(diags.is_array());
      REQUIRE(diags.size() == 1);
      CHECK(diags[0]["code"] == "dma-wait-mismatch");
      CHECK(line_of(diags[0]) == 7);
      CHECK(diags[0]["message"] == "this wait is for 16 bytes, but the DMA it retires moves 32 bytes");
      CHECK(note_at(diags[0], 5));
      for (const char* order : {"lifo", "shuffle --seed 0", "shuffle --seed 1", "shuffle --seed 2"}) {
        CAPTURE(order);
        RunResult s = k.run(std::string("--dma-mode=") + mode + " --dma-order=" + order, diags);
        CAPTURE(s.err);
        CHECK(s.status == 0);
        CHECK(k.y() == iota(12));
      }
    }
  }

  TEST_CASE("--dma-order: a wait whose byte count no DMA in flight has is dma-wait-mismatch in every order") {
    Kernel k(kNoneMatches, {16}, 16);
    for (const char* mode : kModes) {
      for (const char* order : {"fifo", "lifo", "shuffle --seed 0", "shuffle --seed 3"}) {
        CAPTURE(mode);
        CAPTURE(order);
        nlohmann::json diags;
        RunResult r = k.run(std::string("--dma-mode=") + mode + " --dma-order=" + order, diags);
        CAPTURE(r.err);
        CHECK(r.status == 1);
        REQUIRE(diags.is_array());
        REQUIRE(diags.size() == 1);
        const nlohmann::json& d = diags[0];
        CHECK(d["code"] == "dma-wait-mismatch");
        CHECK(line_of(d) == 8);
        CHECK(d["locations"][0]["caret"]["column"] == 5);
        CHECK(d["message"] == "this wait is for 16 bytes, but the DMA it retires moves 32 bytes");
        // The note names a DMA that was in flight: fifo's oldest, lifo's newest.
        CHECK((note_at(d, 6) || note_at(d, 7)));
        if (std::string(order) == "fifo") CHECK(note_at(d, 6));
        if (std::string(order) == "lifo") CHECK(note_at(d, 7));
      }
    }
  }

  TEST_CASE("--dma-order takes fifo, lifo or shuffle; anything else is a command-line error") {
    Kernel k(kBothWaited, {2, 8}, 16);
    for (const char* bad : {"--dma-order=bogus", "--dma-order=FIFO", "--dma-order="}) {
      CAPTURE(bad);
      nlohmann::json diags;
      RunResult r = k.run(bad, diags);
      CHECK(r.status == 2);
      CHECK(r.err.find("dma-order") != std::string::npos);
      RunResult e = kdt::test::run_kdt(std::string("--emit=cpp --harness ") + bad + " -o " + k.tmp.file("k.cpp") + " " +
                                       k.tmp.file("k.kd"));
      CHECK(e.status == 2);
      CHECK(e.err.find("dma-order") != std::string::npos);
    }
    // With --emit=cpp --harness the order becomes the harness's default; fifo adds nothing.
    std::string cpp = k.tmp.file("k.cpp");
    for (const auto& [flag, line] : {std::pair<const char*, const char*>{"--dma-order=lifo", "args.run.dma_order = 1;  // lifo"},
                                     {"--dma-order=shuffle", "args.run.dma_order = 2;  // shuffle"},
                                     {"--dma-order=fifo", nullptr}}) {
      CAPTURE(flag);
      REQUIRE(kdt::test::run_kdt(std::string("--emit=cpp --harness ") + flag + " -o " + cpp + " " + k.tmp.file("k.kd"))
                  .status == 0);
      std::string text = kdt::test::read_text(cpp);
      if (line) CHECK(text.find(line) != std::string::npos);
      else CHECK(text.find("args.run.dma_order") == std::string::npos);
    }
  }
}
