// Sizes of refs and launches (issue 12, item 18): products of shape
// dimensions, byte counts, grid dimensions and devices that overflow 64
// bits are `constant-overflow`; sizes past kdt's limits (--max-ref-bytes,
// --max-devices, --max-programs) are `limit-exceeded`, before anything is
// emitted, compiled or allocated.
#include "checker.h"

namespace kdt::check {

bool Checker::ref_size_ok(DType dtype, const Shape& shape, SourceRange range) {
  int64_t bytes = dtype_bytes(dtype);
  for (int64_t d : shape) {
    if (__builtin_mul_overflow(bytes, d, &bytes)) {
      diags_.report(DiagCode::ConstantOverflow, range, "the ref holds more than 2^63 bytes");
      return false;
    }
  }
  const int64_t limit = options_.limits.max_ref_bytes;
  if (bytes <= limit) return true;
  diags_.report(DiagCode::LimitExceeded, range,
                "a ref of " + std::to_string(bytes) + " bytes; the limit is --max-ref-bytes=" + std::to_string(limit))
      .note("`kdt run` allocates every parameter before the first program runs; raise the limit with --max-ref-bytes=N");
  return false;
}

void Checker::check_launch_size(const ast::Kernel& k) {
  auto attr_range = [&](const char* name) {
    for (const ast::KernelAttr& a : k.attrs) {
      if (a.name.text == name) return a.range;
    }
    return k.name.range;
  };
  int64_t programs = 1;
  for (int64_t g : k.grid) {
    if (__builtin_mul_overflow(programs, g, &programs)) {
      diags_.report(DiagCode::ConstantOverflow, attr_range("grid"), "the grid has more programs than 64 bits can count");
      return;
    }
  }
  const Limits& limits = options_.limits;
  if (k.devices > limits.max_devices) {
    diags_.report(DiagCode::LimitExceeded, attr_range("devices"),
                  std::to_string(k.devices) + " devices; the limit is --max-devices=" + std::to_string(limits.max_devices))
        .note("the C++ path runs one thread per device; raise the limit with --max-devices=N");
    return;
  }
  if (k.threads && *k.threads > kMaxThreadsPerBlock) {
    diags_.report(DiagCode::BadArgument, attr_range("threads"),
                  "`threads` is " + std::to_string(*k.threads) + ", but a CUDA thread block has at most " +
                      std::to_string(kMaxThreadsPerBlock) + " threads");
  }
  int64_t total = 0;
  if (__builtin_mul_overflow(programs, k.devices, &total)) {
    diags_.report(DiagCode::ConstantOverflow, attr_range("grid"),
                  "the launch has more programs (grid size times devices) than 64 bits can count");
    return;
  }
  if (total > limits.max_programs) {
    diags_.report(DiagCode::LimitExceeded, attr_range("grid"),
                  "a launch of " + std::to_string(total) + " programs (grid size " + std::to_string(programs) + " x " +
                      std::to_string(k.devices) + (k.devices == 1 ? " device" : " devices") +
                      "); the limit is --max-programs=" + std::to_string(limits.max_programs))
        .note("give each program a bigger block (a `for` loop inside it), or raise the limit with --max-programs=N");
  }
}

}  // namespace kdt::check
