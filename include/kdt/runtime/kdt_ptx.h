// kdt_ptx.h - exact CPU emulation of the PTX instructions that kdt
// translates when it discharges an asm block without a fallback. Embedded
// after kdt_runtime.h and kdt_exec.h into every emitted file.
#ifndef KDT_RUNTIME_KDT_PTX_H
#define KDT_RUNTIME_KDT_PTX_H

#include "kdt_runtime.h"

namespace kdt_rt {
namespace ptx {}  // namespace ptx
}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_PTX_H
