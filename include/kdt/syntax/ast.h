// The KD abstract syntax tree: plain C++ types owned by kdt, every node with
// its exact source range. Nothing from ANTLR appears here.
//
// The checker annotates expressions in place (`type`, `symbol`,
// `const_value`), which makes the checked AST the input of IR lowering.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kdt/source/source_manager.h"
#include "kdt/source/type.h"

namespace kdt {
struct Symbol;
struct ResolvedCall;
}

namespace kdt::ast {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;

struct Name {
  std::string text;
  SourceRange range;
};

// `f32[8, 128]`
struct TileTypeExpr {
  DType dtype = DType::F32;
  std::vector<ExprPtr> dims;
  SourceRange range;
};

struct Block {
  std::vector<StmtPtr> stmts;
  SourceRange range;
};

enum class UnaryOp { Neg, Not, BitNot };
enum class BinaryOp { Mul, Div, Rem, Add, Sub, Shl, Shr, BitAnd, BitXor, BitOr, Lt, Le, Gt, Ge, Eq, Ne, And, Or };
const char* unary_op_spelling(UnaryOp op);
const char* binary_op_spelling(BinaryOp op);
inline bool is_comparison(BinaryOp op) { return op >= BinaryOp::Lt && op <= BinaryOp::Ne; }

// One entry of `r[...]`.
struct IndexEntry {
  enum class Kind { Scalar, Full, Slice, DynSlice, Ellipsis };
  Kind kind = Kind::Full;
  ExprPtr first;   // Scalar: the index; Slice: start; DynSlice: start
  ExprPtr second;  // Slice: stop; DynSlice: size
  SourceRange range;
  // Filled by the checker: the static start (Slice) and the size (Slice, DynSlice).
  int64_t start = 0;
  int64_t size = 0;
};

struct Arg {
  enum class Kind { Positional, Keyword, Type, Shape };
  Kind kind = Kind::Positional;
  Name keyword;                        // Keyword
  ExprPtr value;                       // Positional, Keyword
  std::unique_ptr<TileTypeExpr> type;  // Type: `f32[8, 128]`
  std::vector<ExprPtr> shape;          // Shape: `[d0, d1]`
  SourceRange range;
};

struct AsmOperand {
  Name name;
  DType dtype = DType::F32;
  ExprPtr value;  // inputs only
  SourceRange range;
};

// One template string, unescaped, with the byte offset in the source of
// every byte of `text` so that a PTX instruction maps back to its column.
struct AsmString {
  std::string text;
  std::vector<uint32_t> source_offsets;
  SourceRange range;
};

struct AsmBlock {
  Name lang;  // `ptx`
  bool is_volatile = false;
  std::vector<AsmOperand> inputs;
  std::vector<AsmOperand> outputs;
  std::vector<std::string> clobbers;
  std::vector<AsmString> strings;
  std::optional<Block> fallback;
  SourceRange body_range;  // `{ "..." }`
  SourceRange range;
  // Symbols the checker creates for the operands inside the fallback.
  std::vector<const Symbol*> input_symbols;
  std::vector<const Symbol*> output_symbols;
  // The template joined with newlines, `%%` kept (PTX reader input).
  std::string joined_template() const;
};

struct Expr {
  enum class Kind { IntLiteral, FloatLiteral, BoolLiteral, Name, Unary, Binary, Ternary, Call, Index, Asm };
  Kind kind = Kind::IntLiteral;
  SourceRange range;
  bool parenthesized = false;

  // Literals. An integer literal that does not fit 64 bits sets `too_large`.
  uint64_t int_value = 0;
  bool too_large = false;
  double float_value = 0;
  bool bool_value = false;
  std::string spelling;  // literal text, name, or callee

  UnaryOp unary_op = UnaryOp::Neg;
  BinaryOp binary_op = BinaryOp::Add;
  SourceRange op_range;
  std::vector<ExprPtr> operands;  // Unary 1, Binary 2, Ternary 3, Index: the base

  SourceRange callee_range;  // Call
  std::vector<Arg> args;
  std::vector<IndexEntry> indices;  // Index
  std::unique_ptr<AsmBlock> asm_block;

  // Filled by the checker.
  Type type;
  const Symbol* symbol = nullptr;
  std::optional<int64_t> const_value;
  // Call: the built-in it resolved to and its typed arguments
  // (kdt/check/builtin_table.h). A pointer into the checked program, like
  // `symbol`, rather than a side table keyed by node: lowering reads it
  // where it meets the call, and this header needs no checker types.
  const ResolvedCall* call = nullptr;
};

enum class AssignOp { Assign, Add, Sub, Mul };

struct IfClause {
  ExprPtr cond;  // null for the final `else`
  Block body;
  SourceRange range;
};

struct Stmt {
  enum class Kind { Scratch, Sem, Let, LetTuple, Var, For, While, If, Assert, Assign, Expr, Block };
  Kind kind = Kind::Expr;
  SourceRange range;

  Name name;                 // Scratch, Sem, Let, Var, For (loop variable)
  std::vector<Name> names;   // LetTuple
  std::unique_ptr<TileTypeExpr> tile_type;  // Scratch
  Name mem_space;            // Scratch
  ExprPtr sem_count;         // Sem: array length, null for one semaphore
  Name sem_kind;             // Sem
  ExprPtr value;             // Let, LetTuple, Var, Assign (rhs), Expr, Assert and While (condition)
  ExprPtr target;            // Assign
  AssignOp assign_op = AssignOp::Assign;
  SourceRange op_range;
  ExprPtr lo, hi, step;      // For
  Name step_word;
  Block body;                // For, While, Block
  std::vector<IfClause> clauses;  // If: `if`, `else if`..., optional `else`
  std::optional<std::string> message;  // Assert

  // Filled by the checker: the symbols a declaration introduces.
  std::vector<const Symbol*> declared;
};

enum class ParamMode { In, Out, InOut, Scalar };

struct Param {
  Name name;
  ParamMode mode = ParamMode::In;
  SourceRange mode_range;
  std::unique_ptr<TileTypeExpr> tile_type;  // refs
  DType scalar_dtype = DType::F32;          // scalars
  Name mem_space;
  SourceRange range;
  const Symbol* symbol = nullptr;
};

struct KernelAttr {
  Name name;  // grid, devices, threads
  std::vector<ExprPtr> args;
  SourceRange range;
};

struct Kernel {
  Name name;
  std::vector<Param> params;
  std::vector<KernelAttr> attrs;
  Block body;
  SourceRange range;
  // Filled by the checker.
  std::vector<int64_t> grid;
  int64_t devices = 1;
  std::optional<int64_t> threads;
};

struct ConstDecl {
  Name name;
  ExprPtr value;
  SourceRange range;
  const Symbol* symbol = nullptr;
};

struct Include {
  std::string path;
  SourceRange range;       // the whole `include "...";`
  SourceRange path_range;  // the string literal
};

// One parsed file, before its includes are resolved.
struct File {
  FileId file = 0;
  std::vector<Include> includes;
  std::vector<ConstDecl> consts;
  std::vector<Kernel> kernels;
  // Declaration order across consts and kernels: (is_kernel, index).
  std::vector<std::pair<bool, size_t>> order;
};

// Every file of a program, the main file last, each included file before
// the file that first includes it (so declarations precede their uses).
struct Module {
  std::vector<File> files;
  std::vector<FileId> files_read;  // every file read, in reading order
};

}  // namespace kdt::ast
