// Grid axes and block specs (spec section 13): `grid(i: G0, sequential k:
// G1)`, the axis names as `i32` bindings, and `block [B...] at (e...)` on
// kernel parameters. Lowering turns the specs into scratch and DMAs
// (ir/block_specs.cpp); here they are only read and checked.
#include <functional>

#include "checker.h"

namespace kdt::check {

namespace {

bool is_call_of(const ast::Expr& e, const char* name) { return e.kind == ast::Expr::Kind::Call && e.spelling == name; }

// The first part of `e` that a block index may not use (section 13: no
// refs, semaphores, sem_read, asm or function calls), or null.
const ast::Expr* forbidden_in_block_index(const ast::Expr& e, std::string& why,
                                          const std::function<const Symbol*(const std::string&)>& lookup) {
  using K = ast::Expr::Kind;
  switch (e.kind) {
    case K::Name: {
      const Symbol* s = lookup(e.spelling);
      if (s && s->kind == Symbol::Kind::Param && s->type.kind != Type::Kind::Value) {
        why = "a block index cannot read the ref `" + e.spelling + "`";
        return &e;
      }
      return nullptr;
    }
    case K::Index:
      why = "a block index cannot read refs";
      return &e;
    case K::Asm:
      why = "a block index cannot run asm";
      return &e;
    case K::Call: {
      static const char* const allowed[] = {"program_id", "num_programs", "device_id", "num_devices", "cdiv"};
      bool ok = false;
      for (const char* a : allowed) ok = ok || is_call_of(e, a);
      if (!ok) {
        why = "a block index may call only program_id, num_programs, device_id, num_devices and cdiv, not `" +
              e.spelling + "`";
        return &e;
      }
      for (const ast::Arg& a : e.args) {
        if (a.value) {
          if (const ast::Expr* bad = forbidden_in_block_index(*a.value, why, lookup)) return bad;
        }
      }
      return nullptr;
    }
    default:
      for (const ast::ExprPtr& o : e.operands) {
        if (const ast::Expr* bad = forbidden_in_block_index(*o, why, lookup)) return bad;
      }
      return nullptr;
  }
}

// Whether `e` mentions grid axis `axis`: its name or `program_id(axis)`.
bool mentions_axis(const ast::Expr& e, int64_t axis) {
  if (e.kind == ast::Expr::Kind::Name && e.symbol && e.symbol->grid_axis == axis) return true;
  if (is_call_of(e, "program_id") && !e.args.empty() && e.args[0].value && e.args[0].value->const_value == axis) {
    return true;
  }
  for (const ast::ExprPtr& o : e.operands) {
    if (mentions_axis(*o, axis)) return true;
  }
  for (const ast::Arg& a : e.args) {
    if (a.value && mentions_axis(*a.value, axis)) return true;
  }
  return false;
}

}  // namespace

void Checker::check_grid_attr(ast::Kernel& k, const ast::KernelAttr& attr) {
  if (attr.args.empty()) {
    diags_.report(DiagCode::BadArgument, attr.range, "`grid` needs at least one dimension");
  }
  for (size_t i = 0; i < attr.args.size(); ++i) {
    auto v = eval_positive(*attr.args[i], "a grid dimension");
    if (!v) continue;
    ast::GridAxis axis;
    axis.extent = *v;
    axis.sequential = i < attr.sequential.size() && attr.sequential[i];
    axis.name = attr.arg_names[i].text;
    axis_names_.push_back(attr.arg_names[i]);
    k.grid.push_back(*v);
    k.axes.push_back(axis);
  }
}

// After the parameters, so that an axis named like a parameter is the
// `redefinition` (the spec's rule is about the axis).
void Checker::declare_grid_axes(ast::Kernel& k) {
  for (size_t a = 0; a < k.axes.size(); ++a) {
    if (axis_names_[a].text.empty()) continue;
    Symbol& s = declare(Symbol::Kind::Let, axis_names_[a], Type::value(DType::I32));
    s.used = true;
    s.grid_axis = static_cast<int>(a);
    k.axes[a].symbol = &s;
  }
  axis_names_.clear();
}

std::optional<int64_t> Checker::grid_axis_arg(const ast::Expr& axis) {
  if (axis.kind != ast::Expr::Kind::Name) return std::nullopt;
  const Symbol* s = lookup(axis.spelling);
  if (!s || s->grid_axis < 0) return std::nullopt;
  return s->grid_axis;
}

// The parameter's symbol already has the array's type; it becomes a
// `@shared` ref of the block's shape when the spec is sound.
void Checker::check_block_spec(ast::Kernel& k, ast::Param& p, Symbol& param) {
  ast::BlockSpec& spec = *p.block;
  if (param.type.is_error()) return;
  const Shape array = param.type.shape;
  bool ok = true;
  if (spec.dims.size() != array.size()) {
    diags_.report(DiagCode::BlockSpec, spec.range,
                  "the block of `" + p.name.text + "` has " + std::to_string(spec.dims.size()) +
                      (spec.dims.size() == 1 ? " dimension" : " dimensions") + ", but the parameter has " +
                      std::to_string(array.size()));
    ok = false;
  }
  if (spec.index.size() != spec.dims.size()) {
    diags_.report(DiagCode::BlockSpec, spec.range,
                  "the block index of `" + p.name.text + "` needs one expression per block dimension (" +
                      std::to_string(spec.dims.size()) + "), not " + std::to_string(spec.index.size()));
    ok = false;
  }
  Shape shape;
  for (size_t d = 0; d < spec.dims.size(); ++d) {
    auto b = eval_positive(*spec.dims[d], "a block dimension");
    if (!b) {
      ok = false;
      continue;
    }
    if (d < array.size() && array[d] % *b != 0) {
      diags_.report(DiagCode::BlockSpec, spec.dims[d]->range,
                    "block dimension " + std::to_string(*b) + " does not divide dimension " + std::to_string(d) + " (" +
                        std::to_string(array[d]) + ") of `" + p.name.text + "`")
          .note("blocks must divide the array: kdt has no padded edge blocks");
      ok = false;
    }
    shape.push_back(*b);
  }
  auto lookup_fn = [&](const std::string& n) { return lookup(n); };
  for (size_t d = 0; d < spec.index.size(); ++d) {
    ast::Expr& e = *spec.index[d];
    std::string why;
    if (const ast::Expr* bad = forbidden_in_block_index(e, why, lookup_fn)) {
      diags_.report(DiagCode::BlockSpec, bad->range, why);
      ok = false;
      continue;
    }
    if (expect_scalar(e, DType::I32, "a block index").is_error()) {
      ok = false;
      continue;
    }
    auto at = eval_const(e, true);
    if (at && ok && d < shape.size() && (*at < 0 || *at >= array[d] / shape[d])) {
      diags_.report(DiagCode::StaticOutOfBounds, e.range,
                    "block index " + std::to_string(*at) + " of `" + p.name.text + "` lies outside dimension " +
                        std::to_string(d) + ", which has " + std::to_string(array[d] / shape[d]) + " blocks of " +
                        std::to_string(shape[d]));
      ok = false;
    }
  }
  if (!ok) {
    param.type = Type::error();
    return;
  }
  // Programs that differ on a parallel axis the output's index ignores
  // would write back the same block.
  if (p.mode != ast::ParamMode::In) {
    for (size_t a = 0; a < k.axes.size(); ++a) {
      const ast::GridAxis& axis = k.axes[a];
      if (axis.sequential || axis.extent <= 1) continue;
      bool mentioned = false;
      for (const ast::ExprPtr& e : spec.index) mentioned = mentioned || mentions_axis(*e, static_cast<int64_t>(a));
      if (mentioned) continue;
      const std::string label = axis.name.empty() ? "grid axis " + std::to_string(a) : "parallel axis `" + axis.name + "`";
      diags_.report(DiagCode::BlockSpec, spec.range,
                    "the block index of output `" + p.name.text + "` does not depend on " + label + " (" +
                        std::to_string(axis.extent) + " programs): they would all write back the same block")
          .note("index the block by the axis, or make the axis `sequential`");
      param.type = Type::error();
      return;
    }
  }
  spec.shape = shape;
  spec.array_shape = array;
  param.type = Type::ref(param.type.dtype, shape, MemSpace::Shared);
  param.block_spec = true;
}

}  // namespace kdt::check
