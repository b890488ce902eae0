// `kdt run`: emit C++ with a harness, compile it (cached by content and
// flags), run it on .npy files, and report run-time checks as diagnostics.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "kdt/discharge/discharge.h"
#include "kdt/driver/compile.h"
#include "kdt/driver/output.h"
#include "kdt/driver/run.h"
#include "kdt/emit/emit_cpp.h"
#include "kdt/ir/lower.h"
#include "kdt/runtime/kdt_runtime.h"

namespace kdt {

namespace fs = std::filesystem;
namespace po = boost::program_options;

namespace {

struct RunOptions {
  Options common;
  std::vector<std::string> inputs;
  std::string output_dir = ".";
  uint64_t seed = 0;
  std::string cxx;
};

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path cache_dir() {
  if (const char* dir = std::getenv("KDT_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "kdt";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "kdt";
  return fs::temp_directory_path() / "kdt-cache";
}

// Runs a shell command (its redirections included); returns its exit status.
int shell(const std::string& command) {
  int raw = std::system(command.c_str());
  if (raw == -1) return 127;
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

bool parse_run_options(const std::vector<std::string>& args, RunOptions& out, std::string& error) {
  po::options_description d("kdt run options");
  // clang-format off
  d.add_options()
    ("kernel", po::value<std::string>(), "")
    ("input", po::value<std::vector<std::string>>()->composing(), "")
    ("output-dir", po::value<std::string>(), "")
    (",D", po::value<std::vector<std::string>>()->composing(), "")
    (",I", po::value<std::vector<std::string>>()->composing(), "")
    ("seed", po::value<uint64_t>(), "")
    ("no-checks", po::bool_switch(), "")
    ("cxx", po::value<std::string>(), "")
    ("dma-mode", po::value<std::string>(), "")
    ("program-order", po::value<std::string>(), "")
    ("diagnostics-format", po::value<std::string>(), "")
    ("diagnostics-file", po::value<std::string>(), "")
    ("color", po::value<std::string>(), "")
    ("Werror", po::bool_switch(), "")
    (",w", po::bool_switch(), "")
    ("file", po::value<std::string>(), "");
  // clang-format on
  for (const LimitFlag& flag : limit_flags()) d.add_options()(flag.name, po::value<std::string>(), "");
  po::positional_options_description positional;
  positional.add("file", 1);
  po::variables_map vm;
  if (!parse_command_line(args, d, positional, vm, error)) return false;
  // Reuse the transpile parser for the options both share.
  std::vector<std::string> shared;
  std::vector<const char*> keys = {"kernel", "dma-mode", "program-order", "diagnostics-format", "diagnostics-file",
                                    "color"};
  for (const LimitFlag& flag : limit_flags()) keys.push_back(flag.name);
  for (const char* key : keys) {
    if (vm.count(key)) shared.push_back(std::string("--") + key + "=" + vm[key].as<std::string>());
  }
  for (const char* key : {"-D", "-I"}) {
    if (vm.count(key)) {
      for (const std::string& v : vm[key].as<std::vector<std::string>>()) {
        shared.push_back(key);
        shared.push_back(v);
      }
    }
  }
  if (vm["no-checks"].as<bool>()) shared.push_back("--no-checks");
  if (vm["Werror"].as<bool>()) shared.push_back("-Werror");
  if (vm["-w"].as<bool>()) shared.push_back("-w");
  if (!vm.count("file")) {
    error = "no input file";
    return false;
  }
  shared.push_back(vm["file"].as<std::string>());
  ParseResult parsed = parse_options(shared, out.common);
  if (!parsed.ok) {
    error = parsed.error;
    return false;
  }
  if (vm.count("input")) out.inputs = vm["input"].as<std::vector<std::string>>();
  if (vm.count("output-dir")) out.output_dir = vm["output-dir"].as<std::string>();
  if (vm.count("seed")) out.seed = vm["seed"].as<uint64_t>();
  if (vm.count("cxx")) out.cxx = vm["cxx"].as<std::string>();
  return true;
}

// A run-time failure reported by the harness, as a kdt diagnostic.
void add_runtime_diagnostic(const std::string& json_text, Compilation& c) {
  nlohmann::json j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded()) return;
  auto code = diag_code_from_name(j.value("code", ""));
  if (!code) return;
  FileId file = 1;
  SourceRange range{file, j.value("begin", 0u), j.value("end", 0u)};
  auto d = c.diags.report(*code, range, j.value("message", ""));
  for (const nlohmann::json& note : j.value("notes", nlohmann::json::array())) {
    d.note(note.value("message", ""), SourceRange{file, note.value("begin", 0u), note.value("end", 0u)});
  }
}

}  // namespace

int run_main(const std::vector<std::string>& args) {
  RunOptions options;
  std::string error;
  if (!parse_run_options(args, options, error)) return usage_error(options.common, error + " (see man kdt)");
  const Options& common = options.common;
  std::unique_ptr<Compilation> c = compile_front_end(common.input, common);
  if (!c->io_error.empty()) return usage_error(common, c->io_error);
  auto finish = [&](int status) {
    emit_diagnostics(common, c->diags.sorted(), c->sources);
    return status;
  };
  // A command-line or environment error, in one document with the
  // diagnostics found so far.
  auto fail_usage = [&](const std::string& message) {
    return usage_error(common, message, c->diags.sorted(), &c->sources);
  };
  if (!c->ok) return finish(1);
  std::string kernel = common.kernel;
  if (kernel.empty()) {
    if (c->program.kernels.empty()) {
      return fail_usage("the program has no kernel to run");
    }
    kernel = c->program.kernels.front()->name.text;
  }
  ir::Module module = lower_program(c->program, kernel);
  if (module.kernels.empty()) {
    return fail_usage("--kernel " + kernel + ": no such kernel in the program");
  }
  if (!discharge_module(module, c->diags)) return finish(1);
  CppEmitOptions cpp;
  cpp.checks = common.checks;
  cpp.harness = true;
  cpp.input_name = c->sources.file(1).path;
  std::string source = emit_cpp(module, c->sources, cpp);

  // The compile cache: keyed by the emitted text, the compiler and its flags.
  std::string cxx = options.cxx;
  if (cxx.empty()) {
    const char* env = std::getenv("CXX");
    cxx = env && *env ? env : "c++";
  }
  const std::string flags = "-std=c++17 -O2 -ffp-contract=off";
  std::string key_text = source + "\n" + cxx + "\n" + flags;
  char key[32];
  std::snprintf(key, sizeof key, "%016llx",
                static_cast<unsigned long long>(kdt_rt::fnv1a64(key_text.data(), key_text.size())));
  fs::path dir = cache_dir() / key;
  fs::path binary = dir / "kernel";
  std::error_code ec;
  if (!fs::exists(binary, ec)) {
    fs::create_directories(dir, ec);
    if (ec) return fail_usage("cannot create the cache directory " + dir.string() + ": " + ec.message());
    std::string cpp_path = (dir / "kernel.cpp").string();
    std::string write_error = write_output(cpp_path, source);
    if (!write_error.empty()) return fail_usage(write_error);
    std::string tmp_binary = (dir / ("kernel.tmp." + std::to_string(::getpid()))).string();
    std::string log = (dir / "compile.log").string();
    int status = shell(quote(cxx) + " " + flags + " -o " + quote(tmp_binary) + " " + quote(cpp_path) + " >" + quote(log) +
                       " 2>&1");
    if (status != 0) {
      std::cerr << read_file(log);
      return fail_usage("the C++ compiler `" + cxx + "` failed on the emitted code (" + cpp_path + ")");
    }
    fs::rename(tmp_binary, binary, ec);
    if (ec) return fail_usage("cannot place the compiled kernel in the cache: " + ec.message());
  }

  fs::create_directories(options.output_dir, ec);
  std::string diag_json = (dir / ("diag." + std::to_string(::getpid()) + ".json")).string();
  std::string out_path = (dir / ("stdout." + std::to_string(::getpid()))).string();
  std::string err_path = (dir / ("stderr." + std::to_string(::getpid()))).string();
  std::string command = quote(binary.string()) + " --output-dir " + quote(options.output_dir) + " --seed " +
                        std::to_string(options.seed) + " --dma-mode " + common.dma_mode + " --program-order " +
                        common.program_order + " --diag-json " + quote(diag_json);
  for (const std::string& input : options.inputs) command += " --input " + quote(input);
  int status = shell(command + " >" + quote(out_path) + " 2>" + quote(err_path) + " </dev/null");
  std::string summary = read_file(out_path);
  std::string harness_err = read_file(err_path);
  std::string runtime_diag = read_file(diag_json);
  fs::remove(out_path, ec);
  fs::remove(err_path, ec);
  fs::remove(diag_json, ec);
  if (status == 1 && !runtime_diag.empty()) {
    add_runtime_diagnostic(runtime_diag, *c);
    return finish(1);
  }
  if (status != 0) {
    std::string message = harness_err;
    while (!message.empty() && message.back() == '\n') message.pop_back();
    if (message.rfind("error: ", 0) == 0) message = message.substr(7);
    return fail_usage(message.empty() ? "the kernel exited with status " + std::to_string(status) : message);
  }
  emit_diagnostics(common, c->diags.sorted(), c->sources);
  // The summary: stderr in text mode, stdout for json and sarif.
  (common.diag_format == DiagFormat::Text ? std::cerr : std::cout) << summary;
  return 0;
}

}  // namespace kdt
