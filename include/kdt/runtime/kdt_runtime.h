// kdt_runtime.h - runtime prelude included by the C++ code that kdt emits.
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
//   5. NumPy .npy reading and writing
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
#ifndef KDT_RUNTIME_KDT_RUNTIME_H
#define KDT_RUNTIME_KDT_RUNTIME_H

#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

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
// 5. NumPy .npy files
// ===========================================================================

struct NpyArray {
  std::string descr;            // e.g. "<f4", "|b1", "<V2"
  std::vector<uint64_t> shape;  // empty for a 0-d array
  std::vector<unsigned char> data;  // C order, little-endian
};

// What the header of a .npy file says, before its data is read.
struct NpyHeader {
  std::string descr;
  std::vector<uint64_t> shape;
  size_t itemsize = 0;
  uint64_t data_bytes = 0;  // product(shape) x itemsize
  size_t data_offset = 0;   // where the data starts in the file
};

// KD dtype name -> the descr kdt writes; nullptr for an unknown name.
inline const char* npy_descr_for(const char* kd_dtype) {
  if (kd_dtype == nullptr) return nullptr;
  static const char* const table[][2] = {
      {"bool", "|b1"}, {"i8", "|i1"},  {"i16", "<i2"}, {"i32", "<i4"}, {"i64", "<i8"},
      {"u8", "|u1"},   {"u16", "<u2"}, {"u32", "<u4"}, {"u64", "<u8"}, {"f16", "<f2"},
      {"bf16", "<V2"}, {"f32", "<f4"}, {"f64", "<f8"},
  };
  for (const auto& entry : table) {
    if (std::strcmp(kd_dtype, entry[0]) == 0) return entry[1];
  }
  return nullptr;
}

// Whether a file with this descr can feed a KD parameter of dtype kd_dtype.
// 1-byte types accept any byte-order character ('|i1', '<i1', ...); bf16
// accepts '<V2', '|V2' (ml_dtypes.bfloat16) and '<u2' (raw bit patterns).
inline bool npy_descr_accepts(const char* kd_dtype, const std::string& descr) {
  const char* canonical = npy_descr_for(kd_dtype);
  if (canonical == nullptr) return false;
  if (descr == canonical) return true;
  if (std::strcmp(kd_dtype, "bf16") == 0) return descr == "|V2" || descr == "<u2";
  if (canonical[2] == '1' && canonical[3] == '\0' && descr.size() == 3 && descr[1] == canonical[1] &&
      descr[2] == '1') {
    return descr[0] == '|' || descr[0] == '<' || descr[0] == '>' || descr[0] == '=';
  }
  return false;
}

namespace detail {

// Parses a simple descr "<kind><size>" with a byte-order prefix. Returns false
// with a message for anything kdt cannot hold as raw little-endian bytes.
inline bool npy_parse_descr(const std::string& descr, size_t& itemsize, std::string& error) {
  if (descr.size() < 3) {
    error = "unsupported dtype descr '" + descr + "'";
    return false;
  }
  const char order = descr[0];
  const char kind = descr[1];
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    error = "unsupported dtype descr '" + descr + "' (no byte-order character)";
    return false;
  }
  if (std::strchr("biufcVS", kind) == nullptr || kind == '\0') {
    error = "unsupported dtype descr '" + descr + "'";
    return false;
  }
  uint64_t n = 0;
  for (size_t i = 2; i < descr.size(); ++i) {
    const char c = descr[i];
    if (c < '0' || c > '9' || n > 100000000u) {
      error = "unsupported dtype descr '" + descr + "'";
      return false;
    }
    n = n * 10u + static_cast<uint64_t>(c - '0');
  }
  if (n == 0) {
    error = "unsupported dtype descr '" + descr + "' (zero item size)";
    return false;
  }
  if (n > 1 && order == '>') {
    error = "big-endian data ('" + descr + "') is not supported; save it little-endian, e.g. "
            "arr.astype('<" + descr.substr(1) + "')";
    return false;
  }
  if (n > 1 && order == '=') {
    error = "native byte order in descr '" + descr + "' is ambiguous; save it with '<'";
    return false;
  }
  itemsize = static_cast<size_t>(n);
  return true;
}

inline bool mul_overflows(uint64_t a, uint64_t b, uint64_t& out) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) return true;
  out = a * b;
  return false;
}

// Parser for the Python-literal header dictionary of a .npy file.
class NpyHeaderParser {
 public:
  NpyHeaderParser(const char* begin, const char* end) : p_(begin), end_(end) {}

  bool parse(std::string& descr, bool& fortran, std::vector<uint64_t>& shape, std::string& error) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    skip_ws();
    if (!eat('{')) return fail(error, "header is not a Python dict");
    for (;;) {
      skip_ws();
      if (eat('}')) break;
      std::string key;
      if (!parse_string(key)) return fail(error, "malformed header dict (expected a string key)");
      skip_ws();
      if (!eat(':')) return fail(error, "malformed header dict (expected ':')");
      skip_ws();
      if (key == "descr") {
        if (have_descr) return fail(error, "duplicate 'descr' in header");
        if (at('[')) return fail(error, "structured dtypes are not supported");
        if (!parse_string(descr)) return fail(error, "malformed 'descr' in header");
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_fortran) return fail(error, "duplicate 'fortran_order' in header");
        if (!parse_bool(fortran)) return fail(error, "malformed 'fortran_order' in header");
        have_fortran = true;
      } else if (key == "shape") {
        if (have_shape) return fail(error, "duplicate 'shape' in header");
        if (!parse_shape(shape)) return fail(error, "malformed 'shape' in header");
        have_shape = true;
      } else {
        return fail(error, "unexpected key '" + key + "' in header");
      }
      skip_ws();
      if (eat(',')) continue;
      skip_ws();
      if (eat('}')) break;
      return fail(error, "malformed header dict (expected ',' or '}')");
    }
    skip_ws();
    if (p_ != end_) return fail(error, "trailing characters after the header dict");
    if (!have_descr || !have_fortran || !have_shape) {
      return fail(error, "header lacks one of 'descr', 'fortran_order', 'shape'");
    }
    return true;
  }

 private:
  static bool fail(std::string& error, const std::string& message) {
    error = message;
    return false;
  }
  bool at(char c) const { return p_ != end_ && *p_ == c; }
  bool eat(char c) {
    if (!at(c)) return false;
    ++p_;
    return true;
  }
  void skip_ws() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool parse_string(std::string& out) {
    if (p_ == end_ || (*p_ != '\'' && *p_ != '"')) return false;
    const char quote = *p_++;
    out.clear();
    while (p_ != end_ && *p_ != quote) {
      if (*p_ == '\\') {
        ++p_;
        if (p_ == end_) return false;
      }
      out.push_back(*p_++);
    }
    return eat(quote);
  }
  bool parse_word(const char* word) {
    const size_t n = std::strlen(word);
    if (static_cast<size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return false;
    p_ += n;
    return true;
  }
  bool parse_bool(bool& out) {
    if (parse_word("True")) {
      out = true;
      return true;
    }
    if (parse_word("False")) {
      out = false;
      return true;
    }
    return false;
  }
  bool parse_uint(uint64_t& out) {
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
    uint64_t v = 0;
    while (p_ != end_ && *p_ >= '0' && *p_ <= '9') {
      const uint64_t digit = static_cast<uint64_t>(*p_ - '0');
      if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10u) return false;
      v = v * 10u + digit;
      ++p_;
    }
    if (p_ != end_ && (*p_ == 'L' || *p_ == 'l')) ++p_;  // Python 2 long
    out = v;
    return true;
  }
  bool parse_shape(std::vector<uint64_t>& shape) {
    shape.clear();
    if (!eat('(')) return false;
    skip_ws();
    if (eat(')')) return true;
    for (;;) {
      uint64_t v = 0;
      if (!parse_uint(v)) return false;
      shape.push_back(v);
      skip_ws();
      if (eat(')')) return true;
      if (!eat(',')) return false;
      skip_ws();
      if (eat(')')) return true;
      if (shape.size() > 64) return false;
    }
  }

  const char* p_;
  const char* end_;
};

struct FileCloser {
  std::FILE* f;
  ~FileCloser() {
    if (f != nullptr) std::fclose(f);
  }
};

inline std::string npy_shape_repr(const std::vector<uint64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  s += ")";
  return s;
}

// The largest header dict accepted (format 2.0 and 3.0 allow 4 GiB; np.save
// writes a few hundred bytes, and NumPy's own reader stops at 10000 by
// default): a header is read into memory before anything is known.
constexpr uint64_t kNpyMaxHeaderBytes = uint64_t{1} << 20;

// How many bytes the magic, version, header length and header dict take,
// from the first bytes of a file (at least 12 of them, or all the file
// has); 0 when they do not say (npy_parse_header then reports why).
inline size_t npy_header_extent(const unsigned char* bytes, size_t size) {
  static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size < 10 || std::memcmp(bytes, magic, 6) != 0) return 0;
  const unsigned major = bytes[6];
  if ((major != 1 && major != 2 && major != 3) || bytes[7] != 0) return 0;
  if (major == 1) {
    return 10u + (static_cast<size_t>(bytes[8]) | (static_cast<size_t>(bytes[9]) << 8));
  }
  if (size < 12) return 0;
  const uint64_t header_len = static_cast<uint64_t>(bytes[8]) | (static_cast<uint64_t>(bytes[9]) << 8) |
                              (static_cast<uint64_t>(bytes[10]) << 16) | (static_cast<uint64_t>(bytes[11]) << 24);
  if (header_len > kNpyMaxHeaderBytes) return 0;
  return 12u + static_cast<size_t>(header_len);
}

// Parses the magic string, version and header dict at the start of a .npy
// file (`size` bytes of it, at least up to the end of the header dict).
// Messages do not name a file; npy_read_impl puts the path in front of them.
inline bool npy_parse_header(const unsigned char* bytes, size_t size, NpyHeader& h, std::string& error) {
  static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size == 0) {
    error = "empty file, not a NumPy .npy file";
    return false;
  }
  if (size < 6 || std::memcmp(bytes, magic, 6) != 0) {
    error = "not a NumPy .npy file (bad magic string)";
    return false;
  }
  if (size < 10) {
    error = "truncated .npy file (incomplete header)";
    return false;
  }
  const unsigned major = bytes[6];
  const unsigned minor = bytes[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    error = "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
            " (supported: 1.0, 2.0, 3.0)";
    return false;
  }
  uint64_t header_len;
  size_t prefix_len = 10;
  if (major == 1) {
    header_len = static_cast<uint64_t>(bytes[8]) | (static_cast<uint64_t>(bytes[9]) << 8);
  } else {
    if (size < 12) {
      error = "truncated .npy file (incomplete header)";
      return false;
    }
    header_len = static_cast<uint64_t>(bytes[8]) | (static_cast<uint64_t>(bytes[9]) << 8) |
                 (static_cast<uint64_t>(bytes[10]) << 16) | (static_cast<uint64_t>(bytes[11]) << 24);
    prefix_len = 12;
  }
  if (header_len > kNpyMaxHeaderBytes) {
    error = ".npy header is implausibly large (" + std::to_string(header_len) + " bytes)";
    return false;
  }
  if (header_len > size - prefix_len) {
    error = "truncated .npy file (incomplete header)";
    return false;
  }
  const char* header = reinterpret_cast<const char*>(bytes + prefix_len);
  std::string descr;
  bool fortran = false;
  std::vector<uint64_t> shape;
  std::string message;
  NpyHeaderParser parser(header, header + header_len);
  if (!parser.parse(descr, fortran, shape, message)) {
    error = "invalid .npy header: " + message;
    return false;
  }
  if (fortran) {
    error = "arrays in Fortran order (fortran_order: True) are not supported; save a "
            "C-ordered array, e.g. np.save(path, np.ascontiguousarray(arr))";
    return false;
  }
  size_t itemsize = 0;
  if (!npy_parse_descr(descr, itemsize, message)) {
    error = message;
    return false;
  }
  uint64_t count = 1;
  uint64_t expected = 0;
  for (uint64_t d : shape) {
    if (mul_overflows(count, d, count)) {
      error = "array shape " + npy_shape_repr(shape) + " is too large";
      return false;
    }
  }
  if (mul_overflows(count, itemsize, expected) || expected > std::numeric_limits<size_t>::max() / 2) {
    error = "array shape " + npy_shape_repr(shape) + " is too large";
    return false;
  }
  h.descr = std::move(descr);
  h.shape = std::move(shape);
  h.itemsize = itemsize;
  h.data_bytes = expected;
  h.data_offset = prefix_len + static_cast<size_t>(header_len);
  return true;
}

// Whether `data_size` bytes after the header are exactly what it promises.
inline bool npy_check_data_size(const NpyHeader& h, uint64_t data_size, std::string& error) {
  if (data_size > h.data_bytes) {
    error = ".npy data is larger than shape " + npy_shape_repr(h.shape) + " x " + std::to_string(h.itemsize) +
            " bytes = " + std::to_string(h.data_bytes) + " bytes";
    return false;
  }
  if (data_size != h.data_bytes) {
    error = "truncated .npy file: data has " + std::to_string(data_size) + " bytes, shape " +
            npy_shape_repr(h.shape) + " x " + std::to_string(h.itemsize) + " bytes needs " +
            std::to_string(h.data_bytes);
    return false;
  }
  return true;
}

// Parses a whole .npy file held in memory.
inline bool npy_parse_impl(const unsigned char* bytes, size_t size, NpyArray& out, std::string& error) {
  NpyHeader h;
  if (!npy_parse_header(bytes, size, h, error)) return false;
  // The data is checked against the shape before anything is allocated, so
  // that a header claiming a huge shape cannot make us allocate more than
  // the input holds.
  if (!npy_check_data_size(h, size - h.data_offset, error)) return false;
  out.descr = std::move(h.descr);
  out.shape = std::move(h.shape);
  out.data.assign(bytes + h.data_offset, bytes + size);
  return true;
}

// Appends up to `n` bytes read from `f` to `bytes` (fewer only at the end
// of the file or on an error), in chunks: memory grows with what arrives,
// whatever a header claims.
inline void npy_read_upto(std::FILE* f, std::vector<unsigned char>& bytes, uint64_t n) {
  unsigned char buffer[1 << 16];
  while (n > 0) {
    const size_t want = n < sizeof buffer ? static_cast<size_t>(n) : sizeof buffer;
    const size_t got = std::fread(buffer, 1, want, f);
    bytes.insert(bytes.end(), buffer, buffer + got);
    n -= got;
    if (got < want) return;
  }
}

// Reads exactly the bytes the header promises: a regular file must hold
// them and nothing more (checked against its size before the data is
// read); a pipe, FIFO or device is read no further than the header and
// data, so that a stream that does not end (/dev/zero, a FIFO kept open)
// cannot make the reader wait or allocate without bound.
inline bool npy_read_impl(const std::string& path, NpyArray& out, std::string& error,
                          const std::function<bool(const NpyHeader&)>& accept) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::is_directory(status)) {
    error = path + ": is a directory, not a .npy file";
    return false;
  }
  const bool regular = !ec && std::filesystem::is_regular_file(status);
  FileCloser file{std::fopen(path.c_str(), "rb")};
  if (file.f == nullptr) {
    error = path + ": cannot open for reading: " + std::strerror(errno);
    return false;
  }
  std::vector<unsigned char> bytes;
  npy_read_upto(file.f, bytes, 12);
  const size_t extent = npy_header_extent(bytes.data(), bytes.size());
  if (extent > bytes.size()) npy_read_upto(file.f, bytes, extent - bytes.size());
  if (std::ferror(file.f)) {
    error = path + ": read error";
    return false;
  }
  NpyHeader h;
  std::string message;
  if (!npy_parse_header(bytes.data(), bytes.size(), h, message)) {
    error = path + ": " + message;
    return false;
  }
  if (accept && !accept(h)) {
    error = path + ": the array's dtype or shape is not the one expected";
    return false;
  }
  if (regular) {
    const uintmax_t file_size = std::filesystem::file_size(path, ec);
    if (!ec && file_size >= h.data_offset && !npy_check_data_size(h, file_size - h.data_offset, message)) {
      error = path + ": " + message;
      return false;
    }
  }
  bytes.erase(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(h.data_offset));
  npy_read_upto(file.f, bytes, h.data_bytes - bytes.size());
  if (std::ferror(file.f)) {
    error = path + ": read error";
    return false;
  }
  // A regular file that grew while it was read still fails here.
  if (regular && std::fgetc(file.f) != EOF) {
    error = path + ": .npy data is larger than shape " + npy_shape_repr(h.shape) + " x " +
            std::to_string(h.itemsize) + " bytes = " + std::to_string(h.data_bytes) + " bytes";
    return false;
  }
  if (!npy_check_data_size(h, bytes.size(), message)) {
    error = path + ": " + message;
    return false;
  }
  out.descr = std::move(h.descr);
  out.shape = std::move(h.shape);
  out.data = std::move(bytes);
  return true;
}

// The header np.save writes for an array (version 1.0, 2.0 only if the
// header exceeds 65535 bytes): keys sorted, spare spaces for growing the
// first axis (GROWTH_AXIS_MAX_DIGITS = 21), then spaces and a newline so
// that the data starts at a multiple of 64 bytes.
inline bool npy_header_impl(const std::string& descr, const std::vector<uint64_t>& shape, size_t bytes,
                            std::string& out, std::string& error) {
  size_t itemsize = 0;
  std::string message;
  if (!npy_parse_descr(descr, itemsize, message)) {
    error = message;
    return false;
  }
  uint64_t count = 1;
  uint64_t expected = 0;
  for (uint64_t d : shape) {
    if (mul_overflows(count, d, count)) {
      error = "array shape " + npy_shape_repr(shape) + " is too large";
      return false;
    }
  }
  if (mul_overflows(count, itemsize, expected) || expected != static_cast<uint64_t>(bytes)) {
    error = "npy_write: " + std::to_string(bytes) + " bytes of data do not match shape " + npy_shape_repr(shape) +
            " of '" + descr + "'";
    return false;
  }
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " +
                     npy_shape_repr(shape) + ", }";
  if (!shape.empty()) {
    const size_t digits = std::to_string(shape[0]).size();
    if (digits < 21) dict.append(21 - digits, ' ');
  }
  for (int version = 1; version <= 2; ++version) {
    const size_t prefix_len = version == 1 ? 10u : 12u;
    const size_t padlen = 64u - (prefix_len + dict.size() + 1u) % 64u;
    const size_t header_len = dict.size() + padlen + 1u;
    if (version == 1 && header_len > 0xFFFFu) continue;
    out.assign("\x93NUMPY", 6);
    out.push_back(static_cast<char>(version));
    out.push_back('\0');
    for (size_t i = 0; i < (version == 1 ? 2u : 4u); ++i) {
      out.push_back(static_cast<char>((header_len >> (8u * i)) & 0xFFu));
    }
    out += dict;
    out.append(padlen, ' ');
    out.push_back('\n');
    if (out.size() % 64u != 0) break;
    return true;
  }
  error = "npy_write: header too large";
  return false;
}

inline bool npy_write_impl(const std::string& path, const std::string& descr,
                           const std::vector<uint64_t>& shape, const void* data, size_t bytes,
                           std::string& error) {
  std::string header;
  std::string message;
  if (!npy_header_impl(descr, shape, bytes, header, message)) {
    error = path + ": " + message;
    return false;
  }
  if (bytes > 0 && data == nullptr) {
    error = path + ": npy_write: null data";
    return false;
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    error = path + ": cannot open for writing: " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
            (bytes == 0 || std::fwrite(data, 1, bytes, f) == bytes);
  const int saved_errno = errno;
  if (std::fclose(f) != 0) ok = false;
  if (!ok) {
    error = path + ": write error: " + std::strerror(saved_errno != 0 ? saved_errno : errno);
    std::remove(path.c_str());
    return false;
  }
  return true;
}

}  // namespace detail

// Reads a .npy file (format 1.0, 2.0 or 3.0, C order, little-endian or 1-byte
// items). On failure returns false, leaves `out` unchanged and sets `error`
// to a message that starts with the path. Never throws. `accept`, when
// given, sees the header before any data is read and may refuse it (the
// caller then says why). Reads exactly the header and the data it promises:
// a regular file must hold no more and no less; a FIFO or device is not
// read past them (see npy_read_impl).
inline bool npy_read(const std::string& path, NpyArray& out, std::string& error,
                     const std::function<bool(const NpyHeader&)>& accept = nullptr) {
  try {
    return detail::npy_read_impl(path, out, error, accept);
  } catch (const std::exception& e) {
    try { error = path + ": " + e.what(); } catch (...) {}
    return false;
  } catch (...) {
    return false;
  }
}

// Parses the bytes of a whole .npy file held in memory (what npy_read reads
// from a file), with the same checks and messages, less the path in front.
// On failure returns false, leaves `out` unchanged and sets `error`. Never
// throws.
inline bool npy_parse(const void* data, size_t size, NpyArray& out, std::string& error) {
  try {
    return detail::npy_parse_impl(static_cast<const unsigned char*>(data), size, out, error);
  } catch (const std::exception& e) {
    try { error = e.what(); } catch (...) {}
    return false;
  } catch (...) {
    return false;
  }
}

// The bytes np.save writes before the data of an array of `bytes` bytes
// (which must equal product(shape) x item size of `descr`). Never throws.
inline bool npy_header(const std::string& descr, const std::vector<uint64_t>& shape, size_t bytes,
                       std::string& out, std::string& error) {
  try {
    return detail::npy_header_impl(descr, shape, bytes, out, error);
  } catch (const std::exception& e) {
    try { error = e.what(); } catch (...) {}
    return false;
  } catch (...) {
    return false;
  }
}

// Writes a version 1.0 .npy file (2.0 only if the header exceeds 65535 bytes)
// byte-for-byte as np.save does; `bytes` must equal product(shape) x item
// size of `descr`. Never throws.
inline bool npy_write(const std::string& path, const std::string& descr,
                      const std::vector<uint64_t>& shape, const void* data, size_t bytes,
                      std::string& error) {
  try {
    return detail::npy_write_impl(path, descr, shape, data, bytes, error);
  } catch (const std::exception& e) {
    try { error = path + ": " + e.what(); } catch (...) {}
    return false;
  } catch (...) {
    return false;
  }
}

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

#endif  // KDT_RUNTIME_KDT_RUNTIME_H
