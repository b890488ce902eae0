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

#include "kdt/source/compact_vector.h"
#include "kdt/source/interned_string.h"
#include "kdt/source/source_manager.h"
#include "kdt/source/type.h"

namespace kdt {
struct Symbol;
struct ResolvedCall;
struct FunctionInstance;
}

namespace kdt::ast {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;

struct Name {
  InternedString text;  // interned: a large program repeats few names (issue 17)
  SourceRange range;
};

// `f32[8, 128]`, `T[M, N]`, or a scalar type (`f32`, `T`: no dims).
struct TileTypeExpr {
  DType dtype = DType::F32;
  // A type name (alias or generic, section 14) in place of the dtype: the
  // checker resolves it and sets `dtype`. Empty for a dtype keyword.
  Name type_name;
  std::vector<ExprPtr> dims;
  SourceRange range;
};

// `dma` as a parameter or result type: a DMA descriptor (section 16).
inline bool is_descriptor_type(const TileTypeExpr& t) { return t.type_name.text == "dma" && t.dims.empty(); }

struct Block {
  std::vector<StmtPtr> stmts;
  SourceRange range;
};

enum class UnaryOp : uint8_t { Neg, Not, BitNot };
enum class BinaryOp : uint8_t { Mul, Div, Rem, Add, Sub, Shl, Shr, BitAnd, BitXor, BitOr, Lt, Le, Gt, Ge, Eq, Ne, And, Or };
const char* unary_op_spelling(UnaryOp op);
const char* binary_op_spelling(BinaryOp op);
inline bool is_comparison(BinaryOp op) { return op >= BinaryOp::Lt && op <= BinaryOp::Ne; }

// One entry of `r[...]`.
struct IndexEntry {
  enum class Kind : uint8_t { Scalar, Full, Slice, DynSlice, Ellipsis };
  Kind kind = Kind::Full;
  ExprPtr first;   // Scalar: the index; Slice: start; DynSlice: start
  ExprPtr second;  // Slice: stop; DynSlice: size
  SourceRange range;
  // Filled by the checker: the static start (Slice) and the size (Slice, DynSlice).
  int64_t start = 0;
  int64_t size = 0;
};

struct Arg {
  enum class Kind : uint8_t { Positional, Keyword, Type, Shape };
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
  // DeviceCoords: `(d0, d1)` or `(y: e)` as the value of `device=` (section
  // 15), one Arg per coordinate (a Keyword arg names its mesh axis).
  enum class Kind : uint8_t {
    IntLiteral, FloatLiteral, BoolLiteral, Name, Unary, Binary, Ternary, Call, Index, Asm, DeviceCoords
  };
  // The small fields first, packed: a large input has millions of
  // expressions (issue 17).
  Kind kind = Kind::IntLiteral;
  bool parenthesized = false;
  // Literals. An integer literal that does not fit 64 bits sets `too_large`.
  bool too_large = false;
  bool bool_value = false;
  UnaryOp unary_op = UnaryOp::Neg;
  BinaryOp binary_op = BinaryOp::Add;
  SourceRange range;
  SourceRange op_range;  // Unary, Binary: the operator; Call: the callee's name
  // One slot: IntLiteral's value, or FloatLiteral's (read the one of the kind).
  union {
    uint64_t int_value = 0;
    double float_value;
  };
  InternedString spelling;  // literal text, name, or callee

  // Out of line: most expressions (names, literals) have none (issue 17).
  CompactVector<ExprPtr> operands;  // Unary 1, Binary 2, Ternary 3, Index: the base
  CompactVector<Arg> args;
  CompactVector<IndexEntry> indices;  // Index
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
  // Call of a KD function: the checked instance it calls (section 12).
  const FunctionInstance* instance = nullptr;
};

enum class AssignOp : uint8_t { Assign, Add, Sub, Mul };

struct IfClause {
  ExprPtr cond;  // null for the final `else`
  Block body;
  SourceRange range;
};

struct Stmt {
  enum class Kind : uint8_t { Scratch, Sem, Let, LetTuple, Var, For, While, If, Assert, Assign, Expr, Block, Return };
  Kind kind = Kind::Expr;
  SourceRange range;

  Name name;                 // Scratch, Sem, Let, Var, For (loop variable)
  CompactVector<Name> names;   // LetTuple
  std::unique_ptr<TileTypeExpr> tile_type;  // Scratch
  Name mem_space;            // Scratch
  ExprPtr sem_count;         // Sem: array length (rows), null for one semaphore
  ExprPtr sem_cols;          // Sem: the columns of a 2-D array, else null
  Name sem_kind;             // Sem
  ExprPtr value;             // Let, LetTuple, Var, Assign (rhs), Expr, Assert and While (condition)
  ExprPtr target;            // Assign
  AssignOp assign_op = AssignOp::Assign;
  SourceRange op_range;
  ExprPtr lo, hi, step;      // For
  Name step_word;
  Block body;                // For, While, Block
  CompactVector<IfClause> clauses;  // If: `if`, `else if`..., optional `else`
  std::optional<std::string> message;  // Assert
  CompactVector<ExprPtr> values;  // Return: the value, or a tuple's (none for `return;`)
  bool tuple = false;           // Return: `return (a, b);`

  // Filled by the checker: the symbols a declaration introduces.
  CompactVector<const Symbol*> declared;
};

enum class ParamMode : uint8_t { In, Out, InOut, Scalar };

// `block [B0, B1, ...] at (e0, e1, ...)` on a kernel parameter (section 13).
struct BlockSpec {
  std::vector<ExprPtr> dims;
  std::vector<ExprPtr> index;
  SourceRange range;
  // Filled by the checker: the block's shape and the whole array's.
  Shape shape;
  Shape array_shape;
};

struct Param {
  Name name;
  ParamMode mode = ParamMode::In;
  SourceRange mode_range;
  std::unique_ptr<TileTypeExpr> tile_type;  // refs
  DType scalar_dtype = DType::F32;          // scalars
  Name scalar_type_name;                    // scalars: a type name (section 14)
  Name mem_space;
  std::unique_ptr<BlockSpec> block;  // refs: the block spec, when given
  SourceRange range;
  const Symbol* symbol = nullptr;
};

struct KernelAttr {
  Name name;  // grid, devices, threads
  std::vector<ExprPtr> args;
  std::vector<Name> arg_names;  // parallel to args: `x` of `devices(x: 2)`, empty when unnamed
  std::vector<bool> sequential;  // parallel to args: `sequential k: G` (grid only, section 13)
  SourceRange range;
};

// A grid axis as the checker reads it (section 13).
struct GridAxis {
  int64_t extent = 1;
  bool sequential = false;
  std::string name;                // empty when unnamed
  const Symbol* symbol = nullptr;  // the name's `i32` binding
};

struct Kernel {
  Name name;
  std::vector<Param> params;
  std::vector<KernelAttr> attrs;
  Block body;
  SourceRange range;
  // Filled by the checker.
  std::vector<int64_t> grid;
  std::vector<GridAxis> axes;         // parallel to grid
  int64_t devices = 1;                // the product of `mesh`
  std::vector<int64_t> mesh;          // devices(D0, D1, ...): one size per mesh axis
  std::vector<std::string> mesh_axes;  // parallel to mesh: the axis names, empty when unnamed
  std::optional<int64_t> threads;
};

// `type T = bf16;` (section 14).
struct TypeDecl {
  Name name;
  DType dtype = DType::F32;
  Name alias_of;  // `type U = T;`: the name, resolved by the checker
  SourceRange range;
  const Symbol* symbol = nullptr;
};

// `<T: type, M>`: a dtype (`: type`) or an integer constant, deduced at each call.
struct Generic {
  Name name;
  bool is_type = false;
  Name kind_word;  // `type` after the colon, when given
};

struct FnParam {
  // Value: a scalar or tile (`n: i32`, `t: f32[M, N]`); Ref: a view
  // (`r: in f32[M] @global`); Sem: `s: sem dma` or `s: sem dma[N]`;
  // Dma: a descriptor (`c: dma`, section 16).
  enum class Kind { Value, Ref, Sem, Dma };
  Kind kind = Kind::Value;
  Name name;
  bool readonly = false;  // `in`
  std::unique_ptr<TileTypeExpr> type;  // Value, Ref
  Name mem_space;                      // Ref
  Name sem_kind;                       // Sem
  ExprPtr sem_count;                   // Sem: array length, null for one semaphore
  SourceRange range;
};

// `fn name<generics>(params) -> results { body }` (section 12).
struct Function {
  Name name;
  std::vector<Generic> generics;
  std::vector<FnParam> params;
  // Empty: returns nothing; one type; or a tuple's types (`tuple_result`).
  std::vector<std::unique_ptr<TileTypeExpr>> results;
  bool tuple_result = false;
  SourceRange result_range;
  Block body;
  SourceRange range;
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
  std::vector<TypeDecl> types;
  std::vector<Function> functions;
  // Declaration order across the kinds of top-level item: (kind, index).
  enum class ItemKind { Const, Kernel, Type, Function };
  std::vector<std::pair<ItemKind, size_t>> order;
};

// A deep copy of the syntax of `b` (checker annotations are not copied):
// each instance of a generic function is checked on its own copy.
Block clone(const Block& b);
ExprPtr clone(const Expr& e);

// Every file of a program, the main file last, each included file before
// the file that first includes it (so declarations precede their uses).
struct Module {
  std::vector<File> files;
  std::vector<FileId> files_read;  // every file read, in reading order
};

}  // namespace kdt::ast
