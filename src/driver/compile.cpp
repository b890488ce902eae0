#include "kdt/driver/compile.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include <nlohmann/json.hpp>

#include "kdt/analysis/dma_protocol.h"
#include "kdt/discharge/discharge.h"
#include "kdt/driver/output.h"
#include "kdt/driver/ptx_compile.h"
#include "kdt/emit/emit_cpp.h"
#include "kdt/emit/emit_cuda.h"
#include "kdt/ir/lower.h"
#include "kdt/syntax/ast_json.h"
#include "kdt/syntax/parse.h"

namespace kdt {

std::unique_ptr<Compilation> compile_front_end(const std::string& path, const Options& options,
                                               std::optional<std::string> text) {
  auto c = std::make_unique<Compilation>();
  c->diags.set_warning_policy(options.warnings);
  LoadOptions load;
  load.include_dirs = options.include_dirs;
  load.parse.limits = options.limits;
  load.main_text = std::move(text);
  LoadResult loaded = load_program(path, c->sources, c->diags, load);
  c->files_read = loaded.files_read;
  c->io_error = loaded.io_error;
  if (!loaded.module) return c;
  c->parsed = true;
  c->program.module = std::move(*loaded.module);
  CheckOptions check;
  check.defines = options.defines;
  check.type_defines = options.type_defines;
  check.limits = options.limits;
  c->ok = check_program(c->program, c->diags, check);
  if (c->ok && options.static_dma_checks) {
    // Section 18: on the IR every path lowers to, before either path's own stages.
    const size_t errors = c->diags.error_count();
    if (options.emit == EmitKind::Check && !options.keep_lowered) {
      // Only the findings are wanted (--emit=check, the language server):
      // one kernel's IR at a time, so that memory does not grow with the
      // program (issue 17).
      for (const ast::Kernel* k : c->program.kernels) {
        ir::Module one;
        one.kernels.push_back(lower_kernel(*k));
        check_dma_protocol(one, c->sources, c->diags);
      }
    } else {
      // The emitters take this module (take_module) instead of lowering again.
      c->lowered = lower_program(c->program, "");
      check_dma_protocol(*c->lowered, c->sources, c->diags);
    }
    c->ok = c->diags.error_count() == errors;
  }
  return c;
}

ir::Module take_module(Compilation& c, const std::string& kernel) {
  if (!c.lowered) return lower_program(c.program, kernel);
  ir::Module module = std::move(*c.lowered);
  c.lowered.reset();
  if (!kernel.empty()) {
    std::vector<ir::Kernel>& kernels = module.kernels;
    kernels.erase(std::remove_if(kernels.begin(), kernels.end(), [&](const ir::Kernel& k) { return k.name != kernel; }),
                  kernels.end());
  }
  return module;
}

namespace {

bool use_color(const Options& options) {
  if (options.color == "always") return true;
  if (options.color == "never" || !options.diag_file.empty()) return false;
  const char* term = std::getenv("TERM");
  return ::isatty(STDERR_FILENO) && !(term && std::string(term) == "dumb");
}

}  // namespace

void emit_diagnostics(const Options& options, const std::vector<Diagnostic>& diags, const SourceManager& sources) {
  if (options.diag_format == DiagFormat::Text && diags.empty()) return;
  std::string text = render(options.diag_format, diags, sources, use_color(options));
  if (!options.diag_file.empty()) {
    std::string error = write_output(options.diag_file, text);
    if (error.empty()) return;
    std::cerr << "kdt: " << error << "\n";
  }
  std::cerr << text;
  std::cerr.flush();
}

int usage_error(const Options& options, const std::string& message, const std::vector<Diagnostic>& diags,
                const SourceManager* sources) {
  return tool_error(options, DiagCode::CommandLine, message, diags, sources);
}

int tool_error(const Options& options, DiagCode code, const std::string& message, const std::vector<Diagnostic>& diags,
               const SourceManager* sources) {
  if (options.diag_format == DiagFormat::Text) {
    if (sources) emit_diagnostics(options, diags, *sources);
    std::cerr << "kdt: error: " << message << "\n";
    return 2;
  }
  // Tools reading JSON or SARIF get a document they can parse even here;
  // an error of the tool has no source location, and its Tool code.
  const char* name = diag_info(code).name;
  nlohmann::json error = {{"kind", "error"}, {"message", message}, {"code", name},
                          {"locations", nlohmann::json::array()}, {"children", nlohmann::json::array()}};
  std::string text;
  nlohmann::json result = {{"ruleId", name}, {"level", "error"}, {"message", {{"text", message}}}};
  if (sources) {
    // One document: the diagnostics found so far, then the command-line error.
    nlohmann::json doc = nlohmann::json::parse(render(options.diag_format, diags, *sources, false));
    if (options.diag_format == DiagFormat::Json) doc.push_back(error);
    else doc["runs"][0]["results"].push_back(result);
    text = doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  } else if (options.diag_format == DiagFormat::Json) {
    text = nlohmann::json::array({error}).dump(2) + "\n";
  } else {
    text = nlohmann::json{{"version", "2.1.0"},
                          {"runs", {{{"tool", {{"driver", {{"name", "kdt"}}}}}, {"results", {result}}}}}}
               .dump(2) + "\n";
  }
  if (!options.diag_file.empty() && write_output(options.diag_file, text).empty()) return 2;
  std::cerr << text;
  return 2;
}

int run_transpile(const Options& options) {
  if (options.output != "-" && options.input != "-" && same_file(options.output, options.input)) {
    return usage_error(options, "the output '" + options.output + "' is the input file; refusing to overwrite it");
  }
  if (options.run_defaults_given && !(options.emit == EmitKind::Cpp && options.harness)) {
    return usage_error(options,
                       "--dma-mode, --dma-order and --program-order apply to `kdt run` and to `--emit=cpp --harness` "
                       "(as the harness's defaults)");
  }
  if (options.devices == "mpi" && options.emit != EmitKind::Cpp) {
    return usage_error(options, "--devices=mpi applies to --emit=cpp");
  }
  if (options.devices == "nvshmem" && options.emit != EmitKind::Cuda) {
    return usage_error(options, "--devices=nvshmem applies to --emit=cuda");
  }
  std::unique_ptr<Compilation> c = compile_front_end(options.input, options);
  if (!c->io_error.empty()) return usage_error(options, c->io_error);
  if (c->ok && !c->program.unused_defines.empty()) {
    return usage_error(options, "-D " + c->program.unused_defines.front() + ": " +
                                    c->program.unused_define_reasons.front(),
                       c->diags.sorted(), &c->sources);
  }
  if (c->ok && !options.kernel.empty()) {
    bool found = false;
    for (const ast::Kernel* k : c->program.kernels) found = found || k->name.text == options.kernel;
    if (!found) {
      return usage_error(options, "--kernel " + options.kernel + ": no such kernel in the program", c->diags.sorted(), &c->sources);
    }
  }
  std::string output;
  bool has_output = false;
  if (c->ok) {
    switch (options.emit) {
      case EmitKind::Check: break;
      case EmitKind::Ast:
        output = ast_to_json(c->program.module, c->sources);
        has_output = true;
        break;
      case EmitKind::Ir:
      case EmitKind::DischargedIr:
      case EmitKind::Cpp:
      case EmitKind::CApi:
      case EmitKind::XlaFfi: {
        ir::Module module = take_module(*c, options.kernel);
        if (options.emit != EmitKind::Ir && !discharge_module(module, c->diags)) break;
        if (options.emit != EmitKind::Ir && options.emit != EmitKind::DischargedIr) {
          CppEmitOptions cpp;
          cpp.checks = options.checks;
          cpp.flush_subnormal_adds = options.flush_subnormal_adds;
          cpp.harness = options.harness && options.emit == EmitKind::Cpp;
          cpp.binding = options.emit == EmitKind::CApi ? "c-api" : options.emit == EmitKind::XlaFfi ? "xla-ffi" : "";
          cpp.input_name = c->sources.file(1).path;
          cpp.output_name = options.output == "-" ? "<stdout>" : options.output;
          cpp.dma_mode = options.dma_mode;
          cpp.dma_order = options.dma_order;
          cpp.program_order = options.program_order;
          cpp.mpi = options.devices == "mpi";
          output = emit_cpp(module, c->sources, cpp);
        } else {
          output = ir::print_module(module, c->sources);
        }
        has_output = true;
        break;
      }
      case EmitKind::Cuda:
      case EmitKind::CudaXlaFfi:
      case EmitKind::Ptx: {
        // The compiled path works on the IR before discharge: DMAs stay asynchronous.
        ir::Module module = take_module(*c, options.kernel);
        CudaEmitOptions cuda;
        if (options.emit == EmitKind::CudaXlaFfi) {
          cuda.binding = "xla-ffi";
          for (const ir::Kernel& k : module.kernels) {
            std::string refusal = cuda_ffi_refusal(k);
            if (!refusal.empty()) return usage_error(options, refusal, c->diags.sorted(), &c->sources);
          }
        }
        cuda.arch = options.arch;
        cuda.threads = options.threads;
        cuda.debug = options.cuda_debug;
        cuda.tf32 = options.cuda_tf32;
        cuda.nvshmem = options.devices == "nvshmem";
        cuda.input_name = c->sources.file(1).path;
        cuda.output_name = options.output == "-" ? "<stdout>" : options.output;
        size_t errors = c->diags.error_count();
        if (!emit_cuda(module, c->sources, cuda, c->diags, output)) {
          if (c->diags.error_count() > errors) break;
          return usage_error(options, "--emit=cuda is not available in this version of kdt", c->diags.sorted(),
                             &c->sources);
        }
        if (options.emit == EmitKind::Ptx) {
          std::string ptx, error;
          PtxStatus status = compile_to_ptx(output, options.arch, ptx, error);
          if (status == PtxStatus::ToolchainMissing) {
            const DiagCode missing = DiagCode::CudaToolchainMissing;
            return tool_error(options, missing, std::string(diag_info(missing).name) + ": " + error, c->diags.sorted(),
                              &c->sources);
          }
          if (status != PtxStatus::Ok) return usage_error(options, error, c->diags.sorted(), &c->sources);
          output = std::move(ptx);
        }
        has_output = true;
        break;
      }
    }
  }
  if (!c->ok || c->diags.has_errors()) {
    emit_diagnostics(options, c->diags.sorted(), c->sources);
    return 1;
  }
  // A depfile Make would misread is refused before anything is written.
  std::string dep_target = !options.dep_target.empty() ? options.dep_target : options.output;
  std::vector<std::string> deps = c->files_read;
  // Standard input is not a file Make could check.
  if (options.input == "-" && !deps.empty()) deps.erase(deps.begin());
  if (options.write_depfile) {
    std::string bad = depfile_unrepresentable(dep_target, deps);
    if (!bad.empty()) {
      return usage_error(options, "-MD: the path \"" + printable(bad) +
                                      "\" holds a control character (newline, tab, ...) that no Make rule can name; "
                                      "rename it or leave -MD out",
                         c->diags.sorted(), &c->sources);
    }
  }
  // Diagnostics are written once, together with a write error if there is one.
  if (has_output) {
    std::string error = write_output(options.output, output);
    if (!error.empty()) return usage_error(options, error, c->diags.sorted(), &c->sources);
  }
  if (options.write_depfile) {
    std::string error =
        write_output(options.depfile, make_depfile(dep_target, deps, options.phony_targets, options.input != "-"));
    if (!error.empty()) return usage_error(options, error, c->diags.sorted(), &c->sources);
  }
  emit_diagnostics(options, c->diags.sorted(), c->sources);
  return 0;
}

}  // namespace kdt
