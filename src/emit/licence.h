// The licence lines at the top of every file kdt emits (LICENSE: Apache-2.0
// with the kdt Runtime Exception, which lets users ship emitted code).
#pragma once

#include "code_writer.h"

namespace kdt::emit {

inline void write_licence(CodeWriter& w) {
  w.line("// kdt is Apache-2.0 with the kdt Runtime Exception (LICENSE): this file, with the kdt runtime in it,");
  w.line("// may be used, changed and shipped under any terms.");
}

}  // namespace kdt::emit
