// The main() that `--harness` and `kdt run` add to emitted C++.
#pragma once

#include "code_writer.h"
#include "kdt/emit/emit_cpp.h"
#include "kdt/ir/ir.h"

namespace kdt::emit {

// Writes main() for kernel `k`, outside the kernels' namespace.
void emit_cpp_harness(const ir::Kernel& k, const CppEmitOptions& options, CodeWriter& w);

}  // namespace kdt::emit
