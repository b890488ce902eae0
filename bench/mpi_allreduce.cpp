// The ring all-reduce of samples/ring_allreduce.kd with devices as MPI
// ranks (issue 20), against MPI's own MPI_Allreduce of the same data in the
// same run. Built and run by bench/mpi_allreduce.sh:
//   mpirun -n 4 build/bench/mpi_allreduce ROWS COLS ROUNDS
// ROWS x COLS f32 per device; each round times one kdt launch (its
// programs: kdt_rt::mpi_last_run_seconds) and one MPI_Allreduce (between
// barriers), alternating; rank 0 prints the min and median of each.
#include "ring_allreduce_mpi.cpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  kdt_rt::MpiSession mpi(argc, argv);
  if (argc != 4) {
    if (mpi.rank() == 0) std::fprintf(stderr, "usage: mpirun -n 4 mpi_allreduce ROWS COLS ROUNDS\n");
    return 2;
  }
  const size_t rows = std::strtoul(argv[1], nullptr, 10), cols = std::strtoul(argv[2], nullptr, 10);
  const int rounds = std::atoi(argv[3]);
  const size_t count = rows * cols;
  const int n = mpi.size(), me = mpi.rank();
  // Each device's x; rank 0 holds every device's out (the launcher gathers them).
  std::vector<std::vector<float>> x(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  x[me].resize(count);
  for (size_t i = 0; i < count; ++i) x[me][i] = static_cast<float>((i * 7 + static_cast<size_t>(me) * 13) % 97) / 97.0f;
  for (int d = 0; d < n; ++d) {
    if (d == me || me == 0) out[d].resize(count);
  }
  std::vector<const float*> xs(static_cast<size_t>(n), x[me].data());
  std::vector<float*> outs(static_cast<size_t>(n));
  for (int d = 0; d < n; ++d) outs[d] = out[d].empty() ? nullptr : out[d].data();
  std::vector<float> reduced(count);
  std::vector<double> kdt_s, mpi_s;
  for (int round = 0; round < rounds; ++round) {
    kdt_rt::RunError error;
    if (kdt_kernels::ring_allreduce(xs.data(), outs.data(), kdt_rt::RunOptions{}, &error) != 0) {
      std::fprintf(stderr, "rank %d: %s\n", me, error.message.c_str());
      return 1;
    }
    kdt_s.push_back(kdt_rt::mpi_last_run_seconds());
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    MPI_Allreduce(x[me].data(), reduced.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    mpi_s.push_back(MPI_Wtime() - t0);
  }
  // The two sums agree (the orders of addition differ: within rounding).
  double worst = 0;
  for (size_t i = 0; i < count; ++i) worst = std::max(worst, std::fabs(double(out[me][i]) - reduced[i]));
  double all_worst = 0;
  MPI_Reduce(&worst, &all_worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (me == 0) {
    const double mib = static_cast<double>(count * sizeof(float)) / (1 << 20);
    const double k_min = *std::min_element(kdt_s.begin(), kdt_s.end()), m_min = *std::min_element(mpi_s.begin(), mpi_s.end());
    std::printf("%d ranks, %.3f MiB per device, %d rounds; largest difference %.3g\n", n, mib, rounds, all_worst);
    std::printf("kdt ring all-reduce   min %10.3f ms  median %10.3f ms  (%.0f MiB/s per device)\n", k_min * 1e3,
                median(kdt_s) * 1e3, mib / k_min);
    std::printf("MPI_Allreduce         min %10.3f ms  median %10.3f ms  (%.0f MiB/s per device)\n", m_min * 1e3,
                median(mpi_s) * 1e3, mib / m_min);
    std::printf("kdt / MPI_Allreduce:  min %.2fx  median %.2fx\n", k_min / m_min, median(kdt_s) / median(mpi_s));
  }
  return all_worst > 1e-3 ? 1 : 0;
}
