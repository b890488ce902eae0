// Prints the program model as KD source text.
#pragma once
#include <string>

#include "model.h"

namespace kdt::gen {

std::string print_kernel(const Kernel& k);
std::string print_expr(const Expr& e);
// The exact decimal spelling of a literal element of dtype t.
std::string literal_text(DType t, uint64_t bits);

}  // namespace kdt::gen
