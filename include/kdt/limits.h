// The implementation limits of kdt (issue 8): how much input it accepts
// before it refuses with a diagnostic instead of exhausting the stack, the
// memory or the time of the machine it runs on, or of the machine that runs
// the emitted code. Each has a command-line flag (options.cpp lists them with
// their accepted ranges); docs/reliability.md explains the defaults.
#pragma once

#include <cstdint>

namespace kdt {

// Dimensions of a ref (a parameter or a scratch buffer): the C++ path's
// run-time checks describe element sets of refs with a fixed-size box
// (kdt_rt::kMaxRank in include/kdt/runtime/kdt_exec.h). A property of the
// runtime, not a flag; a ref of more dimensions is `invalid-declaration`.
constexpr int kMaxRefRank = 16;

struct Limits {
  // Brackets, blocks, runs of prefix operators, `?:` chains and `else if`
  // chains (`nesting-too-deep`). Each level is one recursion of the parser
  // and of every later stage.
  int64_t max_nesting = 256;
  // Binary operators and postfix indexings in one statement: each makes the
  // syntax tree one level deeper (`a + b + c` is `(a + b) + c`) and every
  // stage after the parser recurses once per level (`limit-exceeded`).
  int64_t max_expression_terms = 10'000;
  // Files open at once through nested `include`s; the main file is level 0
  // (GCC and Clang stop at 200 nested #includes too).
  int64_t max_include_depth = 200;
  // Bytes of one source file (the main file, an include, standard input).
  int64_t max_source_bytes = int64_t{16} << 20;
  // Characters of one number or string literal token.
  int64_t max_literal_length = 65'536;
  // Kernels in one program, its included files counted.
  int64_t max_kernels = 1'000;
  // Bytes of one tile value (a `let`/`var` value, a load, a temporary): the
  // C++ path keeps each one in an array on the stack of a device thread.
  int64_t max_tile_bytes = int64_t{1} << 20;
  // Bytes of all `scratch` buffers of one kernel, per program: sm_90's
  // largest shared memory per block (227 KiB, with the opt-in attribute).
  int64_t max_scratch_bytes = 227 * 1024;
  // Bytes of one ref (a parameter or a scratch buffer): `kdt run` allocates
  // every parameter, per device, before the first program runs.
  int64_t max_ref_bytes = int64_t{1} << 32;
  // Instances of KD functions in one program (one per function and set of
  // generic values and descriptor types, section 14): hostile input can
  // multiply them (each generic function calling the next with two sets of
  // values).
  int64_t max_function_instances = 10'000;
  // Devices of a kernel: the C++ path runs one thread per device.
  int64_t max_devices = 1'024;
  // Programs of one launch, all devices together (grid size x devices): the
  // C++ path keeps the state of every program of a multi-device launch
  // until it ends, since remote DMAs and signals may reach it.
  int64_t max_programs = int64_t{1} << 24;
};

// threads(T) and --threads: CUDA's bound on the threads of one block.
constexpr int64_t kMaxThreadsPerBlock = 1024;

}  // namespace kdt
