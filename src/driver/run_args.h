// The command line of `kdt run` (cli.md), and its check against the
// kernel's parameters, so that a misspelt, repeated, missing or ill-typed
// input is a usage error naming the parameter before anything is compiled.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kdt/driver/options.h"
#include "kdt/ir/ir.h"

namespace kdt {

struct RunArgs {
  Options common;                                           // what kdt run shares with kdt
  std::vector<std::pair<std::string, std::string>> inputs;  // --input NAME=PATH|VALUE, in order
  std::vector<std::string> random;                          // --random NAME
  bool random_all = false;                                  // --random-all
  std::string output_dir = ".";
  uint64_t seed = 0;
  std::string cxx;                // --cxx, split into words like $CXX
  std::vector<std::string> cxxflags;  // each --cxxflags, split into words later
  bool portable = false;          // --portable: no -march=native
  double timeout_s = 0;           // --timeout; 0: none
  int jobs = 0;                   // -j/--jobs; 0: the cores available (the harness's default)
  std::string timeout_text;       // as given, for messages
  bool debug = false;             // -g: debug information, no optimisation
  bool gdb = false;               // --gdb: run the kernel under gdb (implies -g)
  std::string gdb_args;           // --gdb-args: more words for gdb, before --args
  bool mpi = false;                // --mpi: each device an MPI rank, started with mpirun (issue 20)
  int ranks = 0;                  // -n N with --mpi; 0: the kernel's device count
  bool help = false;
};

// Parses the arguments after `run`; false with `error` for a usage error.
bool parse_run_args(const std::vector<std::string>& args, RunArgs& out, std::string& error);

// "" when every --input and --random names a parameter of `kernel` that
// reads a value, given once, scalars hold a value of their dtype exactly,
// input files exist, and every in/inout ref and scalar has an input (or
// --random); else the message of the usage error.
std::string check_run_inputs(const RunArgs& args, const ir::Kernel& kernel);

}  // namespace kdt
