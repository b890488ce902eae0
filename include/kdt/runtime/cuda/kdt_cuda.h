// kdt CUDA device runtime (the compiled path). Embedded into every
// `kdt --emit=cuda` output (the build joins this file and its parts with
// cmake/EmbedText.cmake, in the order of the #include lines at the end);
// also usable on its own with nvcc or NVRTC. The parts, one job each:
//   kdt_cuda_limits.h  constants the CUDA emitter shares (plain C++)
//   kdt_cuda_ops.h   dtypes, casts, operators, math, block reductions
//   kdt_cuda_dma.h   atomic accumulation, DMA queues, bulk copies, mbarriers
//   kdt_cuda_sync.h  semaphores between devices, the multi-device launch
//   kdt_cuda_mma.h   `dot` on tensor cores (warp matrix functions)
//   kdt_cuda_wgmma.h `dot` on sm_90a's warpgroup tensor cores (wgmma)
//   kdt_cuda_tensor.h  multi-row DMAs through tensor maps
// A classic guard (not #pragma once): in generated files this is the main file,
// and several generated files may be included into one translation unit.
#ifndef KDT_RUNTIME_CUDA_KDT_CUDA_H_
#define KDT_RUNTIME_CUDA_KDT_CUDA_H_
#ifdef __CUDACC_RTC__
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef unsigned long long uintptr_t;
#else
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#endif
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// KDT_CU_HOST (an arch number, 900 for sm_90): compiled for the host by the
// tests' model of the GPU (tests/cuda_host/kdt_cuda_host.h), which carries
// out the async copies and mbarriers of kdt_cuda_dma.h in C++.
#if defined(KDT_CU_HOST)
#define KDT_HAS_BULK (KDT_CU_HOST >= 900)
#define KDT_HAS_CP_ASYNC (KDT_CU_HOST >= 800)
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define KDT_HAS_BULK 1
#define KDT_HAS_CP_ASYNC 1
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define KDT_HAS_BULK 0
#define KDT_HAS_CP_ASYNC 1
#else
#define KDT_HAS_BULK 0
#define KDT_HAS_CP_ASYNC 0
#endif

#include "kdt_cuda_limits.h"
#include "kdt_cuda_ops.h"
#include "kdt_cuda_dma.h"
#include "kdt_cuda_sync.h"
#include "kdt_cuda_mma.h"
#include "kdt_cuda_wgmma.h"
#include "kdt_cuda_tensor.h"

#endif  // KDT_RUNTIME_CUDA_KDT_CUDA_H_
