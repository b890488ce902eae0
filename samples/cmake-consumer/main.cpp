// Runs the two KD kernels of this project through the API that kdt emits
// (namespace kdt_kernels: one function per kernel, one pointer per ref) and
// checks their results against a plain C++ computation.
//
// Usage: consumer SCALE   (the SCALE that kernels/include/scale_params.kd sets)
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "column_sums.kd.h"
#include "scale_rows.kd.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SCALE\n", argv[0]);
    return 2;
  }
  const float scale = static_cast<float>(std::atoi(argv[1]));
  const int rows = 8;   // DEFINES ROWS=8 in CMakeLists.txt
  const int cols = 16;  // COLS in scale_params.kd

  std::vector<float> x(rows * cols);
  for (int i = 0; i < rows * cols; ++i) x[i] = static_cast<float>(i % 23) - 7.0f;

  // out = SCALE * x
  std::vector<float> out(rows * cols, -1.0f);
  kdt_rt::RunError error;
  if (kdt_kernels::scale_rows(x.data(), out.data(), {}, &error) != 0) {
    std::fprintf(stderr, "scale_rows failed: %s: %s\n", error.code.name(), error.message.c_str());
    return 1;
  }
  int wrong = 0;
  for (int i = 0; i < rows * cols; ++i) wrong += out[i] != scale * x[i];

  // sums += column sums of x (starting from 100)
  std::vector<float> sums(cols, 100.0f);
  if (kdt_kernels::column_sums(x.data(), sums.data(), {}, &error) != 0) {
    std::fprintf(stderr, "column_sums failed: %s: %s\n", error.code.name(), error.message.c_str());
    return 1;
  }
  for (int c = 0; c < cols; ++c) {
    float expected = 100.0f;
    for (int r = 0; r < rows; ++r) expected += x[r * cols + c];
    wrong += sums[c] != expected;
  }

  std::printf("scale_rows: out[1][2] = %g (scale %g)\ncolumn_sums: sums[0] = %g\n", out[1 * cols + 2],
              static_cast<double>(scale), sums[0]);
  if (wrong != 0) {
    std::printf("%d values differ from the reference\n", wrong);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
