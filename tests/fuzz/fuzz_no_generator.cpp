// Stand-ins for fuzz_generated.cpp in a build without tests/gen.
#include <cstdio>
#include <cstdlib>

#include "fuzz_inputs.h"

namespace kdt::fuzz {

bool have_generator() { return false; }

std::string generated_source(const uint8_t*, size_t) { return ""; }

void pipeline_input(const uint8_t*, size_t) {
  std::fprintf(stderr, "kdt fuzz: this build has no generator (tests/gen/kd_gen.cpp)\n");
  std::abort();
}

}  // namespace kdt::fuzz
