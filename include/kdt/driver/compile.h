// The pipeline as the driver, the tests and the LSP run it:
// load -> parse -> check -> static DMA-protocol checks (-> lower -> discharge -> emit).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kdt/check/check.h"
#include "kdt/diag/engine.h"
#include "kdt/driver/options.h"
#include "kdt/ir/ir.h"

namespace kdt {

struct Compilation {
  SourceManager sources;
  DiagnosticEngine diags{sources};
  CheckedProgram program;
  std::vector<std::string> files_read;
  std::string io_error;  // the main file could not be read
  bool parsed = false;   // the AST exists (no syntax or include errors)
  bool ok = false;       // parsed and checked without errors (the DMA-protocol checks included)
  // Every kernel lowered, when the DMA-protocol checks needed it and the
  // caller emits (Options::emit, keep_lowered): the emit paths take it
  // instead of lowering the program a second time.
  std::optional<ir::Module> lowered;
};

// The lowered module of the checked program: every kernel, or only `kernel`
// when it is not empty. Takes `c.lowered` when the front end made it.
ir::Module take_module(Compilation& c, const std::string& kernel);

// Runs the front end on `path` (or on `text`, read as if it were `path`).
std::unique_ptr<Compilation> compile_front_end(const std::string& path, const Options& options,
                                               std::optional<std::string> text = std::nullopt);

// `kdt [OPTIONS] FILE`: returns the exit status.
int run_transpile(const Options& options);

// Renders diagnostics as the options ask and writes them to stderr or
// --diagnostics-file. Text mode writes nothing when there are none.
void emit_diagnostics(const Options& options, const std::vector<Diagnostic>& diags, const SourceManager& sources);

// A command-line error (exit status 2), as text or as a valid JSON/SARIF document.
// `diags` (with `sources`) are diagnostics found before the error; they go
// into the same document.
int usage_error(const Options& options, const std::string& message, const std::vector<Diagnostic>& diags = {},
                const SourceManager* sources = nullptr);

// An error of the tool itself, without a source location: `code` is one of
// the registry's Tool codes (command-line, cuda-toolchain-missing,
// internal-error). Reported like usage_error; returns 2.
int tool_error(const Options& options, DiagCode code, const std::string& message,
               const std::vector<Diagnostic>& diags = {}, const SourceManager* sources = nullptr);

}  // namespace kdt
