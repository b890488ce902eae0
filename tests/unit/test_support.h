// Helpers shared by the unit tests: running the front end in-process or
// the `kdt` binary as a user would, and reading test files.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "kdt/driver/compile.h"

// Readable failure messages for lists of diagnostic codes.
namespace doctest {
template <>
struct StringMaker<std::vector<std::string>> {
  static String convert(const std::vector<std::string>& v) {
    std::string out = "{";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
    return (out + "}").c_str();
  }
};
}  // namespace doctest

namespace kdt::test {

inline std::string source_dir() { return KDT_SOURCE_DIR; }
inline std::string kdt_binary() { return KDT_BINARY; }

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// A fresh directory under the system temp dir, removed at scope exit.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "kdt-test-XXXXXX").string();
    path = ::mkdtemp(templ.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

// Front end on in-memory text named `path`.
inline std::unique_ptr<Compilation> front_end(const std::string& text, const std::string& path = "test.kd",
                                              Options options = {}) {
  return compile_front_end(path, options, text);
}

// Every diagnostic code reported, in source order.
inline std::vector<std::string> codes(const Compilation& c) {
  std::vector<std::string> out;
  for (const Diagnostic& d : c.diags.sorted()) out.push_back(diag_info(d.code).name);
  return out;
}

struct RunResult {
  int status = -1;
  std::string out;
  std::string err;
};

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs a shell command line; stdout and stderr are captured apart.
inline RunResult run_captured(const std::string& command, const std::string& stdin_path = "") {
  TempDir tmp;
  std::string cmd = command + " >" + tmp.file("out") + " 2>" + tmp.file("err");
  if (!stdin_path.empty()) cmd += " <" + shell_quote(stdin_path);
  else cmd += " </dev/null";
  int raw = std::system(cmd.c_str());
  RunResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = read_text(tmp.file("out"));
  r.err = read_text(tmp.file("err"));
  return r;
}

// Runs `kdt ARGS` through the shell.
inline RunResult run_kdt(const std::string& args, const std::string& stdin_path = "") {
  return run_captured(shell_quote(kdt_binary()) + " " + args, stdin_path);
}

// A CUDA tool (nvcc, ptxas): $CUDA_HOME/bin, /usr/local/cuda/bin, then PATH;
// "" when absent.
inline std::string find_tool(const std::string& tool) {
  // KDT_NO_CUDA=1 hides the toolchain, as it does for kdt itself.
  if (const char* off = std::getenv("KDT_NO_CUDA"); off && *off && std::string(off) != "0") return "";
  std::vector<std::string> roots;
  if (const char* h = std::getenv("CUDA_HOME"); h && *h) roots.push_back(h);
  roots.push_back("/usr/local/cuda");
  // The tools scripts/setup-cuda-tools.sh installs from PyPI (cuobjdump),
  // named by ctest for the CUDA suites.
  if (const char* t = std::getenv("KDT_CUDA_TOOLS"); t && *t) roots.push_back(t);
  for (const std::string& r : roots) {
    std::string p = r + "/bin/" + tool;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      if (!dir.empty() && ::access((dir + "/" + tool).c_str(), X_OK) == 0) return dir + "/" + tool;
    }
  }
  return "";
}

// nvcc, or "" after printing the skip marker.
inline std::string nvcc_or_skip() {
  std::string nvcc = find_tool("nvcc");
  if (nvcc.empty()) MESSAGE("CUDA-SKIPPED: nvcc not found ($CUDA_HOME/bin, /usr/local/cuda/bin, PATH); the nvcc checks did not run");
  return nvcc;
}

}  // namespace kdt::test
