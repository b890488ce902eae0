// The generator-driven part of the fuzz targets (needs tests/gen).
#include "fuzz_inputs.h"
#include "kd_gen.h"

namespace kdt::fuzz {

bool have_generator() { return true; }

std::string generated_source(const uint8_t* data, size_t size) {
  kdt::gen::Choices choices(data, size);
  return kdt::gen::generate(choices).source;
}

void pipeline_input(const uint8_t* data, size_t size) {
  kdt::gen::Choices choices(data, size);
  kdt::gen::Program program = kdt::gen::generate(choices);
  pipeline_source(program.source, true);
}

}  // namespace kdt::fuzz
