// Builds the AST from an error-free ANTLR parse tree, with typed functions
// per grammar rule. The only file besides parse.cpp that sees ANTLR types.
#pragma once

#include "KDParser.h"
#include "kdt/syntax/ast.h"
#include "source_text.h"

namespace kdt::syntax {

ast::File build_ast(KDParser::FileContext* tree, const TokenRanges& ranges, const std::string& text,
                    DiagnosticEngine& diags);

}  // namespace kdt::syntax
