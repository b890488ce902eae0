// The scalar values the DMA-protocol analysis knows (spec section 18): a
// constant, a term over what is fixed for the whole program but unknown at
// compile time (a parallel program id, the device id, a scalar parameter),
// or nothing. Terms are interned, so two equal terms have one id and
// `x != x` is known false even when `x` is not known: the block-spec
// pipeline compares a block index with itself that way.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "kdt/ir/ir.h"

namespace kdt::analysis {

struct Value {
  enum class Kind : uint8_t { Unknown, Const, Term };
  Kind kind = Kind::Unknown;
  int64_t bits = 0;  // Const: the value, wrapped to its dtype; Term: the term's id

  static Value unknown() { return {}; }
  static Value constant(int64_t v) { return {Kind::Const, v}; }
  static Value term(int64_t id) { return {Kind::Term, id}; }
  bool known() const { return kind == Kind::Const; }
  bool operator==(const Value& o) const { return kind == o.kind && (kind == Kind::Unknown || bits == o.bits); }
  bool operator!=(const Value& o) const { return !(*this == o); }
};

// Interns terms and folds constants with KD's integer rules (section 1:
// two's-complement wrap at the dtype's width). Anything it cannot decide
// is Unknown: a guess here would be a false error.
class Evaluator {
 public:
  // `locals` holds each local's value on the path being evaluated.
  explicit Evaluator(const ir::Kernel& kernel) : kernel_(kernel) {}

  Value eval(const ir::Expr& e, const std::vector<Value>& locals);

 private:
  Value leaf(int kind, int64_t index);
  Value intern(int op, DType dtype, Value a, Value b);
  Value binary(const ir::Expr& e, Value a, Value b);

  const ir::Kernel& kernel_;
  // (operation, dtype, first operand's kind and bits, second's) -> term id.
  std::map<std::tuple<int, int, int, int64_t, int, int64_t>, int64_t> terms_;
};

// `v` wrapped to the width of `dtype` (sign- or zero-extended back to 64 bits).
int64_t wrap(int64_t v, DType dtype);

}  // namespace kdt::analysis
