// Types the checker assigns to expressions (spec section 3).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kdt/source/dtype.h"

namespace kdt {

enum class MemSpace : uint8_t { Global, Shared };
enum class SemKind : uint8_t { Dma, Regular };

struct Symbol;  // kdt/check/check.h
struct Type;

struct TypeDetail;

// A Type's rare parts (TypeDetail), out of line behind one pointer: most
// types have none, and every expression of a checked program holds a Type
// (issue 17: 40 bytes against 64). Copies are deep.
class TypeDetailBox {
 public:
  TypeDetailBox() = default;
  TypeDetailBox(const TypeDetailBox& other) { *this = other; }
  TypeDetailBox(TypeDetailBox&&) noexcept = default;
  TypeDetailBox& operator=(const TypeDetailBox& other);
  TypeDetailBox& operator=(TypeDetailBox&&) noexcept = default;
  ~TypeDetailBox();

  const TypeDetail* get() const { return detail_.get(); }
  TypeDetail& make();

 private:
  std::unique_ptr<TypeDetail> detail_;
};

using Shape = std::vector<int64_t>;

// The row-major strides of `s`, in elements (the IR's views, discharge's
// copy plans and the emitters' offsets all count this way).
inline std::vector<int64_t> row_major_strides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

struct Type {
  enum class Kind : uint8_t {
    Error,  // already diagnosed; suppresses follow-on diagnostics
    Void,   // calls and asm blocks without a value
    Value,  // a scalar (empty shape) or a tile
    Ref,    // a ref or a view of one: `dtype[shape] @space`
    Sem,    // a semaphore or an array of them
    Tuple,  // the outputs of an asm with 2+ outputs, or of a function
    Dma,    // a DMA descriptor: `elements` are its source and destination views (Ref)
  };
  // The small fields first, packed (a Type is in every checked expression).
  Kind kind = Kind::Error;
  DType dtype = DType::I32;
  MemSpace space = MemSpace::Global;
  SemKind sem_kind = SemKind::Dma;
  // An untyped literal expression: takes the dtype of its neighbour.
  bool weak = false;
  // Dma: `add=true`, and remote (`device=`).
  bool dma_add = false;
  bool dma_remote = false;
  Shape shape;
  // Sem's array dimensions, Dma's local, Tuple's and Dma's element types.
  const TypeDetail& detail() const;
  TypeDetail& edit_detail() { return detail_.make(); }  // created on first use

  static Type error() { return {}; }
  static Type void_type() { Type t; t.kind = Kind::Void; return t; }
  static Type value(DType dtype, Shape shape = {}, bool weak = false) {
    Type t;
    t.kind = Kind::Value;
    t.dtype = dtype;
    t.shape = std::move(shape);
    t.weak = weak;
    return t;
  }
  static Type ref(DType dtype, Shape shape, MemSpace space) {
    Type t = value(dtype, std::move(shape));
    t.kind = Kind::Ref;
    t.space = space;
    return t;
  }

  bool is_error() const { return kind == Kind::Error; }
  bool is_value() const { return kind == Kind::Value; }
  bool is_scalar() const { return kind == Kind::Value && shape.empty(); }
  bool is_ref() const { return kind == Kind::Ref; }
  int64_t element_count() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }

 private:
  TypeDetailBox detail_;
};

struct TypeDetail {
  // For Sem: the array length (the rows of a 2-D array), or -1 for a single semaphore.
  int64_t sem_count = -1;
  // For Sem: the columns of a 2-D array (`sem s[2, 3]: dma;`), or -1.
  int64_t sem_cols = -1;
  // Dma: a scratch buffer or semaphore declared in a function body that the
  // descriptor names; a function may not return it (it would outlive them).
  const Symbol* dma_local = nullptr;
  // Tuple: the outputs; Dma: the source and destination views (Ref).
  std::vector<Type> elements;
};

inline TypeDetailBox& TypeDetailBox::operator=(const TypeDetailBox& other) {
  if (this != &other) detail_ = other.detail_ ? std::make_unique<TypeDetail>(*other.detail_) : nullptr;
  return *this;
}
inline TypeDetailBox::~TypeDetailBox() = default;
inline TypeDetail& TypeDetailBox::make() {
  if (!detail_) detail_ = std::make_unique<TypeDetail>();
  return *detail_;
}
inline const TypeDetail& Type::detail() const {
  static const TypeDetail none;
  return detail_.get() ? *detail_.get() : none;
}

std::string shape_string(const Shape& shape);
// A device mesh (spec section 15) as written: `x: 2, y: 4`, `2, 4`, `8`.
std::string mesh_string(const Shape& mesh, const std::vector<std::string>& axis_names);
// One mesh axis in messages: "mesh axis `y`", or "mesh axis 1" when unnamed.
std::string mesh_axis_label(const std::vector<std::string>& axis_names, size_t axis);
// `f32[8, 128]`, `f32[8, 128] @shared`, `i32`, `sem[2]: dma`.
std::string type_string(const Type& type);

}  // namespace kdt
