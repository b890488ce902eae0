// `kdt build`: emit the C ABI or the XLA FFI handlers of a KD file, compile
// them into a shared library in kdt's cache (build_cached.h: the same
// compiler choice, key, runtime library and verification as `kdt run`) and
// print the library's path. The Python package loads what it prints.
#include "kdt/driver/build.h"

#include <unistd.h>

#include <boost/program_options.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "driver/build_cached.h"
#include "driver/signals.h"
#include "kdt/discharge/discharge.h"
#include "kdt/driver/compile.h"
#include "kdt/emit/emit_cpp.h"
#include "kdt/emit/emit_cuda.h"

namespace kdt {

namespace po = boost::program_options;
namespace fs = std::filesystem;

std::string build_help_text() {
  return "Usage: kdt build FILE.kd [--emit=c-api|xla-ffi|cuda-xla-ffi] [OPTIONS]\n"
         "Emits the kernels of FILE.kd with a binding (c-api: an extern \"C\" entry per kernel; xla-ffi: an XLA\n"
         "FFI handler per kernel for the CPU; cuda-xla-ffi: the CUDA output with an XLA FFI handler per kernel\n"
         "for the CUDA platform, compiled with nvcc), compiles them into a shared library in kdt's cache (as\n"
         "`kdt run` compiles, by content hash) and prints the library's path. See docs/c-api.md.\n\n"
         "Options:\n"
         "  --emit=c-api|xla-ffi|cuda-xla-ffi   the binding (default c-api)\n"
         "  --xla-include DIR           the XLA FFI headers (jax.ffi.include_dir()), for the xla-ffi bindings\n"
         "  --arch SM                   for cuda-xla-ffi: the GPU architecture (default sm_90); nvcc is $NVCC or\n"
         "                              found as for --emit=ptx\n"
         "  --kernel NAME               only this kernel (default: all)\n"
         "  -D NAME=VALUE, -I DIR       as for kdt\n"
         "  --no-checks                 leave the run-time checks out\n"
         "  --flush-subnormal-adds      f32 add=true DMAs into @global flush subnormals, as on the GPU\n"
         "  --cxx COMPILER, --cxxflags=FLAGS, --portable   as for kdt run\n"
         "  --diagnostics-format=text|json|sarif, --diagnostics-file=PATH, --color=WHEN, -Werror, -w, --max-...=N\n"
         "  -h, --help                  print this help and exit\n\n"
         "Exit status: 0 success (the path on standard output), 1 errors in the input, 2 bad command line or a\n"
         "failed compile, 3 internal error.\n";
}

int build_main(const std::vector<std::string>& raw) {
  Options common;
  read_diagnostics_options_early(raw, common);
  for (const std::string& a : raw) {
    if (a == "--help" || a == "-h") {
      std::cout << build_help_text();
      return 0;
    }
  }
  std::vector<std::string> args;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == "--cxxflags" && i + 1 < raw.size()) args.push_back("--cxxflags=" + raw[++i]);
    else args.push_back(raw[i]);
  }
  po::options_description d("kdt build options");
  constexpr OptionGroup groups[] = {OptionGroup::Kernel, OptionGroup::Source, OptionGroup::RunModel,
                                    OptionGroup::Diagnostics, OptionGroup::Limits};
  for (OptionGroup group : groups) add_option_group(d, group);
  // clang-format off
  d.add_options()
    ("emit", po::value<std::string>(), "")
    ("xla-include", po::value<std::string>(), "")
    ("arch", po::value<std::string>(), "")
    ("cxx", po::value<std::string>(), "")
    ("cxxflags", po::value<std::vector<std::string>>()->composing(), "")
    ("portable", po::bool_switch(), "")
    ("file", po::value<std::string>(), "");
  // clang-format on
  po::positional_options_description positional;
  positional.add("file", 1);
  po::variables_map vm;
  std::string error;
  auto usage = [&](const std::string& message) { return usage_error(common, message + " (see kdt build --help)"); };
  if (!parse_command_line(args, d, &positional, vm, error)) return usage(error);
  if (!vm.count("file")) return usage("no input file");
  common.input = vm["file"].as<std::string>();
  for (OptionGroup group : groups) {
    if (!read_option_group(vm, group, common, error)) return usage(error);
  }
  if (common.run_defaults_given) {
    return usage("--dma-mode, --dma-order and --program-order are chosen at each call of a built kernel, not here");
  }
  std::string binding = vm.count("emit") ? vm["emit"].as<std::string>() : "c-api";
  if (binding != "c-api" && binding != "xla-ffi" && binding != "cuda-xla-ffi") {
    return usage("invalid value '" + binding + "' for --emit; kdt build makes c-api, xla-ffi or cuda-xla-ffi");
  }
  const bool cuda = binding == "cuda-xla-ffi";
  if (cuda && (vm.count("cxx") || vm.count("cxxflags") || vm["portable"].as<bool>())) {
    return usage("--cxx, --cxxflags and --portable apply to the C++ bindings; --emit=cuda-xla-ffi compiles with nvcc "
                 "($NVCC)");
  }
  if (!cuda && vm.count("arch")) return usage("--arch applies to --emit=cuda-xla-ffi");
  CompilerChoice choice;
  if (cuda) {
    choice.cuda_arch = vm.count("arch") ? vm["arch"].as<std::string>() : "sm_90";
    if (!valid_cuda_arch(choice.cuda_arch)) {
      return usage("invalid value '" + choice.cuda_arch + "' for --arch; expected sm_80, sm_90, ...");
    }
  }
  choice.shared_library = true;
  if (vm.count("cxx")) choice.cxx = vm["cxx"].as<std::string>();
  if (vm.count("cxxflags")) choice.cxxflags = vm["cxxflags"].as<std::vector<std::string>>();
  choice.portable = vm["portable"].as<bool>();
  if (binding != "c-api") {
    if (!vm.count("xla-include")) {
      return usage("--emit=" + binding + " needs --xla-include DIR, the directory of xla/ffi/api/ffi.h "
                   "(python3 -c 'import jax; print(jax.ffi.include_dir())')");
    }
    std::string dir = vm["xla-include"].as<std::string>();
    std::error_code ec;
    if (!fs::is_regular_file(fs::path(dir) / "xla/ffi/api/ffi.h", ec)) {
      return usage("--xla-include " + dir + ": there is no xla/ffi/api/ffi.h in it");
    }
    choice.system_includes.push_back(dir);
  } else if (vm.count("xla-include")) {
    return usage("--xla-include applies to --emit=xla-ffi and --emit=cuda-xla-ffi");
  }

  InterruptScope interrupts;
  Options front_end = common;
  front_end.keep_lowered = true;  // take_module below
  std::unique_ptr<Compilation> c = compile_front_end(common.input, front_end);
  if (!c->io_error.empty()) return usage_error(common, c->io_error);
  auto finish = [&](int status) {
    emit_diagnostics(common, c->diags.sorted(), c->sources);
    return status;
  };
  auto fail_usage = [&](const std::string& message) {
    return usage_error(common, message, c->diags.sorted(), &c->sources);
  };
  if (!c->ok) return finish(1);
  if (!c->program.unused_defines.empty()) {
    return fail_usage("-D " + c->program.unused_defines.front() + ": " + c->program.unused_define_reasons.front());
  }
  ir::Module module = take_module(*c, common.kernel);
  if (!common.kernel.empty() && module.kernels.empty()) {
    return fail_usage("--kernel " + common.kernel + ": no such kernel in the program");
  }
  if (module.kernels.empty()) return fail_usage("the program has no kernel to build");
  std::string source;
  if (cuda) {
    // The compiled path works on the IR before discharge (DMAs stay asynchronous).
    for (const ir::Kernel& k : module.kernels) {
      std::string refusal = cuda_ffi_refusal(k);
      if (!refusal.empty()) return fail_usage(refusal);
    }
    CudaEmitOptions options;
    options.arch = choice.cuda_arch;
    options.input_name = c->sources.file(1).path;
    options.binding = "xla-ffi";
    options.output_name = "kernel.cu";
    if (!emit_cuda(module, c->sources, options, c->diags, source) || c->diags.has_errors()) return finish(1);
  } else {
    if (!discharge_module(module, c->diags) || c->diags.has_errors()) return finish(1);
    CppEmitOptions cpp;
    cpp.checks = common.checks;
    cpp.flush_subnormal_adds = common.flush_subnormal_adds;
    cpp.input_name = c->sources.file(1).path;
    cpp.separate_runtime = true;
    cpp.binding = binding;
    cpp.output_name = "kernel.cpp";
    source = emit_cpp(module, c->sources, cpp);
  }

  std::error_code temp_error;
  fs::path temp = fs::temp_directory_path(temp_error);
  if (temp_error) temp = "/tmp";
  std::string work = (temp / "kdt-build-XXXXXX").string();
  if (!::mkdtemp(work.data())) return fail_usage("cannot create a temporary directory: " + std::string(std::strerror(errno)));
  BuildOutcome built = build_cached(source, choice, work);
  auto cleanup = [&](bool keep) {
    std::error_code ec;
    if (!keep) fs::remove_all(work, ec);
  };
  for (const std::string& w : built.warnings) {
    if (common.diag_format == DiagFormat::Text) std::cerr << "kdt: warning: " << w << "\n";
  }
  switch (built.kind) {
    case BuildOutcome::Kind::Built: break;
    case BuildOutcome::Kind::Usage: cleanup(false); return fail_usage(built.message);
    case BuildOutcome::Kind::Interrupted:
      cleanup(false);
      usage_error(common, "interrupted by " + signal_name(built.signal) + "; the build was stopped",
                  c->diags.sorted(), &c->sources);
      return 128 + built.signal;
    case BuildOutcome::Kind::CompilerFailed:
      cleanup(true);
      if (common.diag_format == DiagFormat::Text) std::cerr << built.log;
      return fail_usage(common.diag_format == DiagFormat::Text ? built.message
                                                               : built.message + ":\n" + built.log.substr(0, 8192));
  }
  // Without a usable cache the library stays in the work directory, which is then the caller's to remove.
  cleanup(built.binary.rfind(work, 0) == 0);
  emit_diagnostics(common, c->diags.sorted(), c->sources);
  std::cout << built.binary << "\n";
  return 0;
}

}  // namespace kdt
