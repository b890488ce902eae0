// Shape arithmetic shared by the C-like emitters (C++ and CUDA): element
// counts, row-major strides, and the element loop an expression is
// evaluated in.
#pragma once

#include <string>
#include <vector>

#include "kdt/type.h"

namespace kdt::emit {

inline int64_t count_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

inline std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

// Loop indices of the element loop an expression is evaluated in.
struct LoopCtx {
  Shape shape;
  std::vector<std::string> index;  // one name per dimension (empty: one flat loop)
  std::string flat = "0";          // the flat index
};

}  // namespace kdt::emit
