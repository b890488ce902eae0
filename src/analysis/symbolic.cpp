// Constant folding and term interning for the DMA-protocol analysis.
#include "symbolic.h"


namespace kdt::analysis {

namespace {

using ir::BinaryOp;
using ir::ExprKind;

bool scalar_int(const Type& t) { return t.kind == Type::Kind::Value && t.shape.empty() && !is_float(t.dtype); }

// Operation codes of leaves and operations that are not BinaryOps.
enum Leaf { kScalarParam = 100, kProgramId, kDeviceId, kNeg, kNot, kBitNot, kCast };

}  // namespace

int64_t wrap(int64_t v, DType dtype) {
  const unsigned bits = dtype_bits(dtype);
  if (dtype == DType::Bool) return v != 0;
  if (bits >= 64) return v;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (is_signed_int(dtype) && (u >> (bits - 1)) != 0) u |= ~mask;
  return static_cast<int64_t>(u);
}

Value Evaluator::leaf(int kind, int64_t index) { return intern(kind, DType::I32, Value::constant(index), Value{}); }

Value Evaluator::intern(int op, DType dtype, Value a, Value b) {
  auto key = std::make_tuple(op, static_cast<int>(dtype), static_cast<int>(a.kind), a.bits, static_cast<int>(b.kind),
                             b.bits);
  auto [it, added] = terms_.emplace(key, static_cast<int64_t>(terms_.size()));
  (void)added;
  return Value::term(it->second);
}

Value Evaluator::eval(const ir::Expr& e, const std::vector<Value>& locals) {
  if (!scalar_int(e.type)) return Value::unknown();
  switch (e.kind) {
    case ExprKind::Const: return Value::constant(wrap(e.int_value, e.type.dtype));
    case ExprKind::Local:
      return e.local >= 0 && static_cast<size_t>(e.local) < locals.size() ? locals[e.local] : Value::unknown();
    case ExprKind::ScalarParam: return leaf(kScalarParam, e.index);
    case ExprKind::ProgramId:
      // An axis of extent 1 has one program: its id is known.
      if (e.index >= 0 && static_cast<size_t>(e.index) < kernel_.grid.size() && kernel_.grid[e.index] == 1) {
        return Value::constant(0);
      }
      return leaf(kProgramId, e.index);
    case ExprKind::DeviceId: return kernel_.devices == 1 ? Value::constant(0) : leaf(kDeviceId, 0);
    case ExprKind::Unary: {
      Value a = eval(*e.operands.at(0), locals);
      if (a.kind == Value::Kind::Unknown) return a;
      const int op = e.unary == ir::UnaryOp::Neg ? kNeg : e.unary == ir::UnaryOp::Not ? kNot : kBitNot;
      if (!a.known()) return intern(op, e.type.dtype, a, Value{});
      const uint64_t u = static_cast<uint64_t>(a.bits);
      if (op == kNeg) return Value::constant(wrap(static_cast<int64_t>(0 - u), e.type.dtype));
      if (op == kNot) return Value::constant(a.bits == 0);
      return Value::constant(wrap(static_cast<int64_t>(~u), e.type.dtype));
    }
    case ExprKind::Binary:
      return binary(e, eval(*e.operands.at(0), locals), eval(*e.operands.at(1), locals));
    case ExprKind::Select: {
      Value c = eval(*e.operands.at(0), locals);
      if (c.known()) return eval(*e.operands.at(c.bits != 0 ? 1 : 2), locals);
      Value a = eval(*e.operands.at(1), locals), b = eval(*e.operands.at(2), locals);
      return a == b ? a : Value::unknown();
    }
    case ExprKind::Cast: {
      const ir::Expr& from = *e.operands.at(0);
      if (!scalar_int(from.type)) return Value::unknown();
      Value a = eval(from, locals);
      if (a.known()) return Value::constant(wrap(a.bits, e.type.dtype));
      if (a.kind == Value::Kind::Term) return intern(kCast, e.type.dtype, a, Value::constant(static_cast<int>(from.type.dtype)));
      return a;
    }
    default: return Value::unknown();
  }
}

Value Evaluator::binary(const ir::Expr& e, Value a, Value b) {
  const BinaryOp op = e.binary;
  const DType t = e.operands.at(0)->type.dtype;  // the operands' dtype (the result's is bool for comparisons)
  if (op == BinaryOp::And || op == BinaryOp::Or) {
    const bool absorbing = op == BinaryOp::Or;  // true absorbs `or`, false absorbs `and`
    if ((a.known() && (a.bits != 0) == absorbing) || (b.known() && (b.bits != 0) == absorbing)) {
      return Value::constant(absorbing);
    }
    if (a.known() && b.known()) return Value::constant(!absorbing);
    if (a.known()) return b;  // the identity: `true and x` is x
    if (b.known()) return a;
    return a == b && a.kind == Value::Kind::Term ? a : Value::unknown();
  }
  const bool compare = op >= BinaryOp::Lt && op <= BinaryOp::Ne;
  if (compare && a.kind == Value::Kind::Term && a == b) {
    return Value::constant(op == BinaryOp::Le || op == BinaryOp::Ge || op == BinaryOp::Eq);
  }
  if (a.kind == Value::Kind::Unknown || b.kind == Value::Kind::Unknown) return Value::unknown();
  if (!a.known() || !b.known()) return intern(static_cast<int>(op), t, a, b);
  const int64_t x = a.bits, y = b.bits;
  const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  const bool is_unsigned = !is_signed_int(t) && t != DType::Bool;
  auto less = [&](int64_t p, int64_t q) {
    return is_unsigned ? static_cast<uint64_t>(p) < static_cast<uint64_t>(q) : p < q;
  };
  const unsigned width = dtype_bits(t);
  switch (op) {
    case BinaryOp::Add: return Value::constant(wrap(static_cast<int64_t>(ux + uy), t));
    case BinaryOp::Sub: return Value::constant(wrap(static_cast<int64_t>(ux - uy), t));
    case BinaryOp::Mul: return Value::constant(wrap(static_cast<int64_t>(ux * uy), t));
    case BinaryOp::Div:
    case BinaryOp::Rem:
      // Only where every rounding rule agrees: no zero, nothing negative.
      if (y == 0 || (!is_unsigned && (x < 0 || y < 0))) return Value::unknown();
      if (is_unsigned) return Value::constant(wrap(static_cast<int64_t>(op == BinaryOp::Div ? ux / uy : ux % uy), t));
      return Value::constant(op == BinaryOp::Div ? x / y : x % y);
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      if (y < 0 || static_cast<unsigned>(y) >= width || (!is_unsigned && x < 0)) return Value::unknown();
      return Value::constant(wrap(static_cast<int64_t>(op == BinaryOp::Shl ? ux << y : ux >> y), t));
    case BinaryOp::BitAnd: return Value::constant(wrap(x & y, t));
    case BinaryOp::BitXor: return Value::constant(wrap(x ^ y, t));
    case BinaryOp::BitOr: return Value::constant(wrap(x | y, t));
    case BinaryOp::Lt: return Value::constant(less(x, y));
    case BinaryOp::Le: return Value::constant(!less(y, x));
    case BinaryOp::Gt: return Value::constant(less(y, x));
    case BinaryOp::Ge: return Value::constant(!less(x, y));
    case BinaryOp::Eq: return Value::constant(x == y);
    case BinaryOp::Ne: return Value::constant(x != y);
    default: return Value::unknown();
  }
}

}  // namespace kdt::analysis
