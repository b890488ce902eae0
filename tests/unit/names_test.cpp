// KD names that are C++ keywords, CUDA built-ins, or spellings the emitters
// use for themselves still give C++ (and CUDA) that compiles, and `kdt run`
// keeps the KD spelling for .npy files and --input (ir.h: name / kd_name).
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "test_support.h"

namespace {

using kdt::test::read_text;
using kdt::test::run_kdt;
using kdt::test::shell_quote;
using kdt::test::TempDir;

// Colliding spellings, each used as a kernel name, a ref parameter, a
// scalar parameter and a local.
const std::vector<std::string> kNames = {
    "class", "int",   "new",    "template", "this",     "p",      "s",        "L",       "d",        "e",
    "error", "args",  "argc",   "start",    "ms",       "main",   "stream",   "sync",    "device",   "peers",
    "group", "std",   "int32_t", "threadIdx", "blockIdx", "kdt_tid", "kdt_smem", "kdt_rt", "x_shadow_", "i0_",
    "e0_",   "t_it",  "k_",     "t0",       "f1",       "i2",     "start3",   "dma4",    "asm5_x",   "_Foo",
    "a__b"};

std::string program() {
  std::string kd;
  int n = 0;
  for (const std::string& name : kNames) {
    std::string id = std::to_string(n++);
    kd += "kernel " + name + "(" + name + ": in f32[8] @global, o: out f32[8] @global, " + name + "_in: inout f32[8] @global) grid(2) {\n"
          "    let v = " + name + "[...];\n"
          "    o[...] = v + " + name + "_in[...];\n"
          "}\n"
          "kernel scalar" + id + "(x: in f32[8] @global, o: out f32[8] @global, " + name + ": i32) grid(2) {\n"
          "    scratch sc: f32[8] @shared;\n"
          "    sem sm: dma;\n"
          "    dma_start(x, sc, sm);\n"
          "    dma_wait(sm, sc);\n"
          "    for it in 0..2 { o[...] = sc[...] * f32(" + name + "); }\n"
          "}\n"
          "kernel local" + id + "(x: in f32[8] @global, o: out f32[8] @global) grid(2) {\n"
          "    let " + name + " = x[...] * 2.0;\n"
          "    o[...] = " + name + ";\n"
          "}\n";
  }
  return kd;
}

int sh(const std::string& cmd) {
  int raw = std::system(cmd.c_str());
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128;
}

// The int32 payload of a little-endian .npy file.
std::vector<int32_t> npy_i32(const std::string& path) {
  std::string bytes = read_text(path);
  size_t data = bytes.find('\n') + 1;
  std::vector<int32_t> v((bytes.size() - data) / 4);
  std::memcpy(v.data(), bytes.data() + data, v.size() * 4);
  return v;
}

}  // namespace

TEST_SUITE("robustness") {
  TEST_CASE("KD names that are C++ keywords or emitter names give C++ that compiles") {
    TempDir tmp;
    kdt::test::write_text(tmp.file("names.kd"), program());
    REQUIRE(run_kdt(shell_quote(tmp.file("names.kd"))).status == 0);
    for (const char* flags : {"", " --no-checks"}) {
      INFO("flags:" << flags);
      REQUIRE(run_kdt("--emit=cpp" + std::string(flags) + " " + shell_quote(tmp.file("names.kd")) + " -o " +
                      shell_quote(tmp.file("names.cpp"))).status == 0);
      CHECK_MESSAGE(sh("c++ -std=c++17 -fsyntax-only " + shell_quote(tmp.file("names.cpp")) + " 2>" +
                       shell_quote(tmp.file("log"))) == 0,
                    read_text(tmp.file("log")).substr(0, 2000));
    }
  }

  TEST_CASE("kdt run keeps the KD spelling of parameters for --input and .npy files") {
    TempDir tmp;
    kdt::test::write_text(tmp.file("k.kd"),
                          "kernel new(class: i32, int: out i32[4] @global, args: out i32[4] @global) grid(1) {\n"
                          "    int[...] = iota(i32[4], 0) * class;\n"
                          "    args[...] = iota(i32[4], 0) + class;\n"
                          "}\n");
    kdt::test::RunResult r = run_kdt("run " + shell_quote(tmp.file("k.kd")) + " --input class=3 --output-dir " +
                                     shell_quote(tmp.file("out")));
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK((r.out + r.err).find("kernel new:") != std::string::npos);
    CHECK(npy_i32(tmp.file("out/int.npy")) == std::vector<int32_t>{0, 3, 6, 9});
    CHECK(npy_i32(tmp.file("out/args.npy")) == std::vector<int32_t>{3, 4, 5, 6});
  }
}

TEST_SUITE("cuda_nvcc_sm90") {
  TEST_CASE("KD names that are C++ keywords, CUDA built-ins or emitter names give CUDA that compiles") {
    std::string nvcc = kdt::test::nvcc_or_skip();
    if (nvcc.empty()) return;
    TempDir tmp;
    kdt::test::write_text(tmp.file("names.kd"), program());
    REQUIRE(run_kdt("--emit=cuda " + shell_quote(tmp.file("names.kd")) + " -o " + shell_quote(tmp.file("names.cu"))).status == 0);
    CHECK_MESSAGE(sh(nvcc + " -std=c++17 -arch=sm_90 -Werror all-warnings -c " + shell_quote(tmp.file("names.cu")) + " -o " +
                     shell_quote(tmp.file("names.o")) + " >" + shell_quote(tmp.file("log")) + " 2>&1") == 0,
                  read_text(tmp.file("log")).substr(0, 2000));
  }
}
