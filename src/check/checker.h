// The checker's internal state, shared by its source files:
// check.cpp (declarations and statements), const_eval.cpp (constant
// expressions) and builtins.cpp (calls, views and asm blocks).
#pragma once

#include <array>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "kdt/check/builtin_table.h"
#include "kdt/check/check.h"

namespace kdt::check {

// Where an expression is checked: the value of a DMA operand is a place.
struct View {
  const Symbol* ref = nullptr;
  Shape shape;  // the view's shape, dropped dimensions removed
  bool ok = false;
};

// The arguments of one call, split and validated against its row of the
// built-in table (builtins.cpp, split_args).
struct CallArgs {
  std::vector<ast::Arg*> positional;
  std::array<ast::Arg*, kKeywordCount> keywords{};
  bool ok = true;
  ast::Arg* keyword(Keyword k) const { return keywords[static_cast<size_t>(k)]; }
};

// A generic's deduced value at a call: a dtype or an integer.
struct GenericValue {
  std::optional<DType> dtype;
  std::optional<int64_t> value;
  bool bound() const { return dtype || value; }
  std::string spelling() const { return dtype ? std::string(dtype_name(*dtype)) : std::to_string(value.value_or(0)); }
};

class Checker {
 public:
  Checker(CheckedProgram& program, DiagnosticEngine& diags, const CheckOptions& options)
      : program_(program), diags_(diags), options_(options) {}

  bool run();

  // const_eval.cpp
  // Evaluates a constant expression in 64 bits. `quiet` evaluates without
  // reporting (to learn whether an index happens to be constant).
  std::optional<int64_t> eval_const(const ast::Expr& e, bool quiet = false);
  std::optional<int64_t> eval_positive(const ast::Expr& e, const char* what);
  std::optional<Shape> eval_shape(const std::vector<ast::ExprPtr>& dims, SourceRange range);

  // builtins.cpp
  // Resolves a call to its row of the built-in table, records the
  // ResolvedCall on the node and checks it by the row's result rule.
  Type check_call(ast::Expr& e);
  Type check_dot(ast::Expr& e, const CallArgs& a, ResolvedCall& call);
  Type check_memory_call(ast::Expr& e, const CallArgs& a, ResolvedCall& call);
  // `e` as a DMA descriptor (section 16); reports anything else.
  Type expect_descriptor(ast::Expr& e, const char* call);
  // A positional argument that must be a value.
  Type value_of(ast::Arg* arg);
  // `masked`: the view of a masked load or store, which may reach past the ref.
  // Refs (parameters, scratch) of more than kMaxRefRank dimensions are refused.
  bool ref_rank_ok(const Shape& shape, SourceRange range);
  View check_view(ast::Expr& e, bool for_write, bool masked = false);
  Type check_asm(ast::Expr& e);
  Type check_index_value(ast::Expr& e);

  // sizes.cpp
  // Bytes of a ref: no 64-bit overflow, at most --max-ref-bytes.
  bool ref_size_ok(DType dtype, const Shape& shape, SourceRange range);
  // Programs, devices and threads of a kernel's launch.
  void check_launch_size(const ast::Kernel& k);

  // mesh.cpp (spec section 15)
  void check_devices_attr(ast::Kernel& k, const ast::KernelAttr& attr);
  // The axis of `device_id(a)` / `num_devices(a)`: a mesh-axis name or a constant.
  std::optional<int64_t> mesh_axis_arg(ast::Expr& axis);
  // The value of `device=`: a linear id or `(d0, d1)` / `(y: e)`.
  void check_device_value(ast::Expr& value);

  // grid.cpp (spec section 13)
  void check_grid_attr(ast::Kernel& k, const ast::KernelAttr& attr);
  void declare_grid_axes(ast::Kernel& k);
  // The axis of `program_id(a)` / `num_programs(a)` named by a grid-axis name.
  std::optional<int64_t> grid_axis_arg(const ast::Expr& axis);
  void check_block_spec(ast::Kernel& k, ast::Param& p, Symbol& param);

  // functions.cpp (spec sections 12 and 14)
  // Declares every function and reports `recursive-call` before any body is checked.
  void declare_functions();
  void check_type_decl(ast::TypeDecl& t);
  // A non-generic function on its own; a generic one's declaration only.
  void check_function_decl(const ast::Function& fn);
  Type check_function_call(ast::Expr& e, const ast::Function& fn);
  // The instance of `fn` for these generic values in the current kernel
  // (made and checked on first use); `call` is null for the check of a
  // non-generic function on its own. Null past the instance limit.
  // `args`: the arguments' types (a descriptor parameter takes its argument's).
  FunctionInstance* instantiate(const ast::Function& fn, const std::vector<GenericValue>& values,
                                const std::vector<Type>& args, const ast::Expr* call);
  // The dtype a type expression names: a dtype keyword or a type name.
  std::optional<DType> resolve_dtype(const ast::TileTypeExpr& t);
  std::optional<DType> resolve_type_name(const ast::Name& name);
  // `T[d, ...]` written as an index in an argument list: a type.
  bool is_type_name(const std::string& name) const;
  // Rewrites each positional `T[8, 128]` of a call, whose `T` names a type,
  // into the dtype-and-shape argument it is (the grammar cannot tell).
  void types_as_args(ast::Expr& call);
  void check_return(ast::Stmt& s);

  // check.cpp
  void check_kernel_header(ast::Kernel& k);
  void report_unused(const std::unordered_map<std::string, Symbol*>& scope);
  void check_stmt(ast::Stmt& s);
  void check_assign(ast::Stmt& s);
  // `sem NAME[count, cols]: kind` of a declaration or a function parameter.
  Type sem_type(const ast::Name& kind, const ast::Expr* count, const ast::Expr* cols);
  void check_compound(ast::Stmt& s, const Type& target);
  Type check_expr(ast::Expr& e);
  Type check_expr_kind(ast::Expr& e);
  // --max-tile-bytes for the value of `e`; an oversized tile becomes an error.
  void check_tile_size(ast::Expr& e);
  // --max-scratch-bytes for the scratch buffers of the current kernel.
  void check_scratch_size(const ast::Stmt& s, const Symbol& buffer);
  Type check_binary(ast::Expr& e);
  void check_chain_operands(ast::Expr& e);
  // Checks `e` as a value of exactly `want` (dtype, broadcast to the shape).
  void expect_value(ast::Expr& e, const Type& want, const char* what);
  Type expect_scalar(ast::Expr& e, std::optional<DType> dtype, const char* what);
  // The dtype a weak operand takes next to `other`; reports misfits.
  Type unify(ast::Expr& a, ast::Expr& b, SourceRange where, const char* op);
  Type materialize(ast::Expr& e, Type t);
  void check_block(ast::Block& block, bool new_scope = true);
  const Symbol* lookup(const std::string& name) const;
  Symbol& declare(Symbol::Kind kind, const ast::Name& name, Type type);
  // `array`: a whole 1-D array or one row of a 2-D one (a function's `sem dma[N]` parameter).
  // `want`: the kind the call takes; nullopt for either (sem_read).
  const Symbol* lookup_sem(ast::Expr& e, std::optional<SemKind> want, const char* call, bool array = false);

  CheckedProgram& program_;
  DiagnosticEngine& diags_;
  const CheckOptions& options_;

  std::vector<std::unordered_map<std::string, Symbol*>> scopes_;
  ast::Kernel* kernel_ = nullptr;
  int block_depth_ = 0;
  int fallback_depth_ = 0;  // inside an asm fallback: no scratch or sem (section 17)
  int next_id_ = 0;
  // The current kernel's scratch buffers and their sizes in bytes.
  std::vector<std::pair<const Symbol*, int64_t>> scratch_;
  bool scratch_reported_ = false;
  // The current kernel's grid-axis names, declared after its parameters.
  std::vector<ast::Name> axis_names_;

  // Functions by name, the instances made so far (by calling kernel,
  // function and generic values) and those being checked (innermost last).
  std::unordered_map<std::string, const ast::Function*> functions_;
  std::map<std::tuple<const ast::Kernel*, const ast::Function*, std::string>, FunctionInstance*> instances_;
  std::vector<const ast::Function*> checking_;
  std::set<const ast::Function*> recursive_;
  // The function whose body is being checked and what it returns.
  const ast::Function* function_ = nullptr;
  std::vector<Type>* results_ = nullptr;
  const ast::Stmt* last_stmt_ = nullptr;  // the only place `return` may stand
  bool instances_reported_ = false;
};

}  // namespace kdt::check
