// `kdt run FILE.kd [...]` (cli.md): the interpretation path end to end.
#pragma once

#include <string>
#include <vector>

namespace kdt {

// `args` are the arguments after `run`; returns the exit status.
int run_main(const std::vector<std::string>& args);

}  // namespace kdt
