// The checker: names, constants, dtypes, shapes, memory spaces, DMAs and
// asm blocks (spec sections 3-9). It annotates the AST in place; the
// checked program is what IR lowering reads.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <string>

#include "kdt/check/builtin_table.h"
#include "kdt/diag/engine.h"
#include "kdt/limits.h"
#include "kdt/syntax/ast.h"

namespace kdt {

struct Symbol {
  enum class Kind { Const, Param, Scratch, Sem, Let, Var, LoopVar, AsmInput, AsmOutput };
  Kind kind = Kind::Let;
  std::string name;
  SourceRange range;  // the declaring name
  Type type;
  std::optional<int64_t> const_value;  // Const
  ast::ParamMode mode = ast::ParamMode::In;  // Param
  bool used = false;
  // Unique within its kernel, so that emitted names never collide.
  int id = 0;
};

struct CheckOptions {
  // `-D NAME=VALUE`: overrides of `const` declarations.
  std::map<std::string, int64_t> defines;
  // The checker reads max_kernels, max_tile_bytes and max_scratch_bytes.
  Limits limits;
};

struct CheckedProgram {
  ast::Module module;
  std::deque<Symbol> symbols;
  // Every call the checker resolved to a built-in; `ast::Expr::call` points
  // here, as `ast::Expr::symbol` points into `symbols`.
  std::deque<ResolvedCall> calls;
  std::vector<ast::Kernel*> kernels;  // in declaration order
  std::vector<ast::ConstDecl*> consts;
  // Names given with -D that no `const` declares.
  std::vector<std::string> unused_defines;
};

// Checks `program.module`; reports to `diags`. Returns false on errors.
bool check_program(CheckedProgram& program, DiagnosticEngine& diags, const CheckOptions& options);

// NumPy broadcasting of two shapes; nullopt when incompatible.
std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b);

}  // namespace kdt
