// kdt_ptx.h - exact CPU emulation of the PTX instructions that kdt
// translates when it discharges an asm block without a fallback. Embedded
// after kdt_runtime.h and kdt_exec.h into every emitted file.
//
// Every register value is its raw bits: .pred is bool, 16-bit registers
// uint16_t, 32-bit uint32_t, 64-bit uint64_t (so NaN payloads and integer
// wrap-around are exact). Directed rounding (.rz .rm .rp) never relies on the
// host rounding mode: each operation computes its result rounded to nearest
// in double together with the sign of the exact error (TwoSum, fma residual,
// exact products), and rounds that exact value to the target format itself.
// The host only has to run in its default round-to-nearest mode.
// See docs/ptx.md for the subset and its definitions.
#ifndef KDT_RUNTIME_KDT_PTX_H
#define KDT_RUNTIME_KDT_PTX_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kdt_numerics.h"

namespace kdt_rt {
namespace ptx {

enum Rnd : int { RN = 0, RZ = 1, RM = 2, RP = 3 };

namespace d {

inline uint32_t fb(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float bf(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
inline uint64_t db(double f) { uint64_t u; std::memcpy(&u, &f, 8); return u; }
inline double bd(uint64_t u) { double f; std::memcpy(&f, &u, 8); return f; }

constexpr uint32_t kNaN32 = 0x7FFFFFFFu;           // PTX canonical NaN (f32)
constexpr uint64_t kNaN64 = 0x7FFFFFFFFFFFFFFFull;  // canonical NaN (f64)
constexpr uint16_t kNaN16 = 0x7FFFu;               // canonical NaN (f16, bf16)

// An exact real: r (a double, the exact value rounded to nearest) plus a
// tail smaller than half an ulp of r whose sign is `es` (-1, 0, +1).
struct Ex {
  double r;
  int es;
};

inline int sgn(double x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }

// TwoSum: a + b = s + err exactly (no overflow assumed when s is finite).
inline Ex two_sum(double a, double b) {
  double s = a + b;
  if (!std::isfinite(s)) return {s, 0};
  double bb = s - a;
  double err = (a - (s - bb)) + (b - bb);
  return {s, sgn(err)};
}

// Sign of a*b - r, exact even when the product lies in the subnormal range.
inline int prod_err_sign(double a, double b, double r) {
  if (std::fabs(r) < 0x1p-900) {
    // Scale the problem into the normal range: both sides by 2^256.
    double as = std::ldexp(a, 256);
    return sgn(std::fma(as, b, -std::ldexp(r, 256)));
  }
  return sgn(std::fma(a, b, -r));
}

inline Ex ex_mul(double a, double b) {
  double r = a * b;
  if (!std::isfinite(r) || a == 0 || b == 0) return {r, 0};
  return {r, prod_err_sign(a, b, r)};
}

inline Ex ex_div(double a, double b) {
  double q = a / b;
  if (!std::isfinite(q) || a == 0 || !std::isfinite(b)) return {q, 0};
  // a/b - q has the sign of (a - q*b) / b.
  int s;
  if (std::fabs(q) < 0x1p-900 || std::fabs(a) < 0x1p-900) {
    s = sgn(std::fma(-std::ldexp(q, 256), b, std::ldexp(a, 256)));
  } else {
    s = sgn(std::fma(-q, b, a));
  }
  return {q, b < 0 ? -s : s};
}

inline Ex ex_sqrt(double a) {
  double r = std::sqrt(a);
  if (!std::isfinite(r) || r == 0) return {r, 0};
  int s;
  if (a < 0x1p-900) s = sgn(std::fma(-std::ldexp(r, 128), std::ldexp(r, 128), std::ldexp(a, 256)));
  else s = sgn(std::fma(-r, r, a));
  return {r, s};
}

// Rounds the exact value to a binary format with `prec` significand bits,
// smallest normal exponent `emin` and largest exponent `emax`; the result is a
// double holding a value of that format (or an infinity).
// IEEE 754: an exact zero sum is -0 under roundTowardNegative unless both
// operands are +0 (and +0 otherwise unless both are -0).
inline double zero_sum(double r, double x, double y, int mode) {
  if (r != 0) return r;
  if (x == 0 && y == 0 && std::signbit(x) == std::signbit(y)) return x;
  return mode == RM ? -0.0 : 0.0;
}

inline double round_fmt(Ex x, int mode, int prec, int emin, int emax) {
  double r = x.r;
  if (std::isnan(r) || std::isinf(r)) return r;
  if (r == 0 && x.es == 0) return r;
  bool neg = r < 0 || (r == 0 && x.es < 0);
  double a = std::fabs(r);
  int es = neg ? -x.es : x.es;  // tail sign relative to |value|
  int e = a == 0 ? emin : std::ilogb(a);
  if (es < 0 && a == std::ldexp(1.0, e)) e -= 1;  // just below a power of two: the binade below
  int E = e < emin ? emin : e;
  double q = std::ldexp(1.0, E - prec + 1);
  double t = a / q;  // exact (power-of-two scaling)
  double fl = std::floor(t);
  double frac = t - fl;
  bool exact = frac == 0 && es == 0;
  if (frac == 0 && es < 0) {
    fl -= 1;
    frac = 1;  // 1 - tiny: above the half point
  }
  int half_cmp = frac > 0.5 ? 1 : (frac < 0.5 ? -1 : es);  // vs 0.5
  bool up;
  int dir = mode == RZ ? 0 : mode == RM ? (neg ? 1 : 0) : mode == RP ? (neg ? 0 : 1) : 2;
  if (exact) up = false;
  else if (dir == 0) up = false;
  else if (dir == 1) up = true;
  else up = half_cmp > 0 || (half_cmp == 0 && std::fmod(fl, 2.0) != 0);
  double m = up ? fl + 1 : fl;
  double res = m * q;
  double maxf = std::ldexp(2.0 - std::ldexp(1.0, 1 - prec), emax);
  if (res > maxf) {
    bool to_inf = dir != 0;  // nearest or away from zero
    res = to_inf ? std::numeric_limits<double>::infinity() : maxf;
  }
  return neg ? -res : res;
}

inline double round_f64(Ex x, int mode) {
  double r = x.r;
  if (std::isnan(r)) return r;
  if (x.es == 0 || mode == RN) return r;
  if (mode == RZ) return ((r > 0 && x.es < 0) || (r < 0 && x.es > 0)) ? std::nextafter(r, 0.0) : r;
  if (mode == RM) return x.es < 0 ? std::nextafter(r, -std::numeric_limits<double>::infinity()) : r;
  return x.es > 0 ? std::nextafter(r, std::numeric_limits<double>::infinity()) : r;
}

// Overflow of an f64 operation on finite operands under a directed mode.
inline double f64_overflow(double r, int mode) {
  const double mx = std::numeric_limits<double>::max();
  if (!std::isinf(r) || mode == RN) return r;
  if (mode == RZ) return r > 0 ? mx : -mx;
  if (mode == RM) return r > 0 ? mx : r;
  return r < 0 ? -mx : r;
}

inline double r32(Ex x, int mode) { return round_fmt(x, mode, 24, -126, 127); }
inline double r16(Ex x, int mode) { return round_fmt(x, mode, 11, -14, 15); }
inline double rbf(Ex x, int mode) { return round_fmt(x, mode, 8, -126, 127); }

inline float ftz32(float x) {
  return (x != 0 && std::fabs(x) < std::numeric_limits<float>::min()) ? std::copysign(0.0f, x) : x;
}
inline double ftz64(double x) { return x; }  // f64 has no .ftz

inline float sat32(float x) {
  if (std::isnan(x)) return 0.0f;
  if (x < 0) return 0.0f;  // also maps -0.0 to +0.0
  if (x > 1) return 1.0f;
  return x == 0 ? 0.0f : x;
}

inline uint32_t out32(double v, bool ftz, bool sat) {
  if (std::isnan(v)) return sat ? 0u : kNaN32;
  float f = static_cast<float>(v);  // exact: v is already an f32 value
  if (ftz) f = ftz32(f);
  if (sat) f = sat32(f);
  return fb(f);
}

inline float in32(uint32_t a, bool ftz) { return ftz ? ftz32(bf(a)) : bf(a); }

// f32 operations on exact doubles.
inline uint32_t add32(uint32_t a, uint32_t b, int m, bool ftz, bool sat) {
  double x = in32(a, ftz), y = in32(b, ftz);
  Ex e = two_sum(x, y);
  e.r = zero_sum(e.r, x, y, m);
  return out32(r32(e, m), ftz, sat);
}
inline uint32_t sub32(uint32_t a, uint32_t b, int m, bool ftz, bool sat) {
  return add32(a, b ^ 0x80000000u, m, ftz, sat) ;
}
inline uint32_t mul32(uint32_t a, uint32_t b, int m, bool ftz, bool sat) {
  double x = in32(a, ftz), y = in32(b, ftz);
  return out32(r32({x * y, 0}, m), ftz, sat);  // 24x24 bits: exact in double
}
inline uint32_t fma32(uint32_t a, uint32_t b, uint32_t c, int m, bool ftz, bool sat) {
  double x = in32(a, ftz), y = in32(b, ftz), z = in32(c, ftz);
  double p = x * y;  // exact
  if (std::isnan(p) || std::isnan(z)) return kNaN32;
  Ex e = two_sum(p, z);
  e.r = zero_sum(e.r, p, z, m);
  return out32(r32(e, m), ftz, sat);
}
inline uint32_t div32(uint32_t a, uint32_t b, int m, bool ftz, bool sat) {
  double x = in32(a, ftz), y = in32(b, ftz);
  return out32(r32(ex_div(x, y), m), ftz, sat);
}
inline uint32_t sqrt32(uint32_t a, int m, bool ftz) {
  double x = in32(a, ftz);
  return out32(r32(ex_sqrt(x), m), ftz, false);
}

inline uint64_t out64(double v) { return std::isnan(v) ? kNaN64 : db(v); }
inline uint64_t add64(uint64_t a, uint64_t b, int m) {
  double x = bd(a), y = bd(b);
  Ex e = two_sum(x, y);
  e.r = zero_sum(e.r, x, y, m);
  double r = std::isfinite(x) && std::isfinite(y) ? f64_overflow(e.r, m) : e.r;
  if (std::isinf(e.r)) return out64(r);
  return out64(round_f64(e, m));
}
inline uint64_t mul64(uint64_t a, uint64_t b, int m) {
  double x = bd(a), y = bd(b);
  Ex e = ex_mul(x, y);
  if (std::isinf(e.r)) return out64(std::isfinite(x) && std::isfinite(y) ? f64_overflow(e.r, m) : e.r);
  return out64(round_f64(e, m));
}
inline uint64_t div64(uint64_t a, uint64_t b, int m) {
  double x = bd(a), y = bd(b);
  Ex e = ex_div(x, y);
  if (std::isinf(e.r)) return out64(std::isfinite(x) && y != 0 ? f64_overflow(e.r, m) : e.r);
  return out64(round_f64(e, m));
}
inline uint64_t sqrt64(uint64_t a, int m) {
  Ex e = ex_sqrt(bd(a));
  return out64(round_f64(e, m));
}

// min/max: a NaN operand is ignored; both NaN give the canonical NaN;
// -0.0 is less than +0.0.
template <class F>
inline F fmin_(F a, F b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <class F>
inline F fmax_(F a, F b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

template <class F>
inline bool fcmp(int op, F a, F b) {
  bool un = std::isnan(a) || std::isnan(b);
  switch (op) {
    case 0: return !un && a == b;   // eq
    case 1: return !un && a != b;   // ne
    case 2: return !un && a < b;    // lt
    case 3: return !un && a <= b;   // le
    case 4: return !un && a > b;    // gt
    case 5: return !un && a >= b;   // ge
    case 6: return un || a == b;    // equ
    case 7: return un || a != b;    // neu
    case 8: return un || a < b;     // ltu
    case 9: return un || a <= b;    // leu
    case 10: return un || a > b;    // gtu
    case 11: return un || a >= b;   // geu
    case 12: return !un;            // num
    default: return un;             // nan
  }
}

// Exact value of a 64-bit integer (r = nearest double, tail sign).
inline Ex ex_i64(int64_t v) {
  double r = static_cast<double>(v);
  __int128 diff = static_cast<__int128>(v) - static_cast<__int128>(r);
  return {r, diff > 0 ? 1 : (diff < 0 ? -1 : 0)};
}
inline Ex ex_u64(uint64_t v) {
  double r = static_cast<double>(v);
  __int128 diff = static_cast<__int128>(v) - static_cast<__int128>(r);
  return {r, diff > 0 ? 1 : (diff < 0 ? -1 : 0)};
}

// Rounds a float value to an integral value (mode: RN = nearest even,
// RZ trunc, RM floor, RP ceil).
inline double round_int(double x, int mode) {
  switch (mode) {
    case RZ: return std::trunc(x);
    case RM: return std::floor(x);
    case RP: return std::ceil(x);
    default: {
      double fl = std::floor(x);
      double fr = x - fl;
      if (fr > 0.5 || (fr == 0.5 && std::fmod(fl, 2.0) != 0)) return fl + 1;
      return fl;
    }
  }
}

// Float -> integer: round to integral, then clamp to [lo, hi]; NaN gives 0.
inline __int128 f2i(double x, int mode, __int128 lo, __int128 hi) {
  if (std::isnan(x)) return 0;
  double r = round_int(x, mode);
  if (r <= static_cast<double>(lo)) return lo;
  if (r >= static_cast<double>(hi)) return hi;
  return static_cast<__int128>(r);
}

inline double f16_val(uint16_t h) { return to_f64(f16{h}); }
inline double bf16_val(uint16_t h) { return to_f64(bf16{h}); }
inline uint16_t f16_bits(double v) {  // v already an f16 value or inf/NaN
  if (std::isnan(v)) return kNaN16;
  return f16_from_f64(v).bits;
}
inline uint16_t bf16_bits(double v) {
  if (std::isnan(v)) return kNaN16;
  return bf16_from_f64(v).bits;
}

}  // namespace d

// ===========================================================================
// Register <-> KD operand conversions (bits, two's complement).
// ===========================================================================
inline uint32_t in_f32(float v) { return d::fb(v); }
inline uint64_t in_f64(double v) { return d::db(v); }
inline uint16_t in_f16(f16 v) { return v.bits; }
inline uint16_t in_bf16(bf16 v) { return v.bits; }
inline uint16_t in_i8(int8_t v) { return static_cast<uint16_t>(static_cast<int16_t>(v)); }
inline uint16_t in_u8(uint8_t v) { return v; }
inline uint16_t in_i16(int16_t v) { return static_cast<uint16_t>(v); }
inline uint16_t in_u16(uint16_t v) { return v; }
inline uint32_t in_i32(int32_t v) { return static_cast<uint32_t>(v); }
inline uint32_t in_u32(uint32_t v) { return v; }
inline uint64_t in_i64(int64_t v) { return static_cast<uint64_t>(v); }
inline uint64_t in_u64(uint64_t v) { return v; }
inline float out_f32(uint32_t v) { return d::bf(v); }
inline double out_f64(uint64_t v) { return d::bd(v); }
inline f16 out_f16(uint16_t v) { return f16{v}; }
inline bf16 out_bf16(uint16_t v) { return bf16{v}; }
inline int8_t out_i8(uint16_t v) { return static_cast<int8_t>(v & 0xFFu); }
inline uint8_t out_u8(uint16_t v) { return static_cast<uint8_t>(v & 0xFFu); }
inline int16_t out_i16(uint16_t v) { return static_cast<int16_t>(v); }
inline uint16_t out_u16(uint16_t v) { return v; }
inline int32_t out_i32(uint32_t v) { return static_cast<int32_t>(v); }
inline uint32_t out_u32(uint32_t v) { return v; }
inline int64_t out_i64(uint64_t v) { return static_cast<int64_t>(v); }
inline uint64_t out_u64(uint64_t v) { return v; }

// ===========================================================================
// Integer arithmetic (wrap-around), per width W in {16, 32, 64}.
// ===========================================================================
#define KDT_PTX_INT(W, U, S, U2, S2)                                                          \
  inline U add_b##W(U a, U b) { return static_cast<U>(a + b); }                              \
  inline U sub_b##W(U a, U b) { return static_cast<U>(a - b); }                              \
  inline U mul_lo_b##W(U a, U b) { return static_cast<U>(static_cast<U2>(a) * b); }          \
  inline U mul_hi_u##W(U a, U b) {                                                           \
    return static_cast<U>((static_cast<U2>(a) * static_cast<U2>(b)) >> W);                   \
  }                                                                                          \
  inline U mul_hi_s##W(U a, U b) {                                                           \
    S2 p = static_cast<S2>(static_cast<S>(a)) * static_cast<S2>(static_cast<S>(b));         \
    return static_cast<U>(static_cast<U2>(p) >> W);                                          \
  }                                                                                          \
  inline U mad_lo_b##W(U a, U b, U c) { return static_cast<U>(mul_lo_b##W(a, b) + c); }     \
  /* mad.hi: d = t<2n-1..n> + c (the high half of a*b, plus c, wrapping) */                     \
  inline U mad_hi_u##W(U a, U b, U c) { return static_cast<U>(mul_hi_u##W(a, b) + c); }     \
  inline U mad_hi_s##W(U a, U b, U c) { return static_cast<U>(mul_hi_s##W(a, b) + c); }     \
  inline U div_u##W(U a, U b) { return b == 0 ? static_cast<U>(~U{0}) : static_cast<U>(a / b); } \
  inline U div_s##W(U a, U b) {                                                              \
    S x = static_cast<S>(a), y = static_cast<S>(b);                                          \
    if (y == 0) return static_cast<U>(~U{0});                                                \
    if (y == -1) return static_cast<U>(U{0} - a);                                            \
    return static_cast<U>(x / y);                                                            \
  }                                                                                          \
  inline U rem_u##W(U a, U b) { return b == 0 ? a : static_cast<U>(a % b); }                 \
  inline U rem_s##W(U a, U b) {                                                              \
    S x = static_cast<S>(a), y = static_cast<S>(b);                                          \
    if (y == 0) return a;                                                                    \
    if (y == -1) return 0;                                                                   \
    return static_cast<U>(x % y);                                                            \
  }                                                                                          \
  inline U neg_s##W(U a) { return static_cast<U>(U{0} - a); }                                \
  inline U abs_s##W(U a) { return static_cast<S>(a) < 0 ? static_cast<U>(U{0} - a) : a; }    \
  inline U min_u##W(U a, U b) { return a < b ? a : b; }                                      \
  inline U max_u##W(U a, U b) { return a > b ? a : b; }                                      \
  inline U min_s##W(U a, U b) { return static_cast<S>(a) < static_cast<S>(b) ? a : b; }     \
  inline U max_s##W(U a, U b) { return static_cast<S>(a) > static_cast<S>(b) ? a : b; }     \
  inline U and_b##W(U a, U b) { return static_cast<U>(a & b); }                              \
  inline U or_b##W(U a, U b) { return static_cast<U>(a | b); }                               \
  inline U xor_b##W(U a, U b) { return static_cast<U>(a ^ b); }                              \
  inline U not_b##W(U a) { return static_cast<U>(~a); }                                      \
  inline U cnot_b##W(U a) { return static_cast<U>(a == 0 ? 1 : 0); }                         \
  inline U shl_b##W(U a, uint32_t n) { return n >= W ? U{0} : static_cast<U>(a << n); }      \
  inline U shr_u##W(U a, uint32_t n) { return n >= W ? U{0} : static_cast<U>(a >> n); }      \
  inline U shr_s##W(U a, uint32_t n) {                                                       \
    S x = static_cast<S>(a);                                                                 \
    if (n >= W) return x < 0 ? static_cast<U>(~U{0}) : U{0};                                 \
    return static_cast<U>(static_cast<S>(x >> n));                                           \
  }                                                                                          \
  inline U selp_b##W(U a, U b, bool c) { return c ? a : b; }                                 \
  inline U mov_b##W(U a) { return a; }                                                       \
  inline bool setp_s##W(int op, U a, U b) {                                                  \
    S x = static_cast<S>(a), y = static_cast<S>(b);                                          \
    switch (op) {                                                                            \
      case 0: return x == y;                                                                 \
      case 1: return x != y;                                                                 \
      case 2: return x < y;                                                                  \
      case 3: return x <= y;                                                                 \
      case 4: return x > y;                                                                  \
      default: return x >= y;                                                                \
    }                                                                                        \
  }                                                                                          \
  inline bool setp_u##W(int op, U a, U b) {                                                  \
    switch (op) {                                                                            \
      case 0: return a == b;                                                                 \
      case 1: return a != b;                                                                 \
      case 2: return a < b;                                                                  \
      case 3: return a <= b;                                                                 \
      case 4: return a > b;                                                                  \
      default: return a >= b;                                                                \
    }                                                                                        \
  }

KDT_PTX_INT(16, uint16_t, int16_t, uint32_t, int32_t)
KDT_PTX_INT(32, uint32_t, int32_t, uint64_t, int64_t)
KDT_PTX_INT(64, uint64_t, int64_t, unsigned __int128, __int128)
#undef KDT_PTX_INT

// .wide: 16 -> 32 and 32 -> 64 bits.
inline uint32_t mul_wide_u16(uint16_t a, uint16_t b) { return static_cast<uint32_t>(a) * b; }
inline uint32_t mul_wide_s16(uint16_t a, uint16_t b) {
  return static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(a)) * static_cast<int16_t>(b));
}
inline uint64_t mul_wide_u32(uint32_t a, uint32_t b) { return static_cast<uint64_t>(a) * b; }
inline uint64_t mul_wide_s32(uint32_t a, uint32_t b) {
  return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(a)) * static_cast<int32_t>(b));
}
inline uint32_t mad_wide_u16(uint16_t a, uint16_t b, uint32_t c) { return mul_wide_u16(a, b) + c; }
inline uint32_t mad_wide_s16(uint16_t a, uint16_t b, uint32_t c) { return mul_wide_s16(a, b) + c; }
inline uint64_t mad_wide_u32(uint32_t a, uint32_t b, uint64_t c) { return mul_wide_u32(a, b) + c; }
inline uint64_t mad_wide_s32(uint32_t a, uint32_t b, uint64_t c) { return mul_wide_s32(a, b) + c; }

// Saturating .s32 add/sub: clamp to [INT32_MIN, INT32_MAX].
inline uint32_t sat_s32(int64_t v) {
  if (v > INT32_MAX) v = INT32_MAX;
  if (v < INT32_MIN) v = INT32_MIN;
  return static_cast<uint32_t>(static_cast<int32_t>(v));
}
inline uint32_t add_sat_s32(uint32_t a, uint32_t b) {
  return sat_s32(static_cast<int64_t>(static_cast<int32_t>(a)) + static_cast<int32_t>(b));
}
inline uint32_t sub_sat_s32(uint32_t a, uint32_t b) {
  return sat_s32(static_cast<int64_t>(static_cast<int32_t>(a)) - static_cast<int32_t>(b));
}

// Predicates.
inline bool and_pred(bool a, bool b) { return a && b; }
inline bool or_pred(bool a, bool b) { return a || b; }
inline bool xor_pred(bool a, bool b) { return a != b; }
inline bool not_pred(bool a) { return !a; }
inline bool mov_pred(bool a) { return a; }
inline bool selp_pred(bool a, bool b, bool c) { return c ? a : b; }

// lop3.b32: bit i of d is immLut[(a_i << 2) | (b_i << 1) | c_i].
inline uint32_t lop3_b32(uint32_t a, uint32_t b, uint32_t c, uint32_t lut) {
  uint32_t r = 0;
  for (int k = 0; k < 8; ++k) {
    if (!((lut >> k) & 1u)) continue;
    uint32_t ma = (k & 4) ? a : ~a, mb = (k & 2) ? b : ~b, mc = (k & 1) ? c : ~c;
    r |= ma & mb & mc;
  }
  return r;
}

inline uint32_t popc_b32(uint32_t a) { uint32_t n = 0; for (; a; a &= a - 1) ++n; return n; }
inline uint32_t popc_b64(uint64_t a) { uint32_t n = 0; for (; a; a &= a - 1) ++n; return n; }
inline uint32_t clz_b32(uint32_t a) { uint32_t n = 0; for (int i = 31; i >= 0 && !((a >> i) & 1u); --i) ++n; return n; }
inline uint32_t clz_b64(uint64_t a) { uint32_t n = 0; for (int i = 63; i >= 0 && !((a >> i) & 1u); --i) ++n; return n; }
inline uint32_t brev_b32(uint32_t a) { uint32_t r = 0; for (int i = 0; i < 32; ++i) r |= ((a >> i) & 1u) << (31 - i); return r; }
inline uint64_t brev_b64(uint64_t a) { uint64_t r = 0; for (int i = 0; i < 64; ++i) r |= ((a >> i) & 1u) << (63 - i); return r; }

// bfe: pos = b & 0xff, len = c & 0xff; sign-extended from the field's top bit
// (or from bit W-1 when the field runs past it) for .s types.
template <class U, int W, bool S>
inline U bfe_(U a, uint32_t b, uint32_t c) {
  uint32_t pos = b & 0xFFu, len = c & 0xFFu;
  bool sbit;
  if (!S || len == 0) sbit = false;
  else sbit = ((a >> (pos + len - 1 < W - 1 ? pos + len - 1 : W - 1)) & 1u) != 0;
  U r = 0;
  for (uint32_t i = 0; i < W; ++i) {
    bool bit;
    if (i < len && pos + i <= W - 1) bit = ((a >> (pos + i)) & 1u) != 0;
    else bit = sbit;
    if (bit) r |= static_cast<U>(U{1} << i);
  }
  return r;
}
inline uint32_t bfe_u32(uint32_t a, uint32_t b, uint32_t c) { return bfe_<uint32_t, 32, false>(a, b, c); }
inline uint32_t bfe_s32(uint32_t a, uint32_t b, uint32_t c) { return bfe_<uint32_t, 32, true>(a, b, c); }
inline uint64_t bfe_u64(uint64_t a, uint32_t b, uint32_t c) { return bfe_<uint64_t, 64, false>(a, b, c); }
inline uint64_t bfe_s64(uint64_t a, uint32_t b, uint32_t c) { return bfe_<uint64_t, 64, true>(a, b, c); }

// bfi: insert the low len bits of a into b at pos (pos = c & 0xff, len = d & 0xff).
template <class U, int W>
inline U bfi_(U a, U b, uint32_t c, uint32_t dd) {
  uint32_t pos = c & 0xFFu, len = dd & 0xFFu;
  U f = b;
  for (uint32_t i = 0; i < len && pos + i < W; ++i) {
    U bit = static_cast<U>(U{1} << (pos + i));
    f = ((a >> i) & 1u) ? static_cast<U>(f | bit) : static_cast<U>(f & ~bit);
  }
  return f;
}
inline uint32_t bfi_b32(uint32_t a, uint32_t b, uint32_t c, uint32_t dd) { return bfi_<uint32_t, 32>(a, b, c, dd); }
inline uint64_t bfi_b64(uint64_t a, uint64_t b, uint32_t c, uint32_t dd) { return bfi_<uint64_t, 64>(a, b, c, dd); }

// prmt.b32 (default mode): byte i of d is selected by nibble i of c from the
// eight bytes {b, a}; bit 3 of the nibble replicates the byte's sign bit.
inline uint32_t prmt_b32(uint32_t a, uint32_t b, uint32_t c) {
  uint64_t src = (static_cast<uint64_t>(b) << 32) | a;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t sel = (c >> (4 * i)) & 0xFu;
    uint32_t byte = static_cast<uint32_t>((src >> (8 * (sel & 7u))) & 0xFFu);
    if (sel & 8u) byte = (byte & 0x80u) ? 0xFFu : 0u;
    r |= byte << (8 * i);
  }
  return r;
}

// ===========================================================================
// Floating point. Names: OP_MODE[_ftz][_sat]_f32, OP_MODE_f64.
// ===========================================================================
#define KDT_PTX_F32_BIN(OP, MODE, M)                                                                   \
  inline uint32_t OP##_##MODE##_f32(uint32_t a, uint32_t b) { return d::OP##32(a, b, M, false, false); } \
  inline uint32_t OP##_##MODE##_ftz_f32(uint32_t a, uint32_t b) { return d::OP##32(a, b, M, true, false); } \
  inline uint32_t OP##_##MODE##_sat_f32(uint32_t a, uint32_t b) { return d::OP##32(a, b, M, false, true); } \
  inline uint32_t OP##_##MODE##_ftz_sat_f32(uint32_t a, uint32_t b) { return d::OP##32(a, b, M, true, true); }
#define KDT_PTX_F32_FMA(MODE, M)                                                                         \
  inline uint32_t fma_##MODE##_f32(uint32_t a, uint32_t b, uint32_t c) { return d::fma32(a, b, c, M, false, false); } \
  inline uint32_t fma_##MODE##_ftz_f32(uint32_t a, uint32_t b, uint32_t c) { return d::fma32(a, b, c, M, true, false); } \
  inline uint32_t fma_##MODE##_sat_f32(uint32_t a, uint32_t b, uint32_t c) { return d::fma32(a, b, c, M, false, true); } \
  inline uint32_t fma_##MODE##_ftz_sat_f32(uint32_t a, uint32_t b, uint32_t c) { return d::fma32(a, b, c, M, true, true); }
#define KDT_PTX_F_MODE(MODE, M)                                                                 \
  KDT_PTX_F32_BIN(add, MODE, M)                                                                 \
  KDT_PTX_F32_BIN(sub, MODE, M)                                                                 \
  KDT_PTX_F32_BIN(mul, MODE, M)                                                                 \
  KDT_PTX_F32_BIN(div, MODE, M)                                                                 \
  KDT_PTX_F32_FMA(MODE, M)                                                                      \
  inline uint32_t sqrt_##MODE##_f32(uint32_t a) { return d::sqrt32(a, M, false); }              \
  inline uint32_t sqrt_##MODE##_ftz_f32(uint32_t a) { return d::sqrt32(a, M, true); }           \
  inline uint32_t rcp_##MODE##_f32(uint32_t a) { return d::div32(0x3F800000u, a, M, false, false); } \
  inline uint32_t rcp_##MODE##_ftz_f32(uint32_t a) { return d::div32(0x3F800000u, a, M, true, false); } \
  inline uint64_t add_##MODE##_f64(uint64_t a, uint64_t b) { return d::add64(a, b, M); }        \
  inline uint64_t sub_##MODE##_f64(uint64_t a, uint64_t b) { return d::add64(a, b ^ (uint64_t{1} << 63), M); } \
  inline uint64_t mul_##MODE##_f64(uint64_t a, uint64_t b) { return d::mul64(a, b, M); }        \
  inline uint64_t div_##MODE##_f64(uint64_t a, uint64_t b) { return d::div64(a, b, M); }        \
  inline uint64_t sqrt_##MODE##_f64(uint64_t a) { return d::sqrt64(a, M); }                     \
  inline uint64_t rcp_##MODE##_f64(uint64_t a) { return d::div64(0x3FF0000000000000ull, a, M); }

KDT_PTX_F_MODE(rn, RN)
KDT_PTX_F_MODE(rz, RZ)
KDT_PTX_F_MODE(rm, RM)
KDT_PTX_F_MODE(rp, RP)
#undef KDT_PTX_F_MODE
#undef KDT_PTX_F32_FMA
#undef KDT_PTX_F32_BIN

// fma.rn.f64: the host fma is correctly rounded to nearest.
inline uint64_t fma_rn_f64(uint64_t a, uint64_t b, uint64_t c) {
  return d::out64(std::fma(d::bd(a), d::bd(b), d::bd(c)));
}

// neg/abs flip/clear the sign bit (NaN included); min/max as in d::fmin_.
inline uint32_t neg_f32(uint32_t a) { return a ^ 0x80000000u; }
inline uint32_t neg_ftz_f32(uint32_t a) { return d::fb(d::ftz32(d::bf(a))) ^ 0x80000000u; }
inline uint64_t neg_f64(uint64_t a) { return a ^ (uint64_t{1} << 63); }
inline uint32_t abs_f32(uint32_t a) { return a & 0x7FFFFFFFu; }
inline uint32_t abs_ftz_f32(uint32_t a) { return d::fb(d::ftz32(d::bf(a))) & 0x7FFFFFFFu; }
inline uint64_t abs_f64(uint64_t a) { return a & ~(uint64_t{1} << 63); }
inline uint32_t min_f32(uint32_t a, uint32_t b) {
  float r = d::fmin_(d::bf(a), d::bf(b));
  return std::isnan(r) ? d::kNaN32 : d::fb(r);
}
inline uint32_t max_f32(uint32_t a, uint32_t b) {
  float r = d::fmax_(d::bf(a), d::bf(b));
  return std::isnan(r) ? d::kNaN32 : d::fb(r);
}
inline uint32_t min_ftz_f32(uint32_t a, uint32_t b) { return min_f32(d::fb(d::ftz32(d::bf(a))), d::fb(d::ftz32(d::bf(b)))); }
inline uint32_t max_ftz_f32(uint32_t a, uint32_t b) { return max_f32(d::fb(d::ftz32(d::bf(a))), d::fb(d::ftz32(d::bf(b)))); }
inline uint64_t min_f64(uint64_t a, uint64_t b) {
  double r = d::fmin_(d::bd(a), d::bd(b));
  return std::isnan(r) ? d::kNaN64 : d::db(r);
}
inline uint64_t max_f64(uint64_t a, uint64_t b) {
  double r = d::fmax_(d::bd(a), d::bd(b));
  return std::isnan(r) ? d::kNaN64 : d::db(r);
}
// copysign d, a, b: b with the sign of a.
inline uint32_t copysign_f32(uint32_t a, uint32_t b) { return (b & 0x7FFFFFFFu) | (a & 0x80000000u); }
inline uint64_t copysign_f64(uint64_t a, uint64_t b) {
  const uint64_t s = uint64_t{1} << 63;
  return (b & ~s) | (a & s);
}

// setp on floats: op codes eq ne lt le gt ge equ neu ltu leu gtu geu num nan = 0..13.
inline bool setp_f32(int op, uint32_t a, uint32_t b) { return d::fcmp(op, d::bf(a), d::bf(b)); }
inline bool setp_ftz_f32(int op, uint32_t a, uint32_t b) { return d::fcmp(op, d::ftz32(d::bf(a)), d::ftz32(d::bf(b))); }
inline bool setp_f64(int op, uint64_t a, uint64_t b) { return d::fcmp(op, d::bd(a), d::bd(b)); }

// testp: op codes finite infinite number notanumber normal subnormal = 0..5.
template <class F>
inline bool testp_(int op, F x) {
  switch (op) {
    case 0: return std::isfinite(x);
    case 1: return std::isinf(x);
    case 2: return !std::isnan(x);
    case 3: return std::isnan(x);
    case 4: return std::isnormal(x);
    default: return std::fpclassify(x) == FP_SUBNORMAL;
  }
}
inline bool testp_f32(int op, uint32_t a) { return testp_(op, d::bf(a)); }
inline bool testp_f64(int op, uint64_t a) { return testp_(op, d::bd(a)); }

// ===========================================================================
// cvt. Every source is read as an exact value, then rounded to the
// destination. Float -> integer always saturates (NaN -> 0); integer ->
// integer wraps (sign/zero extends) unless .sat; NaN results are canonical.
// Type codes: 0 s8 1 u8 2 s16 3 u16 4 s32 5 u32 6 s64 7 u64 8 f16 9 bf16 10 f32 11 f64.
// Modes: 0..3 = .rn .rz .rm .rp (floats) and 4..7 = .rni .rzi .rmi .rpi.
// ===========================================================================
namespace d {
inline bool is_int_t(int t) { return t <= 7; }
inline bool is_signed_t(int t) { return t <= 7 && (t % 2) == 0; }
inline int bits_t(int t) {
  static const int b[] = {8, 8, 16, 16, 32, 32, 64, 64, 16, 16, 32, 64};
  return b[t];
}
inline __int128 int_lo(int t) { return is_signed_t(t) ? -(static_cast<__int128>(1) << (bits_t(t) - 1)) : 0; }
inline __int128 int_hi(int t) {
  return is_signed_t(t) ? (static_cast<__int128>(1) << (bits_t(t) - 1)) - 1 : (static_cast<__int128>(1) << bits_t(t)) - 1;
}
// The integer held by a register of source type t.
inline __int128 int_of(int t, uint64_t v) {
  int w = bits_t(t);
  uint64_t m = w == 64 ? ~uint64_t{0} : ((uint64_t{1} << w) - 1);
  uint64_t u = v & m;
  if (is_signed_t(t) && w < 64 && ((u >> (w - 1)) & 1u)) return static_cast<__int128>(u) - (static_cast<__int128>(1) << w);
  if (is_signed_t(t) && w == 64) return static_cast<int64_t>(u);
  return u;
}
inline double float_of(int t, uint64_t v, bool ftz) {
  switch (t) {
    case 8: return f16_val(static_cast<uint16_t>(v));
    case 9: return bf16_val(static_cast<uint16_t>(v));
    case 10: return ftz ? ftz32(bf(static_cast<uint32_t>(v))) : bf(static_cast<uint32_t>(v));
    default: return bd(v);
  }
}
// Register bits of integer `x` in a destination of type t (the register
// width: 16 for 8-bit types; 8-bit results are sign/zero extended).
inline uint64_t int_bits(int t, __int128 x) {
  int w = bits_t(t);
  uint64_t m = w == 64 ? ~uint64_t{0} : ((uint64_t{1} << w) - 1);
  uint64_t u = static_cast<uint64_t>(x) & m;
  if (w == 8 && is_signed_t(t) && (u & 0x80u)) u |= 0xFF00u;
  return u;
}

inline uint64_t cvt(int dt, int st, int mode, bool ftz, bool sat, uint64_t v) {
  if (is_int_t(st)) {
    __int128 x = int_of(st, v);
    if (is_int_t(dt)) {
      if (sat) {
        if (x < int_lo(dt)) x = int_lo(dt);
        if (x > int_hi(dt)) x = int_hi(dt);
      }
      return int_bits(dt, x);
    }
    Ex e = is_signed_t(st) ? ex_i64(static_cast<int64_t>(x)) : ex_u64(static_cast<uint64_t>(x));
    int m = mode & 3;
    double r = dt == 8 ? r16(e, m) : dt == 9 ? rbf(e, m) : dt == 10 ? r32(e, m) : round_f64(e, m);
    if (sat) r = r < 0 ? 0.0 : (r > 1 ? 1.0 : r);
    switch (dt) {
      case 8: return f16_bits(r);
      case 9: return bf16_bits(r);
      case 10: return out32(r, ftz, false);
      default: return db(r);
    }
  }
  double x = float_of(st, v, ftz);
  if (is_int_t(dt)) return int_bits(dt, f2i(x, mode & 3, int_lo(dt), int_hi(dt)));
  Ex e{x, 0};
  if (mode >= 4) {  // round to an integral value in the same format
    e.r = std::isnan(x) ? x : round_int(x, mode & 3);
    if (e.r == 0) e.r = std::copysign(0.0, x);
  }
  int m = mode & 3;
  double r;
  switch (dt) {
    case 8: r = r16(e, m); break;
    case 9: r = rbf(e, m); break;
    case 10: r = r32(e, m); break;
    default: r = e.r; break;
  }
  if (sat) r = std::isnan(r) ? 0.0 : (r < 0 ? 0.0 : (r > 1 ? 1.0 : (r == 0 ? 0.0 : r)));
  switch (dt) {
    case 8: return f16_bits(r);
    case 9: return bf16_bits(r);
    case 10: return out32(r, ftz, false);
    default: return out64(r);
  }
}
}  // namespace d

// cvt_D_S(mode, ftz, sat, src): typed wrappers generated per register width.
inline uint16_t cvt16(int dt, int st, int mode, bool ftz, bool sat, uint64_t v) {
  return static_cast<uint16_t>(d::cvt(dt, st, mode, ftz, sat, v));
}
inline uint32_t cvt32(int dt, int st, int mode, bool ftz, bool sat, uint64_t v) {
  return static_cast<uint32_t>(d::cvt(dt, st, mode, ftz, sat, v));
}
inline uint64_t cvt64(int dt, int st, int mode, bool ftz, bool sat, uint64_t v) {
  return d::cvt(dt, st, mode, ftz, sat, v);
}

}  // namespace ptx
}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_PTX_H
