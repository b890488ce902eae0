// The fallback-free inline PTX the generator writes: instructions of kdt's
// documented translatable subset (docs/ptx.md), each with the model's own
// meaning taken from the PTX ISA.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "scalar.h"

namespace kdt::gen {

struct PtxOp {
  std::string id;                  // names the op in Expr::ptx_op
  std::vector<std::string> lines;  // template strings over %a, %b, %o
  std::vector<DType> inputs;       // dtypes of a (and b)
  DType output;
};

const std::vector<PtxOp>& ptx_ops();
// The op's result for one element.
uint64_t ptx_apply(const std::string& id, const std::vector<uint64_t>& in);

}  // namespace kdt::gen
