// The Language Server Protocol consumer of diagnostics (`kdt lsp`), beside
// text, JSON and SARIF (render.h): LSP Diagnostic objects, and the ranges,
// locations and file URIs they are made of.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kdt/diag/diagnostic.h"

namespace kdt {

// file:// URIs and paths (percent-encoding as RFC 3986 asks).
std::string path_from_uri(const std::string& uri);
std::string uri_from_path(const std::string& path);

// An LSP Range: zero-based lines and UTF-16 characters; an invalid range is
// the start of the file.
nlohmann::json lsp_range(const SourceManager& sources, const SourceRange& range);
// An LSP Location. File 1, the open document, is `main_uri`; an included
// file is the URI of its absolute path.
nlohmann::json lsp_location(const SourceManager& sources, const SourceRange& range, const std::string& main_uri);

// The diagnostics of the open document `main_uri` (file 1). One in an
// included file is shown on the `include` that brings it in, its own place
// given as related information; labels and located notes are related
// information too, notes without a place are appended to the message.
nlohmann::json render_lsp(const std::vector<Diagnostic>& diags, const SourceManager& sources,
                          const std::string& main_uri);

// textDocument/codeAction: a `quickfix` CodeAction for each diagnostic with
// fix-its whose place (as render_lsp shows it) meets the zero-based lines
// [first_line, last_line]; its edit applies the fix-its, its diagnostic is
// the one render_lsp gives.
nlohmann::json render_lsp_code_actions(const std::vector<Diagnostic>& diags, const SourceManager& sources,
                                       const std::string& main_uri, int64_t first_line, int64_t last_line);

}  // namespace kdt
