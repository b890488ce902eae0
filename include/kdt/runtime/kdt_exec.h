// kdt_exec.h - execution support for emitted C++: the run-time checks, the
// scheduler of the simulated devices, the DMA model and shadow memory (the
// parts are listed in kdt_runtime.h).
#ifndef KDT_RUNTIME_KDT_EXEC_H
#define KDT_RUNTIME_KDT_EXEC_H

#include "kdt_runtime.h"
#include "kdt_checks.h"
#include "kdt_scheduler.h"
#include "kdt_parallel.h"
#include "kdt_dma.h"
#include "kdt_shadow.h"

#endif  // KDT_RUNTIME_KDT_EXEC_H
