// Consumers of diagnostics: each turns the engine's list into one format.
#pragma once

#include <string>
#include <vector>

#include "kdt/diag/diagnostic.h"

namespace kdt {

enum class DiagFormat { Text, Json, Sarif };

// clang-like: `file:line:col: error: message [code]`, the source line, a
// caret range and notes. `color` adds ANSI colours (only for a terminal).
std::string render_text(const std::vector<Diagnostic>& diags, const SourceManager& sources, bool color);
// A GCC-style JSON array (cli.md), always valid JSON.
std::string render_json(const std::vector<Diagnostic>& diags, const SourceManager& sources);
// SARIF 2.1.0 with one run of tool `kdt`.
std::string render_sarif(const std::vector<Diagnostic>& diags, const SourceManager& sources);

std::string render(DiagFormat format, const std::vector<Diagnostic>& diags, const SourceManager& sources,
                   bool color);

}  // namespace kdt
