// The GPU benchmark (issue 19, item 11; bench/gpu/README.md): kdt's
// compiled kernels against the machine's limits, measured in one run.
//   DMA copy, DMA add, softmax: GB/s as a fraction of the HBM peak (from
//     the device's memory clock and bus width) and of cudaMemcpy D2D;
//   matmul 4096^3 f32: TFLOP/s against cuBLAS SGEMM.
// Built by scripts/gpu-check from kdt's output for kernels.kd,
// samples/softmax.kd (-D R=65536) and samples/matmul.kd (-D M=N=K=4096).
#include "kernels.cuh"
#include "matmul.cuh"
#include "softmax.cuh"

#include <cublas_v2.h>

#include <cstdio>

#include "timing.cuh"

namespace {

// The HBM peak in GB/s: two transfers per memory clock over the bus.
double peak_gbps() {
  int clock_khz = 0, bus_bits = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
  return 2.0 * clock_khz * 1e3 * (bus_bits / 8) / 1e9;
}

void bandwidth_line(const char* what, double bytes_moved, float ms, double peak, float memcpy_ms, double memcpy_bytes) {
  const double gbps = bytes_moved / ms / 1e6;
  std::printf("bench: %s: kdt %.0f GB/s, %.0f%% of the HBM peak (%.0f GB/s), %.0f%% of cudaMemcpy D2D (%.0f GB/s)\n",
              what, gbps, 100.0 * gbps / peak, peak, 100.0 * gbps / (memcpy_bytes / memcpy_ms / 1e6),
              memcpy_bytes / memcpy_ms / 1e6);
}

}  // namespace

int main() {
  const double peak = peak_gbps();
  const size_t bytes = size_t(1) << 30;  // kernels.kd: 262144 x 1024 f32
  float *x, *y;
  cudaMalloc(&x, bytes);
  cudaMalloc(&y, bytes);
  cudaMemset(x, 0, bytes);
  cudaMemset(y, 0, bytes);
  const float mc = timed([&] { cudaMemcpy(y, x, bytes, cudaMemcpyDeviceToDevice); }, 10);
  // A copy reads and writes every byte; an add reads x, reads y and writes y.
  bandwidth_line("1 GiB DMA copy", 2.0 * bytes, timed([&] { kdt_kernels::copy1g(x, y); }, 10), peak, mc, 2.0 * bytes);
  bandwidth_line("1 GiB DMA add", 3.0 * bytes, timed([&] { kdt_kernels::add1g(x, y); }, 10), peak, mc, 2.0 * bytes);
  // softmax.kd with R = 65536, D = 1024: 256 MiB read, 256 MiB written.
  const size_t sm_bytes = size_t(65536) * 1024 * 4;
  bandwidth_line("softmax 65536x1024 f32", 2.0 * sm_bytes, timed([&] { kdt_kernels::softmax(x, y); }, 10), peak, mc,
                 2.0 * bytes);

  const int n = 4096;
  const size_t mb = size_t(n) * n * 4;
  float *A, *B, *C;
  cudaMalloc(&A, mb);
  cudaMalloc(&B, mb);
  cudaMalloc(&C, mb);
  cudaMemset(A, 0, mb);
  cudaMemset(B, 0, mb);
  const float mm = timed([&] { kdt_kernels::matmul(A, B, C); }, 3);
  cublasHandle_t h;
  cublasCreate(&h);
  const float one = 1, zero = 0;
  // Row-major C = A B is column-major C^T = B^T A^T: B first.
  const float cb = timed([&] { cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n); }, 3);
  const double flop = 2.0 * n * n * n;
  std::printf("bench: matmul 4096^3 f32: kdt %.2f TFLOP/s, cuBLAS SGEMM %.2f TFLOP/s (%.0f%%)\n", flop / mm / 1e9,
              flop / cb / 1e9, 100.0 * cb / mm);
  std::printf("bench: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
