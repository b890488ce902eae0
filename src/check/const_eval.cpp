// Constant expressions (spec section 3): integer literals, `const`s,
// parentheses, unary `-`, `+ - * / % << >>` and `cdiv`, in 64 bits.
#include "checker.h"

namespace kdt::check {

namespace {

bool checked_shift(int64_t a, int64_t b, bool left, int64_t& out) {
  if (b < 0 || b >= 64) return false;
  if (left) {
    if (a < 0 || (b > 0 && (a >> (63 - b)) != 0)) return false;
    out = a << b;
  } else {
    out = a >> b;
  }
  return true;
}

}  // namespace

std::optional<int64_t> Checker::eval_const(const ast::Expr& e, bool quiet) {
  auto fail = [&](DiagCode code, SourceRange range, std::string message) -> std::optional<int64_t> {
    if (!quiet) diags_.report(code, range, std::move(message));
    return std::nullopt;
  };
  switch (e.kind) {
    case ast::Expr::Kind::IntLiteral:
      if (e.too_large || e.int_value > static_cast<uint64_t>(INT64_MAX)) {
        return fail(DiagCode::LiteralOutOfRange, e.range, "integer literal does not fit in 64 bits");
      }
      return static_cast<int64_t>(e.int_value);
    case ast::Expr::Kind::Name: {
      const Symbol* s = lookup(e.spelling);
      if (!s) return fail(DiagCode::UndefinedName, e.range, "use of undeclared name `" + e.spelling + "`");
      // A use even where it is not allowed: no unused-binding warning on top.
      const_cast<Symbol*>(s)->used = true;
      // A `const` whose own value failed has been diagnosed already.
      if (s->kind == Symbol::Kind::Const && !s->const_value) return std::nullopt;
      if (s->kind != Symbol::Kind::Const) {
        return fail(DiagCode::NotConstant, e.range, "`" + e.spelling + "` is not a constant");
      }
      return s->const_value;
    }
    case ast::Expr::Kind::Unary: {
      if (e.unary_op != ast::UnaryOp::Neg) {
        return fail(DiagCode::NotConstant, e.range, "only unary `-` is allowed in a constant expression");
      }
      auto v = eval_const(*e.operands[0], quiet);
      if (!v) return v;
      if (*v == INT64_MIN) return fail(DiagCode::ConstantOverflow, e.range, "constant expression overflows 64 bits");
      return -*v;
    }
    case ast::Expr::Kind::Binary: {
      auto a = eval_const(*e.operands[0], quiet);
      auto b = eval_const(*e.operands[1], quiet);
      if (!a || !b) return std::nullopt;
      int64_t out = 0;
      bool ok = true;
      switch (e.binary_op) {
        case ast::BinaryOp::Add: ok = !__builtin_add_overflow(*a, *b, &out); break;
        case ast::BinaryOp::Sub: ok = !__builtin_sub_overflow(*a, *b, &out); break;
        case ast::BinaryOp::Mul: ok = !__builtin_mul_overflow(*a, *b, &out); break;
        case ast::BinaryOp::Div:
        case ast::BinaryOp::Rem:
          if (*b == 0) return fail(DiagCode::ConstantOverflow, e.range, "division by zero in a constant expression");
          if (*a == INT64_MIN && *b == -1) ok = false;
          else out = e.binary_op == ast::BinaryOp::Div ? *a / *b : *a % *b;
          break;
        case ast::BinaryOp::Shl:
        case ast::BinaryOp::Shr:
          ok = checked_shift(*a, *b, e.binary_op == ast::BinaryOp::Shl, out);
          break;
        default:
          return fail(DiagCode::NotConstant, e.op_range,
                      std::string("operator `") + ast::binary_op_spelling(e.binary_op) +
                          "` is not allowed in a constant expression");
      }
      if (!ok) return fail(DiagCode::ConstantOverflow, e.range, "constant expression overflows 64 bits");
      return out;
    }
    case ast::Expr::Kind::Call: {
      const BuiltinSpec* callee = find_builtin(e.spelling.str());
      if (!callee || callee->id != BuiltinId::Cdiv) {
        return fail(DiagCode::NotConstant, e.range, "`" + e.spelling + "(...)` is not a constant expression");
      }
      if (e.args.size() != 2 || e.args[0].kind != ast::Arg::Kind::Positional ||
          e.args[1].kind != ast::Arg::Kind::Positional) {
        return fail(DiagCode::BadArgument, e.range, "`cdiv` takes two arguments");
      }
      auto a = eval_const(*e.args[0].value, quiet);
      auto b = eval_const(*e.args[1].value, quiet);
      if (!a || !b) return std::nullopt;
      if (*b == 0) return fail(DiagCode::ConstantOverflow, e.range, "division by zero in a constant expression");
      if (*b < 0 || *a < 0) return fail(DiagCode::NotConstant, e.range, "`cdiv` needs non-negative operands here");
      return *a / *b + (*a % *b != 0 ? 1 : 0);
    }
    default:
      return fail(DiagCode::NotConstant, e.range, "expected a constant expression");
  }
}

std::optional<int64_t> Checker::eval_positive(const ast::Expr& e, const char* what) {
  auto v = eval_const(e);
  if (v && *v <= 0) {
    diags_.report(DiagCode::NotConstant, e.range,
                  std::string(what) + " must be positive, but it is " + std::to_string(*v));
    return std::nullopt;
  }
  return v;
}

std::optional<Shape> Checker::eval_shape(const std::vector<ast::ExprPtr>& dims, SourceRange range) {
  Shape shape;
  bool ok = true;
  int64_t total = 1;
  for (const ast::ExprPtr& d : dims) {
    auto v = eval_positive(*d, "a dimension");
    if (!v) {
      ok = false;
      continue;
    }
    if (__builtin_mul_overflow(total, *v, &total)) {
      diags_.report(DiagCode::ConstantOverflow, range, "the shape has more elements than 64 bits can count");
      ok = false;
    }
    shape.push_back(*v);
  }
  if (!ok) return std::nullopt;
  return shape;
}

}  // namespace kdt::check
