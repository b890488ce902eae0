// Builds a random, well-typed, race-free (or deliberately racy) kernel of the
// program model from a stream of choices.
#pragma once
#include "kd_gen.h"
#include "model.h"

namespace kdt::gen {

struct Built {
  Kernel kernel;
  bool racy = false;
  std::string bug;  // a deliberate protocol bug: the run-time code it must get
};

Built build_kernel(Choices& choices);

}  // namespace kdt::gen
