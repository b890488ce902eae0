#include "kdt/source/dtype.h"

#include <limits>

namespace kdt {

namespace {
constexpr std::string_view kNames[] = {"bool", "i8", "i16", "i32", "i64", "u8", "u16",
                                       "u32",  "u64", "f16", "bf16", "f32", "f64"};
constexpr unsigned kBytes[] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8};
}  // namespace

std::string_view dtype_name(DType t) { return kNames[static_cast<int>(t)]; }

std::optional<DType> dtype_from_name(std::string_view name) {
  for (int i = 0; i < 13; ++i) {
    if (kNames[i] == name) return static_cast<DType>(i);
  }
  return std::nullopt;
}

unsigned dtype_bytes(DType t) { return kBytes[static_cast<int>(t)]; }

bool integer_fits(DType t, int64_t value, bool value_is_unsigned_large) {
  if (value_is_unsigned_large) return t == DType::U64;
  switch (t) {
    case DType::I8: return value >= -128 && value <= 127;
    case DType::I16: return value >= -32768 && value <= 32767;
    case DType::I32: return value >= std::numeric_limits<int32_t>::min() && value <= std::numeric_limits<int32_t>::max();
    case DType::I64: return true;
    case DType::U8: return value >= 0 && value <= 255;
    case DType::U16: return value >= 0 && value <= 65535;
    case DType::U32: return value >= 0 && value <= 0xFFFFFFFFll;
    case DType::U64: return value >= 0;
    case DType::Bool: return value == 0 || value == 1;
    default: return true;  // every integer converts to a float dtype (rounded)
  }
}

}  // namespace kdt
