// Issue 17, item 4: `-j N` runs the devices of a launch with remote
// operations at the same time when it is built without run-time checks
// (DeviceScheduler::free_running). The emitted `<kernel>_run` is the
// free-running attempt itself (the wrapper `<kernel>` runs it again with
// the baton when it fails), so calling it shows whether the devices really
// ran freely; the outputs are checked against values computed here.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "test_support.h"

namespace {

// Emits `kd` (a file of the source tree) with --no-checks, compiles it with
// `main_text` appended and runs it; its standard output.
std::string run_with_main(const std::string& kd, const std::string& main_text) {
  kdt::test::TempDir tmp;
  const std::string cpp = tmp.file("k.cpp"), bin = tmp.file("k");
  kdt::test::RunResult emitted =
      kdt::test::run_kdt("--emit=cpp --no-checks -o " + cpp + " " + kdt::test::source_dir() + "/" + kd);
  REQUIRE(emitted.status == 0);
  kdt::test::write_text(cpp, kdt::test::read_text(cpp) + main_text);
  kdt::test::RunResult built = kdt::test::run_captured("c++ -std=c++17 -O1 -pthread -o " + bin + " " + cpp);
  REQUIRE_MESSAGE(built.status == 0, built.err);
  kdt::test::RunResult ran = kdt::test::run_captured(bin);
  REQUIRE_MESSAGE(ran.status == 0, ran.err);
  return ran.out;
}

}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE("free-running devices: ring_exchange's devices run at once, with ring_exchange's results") {
    const std::string out = run_with_main("samples/ring_exchange.kd", R"(
#include <cstdio>
int main() {
  const int D = 4, N = 128 * 64;
  std::vector<std::vector<float>> x(D, std::vector<float>(N)), recv = x, mixed = x;
  std::vector<const float*> xs;
  std::vector<float*> rs, ms;
  for (int d = 0; d < D; ++d) {
    for (int e = 0; e < N; ++e) x[d][e] = static_cast<float>(d * 1000 + e % 997) * 0.25f;
    xs.push_back(x[d].data());
    rs.push_back(recv[d].data());
    ms.push_back(mixed[d].data());
  }
  int wrong = 0;
  for (int jobs : {2, 3, 8}) {
    kdt_rt::RunOptions options;
    options.jobs = jobs;
    // The free-running attempt itself: 0 when it needed no second run.
    std::printf("jobs %d: %d\n", jobs, kdt_kernels::ring_exchange_run(xs.data(), rs.data(), ms.data(), options, nullptr));
    for (int d = 0; d < D; ++d) {
      const int left = (d + D - 1) % D;
      for (int e = 0; e < N; ++e) {
        wrong += recv[d][e] != x[left][e];
        wrong += mixed[d][e] != 0.5f * (x[d][e] + x[left][e]);
      }
    }
  }
  std::printf("wrong %d\n", wrong);
}
)");
    CHECK(out == "jobs 2: 0\njobs 3: 0\njobs 8: 0\nwrong 0\n");
  }

  TEST_CASE("free-running devices: a DMA semaphore fed by two devices runs again with the baton, same results") {
    const std::string out = run_with_main("tests/e2e/jobs/gather_root.kd", R"(
#include <cstdio>
int main() {
  const int D = 4, R = 8, C = 64, T = 2 * D * R * C;
  std::vector<std::vector<float>> x(D, std::vector<float>(R * C)), all(D, std::vector<float>(T)), back = all;
  std::vector<const float*> xs;
  std::vector<float*> as, bs;
  for (int d = 0; d < D; ++d) {
    for (int e = 0; e < R * C; ++e) x[d][e] = static_cast<float>(d * 100 + e % 89);
    xs.push_back(x[d].data());
    as.push_back(all[d].data());
    bs.push_back(back[d].data());
  }
  kdt_rt::RunOptions options;
  options.jobs = 2;
  std::printf("free: %d\n", kdt_kernels::gather_root_run(xs.data(), as.data(), bs.data(), options, nullptr));
  std::printf("wrapper: %d\n", kdt_kernels::gather_root(xs.data(), as.data(), bs.data(), options, nullptr));
  // Each program's table on device 0 (and as passed on to devices 1 to 3):
  // device 0's block x * 2 + 1, then devices 1 to 3's x.
  int wrong = 0;
  for (int p = 0; p < 2; ++p) {
    for (int b = 0; b < D; ++b) {
      for (int e = 0; e < R * C; ++e) {
        const float want = b == 0 ? x[0][e] * 2.0f + 1.0f : x[b][e];
        const int at = (p * D + b) * R * C + e;
        wrong += all[0][at] != want;
        for (int d = 1; d < D; ++d) wrong += back[d][at] != want;
      }
    }
  }
  std::printf("wrong %d\n", wrong);
}
)");
    CHECK(out == "free: 1\nwrapper: 0\nwrong 0\n");
  }

  TEST_CASE("free-running devices: remote additions land in the receiver's order, bit for bit") {
    const std::string out = run_with_main("tests/e2e/jobs/remote_adds.kd", R"(
#include <cstdio>
#include <cstring>
int main() {
  const int D = 4, N = 8 * 64;
  std::vector<std::vector<float>> x(D, std::vector<float>(N)), acc = x, start = x;
  std::vector<const float*> xs;
  std::vector<float*> as;
  for (int d = 0; d < D; ++d) {
    for (int e = 0; e < N; ++e) {
      // Magnitudes from 1e-3 to 1e3 once cubed and scaled: sums round by order.
      x[d][e] = (static_cast<float>((d * 7919 + e * 104729) % 2001) - 1000.0f) / 1000.0f;
      start[d][e] = static_cast<float>(e % 13) * 0.1f;
    }
    xs.push_back(x[d].data());
    as.push_back(acc[d].data());
  }
  int wrong = 0;
  for (int jobs : {2, 8}) {
    acc = start;
    for (int d = 0; d < D; ++d) as[d] = acc[d].data();
    kdt_rt::RunOptions options;
    options.jobs = jobs;
    std::printf("jobs %d: %d\n", jobs, kdt_kernels::remote_adds_run(xs.data(), as.data(), options, nullptr));
    for (int e = 0; e < N; ++e) {
      // Device 0 waits for device 1's, then 2's, then 3's addition.
      float want = start[0][e];
      for (int d = 1; d < D; ++d) want = want + x[d][e] * x[d][e] * x[d][e] * 1000.0f;
      wrong += std::memcmp(&want, &acc[0][e], sizeof want) != 0;
      for (int d = 1; d < D; ++d) wrong += acc[d][e] != start[d][e];
    }
  }
  std::printf("wrong %d\n", wrong);
}
)");
    CHECK(out == "jobs 2: 0\njobs 8: 0\nwrong 0\n");
  }
}
