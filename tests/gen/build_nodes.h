// Constructors of program-model nodes shared by the builder's files
// (build_expr.cpp, build_asm.cpp, build_kernel.cpp, build_devices.cpp,
// build_racy.cpp). Internal to the generator; each sets the node's dtype
// and shape, which the printer and the model evaluator read.
#pragma once
#include <memory>
#include <string>
#include <utility>

#include "model.h"

namespace kdt::gen {

inline std::shared_ptr<Expr> node(Expr::Kind kind, DType dt, const Shape& shape) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->dtype = dt;
  e->shape = shape;
  return e;
}

// a op b: comparisons and logical operators give bool, the others a's
// dtype; the shape is the broadcast of both.
inline ExprPtr binary_node(BinOp op, ExprPtr a, ExprPtr b) {
  const bool to_bool = is_comparison(op) || op == BinOp::LAnd || op == BinOp::LOr;
  auto e = node(Expr::Kind::Binary, to_bool ? DType::Bool : a->dtype, broadcast_shape(a->shape, b->shape));
  e->binop = op;
  e->operands = {std::move(a), std::move(b)};
  return e;
}

// An i32 literal; a weak one prints bare and adopts its neighbour's dtype.
inline ExprPtr int_lit(int64_t v, bool weak) {
  auto e = node(Expr::Kind::Literal, DType::I32, {});
  e->bits = from_int(DType::I32, static_cast<uint64_t>(v));
  e->weak = weak;
  return e;
}

// An i32 scalar of the launch: program_id(axis), num_programs(axis),
// device_id() or num_devices().
inline ExprPtr launch_node(Expr::Kind kind, int axis = 0) {
  auto e = node(kind, DType::I32, {});
  e->axis = axis;
  return e;
}

inline ExprPtr name_node(const std::string& name, DType dt = DType::I32, const Shape& shape = {}) {
  auto e = node(Expr::Kind::Name, dt, shape);
  e->name = name;
  return e;
}

// The view entry `index` (an i32 scalar expression).
inline IndexEntry scalar_entry(ExprPtr index) {
  IndexEntry e;
  e.kind = IndexEntry::Kind::Scalar;
  e.index = std::move(index);
  return e;
}

// view = value;
inline Stmt store_stmt(View view, ExprPtr value) {
  Stmt s;
  s.kind = Stmt::Kind::Store;
  s.view = std::move(view);
  s.expr = std::move(value);
  return s;
}

// dma_start(src, dst, sem); the caller adds add=, src_sem= and device=.
inline Stmt dma_start_stmt(View src, View dst, SemRef sem) {
  Stmt s;
  s.kind = Stmt::Kind::DmaStart;
  s.view = std::move(src);
  s.dst = std::move(dst);
  s.sem = std::move(sem);
  return s;
}

// dma_wait(sem, view);
inline Stmt dma_wait_stmt(SemRef sem, View view) {
  Stmt s;
  s.kind = Stmt::Kind::DmaWait;
  s.sem = std::move(sem);
  s.view = std::move(view);
  return s;
}

// A plain semaphore `name` (no index).
inline SemRef sem_named(const std::string& name) {
  SemRef r;
  r.name = name;
  return r;
}

}  // namespace kdt::gen
