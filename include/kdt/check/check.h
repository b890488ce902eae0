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
  // Type: a type alias or a `: type` generic, its dtype in `type`.
  // Function: a `fn`, whose declaration the checker keeps by name.
  enum class Kind : uint8_t { Const, Param, Scratch, Sem, Let, Var, LoopVar, AsmInput, AsmOutput, Type, Function };
  // The small fields first, packed (a large program has a symbol per binding).
  Kind kind = Kind::Let;
  ast::ParamMode mode = ast::ParamMode::In;  // Param
  bool used = false;
  // A scratch buffer or semaphore declared in a function body (section 12):
  // scoped to the call, so a returned descriptor may not name it.
  bool function_local = false;
  // A kernel parameter with a block spec: inside the body, its block.
  bool block_spec = false;
  // A grid-axis name (section 13): the axis it binds `program_id` of.
  int grid_axis = -1;
  // Unique within its kernel, so that emitted names never collide.
  int id = 0;
  InternedString name;
  SourceRange range;  // the declaring name
  // A ref parameter of a function: the first place its body writes it
  // (a store or a DMA into it), for `write-to-input` at the calls.
  SourceRange first_write;
  Type type;
  std::optional<int64_t> const_value;  // Const
};

struct CheckOptions {
  // `-D NAME=VALUE`: overrides of `const` declarations.
  std::map<std::string, int64_t> defines;
  // `-D T=f32`: overrides of `type` declarations (section 14).
  std::map<std::string, DType> type_defines;
  // The checker reads max_kernels, max_tile_bytes and max_scratch_bytes.
  Limits limits;
};

// One checked expansion of a KD function (section 12): per calling kernel
// and generic values, its body copied and checked with its parameters
// bound. IR lowering inlines it at each call.
struct FunctionInstance {
  const ast::Function* fn = nullptr;
  // `f`, or `f<T = bf16, M = 8>` for a generic one.
  std::string name;
  ast::Block body;
  // The parameters' symbols, in order.
  std::vector<const Symbol*> params;
  // What it returns: none, one, or a tuple's elements.
  std::vector<Type> results;
  bool ok = false;  // checked without errors
};

struct CheckedProgram {
  ast::Module module;
  std::deque<Symbol> symbols;
  // Every call the checker resolved to a built-in; `ast::Expr::call` points
  // here, as `ast::Expr::symbol` points into `symbols`.
  std::deque<ResolvedCall> calls;
  // Every function instance; `ast::Expr::instance` points here.
  std::deque<FunctionInstance> instances;
  std::vector<ast::Kernel*> kernels;  // in declaration order
  std::vector<ast::ConstDecl*> consts;
  // Names given with -D that no `const` (integer value) or `type` (dtype
  // value) declares, and what the driver says of each.
  std::vector<std::string> unused_defines;
  std::vector<std::string> unused_define_reasons;
};

// Checks `program.module`; reports to `diags`. Returns false on errors.
bool check_program(CheckedProgram& program, DiagnosticEngine& diags, const CheckOptions& options);

// NumPy broadcasting of two shapes; nullopt when incompatible.
std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b);

}  // namespace kdt
