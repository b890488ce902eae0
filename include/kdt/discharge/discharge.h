// discharge(ir::Module) -> ir::Module: DMAs become explicit copies or
// accumulations over the element sets of their views plus semaphore byte
// counts; asm blocks run through their fallback. What cannot be
// discharged is reported as `unsupported-discharge`.
#pragma once

#include "kdt/diag/engine.h"
#include "kdt/ir/ir.h"

namespace kdt {

// Returns false (with diagnostics) when a construct cannot be discharged.
bool discharge_module(ir::Module& module, DiagnosticEngine& diags);

}  // namespace kdt
