// Compiling emitted C++ into kdt's cache (build_cached.h): the compiler,
// split into words and probed once; the key over the emitted text, the
// compiler's identity, its words and the flags; the runtime library; the
// verified entry. Nothing runs through a shell.
#include "driver/build_cached.h"

#include <sys/statvfs.h>

#include <cstdlib>

#include "driver/host_cpu.h"
#include "driver/run_cache.h"
#include "driver/run_runtime.h"
#include "driver/signals.h"
#include "driver/spawn.h"
#include "kdt/driver/ptx_compile.h"
#include "kdt/driver/output.h"
#include "kdt/runtime/kdt_runtime.h"

namespace kdt {

namespace {

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

BuildOutcome usage(std::string message) {
  BuildOutcome out;
  out.kind = BuildOutcome::Kind::Usage;
  out.message = std::move(message);
  return out;
}

BuildOutcome interrupted(int signal) {
  BuildOutcome out;
  out.kind = BuildOutcome::Kind::Interrupted;
  out.signal = signal;
  return out;
}

}  // namespace

BuildOutcome build_cached(const std::string& source, const CompilerChoice& choice, const std::string& work_dir) {
  std::string error;
  const bool cuda = !choice.cuda_arch.empty();
  // The compiler: $CXX or --cxx split into words, as make's shell would;
  // for CUDA, $NVCC or the nvcc that --emit=ptx would use.
  std::string cxx_text = choice.cxx;
  const char* cxx_origin = "--cxx";
  const char* env_name = cuda ? "NVCC" : "CXX";
  if (cxx_text.empty()) {
    const char* env = std::getenv(env_name);
    cxx_text = env && *env ? env : cuda ? find_nvcc() : "c++";
    cxx_origin = env && *env ? (cuda ? "$NVCC" : "$CXX") : "the default compiler";
    if (cxx_text.empty()) {
      return usage("no nvcc: kdt looked under $CUDA_HOME, $CUDA_PATH, /usr/local/cuda and on PATH; install the CUDA "
                   "toolkit or name nvcc with $NVCC");
    }
  }
  const std::string compiler_kind = cuda ? "the CUDA compiler" : "the C++ compiler";
  std::vector<std::string> cxx;
  if (!split_words(cxx_text, cxx, error)) return usage(std::string(cxx_origin) + " '" + cxx_text + "': " + error);
  if (cxx.empty()) cxx = {"c++"};
  std::vector<std::string> flags = {"-std=c++17"};
  if (choice.debug) flags.insert(flags.end(), {"-g", "-O0"});
  else flags.push_back("-O2");
  // Where the -O word is: the kernel's compile may put its own level there
  // (before --cxxflags, which stay the user's last word).
  const size_t opt_at = flags.size() - 1;
  if (cuda) {
    // The CUDA output is self-contained; nvcc's host compiler makes it position-independent.
    flags.insert(flags.end(), {"-arch=" + choice.cuda_arch, "-Xcompiler", "-fPIC"});
  } else {
    // For the machine it runs on (issue 17): AVX2/FMA units where the host
    // has them. FP contraction stays off (spec: no fused multiply-add), so
    // the instruction set changes speed, not results.
    flags.push_back("-ffp-contract=off");
    if (!choice.portable) flags.push_back("-march=native");
    // A shared library: the runtime library it links must be position-independent too.
    if (choice.shared_library) flags.push_back("-fPIC");
  }
  for (const std::string& dir : choice.system_includes) {
    flags.push_back("-isystem");
    flags.push_back(dir);
  }
  for (const std::string& text : choice.cxxflags) {
    std::vector<std::string> words;
    if (!split_words(text, words, error)) return usage("--cxxflags '" + text + "': " + error);
    flags.insert(flags.end(), words.begin(), words.end());
  }
  const std::string compiler = join(cxx, " ");
  const std::string product = choice.shared_library ? "library" : "kernel";
  auto file = [&](const std::string& name) { return work_dir + "/" + name; };

  // The cache key: the emitted text, the compiler's words and identity
  // (its --version, once per build), and the flags.
  ProcessSpec version;
  version.argv = cxx;
  version.argv.push_back("--version");
  version.stdout_path = version.stderr_path = file("cxx-version.txt");
  version.timeout_s = 60;
  ProcessResult probed = run_process(version);
  if (probed.kind == ProcessResult::Kind::Interrupted) return interrupted(probed.code);
  if (probed.kind == ProcessResult::Kind::NotStarted) {
    return usage(compiler_kind + " `" + cxx[0] + "` (from " + cxx_origin + ") " + describe(probed) +
                 (probed.code == ENOENT ? std::string("; install one, or name it with ") + (cuda ? "$NVCC" : "--cxx or $CXX") : ""));
  }
  std::string identity = describe(probed) + "\n" + read_text(version.stdout_path);
  if (!choice.portable && !cuda) identity += "\nhost " + host_cpu_identity();
  const std::string toolchain =
      identity + "\n" + join(cxx, std::string(1, '\0')) + "\n" + join(flags, std::string(1, '\0'));
  // The runtime library the code links (run_runtime.h), built only when
  // the code itself is not in the cache.
  const std::string library_key = cuda ? "none" : runtime_key(toolchain);
  const std::string kernel_opt = choice.debug || choice.kernel_opt.empty() ? flags[opt_at] : choice.kernel_opt;
  std::string key_text = "kdt run cache 3\n" + product + "\n" + toolchain + "\n" + library_key + "\n" + kernel_opt + "\n" +
                         join(choice.kernel_flags, std::string(1, '\0')) + "\n" + join(choice.link_flags, std::string(1, '\0')) +
                         "\n" + source;
  std::string key = hex64(kdt_rt::fnv1a64(key_text.data(), key_text.size()));
  std::string check_text = "check\n" + key_text;
  std::string check = hex64(kdt_rt::fnv1a64(check_text.data(), check_text.size()));

  BuildOutcome out;
  CacheDir cache;
  if (!open_cache(cache, error)) return usage(error);
  if (!cache.note.empty()) out.warnings.push_back(cache.note);
  if (!find_entry(cache, key, check, out.binary, error)) return usage(error);
  if (int sig = interrupt_signal()) return interrupted(sig);
  if (!out.binary.empty()) {
    out.kind = BuildOutcome::Kind::Built;
    return out;
  }
  // A compiler that failed, on the runtime library or on the emitted code.
  auto compile_failed = [&](const ProcessResult& built, const std::string& log, const std::string& what) {
    if (built.kind == ProcessResult::Kind::Interrupted) return interrupted(built.code);
    if (built.kind == ProcessResult::Kind::NotStarted) {
      return usage(compiler_kind + " `" + cxx[0] + "` (from " + cxx_origin + ") " + describe(built));
    }
    if (disk_full(work_dir, log)) {
      return usage("no space left on device in " + work_dir + ": " + compiler_kind + " `" + compiler +
                   "` could not write its output");
    }
    BuildOutcome failed;
    failed.kind = BuildOutcome::Kind::CompilerFailed;
    failed.message = compiler_kind + " `" + compiler + "` " + describe(built) + " on " + what +
                     "; the code and the compiler's output are kept in " + work_dir;
    failed.log = log;
    return failed;
  };
  RuntimeLibrary library;
  RuntimeFailure library_failure;
  if (!cuda && !prepare_runtime(cache, library_key, cxx, flags, identity, work_dir, library, library_failure)) {
    if (!library_failure.message.empty()) return usage(library_failure.message);
    return compile_failed(library_failure.built, library_failure.log, "kdt's runtime library");
  }
  // The cache's entry names its file `kernel` whatever the product (run_cache.h).
  std::string cpp_path = file(cuda ? "kernel.cu" : "kernel.cpp");
  std::string write_error = write_output(cpp_path, source);
  if (!write_error.empty()) return usage(write_error);
  ProcessSpec compile;
  compile.argv = cxx;
  compile.argv.insert(compile.argv.end(), flags.begin(), flags.end());
  compile.argv[cxx.size() + opt_at] = kernel_opt;
  compile.argv.insert(compile.argv.end(), choice.kernel_flags.begin(), choice.kernel_flags.end());
  if (choice.shared_library) compile.argv.push_back("-shared");
  for (const std::string& a : {std::string("-o"), file("kernel"), cpp_path}) compile.argv.push_back(a);
  if (!cuda) {
    for (const std::string& a : runtime_arguments(library)) compile.argv.push_back(a);
  }
  compile.argv.insert(compile.argv.end(), choice.link_flags.begin(), choice.link_flags.end());
  compile.stdout_path = compile.stderr_path = file("compile.log");
  ProcessResult built = run_process(compile);
  if (built.kind != ProcessResult::Kind::Exited || built.code != 0) {
    return compile_failed(built, read_text(compile.stdout_path), "the emitted code");
  }
  std::string store_error;
  out.binary = store_entry(cache, key, check, file("kernel"), source, store_error);
  if (out.binary.empty()) {
    if (!store_error.empty()) out.warnings.push_back("cannot store the compiled " + product + " in the cache " + cache.root + ": " + store_error);
    out.binary = file("kernel");
  }
  out.kind = BuildOutcome::Kind::Built;
  return out;
}

}  // namespace kdt
