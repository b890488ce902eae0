// The run-time checks of the interpretation path against the rules of spec
// sections 1 and 7 (issue 12, items 1-5 and 9): DMA writes and reads take
// part in the cross-program race check, reads are recorded as well as
// writes, a DMA may not overlap itself, read-modify-writes read, and a
// DMA no program retires is a leak when the launch ends. Every kernel runs
// in every program order and DMA mode: a check must not depend on which
// order was simulated. Correct kernels that order their accesses through
// semaphores must pass in all of them.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "test_support.h"

namespace {

struct Case {
  const char* name;
  const char* source;
  const char* code;               // "" when the kernel is correct
  std::set<int> lines;            // where the diagnostic may point, by order
  std::vector<const char*> words;  // in the message, whichever order was simulated
};

const Case kCases[] = {
    {"plain DMAs of two programs into the same @global elements (item 1)",
     R"(kernel k(x: in f32[2, 8] @global, y: out f32[8] @global) grid(2) {
    sem s: dma;
    dma_start(x[program_id(0), :], y, s);
    dma_wait(s, y);
})",
     "race", {3}, {"this DMA writes `y` elements written by another program's DMA", "any order"}},

    {"a store against another program's DMA into the same elements (item 1)",
     R"(kernel k(x: in f32[8] @global, y: out f32[8] @global) grid(2) {
    sem s: dma;
    if (program_id(0) == 0) {
        y[...] = x * 2.0;
    } else {
        dma_start(x, y, s);
        dma_wait(s, y);
    }
})",
     "race", {4, 6}, {"`y` elements written by another program"}},

    {"a store against another program's add=true DMA (item 1)",
     R"(kernel k(x: in f32[8] @global, y: inout f32[8] @global) grid(2) {
    sem s: dma;
    if (program_id(0) == 0) {
        y[...] = x;
    } else {
        dma_start(x, y, s, add=true);
        dma_wait(s, y);
    }
})",
     "race", {4, 6}, {"`y` elements"}},

    {"a store against another program's DMA source (item 1)",
     R"(kernel k(y: inout f32[8] @global) grid(2) {
    scratch t: f32[8] @shared;
    sem s: dma;
    if (program_id(0) == 0) {
        dma_start(y, t, s);
        dma_wait(s, t);
    } else {
        y[...] = zeros(f32[8]);
    }
})",
     "race", {5, 8}, {"`y` elements"}},

    {"a load of elements another program's DMA wrote (item 1)",
     R"(kernel k(x: in f32[8] @global, y: inout f32[8] @global, z: out f32[2, 8] @global) grid(2) {
    sem s: dma;
    if (program_id(0) == 0) {
        dma_start(x, y, s);
        dma_wait(s, y);
    }
    z[program_id(0), :] = y[...];
})",
     "race", {4, 7}, {"`y` elements"}},

    {"write after read between programs, in every order (item 2)",
     R"(kernel k(y: inout f32[8] @global, z: out f32[8] @global) grid(2) {
    if (program_id(0) == 0) {
        z[...] = y[...];
    } else {
        y[...] = zeros(f32[8]);
    }
})",
     "race", {3, 5}, {"`y` elements", "by another program"}},

    {"a local DMA whose source and destination overlap (item 3)",
     R"(kernel k(x: in f32[96] @global, y: out f32[96] @global) grid(1) {
    scratch r: f32[96] @shared;
    sem s: dma;
    sem t: dma;
    r[...] = x[...];
    dma_start(r[0:64], r[32:96], s);
    dma_wait(s, r[0:64]);
    dma_start(r, y, t);
    dma_wait(t, y);
})",
     "race", {6}, {"this DMA's source and destination overlap in `r`"}},

    {"`+=` on an out ref never written (item 4)",
     R"(kernel k(y: out f32[4] @global) grid(1) {
    y[...] += 1.0;
})",
     "uninitialized-read", {2}, {"update of `y` elements never written"}},

    {"an add=true DMA into scratch never written (item 4)",
     R"(kernel k(x: in f32[4] @global, y: out f32[4] @global) grid(1) {
    scratch t: f32[4] @shared;
    sem s: dma;
    dma_start(x, t, s, add=true);
    dma_wait(s, t);
    y[...] = t[...];
})",
     "uninitialized-read", {4}, {"this DMA accumulates into `t` elements never written"}},

    {"a remote DMA that the receiver, already finished, never retires (item 5)",
     R"(kernel k(x: in f32[4] @global, y: out f32[4] @global) grid(1) devices(2) {
    sem go: regular;
    sem sent: dma;
    sem recv: dma;
    y[...] = x[...];
    if (device_id() == 1) {
        sem_signal(go, 1, device=0);
    } else {
        sem_wait(go);
        dma_start(x, y, recv, src_sem=sent, device=1);
        dma_wait(sent, x);
    }
})",
     "semaphore-leak", {10}, {"the launch ends (device 1, program 0) with it in flight on `recv`"}},

    {"a remote DMA into elements the receiver reads, unordered",
     R"(kernel k(x: in f32[4] @global, y: inout f32[4] @global, z: out f32[4] @global) grid(1) devices(2) {
    sem sent: dma;
    sem recv: dma;
    sem done: regular;
    if (device_id() == 0) {
        dma_start(x, y, recv, src_sem=sent, device=1);
        dma_wait(sent, x);
        sem_wait(done);
    } else {
        z[...] = y[...];
        dma_wait(recv, y);
        sem_signal(done, 1, device=0);
    }
})",
     "race", {6, 10}, {"`y` elements"}},

    {"the same exchange ordered through a semaphore is correct",
     R"(kernel k(x: in f32[4] @global, y: inout f32[4] @global, z: out f32[4] @global) grid(1) devices(2) {
    sem sent: dma;
    sem recv: dma;
    sem read_done: regular;
    sem done: regular;
    if (device_id() == 0) {
        sem_wait(read_done);
        dma_start(x, y, recv, src_sem=sent, device=1);
        dma_wait(sent, x);
        sem_wait(done);
    } else {
        z[...] = y[...];
        sem_signal(read_done, 1, device=0);
        dma_wait(recv, y);
        z[...] = z + y;
        sem_signal(done, 1, device=0);
    }
})",
     "", {}, {}},

    {"semaphore names in deadlock messages are the KD names (item 9)",
     R"(kernel k(y: out f32[4] @global) grid(1) {
    sem s: regular;
    sem_wait(s);
    y[...] = zeros(f32[4]);
})",
     "deadlock", {3}, {"sem_wait on `s` (value 0, needs 1)"}},
};

}  // namespace

TEST_SUITE("races") {
  TEST_CASE("run-time checks hold in every program order and DMA mode") {
    for (const Case& c : kCases) {
      CAPTURE(c.name);
      kdt::test::TempDir tmp;
      kdt::test::write_text(tmp.file("k.kd"), c.source);
      for (const char* order : {"forward", "reverse", "shuffle"}) {
        for (const char* mode : {"eager", "on_wait"}) {
          CAPTURE(order);
          CAPTURE(mode);
          kdt::test::RunResult r = kdt::test::run_kdt(
              std::string("run --no-static-dma-checks --random-all --diagnostics-format=json --program-order=") + order +
              " --dma-mode=" + mode +
              " --output-dir " + tmp.file("out") + " " + tmp.file("k.kd"));
          CAPTURE(r.err);
          nlohmann::json diags = nlohmann::json::parse(r.err, nullptr, false);
          REQUIRE(diags.is_array());
          if (!*c.code) {
            CHECK(r.status == 0);
            CHECK(diags.empty());
            continue;
          }
          CHECK(r.status == 1);
          REQUIRE(diags.size() == 1);
          const nlohmann::json& d = diags[0];
          CHECK(d["code"] == c.code);
          int line = d["locations"][0]["caret"]["line"];
          CHECK(c.lines.count(line) == 1);
          std::string message = d["message"];
          for (const char* w : c.words) CHECK_MESSAGE(message.find(w) != std::string::npos, message);
        }
      }
    }
  }
}
