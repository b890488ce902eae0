// `--emit=ast`: the AST as JSON, every node with its source range.
#pragma once

#include <string>

#include "kdt/syntax/ast.h"

namespace kdt {

std::string ast_to_json(const ast::Module& module, const SourceManager& sources);

}  // namespace kdt
