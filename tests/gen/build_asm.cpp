// Inline PTX for the builder: an asm with a plain-KD fallback (any PTX text,
// the fallback gives the meaning) or without one (instructions from kdt's
// translatable subset, whose meaning the model takes from ptx_ops.cpp).
#include "build_nodes.h"
#include "build_state.h"
#include "ptx_ops.h"

namespace kdt::gen {

ExprPtr Builder::asm_expr(DType dt, const Shape& shape, int depth) {
  if (in_fallback_ || dt == DType::Bool) return nullptr;
  auto e = node(Expr::Kind::Asm, dt, shape);
  e->asm_output = "o";
  const char* names[] = {"a", "b"};
  if (ch_.coin()) {
    std::vector<const PtxOp*> ops;
    for (const PtxOp& op : ptx_ops()) {
      if (op.output == dt) ops.push_back(&op);
    }
    if (!ops.empty()) {
      const PtxOp& op = *ops[ch_.below(ops.size())];
      e->ptx_op = op.id;
      e->asm_lines = op.lines;
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        // The first operand has the full shape; the second may be a scalar
        // (broadcast over the element-wise asm).
        const Shape s = i == 0 || ch_.coin() ? shape : Shape{};
        e->asm_inputs.push_back(names[i]);
        e->asm_input_dtypes.push_back(op.inputs[i]);
        e->operands.push_back(expr(op.inputs[i], s, depth - 1));
      }
      return e;
    }
  }
  // With a fallback: the template may be anything the fallback explains;
  // here, instructions kdt could not translate (approximations, mul.hi).
  const DType second = ch_.coin() ? dt : pick_dtype();
  e->asm_inputs = {"a", "b"};
  e->asm_input_dtypes = {dt, second};
  e->operands = {expr(dt, shape, depth - 1), expr(second, ch_.coin() ? shape : Shape{}, depth - 1)};
  if (is_float(dt)) {
    e->asm_lines = {"{", ".reg .f32 t;", "ex2.approx.ftz.f32 t, %a;", "mov.b32 %o, t;", "}"};
  } else {
    e->asm_lines = {"mul.hi.u32 %o, %a, %b;"};
  }
  in_fallback_ = true;
  fallback_names_ = {{"a", dt, {}}, {"b", second, {}}};
  e->asm_fallback = expr(dt, {}, 2);
  in_fallback_ = false;
  return e;
}

}  // namespace kdt::gen
