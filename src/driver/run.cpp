// `kdt run`: emit C++ with a harness, compile it (cached by content, the
// compiler and its flags), run it on .npy files, and report run-time checks
// as diagnostics. Nothing here trusts the environment: the command line is
// checked against the kernel (run_args), cached binaries are verified and
// kept where only the user can write (run_cache), the compiler and the
// kernel run without a shell in process groups of their own (spawn), and a
// signal stops the run cleanly (signals).
#include "kdt/driver/run.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "driver/build_cached.h"
#include "driver/mpi_launch.h"
#include "driver/run_args.h"
#include "driver/run_cache.h"
#include "driver/run_opt.h"
#include "driver/signals.h"
#include "driver/spawn.h"
#include "kdt/discharge/discharge.h"
#include "kdt/driver/compile.h"
#include "kdt/driver/output.h"
#include "kdt/emit/emit_cpp.h"
#include "kdt/runtime/kdt_runtime.h"

namespace kdt {

namespace fs = std::filesystem;

namespace {

// This run's own directory (mkdtemp: mode 0700, a fresh name): the emitted
// C++, the compile log, the kernel's captured output and failure report.
// Concurrent runs never share a file, and a read-only cache still serves
// hits. Removed at the end, unless kept for a person to look at.
struct PrivateDir {
  std::string path;
  bool keep = false;
  PrivateDir() = default;
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;
  ~PrivateDir() {
    std::error_code ec;
    if (!path.empty() && !keep) fs::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return path + "/" + name; }
};

bool make_private_dir(PrivateDir& dir, std::string& error) {
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string templ = (base / "kdt-run-XXXXXX").string();
  if (!::mkdtemp(templ.data())) {
    error = "cannot create a temporary directory in " + base.string() + ": " + std::strerror(errno);
    return false;
  }
  dir.path = templ;
  return true;
}

// A name for this run's output temporaries that no other run uses.
std::string random_tag() {
  uint64_t v = 0;
  if (std::FILE* f = std::fopen("/dev/urandom", "rb")) {
    if (std::fread(&v, sizeof v, 1, f) != 1) v = 0;
    std::fclose(f);
  }
  v ^= static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) * 0x9E3779B97F4A7C15ULL;
  v ^= static_cast<uint64_t>(::getpid()) << 32;
  return hex64(v);
}

// A run-time failure reported by the harness, as a kdt diagnostic. The
// report names the KD file of each location; files kdt did not read map
// to the main file.
void add_runtime_diagnostic(const std::string& json_text, Compilation& c) {
  nlohmann::json j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return;
  auto code = diag_code_from_name(j.value("code", ""));
  if (!code) return;
  auto file_of = [&](const nlohmann::json& at) -> FileId {
    std::string path = at.value("file", "");
    for (FileId id = 1; id <= c.sources.file_count(); ++id) {
      if (c.sources.file(id).path == path) return id;
    }
    return 1;
  };
  SourceRange range{file_of(j), j.value("begin", 0u), j.value("end", 0u)};
  auto d = c.diags.report(*code, range, j.value("message", ""));
  for (const nlohmann::json& note : j.value("notes", nlohmann::json::array())) {
    d.note(note.value("message", ""), SourceRange{file_of(note), note.value("begin", 0u), note.value("end", 0u)});
  }
}

// The harness's own message (`error: ...` on its stderr), or "".
std::string harness_message(const std::string& err) {
  std::istringstream in(err);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("error: ", 0) == 0) return line.substr(7);
  }
  return "";
}

// `kdt run --gdb` (issue 21): gdb on the compiled kernel, in kdt's own
// process group and with the terminal (gdb reads it, and ^C reaches gdb and
// the kernel as in any debugging session), with default signal handling.
// `directory DIR` lets gdb show the generated C++ beside the KD source
// (the cache keeps kernel.cpp beside the binary). Returns gdb's status.
template <class Fail>
int run_under_gdb(const std::vector<std::string>& kernel_argv, const std::string& gdb_args, const std::string& dir,
                  Fail&& fail_usage) {
  std::vector<std::string> argv = {"gdb", "-ex", "directory " + dir};
  std::string error;
  std::vector<std::string> extra;
  if (!split_words(gdb_args, extra, error)) return fail_usage("--gdb-args '" + gdb_args + "': " + error);
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("--args");
  argv.insert(argv.end(), kernel_argv.begin(), kernel_argv.end());
  std::vector<char*> c_argv;
  for (std::string& a : argv) c_argv.push_back(a.data());
  c_argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  pid_t child = ::fork();
  if (child < 0) return fail_usage(std::string("cannot start gdb: ") + std::strerror(errno));
  if (child == 0) {
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGXFSZ}) ::signal(sig, SIG_DFL);
    ::execvp(c_argv[0], c_argv.data());
    std::fprintf(stderr, "kdt: error: cannot run gdb: %s%s\n", std::strerror(errno),
                 errno == ENOENT ? " (install gdb, or run the kernel without --gdb)" : "");
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int run_main(const std::vector<std::string>& args) {
  RunArgs options;
  std::string error;
  if (!parse_run_args(args, options, error)) return usage_error(options.common, error + " (see kdt run --help)");
  if (options.help) {
    std::cout << run_help_text();
    return 0;
  }
  // From here on SIGINT, SIGTERM and SIGHUP stop the run at its next step:
  // the child's process group gets the signal, temporary files go, and kdt
  // exits with 128 + the signal's number.
  InterruptScope interrupts;
  const Options& common = options.common;
  Options front_end = common;
  front_end.keep_lowered = true;  // take_module below
  std::unique_ptr<Compilation> c = compile_front_end(common.input, front_end);
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
  auto interrupted = [&](int sig) {
    usage_error(common, "interrupted by " + signal_name(sig) + "; the run was stopped and its temporary files removed",
                c->diags.sorted(), &c->sources);
    return 128 + sig;
  };
  auto warn = [&](const std::string& message) {
    if (common.diag_format == DiagFormat::Text) std::cerr << "kdt: warning: " << message << "\n";
  };
  if (!c->ok) return finish(1);
  if (!c->program.unused_defines.empty()) {
    return fail_usage("-D " + c->program.unused_defines.front() + ": " + c->program.unused_define_reasons.front());
  }
  std::string kernel = common.kernel;
  if (kernel.empty()) {
    if (c->program.kernels.empty()) return fail_usage("the program has no kernel to run");
    kernel = c->program.kernels.front()->name.text;
  }
  ir::Module module = take_module(*c, kernel);
  if (module.kernels.empty()) return fail_usage("--kernel " + kernel + ": no such kernel in the program");
  if (!discharge_module(module, c->diags)) return finish(1);
  const ir::Kernel& k = module.kernels.front();
  if (std::string problem = check_run_inputs(options, k); !problem.empty()) return fail_usage(problem);
  if (options.mpi && options.ranks != 0 && options.ranks != k.devices) {
    return fail_usage("-n " + std::to_string(options.ranks) + ": kernel `" + k.kd_name + "` runs on " +
                      std::to_string(k.devices) + " device" + (k.devices == 1 ? "" : "s") +
                      ", one per MPI rank; leave -n out or give -n " + std::to_string(k.devices));
  }
  CppEmitOptions cpp;
  cpp.checks = common.checks;
  cpp.flush_subnormal_adds = common.flush_subnormal_adds;
  cpp.harness = true;
  cpp.input_name = c->sources.file(1).path;
  cpp.separate_runtime = true;
  cpp.output_name = "kernel.cpp";  // as the cache keeps it beside the binary (run_cache.h)
  cpp.mpi = options.mpi;
  std::string source = emit_cpp(module, c->sources, cpp);
  if (int sig = interrupt_signal()) return interrupted(sig);

  PrivateDir tmp;
  if (!make_private_dir(tmp, error)) return fail_usage(error);
  CompilerChoice choice;
  choice.cxx = options.cxx;
  choice.cxxflags = options.cxxflags;
  choice.portable = options.portable;
  choice.debug = options.debug;
  choice.kernel_opt = kernel_opt_level(k);
  if (options.mpi && !mpi_compiler_flags(tmp.path, choice.kernel_flags, choice.link_flags, error)) return fail_usage(error);
  BuildOutcome built = build_cached(source, choice, tmp.path);
  for (const std::string& w : built.warnings) warn(w);
  switch (built.kind) {
    case BuildOutcome::Kind::Built: break;
    case BuildOutcome::Kind::Usage: return fail_usage(built.message);
    case BuildOutcome::Kind::Interrupted: return interrupted(built.signal);
    case BuildOutcome::Kind::CompilerFailed:
      tmp.keep = true;
      if (common.diag_format == DiagFormat::Text) {
        std::cerr << built.log;
        return fail_usage(built.message);
      }
      return fail_usage(built.message + ":\n" + built.log.substr(0, 8192));
  }
  const std::string& binary = built.binary;

  std::error_code ec;
  fs::create_directories(options.output_dir, ec);
  if (ec) return fail_usage("cannot create the output directory " + options.output_dir + ": " + ec.message());
  ProcessSpec run;
  if (options.mpi) run.argv = mpirun_command(k.devices);
  run.argv.insert(run.argv.end(), {binary, "--output-dir", options.output_dir, "--seed", std::to_string(options.seed),
              "--dma-mode", common.dma_mode, "--dma-order", common.dma_order, "--program-order", common.program_order});
  for (const auto& [name, value] : options.inputs) {
    run.argv.push_back("--input");
    run.argv.push_back(name + "=" + value);
  }
  for (const std::string& name : options.random) {
    run.argv.push_back("--random");
    run.argv.push_back(name);
  }
  if (options.random_all) run.argv.push_back("--random-all");
  if (options.jobs > 0) {
    run.argv.push_back("--jobs");
    run.argv.push_back(std::to_string(options.jobs));
  }
  if (options.gdb) {
    emit_diagnostics(common, c->diags.sorted(), c->sources);
    // The binary stays where it is: in the cache, or (without one) in the kept work directory.
    tmp.keep = binary.rfind(tmp.path, 0) == 0;
    return run_under_gdb(run.argv, options.gdb_args, fs::path(binary).parent_path().string(), fail_usage);
  }
  // Outputs go to DIR/.NAME.npy.kdt-TAG until the kernel succeeded; the
  // tag lets kdt remove them whatever became of the kernel.
  std::string tag = random_tag();
  for (const std::string& a : {std::string("--diag-json"), tmp.file("diag.json"), std::string("--temp-tag"), tag}) {
    run.argv.push_back(a);
  }
  run.stdout_path = tmp.file("stdout");
  run.stderr_path = tmp.file("stderr");
  run.timeout_s = options.timeout_s;
  ProcessResult ran = run_process(run);
  std::vector<std::string> outputs;
  for (auto [is_ref, i] : k.params) {
    if (is_ref && k.refs[i].is_output) outputs.push_back(k.refs[i].kd_name);
  }
  for (const std::string& name : outputs) {
    ::unlink((options.output_dir + "/." + name + ".npy.kdt-" + tag).c_str());
  }
  std::string summary = read_text(run.stdout_path);
  std::string harness_err = read_text(run.stderr_path);
  std::string runtime_diag = read_text(tmp.file("diag.json"));
  switch (ran.kind) {
    case ProcessResult::Kind::Interrupted: return interrupted(ran.code);
    case ProcessResult::Kind::TimedOut:
      return fail_usage("the kernel did not finish within --timeout " + options.timeout_text +
                        " seconds; it was stopped (no outputs written)");
    case ProcessResult::Kind::NotStarted:
      return fail_usage("cannot run the compiled kernel " + binary + ": " + std::strerror(ran.code));
    case ProcessResult::Kind::Signaled:
      return fail_usage("the compiled kernel " + describe(ran) + " (no outputs written)");
    case ProcessResult::Kind::Exited: break;
  }
  if (ran.code == 1 && !runtime_diag.empty()) {
    add_runtime_diagnostic(runtime_diag, *c);
    return finish(1);
  }
  if (ran.code != 0) {
    std::string message = harness_message(harness_err);
    return fail_usage(message.empty() ? "the compiled kernel exited with status " + std::to_string(ran.code) : message);
  }
  // A binary that exits 0 without its outputs is no success.
  for (const std::string& name : outputs) {
    if (summary.find("output " + name + ":") == std::string::npos ||
        !fs::exists(options.output_dir + "/" + name + ".npy", ec)) {
      return fail_usage("the compiled kernel " + binary + " exited with status 0 but did not write output `" + name +
                        "`");
    }
  }
  emit_diagnostics(common, c->diags.sorted(), c->sources);
  // The summary: stderr in text mode, stdout for json and sarif.
  (common.diag_format == DiagFormat::Text ? std::cerr : std::cout) << summary;
  return 0;
}

}  // namespace kdt
