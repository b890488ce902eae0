// Issue 12, item 21: `kdt --dma-mode/--dma-order/--program-order` are not silently
// ignored: with --emit=cpp --harness they become the harness's defaults,
// anywhere else they are refused.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "test_support.h"

TEST_SUITE("cli") {
  TEST_CASE("--dma-mode, --dma-order and --program-order set the harness's defaults, and are refused elsewhere") {
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("k.kd"),
                          "kernel k(y: out i32[2] @global) grid(2) { y[program_id(0)] = program_id(0); }\n");
    for (std::string bad : {"--emit=check --dma-mode=eager", "--emit=ir --program-order=reverse",
                            "--emit=cpp --dma-mode=eager", "--emit=cuda --program-order=shuffle",
                            "--emit=discharged-ir --dma-order=lifo", "--emit=cpp --dma-order=fifo"}) {
      CAPTURE(bad);
      kdt::test::RunResult r = kdt::test::run_kdt(bad + " -o " + tmp.file("out") + " " + tmp.file("k.kd"));
      CHECK(r.status == 2);
      CHECK(r.err.find("--dma-mode, --dma-order and --program-order apply to `kdt run` and to "
                       "`--emit=cpp --harness`") != std::string::npos);
      CHECK_FALSE(std::filesystem::exists(tmp.file("out")));
    }
    // Without checks the last program to run decides y[0]: the program order
    // shows on one thread (with -j N this racy kernel's result is unspecified).
    kdt::test::write_text(tmp.file("last.kd"), "kernel k(y: out i32[1] @global) grid(2) { y[0] = program_id(0); }\n");
    auto y0 = [&](const std::string& flags) {
      std::string cpp = tmp.file("last.cpp"), bin = tmp.file("last"), out = tmp.file("out-dir");
      REQUIRE(kdt::test::run_kdt("--emit=cpp --harness --no-checks " + flags + " -o " + cpp + " " + tmp.file("last.kd")).status == 0);
      REQUIRE(std::system(("c++ -std=c++17 -O0 -o " + bin + " " + cpp).c_str()) == 0);
      std::filesystem::create_directories(out);
      REQUIRE(std::system((bin + " --jobs 1 --output-dir " + out + " >/dev/null").c_str()) == 0);
      std::string npy = kdt::test::read_text(out + "/y.npy");
      REQUIRE(npy.size() >= 4);
      return static_cast<unsigned char>(npy[npy.size() - 4]);
    };
    CHECK(y0("") == 1);
    CHECK(y0("--program-order=reverse") == 0);
    CHECK(kdt::test::read_text(tmp.file("last.cpp")).find("args.run.program_order = 1;  // reverse") != std::string::npos);
    CHECK(y0("--dma-mode=eager --program-order=forward") == 1);
    CHECK(kdt::test::read_text(tmp.file("last.cpp")).find("args.run.eager_dma = true;") != std::string::npos);
  }

  // Issue 20: --devices=mpi is a mode of the C++ output, nvshmem of the CUDA output.
  TEST_CASE("--devices: simulated; mpi with --emit=cpp only, nvshmem with --emit=cuda only") {
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("k.kd"), "kernel k(y: out i32[2] @global) grid(2) devices(2) { y[0] = 1; }\n");
    kdt::test::RunResult r = kdt::test::run_kdt("--emit=cuda --devices=mpi -o " + tmp.file("out") + " " + tmp.file("k.kd"));
    CHECK(r.status == 2);
    CHECK(r.err.find("--devices=mpi applies to --emit=cpp") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(tmp.file("out")));
    r = kdt::test::run_kdt("--emit=cpp --devices=nvshmem " + tmp.file("k.kd"));
    CHECK(r.status == 2);
    CHECK(r.err.find("--devices=nvshmem applies to --emit=cuda") != std::string::npos);
    r = kdt::test::run_kdt("--emit=cpp --devices=pgas " + tmp.file("k.kd"));
    CHECK(r.status == 2);
    CHECK(r.err.find("invalid value 'pgas' for --devices; expected mpi nvshmem simulated") != std::string::npos);
    r = kdt::test::run_kdt("--emit=cuda --devices=nvshmem -o " + tmp.file("k.cu") + " " + tmp.file("k.kd"));
    REQUIRE(r.status == 0);
    CHECK(kdt::test::read_text(tmp.file("k.cu")).find("nvshmemx_collective_launch(") != std::string::npos);
    r = kdt::test::run_kdt("--emit=cpp --harness --devices=mpi -o " + tmp.file("k.cpp") + " " + tmp.file("k.kd"));
    REQUIRE(r.status == 0);
    const std::string cpp = kdt::test::read_text(tmp.file("k.cpp"));
    CHECK(cpp.find("#include <mpi.h>") != std::string::npos);
    CHECK(cpp.find("kdt_rt::MpiScheduler scheduler{2};") != std::string::npos);
    CHECK(cpp.find("kdt_rt::MpiSession mpi(argc, argv);") != std::string::npos);
    r = kdt::test::run_kdt("--emit=cpp --harness -o " + tmp.file("sim.cpp") + " " + tmp.file("k.kd"));
    REQUIRE(r.status == 0);
    CHECK(kdt::test::read_text(tmp.file("sim.cpp")).find("#include <mpi.h>") == std::string::npos);
  }
}
