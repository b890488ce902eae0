// The value engine both C-like targets share: element-wise expressions
// spelled for one element of a loop, the parts that are not element-wise
// materialised into temporaries ahead of it, views and their offsets.
#include <algorithm>

#include "c_like_emitter.h"
#include "lazy_operands.h"

namespace kdt::emit {

std::string CLikeEmitter::scalar(const Expr& e) {
  prepare(e);
  LoopCtx ctx;
  ctx.flat = "0";
  return elem(e, ctx);
}

void CLikeEmitter::prepare(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Reduce:
    case ExprKind::Dot:
    case ExprKind::Transpose:
    case ExprKind::Reshape:
    case ExprKind::TileSlice:
      if (!materialized_.count(&e)) materialize(e);
      return;
    case ExprKind::SemRead: prepare_sem_read(e); return;
    case ExprKind::Load:
      prepare_load(e);
      if (e.mask) prepare(*e.mask);
      if (e.other) prepare(*e.other);
      return;
    case ExprKind::Select:
    case ExprKind::Binary:
      if (needs_lazy_operand(e, target_.loads_ahead)) {
        if (!materialized_.count(&e)) materialize_lazy(e);
        return;
      }
      for (const ir::ExprPtr& o : e.operands) prepare(*o);
      return;
    default:
      for (const ir::ExprPtr& o : e.operands) prepare(*o);
  }
}

std::string CLikeEmitter::materialize_lazy(const Expr& e) {
  std::string name = declare_temp(e, fresh("t"));
  auto assign = [&](const Expr& value) {
    if (e.type.shape.empty()) w_.line(name + " = " + scalar(value) + ";");
    else store_tile(name, e.type.shape, value);
  };
  write_lazy_branches(w_, e, name, [&](const Expr& x) { return scalar(x); }, assign);
  materialized_[&e] = name;
  return name;
}

std::vector<std::string> CLikeEmitter::view_starts(const ir::View& v, bool masked) {
  std::vector<std::string> starts;
  for (size_t d = 0; d < v.dims.size(); ++d) {
    const ir::ViewDim& dim = v.dims[d];
    if (!dim.start) {
      starts.push_back(std::to_string(dim.static_start));
      continue;
    }
    std::string name = fresh("start");
    std::string value = checked_start("static_cast<int64_t>(" + scalar(*dim.start) + ")", v, d, masked);
    w_.line("const int64_t " + name + " = " + value + ";");
    starts.push_back(name);
  }
  return starts;
}

std::string CLikeEmitter::view_elem_offset(const ir::View& v, const std::vector<std::string>& starts, const LoopCtx& ctx,
                                           std::vector<std::string>* coords) {
  const Shape& rs = k_.refs[v.ref].shape;
  std::vector<int64_t> st = row_major_strides(rs);
  Shape vshape = v.shape();
  size_t offset_dims = ctx.index.size() - std::min(ctx.index.size(), vshape.size());
  std::string out;
  size_t vd = 0;
  for (size_t d = 0; d < rs.size(); ++d) {
    const ir::ViewDim& dim = v.dims[d];
    std::string coord = starts[d];
    if (!dim.dropped) {
      std::string i = (ctx.index.empty() || vshape[vd] == 1) ? "" : ctx.index[offset_dims + vd];
      if (!i.empty()) coord = coord == "0" ? i : coord + " + " + i;
      ++vd;
    }
    if (coords) coords->push_back(coord);
    if (coord == "0") continue;
    std::string term = st[d] == 1 ? "(" + coord + ")" : "(" + coord + ") * " + std::to_string(st[d]);
    out += out.empty() ? term : " + " + term;
  }
  // A flat loop over a whole ref: the flat index is the offset.
  if (target_.flat_loops && ctx.index.empty() && !vshape.empty()) return ctx.flat;
  return out.empty() ? "0" : out;
}

std::string CLikeEmitter::tile_slice_offset(const Expr& e, const LoopCtx& ctx) {
  std::vector<int64_t> st = row_major_strides(e.operands[0]->type.shape);
  std::string offset;
  size_t vd = 0;
  for (size_t d = 0; d < e.tile_dims.size(); ++d) {
    const ir::ViewDim& dim = e.tile_dims[d];
    std::string coord = std::to_string(dim.static_start);
    if (!dim.dropped) coord += " + " + ctx.index[vd++];
    offset += (offset.empty() ? "" : " + ") + ("(" + coord + ") * " + std::to_string(st[d]));
  }
  return offset.empty() ? "0" : offset;
}

std::string CLikeEmitter::elem(const Expr& e, const LoopCtx& ctx) {
  if (auto it = materialized_.find(&e); it != materialized_.end()) return index_of(it->second, e.type.shape, ctx);
  std::string T = ctype(e.type.dtype);
  auto operand = [&](size_t i) { return elem(*e.operands[i], ctx); };
  switch (e.kind) {
    case ExprKind::Const: return const_literal(e);
    case ExprKind::Local: return local_elem(e, ctx);
    case ExprKind::Load: return load(e, ctx);
    case ExprKind::Unary: {
      std::string a = operand(0);
      switch (e.unary) {
        case ir::UnaryOp::Neg: return rt("op_neg(") + a + ")";
        case ir::UnaryOp::Not: return "(!" + a + ")";
        case ir::UnaryOp::BitNot: return "static_cast<" + T + ">(~" + a + ")";
      }
      return a;
    }
    case ExprKind::Binary: return binary(e, operand(0), operand(1));
    case ExprKind::Select:
    case ExprKind::Where: return "(" + operand(0) + " ? " + operand(1) + " : " + operand(2) + ")";
    case ExprKind::Cast: return rt("convert<") + T + ">(" + operand(0) + ")";
    case ExprKind::Math:
      // maximum and minimum are the math functions of two operands.
      if (e.operands.size() == 2) {
        return rt(e.name) + "(" + operand(0) + ", " + operand(1) + ")";
      }
      return rt("math::" + e.name) + "(" + operand(0) + ")";
    case ExprKind::Fill: return operand(0);
    case ExprKind::Iota: {
      // The iota may be broadcast into the loop's shape (right-aligned):
      // its coordinate is the loop's along the same dimension, and 0 along
      // a dimension of size 1.
      size_t axis = static_cast<size_t>(e.index);
      std::string i = "0";
      if (e.type.shape[axis] == 1) {
        i = "0";
      } else if (!ctx.index.empty()) {
        i = ctx.index[ctx.index.size() - e.type.shape.size() + axis];
      } else if (target_.flat_loops) {
        const Shape& loop = ctx.shape.size() >= e.type.shape.size() ? ctx.shape : e.type.shape;
        size_t d = loop.size() - e.type.shape.size() + axis;
        std::vector<int64_t> st = row_major_strides(loop);
        i = "(" + ctx.flat + " / " + std::to_string(st[d]) + " % " + std::to_string(loop[d]) + ")";
      }
      return rt("convert<") + T + ">(" + i + ")";
    }
    case ExprKind::Broadcast: return operand(0);
    case ExprKind::MeshDevice: {
      // Row-major over the mesh; each coordinate checked against its axis.
      std::string linear;
      for (size_t a = 0; a < e.operands.size(); ++a) {
        std::string c = mesh_coordinate(e, a, operand(a));
        linear = a == 0 ? c : "(" + linear + " * " + std::to_string(k_.mesh[a]) + " + " + c + ")";
      }
      return linear;
    }
    case ExprKind::AsmOutput: return index_of(asm_outputs_.at(e.asm_id)[e.index], e.type.shape, ctx);
    case ExprKind::ScalarParam:
    case ExprKind::ProgramId:
    case ExprKind::DeviceId:
    case ExprKind::SemRead:
    case ExprKind::PtxOp: return leaf(e, ctx);
    default: return index_of(materialize(e), e.type.shape, ctx);
  }
}

std::string CLikeEmitter::binary(const Expr& e, const std::string& a, const std::string& b) {
  DType t = e.operands[0]->type.dtype;
  std::string T = ctype(t);
  auto call = [&](const char* op, const std::string& x, const std::string& y) {
    return rt(op) + "(" + x + ", " + y + ")";
  };
  using Op = ir::BinaryOp;
  switch (e.binary) {
    case Op::Add: return call("op_add", a, b);
    case Op::Sub: return call("op_sub", a, b);
    case Op::Mul: return call("op_mul", a, b);
    case Op::Div:
    case Op::Rem: {
      bool div = e.binary == Op::Div;
      if (is_float(t)) return call(div ? "op_div" : "op_rem", a, b);
      return rt(div ? "int_div<" : "int_rem<") + T + ">(" + a + ", " + divisor(e, b) + ")";
    }
    case Op::Shl: return rt("shl<") + T + ">(" + a + ", " + b + ")";
    case Op::Shr: return rt("shr<") + T + ">(" + a + ", " + b + ")";
    case Op::BitAnd: return "static_cast<" + T + ">(" + a + " & " + b + ")";
    case Op::BitXor: return "static_cast<" + T + ">(" + a + " ^ " + b + ")";
    case Op::BitOr: return "static_cast<" + T + ">(" + a + " | " + b + ")";
    case Op::And: return "(" + a + " && " + b + ")";
    case Op::Or: return "(" + a + " || " + b + ")";
    default: break;
  }
  static const char* const cmp[] = {"<", "<=", ">", ">=", "==", "!="};
  std::string op = cmp[static_cast<int>(e.binary) - static_cast<int>(Op::Lt)];
  // 16-bit floats compare as the f32 they hold.
  if (t == DType::F16 || t == DType::BF16) return "(" + rt("cmp_value(") + a + ") " + op + " " + rt("cmp_value(") + b + "))";
  return "(" + a + " " + op + " " + b + ")";
}

std::string CLikeEmitter::materialize(const Expr& e, std::string name) {
  if (auto it = materialized_.find(&e); it != materialized_.end()) return it->second;
  if (name.empty()) name = fresh("t");
  switch (e.kind) {
    case ExprKind::Reduce: reduce(e, name); break;
    case ExprKind::Dot: dot(e, name); break;
    case ExprKind::Transpose: transpose(e, name); break;
    case ExprKind::Reshape: {
      std::string held = reshape(e, name);
      materialized_[&e] = held;
      return held;
    }
    case ExprKind::TileSlice: tile_slice(e, name); break;
    default:
      // An element-wise tree that must exist as an array.
      declare_temp(e, name);
      if (e.type.shape.empty()) w_.line(name + " = " + scalar(e) + ";");
      else store_tile(name, e.type.shape, e);
      break;
  }
  materialized_[&e] = name;
  return name;
}

std::string CLikeEmitter::operand_array(const Expr& e) {
  if (e.kind == ExprKind::Load) {
    if (auto it = materialized_.find(&e); it != materialized_.end()) return it->second;
    std::string in_place = view_in_place(e);
    if (!in_place.empty()) return materialized_[&e] = in_place;
  }
  return materialize_array(e);
}

std::string CLikeEmitter::materialize_array(const Expr& e) {
  if (e.kind == ExprKind::Local) return local_name(e.local);
  if (e.kind == ExprKind::AsmOutput) return asm_outputs_.at(e.asm_id)[e.index];
  if (auto it = materialized_.find(&e); it != materialized_.end()) return it->second;
  if (is_materialized_kind(e.kind)) return materialize(e);
  std::string name = fresh("t");
  if (e.type.shape.empty()) {
    std::string v = scalar(e);
    w_.line(ctype(e.type.dtype) + " " + name + " = " + v + ";");
  } else {
    declare_temp(e, name);
    store_tile(name, e.type.shape, e);
  }
  materialized_[&e] = name;
  return name;
}

CLikeEmitter::Reduction CLikeEmitter::begin_reduction(const Expr& e, const std::string& name) {
  Reduction r;
  r.src = operand_array(*e.operands[0]);
  declare_temp(e, name);
  r.sum = e.reduce == ir::ReduceOp::Sum;
  r.narrow = e.type.dtype == DType::F16 || e.type.dtype == DType::BF16;
  r.acc_t = r.narrow ? "float" : ctype(e.type.dtype);
  if (e.index >= 0) {
    const Shape& xs = e.operands[0]->type.shape;
    size_t axis = static_cast<size_t>(e.index);
    for (size_t d = 0; d < axis; ++d) r.outer *= xs[d];
    for (size_t d = axis + 1; d < xs.size(); ++d) r.inner *= xs[d];
    r.len = xs[axis];
  }
  return r;
}

CLikeEmitter::DotOperands CLikeEmitter::dot_operands(const Expr& e) {
  const Expr& a = *e.operands[0];
  const Expr& b = *e.operands[1];
  DotOperands d;
  d.a = operand_array(a);
  d.b = operand_array(b);
  d.M = a.type.shape[0];
  d.K = a.type.shape[1];
  d.N = b.type.shape[1];
  d.in = a.type.dtype;
  d.acc_t = ctype(e.type.dtype);
  return d;
}

CLikeEmitter::DotOperands CLikeEmitter::begin_dot(const Expr& e, const std::string& name) {
  DotOperands d = dot_operands(e);
  declare_temp(e, name);
  return d;
}

bool CLikeEmitter::reads_local(const Expr& e, int local) {
  if (e.kind == ExprKind::Local && e.local == local) return true;
  for (const ir::ExprPtr& o : e.operands) {
    if (reads_local(*o, local)) return true;
  }
  return (e.mask && reads_local(*e.mask, local)) || (e.other && reads_local(*e.other, local));
}

bool CLikeEmitter::reads_ref(const Expr& e, int ref) const {
  if (e.kind == ExprKind::Load && e.view->ref == ref) return true;
  for (const ir::ExprPtr& o : e.operands) {
    if (reads_ref(*o, ref)) return true;
  }
  return (e.mask && reads_ref(*e.mask, ref)) || (e.other && reads_ref(*e.other, ref));
}

bool CLikeEmitter::same_view(const ir::View& a, const ir::View& b) {
  if (a.ref != b.ref) return false;
  for (size_t d = 0; d < a.dims.size(); ++d) {
    const ir::ViewDim& x = a.dims[d];
    const ir::ViewDim& y = b.dims[d];
    if (x.start || y.start || x.static_start != y.static_start || x.size != y.size || x.dropped != y.dropped) return false;
  }
  return true;
}

}  // namespace kdt::emit
