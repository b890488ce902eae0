// Walking the AST: every expression of a file in source order, and the
// expressions under a position (what the LSP's hover and go-to-definition
// look up). Read-only; the checker's annotations (type, symbol) are read
// where they exist.
#pragma once

#include <cstdint>
#include <functional>

#include "kdt/syntax/ast.h"

namespace kdt::ast {

// Calls `f` on every expression of `file`: constants, parameter types,
// kernel attributes and bodies, each expression before its operands.
void for_each_expr(const File& file, const std::function<void(const Expr&)>& f);
// The same for one block (a function body) or one expression.
void for_each_expr(const Block& block, const std::function<void(const Expr&)>& f);
void for_each_expr(const Expr& expr, const std::function<void(const Expr&)>& f);

// What lies under the byte `offset` of `file`.
struct ExprsAt {
  // The name the offset touches (just past its end counts): one that
  // contains the offset wins over one that ends at it, then the shortest.
  const Expr* name = nullptr;
  // The shortest expression with a valid type that contains the offset.
  const Expr* innermost = nullptr;
};
ExprsAt exprs_at(const File& file, uint32_t offset);

// Whether `range` lies in `file` and contains `offset` (`touches`: or ends at it).
bool contains(const SourceRange& range, FileId file, uint32_t offset);
bool touches(const SourceRange& range, FileId file, uint32_t offset);

}  // namespace kdt::ast
