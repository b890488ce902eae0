// Tensor-core `dot` (issue 19, item 8) against cuBLAS's GEMM on the same
// dtypes (bench/gpu/README.md): KDT_HEADER is kdt's output for
// generic_matmul.kd with T = bf16 (bf16 in and out, f32 accumulation) or
// matmul.kd with --cuda-tf32, both at M = N = K = 4096; ELEM, CUDA_TYPE,
// COMPUTE and LABEL name the matching cuBLAS call.
#include KDT_HEADER

#include <cublas_v2.h>

#include <cstdio>

#include "timing.cuh"

int main() {
  const int n = 4096;
  const size_t mb = size_t(n) * n * sizeof(ELEM);
  ELEM *A, *B, *C;
  cudaMalloc(&A, mb);
  cudaMalloc(&B, mb);
  cudaMalloc(&C, mb);
  cudaMemset(A, 0, mb);
  cudaMemset(B, 0, mb);
  const float mm = timed([&] { kdt_kernels::matmul(A, B, C); }, 3);
  cublasHandle_t h;
  cublasCreate(&h);
  const float one = 1, zero = 0;
  const float cb = timed([&] {
    cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, CUDA_TYPE, n, A, CUDA_TYPE, n, &zero, C, CUDA_TYPE, n,
                 COMPUTE, CUBLAS_GEMM_DEFAULT);
  }, 3);
  const double flop = 2.0 * n * n * n;
  std::printf("bench: matmul 4096^3 %s: kdt %.2f TFLOP/s, cuBLAS %.2f TFLOP/s (%.0f%%)\n", LABEL, flop / mm / 1e9,
              flop / cb / 1e9, 100.0 * cb / mm);
  std::printf("bench: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
