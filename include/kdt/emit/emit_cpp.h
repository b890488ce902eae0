// emit_cpp(discharged ir::Module) -> one self-contained C++17 file.
#pragma once

#include <string>

#include "kdt/ir/ir.h"

namespace kdt {

struct CppEmitOptions {
  bool checks = true;    // run-time checks (--no-checks leaves them out)
  bool harness = false;  // add a main() that reads and writes .npy files
  std::string input_name;  // for the header comment
  // With `harness`: the defaults of the harness's --dma-mode, --dma-order and --program-order.
  std::string dma_mode = "on_wait";
  std::string dma_order = "fifo";
  std::string program_order = "forward";
};

std::string emit_cpp(const ir::Module& module, const SourceManager& sources, const CppEmitOptions& options);

// The runtime prelude embedded into every emitted file.
extern const char* const kRuntimePrelude;

}  // namespace kdt
