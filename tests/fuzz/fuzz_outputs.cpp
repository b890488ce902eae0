// libFuzzer entry point of fuzz_outputs (see fuzz_inputs.h and docs/reliability.md).
#include "fuzz_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kdt::fuzz::run_on_large_stack([&] { kdt::fuzz::outputs_input(data, size); });
  return 0;
}
