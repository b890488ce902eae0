// `kdt run FILE.kd [...]` (cli.md): the interpretation path end to end.
#pragma once

#include <string>
#include <vector>

namespace kdt {

// `args` are the arguments after `run`; returns the exit status.
int run_main(const std::vector<std::string>& args);

// `kdt run --help`.
std::string run_help_text();

// The options only `kdt run` has, one per line, for `kdt --help`.
std::string run_options_help();

}  // namespace kdt
