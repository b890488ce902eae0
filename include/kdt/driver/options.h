// The command lines of `kdt`, `kdt run` and `kdt lsp` (cli.md): one parser,
// Boost.Program_options, with the options they share defined once.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "kdt/diag/engine.h"
#include "kdt/diag/render.h"
#include "kdt/source/dtype.h"
#include "kdt/limits.h"

namespace kdt {

enum class EmitKind { Check, Ast, Ir, DischargedIr, Cpp, CApi, XlaFfi, Cuda, CudaXlaFfi, Ptx };

struct Options {
  std::string input;
  EmitKind emit = EmitKind::Check;
  // The caller takes the lowered module after the front end (take_module:
  // kdt run, kdt build), so the DMA-protocol checks keep the whole module
  // even for EmitKind::Check.
  bool keep_lowered = false;
  std::string output = "-";
  std::string kernel;
  std::map<std::string, int64_t> defines;
  std::map<std::string, DType> type_defines;  // -D T=f32 (a `type` alias)
  std::vector<std::string> include_dirs;
  bool write_depfile = false;  // -MD
  std::string depfile;         // -MF
  std::string dep_target;      // -MT
  bool phony_targets = false;  // -MP
  std::string arch = "sm_90";
  int threads = 128;
  bool cuda_debug = false;  // --cuda-debug
  bool cuda_tf32 = false;   // --cuda-tf32
  bool harness = false;
  std::string devices = "simulated";  // --devices: simulated or mpi (issue 20)
  bool checks = true;
  bool flush_subnormal_adds = false;  // --flush-subnormal-adds (issue 19, item 6)
  std::string dma_mode = "on_wait";
  std::string dma_order = "fifo";
  std::string program_order = "forward";
  bool run_defaults_given = false;  // --dma-mode, --dma-order or --program-order on the command line
  std::optional<std::string> explain;
  DiagFormat diag_format = DiagFormat::Text;
  std::string diag_file;
  std::string color = "auto";
  WarningPolicy warnings;  // -Werror, -w, -Wno-CODE, -Werror=CODE, -Wall ...
  bool static_dma_checks = true;  // section 18's analysis (--no-static-dma-checks turns it off)
  Limits limits;  // --max-nesting, --max-include-depth, ...
  bool help = false;
  bool version = false;
};

struct ParseResult {
  bool ok = true;
  std::string error;  // for exit status 2
};

// `kdt [OPTIONS] FILE`.
ParseResult parse_options(const std::vector<std::string>& args, Options& out);
// Whether A names a CUDA arch kdt accepts: sm_ and 2-3 digits, optionally a or f (sm_90a).
bool valid_cuda_arch(const std::string& a);

std::string help_text();

// `kdt lsp [OPTIONS]`: the Source and Limits groups, --stdio and -h.
bool parse_lsp_options(const std::vector<std::string>& args, Options& out, std::string& error);
std::string lsp_help_text();

// The one command-line parser of `kdt`, `kdt run` and `kdt lsp`. The
// options more than one subcommand takes are defined once, in groups; each
// subcommand's parser adds the groups it takes (in the order its --help
// lists them) and its own options, and reads the groups back into Options.
enum class OptionGroup {
  Kernel,       // --kernel NAME
  Source,       // -D NAME=VALUE, -I DIR
  RunModel,     // --no-checks, --dma-mode, --dma-order, --program-order
  Diagnostics,  // --diagnostics-format, --diagnostics-file, --color, -Werror, -w, --no-static-dma-checks
  Limits,       // --max-nesting=N, ... (limit_flags())
};
void add_option_group(boost::program_options::options_description& desc, OptionGroup group);
// Reads `group`'s options from `vm` into `out`; false (with `error`) for a bad value.
bool read_option_group(const boost::program_options::variables_map& vm, OptionGroup group, Options& out,
                       std::string& error);

// --diagnostics-format and --diagnostics-file wherever they stand in `args`,
// read before the parse so that its own errors come in the format asked for.
void read_diagnostics_options_early(const std::vector<std::string>& args, Options& out);

// Runs Boost.Program_options over `args` (GCC-style -Werror, -MD... of
// `desc` accepted) without abbreviation guessing; on failure sets `error`.
// With `unrecognized`, unknown options and positional arguments are put
// there (as written) instead of failing.
bool parse_command_line(const std::vector<std::string>& args, const boost::program_options::options_description& desc,
                        const boost::program_options::positional_options_description* positional,
                        boost::program_options::variables_map& vm, std::string& error,
                        std::vector<std::string>* unrecognized = nullptr);

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
