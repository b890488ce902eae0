// Typed random expressions and views for the builder (see build_state.h).
// Every expression is built with its dtype and shape known, so the KD text
// type-checks by construction; operands that could fault at run time are
// guarded (divisors made odd or >= 1, shift amounts masked, indices reduced
// modulo their range).
#include "build_nodes.h"
#include "build_state.h"

namespace kdt::gen {

namespace {

ExprPtr unary_node(UnOp op, ExprPtr a) {
  auto e = node(Expr::Kind::Unary, a->dtype, a->shape);
  e->unop = op;
  e->operands = {std::move(a)};
  return e;
}

ExprPtr cast_node(DType to, ExprPtr a) {
  auto e = node(Expr::Kind::Cast, to, a->shape);
  e->operands = {std::move(a)};
  return e;
}

int width_bits(DType dt) { return 8 * dtype_bytes(dt); }

}  // namespace

Shape Builder::random_shape(int max_rank, int64_t max_elems) {
  const int rank = static_cast<int>(ch_.range(0, max_rank));
  Shape s;
  int64_t n = 1;
  for (int i = 0; i < rank; ++i) {
    const int64_t d = ch_.range(1, 5);
    if (n * d > max_elems) break;
    s.push_back(d);
    n *= d;
  }
  return s;
}

DType Builder::pick_dtype() { return ch_.pick(dtypes_); }

DType Builder::pick_any_dtype() { return static_cast<DType>(ch_.range(1, kDTypeCount - 1)); }

ExprPtr Builder::small_literal(DType dt, int64_t v, bool weak) {
  auto e = node(Expr::Kind::Literal, dt, {});
  e->bits = is_float(dt) ? from_f64(dt, static_cast<double>(v)) : from_int(dt, static_cast<uint64_t>(v));
  e->weak = weak;
  return e;
}

ExprPtr Builder::literal(DType dt, bool weak) {
  auto e = node(Expr::Kind::Literal, dt, {});
  e->weak = weak;
  if (dt == DType::Bool) {
    e->bits = ch_.coin();
  } else if (is_float(dt)) {
    // Short dyadic fractions: exact in every float dtype.
    e->bits = from_f64(dt, static_cast<double>(ch_.range(-32, 32)) / 4.0);
  } else if (is_signed_int(dt)) {
    e->bits = from_int(dt, static_cast<uint64_t>(ch_.range(-100, 100)));
  } else {
    e->bits = from_int(dt, static_cast<uint64_t>(ch_.range(0, 200)));
  }
  return e;
}

ExprPtr Builder::pid() { return name_node("pid", DType::I32, {}); }

ExprPtr Builder::index_expr(int64_t m, bool allow_constant) {
  // Program ids, device ids and loop variables are never negative, so `% m`
  // lands in [0, m).
  ExprPtr base;
  switch (ch_.below(loop_var_.empty() ? 4 : 5)) {
    case 0:
      if (allow_constant) return small_literal(DType::I32, ch_.range(0, m - 1), false);
      base = pid();
      break;
    case 1: base = pid(); break;
    case 2:
      base = binary_node(BinOp::Add, binary_node(BinOp::Mul, pid(), small_literal(DType::I32, ch_.range(1, 5), true)),
                         small_literal(DType::I32, ch_.range(0, 7), true));
      break;
    case 3: {
      ExprPtr p = launch_node(Expr::Kind::ProgramId, static_cast<int>(ch_.below(k_.grid.size())));
      base = k_.devices > 1 && ch_.coin() ? launch_node(Expr::Kind::DeviceId) : p;
      base = binary_node(BinOp::Add, base, small_literal(DType::I32, ch_.range(0, 3), true));
      break;
    }
    default: base = binary_node(BinOp::Add, name_node(loop_var_, DType::I32, {}), pid()); break;
  }
  if (m == 1) return binary_node(BinOp::Mul, base, small_literal(DType::I32, 0, true));
  return binary_node(BinOp::Rem, base, small_literal(DType::I32, m, true));
}

bool Builder::view_entries(const Shape& ref_shape, const Shape& shape, std::vector<IndexEntry>& out,
                           bool allow_dynamic) {
  // Choose which ref dimensions the view keeps (in order); the others are
  // dropped by a scalar index.
  const size_t n = ref_shape.size(), r = shape.size();
  if (r > n) return false;
  std::vector<std::vector<size_t>> options;
  std::vector<size_t> pick;
  // Enumerate increasing r-subsets of [0, n) (n <= 4).
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (static_cast<size_t>(__builtin_popcount(mask)) != r) continue;
    std::vector<size_t> dims;
    bool fits = true;
    for (size_t d = 0; d < n; ++d) {
      if (mask & (1u << d)) {
        if (ref_shape[d] < shape[dims.size()]) fits = false;
        dims.push_back(d);
      }
    }
    if (fits) options.push_back(dims);
  }
  if (options.empty()) return false;
  const std::vector<size_t>& kept = ch_.pick(options);
  out.clear();
  size_t v = 0;
  for (size_t d = 0; d < n; ++d) {
    IndexEntry e;
    const bool keep = v < kept.size() && kept[v] == d;
    if (!keep) {
      e.kind = IndexEntry::Kind::Scalar;
      e.index = allow_dynamic && ch_.coin() ? index_expr(ref_shape[d])
                                            : small_literal(DType::I32, ch_.range(0, ref_shape[d] - 1), false);
    } else {
      const int64_t size = shape[v++];
      const int64_t room = ref_shape[d] - size;
      const uint64_t how = ch_.below(allow_dynamic ? 3 : 2);
      if (room == 0 && how == 0) {
        e.kind = IndexEntry::Kind::Full;
      } else if (how == 2) {
        e.kind = IndexEntry::Kind::Ds;
        e.size = size;
        e.index = index_expr(room + 1);
      } else {
        e.kind = IndexEntry::Kind::Slice;
        e.start = ch_.range(0, room);
        e.size = size;
      }
    }
    out.push_back(std::move(e));
  }
  // Trailing full dimensions may be left out.
  while (!out.empty() && out.back().kind == IndexEntry::Kind::Full && ch_.coin()) out.pop_back();
  return true;
}

View Builder::sub_view(const RefState& r, Shape& shape_out) {
  View v;
  v.ref = r.name;
  v.entries = r.block;
  shape_out.clear();
  // A [P*R, ...] block keeps its ds() entry; the rest are sub-selected.
  size_t first = 0;
  if (!r.block.empty() && r.block.back().kind == IndexEntry::Kind::Ds) {
    shape_out.push_back(r.block_shape[0]);
    first = 1;
  }
  for (size_t d = first; d < r.block_shape.size(); ++d) {
    const int64_t dim = r.block_shape[d];
    IndexEntry e;
    switch (ch_.below(4)) {
      case 0: e.kind = IndexEntry::Kind::Full; shape_out.push_back(dim); break;
      case 1: {
        e.kind = IndexEntry::Kind::Slice;
        e.size = ch_.range(1, dim);
        e.start = ch_.range(0, dim - e.size);
        shape_out.push_back(e.size);
        break;
      }
      case 2: {
        e.kind = IndexEntry::Kind::Ds;
        e.size = ch_.range(1, dim);
        e.index = index_expr(dim - e.size + 1);
        shape_out.push_back(e.size);
        break;
      }
      default:
        e.kind = IndexEntry::Kind::Scalar;
        e.index = ch_.coin() ? index_expr(dim) : small_literal(DType::I32, ch_.range(0, dim - 1), false);
        break;
    }
    v.entries.push_back(std::move(e));
  }
  if (v.entries.empty()) v.ellipsis = true;
  return v;
}

ExprPtr Builder::load_leaf(DType dt, const Shape& shape) {
  std::vector<RefState*> candidates;
  for (RefState& r : refs_) {
    if (r.dtype != dt || r.busy) continue;
    if (r.role == Role::Input || (r.role == Role::Scratch && r.written)) candidates.push_back(&r);
    if (r.role == Role::Block && r.written && r.block_shape == shape) candidates.push_back(&r);
  }
  if (candidates.empty()) return nullptr;
  RefState& r = *candidates[ch_.below(candidates.size())];
  auto e = node(Expr::Kind::Load, dt, shape);
  e->view.ref = r.name;
  if (r.role == Role::Block) {
    e->view = block_view(r);
    return e;
  }
  if (!view_entries(r.shape, shape, e->view.entries, true)) return nullptr;
  if (e->view.entries.empty() && ch_.coin()) e->view.ellipsis = true;
  return e;
}

ExprPtr Builder::masked_load(DType dt, const Shape& shape) {
  // load(x[i, ds(start, n)], mask=iota + start < len && ..., other=v): the
  // slice may run past the end of the ref; the mask keeps those elements off.
  if (shape.size() != 1) return nullptr;
  std::vector<RefState*> candidates;
  for (RefState& r : refs_) {
    if (r.role == Role::Input && r.dtype == dt && !r.shape.empty()) candidates.push_back(&r);
  }
  if (candidates.empty()) return nullptr;
  RefState& r = *candidates[ch_.below(candidates.size())];
  const int64_t len = r.shape.back(), n = shape[0];
  // kdt reads a ds() size beyond the dimension as static-out-of-bounds, even under a mask.
  if (n > len) return nullptr;
  auto e = node(Expr::Kind::MaskedLoad, dt, shape);
  e->view.ref = r.name;
  for (size_t d = 0; d + 1 < r.shape.size(); ++d) e->view.entries.push_back(scalar_entry(index_expr(r.shape[d])));
  ExprPtr inside;
  e->view.entries.push_back(masked_ds(len, n, inside));
  e->operands = {inside, literal(dt, false)};
  return e;
}

IndexEntry Builder::masked_ds(int64_t len, int64_t n, ExprPtr& mask) {
  IndexEntry ds;
  ds.kind = IndexEntry::Kind::Ds;
  ds.size = n;
  // A constant start past len - n would be a static-out-of-bounds error in
  // kdt, mask or not (see docs/reliability.md, differential testing).
  ds.index = index_expr(len, false);
  auto iota = node(Expr::Kind::Iota, DType::I32, {n});
  iota->axis = 0;
  mask = binary_node(BinOp::Lt, binary_node(BinOp::Add, iota, ds.index), int_lit(len, true));
  if (ch_.coin()) mask = binary_node(BinOp::LAnd, mask, bool_expr({n}, 1));
  return ds;
}

ExprPtr Builder::leaf(DType dt, const Shape& shape) {
  // Names in scope of this dtype whose shape broadcasts to `shape`.
  const std::vector<Binding>& visible = in_fallback_ ? fallback_names_ : scopes_.back();
  std::vector<const Binding*> names;
  auto consider = [&](const Binding& b) {
    if (b.dtype == dt && (b.shape == shape || b.shape.empty())) names.push_back(&b);
  };
  if (in_fallback_) {
    for (const Binding& b : visible) consider(b);
  } else {
    for (const auto& scope : scopes_) {
      for (const Binding& b : scope) consider(b);
    }
  }
  for (int attempt = 0; attempt < 4; ++attempt) {
    switch (ch_.below(in_fallback_ ? 2 : 6)) {
      case 0:
        if (!names.empty()) {
          const Binding& b = *names[ch_.below(names.size())];
          ExprPtr n = name_node(b.name, b.dtype, b.shape);
          if (b.shape == shape) return n;
          // A scalar binding, broadcast to the requested shape.
          auto e = node(Expr::Kind::Broadcast, dt, shape);
          e->operands = {n};
          return e;
        }
        break;
      case 1:
        if (shape.empty() || in_fallback_) return literal(dt, false);
        break;
      case 2:
      case 3:
        if (ExprPtr e = load_leaf(dt, shape)) return e;
        break;
      case 4:
        if (dt != DType::Bool && !shape.empty()) {
          auto e = node(Expr::Kind::Iota, dt, shape);
          e->axis = static_cast<int>(ch_.below(shape.size()));
          return e;
        }
        break;
      default:
        if (dt == DType::I32 && shape.empty()) {
          if (k_.devices > 1 && ch_.coin()) return launch_node(Expr::Kind::DeviceId);
          return pid();
        }
        if (ExprPtr e = masked_load(dt, shape)) return e;
        break;
    }
  }
  if (in_fallback_ || shape.empty()) {
    if (!names.empty() && names[0]->shape == shape) return name_node(names[0]->name, dt, shape);
    return literal(dt, false);
  }
  auto e = node(Expr::Kind::Full, dt, shape);
  switch (ch_.below(3)) {
    case 0: e->name = "zeros"; break;
    case 1: e->name = dt == DType::Bool ? "zeros" : "ones"; break;
    default: e->name = "full"; e->operands = {literal(dt, false)}; break;
  }
  return e;
}

ExprPtr Builder::bool_expr(const Shape& shape, int depth) {
  if (depth <= 0) {
    // A comparison of a leaf with a literal.
    const DType dt = pick_dtype();
    const BinOp ops[] = {BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge, BinOp::Eq, BinOp::Ne};
    ExprPtr a = leaf(dt, shape);
    return binary_node(ops[ch_.below(6)], a, dt == DType::Bool ? literal(dt, false) : literal(dt, true));
  }
  switch (ch_.below(5)) {
    case 0: return binary_node(ch_.coin() ? BinOp::LAnd : BinOp::LOr, bool_expr(shape, depth - 1), bool_expr(shape, depth - 1));
    case 1: return unary_node(UnOp::Not, bool_expr(shape, depth - 1));
    case 2: {
      const DType dt = pick_dtype();
      if (is_float(dt)) break;
      return cast_node(DType::Bool, expr(dt, shape, depth - 1));
    }
    case 3: {
      const BinOp ops[] = {BinOp::And, BinOp::Or, BinOp::Xor, BinOp::Eq, BinOp::Ne};
      return binary_node(ops[ch_.below(5)], bool_expr(shape, depth - 1), bool_expr(shape, depth - 1));
    }
    default: break;
  }
  const DType dt = pick_dtype();
  const BinOp ops[] = {BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge, BinOp::Eq, BinOp::Ne};
  return binary_node(ops[ch_.below(6)], expr(dt, shape, depth - 1), expr(dt, shape, depth - 1));
}

ExprPtr Builder::expr(DType dt, const Shape& shape, int depth) {
  if (dt == DType::Bool) return bool_expr(shape, depth);
  if (depth <= 0 || ch_.chance(25)) return leaf(dt, shape);
  return compound(dt, shape, depth);
}

ExprPtr Builder::compound(DType dt, const Shape& shape, int depth) {
  const int d = depth - 1;
  // A second operand: the full shape, a broadcast suffix, or a literal.
  auto operand = [&](bool allow_literal = true) -> ExprPtr {
    const uint64_t how = ch_.below(5);
    if (how == 0 && allow_literal) return literal(dt, true);
    if (how == 1 && !shape.empty()) {
      Shape suffix(shape.begin() + static_cast<int64_t>(ch_.below(shape.size() + 1)), shape.end());
      if (!suffix.empty() && ch_.coin()) suffix[0] = 1;
      return expr(dt, suffix, d);
    }
    return expr(dt, shape, d);
  };
  for (int attempt = 0; attempt < 4; ++attempt) {
    const uint64_t kind = ch_.below(in_fallback_ ? 6 : 14);
    switch (kind) {
      case 0:
      case 1: {
        const BinOp ops[] = {BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Max, BinOp::Min};
        const BinOp op = ops[ch_.below(5)];
        ExprPtr a = expr(dt, shape, d);
        ExprPtr b = operand();
        return binary_node(op, a, b);
      }
      case 2:
        if (is_int(dt)) {
          // Division and remainder by an odd (so non-zero) value; INT_MIN / -1 wraps.
          ExprPtr divisor = binary_node(BinOp::Or, operand(), small_literal(dt, 1, true));
          if (!broadcasts_to(divisor->shape, shape)) break;
          return binary_node(ch_.coin() ? BinOp::Div : BinOp::Rem, expr(dt, shape, d), divisor);
        }
        if (is_float(dt)) {
          ExprPtr divisor = binary_node(BinOp::Add, unary_node(UnOp::Abs, operand(false)), small_literal(dt, 1, true));
          return binary_node(BinOp::Div, expr(dt, shape, d), divisor);
        }
        break;
      case 3:
        if (is_int(dt)) {
          // Shift amounts up to a few past the width, which PTX-style shifts clamp.
          const int64_t mask = width_bits(dt) == 8 ? 15 : width_bits(dt) == 16 ? 31 : 63;
          ExprPtr amount = binary_node(BinOp::And, operand(), small_literal(dt, mask, true));
          return binary_node(ch_.coin() ? BinOp::Shl : BinOp::Shr, expr(dt, shape, d), amount);
        }
        if (is_float(dt)) {
          const UnOp ops[] = {UnOp::Abs, UnOp::Floor, UnOp::Ceil, UnOp::Neg};
          return unary_node(ops[ch_.below(4)], expr(dt, shape, d));
        }
        break;
      case 4:
        if (is_int(dt)) {
          const BinOp ops[] = {BinOp::And, BinOp::Or, BinOp::Xor};
          return binary_node(ops[ch_.below(3)], expr(dt, shape, d), operand());
        }
        if (is_float(dt)) return unary_node(UnOp::Sqrt, unary_node(UnOp::Abs, expr(dt, shape, d)));
        break;
      case 5:
        if (is_int(dt)) return unary_node(ch_.coin() ? UnOp::BitNot : UnOp::Neg, expr(dt, shape, d));
        break;
      case 6: {
        auto e = node(Expr::Kind::Where, dt, shape);
        e->operands = {bool_expr(shape, d), expr(dt, shape, d), operand()};
        return e;
      }
      case 7: {
        // A cast from another dtype.
        const DType from = ch_.coin() ? pick_dtype() : pick_any_dtype();
        if (from == dt) break;
        return cast_node(dt, from == DType::Bool ? bool_expr(shape, d) : expr(from, shape, d));
      }
      case 8:
        if (ExprPtr e = reduce_expr(dt, shape, depth)) return e;
        break;
      case 9:
        if (shape.size() == 2 && (dt == DType::F32 || dt == DType::I32)) {
          // dot: floats accumulate in f32, integers in i32; f64 and i64
          // inputs would give an f64/i64 result (spec 0.2), so they are
          // drawn as f32/i32 (the same draws: seeds keep their programs).
          DType in = dt;
          if (ch_.coin()) {
            const DType floats[] = {DType::F16, DType::BF16, DType::F32, DType::F32};
            const DType ints[] = {DType::I8, DType::U8, DType::I16, DType::I32, DType::U32, DType::I32};
            in = dt == DType::F32 ? floats[ch_.below(4)] : ints[ch_.below(6)];
          }
          const int64_t K = ch_.range(1, 5);
          auto e = node(Expr::Kind::Dot, dt, shape);
          e->operands = {expr(in, {shape[0], K}, d), expr(in, {K, shape[1]}, d)};
          return e;
        }
        break;
      case 10:
        if (shape.size() == 2) {
          auto e = node(Expr::Kind::Transpose, dt, shape);
          e->operands = {expr(dt, {shape[1], shape[0]}, d)};
          return e;
        }
        if (!shape.empty()) {
          // reshape from another shape with as many elements, or a broadcast.
          const int64_t n = element_count(shape);
          Shape from = ch_.coin() ? Shape{n} : Shape{1, n};
          if (from == shape) break;
          auto e = node(Expr::Kind::Reshape, dt, shape);
          e->operands = {expr(dt, from, d)};
          return e;
        }
        break;
      case 11:
        if (!shape.empty()) {
          Shape small = shape;
          small[ch_.below(small.size())] = 1;
          if (ch_.coin()) small.erase(small.begin());
          auto e = node(Expr::Kind::Broadcast, dt, shape);
          e->operands = {expr(dt, small, d)};
          return e;
        }
        break;
      case 12:
        if (!shape.empty()) {
          // A static slice of a tile value along its first dimension.
          Shape bigger = shape;
          const int64_t extra = ch_.range(1, 3);
          bigger[0] += extra;
          ExprPtr x = compound(dt, bigger, d + 1);
          if (x->kind == Expr::Kind::Literal || x->kind == Expr::Kind::Load || x->kind == Expr::Kind::MaskedLoad ||
              x->shape != bigger) {
            break;
          }
          auto e = node(Expr::Kind::TileSlice, dt, shape);
          e->start = ch_.range(0, extra);
          e->size = shape[0];
          e->operands = {x};
          return e;
        }
        break;
      default:
        if (ExprPtr e = asm_expr(dt, shape, depth)) return e;
        break;
    }
  }
  return leaf(dt, shape);
}

ExprPtr Builder::reduce_expr(DType dt, const Shape& shape, int depth) {
  auto e = node(Expr::Kind::Reduce, dt, shape);
  const char* names[] = {"sum", "max", "min"};
  e->name = names[ch_.below(3)];
  if (shape.empty() && ch_.coin()) {
    e->axis = -1;
    e->operands = {expr(dt, ch_.below(8) == 0 ? Shape{ch_.range(30, 70)} : random_shape(2, 16), depth - 1)};
    return e;
  }
  if (shape.size() >= 3) return nullptr;
  const size_t axis = ch_.below(shape.size() + 1);
  Shape from = shape;
  // Mostly short; one in eight long enough (30-70) to reach every part of
  // kdt's 32-lane order: lanes with two or three elements, the whole tree.
  const int64_t len = ch_.below(8) == 0 ? ch_.range(30, 70) : ch_.range(1, 5);
  if (ch_.coin() && !shape.empty() && shape[std::min(axis, shape.size() - 1)] == 1) {
    // keepdims=true: the reduced dimension stays as a 1.
    const size_t a = std::min(axis, shape.size() - 1);
    from[a] = len;
    e->axis = static_cast<int>(a);
    e->keepdims = true;
  } else {
    from.insert(from.begin() + static_cast<int64_t>(axis), len);
    e->axis = static_cast<int>(axis);
  }
  e->operands = {expr(dt, from, depth - 1)};
  return e;
}

}  // namespace kdt::gen
