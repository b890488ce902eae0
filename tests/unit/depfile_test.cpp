// Depfiles and outputs as build systems use them (issue 7), beyond
// cli_test.cpp: every --emit kind writes a complete depfile, and a pipe
// given to -o is written in place, never replaced.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>

#include "doctest/doctest.h"
#include "test_support.h"

namespace fs = std::filesystem;

TEST_SUITE("cli") {
  TEST_CASE("-MD -MF: a complete, non-empty depfile for every --emit kind") {
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("inc.kd"), "const W = 8;\n");
    kdt::test::write_text(tmp.file("main.kd"),
                          "include \"inc.kd\";\nkernel k(x: inout f32[W] @global) grid(1) { x[...] = x * 2.0; }\n");
    for (std::string kind : {"check", "ast", "ir", "discharged-ir", "cpp"}) {
      CAPTURE(kind);
      std::string out = tmp.file("out." + kind);
      std::string dep = tmp.file(kind + ".d");
      std::string args = "--emit=" + kind + (kind == "check" ? std::string() : " -o " + out) + " -MD -MF " + dep +
                         " -MT target." + kind + " " + tmp.file("main.kd");
      kdt::test::RunResult r = kdt::test::run_kdt(args);
      REQUIRE(r.status == 0);
      std::string text = kdt::test::read_text(dep);
      CHECK(text.rfind("target." + kind + ":", 0) == 0);
      CHECK(text.find(tmp.file("main.kd")) != std::string::npos);
      CHECK(text.find(tmp.file("inc.kd")) != std::string::npos);
    }
    // Without -o and -MT the depfile still names a target and every file.
    kdt::test::RunResult r = kdt::test::run_kdt("-MD -MF " + tmp.file("plain.d") + " " + tmp.file("main.kd"));
    REQUIRE(r.status == 0);
    std::string plain = kdt::test::read_text(tmp.file("plain.d"));
    CHECK(plain.find(':') != std::string::npos);
    CHECK(plain.find(tmp.file("inc.kd")) != std::string::npos);
  }

  TEST_CASE("-o to a pipe writes into it and leaves it a pipe") {
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("k.kd"), "kernel k(x: inout f32[4] @global) grid(1) { x[...] = x * 2.0; }\n");
    std::string fifo = tmp.file("fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::string received;
    std::thread reader([&] { received = kdt::test::read_text(fifo); });
    kdt::test::RunResult r = kdt::test::run_kdt("--emit=ast -o " + fifo + " " + tmp.file("k.kd"));
    // Should kdt have exited without opening the pipe, the reader would wait
    // for a writer forever: be that writer (it then reads nothing and the
    // test fails instead of hanging). Refused when no reader waits any more.
    int release = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (release >= 0) ::close(release);
    reader.join();
    CHECK(r.status == 0);
    CHECK(received.find("\"kind\"") != std::string::npos);
    CHECK(fs::is_fifo(fifo));
    // Nothing else was created next to it (no temporary file, no rename).
    int entries = 0;
    for (const auto& e : fs::directory_iterator(tmp.path)) entries += e.path().empty() ? 0 : 1;
    CHECK(entries == 2);
  }
}
