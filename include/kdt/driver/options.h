// The command line of `kdt` (cli.md), parsed with Boost.Program_options.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "kdt/diag/render.h"
#include "kdt/limits.h"

namespace kdt {

enum class EmitKind { Check, Ast, Ir, DischargedIr, Cpp, Cuda, Ptx };

struct Options {
  std::string input;
  EmitKind emit = EmitKind::Check;
  std::string output = "-";
  std::string kernel;
  std::map<std::string, int64_t> defines;
  std::vector<std::string> include_dirs;
  bool write_depfile = false;  // -MD
  std::string depfile;         // -MF
  std::string dep_target;      // -MT
  bool phony_targets = false;  // -MP
  std::string arch = "sm_90";
  int threads = 128;
  bool harness = false;
  bool checks = true;
  std::string dma_mode = "on_wait";
  std::string program_order = "forward";
  bool run_defaults_given = false;  // --dma-mode or --program-order on the command line
  std::optional<std::string> explain;
  DiagFormat diag_format = DiagFormat::Text;
  std::string diag_file;
  std::string color = "auto";
  bool warnings_as_errors = false;
  bool no_warnings = false;
  Limits limits;  // --max-nesting, --max-include-depth, ...
  bool help = false;
  bool version = false;
};

struct ParseResult {
  bool ok = true;
  std::string error;  // for exit status 2
};

ParseResult parse_options(const std::vector<std::string>& args, Options& out);

// Runs Boost.Program_options over `args` (GCC-style -Werror, -MD... already
// accepted) without abbreviation guessing; on failure sets `error`.
bool parse_command_line(const std::vector<std::string>& args, const boost::program_options::options_description& desc,
                        const boost::program_options::positional_options_description& positional,
                        boost::program_options::variables_map& vm, std::string& error);
std::string help_text();

// The flags that set kdt's limits, shared by `kdt`, `kdt run` and `kdt lsp`.
struct LimitFlag {
  const char* name;  // without the leading `--`
  int64_t Limits::*field;
  int64_t max;       // the largest value accepted (the smallest is 1)
  const char* help;
};
const std::vector<LimitFlag>& limit_flags();
// Sets the limit `flag` from `value`; false (with `error`) unless it is a
// whole number between 1 and the flag's maximum.
bool set_limit(const LimitFlag& flag, const std::string& value, Limits& limits, std::string& error);

}  // namespace kdt
