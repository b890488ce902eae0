// generate(): build a kernel model from the choices, print it, and evaluate
// the model for the expected outputs.
#include "kd_gen.h"

#include "builder.h"
#include "eval.h"
#include "print.h"

namespace kdt::gen {

namespace {

Array array_of(const Kernel& k, const Param& p, const std::vector<uint64_t>& data) {
  Array a;
  a.name = p.name;
  a.dtype = dtype_name(p.dtype);
  if (k.devices > 1) a.shape.push_back(k.devices);
  a.shape.insert(a.shape.end(), p.shape.begin(), p.shape.end());
  const int size = dtype_bytes(p.dtype);
  a.bytes.reserve(data.size() * static_cast<size_t>(size));
  for (uint64_t v : data) {
    for (int b = 0; b < size; ++b) a.bytes.push_back(static_cast<uint8_t>(v >> (8 * b)));
  }
  return a;
}

}  // namespace

Program generate(Choices& choices) {
  Built built = build_kernel(choices);
  const Kernel& k = built.kernel;
  Program program;
  program.source = print_kernel(k);
  program.kernel = k.name;
  program.racy = built.racy;
  program.bug = built.bug;
  program.devices = k.devices;
  for (const Param& p : k.params) {
    if (p.mode == Mode::In || p.mode == Mode::InOut) program.inputs.push_back(array_of(k, p, p.init));
  }
  // A racy or buggy kernel has no single meaning: only its report is checked.
  if (!built.racy && built.bug.empty()) {
    const std::vector<std::vector<uint64_t>> result = evaluate(k);
    for (size_t i = 0; i < k.params.size(); ++i) {
      const Param& p = k.params[i];
      if (p.mode == Mode::Out || p.mode == Mode::InOut) program.expected.push_back(array_of(k, p, result[i]));
    }
  }
  return program;
}

}  // namespace kdt::gen
