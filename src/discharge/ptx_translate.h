// Translation of asm PTX templates into discharged IR (docs/ptx.md): every
// instruction of the supported subset becomes a call of an exact emulation
// in kdt_ptx.h (ir::ExprKind::PtxOp) on SSA locals holding register bits.
#pragma once

#include <string>

#include "kdt/ir/ir.h"
#include "ptx_reader.h"

namespace kdt::ptx {

struct TranslateResult {
  bool ok = false;
  std::string instruction;  // the blocking statement as written
  std::string reason;       // why it blocks
  Pos pos;                  // its line and column inside the template
};

// Translates asm `asm_id` of `k`; on success sets its `fallback` (adding
// locals to `k.locals`). On failure leaves the kernel unchanged.
TranslateResult translate_asm(ir::Kernel& k, int asm_id);

}  // namespace kdt::ptx
