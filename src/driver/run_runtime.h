// The runtime library of `kdt run` (issue 17): the kernel-independent part
// of the runtime (scheduler, checks, .npy I/O, harness) compiled once per
// compiler and flag set, kept in the run cache beside the kernels, so that
// a kernel's first run compiles the kernel, not the runtime.
#pragma once

#include <string>
#include <vector>

#include "driver/run_cache.h"
#include "driver/spawn.h"

namespace kdt {

struct RuntimeLibrary {
  std::string key;  // names this library in a kernel's cache key
  std::string dir;  // kdt_prelude.h (and kdt_prelude.h.gch for GCC), runtime.o
};

// The library's key: the prelude's text and the toolchain (what kdt run
// keys kernels by too: the compiler's identity, its words and the flags).
std::string runtime_key(const std::string& toolchain);

// Why the library could not be had: a file kdt could not write or use
// (`message`), or the compiler's failure on the library's sources (`built`,
// with its output in `log`; an Interrupted result carries kdt's signal).
struct RuntimeFailure {
  std::string message;
  ProcessResult built;
  std::string log;
};

// Finds library `key` in `cache`, or builds it in WORK_DIR/runtime (and
// stores it; without a usable cache it is used from there). False, with
// `failure`, when it can be neither found nor built.
bool prepare_runtime(const CacheDir& cache, const std::string& key, const std::vector<std::string>& cxx,
                     const std::vector<std::string>& flags, const std::string& identity, const std::string& work_dir,
                     RuntimeLibrary& out, RuntimeFailure& failure);

// The compiler's arguments that build a kernel against `library`.
std::vector<std::string> runtime_arguments(const RuntimeLibrary& library);

}  // namespace kdt
