// Shape arithmetic shared by the C-like emitters (C++ and CUDA): element
// counts, row-major strides, the element loop an expression is evaluated
// in.
#pragma once

#include <string>
#include <vector>

#include "kdt/ir/ir.h"
#include "kdt/source/type.h"

namespace kdt::emit {

inline int64_t count_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// Loop indices of the element loop an expression is evaluated in.
struct LoopCtx {
  Shape shape;
  std::vector<std::string> index;  // one name per dimension (empty: one flat loop)
  std::string flat = "0";          // the flat index
  // CUDA only. A loop over tile values some of which live in registers
  // (cuda_registers.cpp) runs each thread over its own elements in an
  // unrolled loop: `slot` names its register slot (empty: a block-stride
  // loop). `fenced`: barriers before and after it (none where it only
  // reads registers and read-only memory and writes registers).
  std::string slot;
  bool fenced = true;
};

// Offset of the loop's current element in a row-major array of `shape`,
// broadcast into the loop's shape (right-aligned; size-1 dimensions repeat).
// Arrays of the loop's own shape use the flat index.
inline std::string array_offset(const Shape& shape, const LoopCtx& ctx) {
  if (shape.empty()) return "";
  if (shape == ctx.shape) return ctx.flat;
  if (ctx.index.empty()) return "0";
  std::vector<int64_t> st = row_major_strides(shape);
  size_t off = ctx.index.size() - shape.size();
  std::string out;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    std::string term = st[d] == 1 ? ctx.index[off + d] : ctx.index[off + d] + " * " + std::to_string(st[d]);
    out += out.empty() ? term : " + " + term;
  }
  return out.empty() ? "0" : out;
}

// `array[offset]`, or just `array` for a scalar.
inline std::string index_of(const std::string& array, const Shape& shape, const LoopCtx& ctx) {
  if (shape.empty()) return array;
  return array + "[" + array_offset(shape, ctx) + "]";
}

}  // namespace kdt::emit
