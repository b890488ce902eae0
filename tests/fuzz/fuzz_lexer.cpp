// libFuzzer entry point of fuzz_lexer (see fuzz_inputs.h and docs/reliability.md).
#include "fuzz_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kdt::fuzz::lexer_input(data, size);
  return 0;
}
