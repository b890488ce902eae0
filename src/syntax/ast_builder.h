// Builds the AST from an error-free ANTLR parse tree, with typed functions
// per grammar rule. The only file besides parse.cpp that sees ANTLR types.
#pragma once

#include "KDParser.h"
#include "kdt/syntax/ast.h"
#include "source_text.h"

namespace kdt::syntax {

// Adds the AST of one top-level item to `out` (whose `file` the caller set).
void build_item(KDParser::TopItemContext* item, const TokenRanges& ranges, const std::string& text,
                DiagnosticEngine& diags, ast::File& out);

}  // namespace kdt::syntax
