// Compiling emitted C++ into kdt's cache: the compiler ($CXX, --cxx) and its
// flags, the cache key, the runtime library the code links, the verified
// entry. Shared by `kdt run` (a program with a harness) and `kdt build` (a
// shared library for the C ABI or the XLA FFI).
#pragma once

#include <string>
#include <vector>

namespace kdt {

struct CompilerChoice {
  std::string cxx;                    // --cxx; else $CXX; else c++ (split into words)
  std::vector<std::string> cxxflags;  // each --cxxflags, split into words
  bool portable = false;              // --portable: no -march=native
  bool debug = false;                 // kdt run -g: -g -O0 instead of -O2
  // The kernel's own optimisation ("-Og", "-O1" or "-O2", run_opt.h; empty:
  // -O2). The runtime library is always -O2; --cxxflags come after both.
  std::string kernel_opt;
  // A shared library (kdt build): position-independent code throughout,
  // the runtime library included, and -shared for the result.
  bool shared_library = false;
  std::vector<std::string> system_includes;  // -isystem DIR each (the XLA FFI headers)
  // Non-empty: the source is CUDA, compiled by nvcc ($NVCC, else found as
  // --emit=ptx finds it) for this arch, self-contained (no runtime library).
  std::string cuda_arch;
  // For the kernel's own compile and link only, not the runtime library
  // (kdt run --mpi: `mpicxx --showme:compile` and `--showme:link`).
  std::vector<std::string> kernel_flags;
  std::vector<std::string> link_flags;
};

struct BuildOutcome {
  enum class Kind { Built, Usage, Interrupted, CompilerFailed };
  Kind kind = Kind::Usage;
  std::string binary;   // Built: the verified cached file (or the work directory's, without a cache)
  std::string message;  // Usage, CompilerFailed
  std::string log;      // CompilerFailed: the compiler's output
  int signal = 0;       // Interrupted
  std::vector<std::string> warnings;  // the cache could not be used or written
};

// Finds `source` compiled with `choice` in the cache, or compiles it in
// WORK_DIR (a private directory of the caller's, kept by the caller after
// a compiler failure) and stores it.
BuildOutcome build_cached(const std::string& source, const CompilerChoice& choice, const std::string& work_dir);

}  // namespace kdt
