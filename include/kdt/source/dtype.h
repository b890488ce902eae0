// The scalar dtypes of KD (spec section 3), shared by every stage.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kdt {

enum class DType : uint8_t { Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64 };

std::string_view dtype_name(DType t);
std::optional<DType> dtype_from_name(std::string_view name);
unsigned dtype_bytes(DType t);
inline unsigned dtype_bits(DType t) { return t == DType::Bool ? 1 : dtype_bytes(t) * 8; }
inline bool is_float(DType t) { return t == DType::F16 || t == DType::BF16 || t == DType::F32 || t == DType::F64; }
inline bool is_integer(DType t) { return t != DType::Bool && !is_float(t); }
inline bool is_signed_int(DType t) { return t == DType::I8 || t == DType::I16 || t == DType::I32 || t == DType::I64; }
inline bool is_numeric(DType t) { return t != DType::Bool; }

// Whether the integer `value` (given as signed or as unsigned 64 bits) fits `t`.
bool integer_fits(DType t, int64_t value, bool value_is_unsigned_large);

}  // namespace kdt
