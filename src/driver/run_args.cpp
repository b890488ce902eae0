#include "driver/run_args.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>

#include "kdt/driver/run.h"
#include "kdt/runtime/kdt_harness.h"

namespace kdt {

namespace po = boost::program_options;

std::string run_options_help() {
  return "  --input NAME=PATH.npy       an in/inout parameter's value from a .npy file\n"
         "  --input NAME=VALUE          a scalar parameter's value (exactly of its dtype)\n"
         "  --random NAME               fill parameter NAME from the seeded generator (may be repeated)\n"
         "  --random-all                fill every parameter without an --input from the generator\n"
         "  --output-dir DIR            where out/inout parameters are written (default .)\n"
         "  --seed N                    seed for generated inputs and the shuffle orders (default 0)\n"
         "  --cxx COMPILER              the C++ compiler, split into words (default $CXX, else c++)\n"
         "  --cxxflags=FLAGS            more flags for the C++ compiler (may be repeated)\n"
         "  --portable                  compile for any CPU of the host's kind, not -march=native\n"
         "  --timeout SECONDS           stop the kernel if it runs longer (default: no limit)\n"
         "  -j N, --jobs N              threads for the programs (default: the cores available); results\n"
         "                              and diagnostics are those of -j 1\n"
         "  -g                          compile with debug information and without optimisation (-g -O0):\n"
         "                              breakpoints and steps on KD lines\n"
         "  --gdb                       run the kernel under gdb with its inputs (implies -g); outputs are\n"
         "                              written if it runs to the end\n"
         "  --gdb-args=ARGS             more arguments for gdb (a batch session's commands), split into words\n"
         "  --mpi                       each device an MPI rank: compiled with mpicxx's flags, started with\n"
         "                              mpirun on this machine (docs/distributed.md)\n"
         "  -n N                        with --mpi: the number of ranks, the kernel's device count (default)\n";
}

std::string run_help_text() {
  return "Usage: kdt run FILE.kd [OPTIONS]\n"
         "Emits C++ for the kernel, compiles it (cached by content hash), runs it on .npy inputs and\n"
         "writes each out/inout parameter as DIR/NAME.npy. Every in/inout parameter and scalar needs\n"
         "an --input, or --random NAME / --random-all for generated data.\n\n"
         "Options:\n" +
         run_options_help() +
         "  --kernel NAME               the kernel to run (default: the first)\n"
         "  -D NAME=VALUE               override a `const`\n"
         "  -I DIR                      add an include search directory\n"
         "  --no-checks                 leave the run-time checks out\n"
         "  --dma-mode=eager|on_wait    when DMA data moves (default on_wait)\n"
         "  --dma-order=fifo|lifo|shuffle   which DMA a wait retires (default fifo)\n"
         "  --program-order=forward|reverse|shuffle   order of a device's programs (default forward)\n"
         "  --flush-subnormal-adds      f32 add=true DMAs into @global flush subnormals, as on the GPU\n"
         "  --diagnostics-format=text|json|sarif, --diagnostics-file=PATH, --color=WHEN\n"
         "  -Werror, -w, --max-...=N    as for kdt (see kdt --help)\n"
         "  -h, --help                  print this help and exit\n\n"
         "Exit status: 0 success, 1 errors in the input or a failed run-time check, 2 bad command line,\n"
         "unreadable file or a failed or timed-out run, 3 internal error, 130/143 interrupted by\n"
         "SIGINT/SIGTERM. See man kdt(1).\n";
}

namespace {

// The option groups of kdt (options.h) that kdt run takes.
constexpr OptionGroup kRunGroups[] = {OptionGroup::Kernel, OptionGroup::Source, OptionGroup::RunModel,
                                      OptionGroup::Diagnostics, OptionGroup::Limits};

}  // namespace

bool parse_run_args(const std::vector<std::string>& raw, RunArgs& out, std::string& error) {
  // Usage errors come in the diagnostics format asked for.
  read_diagnostics_options_early(raw, out.common);
  for (const std::string& a : raw) {
    if (a == "--help" || a == "-h") {
      out.help = true;
      return true;
    }
  }
  // `--cxxflags -O0` would read -O0 as an option: take the next word as its value (--gdb-args too).
  std::vector<std::string> args;
  for (size_t i = 0; i < raw.size(); ++i) {
    if ((raw[i] == "--cxxflags" || raw[i] == "--gdb-args") && i + 1 < raw.size()) {
      args.push_back(raw[i] + "=" + raw[i + 1]);
      ++i;
    } else {
      args.push_back(raw[i]);
    }
  }
  // What kdt run shares with kdt, then its own options.
  po::options_description d("kdt run options");
  for (OptionGroup group : kRunGroups) add_option_group(d, group);
  // clang-format off
  d.add_options()
    ("input", po::value<std::vector<std::string>>()->composing(), "")
    ("random", po::value<std::vector<std::string>>()->composing(), "")
    ("random-all", po::bool_switch(), "")
    ("output-dir", po::value<std::string>(), "")
    ("seed", po::value<std::string>(), "")
    ("cxx", po::value<std::string>(), "")
    ("cxxflags", po::value<std::vector<std::string>>()->composing(), "")
    ("portable", po::bool_switch(), "")
    ("timeout", po::value<std::string>(), "")
    ("jobs,j", po::value<std::string>(), "")
    (",g", po::bool_switch(), "")
    ("gdb", po::bool_switch(), "")
    ("gdb-args", po::value<std::string>(), "")
    ("mpi", po::bool_switch(), "")
    (",n", po::value<std::string>(), "")
    ("file", po::value<std::string>(), "");
  // clang-format on
  po::positional_options_description positional;
  positional.add("file", 1);
  po::variables_map vm;
  if (!parse_command_line(args, d, &positional, vm, error)) return false;
  if (!vm.count("file")) {
    error = "no input file";
    return false;
  }
  out.common.input = vm["file"].as<std::string>();
  for (OptionGroup group : kRunGroups) {
    if (!read_option_group(vm, group, out.common, error)) return false;
  }
  if (vm.count("input")) {
    for (const std::string& v : vm["input"].as<std::vector<std::string>>()) {
      size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0) {
        error = "--input expects NAME=PATH.npy or NAME=VALUE, got '" + v + "'";
        return false;
      }
      std::string name = v.substr(0, eq);
      for (const auto& [n, unused] : out.inputs) {
        if (n == name) {
          error = "--input " + name + " is given twice; give each parameter one input";
          return false;
        }
      }
      out.inputs.emplace_back(name, v.substr(eq + 1));
    }
  }
  if (vm.count("random")) {
    for (const std::string& name : vm["random"].as<std::vector<std::string>>()) {
      for (const std::string& n : out.random) {
        if (n == name) {
          error = "--random " + name + " is given twice";
          return false;
        }
      }
      out.random.push_back(name);
    }
  }
  out.random_all = vm["random-all"].as<bool>();
  if (vm.count("output-dir")) out.output_dir = vm["output-dir"].as<std::string>();
  if (vm.count("seed")) {
    std::string v = vm["seed"].as<std::string>();
    bool digits = !v.empty() && v.size() <= 20;
    for (char c : v) digits = digits && c >= '0' && c <= '9';
    errno = 0;
    unsigned long long seed = digits ? std::strtoull(v.c_str(), nullptr, 10) : 0;
    if (!digits || errno == ERANGE) {
      error = "invalid value '" + v + "' for --seed; expected a whole number from 0 to 18446744073709551615";
      return false;
    }
    out.seed = seed;
  }
  if (vm.count("cxx")) out.cxx = vm["cxx"].as<std::string>();
  if (vm.count("cxxflags")) out.cxxflags = vm["cxxflags"].as<std::vector<std::string>>();
  out.portable = vm["portable"].as<bool>();
  out.gdb = vm["gdb"].as<bool>();
  out.debug = vm["-g"].as<bool>() || out.gdb;
  if (vm.count("gdb-args")) {
    if (!out.gdb) {
      error = "--gdb-args applies to --gdb";
      return false;
    }
    out.gdb_args = vm["gdb-args"].as<std::string>();
  }
  if (vm.count("timeout")) {
    std::string v = vm["timeout"].as<std::string>();
    char* end = nullptr;
    double t = v.empty() ? 0 : std::strtod(v.c_str(), &end);
    if (v.empty() || *end || !std::isfinite(t) || t <= 0 || t > 1e7 || std::isspace(static_cast<unsigned char>(v[0]))) {
      error = "invalid value '" + v + "' for --timeout; expected a positive number of seconds";
      return false;
    }
    out.timeout_s = t;
    out.timeout_text = v;
  }
  if (vm.count("jobs")) {
    std::string v = vm["jobs"].as<std::string>();
    bool digits = !v.empty() && v.size() <= 4;
    for (char c : v) digits = digits && c >= '0' && c <= '9';
    int jobs = digits ? std::atoi(v.c_str()) : 0;
    if (jobs < 1 || jobs > 4096) {
      error = "invalid value '" + v + "' for --jobs; expected a number of threads from 1 to 4096";
      return false;
    }
    out.jobs = jobs;
  }
  out.mpi = vm["mpi"].as<bool>();
  if (vm.count("-n")) {
    std::string v = vm["-n"].as<std::string>();
    bool digits = !v.empty() && v.size() <= 6;
    for (char c : v) digits = digits && c >= '0' && c <= '9';
    out.ranks = digits ? std::atoi(v.c_str()) : 0;
    if (!out.mpi) {
      error = "-n applies to --mpi";
      return false;
    }
    if (out.ranks < 1) {
      error = "invalid value '" + v + "' for -n; expected a number of MPI ranks";
      return false;
    }
  }
  if (out.mpi && out.gdb) {
    error = "--gdb does not apply to --mpi (start gdb on each rank with mpirun instead: docs/distributed.md)";
    return false;
  }
  return true;
}

namespace {

template <class T>
std::string scalar_problem(const std::string& text) {
  T value{};
  std::string why;
  return kdt_rt::detail::parse_scalar_text<T>(text, value, why) ? "" : why;
}

std::string scalar_problem(DType t, const std::string& text) {
  switch (t) {
    case DType::Bool: return scalar_problem<bool>(text);
    case DType::I8: return scalar_problem<int8_t>(text);
    case DType::I16: return scalar_problem<int16_t>(text);
    case DType::I32: return scalar_problem<int32_t>(text);
    case DType::I64: return scalar_problem<int64_t>(text);
    case DType::U8: return scalar_problem<uint8_t>(text);
    case DType::U16: return scalar_problem<uint16_t>(text);
    case DType::U32: return scalar_problem<uint32_t>(text);
    case DType::U64: return scalar_problem<uint64_t>(text);
    case DType::F16: return scalar_problem<kdt_rt::f16>(text);
    case DType::BF16: return scalar_problem<kdt_rt::bf16>(text);
    case DType::F32: return scalar_problem<float>(text);
    case DType::F64: return scalar_problem<double>(text);
  }
  return "";
}

enum class Kind { In, Inout, Out, Scalar };

struct Param {
  Kind kind;
  DType dtype;
};

// Levenshtein distance, for "did you mean".
size_t distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string check_run_inputs(const RunArgs& args, const ir::Kernel& kernel) {
  std::map<std::string, Param> params;
  std::vector<std::string> order;
  for (auto [is_ref, i] : kernel.params) {
    if (is_ref) {
      const ir::Ref& r = kernel.refs[i];
      Kind kind = !r.is_output ? Kind::In : r.starts_uninitialized ? Kind::Out : Kind::Inout;
      params[r.kd_name] = {kind, r.dtype};
      order.push_back(r.kd_name);
    } else {
      params[kernel.scalars[i].kd_name] = {Kind::Scalar, kernel.scalars[i].dtype};
      order.push_back(kernel.scalars[i].kd_name);
    }
  }
  auto lookup = [&](const std::string& flag, const std::string& name, std::string& problem) -> const Param* {
    auto it = params.find(name);
    if (it == params.end()) {
      std::string list, guess;
      for (const std::string& n : order) {
        list += (list.empty() ? "" : ", ") + n;
        if (guess.empty() && distance(n, name) <= std::max<size_t>(1, name.size() / 3)) guess = n;
      }
      problem = flag + " " + name + ": kernel `" + kernel.kd_name + "` has no parameter `" + name + "`" +
                (guess.empty() ? "" : "; did you mean `" + guess + "`?") +
                (list.empty() ? " (it has none)" : " (its parameters: " + list + ")");
      return nullptr;
    }
    if (it->second.kind == Kind::Out) {
      problem = flag + " " + name + ": `" + name +
                "` is an `out` parameter, written by the kernel and not read; it takes no input";
      return nullptr;
    }
    return &it->second;
  };
  std::string problem;
  for (const auto& [name, value] : args.inputs) {
    const Param* p = lookup("--input", name, problem);
    if (!p) return problem;
    if (p->kind == Kind::Scalar) {
      if (std::string why = scalar_problem(p->dtype, value); !why.empty()) {
        return "--input " + name + "=" + value + ": '" + value + "' " + why + " for scalar `" + name + "` (" +
               std::string(dtype_name(p->dtype)) + ")";
      }
      continue;
    }
    struct stat st;
    if (::stat(value.c_str(), &st) != 0 || ::access(value.c_str(), R_OK) != 0) {
      return "--input " + name + "=" + value + ": cannot read '" + value + "': " + std::strerror(errno);
    }
    if (S_ISDIR(st.st_mode)) return "--input " + name + "=" + value + ": '" + value + "' is a directory, not a .npy file";
  }
  for (const std::string& name : args.random) {
    if (!lookup("--random", name, problem)) return problem;
    for (const auto& [n, unused] : args.inputs) {
      if (n == name) return "`" + name + "` has both --input and --random; give one of them";
    }
  }
  std::string missing;
  for (const std::string& name : order) {
    if (params[name].kind == Kind::Out || args.random_all) continue;
    bool given = false;
    for (const auto& [n, unused] : args.inputs) given = given || n == name;
    for (const std::string& n : args.random) given = given || n == name;
    if (!given) missing += (missing.empty() ? "`" : ", `") + name + "`";
  }
  if (!missing.empty()) {
    return "no input for " + missing + " of kernel `" + kernel.kd_name +
           "`: give --input NAME=PATH.npy (NAME=VALUE for a scalar), or --random NAME or --random-all for "
           "generated data";
  }
  return "";
}

}  // namespace kdt
