// The numbers of KD (spec sections 1 and 3), written for the generator's
// model evaluator without any of kdt's code: dtypes, element bits, casts and
// the element-wise operations. An element is held as its raw little-endian
// bit pattern in a uint64_t (the low `bytes` bytes).
#pragma once
#include <cstdint>
#include <string>

namespace kdt::gen {

enum class DType { Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64 };
constexpr int kDTypeCount = 13;
static_assert(kDTypeCount == static_cast<int>(DType::F64) + 1, "kDTypeCount counts the DType enumerators");

const char* dtype_name(DType t);
int dtype_bytes(DType t);
bool is_float(DType t);
bool is_int(DType t);  // integer, not bool
bool is_signed_int(DType t);
inline bool is_numeric(DType t) { return t != DType::Bool; }

// Bits <-> values. Integers are sign- or zero-extended; floats exactly.
int64_t as_i64(DType t, uint64_t bits);
uint64_t as_u64(DType t, uint64_t bits);
double as_f64(DType t, uint64_t bits);  // float dtypes only
uint64_t from_int(DType t, uint64_t wrapped);  // keep the low bits
// A float value rounded to the float dtype t (one correct rounding).
uint64_t from_f64(DType t, double v);
bool is_nan(DType t, uint64_t bits);

// KD cast t(x) of an element of dtype `from`.
uint64_t cast(DType to, DType from, uint64_t bits);

enum class BinOp { Add, Sub, Mul, Div, Rem, Shl, Shr, And, Xor, Or, Lt, Le, Gt, Ge, Eq, Ne, LAnd, LOr, Max, Min };
const char* binop_spelling(BinOp op);  // "max"/"min" for maximum/minimum
bool is_comparison(BinOp op);
// a op b, both of dtype t; comparisons give a bool (0 or 1).
uint64_t binary(BinOp op, DType t, uint64_t a, uint64_t b);

enum class UnOp { Neg, Not, BitNot, Abs, Floor, Ceil, Sqrt };
uint64_t unary(UnOp op, DType t, uint64_t a);

// Float arithmetic in the dtype's own precision (f16/bf16 through f32).
double float_op(DType t, BinOp op, double a, double b);

}  // namespace kdt::gen
