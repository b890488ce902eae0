// Static DMA-protocol checks (spec section 18): over the IR after lowering
// (functions inlined, block-spec pipelines built) and before discharge, the
// DMAs in flight and the regular semaphores' counts of one program, along
// every path that what is known statically allows. A `dma-protocol` error
// is reported only when it happens on every such path; the rest is left to
// the run-time checks of the C++ path.
#pragma once

#include <cstddef>

#include "kdt/diag/engine.h"
#include "kdt/ir/ir.h"

namespace kdt {

struct DmaProtocolStats {
  size_t kernels = 0;    // kernels looked at
  size_t gave_up = 0;    // past the unrolling limit: nothing claimed
  size_t errors = 0;     // dma-protocol errors reported
};

// Reports into `diags`; `module` is not changed.
DmaProtocolStats check_dma_protocol(const ir::Module& module, const SourceManager& sources, DiagnosticEngine& diags);

}  // namespace kdt
