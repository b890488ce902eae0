// Device meshes (spec section 15): `devices(x: 2, y: 4)`, `device_id(x)`,
// `num_devices(x)` and `device=(d0, d1)` / `device=(y: e)`. Mesh-axis names
// have their own namespace: they mean something only here.
#include <algorithm>

#include "checker.h"

namespace kdt::check {

namespace {

std::string axis_label(const ast::Kernel& k, size_t axis) { return mesh_axis_label(k.mesh_axes, axis); }

std::optional<size_t> find_axis(const ast::Kernel& k, const std::string& name) {
  auto it = std::find(k.mesh_axes.begin(), k.mesh_axes.end(), name);
  if (name.empty() || it == k.mesh_axes.end()) return std::nullopt;
  return static_cast<size_t>(it - k.mesh_axes.begin());
}

std::string mesh_string(const ast::Kernel& k) { return "devices(" + kdt::mesh_string(k.mesh, k.mesh_axes) + ")"; }

}  // namespace

void Checker::check_devices_attr(ast::Kernel& k, const ast::KernelAttr& attr) {
  if (attr.args.empty()) {
    diags_.report(DiagCode::BadArgument, attr.range, "`devices` needs at least one mesh axis");
    return;
  }
  std::unordered_map<std::string, SourceRange> names;
  std::vector<int64_t> mesh;
  std::vector<std::string> axes;
  for (size_t i = 0; i < attr.args.size(); ++i) {
    const ast::Name& name = attr.arg_names[i];
    if (!name.text.empty()) {
      auto [it, fresh] = names.emplace(name.text, name.range);
      if (!fresh) {
        diags_.report(DiagCode::Redefinition, name.range, "mesh axis `" + name.text + "` is named twice")
            .note("first named here", it->second);
        return;
      }
    }
    auto v = eval_positive(*attr.args[i], "a mesh axis size");
    if (!v) return;
    mesh.push_back(*v);
    axes.push_back(name.text);
  }
  int64_t total = 1;
  for (int64_t d : mesh) {
    if (__builtin_mul_overflow(total, d, &total)) {
      diags_.report(DiagCode::ConstantOverflow, attr.range, "the mesh has more devices than 64 bits can count");
      return;
    }
  }
  k.mesh = std::move(mesh);
  k.mesh_axes = std::move(axes);
  k.devices = total;
}

std::optional<int64_t> Checker::mesh_axis_arg(ast::Expr& axis) {
  if (!kernel_) {
    // A function checked on its own: the mesh is each calling kernel's, so
    // an axis name is taken on trust here and checked in each instance.
    if (axis.kind == ast::Expr::Kind::Name && !lookup(axis.spelling)) {
      axis.type = Type::value(DType::I32);
      return 0;
    }
    auto a = eval_const(axis);
    if (a && *a < 0) {
      diags_.report(DiagCode::StaticOutOfBounds, axis.range, "mesh axis " + std::to_string(*a) + " does not exist");
      return std::nullopt;
    }
    return a;
  }
  const ast::Kernel& k = *kernel_;
  if (axis.kind == ast::Expr::Kind::Name) {
    if (auto a = find_axis(k, axis.spelling)) {
      axis.const_value = static_cast<int64_t>(*a);
      axis.type = Type::value(DType::I32);
      return axis.const_value;
    }
    if (!lookup(axis.spelling)) {
      diags_.report(DiagCode::UndefinedName, axis.range,
                    "`" + axis.spelling + "` is not an axis of `" + mesh_string(k) + "` (nor a constant)");
      return std::nullopt;
    }
  }
  auto a = eval_const(axis);
  if (!a) return std::nullopt;
  if (*a < 0 || *a >= static_cast<int64_t>(k.mesh.size())) {
    std::string names;
    for (const std::string& n : k.mesh_axes) {
      if (!n.empty()) names += std::string(names.empty() ? "" : ", ") + "`" + n + "`";
    }
    diags_.report(DiagCode::StaticOutOfBounds, axis.range,
                  "mesh axis " + std::to_string(*a) + " does not exist; `" + mesh_string(k) + "` has " +
                      std::to_string(k.mesh.size()) + (k.mesh.size() == 1 ? " axis" : " axes") +
                      (names.empty() ? std::string() : " (" + names + ")"));
    return std::nullopt;
  }
  axis.const_value = a;
  return a;
}

void Checker::check_device_value(ast::Expr& value) {
  if (value.kind != ast::Expr::Kind::DeviceCoords) {
    expect_scalar(value, DType::I32, "the device");
    return;
  }
  value.type = Type::value(DType::I32);
  if (!kernel_) {
    // A function checked on its own: only the coordinates' types; each
    // calling kernel's instance checks them against its mesh.
    for (ast::Arg& c : value.args) expect_scalar(*c.value, DType::I32, "a device coordinate");
    return;
  }
  const ast::Kernel& k = *kernel_;
  bool named = value.args.front().kind == ast::Arg::Kind::Keyword;
  std::vector<const ast::Arg*> given(k.mesh.size(), nullptr);
  for (size_t i = 0; i < value.args.size(); ++i) {
    ast::Arg& c = value.args[i];
    expect_scalar(*c.value, DType::I32, "a device coordinate");
    if ((c.kind == ast::Arg::Kind::Keyword) != named) {
      diags_.report(DiagCode::BadArgument, c.range,
                    "device coordinates are all positional (one per mesh axis) or all named (`y: e`)");
      value.type = Type::error();
      continue;
    }
    if (!named) continue;
    std::optional<size_t> axis = find_axis(k, c.keyword.text);
    if (!axis) {
      diags_.report(DiagCode::BadArgument, c.keyword.range,
                    "`" + c.keyword.text + "` is not an axis of `" + mesh_string(k) + "`");
      value.type = Type::error();
    } else if (given[*axis]) {
      diags_.report(DiagCode::BadArgument, c.keyword.range, "mesh axis `" + c.keyword.text + "` is given twice")
          .note("first given here", given[*axis]->range);
      value.type = Type::error();
    } else {
      given[*axis] = &c;
    }
  }
  if (!named && value.args.size() != k.mesh.size()) {
    DiagnosticBuilder d = diags_.report(DiagCode::BadArgument, value.range,
                                        "`device=` gives " + std::to_string(value.args.size()) + " coordinates; `" +
                                            mesh_string(k) + "` has " + std::to_string(k.mesh.size()) +
                                            (k.mesh.size() == 1 ? " axis" : " axes"));
    if (!k.mesh_axes.back().empty()) {
      d.note("give one coordinate per mesh axis, or name only those that differ from this device's: `(" +
             k.mesh_axes.back() + ": e)`");
    }
    value.type = Type::error();
    return;
  }
  // A constant coordinate outside its axis is known now.
  for (size_t i = 0; i < value.args.size() && !value.type.is_error(); ++i) {
    const ast::Arg& c = value.args[i];
    size_t axis = named ? *find_axis(k, c.keyword.text) : i;
    if (auto v = eval_const(*c.value, true); v && (*v < 0 || *v >= k.mesh[axis])) {
      diags_.report(DiagCode::StaticOutOfBounds, c.value->range,
                    "device coordinate " + std::to_string(*v) + " is outside " + axis_label(k, axis) + " of size " +
                        std::to_string(k.mesh[axis]));
    }
  }
}

}  // namespace kdt::check
