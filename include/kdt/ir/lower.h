// lower(checked AST) -> ir::Module.
#pragma once

#include "kdt/check/check.h"
#include "kdt/ir/ir.h"

namespace kdt {

// Lowers every kernel, or only `kernel` when it is not empty.
ir::Module lower_program(const CheckedProgram& program, const std::string& kernel);

// Lowers one checked kernel.
ir::Kernel lower_kernel(const ast::Kernel& kernel);

}  // namespace kdt
