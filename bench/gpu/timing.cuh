// Timing for the GPU benchmark (main.cu, tc.cu): milliseconds per call of
// f, by CUDA events around `reps` calls after one warm-up call.
#pragma once

template <class F>
float timed(F f, int reps) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  f();
  cudaDeviceSynchronize();
  cudaEventRecord(a);
  for (int i = 0; i < reps; ++i) f();
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  return ms / reps;
}
