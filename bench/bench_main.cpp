// Side-by-side timings of kdt's emitted C++ (checks off, and checks on)
// against hand-written loops, in one process, same compiler and flags.
// Built and run by bench/run_benchmarks.sh; prints one line per benchmark.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "emitted_unchecked.cpp"
#include "emitted_checked.cpp"
#include "emitted_blocks_unchecked.cpp"
#include "emitted_blocks_checked.cpp"

namespace {

template <class F>
double best_ms(F&& f, int reps) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, ms);
  }
  return best;
}

void report(const char* name, double kdt_ms, double checked_ms, double ref_ms, const char* ref_name) {
  std::printf("%-22s kdt %9.3f ms | checks on %9.3f ms (%.2fx) | %-24s %9.3f ms | ref/kdt %.2f\n", name, kdt_ms,
              checked_ms, checked_ms / kdt_ms, ref_name, ref_ms, ref_ms / kdt_ms);
}

// Runs `a` and `b` alternately `reps` times each (the machine is shared and
// noisy) and prints the min and median of each and their ratios.
template <class A, class B>
void compare(const char* name, const char* a_name, A&& a, const char* b_name, B&& b, int reps) {
  std::vector<double> ta, tb;
  auto time = [](auto& f) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  for (int r = 0; r < reps; ++r) {
    ta.push_back(time(a));
    tb.push_back(time(b));
  }
  std::sort(ta.begin(), ta.end());
  std::sort(tb.begin(), tb.end());
  double ma = ta[ta.size() / 2], mb = tb[tb.size() / 2];
  std::printf("%-22s %s min %.3f ms median %.3f ms | %s min %.3f ms median %.3f ms | ratio min %.2f median %.2f\n", name,
              a_name, ta[0], ma, b_name, tb[0], mb, tb[0] / ta[0], mb / ma);
}

std::vector<float> random_floats(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  kdt_rt::fill_random(v.data(), n, seed);
  return v;
}

}  // namespace

int main() {
  const size_t N = size_t{1} << 24;  // 64 MiB of f32
  std::vector<float> x = random_floats(N, 1), y(N), y2(N);
  kdt_rt::RunOptions options;

  report("dma copy 64 MiB",
         best_ms([&] { kdt_kernels::dma_copy(x.data(), y.data(), options); }, 7),
         best_ms([&] { kdt_checked::dma_copy(x.data(), y.data(), options); }, 7),
         best_ms([&] { std::memcpy(y2.data(), x.data(), N * sizeof(float)); }, 7), "memcpy");

  report("dma add 64 MiB",
         best_ms([&] { kdt_kernels::dma_add(x.data(), y.data(), options); }, 7),
         best_ms([&] { kdt_checked::dma_add(x.data(), y.data(), options); }, 7),
         best_ms([&] {
           // Restrict-qualified pointers: the fair reference (issue 17).
           float* __restrict d = y2.data();
           const float* __restrict s = x.data();
           for (size_t i = 0; i < N; ++i) d[i] += s[i];
         }, 7),
         "loop d[i] += s[i]");

  const int M = 512, K = 512, Nn = 512;
  std::vector<float> A = random_floats(size_t(M) * K, 2), B = random_floats(size_t(K) * Nn, 3);
  std::vector<float> C(size_t(M) * Nn), C2(size_t(M) * Nn);
  report("matmul 512^3 f32",
         best_ms([&] { kdt_kernels::matmul(A.data(), B.data(), C.data(), options); }, 5),
         best_ms([&] { kdt_checked::matmul(A.data(), B.data(), C.data(), options); }, 5),
         best_ms([&] {
           // On restrict-qualified pointers, not through std::vector (issue 17).
           std::fill(C2.begin(), C2.end(), 0.0f);
           const float* __restrict a_ = A.data();
           const float* __restrict b_ = B.data();
           float* __restrict c_ = C2.data();
           for (int i = 0; i < M; ++i)
             for (int k = 0; k < K; ++k) {
               const float a = a_[size_t(i) * K + k];
               for (int j = 0; j < Nn; ++j) c_[size_t(i) * Nn + j] += a * b_[size_t(k) * Nn + j];
             }
         }, 5),
         "i-k-j loop");

  // `dot` over whole-K panels (bench/kernels.kd), for the BLAS anchor that
  // run_benchmarks.sh measures with numpy: GFLOP/s, min and median.
  for (int n : {512, 1024}) {
    std::vector<float> PA = random_floats(size_t(n) * n, 5), PB = random_floats(size_t(n) * n, 6), PC(size_t(n) * n);
    std::vector<double> t;
    for (int r = 0; r < 9; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      if (n == 512) kdt_kernels::matmul_panels_512(PA.data(), PB.data(), PC.data(), options);
      else kdt_kernels::matmul_panels_1024(PA.data(), PB.data(), PC.data(), options);
      t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    std::printf("matmul panels %d^3 f32  kdt min %.3f ms median %.3f ms (%.1f GFLOP/s at the min)\n", n, t[0], t[4],
                2.0 * n * n * n / t[0] / 1e6);
  }

  // Section 13: the block-spec matmul (samples/block_matmul.kd) against the
  // hand-written double-buffered one (samples/matmul.kd), same tiles.
  std::vector<float> C3(size_t(M) * Nn);
  compare("block-spec matmul", "hand-pipelined", [&] { kdt_kernels::matmul(A.data(), B.data(), C.data(), options); },
          "block specs", [&] { kdt_blocks::matmul(A.data(), B.data(), C3.data(), options); }, 9);
  compare("block-spec checks", "checks off", [&] { kdt_blocks::matmul(A.data(), B.data(), C3.data(), options); },
          "checks on", [&] { kdt_blocks_checked::matmul(A.data(), B.data(), C3.data(), options); }, 9);

  const int R = 4096, D = 1024;
  std::vector<float> S = random_floats(size_t(R) * D, 4), Y(size_t(R) * D), Y2(size_t(R) * D);
  report("softmax 4096x1024",
         best_ms([&] { kdt_kernels::softmax(S.data(), Y.data(), options); }, 5),
         best_ms([&] { kdt_checked::softmax(S.data(), Y.data(), options); }, 5),
         best_ms([&] {
           for (int r = 0; r < R; ++r) {
             const float* in = &S[size_t(r) * D];
             float* out = &Y2[size_t(r) * D];
             float m = in[0];
             for (int j = 1; j < D; ++j) m = std::max(m, in[j]);
             float sum = 0;
             for (int j = 0; j < D; ++j) sum += out[j] = std::exp(in[j] - m);
             for (int j = 0; j < D; ++j) out[j] /= sum;
           }
         }, 5),
         "three-pass loop");

  // -j (issue 17): the same launch on every core against one thread,
  // checks off and on; the outputs are bit-identical (tests/e2e/jobs_determinism.py).
  {
    const int cores = kdt_rt::available_cores();
    kdt_rt::RunOptions one = options, all = options;
    all.jobs = cores;
    const std::string with = "-j " + std::to_string(cores);
    std::vector<float> PA = random_floats(size_t(1024) * 1024, 7), PB = random_floats(size_t(1024) * 1024, 8);
    std::vector<float> PC(size_t(1024) * 1024);
    compare("-j matmul 1024^3", with.c_str(), [&] { kdt_kernels::matmul_panels_1024(PA.data(), PB.data(), PC.data(), all); },
            "-j 1", [&] { kdt_kernels::matmul_panels_1024(PA.data(), PB.data(), PC.data(), one); }, 7);
    std::vector<float> EX = random_floats(size_t(4096) * 1024, 9), EY(size_t(4096) * 1024);
    compare("-j elementwise 4096", with.c_str(), [&] { kdt_kernels::elementwise_4096(EX.data(), EY.data(), all); },
            "-j 1", [&] { kdt_kernels::elementwise_4096(EX.data(), EY.data(), one); }, 9);
    compare("-j elementwise checked", with.c_str(), [&] { kdt_checked::elementwise_4096(EX.data(), EY.data(), all); },
            "-j 1", [&] { kdt_checked::elementwise_4096(EX.data(), EY.data(), one); }, 9);
    compare("-j block-spec matmul", with.c_str(), [&] { kdt_blocks::matmul(A.data(), B.data(), C3.data(), all); },
            "-j 1", [&] { kdt_blocks::matmul(A.data(), B.data(), C3.data(), one); }, 9);
    // Devices with remote DMAs at the same time (free-running, checks off).
    const size_t block = size_t(512) * 512;
    std::vector<float> RA = random_floats(4 * block, 10), RB = random_floats(4 * block, 11), RC(4 * block), RR(4 * block);
    std::vector<const float*> ra, rb;
    std::vector<float*> rc, rr;
    for (size_t d = 0; d < 4; ++d) {
      ra.push_back(&RA[d * block]);
      rb.push_back(&RB[d * block]);
      rc.push_back(&RC[d * block]);
      rr.push_back(&RR[d * block]);
    }
    compare("-j ring matmul 4 dev", with.c_str(),
            [&] { kdt_kernels::ring_matmul_4(ra.data(), rb.data(), rc.data(), rr.data(), all); }, "-j 1",
            [&] { kdt_kernels::ring_matmul_4(ra.data(), rb.data(), rc.data(), rr.data(), one); }, 7);
    std::printf("(ratio = speed-up of %s over -j 1 on %d cores)\n", with.c_str(), cores);
  }

  // Keep the results alive.
  double keep = y[7] + y2[7] + C[5] + C2[5] + C3[5] + Y[3] + Y2[3];
  std::printf("(checksum %g)\n", keep);
  return 0;
}
