// The command line of `kdt` (cli.md), parsed with Boost.Program_options.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "kdt/diag/render.h"

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
  std::optional<std::string> explain;
  DiagFormat diag_format = DiagFormat::Text;
  std::string diag_file;
  std::string color = "auto";
  bool warnings_as_errors = false;
  bool no_warnings = false;
  int max_nesting = 256;
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

}  // namespace kdt
