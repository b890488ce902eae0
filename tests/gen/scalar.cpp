// KD's numbers for the model evaluator (see scalar.h). Independent of kdt:
// the rounding to f16/bf16 below is written from the IEEE 754 definition.
#include "scalar.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace kdt::gen {

namespace {

struct Info {
  const char* name;
  int bytes;
  bool is_float;
  bool is_signed;
};

const Info kInfo[kDTypeCount] = {
    {"bool", 1, false, false}, {"i8", 1, false, true},  {"i16", 2, false, true},  {"i32", 4, false, true},
    {"i64", 8, false, true},   {"u8", 1, false, false}, {"u16", 2, false, false}, {"u32", 4, false, false},
    {"u64", 8, false, false},  {"f16", 2, true, true},  {"bf16", 2, true, true},  {"f32", 4, true, true},
    {"f64", 8, true, true},
};

const Info& info(DType t) { return kInfo[static_cast<int>(t)]; }

uint64_t low_mask(int bytes) { return bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1; }

// Exponent and fraction bits of the two 16-bit formats.
void format_of(DType t, int& E, int& M) {
  if (t == DType::F16) {
    E = 5;
    M = 10;
  } else {
    E = 8;
    M = 7;
  }
}

// Decodes a 16-bit float exactly.
double decode16(DType t, uint64_t bits) {
  int E, M;
  format_of(t, E, M);
  const int bias = (1 << (E - 1)) - 1;
  const bool negative = (bits >> (E + M)) & 1;
  const uint64_t exp = (bits >> M) & ((uint64_t{1} << E) - 1);
  const uint64_t frac = bits & ((uint64_t{1} << M) - 1);
  double v;
  if (exp == (uint64_t{1} << E) - 1) {
    v = frac ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (exp == 0) {
    v = std::ldexp(static_cast<double>(frac), 1 - bias - M);
  } else {
    v = std::ldexp(static_cast<double>(frac | (uint64_t{1} << M)), static_cast<int>(exp) - bias - M);
  }
  return negative ? -v : v;
}

// Rounds a double to a 16-bit format, to nearest with ties to even.
uint64_t encode16(DType t, double d) {
  int E, M;
  format_of(t, E, M);
  const int bias = (1 << (E - 1)) - 1;
  const uint64_t sign = std::signbit(d) ? uint64_t{1} << (E + M) : 0;
  const uint64_t inf = ((uint64_t{1} << E) - 1) << M;
  if (std::isnan(d)) return sign | inf | (uint64_t{1} << (M - 1));
  double a = std::fabs(d);
  if (std::isinf(a)) return sign | inf;
  if (a == 0) return sign;
  int x;
  std::frexp(a, &x);
  const int e = x - 1;  // a = 1.f * 2^e
  const int emin = 1 - bias;
  const int q = (e > emin ? e : emin) - M;  // exponent of one unit in the last place
  // Exact (a power-of-two scaling), then one rounding to an integer.
  const double r = std::nearbyint(std::ldexp(a, -q));
  auto units = static_cast<uint64_t>(r);
  if (e < emin) return sign | units;  // subnormal, or the smallest normal when it rounds up
  int biased = e + bias;
  if (units == (uint64_t{1} << (M + 1))) {
    units >>= 1;
    ++biased;
  }
  if (biased >= (1 << E) - 1) return sign | inf;
  return sign | (static_cast<uint64_t>(biased) << M) | (units - (uint64_t{1} << M));
}

// An integer rounded to `digits` significant bits, to nearest-even; the
// result is exact in a double, so converting it afterwards rounds no more.
double round_integer(bool negative, uint64_t mag, int digits) {
  int width = 0;
  for (uint64_t m = mag; m; m >>= 1) ++width;
  if (width > digits) {
    const int s = width - digits;
    uint64_t top = mag >> s;
    const uint64_t rest = mag & ((uint64_t{1} << s) - 1);
    const uint64_t half = uint64_t{1} << (s - 1);
    if (rest > half || (rest == half && (top & 1))) ++top;
    const double v = std::ldexp(static_cast<double>(top), s);
    return negative ? -v : v;
  }
  const double v = static_cast<double>(mag);
  return negative ? -v : v;
}

int significant_bits(DType t) {
  switch (t) {
    case DType::F16: return 11;
    case DType::BF16: return 8;
    case DType::F32: return 24;
    default: return 53;
  }
}

template <class T>
T bit_cast_to(uint64_t bits) {
  T v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}
template <class T>
uint64_t bits_of(T v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof v);
  return bits;
}

}  // namespace

const char* dtype_name(DType t) { return info(t).name; }
int dtype_bytes(DType t) { return info(t).bytes; }
bool is_float(DType t) { return info(t).is_float; }
bool is_int(DType t) { return !info(t).is_float && t != DType::Bool; }
bool is_signed_int(DType t) { return is_int(t) && info(t).is_signed; }

int64_t as_i64(DType t, uint64_t bits) {
  const int n = 8 * dtype_bytes(t);
  bits &= low_mask(dtype_bytes(t));
  if (info(t).is_signed && n < 64 && (bits >> (n - 1)) & 1) bits |= ~low_mask(dtype_bytes(t));
  return static_cast<int64_t>(bits);
}

uint64_t as_u64(DType t, uint64_t bits) { return static_cast<uint64_t>(as_i64(t, bits)); }

double as_f64(DType t, uint64_t bits) {
  switch (t) {
    case DType::F32: return static_cast<double>(bit_cast_to<float>(bits & 0xFFFFFFFFu));
    case DType::F64: return bit_cast_to<double>(bits);
    default: return decode16(t, bits);
  }
}

uint64_t from_int(DType t, uint64_t wrapped) { return wrapped & low_mask(dtype_bytes(t)); }

uint64_t from_f64(DType t, double v) {
  switch (t) {
    case DType::F32: return bits_of(static_cast<float>(v));
    case DType::F64: return bits_of(v);
    default: return encode16(t, v);
  }
}

bool is_nan(DType t, uint64_t bits) { return is_float(t) && std::isnan(as_f64(t, bits)); }

uint64_t cast(DType to, DType from, uint64_t bits) {
  if (to == from) return bits;
  if (to == DType::Bool) {
    if (is_float(from)) return as_f64(from, bits) != 0 || is_nan(from, bits) ? 1 : 0;
    return (bits & low_mask(dtype_bytes(from))) != 0 ? 1 : 0;
  }
  if (from == DType::Bool) return cast(to, DType::U8, bits & 1);
  if (is_int(from)) {
    if (is_int(to)) return from_int(to, static_cast<uint64_t>(as_i64(from, bits)));
    const int64_t v = as_i64(from, bits);
    const bool negative = info(from).is_signed && v < 0;
    const uint64_t mag = negative ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    return from_f64(to, round_integer(negative, mag, significant_bits(to)));
  }
  const double d = as_f64(from, bits);
  if (is_float(to)) return from_f64(to, d);
  // Float -> integer: truncate toward zero, saturate, NaN -> 0.
  if (std::isnan(d)) return 0;
  const double t = std::trunc(d);
  const int n = 8 * dtype_bytes(to);
  if (info(to).is_signed) {
    const double hi = std::ldexp(1.0, n - 1);
    if (t >= hi) return from_int(to, (uint64_t{1} << (n - 1)) - 1);
    if (t < -hi) return from_int(to, uint64_t{1} << (n - 1));
    return from_int(to, static_cast<uint64_t>(static_cast<int64_t>(t)));
  }
  const double hi = std::ldexp(1.0, n);
  if (t >= hi) return low_mask(dtype_bytes(to));
  if (t <= 0) return 0;
  return from_int(to, static_cast<uint64_t>(t));
}

const char* binop_spelling(BinOp op) {
  switch (op) {
    case BinOp::Add: return "+";
    case BinOp::Sub: return "-";
    case BinOp::Mul: return "*";
    case BinOp::Div: return "/";
    case BinOp::Rem: return "%";
    case BinOp::Shl: return "<<";
    case BinOp::Shr: return ">>";
    case BinOp::And: return "&";
    case BinOp::Xor: return "^";
    case BinOp::Or: return "|";
    case BinOp::Lt: return "<";
    case BinOp::Le: return "<=";
    case BinOp::Gt: return ">";
    case BinOp::Ge: return ">=";
    case BinOp::Eq: return "==";
    case BinOp::Ne: return "!=";
    case BinOp::LAnd: return "&&";
    case BinOp::LOr: return "||";
    case BinOp::Max: return "maximum";
    case BinOp::Min: return "minimum";
  }
  return "?";
}

bool is_comparison(BinOp op) {
  return op == BinOp::Lt || op == BinOp::Le || op == BinOp::Gt || op == BinOp::Ge || op == BinOp::Eq ||
         op == BinOp::Ne;
}

double float_op(DType t, BinOp op, double a, double b) {
  // f32, f16 and bf16 compute in f32 (spec section 1); f64 in f64.
  if (t == DType::F64) {
    switch (op) {
      case BinOp::Add: return a + b;
      case BinOp::Sub: return a - b;
      case BinOp::Mul: return a * b;
      case BinOp::Div: return a / b;
      default: return 0;
    }
  }
  const float x = static_cast<float>(a), y = static_cast<float>(b);
  volatile float r = 0;  // one f32 operation, never contracted
  switch (op) {
    case BinOp::Add: r = x + y; break;
    case BinOp::Sub: r = x - y; break;
    case BinOp::Mul: r = x * y; break;
    case BinOp::Div: r = x / y; break;
    default: break;
  }
  return static_cast<double>(r);
}

uint64_t binary(BinOp op, DType t, uint64_t a, uint64_t b) {
  if (is_float(t)) {
    const double x = as_f64(t, a), y = as_f64(t, b);
    switch (op) {
      case BinOp::Lt: return x < y;
      case BinOp::Le: return x <= y;
      case BinOp::Gt: return x > y;
      case BinOp::Ge: return x >= y;
      case BinOp::Eq: return x == y;
      case BinOp::Ne: return x != y;
      case BinOp::Max:
      case BinOp::Min: {
        // NaN-propagating; +0 is the larger zero.
        if (std::isnan(x)) return a;
        if (std::isnan(y)) return b;
        const bool max = op == BinOp::Max;
        if (x != y) return (x < y) == max ? b : a;
        return std::signbit(x) == max ? b : a;
      }
      default: return from_f64(t, float_op(t, op, x, y));
    }
  }
  if (t == DType::Bool) {
    switch (op) {
      case BinOp::And: case BinOp::LAnd: return a & b & 1;
      case BinOp::Or: case BinOp::LOr: return (a | b) & 1;
      case BinOp::Xor: case BinOp::Ne: return (a ^ b) & 1;
      case BinOp::Eq: return !((a ^ b) & 1);
      default: return 0;
    }
  }
  const bool sgn = is_signed_int(t);
  const int64_t si = as_i64(t, a), sj = as_i64(t, b);
  const uint64_t ui = as_u64(t, a), uj = as_u64(t, b);
  // Unsigned values are zero-extended, signed ones sign-extended: ordering
  // in the right domain.
  auto less = [&](bool strict) {
    if (sgn) return strict ? si < sj : si <= sj;
    const uint64_t za = a & low_mask(dtype_bytes(t)), zb = b & low_mask(dtype_bytes(t));
    return strict ? za < zb : za <= zb;
  };
  const int width = 8 * dtype_bytes(t);
  const uint64_t amount = b & low_mask(dtype_bytes(t));  // read as unsigned
  switch (op) {
    case BinOp::Add: return from_int(t, ui + uj);
    case BinOp::Sub: return from_int(t, ui - uj);
    case BinOp::Mul: return from_int(t, ui * uj);
    case BinOp::Div:
      if (sgn) return sj == -1 ? from_int(t, uint64_t{0} - ui) : from_int(t, static_cast<uint64_t>(si / sj));
      return from_int(t, (a & low_mask(dtype_bytes(t))) / (b & low_mask(dtype_bytes(t))));
    case BinOp::Rem:
      if (sgn) return sj == -1 ? 0 : from_int(t, static_cast<uint64_t>(si % sj));
      return from_int(t, (a & low_mask(dtype_bytes(t))) % (b & low_mask(dtype_bytes(t))));
    case BinOp::Shl: return amount >= static_cast<uint64_t>(width) ? 0 : from_int(t, ui << amount);
    case BinOp::Shr:
      if (sgn) {
        if (amount >= static_cast<uint64_t>(width)) return from_int(t, si < 0 ? ~uint64_t{0} : 0);
        // Arithmetic: shift the sign-extended value and keep the low bits.
        return from_int(t, si < 0 ? ~(~ui >> amount) : ui >> amount);
      }
      return amount >= static_cast<uint64_t>(width) ? 0 : from_int(t, (a & low_mask(dtype_bytes(t))) >> amount);
    case BinOp::And: return from_int(t, a & b);
    case BinOp::Xor: return from_int(t, a ^ b);
    case BinOp::Or: return from_int(t, a | b);
    case BinOp::Lt: return less(true);
    case BinOp::Le: return less(false);
    case BinOp::Gt: return !less(false);
    case BinOp::Ge: return !less(true);
    case BinOp::Eq: return from_int(t, a ^ b) == 0;
    case BinOp::Ne: return from_int(t, a ^ b) != 0;
    case BinOp::Max: return less(true) ? b : a;
    case BinOp::Min: return less(true) ? a : b;
    default: return 0;
  }
}

uint64_t unary(UnOp op, DType t, uint64_t a) {
  if (is_float(t)) {
    const double x = as_f64(t, a);
    switch (op) {
      case UnOp::Neg: return from_f64(t, -x);
      case UnOp::Abs: return from_f64(t, std::fabs(x));
      case UnOp::Floor: return from_f64(t, std::floor(x));
      case UnOp::Ceil: return from_f64(t, std::ceil(x));
      case UnOp::Sqrt:
        // f16/bf16/f32 in f32: a correctly rounded f32 square root.
        if (t == DType::F64) return from_f64(t, std::sqrt(x));
        return from_f64(t, static_cast<double>(std::sqrt(static_cast<float>(x))));
      default: return 0;
    }
  }
  switch (op) {
    case UnOp::Neg: return from_int(t, uint64_t{0} - a);
    case UnOp::Not: return (a & 1) ^ 1;
    case UnOp::BitNot: return t == DType::Bool ? (a & 1) ^ 1 : from_int(t, ~a);
    case UnOp::Abs: return is_signed_int(t) && as_i64(t, a) < 0 ? from_int(t, uint64_t{0} - a) : a;
    default: return a;
  }
}

}  // namespace kdt::gen
