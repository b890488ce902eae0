// libFuzzer entry point of fuzz_npy (see fuzz_inputs.h and docs/reliability.md).
// The .npy parser does not recurse: no large stack needed.
#include "fuzz_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kdt::fuzz::npy_input(data, size);
  return 0;
}
