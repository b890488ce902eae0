// `kdt build FILE.kd --emit=c-api|xla-ffi [...]` (issue 18): a kernel file
// as a shared library with the C ABI or XLA FFI handlers, compiled once into
// kdt's cache (as `kdt run` compiles its programs); prints its path.
#pragma once

#include <string>
#include <vector>

namespace kdt {

// `args` are the arguments after `build`; returns the exit status.
int build_main(const std::vector<std::string>& args);

// `kdt build --help`.
std::string build_help_text();

}  // namespace kdt
