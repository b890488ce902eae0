// `kdt run`: emit C++ with a harness, compile it (cached by content, the
// compiler and its flags), run it on .npy files, and report run-time checks
// as diagnostics. Nothing here trusts the environment: the command line is
// checked against the kernel (run_args), cached binaries are verified and
// kept where only the user can write (run_cache), the compiler and the
// kernel run without a shell in process groups of their own (spawn), and a
// signal stops the run cleanly (signals).
#include "kdt/driver/run.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "driver/host_cpu.h"
#include "driver/run_args.h"
#include "driver/run_cache.h"
#include "driver/run_runtime.h"
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

std::string join(const std::vector<std::string>& words, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) out += (i ? separator : "") + words[i];
  return out;
}

// Whether a failure writing into `dir` is most likely a full disk.
bool disk_full(const std::string& dir, const std::string& log) {
  if (log.find("No space left on device") != std::string::npos) return true;
  struct statvfs vfs;
  return ::statvfs(dir.c_str(), &vfs) == 0 && static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize < (uint64_t{1} << 20);
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
  CppEmitOptions cpp;
  cpp.checks = common.checks;
  cpp.harness = true;
  cpp.input_name = c->sources.file(1).path;
  cpp.separate_runtime = true;
  std::string source = emit_cpp(module, c->sources, cpp);
  if (int sig = interrupt_signal()) return interrupted(sig);

  // The compiler: $CXX or --cxx split into words, as make's shell would.
  std::string cxx_text = options.cxx;
  const char* cxx_origin = "--cxx";
  if (cxx_text.empty()) {
    const char* env = std::getenv("CXX");
    cxx_text = env && *env ? env : "c++";
    cxx_origin = env && *env ? "$CXX" : "the default compiler";
  }
  std::vector<std::string> cxx;
  if (!split_words(cxx_text, cxx, error)) return fail_usage(std::string(cxx_origin) + " '" + cxx_text + "': " + error);
  if (cxx.empty()) cxx = {"c++"};
  // For the machine it runs on (issue 17): AVX2/FMA units where the host
  // has them. FP contraction stays off (spec: no fused multiply-add), so
  // the instruction set changes speed, not results.
  std::vector<std::string> flags = {"-std=c++17", "-O2", "-ffp-contract=off"};
  if (!options.portable) flags.push_back("-march=native");
  for (const std::string& text : options.cxxflags) {
    std::vector<std::string> words;
    if (!split_words(text, words, error)) return fail_usage("--cxxflags '" + text + "': " + error);
    flags.insert(flags.end(), words.begin(), words.end());
  }
  const std::string compiler = join(cxx, " ");

  PrivateDir tmp;
  if (!make_private_dir(tmp, error)) return fail_usage(error);

  // The cache key: the emitted text, the compiler's words and identity
  // (its --version, once per run), and the flags.
  ProcessSpec version;
  version.argv = cxx;
  version.argv.push_back("--version");
  version.stdout_path = version.stderr_path = tmp.file("cxx-version.txt");
  version.timeout_s = 60;
  ProcessResult probed = run_process(version);
  if (probed.kind == ProcessResult::Kind::Interrupted) return interrupted(probed.code);
  if (probed.kind == ProcessResult::Kind::NotStarted) {
    return fail_usage("the C++ compiler `" + cxx[0] + "` (from " + cxx_origin + ") " + describe(probed) +
                      (probed.code == ENOENT ? "; install one, or name it with --cxx or $CXX" : ""));
  }
  std::string identity = describe(probed) + "\n" + read_text(version.stdout_path);
  if (!options.portable) identity += "\nhost " + host_cpu_identity();
  const std::string toolchain =
      identity + "\n" + join(cxx, std::string(1, '\0')) + "\n" + join(flags, std::string(1, '\0'));
  // The runtime library the kernel links (run_runtime.h), built only when
  // the kernel itself is not in the cache.
  const std::string library_key = runtime_key(toolchain);
  std::string key_text = "kdt run cache 3\n" + toolchain + "\n" + library_key + "\n" + source;
  std::string key = hex64(kdt_rt::fnv1a64(key_text.data(), key_text.size()));
  std::string check_text = "check\n" + key_text;
  std::string check = hex64(kdt_rt::fnv1a64(check_text.data(), check_text.size()));

  CacheDir cache;
  if (!open_cache(cache, error)) return fail_usage(error);
  if (!cache.note.empty()) warn(cache.note);
  std::string binary;
  if (!find_entry(cache, key, check, binary, error)) return fail_usage(error);
  if (int sig = interrupt_signal()) return interrupted(sig);
  if (binary.empty()) {
    // A compiler that failed, on the runtime library or on the kernel.
    auto compile_failed = [&](const ProcessResult& built, const std::string& log, const std::string& what) {
      if (built.kind == ProcessResult::Kind::Interrupted) return interrupted(built.code);
      if (built.kind == ProcessResult::Kind::NotStarted) {
        return fail_usage("the C++ compiler `" + cxx[0] + "` (from " + cxx_origin + ") " + describe(built));
      }
      if (disk_full(tmp.path, log)) {
        return fail_usage("no space left on device in " + tmp.path + ": the C++ compiler `" + compiler +
                          "` could not write its output");
      }
      tmp.keep = true;
      std::string message = "the C++ compiler `" + compiler + "` " + describe(built) + " on " + what +
                            "; the code and the compiler's output are kept in " + tmp.path;
      if (common.diag_format == DiagFormat::Text) std::cerr << log;
      else message += ":\n" + log.substr(0, 8192);
      return fail_usage(message);
    };
    RuntimeLibrary library;
    RuntimeFailure library_failure;
    if (!prepare_runtime(cache, library_key, cxx, flags, identity, tmp.path, library, library_failure)) {
      if (!library_failure.message.empty()) return fail_usage(library_failure.message);
      return compile_failed(library_failure.built, library_failure.log, "kdt's runtime library");
    }
    std::string cpp_path = tmp.file("kernel.cpp");
    std::string write_error = write_output(cpp_path, source);
    if (!write_error.empty()) return fail_usage(write_error);
    ProcessSpec compile;
    compile.argv = cxx;
    compile.argv.insert(compile.argv.end(), flags.begin(), flags.end());
    for (const std::string& a : {std::string("-o"), tmp.file("kernel"), cpp_path}) compile.argv.push_back(a);
    for (const std::string& a : runtime_arguments(library)) compile.argv.push_back(a);
    compile.stdout_path = compile.stderr_path = tmp.file("compile.log");
    ProcessResult built = run_process(compile);
    if (built.kind != ProcessResult::Kind::Exited || built.code != 0) {
      return compile_failed(built, read_text(compile.stdout_path), "the emitted code");
    }
    std::string store_error;
    binary = store_entry(cache, key, check, tmp.file("kernel"), source, store_error);
    if (binary.empty()) {
      if (!store_error.empty()) warn("cannot store the compiled kernel in the cache " + cache.root + ": " + store_error);
      binary = tmp.file("kernel");
    }
  }

  std::error_code ec;
  fs::create_directories(options.output_dir, ec);
  if (ec) return fail_usage("cannot create the output directory " + options.output_dir + ": " + ec.message());
  // Outputs go to DIR/.NAME.npy.kdt-TAG until the kernel succeeded; the
  // tag lets kdt remove them whatever became of the kernel.
  std::string tag = random_tag();
  ProcessSpec run;
  run.argv = {binary,      "--output-dir",      options.output_dir,  "--seed",
              std::to_string(options.seed),    "--dma-mode",        common.dma_mode,
              "--dma-order",     common.dma_order,     "--program-order", common.program_order,
              "--diag-json",     tmp.file("diag.json"), "--temp-tag",    tag};
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
