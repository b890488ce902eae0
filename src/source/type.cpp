#include "kdt/source/type.h"

namespace kdt {

std::string shape_string(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string type_string(const Type& type) {
  switch (type.kind) {
    case Type::Kind::Error: return "<error>";
    case Type::Kind::Void: return "()";
    case Type::Kind::Value: {
      std::string s(dtype_name(type.dtype));
      if (!type.shape.empty()) s += shape_string(type.shape);
      return s;
    }
    case Type::Kind::Ref:
      return std::string(dtype_name(type.dtype)) + shape_string(type.shape) +
             (type.space == MemSpace::Global ? " @global" : " @shared");
    case Type::Kind::Sem:
      return std::string("sem") +
             (type.detail().sem_count >= 0 ? "[" + std::to_string(type.detail().sem_count) +
                                        (type.detail().sem_cols >= 0 ? ", " + std::to_string(type.detail().sem_cols) : "") + "]"
                                  : "") +
             (type.sem_kind == SemKind::Dma ? ": dma" : ": regular");
    case Type::Kind::Tuple: {
      std::string s = "(";
      for (size_t i = 0; i < type.detail().elements.size(); ++i) {
        if (i) s += ", ";
        s += type_string(type.detail().elements[i]);
      }
      return s + ")";
    }
    case Type::Kind::Dma:
      if (type.detail().elements.size() != 2) return "dma";
      return "dma(" + type_string(type.detail().elements[0]) + " -> " + type_string(type.detail().elements[1]) +
             (type.dma_add ? ", add" : "") + (type.dma_remote ? ", remote" : ", local") + ")";
  }
  return "?";
}

std::string mesh_string(const Shape& mesh, const std::vector<std::string>& axis_names) {
  std::string out;
  for (size_t a = 0; a < mesh.size(); ++a) {
    out += (a ? ", " : "") + (axis_names[a].empty() ? "" : axis_names[a] + ": ") + std::to_string(mesh[a]);
  }
  return out;
}

std::string mesh_axis_label(const std::vector<std::string>& axis_names, size_t axis) {
  const std::string& name = axis_names[axis];
  return name.empty() ? "mesh axis " + std::to_string(axis) : "mesh axis `" + name + "`";
}

}  // namespace kdt
