// Which operands of `c ? a : b`, `a && b` and `a || b` need a branch of
// their own, for both C-like emitters. KD evaluates only the chosen operand
// of `?:`, and the right side of a scalar `&&`/`||` only when the left does
// not decide (spec section 9). C's own operators do that for what an
// emitter computes inline; what it evaluates ahead of the expression (a
// reduction, a dot, on the C++ path a checked load or a sem_read) must move
// into the branch.
#pragma once

#include "code_writer.h"
#include "kdt/ir/ir.h"

namespace kdt::emit {

// Whether `e` has parts evaluated ahead of the expression around them;
// `loads`: the back end also evaluates (and checks) loads ahead.
inline bool evaluated_ahead(const ir::Expr& e, bool loads) {
  switch (e.kind) {
    case ir::ExprKind::Load:
    case ir::ExprKind::SemRead:  // on the C++ path a scheduling point
      if (loads) return true;
      break;
    case ir::ExprKind::Reduce:
    case ir::ExprKind::Dot:
    case ir::ExprKind::Transpose:
    case ir::ExprKind::Reshape:
    case ir::ExprKind::TileSlice: return true;
    default: break;
  }
  for (const ir::ExprPtr& o : e.operands) {
    if (evaluated_ahead(*o, loads)) return true;
  }
  return false;
}

// Whether `e` is a `?:` or a scalar `&&`/`||` whose lazy operands need
// branches of their own.
inline bool needs_lazy_operand(const ir::Expr& e, bool loads) {
  if (e.kind == ir::ExprKind::Select) {
    return evaluated_ahead(*e.operands[1], loads) || evaluated_ahead(*e.operands[2], loads);
  }
  bool logical = e.binary == ir::BinaryOp::And || e.binary == ir::BinaryOp::Or;
  return e.kind == ir::ExprKind::Binary && logical && e.type.shape.empty() && evaluated_ahead(*e.operands[1], loads);
}

// Writes a lazy `e` into the declared temporary `name`, each lazy operand
// in its own branch: `scalar(x)` spells scalar `x` (emitting what it
// needs first), `assign(x)` writes `x` into `name`.
template <class Scalar, class Assign>
void write_lazy_branches(CodeWriter& w, const ir::Expr& e, const std::string& name, Scalar&& scalar, Assign&& assign) {
  if (e.kind == ir::ExprKind::Select) {
    w.open("if (" + scalar(*e.operands[0]) + ") {");
    assign(*e.operands[1]);
    w.reopen("} else {");
    assign(*e.operands[2]);
    w.close();
  } else {
    assign(*e.operands[0]);
    w.open(std::string("if (") + (e.binary == ir::BinaryOp::And ? "" : "!") + name + ") {");
    assign(*e.operands[1]);
    w.close();
  }
}

}  // namespace kdt::emit
