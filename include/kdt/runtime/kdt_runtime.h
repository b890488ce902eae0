// kdt_runtime.h - the runtime prelude of the C++ code that kdt emits.
//
// Self-contained, C++17, standard library only, header-only. The build joins
// its parts, one job each, into the prelude every emitted file embeds
// (CMakeLists.txt, cmake/EmbedText.cmake), in this order:
//   kdt_api.h        inline, or compiled once into `kdt run`'s runtime library
//   kdt_codes.h      the diagnostic codes of the registry (diagnostics.def)
//   kdt_numerics.h   f16/bf16, integer semantics, casts, math, operators,
//                    checksums and seeded inputs
//   kdt_dot.h        `dot` of floating-point tiles: packed, register-blocked
//   kdt_reduce.h     `sum`, `max`, `min`: kdt's order (32 lanes), vectorised
//   kdt_npy.h        NumPy .npy reading and writing
//   kdt_checks.h     run-time errors, index checks, boxes, happens-before
//   kdt_scheduler.h  program order and the simulated devices
//   kdt_parallel.h   -j: a launch's independent programs on several threads
//   kdt_dma.h        the DMA model: started DMAs and semaphores
//   kdt_shadow.h     shadow memory: races, uninitialized reads, DMA claims
//   kdt_ptx.h        the PTX emulation of asm blocks
//   kdt_harness.h    the harness of --harness and `kdt run`
// This header gives the numbers and .npy I/O; kdt_exec.h adds the checks,
// the scheduler and the DMA model.
#ifndef KDT_RUNTIME_KDT_RUNTIME_H
#define KDT_RUNTIME_KDT_RUNTIME_H

#include "kdt_codes.h"
#include "kdt_numerics.h"
#include "kdt_dot.h"
#include "kdt_reduce.h"
#include "kdt_npy.h"

#endif  // KDT_RUNTIME_KDT_RUNTIME_H
