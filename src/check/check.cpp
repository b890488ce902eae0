// Declarations, statements and operators. Calls, views and asm blocks are
// in builtins.cpp; constant expressions in const_eval.cpp.
#include <algorithm>

#include "checker.h"

namespace kdt {

std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()));
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t da = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    int64_t db = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = std::max(da, db);
  }
  return out;
}

bool check_program(CheckedProgram& program, DiagnosticEngine& diags, const CheckOptions& options) {
  return check::Checker(program, diags, options).run();
}

namespace check {

namespace {

std::string dtype_str(DType t) { return std::string(dtype_name(t)); }

}  // namespace

const Symbol* Checker::lookup(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end()) return found->second;
  }
  return nullptr;
}

Symbol& Checker::declare(Symbol::Kind kind, const ast::Name& name, Type type) {
  Symbol& s = program_.symbols.emplace_back();
  s.kind = kind;
  s.name = name.text;
  s.range = name.range;
  s.type = std::move(type);
  s.id = next_id_++;
  auto& scope = scopes_.back();
  auto existing = scope.find(name.text);
  if (existing != scope.end()) {
    diags_.report(DiagCode::Redefinition, name.range, "redefinition of `" + name.text + "`")
        .note("previous declaration is here", existing->second->range);
    // Keep the first; the duplicate is marked used to avoid a second warning.
    s.used = true;
    return s;
  }
  scope[name.text] = &s;
  return s;
}

bool Checker::run() {
  scopes_.emplace_back();
  std::vector<std::string> kernel_names;
  std::unordered_map<std::string, SourceRange> kernel_ranges;
  int64_t kernel_count = 0;
  declare_functions();
  for (ast::File& file : program_.module.files) {
    for (auto [item, index] : file.order) {
      if (item == ast::File::ItemKind::Type) {
        check_type_decl(file.types[index]);
        continue;
      }
      if (item == ast::File::ItemKind::Function) {
        check_function_decl(file.functions[index]);
        continue;
      }
      if (item == ast::File::ItemKind::Const) {
        ast::ConstDecl& c = file.consts[index];
        std::optional<int64_t> value;
        auto define = options_.defines.find(c.name.text);
        if (define != options_.defines.end()) value = define->second;
        else value = eval_const(*c.value);
        Symbol& s = declare(Symbol::Kind::Const, c.name, Type::value(DType::I32, {}, true));
        s.const_value = value;
        s.used = true;
        c.symbol = &s;
        program_.consts.push_back(&c);
        continue;
      }
      ast::Kernel& k = file.kernels[index];
      if (++kernel_count > options_.limits.max_kernels) {
        // Reported once, at the first kernel too many; the rest are not checked.
        if (kernel_count == options_.limits.max_kernels + 1) {
          diags_.report(DiagCode::LimitExceeded, k.name.range,
                        "`" + k.name.text + "` is kernel " + std::to_string(kernel_count) +
                            " of the program; the limit is --max-kernels=" +
                            std::to_string(options_.limits.max_kernels))
              .note("raise the limit with --max-kernels=N, or split the program into several files");
        }
        continue;
      }
      auto previous = kernel_ranges.find(k.name.text);
      if (previous != kernel_ranges.end()) {
        diags_.report(DiagCode::Redefinition, k.name.range, "redefinition of kernel `" + k.name.text + "`")
            .note("previous declaration is here", previous->second);
      } else {
        kernel_ranges[k.name.text] = k.name.range;
      }
      kernel_ = &k;
      next_id_ = 0;
      scratch_.clear();
      scratch_reported_ = false;
      scopes_.emplace_back();
      check_kernel_header(k);
      block_depth_ = 0;
      check_block(k.body, false);
      report_unused(scopes_.back());
      scopes_.pop_back();
      program_.kernels.push_back(&k);
      kernel_ = nullptr;
    }
  }
  auto unused = [&](const std::string& name, Symbol::Kind wanted) {
    const Symbol* s = scopes_.front().count(name) ? scopes_.front().at(name) : nullptr;
    if (s && s->kind == wanted) return;
    program_.unused_defines.push_back(name);
    program_.unused_define_reasons.push_back(
        s && s->kind == Symbol::Kind::Type  ? "`" + name + "` is a `type`; give a dtype such as f32"
        : s && s->kind == Symbol::Kind::Const ? "`" + name + "` is a `const`; give an integer"
                                              : "no `const " + name + "` or `type " + name + "` in the program");
  };
  for (const auto& [name, value] : options_.defines) unused(name, Symbol::Kind::Const);
  for (const auto& [name, dtype] : options_.type_defines) unused(name, Symbol::Kind::Type);
  return !diags_.has_errors();
}

void Checker::check_kernel_header(ast::Kernel& k) {
  bool has_grid = false;
  std::unordered_map<std::string, SourceRange> seen;
  for (ast::KernelAttr& attr : k.attrs) {
    const std::string& name = attr.name.text;
    if (name != "grid" && name != "devices" && name != "threads") {
      diags_.report(DiagCode::InvalidDeclaration, attr.name.range,
                    "unknown kernel attribute `" + name + "`; expected `grid`, `devices` or `threads`");
      continue;
    }
    if (seen.count(name)) {
      diags_.report(DiagCode::InvalidDeclaration, attr.name.range, "`" + name + "` is given twice")
          .note("first given here", seen[name]);
      continue;
    }
    seen[name] = attr.name.range;
    for (size_t i = 0; i < attr.arg_names.size(); ++i) {
      const ast::Name& n = attr.arg_names[i];
      if (!n.text.empty() && name != "devices" && name != "grid") {
        diags_.report(DiagCode::BadArgument, n.range, "`" + name + "` takes no axis names (only `grid` and `devices` do)");
      } else if (attr.sequential[i] && name != "grid") {
        diags_.report(DiagCode::BadArgument, n.range, "only `grid` has sequential axes");
      }
    }
    if (name == "devices") {
      check_devices_attr(k, attr);
    } else if (name == "grid") {
      has_grid = true;
      check_grid_attr(k, attr);
    } else if (attr.args.size() != 1) {
      diags_.report(DiagCode::BadArgument, attr.range, "`" + name + "` takes exactly one argument");
    } else if (auto v = eval_positive(*attr.args[0], "the thread count")) {
      k.threads = *v;
    }
  }
  if (k.mesh.empty()) {  // no `devices(...)`: one device, one mesh axis
    k.mesh = {k.devices};
    k.mesh_axes = {""};
  }
  if (!has_grid) {
    diags_.report(DiagCode::InvalidDeclaration, k.name.range, "kernel `" + k.name.text + "` has no `grid(...)`")
        .fixit(SourceRange{k.body.range.file, k.body.range.begin, k.body.range.begin}, "grid(1) ");
  }
  check_launch_size(k);
  std::vector<std::pair<ast::Param*, Symbol*>> blocked;  // parameters with block specs
  for (ast::Param& p : k.params) {
    if (p.mode == ast::ParamMode::Scalar) {
      std::optional<DType> dtype = p.scalar_type_name.text.empty() ? p.scalar_dtype : resolve_type_name(p.scalar_type_name);
      if (dtype) p.scalar_dtype = *dtype;
      Symbol& s = declare(Symbol::Kind::Param, p.name, dtype ? Type::value(*dtype) : Type::error());
      s.mode = p.mode;
      s.used = true;
      p.symbol = &s;
      continue;
    }
    auto shape = eval_shape(p.tile_type->dims, p.tile_type->range);
    if (auto dtype = resolve_dtype(*p.tile_type)) p.tile_type->dtype = *dtype;
    else shape.reset();
    if (p.mem_space.text != "global") {
      diags_.report(DiagCode::InvalidDeclaration, p.mem_space.range,
                    p.mem_space.text == "shared" ? "kernel parameters live in `@global` memory"
                                                 : "unknown memory space `@" + p.mem_space.text + "`");
    }
    if (shape && !ref_rank_ok(*shape, p.tile_type->range)) shape.reset();
    if (shape && !ref_size_ok(p.tile_type->dtype, *shape, p.tile_type->range)) shape.reset();
    Type t = shape ? Type::ref(p.tile_type->dtype, *shape, MemSpace::Global) : Type::error();
    Symbol& s = declare(Symbol::Kind::Param, p.name, t);
    s.mode = p.mode;
    s.used = true;
    p.symbol = &s;
    if (p.block) blocked.emplace_back(&p, &s);
  }
  declare_grid_axes(k);
  // Block specs last: their indices may use every parameter and axis name.
  for (auto [p, s] : blocked) check_block_spec(k, *p, *s);
}

bool Checker::ref_rank_ok(const Shape& shape, SourceRange range) {
  if (shape.size() <= static_cast<size_t>(kMaxRefRank)) return true;
  diags_.report(DiagCode::InvalidDeclaration, range,
                "a ref has at most " + std::to_string(kMaxRefRank) + " dimensions, not " + std::to_string(shape.size()) +
                    " (the run-time checks of the C++ path describe element sets with " + std::to_string(kMaxRefRank) +
                    " dimensions)");
  return false;
}

void Checker::report_unused(const std::unordered_map<std::string, Symbol*>& scope) {
  std::vector<const Symbol*> unused;
  for (const auto& [name, s] : scope) {
    if (!s->used && (s->kind == Symbol::Kind::Let || s->kind == Symbol::Kind::Var) && name[0] != '_') {
      unused.push_back(s);
    }
  }
  // Report in source order, not hash order.
  std::sort(unused.begin(), unused.end(), [](const Symbol* a, const Symbol* b) { return a->range.begin < b->range.begin; });
  for (const Symbol* s : unused) {
    diags_.report(DiagCode::UnusedBinding, s->range, "`" + s->name + "` is never read")
        .note("prefix the name with `_` to silence this warning");
  }
}

void Checker::check_block(ast::Block& block, bool new_scope) {
  if (new_scope) scopes_.emplace_back();
  for (ast::StmtPtr& s : block.stmts) check_stmt(*s);
  if (new_scope) {
    report_unused(scopes_.back());
    scopes_.pop_back();
  }
}

void Checker::check_stmt(ast::Stmt& s) {
  using K = ast::Stmt::Kind;
  switch (s.kind) {
    case K::Scratch: {
      if (fallback_depth_ > 0) {
        diags_.report(DiagCode::InvalidDeclaration, s.range, "`scratch` is not allowed in an asm `fallback`");
      }
      auto shape = eval_shape(s.tile_type->dims, s.tile_type->range);
      if (auto dtype = resolve_dtype(*s.tile_type)) s.tile_type->dtype = *dtype;
      else shape.reset();
      if (shape && !ref_rank_ok(*shape, s.tile_type->range)) shape.reset();
      if (shape && !ref_size_ok(s.tile_type->dtype, *shape, s.tile_type->range)) shape.reset();
      if (s.mem_space.text != "shared") {
        diags_.report(DiagCode::InvalidDeclaration, s.mem_space.range,
                      s.mem_space.text == "global" ? "scratch buffers live in `@shared` memory"
                                                   : "unknown memory space `@" + s.mem_space.text + "`");
      }
      Symbol& sym = declare(Symbol::Kind::Scratch, s.name,
                            shape ? Type::ref(s.tile_type->dtype, *shape, MemSpace::Shared) : Type::error());
      sym.used = true;
      sym.function_local = function_ != nullptr;
      s.declared.push_back(&sym);
      check_scratch_size(s, sym);
      return;
    }
    case K::Sem: {
      if (fallback_depth_ > 0) {
        diags_.report(DiagCode::InvalidDeclaration, s.range, "`sem` is not allowed in an asm `fallback`");
      }
      Type t = sem_type(s.sem_kind, s.sem_count.get(), s.sem_cols.get());
      Symbol& sym = declare(Symbol::Kind::Sem, s.name, t);
      sym.used = true;
      sym.function_local = function_ != nullptr;
      s.declared.push_back(&sym);
      return;
    }
    case K::Let:
    case K::Var: {
      Type t = check_expr(*s.value);
      if (t.kind == Type::Kind::Tuple) {
        diags_.report(DiagCode::TypeMismatch, s.value->range,
                      std::string(s.value->kind == ast::Expr::Kind::Asm ? "this asm has " : "this call returns ") +
                          std::to_string(t.detail().elements.size()) + (s.value->kind == ast::Expr::Kind::Asm ? " outputs" : " values") +
                          "; bind them with `let (a, b) = ...`");
        t = Type::error();
      } else if (t.kind == Type::Kind::Void) {
        diags_.report(DiagCode::TypeMismatch, s.value->range, "this expression has no value");
        t = Type::error();
      } else if (t.kind == Type::Kind::Dma && s.kind == K::Var) {
        diags_.report(DiagCode::TypeMismatch, s.value->range,
                      "a DMA descriptor is bound with `let`, never `var` (it must not outlive what it names)");
        t = Type::error();
      } else if (t.kind == Type::Kind::Sem || t.kind == Type::Kind::Ref) {
        diags_.report(DiagCode::TypeMismatch, s.value->range, "a binding holds a value, not a " +
                                                                  std::string(t.kind == Type::Kind::Sem ? "semaphore" : "ref"));
        t = Type::error();
      }
      t = materialize(*s.value, t);
      Symbol& sym = declare(s.kind == K::Let ? Symbol::Kind::Let : Symbol::Kind::Var, s.name, t);
      s.declared.push_back(&sym);
      return;
    }
    case K::LetTuple: {
      Type t = check_expr(*s.value);
      if (!t.is_error() && (t.kind != Type::Kind::Tuple || t.detail().elements.size() != s.names.size())) {
        size_t outputs = t.kind == Type::Kind::Tuple ? t.detail().elements.size() : (t.kind == Type::Kind::Void ? 0 : 1);
        diags_.report(DiagCode::TypeMismatch, s.value->range,
                      "cannot bind " + std::to_string(s.names.size()) + " names to " + std::to_string(outputs) +
                          (outputs == 1 ? " value" : " values"));
        t = Type::error();
      }
      for (size_t i = 0; i < s.names.size(); ++i) {
        Symbol& sym = declare(Symbol::Kind::Let, s.names[i], t.is_error() ? Type::error() : t.detail().elements[i]);
        s.declared.push_back(&sym);
      }
      return;
    }
    case K::Assign: check_assign(s); return;
    case K::For: {
      expect_scalar(*s.lo, DType::I32, "a loop bound");
      expect_scalar(*s.hi, DType::I32, "a loop bound");
      if (s.step) s.step->const_value = eval_positive(*s.step, "a loop step");
      scopes_.emplace_back();
      Symbol& var = declare(Symbol::Kind::LoopVar, s.name, Type::value(DType::I32));
      var.used = true;
      s.declared.push_back(&var);
      ++block_depth_;
      check_block(s.body);
      --block_depth_;
      scopes_.pop_back();
      return;
    }
    case K::While:
      expect_scalar(*s.value, DType::Bool, "a `while` condition");
      ++block_depth_;
      check_block(s.body);
      --block_depth_;
      return;
    case K::If:
      for (ast::IfClause& clause : s.clauses) {
        if (clause.cond) expect_scalar(*clause.cond, DType::Bool, "an `if` condition");
        ++block_depth_;
        check_block(clause.body);
        --block_depth_;
      }
      return;
    case K::Assert: expect_scalar(*s.value, DType::Bool, "an assert condition"); return;
    case K::Expr: {
      ast::Expr& e = *s.value;
      if (e.kind != ast::Expr::Kind::Call && e.kind != ast::Expr::Kind::Asm) {
        check_expr(e);
        diags_.report(DiagCode::Syntax, e.range, "this expression has no effect; only calls and asm blocks can stand alone");
        return;
      }
      Type t = check_expr(e);
      if (e.kind == ast::Expr::Kind::Asm && !t.is_error() && t.kind != Type::Kind::Void) {
        diags_.report(DiagCode::TypeMismatch, e.range, "the outputs of this asm are not used; bind them with `let`");
      }
      return;
    }
    case K::Block:
      ++block_depth_;
      check_block(s.body);
      --block_depth_;
      return;
    case K::Return: check_return(s); return;
  }
}

Type Checker::sem_type(const ast::Name& kind, const ast::Expr* count, const ast::Expr* cols) {
  Type t;
  t.kind = Type::Kind::Sem;
  if (kind.text == "dma") t.sem_kind = SemKind::Dma;
  else if (kind.text == "regular") t.sem_kind = SemKind::Regular;
  else {
    diags_.report(DiagCode::InvalidDeclaration, kind.range,
                  "unknown semaphore kind `" + kind.text + "`; expected `dma` or `regular`");
    t = Type::error();
  }
  if (count) {
    auto n = eval_positive(*count, "a semaphore array length");
    if (!n) t = Type::error();
    else if (!t.is_error()) t.edit_detail().sem_count = *n;
  }
  if (cols && !t.is_error()) {
    auto n = eval_positive(*cols, "a semaphore array dimension");
    if (!n) t = Type::error();
    else t.edit_detail().sem_cols = *n;
  }
  return t;
}

void Checker::check_assign(ast::Stmt& s) {
  ast::Expr& target = *s.target;
  if (target.kind == ast::Expr::Kind::Name) {
    Symbol* sym = const_cast<Symbol*>(lookup(target.spelling));
    if (!sym) {
      diags_.report(DiagCode::UndefinedName, target.range, "use of undeclared name `" + target.spelling + "`");
      check_expr(*s.value);
      return;
    }
    target.symbol = sym;
    if (sym->kind == Symbol::Kind::Param || sym->kind == Symbol::Kind::Scratch) {
      if (sym->type.is_ref()) {
        diags_.report(DiagCode::InvalidAssignment, target.range,
                      "cannot assign to the ref `" + sym->name + "` as a whole; write `" + sym->name + "[...] = ...`")
            .fixit(SourceRange{target.range.file, target.range.end, target.range.end}, "[...]");
        check_expr(*s.value);
        return;
      }
    }
    if (sym->kind != Symbol::Kind::Var && sym->kind != Symbol::Kind::AsmOutput) {
      sym->used = true;  // referenced: no unused-binding warning on top of this error
      auto d = diags_.report(DiagCode::InvalidAssignment, target.range,
                             "cannot assign to `" + sym->name + "`; only `var` bindings can change");
      if (sym->kind == Symbol::Kind::Let) d.note("declared with `let` here", sym->range);
      check_expr(*s.value);
      return;
    }
    target.type = sym->type;
    if (s.assign_op != ast::AssignOp::Assign) sym->used = true;
    check_compound(s, sym->type);
    return;
  }
  if (target.kind == ast::Expr::Kind::Index) {
    View view = check_view(target, true);
    if (!view.ok) {
      check_expr(*s.value);
      return;
    }
    target.type = Type::value(view.ref->type.dtype, view.shape);
    check_compound(s, target.type);
    return;
  }
  diags_.report(DiagCode::InvalidAssignment, target.range, "the left-hand side of an assignment must be a `var` or a ref view");
  check_expr(*s.value);
}

// `=` and `+= -= *=`: the value must fit the target's dtype and shape.
void Checker::check_compound(ast::Stmt& s, const Type& target) {
  if (target.is_error()) {
    check_expr(*s.value);
    return;
  }
  if (s.assign_op != ast::AssignOp::Assign && target.dtype == DType::Bool) {
    diags_.report(DiagCode::TypeMismatch, s.op_range, "arithmetic assignment on a `bool` target");
  }
  expect_value(*s.value, target, "the assigned value");
}

Type Checker::materialize(ast::Expr& e, Type t) {
  if (!t.is_value() || !t.weak) return t;
  t.weak = false;
  if (is_integer(t.dtype) && e.const_value && !integer_fits(t.dtype, *e.const_value, false)) {
    diags_.report(DiagCode::LiteralOutOfRange, e.range,
                  "integer " + std::to_string(*e.const_value) + " does not fit `" + dtype_str(t.dtype) + "`");
  } else if (is_integer(t.dtype) && !e.const_value && e.kind == ast::Expr::Kind::IntLiteral &&
             !integer_fits(t.dtype, static_cast<int64_t>(e.int_value), true)) {
    diags_.report(DiagCode::LiteralOutOfRange, e.range,
                  "integer " + std::to_string(e.int_value) + " does not fit `" + dtype_str(t.dtype) + "`");
  }
  return t;
}

void Checker::expect_value(ast::Expr& e, const Type& want, const char* what) {
  Type t = check_expr(e);
  if (t.is_error()) return;
  if (!t.is_value()) {
    diags_.report(DiagCode::TypeMismatch, e.range, std::string(what) + " must be a value");
    return;
  }
  if (t.weak) {
    if (is_float(t.dtype) && !is_float(want.dtype)) {
      diags_.report(DiagCode::TypeMismatch, e.range,
                    "a float literal cannot become `" + dtype_str(want.dtype) + "`; cast explicitly");
      return;
    }
    if (want.dtype == DType::Bool && t.dtype != DType::Bool) {
      diags_.report(DiagCode::TypeMismatch, e.range, std::string(what) + " must be `bool`");
      return;
    }
    t.dtype = want.dtype;
    materialize(e, t);
  } else if (t.dtype != want.dtype) {
    diags_.report(DiagCode::TypeMismatch, e.range,
                  std::string(what) + " has dtype `" + dtype_str(t.dtype) + "` but `" + dtype_str(want.dtype) +
                      "` is expected")
        .note("cast explicitly, e.g. `" + dtype_str(want.dtype) + "(...)`");
    return;
  }
  auto shape = broadcast_shapes(t.shape, want.shape);
  if (!shape || *shape != want.shape) {
    diags_.report(DiagCode::ShapeMismatch, e.range,
                  std::string(what) + " has shape " + shape_string(t.shape) + ", which does not broadcast to " +
                      shape_string(want.shape));
  }
  e.type.dtype = want.dtype;
  e.type.weak = false;
}

Type Checker::expect_scalar(ast::Expr& e, std::optional<DType> dtype, const char* what) {
  Type t = check_expr(e);
  if (t.is_error()) return t;
  if (!t.is_scalar()) {
    diags_.report(t.is_value() ? DiagCode::ShapeMismatch : DiagCode::TypeMismatch, e.range,
                  std::string(what) + " must be a scalar" +
                      (t.is_value() ? ", not a tile of shape " + shape_string(t.shape) : std::string()));
    return Type::error();
  }
  if (dtype) {
    expect_value(e, Type::value(*dtype), what);
    return Type::value(*dtype);
  }
  return materialize(e, t);
}

Type Checker::unify(ast::Expr& a, ast::Expr& b, SourceRange where, const char* op) {
  Type ta = a.type, tb = b.type;
  auto shape = broadcast_shapes(ta.shape, tb.shape);
  if (!shape) {
    diags_.report(DiagCode::ShapeMismatch, where,
                  std::string("shapes ") + shape_string(ta.shape) + " and " + shape_string(tb.shape) +
                      " do not broadcast for `" + op + "`")
        .label(a.range, "shape " + shape_string(ta.shape))
        .label(b.range, "shape " + shape_string(tb.shape));
    return Type::error();
  }
  // A weak (literal) side takes the other side's dtype.
  auto adopt = [&](ast::Expr& lit, const Type& weak, const Type& strong) -> bool {
    if (is_float(weak.dtype) && !is_float(strong.dtype)) {
      diags_.report(DiagCode::TypeMismatch, lit.range,
                    "a float literal next to a `" + dtype_str(strong.dtype) + "` operand; cast explicitly");
      return false;
    }
    if (strong.dtype == DType::Bool && weak.dtype != DType::Bool) {
      diags_.report(DiagCode::TypeMismatch, lit.range, std::string("a number next to a `bool` operand of `") + op + "`");
      return false;
    }
    Type t = weak;
    t.dtype = strong.dtype;
    materialize(lit, t);
    lit.type.dtype = strong.dtype;
    lit.type.weak = false;
    return true;
  };
  DType dtype;
  bool weak = false;
  if (ta.weak && !tb.weak) {
    if (!adopt(a, ta, tb)) return Type::error();
    dtype = tb.dtype;
  } else if (tb.weak && !ta.weak) {
    if (!adopt(b, tb, ta)) return Type::error();
    dtype = ta.dtype;
  } else if (ta.weak && tb.weak) {
    dtype = is_float(ta.dtype) || is_float(tb.dtype) ? DType::F32 : ta.dtype;
    weak = true;
  } else if (ta.dtype != tb.dtype) {
    diags_.report(DiagCode::TypeMismatch, where,
                  std::string("operands of `") + op + "` have different dtypes `" + dtype_str(ta.dtype) + "` and `" +
                      dtype_str(tb.dtype) + "`")
        .label(a.range, "`" + dtype_str(ta.dtype) + "`")
        .label(b.range, "`" + dtype_str(tb.dtype) + "`")
        .note("KD never converts implicitly; cast one operand, e.g. `" + dtype_str(ta.dtype) + "(...)`");
    return Type::error();
  } else {
    dtype = ta.dtype;
  }
  return Type::value(dtype, *shape, weak);
}

Type Checker::check_expr(ast::Expr& e) {
  e.type = check_expr_kind(e);
  check_tile_size(e);
  return e.type;
}

namespace {

// The bytes of a `dtype[shape]` array; nullopt beyond 64 bits.
std::optional<int64_t> array_bytes(DType dtype, const Shape& shape) {
  int64_t bytes = dtype_bytes(dtype);
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(bytes, d, &bytes)) return std::nullopt;
  }
  return bytes;
}

std::string bytes_string(std::optional<int64_t> bytes) {
  return bytes ? std::to_string(*bytes) + " bytes" : std::string("more than 2^63 bytes");
}

}  // namespace

void Checker::check_tile_size(ast::Expr& e) {
  const int64_t limit = options_.limits.max_tile_bytes;
  auto too_big = [&](const Type& t) {
    if (!t.is_value() || t.shape.empty()) return false;
    std::optional<int64_t> bytes = array_bytes(t.dtype, t.shape);
    if (bytes && *bytes <= limit) return false;
    diags_.report(DiagCode::LimitExceeded, e.range,
                  "a tile `" + type_string(Type::value(t.dtype, t.shape)) + "` of " + bytes_string(bytes) +
                      "; the limit is --max-tile-bytes=" + std::to_string(limit))
        .note("work on smaller blocks (a `for` loop over slices), or raise the limit with --max-tile-bytes=N");
    return true;
  };
  if (too_big(e.type)) {
    e.type = Type::error();
    return;
  }
  if (e.type.kind == Type::Kind::Tuple) {
    for (const Type& element : e.type.detail().elements) {
      if (too_big(element)) {
        e.type = Type::error();
        return;
      }
    }
  }
}

void Checker::check_scratch_size(const ast::Stmt& s, const Symbol& buffer) {
  if (!buffer.type.is_ref() || scratch_reported_) return;
  const int64_t limit = options_.limits.max_scratch_bytes;
  std::optional<int64_t> bytes = array_bytes(buffer.type.dtype, buffer.type.shape);
  std::optional<int64_t> total = bytes;
  for (const auto& [other, other_bytes] : scratch_) {
    if (total && __builtin_add_overflow(*total, other_bytes, &*total)) total.reset();
  }
  if (total && *total <= limit) {
    scratch_.emplace_back(&buffer, *bytes);
    return;
  }
  scratch_reported_ = true;
  std::string what = "scratch `" + buffer.name + "` (" + type_string(buffer.type) + ", " + bytes_string(bytes) + ")";
  if (!scratch_.empty() && kernel_) what += " brings the scratch of `" + kernel_->name.text + "` to " + bytes_string(total) + " per program";
  auto d = diags_.report(DiagCode::LimitExceeded, s.range, what + "; the limit is --max-scratch-bytes=" + std::to_string(limit));
  for (const auto& [other, other_bytes] : scratch_) {
    d.note("`" + other->name + "` takes " + std::to_string(other_bytes) + " bytes", other->range);
  }
  d.note("GPU shared memory holds 227 KiB per block on sm_90; raise the limit with --max-scratch-bytes=N");
}

Type Checker::check_expr_kind(ast::Expr& e) {
  using K = ast::Expr::Kind;
  switch (e.kind) {
    case K::IntLiteral:
      if (e.too_large) {
        diags_.report(DiagCode::LiteralOutOfRange, e.range, "integer literal does not fit in 64 bits");
        return Type::error();
      }
      // 2^63..2^64-1 stays weak like every literal (no const_value: only u64
      // holds it, which materialize() checks).
      if (e.int_value <= static_cast<uint64_t>(INT64_MAX)) e.const_value = static_cast<int64_t>(e.int_value);
      return Type::value(DType::I32, {}, true);
    case K::FloatLiteral: return Type::value(DType::F32, {}, true);
    case K::BoolLiteral: return Type::value(DType::Bool);
    case K::Name: {
      const Symbol* s = lookup(e.spelling);
      if (!s) {
        diags_.report(DiagCode::UndefinedName, e.range, "use of undeclared name `" + e.spelling + "`");
        return Type::error();
      }
      const_cast<Symbol*>(s)->used = true;
      e.symbol = s;
      if (s->kind == Symbol::Kind::Const) {
        e.const_value = s->const_value;
        return s->const_value ? Type::value(DType::I32, {}, true) : Type::error();
      }
      // A bare ref name in an expression loads the whole view.
      if (s->type.is_ref()) return Type::value(s->type.dtype, s->type.shape);
      return s->type;
    }
    case K::Unary: {
      Type t = check_expr(*e.operands[0]);
      if (t.is_error()) return t;
      if (!t.is_value()) {
        diags_.report(DiagCode::TypeMismatch, e.operands[0]->range, "operand of a unary operator must be a value");
        return Type::error();
      }
      bool ok = e.unary_op == ast::UnaryOp::Neg   ? is_numeric(t.dtype)
                : e.unary_op == ast::UnaryOp::Not ? t.dtype == DType::Bool
                                                  : is_integer(t.dtype);
      if (!ok) {
        diags_.report(DiagCode::TypeMismatch, e.op_range,
                      std::string("operator `") + ast::unary_op_spelling(e.unary_op) + "` does not apply to `" +
                          dtype_str(t.dtype) + "`");
        return Type::error();
      }
      if (e.operands[0]->const_value && e.unary_op == ast::UnaryOp::Neg && *e.operands[0]->const_value != INT64_MIN) {
        e.const_value = -*e.operands[0]->const_value;
      }
      return t;
    }
    case K::Binary: return check_binary(e);
    case K::Ternary: {
      expect_scalar(*e.operands[0], DType::Bool, "the condition of `?:`");
      Type a = check_expr(*e.operands[1]);
      Type b = check_expr(*e.operands[2]);
      if (a.is_error() || b.is_error()) return Type::error();
      if (a.kind == Type::Kind::Dma && b.kind == Type::Kind::Dma) {
        // Descriptors may differ only in refs, offsets, semaphores and device (section 16).
        // A descriptor parameter checked on its own (no elements) agrees with any.
        if (!a.detail().elements.empty() && !b.detail().elements.empty() && type_string(a) != type_string(b)) {
          diags_.report(DiagCode::TypeMismatch, e.range,
                        "the descriptors of `?:` must agree in shapes, dtypes, memory spaces, `add` and being "
                        "local or remote: " + type_string(a) + " and " + type_string(b));
          return Type::error();
        }
        for (int side : {1, 2}) {
          // Its body would run whichever side is chosen (section 12 evaluates only the chosen one).
          if (e.operands[side]->instance) {
            diags_.report(DiagCode::TypeMismatch, e.operands[side]->range,
                          "a descriptor chosen by `?:` cannot come from a function call; bind the call's result with "
                          "`let` first");
            return Type::error();
          }
        }
        Type chosen = a.detail().elements.empty() ? b : a;
        chosen.edit_detail().dma_local = a.detail().dma_local ? a.detail().dma_local : b.detail().dma_local;
        return chosen;
      }
      if (!a.is_value() || !b.is_value()) {
        diags_.report(DiagCode::TypeMismatch, e.range, "the branches of `?:` must be values");
        return Type::error();
      }
      return unify(*e.operands[1], *e.operands[2], e.range, "?:");
    }
    case K::Call: return check_call(e);
    case K::Index: return check_index_value(e);
    case K::Asm: return check_asm(e);
    case K::DeviceCoords:
      // check_device_value() takes it where it belongs.
      diags_.report(DiagCode::BadArgument, e.range, "a list of device coordinates is allowed only as the value of `device=`");
      return Type::error();
  }
  return Type::error();
}

void Checker::check_chain_operands(ast::Expr& e) {
  for (ast::ExprPtr& side : e.operands) {
    if (side->kind == ast::Expr::Kind::Binary && ast::is_comparison(side->binary_op) && !side->parenthesized) {
      check_chain_operands(*side);
    } else {
      check_expr(*side);
    }
  }
}

Type Checker::check_binary(ast::Expr& e) {
  using Op = ast::BinaryOp;
  ast::Expr& a = *e.operands[0];
  ast::Expr& b = *e.operands[1];
  const char* op = ast::binary_op_spelling(e.binary_op);
  if (ast::is_comparison(e.binary_op)) {
    for (ast::Expr* side : {&a, &b}) {
      if (side->kind == ast::Expr::Kind::Binary && ast::is_comparison(side->binary_op) && !side->parenthesized) {
        diags_.report(DiagCode::Syntax, e.range, "comparisons cannot be chained; combine them with `&&`")
            .label(side->op_range, "first comparison");
        // One report for the whole chain: check what it compares, not its links.
        check_chain_operands(e);
        return Type::error();
      }
    }
  }
  Type ta = check_expr(a);
  Type tb = check_expr(b);
  if (ta.is_error() || tb.is_error()) return Type::error();
  for (ast::Expr* side : {&a, &b}) {
    if (!side->type.is_value()) {
      diags_.report(DiagCode::TypeMismatch, side->range, std::string("operand of `") + op + "` must be a value");
      return Type::error();
    }
  }
  Type t = unify(a, b, e.op_range, op);
  if (t.is_error()) return t;
  bool ok = true;
  switch (e.binary_op) {
    case Op::Mul: case Op::Div: case Op::Rem: case Op::Add: case Op::Sub: ok = is_numeric(t.dtype); break;
    case Op::Shl: case Op::Shr: ok = is_integer(t.dtype); break;
    case Op::BitAnd: case Op::BitXor: case Op::BitOr: ok = !is_float(t.dtype); break;
    case Op::And: case Op::Or: ok = t.dtype == DType::Bool; break;
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: ok = is_numeric(t.dtype); break;
    case Op::Eq: case Op::Ne: ok = true; break;
  }
  if (!ok) {
    diags_.report(DiagCode::TypeMismatch, e.op_range,
                  std::string("operator `") + op + "` does not apply to `" + dtype_str(t.dtype) + "`");
    return Type::error();
  }
  // Integer constants fold so that weak expressions keep their value.
  if (a.const_value && b.const_value && !is_float(t.dtype)) e.const_value = eval_const(e, true);
  if (ast::is_comparison(e.binary_op)) return Type::value(DType::Bool, t.shape);
  if (t.weak && e.binary_op != Op::And && e.binary_op != Op::Or && !is_float(t.dtype) && !e.const_value) {
    // A weak integer expression that does not fold stays i32.
    t.weak = true;
  }
  return t;
}

}  // namespace check
}  // namespace kdt
