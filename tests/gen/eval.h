// The model evaluator: runs a Kernel of the program model on given inputs
// and returns every output parameter. It is the generator's independent
// reading of the KD specification (it shares no code with kdt).
//
// Programs run in lockstep: each top-level statement of the body runs for
// every (device, program) before the next one, DMAs move their data when
// they start, and a remote DMA or signal reaches the same program on the
// other device. For the race-free kernels the builder makes (every
// cross-program or cross-device effect is an accumulation, or is read only
// after a later top-level wait), this gives the one result every valid
// schedule gives.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "model.h"

namespace kdt::gen {

// A generator bug found while evaluating (a wait that retires the wrong
// byte count, an out-of-range index the builder should have avoided, ...).
struct ModelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Data of each parameter (device-major), indexed like k.params; inputs from
// Param::init, outputs filled by the run (`out` refs start as zeros, as the
// harness of `kdt run` fills them, though the builder writes every element).
std::vector<std::vector<uint64_t>> evaluate(const Kernel& k);

}  // namespace kdt::gen
