#include "kdt/driver/options.h"

#include "kdt/driver/run.h"

#include <cctype>
#include <boost/program_options.hpp>
#include <deque>
#include <sstream>

namespace kdt {

// sm_ and a compute capability (sm_90, sm_90a, sm_100f): the value lands in
// emitted code and in nvcc's command line, so nothing else passes.
bool valid_cuda_arch(const std::string& a) {
  size_t digits = 0;
  while (3 + digits < a.size() && std::isdigit(static_cast<unsigned char>(a[3 + digits]))) ++digits;
  size_t rest = a.size() - 3 - digits;
  return a.rfind("sm_", 0) == 0 && digits >= 2 && digits <= 3 &&
         (rest == 0 || (rest == 1 && (a.back() == 'a' || a.back() == 'f')));
}

namespace po = boost::program_options;

namespace {

// `kdt`'s options, in the order --help lists them.
po::options_description describe() {
  po::options_description d("Options");
  // clang-format off
  d.add_options()
    ("help,h", "print this help and exit")
    ("version", "print the version and exit")
    ("emit", po::value<std::string>()->value_name("KIND"),
     "what to produce: check (default), ast, ir, discharged-ir, cpp, c-api, xla-ffi, cuda, cuda-xla-ffi, ptx")
    (",o", po::value<std::string>()->value_name("PATH"), "output file (default: standard output; - for it)");
  add_option_group(d, OptionGroup::Kernel);
  add_option_group(d, OptionGroup::Source);
  d.add_options()
    ("MD", po::bool_switch(), "write a Make-style depfile of every file read")
    ("MF", po::value<std::string>()->value_name("PATH"), "the depfile's path (with -MD)")
    ("MT", po::value<std::string>()->value_name("TARGET"), "the depfile's target (default: the output)")
    ("MP", po::bool_switch(), "add a phony target for every dependency")
    ("arch", po::value<std::string>()->value_name("SM"), "compiled-path target: sm_80, sm_90, sm_90a (wgmma), ... (default sm_90)")
    ("threads", po::value<int>()->value_name("N"), "threads per block on the compiled path (default 128)")
    ("cuda-debug", po::bool_switch(), "compiled path: bound every wait; a hang becomes a trap naming its KD statement")
    ("cuda-tf32", po::bool_switch(), "compiled path: `dot` over f32 on tensor cores in TF32 (exact f32 otherwise)")
    ("harness", po::bool_switch(), "with --emit=cpp: add a main() that reads and writes .npy files")
    ("devices", po::value<std::string>()->value_name("MODE"),
     "simulated (default: every device a thread of one process); with --emit=cpp, mpi (each device an MPI rank; "
     "build with mpicxx, run with mpirun -n N); with --emit=cuda, nvshmem (each device an NVSHMEM PE)");
  add_option_group(d, OptionGroup::RunModel);
  d.add_options()
    ("explain", po::value<std::string>()->value_name("CODE"), "explain a diagnostic code, with an example");
  // clang-format on
  add_option_group(d, OptionGroup::Diagnostics);
  add_option_group(d, OptionGroup::Limits);
  return d;
}

// GCC-style single-dash long options (-MD, ...) are rewritten to their
// double-dash spelling before Boost sees them, and every -W flag (-Werror,
// -Wno-CODE, -Werror=CODE, -Wall) becomes --warning=FLAG, in order.
std::vector<std::string> normalise(const std::vector<std::string>& args, const po::options_description& desc) {
  std::vector<std::string> out;
  for (const std::string& a : args) {
    bool gcc_style = a == "-MD" || a == "-MP" || a == "-MF" || a == "-MT";
    if (gcc_style && desc.find_nothrow(a.substr(1), false)) out.push_back("-" + a);
    else if (a.size() > 2 && a.rfind("-W", 0) == 0 && desc.find_nothrow("warning", false)) out.push_back("--warning=" + a.substr(2));
    else if (a == "--Werror" && desc.find_nothrow("warning", false)) out.push_back("--warning=error");
    else out.push_back(a);
  }
  return out;
}

// -D's one rule, in every subcommand: an identifier, `=`, a 64-bit integer
// (decimal, 0x hexadecimal or 0 octal) for a `const`, or a dtype name for a
// `type` alias. `-D NAME` alone is `NAME=1`, as compilers read it.
bool parse_define(const std::string& text, Options& out, std::string& error) {
  size_t eq = text.find('=');
  std::string name = text.substr(0, eq);
  bool name_ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) name_ok = name_ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!name_ok) {
    error = "-D expects NAME=VALUE or NAME, got '" + text + "'";
    return false;
  }
  std::string value = eq == std::string::npos ? "1" : text.substr(eq + 1);
  if (std::optional<DType> dtype = dtype_from_name(value)) {
    out.type_defines[name] = *dtype;
    return true;
  }
  try {
    size_t used = 0;
    long long v = std::stoll(value, &used, 0);
    if (used != value.size()) throw std::invalid_argument(value);
    out.defines[name] = v;
  } catch (const std::exception&) {
    error = "-D " + name + ": '" + value + "' is neither a 64-bit integer nor a dtype";
    return false;
  }
  return true;
}

template <class T>
bool pick(const std::string& value, const std::map<std::string, T>& choices, T& out, const std::string& option,
          std::string& error) {
  auto it = choices.find(value);
  if (it == choices.end()) {
    error = "invalid value '" + value + "' for --" + option + "; expected";
    for (const auto& [name, unused] : choices) error += " " + name;
    return false;
  }
  out = it->second;
  return true;
}

// How the help of a limit flag shows its default: the number, or the number
// and the same in KiB, MiB or GiB ("16777216 = 16 MiB").
enum class DefaultText { Number, WithUnit };

// A limit flag whose help ends in its default, read from Limits' initialiser
// (include/kdt/limits.h) so that the two cannot drift apart:
// "largest source file, in bytes (default 16777216 = 16 MiB)".
LimitFlag limit_flag(const char* name, int64_t Limits::*field, int64_t max, const char* what,
                     DefaultText shown = DefaultText::Number) {
  // LimitFlag::help is a C string: the texts live here, built once, and a
  // deque keeps them in place as it grows.
  static std::deque<std::string> helps;
  const int64_t value = Limits{}.*field;
  std::string help = std::string(what) + " (default " + std::to_string(value);
  if (shown == DefaultText::WithUnit) {
    static const char* const units[] = {"GiB", "MiB", "KiB"};
    for (int i = 0; i < 3; ++i) {
      const int64_t unit = int64_t{1} << (30 - 10 * i);
      if (value % unit == 0) {
        help += " = " + std::to_string(value / unit) + " " + units[i];
        break;
      }
    }
  }
  helps.push_back(help + ")");
  return {name, field, max, helps.back().c_str()};
}

}  // namespace

const std::vector<LimitFlag>& limit_flags() {
  // The maxima keep the deepest input kdt accepts within its 512 MiB stack
  // (docs/reliability.md, "Limits", has the measurements); the others are
  // sanity bounds.
  static const std::vector<LimitFlag> flags = {
      limit_flag("max-nesting", &Limits::max_nesting, 5'000,
                 "deepest nesting of brackets, blocks, prefix operators, ?: and else-if chains"),
      limit_flag("max-expression-terms", &Limits::max_expression_terms, 50'000,
                 "most binary operators and indexings in one statement"),
      limit_flag("max-include-depth", &Limits::max_include_depth, 10'000, "deepest chain of nested includes"),
      limit_flag("max-source-bytes", &Limits::max_source_bytes, int64_t{1} << 40, "largest source file, in bytes",
                 DefaultText::WithUnit),
      limit_flag("max-literal-length", &Limits::max_literal_length, int64_t{1} << 30,
                 "longest number or string literal, in bytes"),
      limit_flag("max-kernels", &Limits::max_kernels, 1'000'000, "most kernels in one program"),
      limit_flag("max-function-instances", &Limits::max_function_instances, 10'000'000,
                 "most instances of KD functions in one program (one per set of generic values)"),
      limit_flag("max-tile-bytes", &Limits::max_tile_bytes, int64_t{1} << 40, "largest tile value, in bytes"),
      limit_flag("max-scratch-bytes", &Limits::max_scratch_bytes, int64_t{1} << 40,
                 "most scratch per program of a kernel, in bytes", DefaultText::WithUnit),
      limit_flag("max-ref-bytes", &Limits::max_ref_bytes, int64_t{1} << 50,
                 "largest ref (parameter or scratch buffer), in bytes", DefaultText::WithUnit),
      limit_flag("max-devices", &Limits::max_devices, 65'536, "most devices of a kernel"),
      limit_flag("max-programs", &Limits::max_programs, int64_t{1} << 40,
                 "most programs of one launch, grid size times devices"),
  };
  return flags;
}

bool set_limit(const LimitFlag& flag, const std::string& value, Limits& limits, std::string& error) {
  // At most 18 digits: std::stoll cannot overflow, and every maximum is far below 10^18.
  bool digits = !value.empty() && value.size() <= 18;
  for (char c : value) digits = digits && c >= '0' && c <= '9';
  int64_t v = digits ? std::stoll(value) : 0;
  if (!digits || v < 1 || v > flag.max) {
    error = "invalid value '" + value + "' for --" + flag.name + "; expected a whole number from 1 to " +
            std::to_string(flag.max);
    return false;
  }
  limits.*flag.field = v;
  return true;
}

std::string help_text() {
  std::ostringstream s;
  s << "Usage: kdt [OPTIONS] FILE.kd          transpile or check a KD file (- for standard input)\n"
       "       kdt run FILE.kd [OPTIONS]       emit C++, compile it and run it on .npy files\n"
       "       kdt build FILE.kd [OPTIONS]     compile its kernels into a shared library (C ABI, XLA FFI)\n"
       "       kdt lsp [-I DIR] [-D NAME=VALUE] [--max-...=N] [--stdio]\n"
       "                                       a Language Server Protocol server over stdio\n\n"
    << describe()
    << "\nkdt run options (besides --kernel, -D, -I, the --max-* limits, --no-checks, --dma-mode,\n"
       "--dma-order, --program-order and the diagnostics options above):\n"
    << run_options_help()
    << "\nkdt build options (besides --kernel, -D, -I, --no-checks, --cxx, --cxxflags, --portable and the\n"
       "diagnostics options; see kdt build --help):\n"
       "  --emit=c-api|xla-ffi|cuda-xla-ffi   the binding of the shared library (default c-api)\n"
       "  --xla-include DIR           the XLA FFI headers, for the xla-ffi bindings (jax.ffi.include_dir())\n"
       "  --arch SM                   for cuda-xla-ffi (nvcc): the GPU architecture (default sm_90)\n"
    << "\nExit status: 0 success (warnings allowed), 1 errors in the input, 2 bad command line or\n"
       "unreadable file, 3 internal error. See man kdt(1) for every option and diagnostic code.\n";
  return s.str();
}

void add_option_group(po::options_description& d, OptionGroup group) {
  // clang-format off
  switch (group) {
    case OptionGroup::Kernel:
      d.add_options()
        ("kernel", po::value<std::string>()->value_name("NAME"), "only this kernel (default: all)");
      break;
    case OptionGroup::Source:
      d.add_options()
        (",D", po::value<std::vector<std::string>>()->value_name("NAME=VALUE")->composing(), "override a `const`")
        (",I", po::value<std::vector<std::string>>()->value_name("DIR")->composing(), "add an include search directory");
      break;
    case OptionGroup::RunModel:
      d.add_options()
        ("no-checks", po::bool_switch(), "with --emit=cpp: leave the run-time checks out")
        ("dma-mode", po::value<std::string>()->value_name("MODE"), "when DMA data moves: eager or on_wait (default)")
        ("dma-order", po::value<std::string>()->value_name("ORDER"),
         "which DMA a wait retires: fifo (default), lifo or shuffle")
        ("program-order", po::value<std::string>()->value_name("ORDER"), "forward (default), reverse or shuffle")
        ("flush-subnormal-adds", po::bool_switch(),
         "f32 add=true DMAs into @global flush subnormal inputs and results to zero, as every GPU route does");
      break;
    case OptionGroup::Diagnostics:
      d.add_options()
        ("diagnostics-format", po::value<std::string>()->value_name("FORMAT"), "text (default), json or sarif")
        ("diagnostics-file", po::value<std::string>()->value_name("PATH"), "write diagnostics there instead of stderr")
        ("color", po::value<std::string>()->value_name("WHEN"), "colour text diagnostics: auto (default), always, never")
        ("warning", po::value<std::vector<std::string>>()->composing()->value_name("FLAG"),
         "a -W flag: -Werror (warnings as errors), -Wall; per warning -Wno-unused-binding, "
         "-Werror=asm-cross-lane, -Wno-error=unused-binding and the like")
        (",w", po::bool_switch(), "silence warnings")
        ("no-static-dma-checks", po::bool_switch(),
         "skip the static DMA-protocol checks (dma-protocol); the run-time checks still decide");
      break;
    case OptionGroup::Limits:
      for (const LimitFlag& flag : limit_flags()) {
        d.add_options()(flag.name, po::value<std::string>()->value_name("N"), flag.help);
      }
      break;
  }
  // clang-format on
}

bool read_option_group(const po::variables_map& vm, OptionGroup group, Options& out, std::string& error) {
  switch (group) {
    case OptionGroup::Kernel:
      if (vm.count("kernel")) out.kernel = vm["kernel"].as<std::string>();
      return true;
    case OptionGroup::Source:
      if (vm.count("-D")) {
        for (const std::string& d : vm["-D"].as<std::vector<std::string>>()) {
          if (!parse_define(d, out, error)) return false;
        }
      }
      if (vm.count("-I")) out.include_dirs = vm["-I"].as<std::vector<std::string>>();
      return true;
    case OptionGroup::RunModel:
      out.checks = !vm["no-checks"].as<bool>();
      out.flush_subnormal_adds = vm["flush-subnormal-adds"].as<bool>();
      out.run_defaults_given = vm.count("dma-mode") || vm.count("dma-order") || vm.count("program-order");
      if (vm.count("dma-mode")) {
        static const std::map<std::string, std::string> modes = {{"eager", "eager"}, {"on_wait", "on_wait"}};
        if (!pick(vm["dma-mode"].as<std::string>(), modes, out.dma_mode, "dma-mode", error)) return false;
      }
      if (vm.count("dma-order")) {
        static const std::map<std::string, std::string> orders = {
            {"fifo", "fifo"}, {"lifo", "lifo"}, {"shuffle", "shuffle"}};
        if (!pick(vm["dma-order"].as<std::string>(), orders, out.dma_order, "dma-order", error)) return false;
      }
      if (vm.count("program-order")) {
        static const std::map<std::string, std::string> orders = {
            {"forward", "forward"}, {"reverse", "reverse"}, {"shuffle", "shuffle"}};
        if (!pick(vm["program-order"].as<std::string>(), orders, out.program_order, "program-order", error)) {
          return false;
        }
      }
      return true;
    case OptionGroup::Diagnostics:
      if (vm.count("diagnostics-format")) {
        static const std::map<std::string, DiagFormat> formats = {
            {"text", DiagFormat::Text}, {"json", DiagFormat::Json}, {"sarif", DiagFormat::Sarif}};
        if (!pick(vm["diagnostics-format"].as<std::string>(), formats, out.diag_format, "diagnostics-format", error)) {
          return false;
        }
      }
      if (vm.count("diagnostics-file")) out.diag_file = vm["diagnostics-file"].as<std::string>();
      if (vm.count("color")) {
        static const std::map<std::string, std::string> whens = {
            {"auto", "auto"}, {"always", "always"}, {"never", "never"}};
        if (!pick(vm["color"].as<std::string>(), whens, out.color, "color", error)) return false;
      }
      if (vm.count("warning")) {
        for (const std::string& flag : vm["warning"].as<std::vector<std::string>>()) {
          if (!out.warnings.apply(flag, error)) return false;
        }
      }
      out.warnings.silence = vm["-w"].as<bool>();
      out.static_dma_checks = !vm["no-static-dma-checks"].as<bool>();
      return true;
    case OptionGroup::Limits:
      for (const LimitFlag& flag : limit_flags()) {
        if (vm.count(flag.name) && !set_limit(flag, vm[flag.name].as<std::string>(), out.limits, error)) return false;
      }
      return true;
  }
  return true;
}

void read_diagnostics_options_early(const std::vector<std::string>& args, Options& out) {
  for (size_t i = 0; i < args.size(); ++i) {
    for (const char* name : {"--diagnostics-format", "--diagnostics-file"}) {
      std::string prefix = std::string(name) + "=";
      std::string value;
      if (args[i].rfind(prefix, 0) == 0) value = args[i].substr(prefix.size());
      else if (args[i] == name && i + 1 < args.size()) value = args[i + 1];
      else continue;
      if (std::string(name) == "--diagnostics-format") {
        if (value == "json") out.diag_format = DiagFormat::Json;
        else if (value == "sarif") out.diag_format = DiagFormat::Sarif;
      } else {
        out.diag_file = value;
      }
    }
  }
}

bool parse_command_line(const std::vector<std::string>& args, const po::options_description& desc,
                        const po::positional_options_description* positional, po::variables_map& vm,
                        std::string& error, std::vector<std::string>* unrecognized) {
  try {
    po::command_line_parser parser(normalise(args, desc));
    parser.options(desc).style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing);
    if (positional) parser.positional(*positional);
    if (unrecognized) parser.allow_unregistered();
    po::parsed_options parsed = parser.run();
    if (unrecognized) *unrecognized = po::collect_unrecognized(parsed.options, po::include_positional);
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const po::error& e) {
    error = e.what();
    return false;
  }
  return true;
}

ParseResult parse_options(const std::vector<std::string>& args, Options& out) {
  ParseResult result;
  // Errors in the command line itself are reported in the requested format,
  // wherever --diagnostics-format and --diagnostics-file appear.
  read_diagnostics_options_early(args, out);
  po::options_description desc = describe();
  po::positional_options_description positional;
  positional.add("input", 1);
  po::options_description all;
  all.add(desc).add_options()("input", po::value<std::string>());
  po::variables_map vm;
  if (!parse_command_line(args, all, &positional, vm, result.error)) {
    result.ok = false;
    return result;
  }
  auto fail = [&](std::string message) {
    result.ok = false;
    result.error = std::move(message);
    return result;
  };
  auto read = [&](OptionGroup group) { return read_option_group(vm, group, out, result.error); };
  out.help = vm.count("help") > 0;
  out.version = vm.count("version") > 0;
  if (vm.count("input")) out.input = vm["input"].as<std::string>();
  if (vm.count("emit")) {
    static const std::map<std::string, EmitKind> kinds = {
        {"check", EmitKind::Check}, {"ast", EmitKind::Ast},   {"ir", EmitKind::Ir},   {"discharged-ir", EmitKind::DischargedIr},
        {"cpp", EmitKind::Cpp},     {"c-api", EmitKind::CApi}, {"xla-ffi", EmitKind::XlaFfi},
        {"cuda", EmitKind::Cuda}, {"cuda-xla-ffi", EmitKind::CudaXlaFfi}, {"ptx", EmitKind::Ptx}};
    if (!pick(vm["emit"].as<std::string>(), kinds, out.emit, "emit", result.error)) return fail(result.error);
  }
  if (vm.count("-o")) out.output = vm["-o"].as<std::string>();
  if (!read(OptionGroup::Kernel) || !read(OptionGroup::Source)) return fail(result.error);
  out.write_depfile = vm["MD"].as<bool>();
  if (vm.count("MF")) out.depfile = vm["MF"].as<std::string>();
  if (vm.count("MT")) out.dep_target = vm["MT"].as<std::string>();
  out.phony_targets = vm["MP"].as<bool>();
  if (vm.count("arch")) out.arch = vm["arch"].as<std::string>();
  if (!valid_cuda_arch(out.arch)) {
    return fail("invalid value '" + out.arch + "' for --arch; expected sm_80, sm_90, ...");
  }
  out.cuda_debug = vm["cuda-debug"].as<bool>();
  out.cuda_tf32 = vm["cuda-tf32"].as<bool>();
  if (vm.count("threads")) {
    out.threads = vm["threads"].as<int>();
    if (out.threads < 1 || out.threads > 1024) return fail("--threads must be between 1 and 1024");
  }
  out.harness = vm["harness"].as<bool>();
  if (vm.count("devices")) {
    static const std::map<std::string, std::string> modes = {
        {"simulated", "simulated"}, {"mpi", "mpi"}, {"nvshmem", "nvshmem"}};
    if (!pick(vm["devices"].as<std::string>(), modes, out.devices, "devices", result.error)) return fail(result.error);
  }
  if (!read(OptionGroup::RunModel)) return fail(result.error);
  if (vm.count("explain")) out.explain = vm["explain"].as<std::string>();
  if (!read(OptionGroup::Diagnostics) || !read(OptionGroup::Limits)) return fail(result.error);
  if (out.write_depfile && out.depfile.empty()) {
    if (out.output == "-") return fail("-MD needs -MF PATH when the output is standard output");
    out.depfile = out.output + ".d";
  }
  if (!out.help && !out.version && !out.explain && out.input.empty()) return fail("no input file");
  return result;
}

// ---------------------------------------------------------------------------
// kdt lsp

std::string lsp_help_text() {
  std::ostringstream s;
  s << "Usage: kdt lsp [-I DIR] [-D NAME=VALUE] [--max-...=N] [--stdio]\n\n"
       "A Language Server Protocol server on standard input and output: it publishes the\n"
       "diagnostics of the open .kd files as they are edited (and on request), and answers\n"
       "hover (type and shape), go-to-definition, the outline, completion and quick fixes\n"
       "(the diagnostics' fix-its). See docs/editors.md.\n\n"
       "Options:\n"
       "  -I DIR                    search DIR for included files (also initializationOptions.includeDirs)\n"
       "  -D NAME=VALUE             set `const NAME` to the integer VALUE, or `type NAME` to the dtype VALUE (also initializationOptions.defines)\n";
  for (const LimitFlag& flag : limit_flags()) {
    std::string name = std::string("--") + flag.name + "=N";
    s << "  " << name << std::string(name.size() < 26 ? 26 - name.size() : 1, ' ') << flag.help << "\n";
  }
  s << "  --stdio                   accepted and ignored (the only transport)\n"
       "  -h, --help                print this help and exit\n";
  return s.str();
}

bool parse_lsp_options(const std::vector<std::string>& args, Options& out, std::string& error) {
  po::options_description d("kdt lsp options");
  add_option_group(d, OptionGroup::Source);
  add_option_group(d, OptionGroup::Limits);
  // --stdio: what most clients pass.
  d.add_options()("stdio", po::bool_switch(), "")("help,h", po::bool_switch(), "");
  po::variables_map vm;
  std::vector<std::string> unknown;
  if (!parse_command_line(args, d, nullptr, vm, error, &unknown)) return false;
  if (!unknown.empty()) {
    error = "unknown argument '" + unknown.front() +
            "' for `kdt lsp` (it takes -I DIR, -D NAME=VALUE, the --max-*=N limits and --stdio; see kdt lsp --help)";
    return false;
  }
  out.help = vm["help"].as<bool>();
  return read_option_group(vm, OptionGroup::Source, out, error) && read_option_group(vm, OptionGroup::Limits, out, error);
}

}  // namespace kdt
