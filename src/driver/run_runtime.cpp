#include "driver/run_runtime.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "driver/spawn.h"
#include "kdt/driver/output.h"
#include "kdt/emit/emit_cpp.h"
#include "kdt/runtime/kdt_runtime.h"

namespace kdt {

namespace {

// Every byte of what is linked or included is verified; the precompiled
// header (tens of MB, read only by the compiler, which checks it too) by
// its size.
const std::vector<std::string> kLibraryFiles = {"kdt_prelude.h", "runtime.o"};
const std::vector<std::string> kPrecompiledHeader = {"kdt_prelude.h.gch"};

// GCC finds DIR/NAME.gch by itself where `#include "NAME"` resolves to
// DIR/NAME. Clang's PCH would have to be named with -include-pch and
// records the path of the header it was built from (this run's temporary
// directory, gone once the entry is stored), so Clang parses the header;
// the library still spares it the runtime's code generation.
bool precompiles_headers(const std::string& identity) { return identity.find("clang") == std::string::npos; }

}  // namespace

std::string runtime_key(const std::string& toolchain) {
  const std::string text = "kdt runtime library 1\n" + toolchain + "\n" + emit_cpp_prelude();
  return "rt-" + hex64(kdt_rt::fnv1a64(text.data(), text.size()));
}

bool prepare_runtime(const CacheDir& cache, const std::string& key, const std::vector<std::string>& cxx,
                     const std::vector<std::string>& flags, const std::string& identity, const std::string& work_dir,
                     RuntimeLibrary& out, RuntimeFailure& failure) {
  out.key = key;
  const bool pch = precompiles_headers(identity);
  const std::vector<std::string> sized = pch ? kPrecompiledHeader : std::vector<std::string>{};
  const std::string check = "check " + key;
  if (!find_files(cache, key, check, kLibraryFiles, sized, "runtime.sum", out.dir, failure.message)) return false;
  if (!out.dir.empty()) return true;

  const std::string dir = work_dir + "/runtime";
  if (::mkdir(dir.c_str(), 0700) != 0) {
    failure.message = "cannot create " + dir + ": " + std::strerror(errno);
    return false;
  }
  failure.message = write_output(dir + "/kdt_prelude.h", emit_cpp_prelude());
  if (failure.message.empty()) {
    failure.message = write_output(dir + "/runtime.cpp", "#define KDT_RT_LIBRARY\n#include \"kdt_prelude.h\"\n");
  }
  if (!failure.message.empty()) return false;
  auto compile = [&](const std::vector<std::string>& args, const std::string& source) {
    ProcessSpec spec;
    spec.argv = cxx;
    spec.argv.insert(spec.argv.end(), flags.begin(), flags.end());
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.argv.push_back(source);
    // Where the kernel's compile log goes too: kept for a person on failure.
    spec.stdout_path = spec.stderr_path = work_dir + "/compile.log";
    failure.built = run_process(spec);
    if (failure.built.kind == ProcessResult::Kind::Exited && failure.built.code == 0) return true;
    failure.log = read_text(spec.stdout_path);
    return false;
  };
  // The object first: its translation unit defines KDT_RT_LIBRARY, which
  // the precompiled header (a kernel's view) must not see.
  if (!compile({"-c", "-o", dir + "/runtime.o"}, dir + "/runtime.cpp")) return false;
  if (pch && !compile({"-x", "c++-header", "-o", dir + "/kdt_prelude.h.gch"}, dir + "/kdt_prelude.h")) return false;
  std::string store_error;
  out.dir = store_files(cache, key, check, dir, kLibraryFiles, sized, "runtime.sum", store_error);
  // No cache to keep it in (read-only, full): this run uses it from here.
  if (out.dir.empty()) out.dir = dir;
  return true;
}

std::vector<std::string> runtime_arguments(const RuntimeLibrary& library) {
  return {"-I", library.dir, library.dir + "/runtime.o"};
}

}  // namespace kdt
