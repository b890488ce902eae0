// The front end: KD text -> ast::File, and a program's files -> ast::Module.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kdt/diag/engine.h"
#include "kdt/limits.h"
#include "kdt/syntax/ast.h"

namespace kdt {

struct ParseOptions {
  // Parsing reads max_nesting, max_expression_terms and max_literal_length:
  // input beyond them is refused before the parser runs; loading reads
  // max_include_depth.
  Limits limits;
};

// Parses one file already in `sources`. Syntax errors are reported to
// `diags`; the result is empty when there were any.
std::optional<ast::File> parse_file(const SourceManager& sources, FileId file, DiagnosticEngine& diags,
                                    const ParseOptions& options);

struct LoadOptions {
  std::vector<std::string> include_dirs;
  ParseOptions parse;
  // Text of the main file when it comes from memory (LSP, stdin already read).
  std::optional<std::string> main_text;
};

struct LoadResult {
  std::optional<ast::Module> module;  // empty when there were errors
  // Set when the main file could not be read (exit status 2, no diagnostic).
  std::string io_error;
  // Every file read (the main file first): the depfile's contents.
  std::vector<std::string> files_read;
};

// Reads `path` ("-" for standard input) and every file it includes, each
// once: relative to the including file, then the -I directories (from
// standard input: relative to the working directory first).
LoadResult load_program(const std::string& path, SourceManager& sources, DiagnosticEngine& diags,
                        const LoadOptions& options);

}  // namespace kdt
