// Issue 12, security: nothing a file name controls may become code. Every
// string kdt writes into emitted code (the input path in the header
// comment, #line directives, run-time locations) is escaped for the place
// it lands, and a depfile Make would misread is refused.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "doctest/doctest.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace {

const char* kKernel = "kernel k(y: out f32[4] @global) grid(1) { y[...] = f32(iota(i32[4], 0)); }\n";

// A file name that, pasted raw into a `//` comment, ends it and runs a
// command when the kernel starts (the `#define` swallows the rest of the
// line); with \r, a quote and a trailing backslash (a line splice) for the
// string literals and comments. No `/`: it is one file name.
std::string hostile_name(const std::string& marker) {
  return "k\n#include <cstdlib>\nstatic int kd_pwn = std::system(\"touch " + marker +
         "\");\n#define KD_REST \r\"q\" \\.kd\\";
}

// Runs `kdt ARGS` with `dir` as the working directory.
kdt::test::RunResult run_in(const fs::path& dir, const std::string& args) {
  fs::path before = fs::current_path();
  fs::current_path(dir);
  kdt::test::RunResult r = kdt::test::run_kdt(args);
  fs::current_path(before);
  return r;
}

}  // namespace

TEST_SUITE("robustness") {
  TEST_CASE("a hostile input file name is escaped in emitted C++: it compiles and runs no injected code") {
    kdt::test::TempDir tmp;
    const std::string marker = "kdt-pwned-" + std::to_string(::getpid());
    const std::string name = hostile_name(marker);
    kdt::test::write_text(tmp.file(name), kKernel);
    const std::string quoted = kdt::test::shell_quote(tmp.file(name));

    kdt::test::RunResult cpp = kdt::test::run_kdt("--emit=cpp --harness -o " + tmp.file("k.cpp") + " " + quoted);
    REQUIRE(cpp.status == 0);
    std::string text = kdt::test::read_text(tmp.file("k.cpp"));
    // The header comment stays one line; no line of the file starts with the injected code.
    CHECK(text.find("\nstatic int kd_pwn") == std::string::npos);
    CHECK(text.find("\n#include <cstdlib>\nstatic") == std::string::npos);
    CHECK(text.find("\\x0a#include <cstdlib>\\x0astatic int kd_pwn") != std::string::npos);
    // #line and the run-time locations carry the name as an escaped literal.
    CHECK(text.find("\\012#include <cstdlib>\\012static int kd_pwn") != std::string::npos);
    CHECK(std::system(("c++ -std=c++17 -fsyntax-only " + tmp.file("k.cpp")).c_str()) == 0);

    // kdt run compiles and runs it: exit 0, and the injected command never ran.
    kdt::test::RunResult run = run_in(tmp.path, "run " + quoted + " --random-all --output-dir " + tmp.file("out"));
    CAPTURE(run.err);
    CHECK(run.status == 0);
    CHECK(fs::exists(tmp.file("out/y.npy")));
    CHECK_FALSE(fs::exists(tmp.path / marker));
  }

  TEST_CASE("a hostile input file name is escaped in emitted CUDA") {
    std::string nvcc = kdt::test::nvcc_or_skip();
    kdt::test::TempDir tmp;
    const std::string name = hostile_name("kdt-pwned");
    kdt::test::write_text(tmp.file(name), kKernel);
    kdt::test::RunResult cu =
        kdt::test::run_kdt("--emit=cuda -o " + tmp.file("k.cu") + " " + kdt::test::shell_quote(tmp.file(name)));
    REQUIRE(cu.status == 0);
    std::string text = kdt::test::read_text(tmp.file("k.cu"));
    CHECK(text.find("\nstatic int kd_pwn") == std::string::npos);
    if (nvcc.empty()) return;
    CHECK(std::system((nvcc + " -std=c++17 -arch=sm_90 -c -o " + tmp.file("k.o") + " " + tmp.file("k.cu")).c_str()) == 0);
  }

  TEST_CASE("--arch takes only a compute capability: it lands in emitted code") {
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("k.kd"), kKernel);
    for (std::string bad : {"sm_9", "sm_90\n#error", "sm_90;x", "sm_90ab", "sm_", "sm_1234"}) {
      CAPTURE(bad);
      kdt::test::RunResult r =
          kdt::test::run_kdt("--emit=cuda --arch=" + kdt::test::shell_quote(bad) + " " + tmp.file("k.kd") + " -o " + tmp.file("k.cu"));
      CHECK(r.status == 2);
      CHECK(r.err.find("for --arch") != std::string::npos);
      CHECK_FALSE(fs::exists(tmp.file("k.cu")));
    }
    for (std::string good : {"sm_80", "sm_90a", "sm_100f", "sm_120"}) {
      CAPTURE(good);
      CHECK(kdt::test::run_kdt("--emit=cuda --arch=" + good + " " + tmp.file("k.kd") + " -o /dev/null").status == 0);
    }
  }

  TEST_CASE("-MD refuses a path no Make rule can name, before writing anything") {
    kdt::test::TempDir tmp;
    // KD strings allow \n and \t: an include named like this once added a
    // recipe that make ran.
    const std::string inc = "inc\n\ttouch pwned\n.kd";
    kdt::test::write_text(tmp.file(inc), "const W = 4;\n");
    kdt::test::write_text(tmp.file("main.kd"), "include \"inc\\n\\ttouch pwned\\n.kd\";\n"
                                               "kernel k(y: out f32[W] @global) grid(1) { y[...] = f32(iota(i32[W], 0)); }\n");
    kdt::test::RunResult r = kdt::test::run_kdt("--emit=cpp -o " + tmp.file("k.cpp") + " -MD -MF " + tmp.file("k.d") +
                                                " " + tmp.file("main.kd"));
    CHECK(r.status == 2);
    CHECK(r.err.find("-MD: the path") != std::string::npos);
    CHECK(r.err.find("inc\\n\\ttouch pwned\\n.kd") != std::string::npos);
    CHECK_FALSE(fs::exists(tmp.file("k.cpp")));
    CHECK_FALSE(fs::exists(tmp.file("k.d")));
    // The same program without -MD is fine.
    CHECK(kdt::test::run_kdt("--emit=cpp -o " + tmp.file("k.cpp") + " " + tmp.file("main.kd")).status == 0);
    // A -MT target with a newline is refused too.
    kdt::test::RunResult t = kdt::test::run_kdt("--emit=check -MD -MF " + tmp.file("t.d") + " -MT " + kdt::test::shell_quote("a\nb") + " " +
                                                tmp.file("main.kd"));
    CHECK(t.status == 2);
    CHECK_FALSE(fs::exists(tmp.file("t.d")));
  }
}
