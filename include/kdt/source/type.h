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

// The element types of a Tuple or Dma type, kept out of line with the
// interface of a std::vector: most types have none, and every expression
// of a checked program holds a Type (8 bytes here against 24; issue 17).
class TypeList {
 public:
  TypeList() = default;
  TypeList(const TypeList& other) { *this = other; }
  TypeList(TypeList&&) noexcept = default;
  TypeList& operator=(const TypeList& other);
  TypeList& operator=(TypeList&&) noexcept = default;
  TypeList& operator=(std::vector<Type> types);
  ~TypeList();

  size_t size() const;
  bool empty() const { return size() == 0; }
  const Type& operator[](size_t i) const;
  Type& operator[](size_t i);
  const Type* begin() const;
  const Type* end() const;
  void push_back(Type type);

 private:
  std::unique_ptr<std::vector<Type>> list_;
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
  // For Sem: the array length (the rows of a 2-D array), or -1 for a single semaphore.
  int64_t sem_count = -1;
  // For Sem: the columns of a 2-D array (`sem s[2, 3]: dma;`), or -1.
  int64_t sem_cols = -1;
  // Dma: a scratch buffer or semaphore declared in a function body that the
  // descriptor names; a function may not return it (it would outlive them).
  const Symbol* dma_local = nullptr;
  TypeList elements;

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
};

inline TypeList& TypeList::operator=(const TypeList& other) {
  if (this != &other) list_ = other.list_ ? std::make_unique<std::vector<Type>>(*other.list_) : nullptr;
  return *this;
}
inline TypeList& TypeList::operator=(std::vector<Type> types) {
  list_ = types.empty() ? nullptr : std::make_unique<std::vector<Type>>(std::move(types));
  return *this;
}
inline TypeList::~TypeList() = default;
inline size_t TypeList::size() const { return list_ ? list_->size() : 0; }
inline const Type& TypeList::operator[](size_t i) const { return (*list_)[i]; }
inline Type& TypeList::operator[](size_t i) { return (*list_)[i]; }
inline const Type* TypeList::begin() const { return list_ ? list_->data() : nullptr; }
inline const Type* TypeList::end() const { return begin() + size(); }
inline void TypeList::push_back(Type type) {
  if (!list_) list_ = std::make_unique<std::vector<Type>>();
  list_->push_back(std::move(type));
}

std::string shape_string(const Shape& shape);
// A device mesh (spec section 15) as written: `x: 2, y: 4`, `2, 4`, `8`.
std::string mesh_string(const Shape& mesh, const std::vector<std::string>& axis_names);
// One mesh axis in messages: "mesh axis `y`", or "mesh axis 1" when unnamed.
std::string mesh_axis_label(const std::vector<std::string>& axis_names, size_t axis);
// `f32[8, 128]`, `f32[8, 128] @shared`, `i32`, `sem[2]: dma`.
std::string type_string(const Type& type);

}  // namespace kdt
