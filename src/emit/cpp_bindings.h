// The bindings of emitted C++ (issue 18): the C ABI (--emit=c-api) and the
// XLA FFI handlers (--emit=xla-ffi), written after the kernels.
#pragma once

#include "code_writer.h"
#include "kdt/emit/emit_cpp.h"
#include "kdt/ir/ir.h"

namespace kdt::emit {

void emit_c_api(const ir::Module& module, const CppEmitOptions& options, CodeWriter& w);
void emit_xla_ffi(const ir::Module& module, const CppEmitOptions& options, CodeWriter& w);

}  // namespace kdt::emit
