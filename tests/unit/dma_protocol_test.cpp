// The static DMA-protocol checks (spec section 18, src/analysis): what they
// must stay silent on (every condition they cannot decide, peers, unknown
// elements, the unrolling limit), their fix-it applied, every emit refusing
// a kernel they fail, and --no-static-dma-checks. The error kinds and path
// forms, with locations and notes, are the tests/diag/fail_dma_protocol_*.kd
// files.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace {

using Codes = std::vector<std::string>;

Codes codes_of(const std::string& text) { return kdt::test::codes(*kdt::test::front_end(text)); }

const std::string kHead =
    "kernel k(x: in f32[4, 8] @global, y: out f32[4, 8] @global, n: i32) grid(4) devices(2) {\n"
    "    scratch buf: f32[8] @shared;\n"
    "    sem s: dma;\n"
    "    sem r: regular;\n"
    "    sem ss[2]: dma;\n";

Codes in_kernel(const std::string& body) { return codes_of(kHead + body + "}\n"); }

}  // namespace

TEST_SUITE("dma_protocol") {
  TEST_CASE("correct protocols check clean, also when the paths are many") {
    // Waited on the same unknown condition it was started on.
    CHECK(in_kernel("    if program_id(0) == n { dma_start(x[0], y[0], s); }\n"
                    "    if program_id(0) == n { dma_wait(s, y[0]); }\n") == Codes{});
    // A double buffer over a constant loop: slots known in every iteration.
    CHECK(in_kernel("    dma_start(x[0], buf, ss[0]);\n"
                    "    for i in 0..4 {\n"
                    "        if i + 1 < 4 { dma_start(x[i + 1], y[i + 1], ss[(i + 1) % 2]); }\n"
                    "        dma_wait(ss[i % 2], buf);\n"
                    "    }\n") == Codes{});
    // Sixteen independent unknown branches, each balanced.
    std::string many;
    for (int i = 0; i < 16; ++i) {
      many += "    if x[" + std::to_string(i % 4) + ", " + std::to_string(i % 8) +
              "] > 0.0 { sem_signal(r); sem_wait(r); } else { dma_start(x[0], y[0], s); dma_wait(s, y[0]); }\n";
    }
    CHECK(in_kernel(many) == Codes{});
  }

  TEST_CASE("what depends on run-time values or on peers is left to the run-time checks") {
    // A leak on one path only: program_id, device_id, a scalar, a load, sem_read.
    for (const char* cond : {"program_id(0) == 0", "device_id() == 1", "n > 2", "x[0, 0] > 0.0", "sem_read(r) == 0"}) {
      CAPTURE(cond);
      CHECK(in_kernel(std::string("    if ") + cond + " { dma_start(x[0], y[0], s); }\n") == Codes{});
    }
    // A dynamic trip count, a while loop, a dynamic semaphore element.
    CHECK(in_kernel("    for i in 0..n { dma_start(x[0], y[0], s); }\n") == Codes{});
    CHECK(in_kernel("    var i = 0;\n    while i < n { dma_start(x[0], y[0], s); i += 1; }\n") == Codes{});
    CHECK(in_kernel("    dma_start(x[0], y[0], ss[n % 2]);\n") == Codes{});
    // A peer may raise a semaphore that a `device=` DMA or signal names.
    CHECK(in_kernel("    dma_start(x[0], y[0], s);\n"
                    "    dma_wait(s, y[0]);\n"
                    "    dma_wait(s, y[0]);\n"
                    "    dma_start(x[1], y[1], s, src_sem=ss[0], device=1 - device_id());\n"
                    "    dma_wait(ss[0], x[1]);\n") == Codes{});
    CHECK(in_kernel("    sem_wait(r);\n    sem_signal(r, 1, device=1 - device_id());\n") == Codes{});
    // A read of an element the DMA may not write: the index is not known.
    CHECK(in_kernel("    dma_start(x[0], y[0], s);\n    let _v = y[0, n % 8];\n    dma_wait(s, y[0]);\n") ==
          Codes{});
    // The same read at a known element is certain.
    CHECK(in_kernel("    dma_start(x[0], y[0], s);\n    let _v = y[0, 3];\n    dma_wait(s, y[0]);\n") ==
          Codes{"dma-protocol"});
  }

  TEST_CASE("past the unrolling limit nothing is claimed, and checking stays fast") {
    CHECK(in_kernel("    for i in 0..1000000 { dma_start(x[0], y[0], s); dma_wait(s, y[0]); }\n"
                    "    dma_start(x[0], y[0], s);\n") == Codes{});
    // Under the limit, the same leak is found after the loop.
    CHECK(in_kernel("    for i in 0..100 { dma_start(x[0], y[0], s); dma_wait(s, y[0]); }\n"
                    "    dma_start(x[0], y[0], s);\n") == Codes{"dma-protocol"});
  }

  TEST_CASE("every emit refuses the kernel; --no-static-dma-checks leaves it to the run") {
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("k.kd"),
                          "kernel k(x: in f32[8] @global, y: out f32[8] @global) grid(1) {\n"
                          "    sem copied: dma;\n"
                          "    dma_start(x, y, copied);\n"
                          "}\n");
    for (const char* emit : {"check", "ir", "cpp", "cuda"}) {
      CAPTURE(emit);
      kdt::test::RunResult r = kdt::test::run_kdt(std::string("--emit=") + emit + " -o " + tmp.file("out") + " " +
                                                  tmp.file("k.kd"));
      CHECK(r.status == 1);
      CHECK(r.err.find("[dma-protocol]") != std::string::npos);
      CHECK(!std::filesystem::exists(tmp.file("out")));
    }
    CHECK(kdt::test::run_kdt("--no-static-dma-checks " + tmp.file("k.kd")).status == 0);
    kdt::test::RunResult run = kdt::test::run_kdt("run --no-static-dma-checks --random-all --diagnostics-format=json "
                                                  "--output-dir " + tmp.file("o") + " " + tmp.file("k.kd"));
    CHECK(run.status == 1);
    CHECK(run.err.find("\"semaphore-leak\"") != std::string::npos);
  }

  TEST_CASE("the fix-it of a leaked DMA makes the kernel check clean and run") {
    const std::string kd =
        "kernel k(x: in f32[8] @global, y: out f32[8] @global) grid(1) {\n"
        "    scratch buf: f32[8] @shared;\n"
        "    sem copied: dma;\n"
        "    dma_start(x, buf, copied);\n"
        "    let _c = dma_start(x, y, copied);\n"
        "}\n";
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("k.kd"), kd);
    kdt::test::RunResult r = kdt::test::run_kdt("--diagnostics-format=json " + tmp.file("k.kd"));
    REQUIRE(r.status == 1);
    nlohmann::json diags;
    for (const nlohmann::json& d : nlohmann::json::parse(r.err)) {
      diags.push_back(d);
    }
    REQUIRE(diags.size() == 2);
    // Both insertions go before the closing brace; apply the later one first.
    std::string fixed = kd;
    std::vector<std::string> inserts;
    for (int i = 1; i >= 0; --i) {
      REQUIRE(diags[i]["fixits"].size() == 1);
      const nlohmann::json& fix = diags[i]["fixits"][0];
      CHECK(fix["start"] == fix["next"]);
      size_t at = 0;
      for (int line = 1; line < fix["start"]["line"].get<int>(); ++line) at = fixed.find('\n', at) + 1;
      at += fix["start"]["byte-column"].get<size_t>() - 1;
      inserts.push_back(fix["string"]);
      fixed.insert(at, fix["string"].get<std::string>());
    }
    CHECK(inserts[0] == "    dma_wait(copied, y);\n");
    CHECK(inserts[1] == "    dma_wait(copied, buf);\n");
    kdt::test::write_text(tmp.file("fixed.kd"), fixed);
    kdt::test::RunResult check = kdt::test::run_kdt(tmp.file("fixed.kd"));
    CHECK_MESSAGE(check.status == 0, fixed << check.err);
    kdt::test::RunResult run =
        kdt::test::run_kdt("run --random-all --output-dir " + tmp.file("out") + " " + tmp.file("fixed.kd"));
    CHECK_MESSAGE(run.status == 0, fixed << run.err);
  }
}
