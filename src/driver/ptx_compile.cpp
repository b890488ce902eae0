// --emit=ptx: the PTX of the CUDA output. First route: NVRTC, loaded with
// dlopen at run time (kdt never links against CUDA); second route: `nvcc
// -ptx`. The emitted CUDA carries `#line` directives, so NVRTC's and nvcc's
// messages already name the KD source lines.
//
// Search order: $CUDA_HOME/lib64, /usr/local/cuda/lib64, then the loader
// path (libnvrtc.so, libnvrtc.so.13, .12, .11.2); nvcc in $CUDA_HOME/bin,
// /usr/local/cuda/bin, then PATH. KDT_NO_CUDA=1 hides both routes and
// KDT_NO_NVRTC=1 the first (tests).
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kdt/driver/ptx_compile.h"
#include "kdt/driver/output.h"

#include "driver/signals.h"
#include "driver/spawn.h"

namespace kdt {

namespace {

bool file_exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

std::vector<std::string> cuda_roots() {
  std::vector<std::string> roots;
  if (const char* h = std::getenv("CUDA_HOME"); h && *h) roots.push_back(h);
  if (const char* h = std::getenv("CUDA_PATH"); h && *h) roots.push_back(h);
  roots.push_back("/usr/local/cuda");
  return roots;
}

// The virtual architecture NVRTC compiles for: sm_90 -> compute_90.
std::string virtual_arch(const std::string& arch) {
  if (arch.rfind("sm_", 0) == 0) return "compute_" + arch.substr(3);
  return arch;
}

using nvrtcProgram = void*;
using CreateFn = int (*)(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*);
using CompileFn = int (*)(nvrtcProgram, int, const char* const*);
using SizeFn = int (*)(nvrtcProgram, size_t*);
using GetFn = int (*)(nvrtcProgram, char*);
using DestroyFn = int (*)(nvrtcProgram*);
using ErrorFn = const char* (*)(int);

struct Nvrtc {
  void* handle = nullptr;
  std::string include_dir;
};

Nvrtc load_nvrtc() {
  Nvrtc n;
  static const char* const names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"};
  for (const std::string& root : cuda_roots()) {
    for (const char* name : names) {
      std::string path = root + "/lib64/" + name;
      if (!file_exists(path)) continue;
      n.handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (n.handle) {
        n.include_dir = root + "/include";
        return n;
      }
    }
  }
  for (const char* name : names) {
    n.handle = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (n.handle) {
      for (const std::string& root : cuda_roots()) {
        if (file_exists(root + "/include/cuda_fp16.h")) n.include_dir = root + "/include";
      }
      return n;
    }
  }
  return n;
}

// Returns 1 on success, 0 on a compile error (error set), -1 when NVRTC is unusable.
int compile_nvrtc(const std::string& cuda, const std::string& arch, std::string& ptx, std::string& error) {
  Nvrtc lib = load_nvrtc();
  if (!lib.handle) return -1;
  auto create = reinterpret_cast<CreateFn>(::dlsym(lib.handle, "nvrtcCreateProgram"));
  auto compile = reinterpret_cast<CompileFn>(::dlsym(lib.handle, "nvrtcCompileProgram"));
  auto log_size = reinterpret_cast<SizeFn>(::dlsym(lib.handle, "nvrtcGetProgramLogSize"));
  auto get_log = reinterpret_cast<GetFn>(::dlsym(lib.handle, "nvrtcGetProgramLog"));
  auto ptx_size = reinterpret_cast<SizeFn>(::dlsym(lib.handle, "nvrtcGetPTXSize"));
  auto get_ptx = reinterpret_cast<GetFn>(::dlsym(lib.handle, "nvrtcGetPTX"));
  auto destroy = reinterpret_cast<DestroyFn>(::dlsym(lib.handle, "nvrtcDestroyProgram"));
  auto error_string = reinterpret_cast<ErrorFn>(::dlsym(lib.handle, "nvrtcGetErrorString"));
  if (!create || !compile || !log_size || !get_log || !ptx_size || !get_ptx || !destroy) return -1;
  nvrtcProgram prog = nullptr;
  int rc = create(&prog, cuda.c_str(), "kernel.cu", 0, nullptr, nullptr);
  if (rc != 0) {
    error = std::string("nvrtc: cannot create the program: ") + (error_string ? error_string(rc) : std::to_string(rc));
    return 0;
  }
  std::vector<std::string> opts = {"--gpu-architecture=" + virtual_arch(arch), "-std=c++17"};
  if (!lib.include_dir.empty()) opts.push_back("--include-path=" + lib.include_dir);
  std::vector<const char*> argv;
  for (const std::string& o : opts) argv.push_back(o.c_str());
  rc = compile(prog, static_cast<int>(argv.size()), argv.data());
  size_t n = 0;
  std::string log;
  if (log_size(prog, &n) == 0 && n > 1) {
    log.resize(n);
    get_log(prog, &log[0]);
    log.resize(n - 1);
  }
  if (rc != 0) {
    error = "nvrtc could not compile the CUDA output for " + arch + ":\n" + log;
    destroy(&prog);
    return 0;
  }
  n = 0;
  ptx_size(prog, &n);
  ptx.assign(n, '\0');
  if (n) get_ptx(prog, &ptx[0]);
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  destroy(&prog);
  return 1;
}


int compile_nvcc(const std::string& cuda, const std::string& arch, std::string& ptx, std::string& error) {
  std::string nvcc = find_nvcc();
  if (nvcc.empty()) return -1;
  const char* tmp = std::getenv("TMPDIR");
  std::string dir_template = std::string(tmp && *tmp ? tmp : "/tmp") + "/kdt-ptx-XXXXXX";
  std::vector<char> buf(dir_template.begin(), dir_template.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) {
    error = "cannot create a temporary directory for nvcc";
    return 0;
  }
  std::string dir = buf.data();
  std::string cu = dir + "/kernel.cu", out = dir + "/kernel.ptx", log = dir + "/nvcc.log";
  {
    std::ofstream f(cu, std::ios::binary);
    f << cuda;
  }
  // No shell: nvcc's argv as is, its output and messages into `log`.
  ProcessSpec spec;
  spec.argv = {nvcc, "-ptx", "-std=c++17", "-arch=" + arch, "-o", out, cu};
  spec.stdout_path = log;
  spec.stderr_path = log;
  ProcessResult result;
  int interrupted = 0;
  {
    // nvcc runs in a process group of its own, which a ^C at the terminal
    // does not reach: kdt forwards the signal, removes the files below and
    // then dies of it, as when nvcc shared kdt's group.
    InterruptScope interrupts;
    result = run_process(spec);
    interrupted = interrupt_signal();
  }
  bool ok = result.kind == ProcessResult::Kind::Exited && result.code == 0;
  if (ok) ptx = read_text(out);
  // Stopped by a signal that kdt ignores (it was started ignoring it) and so outlives.
  else if (result.kind == ProcessResult::Kind::Interrupted) error = "nvcc " + describe(result);
  else error = "nvcc could not compile the CUDA output for " + arch + ":\n" + read_text(log);
  ::unlink(cu.c_str());
  ::unlink(out.c_str());
  ::unlink(log.c_str());
  ::rmdir(dir.c_str());
  if (interrupted) ::raise(interrupted);
  return ok ? 1 : 0;
}

}  // namespace

std::string find_nvcc() {
  for (const std::string& root : cuda_roots()) {
    if (::access((root + "/bin/nvcc").c_str(), X_OK) == 0) return root + "/bin/nvcc";
  }
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      if (!dir.empty() && ::access((dir + "/nvcc").c_str(), X_OK) == 0) return dir + "/nvcc";
    }
  }
  return "";
}

PtxStatus compile_to_ptx(const std::string& cuda, const std::string& arch, std::string& ptx, std::string& error) {
  const char* no_cuda = std::getenv("KDT_NO_CUDA");
  bool hidden = no_cuda && *no_cuda && std::string(no_cuda) != "0";
  const char* no_nvrtc = std::getenv("KDT_NO_NVRTC");
  bool skip_nvrtc = no_nvrtc && *no_nvrtc && std::string(no_nvrtc) != "0";
  if (!hidden) {
    int rc = skip_nvrtc ? -1 : compile_nvrtc(cuda, arch, ptx, error);
    if (rc >= 0) return rc == 1 ? PtxStatus::Ok : PtxStatus::Failed;
    rc = compile_nvcc(cuda, arch, ptx, error);
    if (rc >= 0) return rc == 1 ? PtxStatus::Ok : PtxStatus::Failed;
  }
  error = "--emit=ptx needs NVRTC (libnvrtc.so in $CUDA_HOME/lib64, /usr/local/cuda/lib64 or on the loader path) or "
          "nvcc (in $CUDA_HOME/bin, /usr/local/cuda/bin or on PATH); neither was found";
  return PtxStatus::ToolchainMissing;
}

}  // namespace kdt
