// The C/C++ spelling of a KD dtype, shared by the C-like emitters. Only the
// 16-bit float types differ: each emitted file names them in its own
// runtime (kdt_rt:: for C++, kdt_cu:: for CUDA).
#pragma once

#include <string>

#include "kdt/source/dtype.h"

namespace kdt::emit {

// `runtime` is the namespace of the emitted runtime: "kdt_rt" or "kdt_cu".
inline std::string c_type(DType t, const std::string& runtime) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::I8: return "int8_t";
    case DType::I16: return "int16_t";
    case DType::I32: return "int32_t";
    case DType::I64: return "int64_t";
    case DType::U8: return "uint8_t";
    case DType::U16: return "uint16_t";
    case DType::U32: return "uint32_t";
    case DType::U64: return "uint64_t";
    case DType::F16: return runtime + "::f16";
    case DType::BF16: return runtime + "::bf16";
    case DType::F32: return "float";
    case DType::F64: return "double";
  }
  return "void";
}

}  // namespace kdt::emit
