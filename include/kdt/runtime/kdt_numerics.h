// kdt_numerics.h - the numbers of the C++ runtime prelude (the prelude of the
// C++ code that kdt emits; kdt_runtime.h lists its parts).
//
// Self-contained, C++17, standard library only, header-only (everything is
// `inline`). Everything lives in namespace kdt_rt. The header is written to
// compile warning-free with -Wall -Wextra -pedantic -Wconversion
// -Wsign-conversion -Wshadow -Wfloat-equal -Wdouble-promotion on g++ and
// clang++, and to have no undefined behaviour: signed integer arithmetic is
// done in unsigned types, shifts are range-checked, bit patterns are
// reinterpreted with std::memcpy.
//
// Contents:
//   1. f16 / bf16 storage types, exact conversions, arithmetic helpers
//   2. integer semantics (wrap-around arithmetic, division, PTX-style shifts)
//   3. convert<To>(From): the casts of KD section 3
//   4. float math helpers (rsqrt, NaN-propagating maximum / minimum)
//   5. element-wise math and the operators of emitted code (op_add, ...)
//   6. fnv1a64 checksums and the seeded SplitMix64 input generator
//
// Numeric decisions (KD language spec, sections 1 and 3):
//   * f16/bf16 values are computed in f32 and rounded to nearest-even after
//     every operation: add(a, b) == f16_from_f32(to_f32(a) + to_f32(b)).
//   * Every rounding to f16/bf16 (from f32, f64 or any integer, including
//     int64/uint64) is a single correctly rounded step (nearest, ties to
//     even, overflow to +-infinity, subnormals kept, +-0 kept). f64 -> f16
//     does not go through f32, and int64 -> bf16 does not go through f64, so
//     there is no double rounding.
//   * NaN converts to a quiet NaN of the same sign; the top payload bits are
//     kept and the quiet bit is set.
//   * Integer -> f32/f64 uses the C++ conversion, which rounds to nearest-even
//     in the default floating-point environment (a single rounding).
#ifndef KDT_RUNTIME_KDT_NUMERICS_H
#define KDT_RUNTIME_KDT_NUMERICS_H

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>


namespace kdt_rt {

// ===========================================================================
// 1. f16 and bf16
// ===========================================================================

// IEEE 754 binary16: 1 sign, 5 exponent, 10 fraction bits.
struct f16 {
  uint16_t bits;
};
// bfloat16: 1 sign, 8 exponent, 7 fraction bits (the top half of an f32).
struct bf16 {
  uint16_t bits;
};

static_assert(std::is_trivial<f16>::value && std::is_standard_layout<f16>::value &&
                  sizeof(f16) == 2,
              "f16 must be a 2-byte POD");
static_assert(std::is_trivial<bf16>::value && std::is_standard_layout<bf16>::value &&
                  sizeof(bf16) == 2,
              "bf16 must be a 2-byte POD");
static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559,
              "kdt_runtime.h needs IEEE 754 float and double");

namespace detail {

inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float f32_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline uint64_t f64_bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}
inline double f64_from_bits(uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

// Number of significant bits of x (0 for x == 0).
inline int bit_width64(uint64_t x) {
  int n = 0;
  if (x >> 32) { n += 32; x >>= 32; }
  if (x >> 16) { n += 16; x >>= 16; }
  if (x >> 8) { n += 8; x >>= 8; }
  if (x >> 4) { n += 4; x >>= 4; }
  if (x >> 2) { n += 2; x >>= 2; }
  if (x >> 1) { n += 1; x >>= 1; }
  return n + static_cast<int>(x);
}

// Rounds (-1)^negative * sig * 2^exp2 to nearest-even in a binary format with
// E exponent bits and M fraction bits (E <= 11, M <= 20); returns the
// encoding (sign at bit E+M). Overflow gives infinity, underflow keeps
// subnormals and the sign of zero.
inline uint32_t round_to_format(bool negative, uint64_t sig, int exp2, int E, int M) {
  const uint32_t sign = negative ? (uint32_t{1} << (E + M)) : 0u;
  const uint32_t inf = ((uint32_t{1} << E) - 1u) << M;
  if (sig == 0) return sign;
  const int bias = (1 << (E - 1)) - 1;
  const int emin = 1 - bias;                       // exponent of the smallest normal
  const int ev = exp2 + bit_width64(sig) - 1;      // floor(log2(|value|))
  if (ev > bias) return sign | inf;
  const int q = (ev > emin ? ev : emin) - M;       // exponent of one unit in the last place
  const int shift = q - exp2;                      // low bits of sig to round away
  uint64_t r;
  if (shift <= 0) {
    r = sig << (-shift);  // exact; r < 2^(M+1), so -shift <= M+1
  } else if (shift > 64) {
    return sign;  // |value| < 2^(q-1): less than half a unit, rounds to zero
  } else {
    uint64_t rem;
    uint64_t half;
    if (shift == 64) {
      r = 0;
      rem = sig;
      half = uint64_t{1} << 63;
    } else {
      r = sig >> shift;
      rem = sig & ((uint64_t{1} << shift) - 1u);
      half = uint64_t{1} << (shift - 1);
    }
    if (rem > half || (rem == half && (r & 1u) != 0)) ++r;
  }
  // Units of 2^q above the subnormal range; a carry out of the fraction
  // (r == 2^(M+1)) correctly increments the exponent field.
  const uint64_t enc = (static_cast<uint64_t>(q - (emin - M)) << M) + r;
  if (enc >= inf) return sign | inf;
  return sign | static_cast<uint32_t>(enc);
}

// Rounds a double to the format (E, M) in one step.
inline uint32_t round_f64_to_format(double d, int E, int M) {
  const uint64_t u = f64_bits(d);
  const bool negative = (u >> 63) != 0;
  const uint32_t exp = static_cast<uint32_t>((u >> 52) & 0x7FFu);
  const uint64_t frac = u & ((uint64_t{1} << 52) - 1u);
  if (exp == 0x7FFu) {
    const uint32_t sign = negative ? (uint32_t{1} << (E + M)) : 0u;
    const uint32_t inf = ((uint32_t{1} << E) - 1u) << M;
    if (frac == 0) return sign | inf;
    // NaN: quiet, keep the top payload bits.
    return sign | inf | (uint32_t{1} << (M - 1)) | static_cast<uint32_t>(frac >> (52 - M));
  }
  if (exp == 0) return round_to_format(negative, frac, -1074, E, M);
  return round_to_format(negative, frac | (uint64_t{1} << 52), static_cast<int>(exp) - 1075, E, M);
}

// Rounds sign-magnitude integer to the format (E, M) in one step.
inline uint32_t round_int_to_format(bool negative, uint64_t magnitude, int E, int M) {
  return round_to_format(negative, magnitude, 0, E, M);
}

}  // namespace detail

// --- f16 / bf16 -> f32 / f64 (exact) ---------------------------------------

inline float to_f32(f16 h) {
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  const uint32_t exp = (h.bits >> 10) & 0x1Fu;
  const uint32_t man = h.bits & 0x3FFu;
  if (exp == 0x1Fu) {  // infinity or NaN (made quiet, payload kept)
    return detail::f32_from_bits(sign | 0x7F800000u | (man != 0 ? (0x00400000u | (man << 13)) : 0u));
  }
  if (exp == 0) {  // zero or subnormal: man * 2^-24, exact in f32
    const float v = static_cast<float>(man) * 5.9604644775390625e-8f;
    return sign != 0 ? -v : v;
  }
  return detail::f32_from_bits(sign | ((exp + 112u) << 23) | (man << 13));
}

inline float to_f32(bf16 h) { return detail::f32_from_bits(static_cast<uint32_t>(h.bits) << 16); }

inline double to_f64(f16 h) { return static_cast<double>(to_f32(h)); }
inline double to_f64(bf16 h) { return static_cast<double>(to_f32(h)); }

// --- f32 / f64 -> f16 / bf16 (round to nearest-even) ------------------------

inline f16 f16_from_f64(double d) {
  return f16{static_cast<uint16_t>(detail::round_f64_to_format(d, 5, 10))};
}
// f32 -> f64 is exact, so this is a single rounding.
inline f16 f16_from_f32(float f) { return f16_from_f64(static_cast<double>(f)); }

inline bf16 bf16_from_f32(float f) {
  const uint32_t u = detail::f32_bits(f);
  if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0) {
    return bf16{static_cast<uint16_t>((u >> 16) | 0x0040u)};  // quiet NaN
  }
  // Round to nearest-even on the low 16 bits; a carry into the exponent gives
  // the next binade or infinity, both correct.
  const uint32_t rounded = u + 0x7FFFu + ((u >> 16) & 1u);
  return bf16{static_cast<uint16_t>(rounded >> 16)};
}
inline bf16 bf16_from_f64(double d) {
  return bf16{static_cast<uint16_t>(detail::round_f64_to_format(d, 8, 7))};
}

// --- classification ----------------------------------------------------------

inline bool is_nan(f16 h) { return (h.bits & 0x7C00u) == 0x7C00u && (h.bits & 0x03FFu) != 0; }
inline bool is_nan(bf16 h) { return (h.bits & 0x7F80u) == 0x7F80u && (h.bits & 0x007Fu) != 0; }
inline bool is_nan(float x) { return std::isnan(x); }
inline bool is_nan(double x) { return std::isnan(x); }

// --- arithmetic: computed in f32, rounded after every operation ---------------

inline f16 add(f16 a, f16 b) { return f16_from_f32(to_f32(a) + to_f32(b)); }
inline f16 sub(f16 a, f16 b) { return f16_from_f32(to_f32(a) - to_f32(b)); }
inline f16 mul(f16 a, f16 b) { return f16_from_f32(to_f32(a) * to_f32(b)); }
inline f16 div(f16 a, f16 b) { return f16_from_f32(to_f32(a) / to_f32(b)); }
inline f16 neg(f16 a) { return f16_from_f32(-to_f32(a)); }
inline bf16 add(bf16 a, bf16 b) { return bf16_from_f32(to_f32(a) + to_f32(b)); }
inline bf16 sub(bf16 a, bf16 b) { return bf16_from_f32(to_f32(a) - to_f32(b)); }
inline bf16 mul(bf16 a, bf16 b) { return bf16_from_f32(to_f32(a) * to_f32(b)); }
inline bf16 div(bf16 a, bf16 b) { return bf16_from_f32(to_f32(a) / to_f32(b)); }
inline bf16 neg(bf16 a) { return bf16_from_f32(-to_f32(a)); }

// Comparisons with IEEE semantics (any comparison with NaN is false except ne;
// -0 == +0).
inline bool lt(f16 a, f16 b) { return to_f32(a) < to_f32(b); }
inline bool le(f16 a, f16 b) { return to_f32(a) <= to_f32(b); }
inline bool gt(f16 a, f16 b) { return to_f32(a) > to_f32(b); }
inline bool ge(f16 a, f16 b) { return to_f32(a) >= to_f32(b); }
inline bool eq(f16 a, f16 b) { return le(a, b) && ge(a, b); }
inline bool ne(f16 a, f16 b) { return !eq(a, b); }
inline bool lt(bf16 a, bf16 b) { return to_f32(a) < to_f32(b); }
inline bool le(bf16 a, bf16 b) { return to_f32(a) <= to_f32(b); }
inline bool gt(bf16 a, bf16 b) { return to_f32(a) > to_f32(b); }
inline bool ge(bf16 a, bf16 b) { return to_f32(a) >= to_f32(b); }
inline bool eq(bf16 a, bf16 b) { return le(a, b) && ge(a, b); }
inline bool ne(bf16 a, bf16 b) { return !eq(a, b); }

// ===========================================================================
// 2. Integer semantics
// ===========================================================================

namespace detail {

template <class T>
struct is_kd_int
    : std::integral_constant<bool, std::is_integral<T>::value && !std::is_same<T, bool>::value> {};

template <class T>
struct is_kd_float
    : std::integral_constant<bool, std::is_same<T, float>::value || std::is_same<T, double>::value ||
                                       std::is_same<T, f16>::value || std::is_same<T, bf16>::value> {};

template <class T>
struct is_kd_scalar
    : std::integral_constant<bool, std::is_same<T, bool>::value || is_kd_int<T>::value ||
                                       is_kd_float<T>::value> {};

// Unsigned type in which arithmetic on T is done without integer promotion to
// a signed int (uint16 * uint16 would otherwise overflow `int`).
template <class T>
using uarith_t = typename std::conditional<(sizeof(T) < sizeof(unsigned)), unsigned,
                                           typename std::make_unsigned<T>::type>::type;

template <class T>
struct same_type {
  using type = T;
};
template <class T>
using same_t = typename same_type<T>::type;  // blocks template argument deduction

// The value of T congruent to u modulo 2^bits(T) (two's complement wrap),
// without relying on implementation-defined unsigned -> signed conversion.
template <class T, class U>
inline T from_unsigned(U u) {
  static_assert(is_kd_int<T>::value && std::is_unsigned<U>::value, "integer types only");
  using UT = typename std::make_unsigned<T>::type;
  const UT v = static_cast<UT>(u);
  if constexpr (std::is_signed<T>::value) {
    const UT top = static_cast<UT>(static_cast<UT>(std::numeric_limits<T>::max()) + 1u);
    if (v < top) return static_cast<T>(v);
    return static_cast<T>(static_cast<T>(static_cast<UT>(v - top)) + std::numeric_limits<T>::min());
  } else {
    return v;
  }
}

}  // namespace detail

template <class T>
inline T wrap_add(T a, detail::same_t<T> b) {
  static_assert(detail::is_kd_int<T>::value, "wrap_add needs an integer type");
  using U = detail::uarith_t<T>;
  return detail::from_unsigned<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <class T>
inline T wrap_sub(T a, detail::same_t<T> b) {
  static_assert(detail::is_kd_int<T>::value, "wrap_sub needs an integer type");
  using U = detail::uarith_t<T>;
  return detail::from_unsigned<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <class T>
inline T wrap_mul(T a, detail::same_t<T> b) {
  static_assert(detail::is_kd_int<T>::value, "wrap_mul needs an integer type");
  using U = detail::uarith_t<T>;
  return detail::from_unsigned<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}
template <class T>
inline T wrap_neg(T a) {
  static_assert(detail::is_kd_int<T>::value, "wrap_neg needs an integer type");
  using U = detail::uarith_t<T>;
  return detail::from_unsigned<T>(static_cast<U>(U{0} - static_cast<U>(a)));
}

// Truncating division; the caller has checked b != 0. INT_MIN / -1 wraps to
// INT_MIN.
template <class T>
inline T int_div(T a, detail::same_t<T> b) {
  static_assert(detail::is_kd_int<T>::value, "int_div needs an integer type");
  if constexpr (std::is_signed<T>::value) {
    if (b == -1) return wrap_neg(a);
  }
  return static_cast<T>(a / b);
}
// Remainder with the sign of the dividend; the caller has checked b != 0.
// INT_MIN % -1 == 0.
template <class T>
inline T int_rem(T a, detail::same_t<T> b) {
  static_assert(detail::is_kd_int<T>::value, "int_rem needs an integer type");
  if constexpr (std::is_signed<T>::value) {
    if (b == -1) return T{0};
  }
  return static_cast<T>(a % b);
}

// Shift left. The amount is read as an unsigned number (a negative amount is
// huge); an amount >= the bit width gives 0, as PTX shl does.
template <class T, class S>
inline T shl(T a, S amount) {
  static_assert(detail::is_kd_int<T>::value && detail::is_kd_int<S>::value,
                "shl needs integer types");
  constexpr uint64_t width = sizeof(T) * 8u;
  const uint64_t k = static_cast<uint64_t>(amount);
  if (k >= width) return T{0};
  using U = detail::uarith_t<T>;
  return detail::from_unsigned<T>(static_cast<U>(static_cast<U>(a) << k));
}

// Shift right: logical for unsigned T, arithmetic for signed T. An amount >=
// the bit width (or negative) gives 0 for unsigned T and all sign bits for
// signed T, as PTX shr does.
template <class T, class S>
inline T shr(T a, S amount) {
  static_assert(detail::is_kd_int<T>::value && detail::is_kd_int<S>::value,
                "shr needs integer types");
  constexpr uint64_t width = sizeof(T) * 8u;
  const uint64_t k = static_cast<uint64_t>(amount);
  if constexpr (std::is_signed<T>::value) {
    if (k >= width) return a < 0 ? T{-1} : T{0};
    if (a < 0) return static_cast<T>(~(~a >> k));  // ~a >= 0: no implementation-defined shift
    return static_cast<T>(a >> k);
  } else {
    if (k >= width) return T{0};
    return static_cast<T>(a >> k);
  }
}

// ===========================================================================
// 3. Casts
// ===========================================================================

namespace detail {

template <class T>
inline double float_to_f64(T x) {
  if constexpr (std::is_same<T, f16>::value || std::is_same<T, bf16>::value) {
    return to_f64(x);
  } else {
    return static_cast<double>(x);
  }
}

template <class T>
inline bool nonzero(T x) {
  if constexpr (std::is_same<T, bool>::value) {
    return x;
  } else if constexpr (is_kd_int<T>::value) {
    return x != 0;
  } else if constexpr (std::is_same<T, f16>::value || std::is_same<T, bf16>::value) {
    return (x.bits & 0x7FFFu) != 0;  // only +-0 is false; NaN is true
  } else {
    return std::isnan(x) || x < 0 || x > 0;
  }
}

constexpr double pow2(int n) {
  double p = 1.0;
  for (int i = 0; i < n; ++i) p *= 2.0;
  return p;
}

// Truncate toward zero and saturate; NaN -> 0.
template <class To>
inline To saturate_to_int(double d) {
  if (std::isnan(d)) return To{0};
  constexpr double hi = pow2(std::numeric_limits<To>::digits);  // max + 1, exact
  constexpr double lo = std::is_signed<To>::value ? -hi : 0.0;  // min, exact
  const double t = std::trunc(d);
  if (t < lo) return std::numeric_limits<To>::min();
  if (t >= hi) return std::numeric_limits<To>::max();
  return static_cast<To>(t);  // in range: exact and defined
}

template <class To, class From>
inline To int_to_narrow_float(From x) {
  bool negative = false;
  uint64_t magnitude = static_cast<uint64_t>(x);
  if constexpr (std::is_signed<From>::value) {
    if (x < 0) {
      negative = true;
      magnitude = uint64_t{0} - magnitude;  // |x|, also for INT64_MIN
    }
  }
  if constexpr (std::is_same<To, f16>::value) {
    return f16{static_cast<uint16_t>(round_int_to_format(negative, magnitude, 5, 10))};
  } else {
    return bf16{static_cast<uint16_t>(round_int_to_format(negative, magnitude, 8, 7))};
  }
}

}  // namespace detail

// convert<To>(x): the KD cast To(x) for To, From in {bool, int8..int64,
// uint8..uint64, f16, bf16, float, double}.
//   float -> integer: truncate toward zero, saturate, NaN -> 0
//   integer -> integer: wrap (two's complement)
//   -> narrower float: round to nearest-even, overflow to infinity
//   -> bool: x != 0 (NaN -> true); bool -> number: 0 or 1
template <class To, class From>
inline To convert(From x) {
  static_assert(detail::is_kd_scalar<To>::value && detail::is_kd_scalar<From>::value,
                "convert: unsupported type");
  if constexpr (std::is_same<To, From>::value) {
    return x;
  } else if constexpr (std::is_same<To, bool>::value) {
    return detail::nonzero(x);
  } else if constexpr (std::is_same<From, bool>::value) {
    return convert<To>(static_cast<uint8_t>(x ? 1u : 0u));
  } else if constexpr (detail::is_kd_int<From>::value) {
    if constexpr (detail::is_kd_int<To>::value) {
      return detail::from_unsigned<To>(static_cast<uint64_t>(x));
    } else if constexpr (std::is_same<To, float>::value || std::is_same<To, double>::value) {
      return static_cast<To>(x);
    } else {
      return detail::int_to_narrow_float<To>(x);
    }
  } else {  // From is a float type
    if constexpr (detail::is_kd_int<To>::value) {
      return detail::saturate_to_int<To>(detail::float_to_f64(x));
    } else if constexpr (std::is_same<To, double>::value) {
      return detail::float_to_f64(x);
    } else if constexpr (std::is_same<To, float>::value) {
      if constexpr (std::is_same<From, double>::value) {
        return static_cast<float>(x);
      } else {
        return to_f32(x);  // f16 / bf16 -> f32 is exact
      }
    } else if constexpr (std::is_same<To, f16>::value) {
      if constexpr (std::is_same<From, double>::value) {
        return f16_from_f64(x);
      } else if constexpr (std::is_same<From, float>::value) {
        return f16_from_f32(x);
      } else {
        return f16_from_f32(to_f32(x));  // bf16 -> f32 exact, one rounding
      }
    } else {  // To is bf16
      if constexpr (std::is_same<From, double>::value) {
        return bf16_from_f64(x);
      } else if constexpr (std::is_same<From, float>::value) {
        return bf16_from_f32(x);
      } else {
        return bf16_from_f32(to_f32(x));  // f16 -> f32 exact, one rounding
      }
    }
  }
}

// ===========================================================================
// 4. Math helpers
// ===========================================================================

inline float rsqrt(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline f16 rsqrt(f16 x) { return f16_from_f32(rsqrt(to_f32(x))); }
inline bf16 rsqrt(bf16 x) { return bf16_from_f32(rsqrt(to_f32(x))); }

// NaN-propagating maximum / minimum (NumPy / JAX): NaN if either operand is
// NaN; maximum(-0, +0) == +0 and minimum(-0, +0) == -0 in either order.
template <class T>
inline T maximum(T a, T b) {
  static_assert(std::is_arithmetic<T>::value && !std::is_same<T, bool>::value,
                "maximum: numeric type");
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(a) || std::isnan(b)) return a + b;  // a quiet NaN
    if (a < b) return b;
    if (b < a) return a;
    return std::signbit(a) ? b : a;  // equal: prefer +0
  } else {
    return a < b ? b : a;
  }
}
template <class T>
inline T minimum(T a, T b) {
  static_assert(std::is_arithmetic<T>::value && !std::is_same<T, bool>::value,
                "minimum: numeric type");
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(a) || std::isnan(b)) return a + b;
    if (a < b) return a;
    if (b < a) return b;
    return std::signbit(a) ? a : b;  // equal: prefer -0
  } else {
    return b < a ? b : a;
  }
}
inline f16 maximum(f16 a, f16 b) { return f16_from_f32(maximum(to_f32(a), to_f32(b))); }
inline f16 minimum(f16 a, f16 b) { return f16_from_f32(minimum(to_f32(a), to_f32(b))); }
inline bf16 maximum(bf16 a, bf16 b) { return bf16_from_f32(maximum(to_f32(a), to_f32(b))); }
inline bf16 minimum(bf16 a, bf16 b) { return bf16_from_f32(minimum(to_f32(a), to_f32(b))); }

// ===========================================================================
// 5. Element-wise math and operators
// ===========================================================================

// exp of an f32, written so that GCC and Clang vectorise a loop of it at
// -O2 (issue 17: glibc's scalar expf was most of softmax's time). It
// computes in double: k = round(x / ln2), r = x - k ln2 (ln2 split so that
// k * ln2_hi is exact), e^r by its Taylor series to r^11 (|r| <= ln2/2:
// truncation below 2^-47 relative), times 2^k by adding k to the exponent
// field, then one rounding to f32. That is the double-precision exp
// rounded to f32: on a sample of 44 million floats it never differed from
// (float)std::exp((double)x), where glibc's expf differed in 4 of 100,000.
// |x| >= 104 computes exp(+-104), which rounds to inf or 0 as the exact
// value would; a NaN comes back quieted. Selects are masks, not branches,
// so that no compiler turns the loop into control flow (the reason
// -ftrapping-math, the default, would block vectorisation).
inline float exp_f32(float x) {
  const uint32_t u = detail::f32_bits(x), a = u & 0x7fffffffu;
  const uint32_t big = 0u - static_cast<uint32_t>(a >= 0x42d00000u);  // all ones where |x| >= 104
  const double xd = static_cast<double>(detail::f32_from_bits((((u & 0x80000000u) | 0x42d00000u) & big) | (u & ~big)));
  const double shift = 0x1.8p52;  // adding it rounds to an integer in the low bits
  const double z = xd * 0x1.71547652b82fep+0 + shift;
  const double kd = z - shift;
  const int64_t k = static_cast<int64_t>(detail::f64_bits(z) & 0xffffffffu) - int64_t{0x80000000};
  const double r = (xd - kd * 0x1.62e42fee00000p-1) - kd * 0x1.a39ef35793c76p-33;
  double p = 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  const float e = static_cast<float>(detail::f64_from_bits(detail::f64_bits(p) + (static_cast<uint64_t>(k) << 52)));
  const uint32_t nan = 0u - static_cast<uint32_t>(a > 0x7f800000u);  // all ones for a NaN
  return detail::f32_from_bits(((u | 0x00400000u) & nan) | (detail::f32_bits(e) & ~nan));
}

// Element-wise math, one overload set per float dtype; f16/bf16 compute in
// f32 and round once (spec section 1).
#define KDT_MATH_UNARY(name, expr)                                            \
  inline float name(float x) { return expr; }                                 \
  inline double name(double x) { return expr; }                               \
  inline f16 name(f16 h) { return f16_from_f32(name(to_f32(h))); }            \
  inline bf16 name(bf16 h) { return bf16_from_f32(name(to_f32(h))); }
namespace math {
inline float exp(float x) { return exp_f32(x); }
inline double exp(double x) { return std::exp(x); }
inline f16 exp(f16 h) { return f16_from_f32(exp(to_f32(h))); }
inline bf16 exp(bf16 h) { return bf16_from_f32(exp(to_f32(h))); }
KDT_MATH_UNARY(log, std::log(x))
KDT_MATH_UNARY(sqrt, std::sqrt(x))
KDT_MATH_UNARY(rsqrt, kdt_rt::rsqrt(x))
KDT_MATH_UNARY(tanh, std::tanh(x))
KDT_MATH_UNARY(sin, std::sin(x))
KDT_MATH_UNARY(cos, std::cos(x))
KDT_MATH_UNARY(abs, std::fabs(x))
KDT_MATH_UNARY(floor, std::floor(x))
KDT_MATH_UNARY(ceil, std::ceil(x))
}  // namespace math
#undef KDT_MATH_UNARY

// Arithmetic on every dtype with KD's rules: integers wrap, f16/bf16 round
// after each operation, floats are plain IEEE (no contraction: emitted
// files are compiled with -ffp-contract=off by `kdt run`, and each
// operation here is a separate statement-level expression).
// Emitted code calls them with T deduced (kdt_rt::op_add(a, b)): f16 and
// bf16 take the overloads after each template.
template <class T> inline T op_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) return wrap_add(a, b); else return a + b;
}
template <class T> inline T op_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>) return wrap_sub(a, b); else return a - b;
}
template <class T> inline T op_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) return wrap_mul(a, b); else return a * b;
}
template <class T> inline T op_neg(T a) {
  if constexpr (std::is_integral_v<T>) return wrap_neg(a); else return -a;
}
inline f16 op_add(f16 a, f16 b) { return add(a, b); }
inline f16 op_sub(f16 a, f16 b) { return sub(a, b); }
inline f16 op_mul(f16 a, f16 b) { return mul(a, b); }
inline f16 op_neg(f16 a) { return neg(a); }
inline bf16 op_add(bf16 a, bf16 b) { return add(a, b); }
inline bf16 op_sub(bf16 a, bf16 b) { return sub(a, b); }
inline bf16 op_mul(bf16 a, bf16 b) { return mul(a, b); }
inline bf16 op_neg(bf16 a) { return neg(a); }

template <class T> inline T op_div(T a, T b) { return a / b; }
inline f16 op_div(f16 a, f16 b) { return div(a, b); }
inline bf16 op_div(bf16 a, bf16 b) { return div(a, b); }
template <class T> inline T op_rem(T a, T b) { return static_cast<T>(std::fmod(a, b)); }
inline f16 op_rem(f16 a, f16 b) { return f16_from_f32(std::fmod(to_f32(a), to_f32(b))); }
inline bf16 op_rem(bf16 a, bf16 b) { return bf16_from_f32(std::fmod(to_f32(a), to_f32(b))); }

// Comparisons: native for arithmetic types, through f32 for f16/bf16.
template <class T> inline float cmp_value(T x) { return static_cast<float>(x); }
inline float cmp_value(f16 x) { return to_f32(x); }
inline float cmp_value(bf16 x) { return to_f32(x); }

// ===========================================================================
// 6. Checksums and seeded inputs
// ===========================================================================

// 64-bit FNV-1a of a byte range.
inline uint64_t fnv1a64(const void* data, size_t bytes) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < bytes; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

// SplitMix64 (Steele, Lea, Flood 2014), as in the reference implementation.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

// Deterministic inputs: one SplitMix64 draw r per element, from its top bits.
//   float types: uniform on a grid in [-1, 1), every value exact in T:
//                f64 k*2^-52 - 1 (k = r >> 11), f32 k*2^-23 - 1 (r >> 40),
//                f16 k*2^-11 - 1 (r >> 52), bf16 k*2^-8 - 1 (r >> 55)
//   signed integers: (r >> 60) - 8, in [-8, 8)
//   unsigned integers: r >> 60, in [0, 16)
//   bool: r >> 63
template <class T>
inline void fill_random(T* data, size_t n, uint64_t seed) {
  static_assert(detail::is_kd_scalar<T>::value, "fill_random: unsupported type");
  SplitMix64 gen{seed};
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = gen.next();
    if constexpr (std::is_same<T, bool>::value) {
      data[i] = (r >> 63) != 0;
    } else if constexpr (detail::is_kd_int<T>::value) {
      if constexpr (std::is_signed<T>::value) {
        data[i] = static_cast<T>(static_cast<int>(r >> 60) - 8);
      } else {
        data[i] = static_cast<T>(r >> 60);
      }
    } else if constexpr (std::is_same<T, double>::value) {
      data[i] = static_cast<double>(r >> 11) * 0x1p-52 - 1.0;
    } else if constexpr (std::is_same<T, float>::value) {
      data[i] = static_cast<float>(r >> 40) * 0x1p-23f - 1.0f;
    } else if constexpr (std::is_same<T, f16>::value) {
      data[i] = f16_from_f32(static_cast<float>(r >> 52) * 0x1p-11f - 1.0f);
    } else {
      data[i] = bf16_from_f32(static_cast<float>(r >> 55) * 0x1p-8f - 1.0f);
    }
  }
}

}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_NUMERICS_H
