// PTX translation (docs/ptx.md): the kdt_ptx.h emulations against values
// derived by hand from the PTX ISA and IEEE 754 definitions, the template
// reader, and end to end through `kdt run`.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "../../src/discharge/ptx_reader.h"
#include "kdt/runtime/kdt_ptx.h"
#include "test_support.h"

using namespace kdt_rt::ptx;

namespace {
uint32_t F(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
uint64_t D(double f) { uint64_t u; std::memcpy(&u, &f, 8); return u; }
constexpr uint32_t ONE = 0x3F800000u, MAXF = 0x7F7FFFFFu, INF = 0x7F800000u, NINF = 0xFF800000u, QNAN = 0x7FC00000u,
                   CNAN = 0x7FFFFFFFu, NEG_ZERO = 0x80000000u, MINSUB = 0x00000001u, MINNORM = 0x00800000u;
constexpr uint64_t D1 = 0x3FF0000000000000ull, DMAX = 0x7FEFFFFFFFFFFFFFull, DINF = 0x7FF0000000000000ull,
                   DMINSUB = 1ull, DNAN = 0x7FFFFFFFFFFFFFFFull;
}  // namespace

TEST_SUITE("ptx") {

TEST_CASE("f32 add: every rounding mode on halfway and near-halfway sums") {
  const uint32_t half_ulp = 0x33800000u;       // 2^-24: half an ulp of 1.0
  const uint32_t above_half = 0x33800001u;     // 2^-24 (1 + 2^-23)
  // Ties go to even: 1 + 2^-24 -> 1; (1 + 2^-23) + 2^-24 -> 1 + 2^-22.
  CHECK(add_rn_f32(ONE, half_ulp) == ONE);
  CHECK(add_rn_f32(ONE + 1, half_ulp) == ONE + 2);
  CHECK(add_rn_f32(ONE, above_half) == ONE + 1);
  CHECK(add_rz_f32(ONE, above_half) == ONE);
  CHECK(add_rm_f32(ONE, above_half) == ONE);
  CHECK(add_rp_f32(ONE, above_half) == ONE + 1);
  CHECK(add_rp_f32(ONE, MINSUB) == ONE + 1);  // the smallest tail still rounds up
  CHECK(add_rm_f32(ONE | NEG_ZERO, MINSUB | NEG_ZERO) == ((ONE + 1) | NEG_ZERO));
  CHECK(add_rz_f32(ONE | NEG_ZERO, MINSUB | NEG_ZERO) == (ONE | NEG_ZERO));
  CHECK(add_rp_f32(ONE | NEG_ZERO, MINSUB | NEG_ZERO) == (ONE | NEG_ZERO));
  CHECK(add_rm_f32(ONE, MINSUB | NEG_ZERO) == 0x3F7FFFFFu);  // just below 1
  CHECK(add_rz_f32(ONE, MINSUB | NEG_ZERO) == 0x3F7FFFFFu);
  CHECK(add_rn_f32(ONE, MINSUB | NEG_ZERO) == ONE);
  // Exact zero: -0 only under .rm.
  CHECK(add_rn_f32(ONE, ONE | NEG_ZERO) == 0u);
  CHECK(add_rm_f32(ONE, ONE | NEG_ZERO) == NEG_ZERO);
  CHECK(add_rp_f32(NEG_ZERO, NEG_ZERO) == NEG_ZERO);
  CHECK(add_rn_f32(NEG_ZERO, 0u) == 0u);
  CHECK(sub_rm_f32(ONE, ONE) == NEG_ZERO);
  CHECK(sub_rn_f32(ONE, ONE) == 0u);
}

TEST_CASE("f32 add: overflow, infinities, NaN, subnormals") {
  CHECK(add_rn_f32(MAXF, MAXF) == INF);
  CHECK(add_rz_f32(MAXF, MAXF) == MAXF);
  CHECK(add_rm_f32(MAXF, MAXF) == MAXF);
  CHECK(add_rp_f32(MAXF, MAXF) == INF);
  CHECK(add_rm_f32(MAXF | NEG_ZERO, MAXF | NEG_ZERO) == NINF);
  CHECK(add_rp_f32(MAXF | NEG_ZERO, MAXF | NEG_ZERO) == (MAXF | NEG_ZERO));
  // MAX + half an ulp (2^103) is a tie whose even neighbour is 2^128: infinity.
  CHECK(add_rn_f32(MAXF, 0x73000000u) == INF);
  CHECK(add_rz_f32(MAXF, 0x73000000u) == MAXF);
  CHECK(add_rn_f32(MAXF, 0x72FFFFFFu) == MAXF);
  CHECK(add_rn_f32(INF, NINF) == CNAN);
  CHECK(add_rn_f32(QNAN, ONE) == CNAN);
  CHECK(add_rz_f32(INF, ONE) == INF);
  CHECK(add_rn_f32(MINSUB, MINSUB) == 2u);
  CHECK(add_rn_f32(0x00400000u, 0x00400000u) == MINNORM);
  // .ftz flushes subnormal inputs and results (sign kept).
  CHECK(add_rn_ftz_f32(0x00400000u, 0x00400000u) == 0u);
  CHECK(add_rn_ftz_f32(ONE, MINSUB) == ONE);
  CHECK(add_rp_ftz_f32(ONE, MINSUB) == ONE);
  CHECK(add_rn_ftz_f32(MINNORM, 0x80000001u) == MINNORM);
  CHECK(sub_rn_ftz_f32(0x00800001u, MINNORM) == 0u);
  CHECK(sub_rn_f32(0x00800001u, MINNORM) == MINSUB);
  CHECK(sub_rn_ftz_f32(MINNORM, 0x00800001u) == NEG_ZERO);
}

TEST_CASE("f32 .sat clamps to [0, 1], NaN to +0") {
  CHECK(add_rn_sat_f32(F(0.75f), F(0.5f)) == ONE);
  CHECK(add_rn_sat_f32(F(-1.0f), F(0.5f)) == 0u);
  CHECK(add_rn_sat_f32(QNAN, ONE) == 0u);
  CHECK(add_rn_sat_f32(NEG_ZERO, NEG_ZERO) == 0u);
  CHECK(add_rn_sat_f32(F(0.25f), F(0.5f)) == F(0.75f));
  CHECK(mul_rn_sat_f32(INF, ONE) == ONE);
  CHECK(mul_rz_ftz_sat_f32(F(-2.0f), F(3.0f)) == 0u);
  CHECK(fma_rn_sat_f32(F(2.0f), F(0.25f), F(0.5f)) == ONE);
}

TEST_CASE("f32 mul, div, fma, sqrt, rcp under each rounding mode") {
  // (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46.
  CHECK(mul_rn_f32(ONE + 1, ONE + 1) == ONE + 2);
  CHECK(mul_rz_f32(ONE + 1, ONE + 1) == ONE + 2);
  CHECK(mul_rm_f32(ONE + 1, ONE + 1) == ONE + 2);
  CHECK(mul_rp_f32(ONE + 1, ONE + 1) == ONE + 3);
  // Underflow: 2^-149 * 0.5 = 2^-150, a tie between 0 and 2^-149.
  CHECK(mul_rn_f32(MINSUB, F(0.5f)) == 0u);
  CHECK(mul_rp_f32(MINSUB, F(0.5f)) == MINSUB);
  CHECK(mul_rz_f32(MINSUB, F(0.5f)) == 0u);
  CHECK(mul_rm_f32(MINSUB | NEG_ZERO, F(0.5f)) == (MINSUB | NEG_ZERO));
  CHECK(mul_rn_f32(MINSUB | NEG_ZERO, F(0.5f)) == NEG_ZERO);
  CHECK(mul_rn_f32(MINNORM, F(0.5f)) == 0x00400000u);
  CHECK(mul_rn_ftz_f32(MINNORM, F(0.5f)) == 0u);
  CHECK(mul_rn_f32(INF, 0u) == CNAN);
  CHECK(mul_rz_f32(MAXF, F(2.0f)) == MAXF);
  CHECK(mul_rn_f32(MAXF, F(2.0f)) == INF);
  // 1/3 = 0x3EAAAAAA.AAA...: nearest rounds up.
  CHECK(div_rn_f32(ONE, F(3.0f)) == 0x3EAAAAABu);
  CHECK(div_rz_f32(ONE, F(3.0f)) == 0x3EAAAAAAu);
  CHECK(div_rm_f32(ONE, F(3.0f)) == 0x3EAAAAAAu);
  CHECK(div_rp_f32(ONE, F(3.0f)) == 0x3EAAAAABu);
  CHECK(div_rm_f32(ONE | NEG_ZERO, F(3.0f)) == 0xBEAAAAABu);
  CHECK(div_rz_f32(ONE | NEG_ZERO, F(3.0f)) == 0xBEAAAAAAu);
  CHECK(div_rn_f32(F(6.0f), F(3.0f)) == F(2.0f));
  CHECK(div_rp_f32(F(6.0f), F(3.0f)) == F(2.0f));
  CHECK(div_rn_f32(ONE, 0u) == INF);
  CHECK(div_rn_f32(ONE, NEG_ZERO) == NINF);
  CHECK(div_rn_f32(0u, 0u) == CNAN);
  CHECK(div_rn_f32(INF, INF) == CNAN);
  CHECK(rcp_rn_f32(F(3.0f)) == 0x3EAAAAABu);
  CHECK(rcp_rz_f32(F(3.0f)) == 0x3EAAAAAAu);
  // fma rounds once: (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly, while
  // mul.rn then add.rn loses the 2^-24 (the product is a tie to even).
  const uint32_t a = 0x3F800800u;
  CHECK(fma_rn_f32(a, a, ONE | NEG_ZERO) == 0x3A000400u);
  CHECK(add_rn_f32(mul_rn_f32(a, a), ONE | NEG_ZERO) == 0x3A000000u);
  CHECK(fma_rz_f32(a, a, 0u) == 0x3F801000u);
  CHECK(fma_rp_f32(a, a, 0u) == 0x3F801001u);
  CHECK(fma_rm_f32(a, a, 0u) == 0x3F801000u);
  CHECK(fma_rn_f32(a, a, 0u) == 0x3F801000u);  // tie: even
  CHECK(fma_rm_f32(ONE, ONE, ONE | NEG_ZERO) == NEG_ZERO);
  CHECK(fma_rn_f32(INF, 0u, ONE) == CNAN);
  CHECK(fma_rn_f32(ONE, ONE, QNAN) == CNAN);
  // sqrt(2) = 1.41421356...: 0x3FB504F3 is below it, 0x3FB504F4 above, nearer the first.
  CHECK(sqrt_rn_f32(F(2.0f)) == 0x3FB504F3u);
  CHECK(sqrt_rz_f32(F(2.0f)) == 0x3FB504F3u);
  CHECK(sqrt_rp_f32(F(2.0f)) == 0x3FB504F4u);
  CHECK(sqrt_rn_f32(F(4.0f)) == F(2.0f));
  CHECK(sqrt_rp_f32(F(4.0f)) == F(2.0f));
  CHECK(sqrt_rn_f32(F(-1.0f)) == CNAN);
  CHECK(sqrt_rn_f32(NEG_ZERO) == NEG_ZERO);
  CHECK(sqrt_rn_f32(INF) == INF);
}

TEST_CASE("f64 add, mul, div, sqrt, fma.rn with directed rounding") {
  const uint64_t tiny = D(0x1p-60);
  CHECK(add_rn_f64(D1, tiny) == D1);
  CHECK(add_rz_f64(D1, tiny) == D1);
  CHECK(add_rm_f64(D1, tiny) == D1);
  CHECK(add_rp_f64(D1, tiny) == D1 + 1);
  CHECK(add_rm_f64(D(-1.0), D(-0x1p-60)) == D(-1.0) + 1);
  CHECK(add_rz_f64(D(-1.0), D(-0x1p-60)) == D(-1.0));
  CHECK(add_rz_f64(D1, D(-0x1p-60)) == D1 - 1);
  CHECK(add_rn_f64(D1, D(0x1p-53)) == D1);  // tie to even
  CHECK(add_rn_f64(D1 + 1, D(0x1p-53)) == D1 + 2);
  CHECK(add_rz_f64(DMAX, DMAX) == DMAX);
  CHECK(add_rn_f64(DMAX, DMAX) == DINF);
  CHECK(add_rp_f64(DMAX, DMINSUB) == DINF);
  CHECK(add_rn_f64(DMAX, DMINSUB) == DMAX);
  CHECK(add_rm_f64(D1, D(-1.0)) == D(-0.0));
  CHECK(add_rn_f64(DINF, D(-INFINITY)) == DNAN);
  // (1 + 2^-52)^2 = 1 + 2^-51 + 2^-104.
  CHECK(mul_rn_f64(D1 + 1, D1 + 1) == D1 + 2);
  CHECK(mul_rp_f64(D1 + 1, D1 + 1) == D1 + 3);
  CHECK(mul_rz_f64(D1 + 1, D1 + 1) == D1 + 2);
  CHECK(mul_rn_f64(DMINSUB, D(0.5)) == 0u);
  CHECK(mul_rp_f64(DMINSUB, D(0.5)) == DMINSUB);
  CHECK(mul_rm_f64(DMINSUB | (1ull << 63), D(0.5)) == (DMINSUB | (1ull << 63)));
  CHECK(mul_rp_f64(D(0x1p-1000), D(0x1p-60)) == D(0x1p-1060));  // exact subnormal
  CHECK(mul_rz_f64(DMAX, D(2.0)) == DMAX);
  CHECK(div_rn_f64(D1, D(3.0)) == 0x3FD5555555555555ull);
  CHECK(div_rz_f64(D1, D(3.0)) == 0x3FD5555555555555ull);
  CHECK(div_rp_f64(D1, D(3.0)) == 0x3FD5555555555556ull);
  CHECK(div_rm_f64(D(-1.0), D(3.0)) == 0xBFD5555555555556ull);
  CHECK(div_rp_f64(DMINSUB, D(4.0)) == DMINSUB);
  CHECK(div_rz_f64(DMINSUB, D(4.0)) == 0u);
  CHECK(div_rn_f64(D1, 0u) == DINF);
  CHECK(sqrt_rn_f64(D(4.0)) == D(2.0));
  CHECK(sqrt_rz_f64(D(2.0)) == 0x3FF6A09E667F3BCCull);
  CHECK(sqrt_rp_f64(D(2.0)) == 0x3FF6A09E667F3BCDull);
  CHECK(fma_rn_f64(D1 + 1, D1 + 1, D(-1.0)) == D(0x1p-51 + 0x1p-104));
}

TEST_CASE("f32/f64 neg abs min max copysign testp setp") {
  CHECK(neg_f32(QNAN) == 0xFFC00000u);
  CHECK(neg_f32(0u) == NEG_ZERO);
  CHECK(abs_f32(NEG_ZERO) == 0u);
  CHECK(abs_f32(0xFFC00000u) == QNAN);
  CHECK(neg_ftz_f32(MINSUB) == NEG_ZERO);
  CHECK(abs_ftz_f32(0x80000005u) == 0u);
  CHECK(neg_f64(D1) == D(-1.0));
  CHECK(abs_f64(D(-2.0)) == D(2.0));
  CHECK(min_f32(QNAN, ONE) == ONE);
  CHECK(max_f32(ONE, QNAN) == ONE);
  CHECK(min_f32(QNAN, QNAN) == CNAN);
  CHECK(min_f32(NEG_ZERO, 0u) == NEG_ZERO);
  CHECK(min_f32(0u, NEG_ZERO) == NEG_ZERO);
  CHECK(max_f32(NEG_ZERO, 0u) == 0u);
  CHECK(min_f32(NINF, ONE) == NINF);
  CHECK(max_f32(MINSUB, 0u) == MINSUB);
  CHECK(max_ftz_f32(MINSUB, 0u) == 0u);
  CHECK(min_f64(DNAN, D1) == D1);
  CHECK(max_f64(D(-3.0), D(2.0)) == D(2.0));
  CHECK(copysign_f32(F(-1.0f), F(2.0f)) == F(-2.0f));
  CHECK(copysign_f32(0u, 0xFFC00000u) == QNAN);
  CHECK(copysign_f64(D(-0.0), D(5.0)) == D(-5.0));
  // testp: finite infinite number notanumber normal subnormal.
  CHECK(testp_f32(0, MINSUB));
  CHECK(testp_f32(5, MINSUB));
  CHECK_FALSE(testp_f32(4, MINSUB));
  CHECK(testp_f32(4, MINNORM));
  CHECK_FALSE(testp_f32(5, 0u));
  CHECK_FALSE(testp_f32(4, 0u));
  CHECK(testp_f32(1, NINF));
  CHECK_FALSE(testp_f32(0, INF));
  CHECK(testp_f32(3, QNAN));
  CHECK_FALSE(testp_f32(2, QNAN));
  CHECK(testp_f64(5, DMINSUB));
  CHECK(testp_f64(1, DINF));
  // setp codes: eq ne lt le gt ge equ neu ltu leu gtu geu num nan.
  const bool one_two[14] = {false, true, true, true, false, false, false, true, true, true, false, false, true, false};
  const bool nan_one[14] = {false, false, false, false, false, false, true, true, true, true, true, true, false, true};
  const bool two_two[14] = {true, false, false, true, false, true, true, false, false, true, false, true, true, false};
  for (int op = 0; op < 14; ++op) {
    CAPTURE(op);
    CHECK(setp_f32(op, ONE, F(2.0f)) == one_two[op]);
    CHECK(setp_f32(op, QNAN, ONE) == nan_one[op]);
    CHECK(setp_f32(op, ONE, QNAN) == nan_one[op]);
    CHECK(setp_f32(op, F(2.0f), F(2.0f)) == two_two[op]);
    CHECK(setp_f64(op, D1, D(2.0)) == one_two[op]);
    CHECK(setp_f64(op, DNAN, D1) == nan_one[op]);
  }
  CHECK(setp_f32(0, NEG_ZERO, 0u));       // -0 == +0
  CHECK_FALSE(setp_f32(2, NEG_ZERO, 0u));
  CHECK(setp_f32(1, MINSUB, 0u));      // without .ftz a subnormal is not zero
  CHECK(setp_ftz_f32(0, MINSUB, 0u));  // with .ftz it is
}

TEST_CASE("integer add sub mul mad with wrap-around and .sat") {
  CHECK(add_b32(0xFFFFFFFFu, 1u) == 0u);
  CHECK(sub_b16(0, 1) == 0xFFFFu);
  CHECK(add_b64(~0ull, 2ull) == 1ull);
  CHECK(add_sat_s32(0x7FFFFFFFu, 1u) == 0x7FFFFFFFu);
  CHECK(add_sat_s32(0x80000000u, 0xFFFFFFFFu) == 0x80000000u);
  CHECK(sub_sat_s32(0x80000000u, 1u) == 0x80000000u);
  CHECK(sub_sat_s32(0x7FFFFFFFu, 0xFFFFFFFFu) == 0x7FFFFFFFu);
  CHECK(add_sat_s32(5u, 0xFFFFFFFDu) == 2u);
  CHECK(mul_lo_b32(0x10000u, 0x10000u) == 0u);
  CHECK(mul_lo_b32(0xFFFFFFFFu, 3u) == 0xFFFFFFFDu);
  CHECK(mul_hi_u32(0xFFFFFFFFu, 0xFFFFFFFFu) == 0xFFFFFFFEu);
  CHECK(mul_hi_s32(0xFFFFFFFFu, 0xFFFFFFFFu) == 0u);
  CHECK(mul_hi_s32(0x80000000u, 2u) == 0xFFFFFFFFu);
  CHECK(mul_hi_u16(0xFFFF, 0xFFFF) == 0xFFFE);
  CHECK(mul_hi_s16(0x8000, 0x8000) == 0x4000);
  CHECK(mul_hi_u64(1ull << 63, 4ull) == 2ull);
  CHECK(mul_hi_s64(~0ull, 1ull) == ~0ull);
  CHECK(mul_wide_s32(0xFFFFFFFEu, 3u) == static_cast<uint64_t>(-6));
  CHECK(mul_wide_u32(0xFFFFFFFFu, 0xFFFFFFFFu) == 0xFFFFFFFE00000001ull);
  CHECK(mul_wide_u16(0xFFFF, 0xFFFF) == 0xFFFE0001u);
  CHECK(mul_wide_s16(0xFFFF, 0x0002) == 0xFFFFFFFEu);
  CHECK(mad_lo_b32(3u, 4u, 5u) == 17u);
  CHECK(mad_lo_b32(0xFFFFFFFFu, 2u, 3u) == 1u);
  // mad.hi: the high half of a*b, plus c (no carry from the low half).
  CHECK(mad_hi_u32(0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu) == 0xFFFFFFFDu);
  CHECK(mad_hi_s32(0xFFFFFFFFu, 1u, 1u) == 0u);
  CHECK(mad_wide_u32(0xFFFFFFFFu, 2u, 5ull) == 0x200000003ull);
  CHECK(mad_wide_s32(0xFFFFFFFFu, 2u, 5ull) == 3ull);
}

TEST_CASE("integer div rem neg abs min max") {
  CHECK(div_s32(static_cast<uint32_t>(-7), 2u) == static_cast<uint32_t>(-3));
  CHECK(rem_s32(static_cast<uint32_t>(-7), 2u) == static_cast<uint32_t>(-1));
  CHECK(div_u32(0xFFFFFFF9u, 2u) == 0x7FFFFFFCu);
  CHECK(rem_u32(0xFFFFFFF9u, 2u) == 1u);
  CHECK(div_s32(0x80000000u, 0xFFFFFFFFu) == 0x80000000u);  // wraps
  CHECK(rem_s32(0x80000000u, 0xFFFFFFFFu) == 0u);
  CHECK(div_u32(5u, 0u) == 0xFFFFFFFFu);  // documented choice (ISA: unspecified)
  CHECK(div_s64(static_cast<uint64_t>(-9), 4ull) == static_cast<uint64_t>(-2));
  CHECK(rem_s16(static_cast<uint16_t>(-9), 4) == static_cast<uint16_t>(-1));
  CHECK(neg_s32(0x80000000u) == 0x80000000u);
  CHECK(neg_s32(5u) == static_cast<uint32_t>(-5));
  CHECK(abs_s32(0x80000000u) == 0x80000000u);
  CHECK(abs_s16(0xFFFF) == 1);
  CHECK(abs_s64(static_cast<uint64_t>(-3)) == 3ull);
  CHECK(min_s32(0xFFFFFFFFu, 1u) == 0xFFFFFFFFu);
  CHECK(min_u32(0xFFFFFFFFu, 1u) == 1u);
  CHECK(max_s32(0xFFFFFFFFu, 1u) == 1u);
  CHECK(max_u32(0xFFFFFFFFu, 1u) == 0xFFFFFFFFu);
  CHECK(max_s64(1ull << 63, 0ull) == 0ull);
  CHECK(min_u16(0x8000, 1) == 1);
}

TEST_CASE("logic, shifts (amounts >= width), lop3, bit operations") {
  CHECK(and_b32(0xF0F0u, 0xFF00u) == 0xF000u);
  CHECK(or_b16(0x00F0, 0x0F00) == 0x0FF0);
  CHECK(xor_b64(~0ull, 1ull) == ~1ull);
  CHECK(not_b32(0u) == 0xFFFFFFFFu);
  CHECK(cnot_b32(0u) == 1u);
  CHECK(cnot_b32(7u) == 0u);
  CHECK(cnot_b16(0) == 1);
  CHECK(and_pred(true, false) == false);
  CHECK(xor_pred(true, true) == false);
  CHECK(not_pred(false));
  CHECK(shl_b32(1u, 31u) == 0x80000000u);
  CHECK(shl_b32(1u, 32u) == 0u);
  CHECK(shl_b32(1u, 0xFFFFFFFFu) == 0u);
  CHECK(shl_b16(1, 16u) == 0);
  CHECK(shl_b64(1ull, 63u) == 1ull << 63);
  CHECK(shl_b64(1ull, 64u) == 0ull);
  CHECK(shr_u32(0x80000000u, 31u) == 1u);
  CHECK(shr_u32(0x80000000u, 40u) == 0u);
  CHECK(shr_s32(0x80000000u, 4u) == 0xF8000000u);
  CHECK(shr_s32(0x80000000u, 32u) == 0xFFFFFFFFu);
  CHECK(shr_s32(0x70000000u, 100u) == 0u);
  CHECK(shr_s16(0x8000, 20u) == 0xFFFF);
  CHECK(shr_s64(1ull << 63, 64u) == ~0ull);
  // lop3 LUTs: a&b&c = 0x80, a|b|c = 0xFE, a^b^c = 0x96, (a&b)|c = 0xEA.
  const uint32_t a = 0xF0F0F0F0u, b = 0xCCCCCCCCu, c = 0xAAAAAAAAu;
  CHECK(lop3_b32(a, b, c, 0x80u) == uint32_t(a & b & c));
  CHECK(lop3_b32(a, b, c, 0xFEu) == uint32_t(a | b | c));
  CHECK(lop3_b32(a, b, c, 0x96u) == uint32_t(a ^ b ^ c));
  CHECK(lop3_b32(a, b, c, 0xEAu) == uint32_t((a & b) | c));
  CHECK(lop3_b32(a, b, c, 0xF0u) == a);
  CHECK(lop3_b32(a, b, c, 0x00u) == 0u);
  CHECK(popc_b32(0u) == 0u);
  CHECK(popc_b32(0xFFFFFFFFu) == 32u);
  CHECK(popc_b64(~0ull) == 64u);
  CHECK(popc_b64(0x8000000000000001ull) == 2u);
  CHECK(clz_b32(0u) == 32u);
  CHECK(clz_b32(1u) == 31u);
  CHECK(clz_b32(0x80000000u) == 0u);
  CHECK(clz_b64(0ull) == 64u);
  CHECK(clz_b64(1ull << 40) == 23u);
  CHECK(brev_b32(1u) == 0x80000000u);
  CHECK(brev_b32(0x12345678u) == 0x1E6A2C48u);
  CHECK(brev_b64(1ull) == 1ull << 63);
  // bfe: field of len bits at pos; .s sign-extends from the field's top bit.
  CHECK(bfe_u32(0x12345678u, 4u, 8u) == 0x67u);
  CHECK(bfe_s32(0x000000F0u, 4u, 4u) == 0xFFFFFFFFu);
  CHECK(bfe_s32(0x00000070u, 4u, 4u) == 7u);
  CHECK(bfe_u32(0xFFFFFFFFu, 0u, 0u) == 0u);
  CHECK(bfe_s32(0xFFFFFFFFu, 0u, 0u) == 0u);
  CHECK(bfe_u32(0x80000000u, 28u, 8u) == 8u);           // field past bit 31
  CHECK(bfe_s32(0x80000000u, 28u, 8u) == 0xFFFFFFF8u);  // sign from bit 31
  CHECK(bfe_u32(0xFFFFFFFFu, 40u, 4u) == 0u);           // pos past the width
  CHECK(bfe_s32(0x80000000u, 40u, 4u) == 0xFFFFFFFFu);
  CHECK(bfe_u32(0x12345678u, 0x104u, 0x108u) == 0x67u);  // only the low 8 bits of pos/len
  CHECK(bfe_u64(0xF000000000000000ull, 60u, 4u) == 0xFull);
  CHECK(bfe_s64(0xF000000000000000ull, 60u, 4u) == ~0ull);
  // bfi: insert the low len bits of a into b at pos.
  CHECK(bfi_b32(0xFFu, 0u, 8u, 4u) == 0xF00u);
  CHECK(bfi_b32(0u, 0xFFFFFFFFu, 28u, 8u) == 0x0FFFFFFFu);
  CHECK(bfi_b32(0xFFu, 0x12345678u, 0u, 0u) == 0x12345678u);
  CHECK(bfi_b32(0xFFu, 0u, 40u, 8u) == 0u);
  CHECK(bfi_b64(1ull, 0ull, 63u, 1u) == 1ull << 63);
  // prmt: bytes of {b, a} = 0x77665544_33221100 picked by the selector nibbles.
  CHECK(prmt_b32(0x33221100u, 0x77665544u, 0x3210u) == 0x33221100u);
  CHECK(prmt_b32(0x33221100u, 0x77665544u, 0x7654u) == 0x77665544u);
  CHECK(prmt_b32(0x33221100u, 0x77665544u, 0x0123u) == 0x00112233u);
  CHECK(prmt_b32(0x000080FFu, 0u, 0x8899u) == 0xFFFFFFFFu);  // sign replication of bytes 1 (0x80) and 0 (0xFF)
  CHECK(prmt_b32(0x00007F00u, 0u, 0x0009u) == 0x00000000u);  // byte 1 = 0x7F: sign 0
}

TEST_CASE("integer setp and selp") {
  // codes eq ne lt le gt ge; lo ls hi hs are the unsigned lt le gt ge.
  CHECK(setp_s32(2, 0xFFFFFFFFu, 0u));
  CHECK_FALSE(setp_u32(2, 0xFFFFFFFFu, 0u));
  CHECK(setp_u32(4, 0xFFFFFFFFu, 0u));
  CHECK(setp_s16(5, 0x8000, 0x8000));
  CHECK(setp_s64(3, 1ull << 63, 0ull));
  CHECK(setp_u64(1, 1ull, 2ull));
  CHECK(selp_b32(1u, 2u, true) == 1u);
  CHECK(selp_b32(1u, 2u, false) == 2u);
  CHECK(selp_b64(1ull, 2ull, false) == 2ull);
}

TEST_CASE("cvt: integer <-> integer with wrap and .sat") {
  // Type codes: 0 s8 1 u8 2 s16 3 u16 4 s32 5 u32 6 s64 7 u64 8 f16 9 bf16 10 f32 11 f64.
  CHECK(cvt32(4, 0, 0, false, false, 0x80u) == 0xFFFFFF80u);   // s32 <- s8
  CHECK(cvt32(5, 1, 0, false, false, 0x1FFu) == 0xFFu);        // u32 <- u8 reads the low byte
  CHECK(cvt16(0, 4, 0, false, false, 0x1FFu) == 0xFFFFu);      // s8 <- s32 wraps, sign-extended
  CHECK(cvt16(0, 4, 0, false, true, 0x1FFu) == 0x007Fu);       // .sat: 511 -> 127
  CHECK(cvt16(0, 4, 0, false, true, 0xFFFFFF00u) == 0xFF80u);  // .sat: -256 -> -128
  CHECK(cvt16(1, 4, 0, false, true, 0xFFFFFFFFu) == 0u);       // u8 <- -1 saturates to 0
  CHECK(cvt32(5, 4, 0, false, true, 0xFFFFFFFFu) == 0u);       // u32 <- s32 -1
  CHECK(cvt32(4, 5, 0, false, true, 0xFFFFFFFFu) == 0x7FFFFFFFu);
  CHECK(cvt32(4, 5, 0, false, false, 0xFFFFFFFFu) == 0xFFFFFFFFu);
  CHECK(cvt64(6, 4, 0, false, false, 0x80000000u) == 0xFFFFFFFF80000000ull);
  CHECK(cvt64(7, 5, 0, false, false, 0x80000000u) == 0x80000000ull);
  CHECK(cvt32(4, 6, 0, false, true, 0x100000000ull) == 0x7FFFFFFFu);
  CHECK(cvt32(4, 6, 0, false, false, 0x100000001ull) == 1u);
  CHECK(cvt64(6, 7, 0, false, true, ~0ull) == 0x7FFFFFFFFFFFFFFFull);
  CHECK(cvt16(2, 3, 0, false, true, 0x8000) == 0x7FFF);
}

TEST_CASE("cvt: integer -> float in each rounding mode") {
  // 2^24 + 1 is halfway between two f32 values; 2^24 + 3 too (ties to even up).
  CHECK(cvt32(10, 4, RN, false, false, 16777217u) == F(16777216.0f));
  CHECK(cvt32(10, 4, RN, false, false, 16777219u) == F(16777220.0f));
  CHECK(cvt32(10, 4, RZ, false, false, 16777219u) == F(16777218.0f));
  CHECK(cvt32(10, 4, RP, false, false, 16777217u) == F(16777218.0f));
  CHECK(cvt32(10, 4, RM, false, false, static_cast<uint32_t>(-16777217)) == F(-16777218.0f));
  CHECK(cvt32(10, 4, RZ, false, false, static_cast<uint32_t>(-16777217)) == F(-16777216.0f));
  CHECK(cvt32(10, 5, RN, false, false, 0xFFFFFFFFu) == F(4294967296.0f));
  CHECK(cvt32(10, 5, RZ, false, false, 0xFFFFFFFFu) == 0x4F7FFFFFu);
  // u64 max: 2^64 - 1 in f64 rounds to 2^64 (rn) or 2^64 - 2^11 (rz).
  CHECK(cvt64(11, 7, RN, false, false, ~0ull) == D(0x1p64));
  CHECK(cvt64(11, 7, RZ, false, false, ~0ull) == D(0x1p64 - 0x1p11));
  CHECK(cvt64(11, 6, RM, false, false, static_cast<uint64_t>(-((1ll << 53) + 1))) == D(-0x1p53 - 2));
  CHECK(cvt64(11, 6, RP, false, false, static_cast<uint64_t>((1ll << 53) + 1)) == D(0x1p53 + 2));
  CHECK(cvt64(11, 6, RN, false, false, static_cast<uint64_t>((1ll << 53) + 1)) == D(0x1p53));
  CHECK(cvt64(11, 4, RN, false, false, 0x80000000u) == D(-2147483648.0));
  // f16: 2049 is a tie between 2048 and 2050; 65520 rounds to infinity under .rn.
  CHECK(cvt16(8, 4, RN, false, false, 2049u) == 0x6800u);
  CHECK(cvt16(8, 4, RP, false, false, 2049u) == 0x6801u);
  CHECK(cvt16(8, 4, RN, false, false, 65520u) == 0x7C00u);
  CHECK(cvt16(8, 4, RZ, false, false, 65520u) == 0x7BFFu);
  CHECK(cvt16(8, 4, RZ, false, false, 100000u) == 0x7BFFu);
  CHECK(cvt16(9, 4, RN, false, false, 257u) == 0x4380u);  // bf16: 257 -> 256
  CHECK(cvt16(9, 4, RP, false, false, 257u) == 0x4381u);  // -> 258
  CHECK(cvt16(8, 4, RN, false, true, 7u) == 0x3C00u);      // .sat: 1.0
  CHECK(cvt16(8, 4, RN, false, true, static_cast<uint32_t>(-7)) == 0u);
  CHECK(cvt32(10, 4, RN, false, true, 7u) == ONE);
}

TEST_CASE("cvt: float -> integer saturates, NaN -> 0, each integer rounding") {
  const int RNI = 0, RZI = 1, RMI = 2, RPI = 3;
  CHECK(cvt32(4, 10, RNI, false, false, F(2.5f)) == 2u);
  CHECK(cvt32(4, 10, RNI, false, false, F(3.5f)) == 4u);
  CHECK(cvt32(4, 10, RNI, false, false, F(-2.5f)) == static_cast<uint32_t>(-2));
  CHECK(cvt32(4, 10, RZI, false, false, F(-2.7f)) == static_cast<uint32_t>(-2));
  CHECK(cvt32(4, 10, RMI, false, false, F(-2.1f)) == static_cast<uint32_t>(-3));
  CHECK(cvt32(4, 10, RPI, false, false, F(2.1f)) == 3u);
  CHECK(cvt32(4, 10, RNI, false, false, QNAN) == 0u);
  CHECK(cvt32(4, 10, RNI, false, false, INF) == 0x7FFFFFFFu);
  CHECK(cvt32(4, 10, RNI, false, false, NINF) == 0x80000000u);
  CHECK(cvt32(4, 10, RZI, false, false, F(2147483648.0f)) == 0x7FFFFFFFu);
  CHECK(cvt32(5, 10, RZI, false, false, F(-1.0f)) == 0u);
  CHECK(cvt32(5, 10, RZI, false, false, F(4294967296.0f)) == 0xFFFFFFFFu);
  CHECK(cvt16(0, 10, RNI, false, false, F(300.0f)) == 0x007Fu);
  CHECK(cvt16(0, 10, RNI, false, false, F(-300.0f)) == 0xFF80u);
  CHECK(cvt16(1, 10, RNI, false, false, F(255.4f)) == 0x00FFu);
  CHECK(cvt64(6, 11, RZI, false, false, D(1e300)) == 0x7FFFFFFFFFFFFFFFull);
  CHECK(cvt64(7, 11, RNI, false, false, D(-0.4)) == 0ull);
  CHECK(cvt64(6, 11, RMI, false, false, D(-0.5)) == ~0ull);
  // A subnormal rounds up to 1 under .rpi, unless .ftz flushes it first.
  CHECK(cvt32(4, 10, RPI, false, false, MINSUB) == 1u);
  CHECK(cvt32(4, 10, RPI, true, false, MINSUB) == 0u);
  CHECK(cvt32(4, 8, RNI, false, false, 0x3E00u) == 2u);  // f16 1.5 -> 2
}

TEST_CASE("cvt: float <-> float") {
  // f64 -> f32: 1 + 2^-24 is a tie (rn -> 1); + 2^-30 breaks it.
  CHECK(cvt32(10, 11, RN, false, false, D(1.0 + 0x1p-24)) == ONE);
  CHECK(cvt32(10, 11, RN, false, false, D(1.0 + 0x1p-24 + 0x1p-30)) == ONE + 1);
  CHECK(cvt32(10, 11, RP, false, false, D(1.0 + 0x1p-40)) == ONE + 1);
  CHECK(cvt32(10, 11, RZ, false, false, D(1.0 - 0x1p-40)) == 0x3F7FFFFFu);
  CHECK(cvt32(10, 11, RN, false, false, D(1e300)) == INF);
  CHECK(cvt32(10, 11, RZ, false, false, D(1e300)) == MAXF);
  CHECK(cvt32(10, 11, RM, false, false, D(-1e300)) == NINF);
  CHECK(cvt32(10, 11, RN, false, false, D(0x1p-150)) == 0u);
  CHECK(cvt32(10, 11, RP, false, false, D(0x1p-160)) == MINSUB);
  CHECK(cvt32(10, 11, RN, true, false, D(0x1p-130)) == 0u);  // .ftz result
  CHECK(cvt32(10, 11, RN, false, false, DNAN) == CNAN);
  CHECK(cvt32(10, 11, RN, false, true, D(-0.5)) == 0u);
  CHECK(cvt32(10, 11, RN, false, true, D(7.0)) == ONE);
  CHECK(cvt64(11, 10, RN, false, false, MINSUB) == D(0x1p-149));  // exact widening
  CHECK(cvt64(11, 10, RN, true, false, MINSUB) == 0u);
  // f32 -> f16: 1 + 2^-11 is a tie (-> 1.0 = 0x3C00); 65504 + 16 ties to infinity.
  CHECK(cvt16(8, 10, RN, false, false, F(1.0f + 0x1p-11f)) == 0x3C00u);
  CHECK(cvt16(8, 10, RP, false, false, F(1.0f + 0x1p-20f)) == 0x3C01u);
  CHECK(cvt16(8, 10, RZ, false, false, F(65520.0f)) == 0x7BFFu);
  CHECK(cvt16(8, 10, RN, false, false, F(65520.0f)) == 0x7C00u);
  CHECK(cvt16(8, 10, RN, false, false, F(0x1p-25f)) == 0u);        // tie with the smallest subnormal
  CHECK(cvt16(8, 10, RN, false, false, F(0x1.8p-25f)) == 1u);
  CHECK(cvt16(8, 10, RN, false, false, QNAN) == 0x7FFFu);
  CHECK(cvt16(9, 10, RN, false, false, 0x3F808000u) == 0x3F80u);  // bf16 tie -> even
  CHECK(cvt16(9, 10, RN, false, false, 0x3F818000u) == 0x3F82u);
  CHECK(cvt16(9, 10, RZ, false, false, 0x3F81FFFFu) == 0x3F81u);
  CHECK(cvt32(10, 8, RN, false, false, 0x0001u) == F(0x1p-24f));   // f16 subnormal, exact
  CHECK(cvt32(10, 9, RN, false, false, 0x3F80u) == ONE);
  // Same type: round to an integral value.
  CHECK(cvt32(10, 10, 4, false, false, F(2.5f)) == F(2.0f));
  CHECK(cvt32(10, 10, 7, false, false, F(2.1f)) == F(3.0f));
  CHECK(cvt32(10, 10, 6, false, false, F(-0.5f)) == F(-1.0f));
  CHECK(cvt32(10, 10, 5, false, false, F(-0.5f)) == NEG_ZERO);
  CHECK(cvt32(10, 10, 4, false, false, F(-0.4f)) == NEG_ZERO);
  CHECK(cvt64(11, 11, 7, false, false, D(0.5)) == D(1.0));
}

TEST_CASE("template reader: scopes, declarations, guards, operands, positions") {
  kdt::ptx::ReadResult r = kdt::ptx::read_ptx(
      "{\n.reg .pred %%p, q<2>;\n  @!%%p add.rn.f32 %o, %a, 0f3F800000; // c\nsetp.lt.s32 %%p|q1, t, -0x10;\n}");
  REQUIRE(r.ok);
  REQUIRE(r.statements.size() == 5);
  CHECK(r.statements[0].kind == kdt::ptx::Statement::Kind::OpenScope);
  CHECK(r.statements[1].kind == kdt::ptx::Statement::Kind::RegDecl);
  CHECK(r.statements[1].reg_type == "pred");
  CHECK(r.statements[1].reg_names == std::vector<std::string>{"%p", "q0", "q1"});
  const kdt::ptx::Statement& add = r.statements[2];
  CHECK(add.guard == "%p");
  CHECK(add.guard_negated);
  CHECK(add.opcode == "add");
  CHECK(add.modifiers == std::vector<std::string>{"rn", "f32"});
  CHECK(add.pos.line == 3);
  CHECK(add.pos.column == 9);
  REQUIRE(add.operands.size() == 3);
  CHECK(add.operands[0].kind == kdt::ptx::Operand::Kind::AsmOperand);
  CHECK(add.operands[0].text == "o");
  CHECK(add.operands[2].kind == kdt::ptx::Operand::Kind::Immediate);
  CHECK(add.operands[2].pos.column == 28);
  const kdt::ptx::Statement& setp = r.statements[3];
  CHECK(setp.operands[0].text == "%p");
  CHECK(setp.operands[0].second == "q1");
  CHECK(setp.operands[1].kind == kdt::ptx::Operand::Kind::Register);
  CHECK(setp.operands[2].text == "-0x10");
  CHECK(r.statements[4].kind == kdt::ptx::Statement::Kind::CloseScope);
  CHECK_FALSE(kdt::ptx::read_ptx("add.s32 %o, %a, 1").ok);  // no `;`
}

}  // TEST_SUITE

// ----- end to end: asm blocks without fallback through `kdt run` -------------------
namespace {

template <class T>
void write_npy(const std::string& path, const char* descr, const std::vector<T>& v) {
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" +
                       std::to_string(v.size()) + ",), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  kdt::test::write_text(path, out);
}

template <class T>
std::vector<T> read_npy(const std::string& path) {
  std::string s = kdt::test::read_text(path);
  if (s.size() < 10) return {};
  size_t hl = static_cast<unsigned char>(s[8]) | (static_cast<size_t>(static_cast<unsigned char>(s[9])) << 8);
  size_t off = 10 + hl;
  std::vector<T> v((s.size() - off) / sizeof(T));
  std::memcpy(v.data(), s.data() + off, v.size() * sizeof(T));
  return v;
}

}  // namespace

TEST_SUITE("ptx") {

TEST_CASE("samples/ptx_translate.kd runs through kdt run, translated exactly") {
  kdt::test::TempDir tmp;
  const int n = 4096;
  std::vector<float> x(n), y(n);
  std::vector<int32_t> k(n);
  uint32_t seed = 12345;
  auto next = [&] { seed = seed * 1664525u + 1013904223u; return seed; };
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(static_cast<int32_t>(next())) / 1.0e7f;
    y[i] = static_cast<float>(static_cast<int32_t>(next())) / 3.0e6f;
    k[i] = static_cast<int32_t>(next());
  }
  write_npy(tmp.file("x.npy"), "<f4", x);
  write_npy(tmp.file("y.npy"), "<f4", y);
  write_npy(tmp.file("k.npy"), "<i4", k);
  kdt::test::RunResult r = kdt::test::run_kdt(
      "run " + kdt::test::shell_quote(kdt::test::source_dir() + "/samples/ptx_translate.kd") + " --output-dir " +
      kdt::test::shell_quote(tmp.file("out")) + " --input x=" + tmp.file("x.npy") + " --input y=" + tmp.file("y.npy") +
      " --input k=" + tmp.file("k.npy") + " --input cap=0.5");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  auto fsum = read_npy<float>(tmp.file("out/fsum.npy"));
  auto mul_add = read_npy<float>(tmp.file("out/mul_add.npy"));
  auto clamped = read_npy<float>(tmp.file("out/clamped.npy"));
  auto affine = read_npy<int32_t>(tmp.file("out/affine.npy"));
  auto kmax = read_npy<int32_t>(tmp.file("out/kmax.npy"));
  auto shifted = read_npy<uint32_t>(tmp.file("out/shifted.npy"));
  auto mixed = read_npy<float>(tmp.file("out/mixed.npy"));
  REQUIRE(fsum.size() == static_cast<size_t>(n));
  REQUIRE(mixed.size() == static_cast<size_t>(n));
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    // Independent definitions: single f32 roundings (the host is in round-to-nearest).
    volatile float prod = x[i] * y[i];
    float want_mul_add = prod + 1.0f;
    uint32_t sh = static_cast<uint32_t>(i % 40);
    uint32_t want_shift = sh >= 32 ? 0u : static_cast<uint32_t>(k[i]) << sh;
    int32_t want_affine = static_cast<int32_t>(static_cast<uint32_t>(k[i]) * 3u + static_cast<uint32_t>(i));
    float want_mixed = static_cast<float>((k[i] & 0xFF) ^ (k[i] | 0x100));
    bad += fsum[i] != x[i] + y[i];
    bad += mul_add[i] != want_mul_add;
    bad += clamped[i] != (x[i] < 0.5f ? x[i] : 0.5f);
    bad += affine[i] != want_affine;
    bad += kmax[i] != (k[i] > 0 ? k[i] : 0);
    bad += shifted[i] != want_shift;
    bad += mixed[i] != want_mixed;
  }
  CHECK(bad == 0);
}

TEST_CASE("guards, setp p|q, scopes, directed rounding and cvt end to end") {
  kdt::test::TempDir tmp;
  kdt::test::write_text(tmp.file("t.kd"), R"(
kernel t(a: in f32[8] @global, b: in i32[8] @global,
         o1: out f32[8] @global, o2: out i32[8] @global, o3: out u32[8] @global, o4: out f64[8] @global)
    grid(1)
{
    o1[...] = asm ptx (x: f32 = a[...]) -> (o: f32) {
        "div.rz.f32 %o, 0f3F800000, %x;"
    };
    let (s, c) = asm ptx (v: i32 = b[...]) -> (sgn: i32, cnt: u32) {
        "{"
        ".reg .pred %%p, %%q;"
        "setp.lt.s32 %%p|%%q, %v, 0;"
        "mov.s32 %sgn, 1;"
        "@%%p mov.s32 %sgn, -1;"
        "{ .reg .b32 t; popc.b32 t, %v; @!%%q add.u32 %cnt, t, 100; @%%q mov.u32 %cnt, t; }"
        "}"
    };
    o2[...] = s;
    o3[...] = c;
    o4[...] = asm ptx (v: i32 = b[...]) -> (o: f64) {
        "{ .reg .f32 f; cvt.rz.f32.s32 f, %v; cvt.f64.f32 %o, f; }"
    };
}
)");
  std::vector<float> a = {3.0f, -3.0f, 0.0f, -0.0f, 1.0e-45f, 7.0f, 1.0f, 0.1f};
  std::vector<int32_t> b = {16777219, -16777219, 0, -1, 5, 0x7FFFFFFF, INT32_MIN, 255};
  write_npy(tmp.file("a.npy"), "<f4", a);
  write_npy(tmp.file("b.npy"), "<i4", b);
  kdt::test::RunResult r = kdt::test::run_kdt("run " + tmp.file("t.kd") + " --output-dir " + tmp.file("out") +
                                              " --input a=" + tmp.file("a.npy") + " --input b=" + tmp.file("b.npy"));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  auto o1 = read_npy<uint32_t>(tmp.file("out/o1.npy"));
  auto o2 = read_npy<int32_t>(tmp.file("out/o2.npy"));
  auto o3 = read_npy<uint32_t>(tmp.file("out/o3.npy"));
  auto o4 = read_npy<double>(tmp.file("out/o4.npy"));
  REQUIRE(o4.size() == 8u);
  // 1/3 toward zero; 1/-0 = -inf; 1/2^-149 overflows: .rz gives MAX; 1/7 and 1/0.1 truncated.
  const std::vector<uint32_t> want1 = {0x3EAAAAAAu, 0xBEAAAAAAu, INF, NINF, MAXF, 0x3E124924u, ONE, 0x411FFFFFu};
  CHECK(o1 == want1);
  CHECK(o2 == std::vector<int32_t>{1, -1, 1, -1, 1, 1, -1, 1});
  // q = !(v < 0): popc alone when v >= 0 (@q), popc + 100 when v < 0 (@!q).
  CHECK(o3 == std::vector<uint32_t>{3, 100 + 30, 0, 100 + 32, 2, 31, 100 + 1, 8});
  // i32 -> f32 toward zero, then exactly to f64.
  CHECK(o4 == std::vector<double>{16777218.0, -16777218.0, 0.0, -1.0, 5.0, 2147483520.0, -2147483648.0, 255.0});
}

TEST_CASE("--emit=discharged-ir shows the translated operations") {
  kdt::test::RunResult r = kdt::test::run_kdt(
      "--emit=discharged-ir " + kdt::test::shell_quote(kdt::test::source_dir() + "/samples/ptx_translate.kd"));
  REQUIRE(r.status == 0);
  CHECK(r.out.find("ptx.add_rn_f32(") != std::string::npos);
  CHECK(r.out.find("ptx.mad_lo_b32(") != std::string::npos);
  CHECK(r.out.find("ptx.setp_s32(") != std::string::npos);
  CHECK(r.out.find("ptx.shl_b32(") != std::string::npos);
}

TEST_CASE("blocking instructions name their line and column in the template") {
  kdt::test::RunResult r = kdt::test::run_kdt(
      "--emit=discharged-ir -o /dev/null " +
      kdt::test::shell_quote(kdt::test::source_dir() + "/tests/diag/fail_unsupported_discharge_special_register.kd"));
  CHECK(r.status == 1);
  CHECK(r.err.find("template line 3, column 15") != std::string::npos);
  CHECK(r.err.find("special register") != std::string::npos);
  r = kdt::test::run_kdt(
      "--emit=discharged-ir -o /dev/null " +
      kdt::test::shell_quote(kdt::test::source_dir() + "/tests/diag/fail_unsupported_discharge_unknown_instruction.kd"));
  CHECK(r.err.find("`fns.b32 %o, t, 1, 1` (template line 4, column 1)") != std::string::npos);
  r = kdt::test::run_kdt("--emit=discharged-ir -o /dev/null " +
                         kdt::test::shell_quote(kdt::test::source_dir() + "/tests/diag/fail_unsupported_discharge_modifier.kd"));
  CHECK(r.err.find("modifier `.relu`") != std::string::npos);
  r = kdt::test::run_kdt("--emit=discharged-ir -o /dev/null " +
                         kdt::test::shell_quote(kdt::test::source_dir() + "/tests/diag/fail_unsupported_discharge_memory.kd"));
  CHECK(r.err.find("`ld` accesses memory") != std::string::npos);
  // The same files are fine for the checker (and the compiled path).
  for (const char* f : {"special_register", "unknown_instruction", "modifier", "memory"}) {
    CAPTURE(f);
    std::string path = kdt::test::source_dir() + "/tests/diag/fail_unsupported_discharge_" + f + ".kd";
    CHECK(kdt::test::run_kdt("--emit=check " + kdt::test::shell_quote(path)).status == 0);
  }
}

}  // TEST_SUITE

namespace {

// Discharges one asm (inputs a, b, c of `in_t`, output o of `out_t`) and
// returns stdout + stderr of `kdt --emit=discharged-ir`.
std::string discharge_one(const std::string& in_t, const std::string& out_t, const std::string& tmpl) {
  kdt::test::TempDir tmp;
  kdt::test::write_text(tmp.file("t.kd"), "kernel k(r: out " + out_t + "[4] @global) grid(1) {\n" +
                                              "    r[...] = asm ptx (a: " + in_t + " = " + in_t + "(3), b: " + in_t + " = " +
                                              in_t + "(5), c: " + in_t + " = " + in_t + "(7)) -> (o: " + out_t + ") {\n" +
                                              "        \"" + tmpl + "\"\n    };\n}\n");
  kdt::test::RunResult r = kdt::test::run_kdt("--emit=discharged-ir " + tmp.file("t.kd"));
  return r.out + r.err;
}

}  // namespace

TEST_SUITE("ptx") {

TEST_CASE("translation: instruction and modifier forms map to their emulations") {
  struct Case {
    const char* in_t;
    const char* out_t;
    const char* tmpl;
    const char* want;
  };
  const Case cases[] = {
      {"u32", "u32", "mov.u32 %o, %a;", "ptx.mov_b32("},
      {"u32", "u32", "add.s32 %o, %a, -1;", "ptx.add_b32(%kdtptx0_a_0, 4294967295u32)"},
      {"i32", "i32", "add.sat.s32 %o, %a, %b;", "ptx.add_sat_s32("},
      {"u16", "u16", "sub.u16 %o, %a, %b;", "ptx.sub_b16("},
      {"u32", "u32", "mul.lo.u32 %o, %a, 0x10;", "ptx.mul_lo_b32(%kdtptx0_a_0, 16u32)"},
      {"i64", "i64", "mul.hi.s64 %o, %a, %b;", "ptx.mul_hi_s64("},
      {"i32", "i64", "{ .reg .s64 w; mul.wide.s32 w, %a, %b; mov.b64 %o, w; }", "ptx.mul_wide_s32("},
      {"u32", "u32", "mad.hi.u32 %o, %a, %b, %c;", "ptx.mad_hi_u32("},
      {"u32", "u32", "mad.lo.u32 %o, %a, %b, %c;", "ptx.mad_lo_b32("},
      {"i32", "i32", "div.s32 %o, %a, %b;", "ptx.div_s32("},
      {"u64", "u64", "rem.u64 %o, %a, %b;", "ptx.rem_u64("},
      {"i16", "i16", "neg.s16 %o, %a;", "ptx.neg_s16("},
      {"i32", "i32", "abs.s32 %o, %a;", "ptx.abs_s32("},
      {"u32", "u32", "max.u32 %o, %a, %b;", "ptx.max_u32("},
      {"f32", "f32", "add.rz.ftz.sat.f32 %o, %a, %b;", "ptx.add_rz_ftz_sat_f32("},
      {"f32", "f32", "sub.rm.f32 %o, %a, 0f3F800000;", "ptx.sub_rm_f32(%kdtptx0_a_0, 1065353216u32)"},
      {"f32", "f32", "mul.f32 %o, %a, %b;", "ptx.mul_rn_f32("},
      {"f32", "f32", "fma.rp.f32 %o, %a, %b, %c;", "ptx.fma_rp_f32("},
      {"f32", "f32", "mad.rn.ftz.f32 %o, %a, %b, %c;", "ptx.fma_rn_ftz_f32("},
      {"f32", "f32", "div.rn.f32 %o, %a, %b;", "ptx.div_rn_f32("},
      {"f32", "f32", "sqrt.rz.f32 %o, %a;", "ptx.sqrt_rz_f32("},
      {"f32", "f32", "rcp.rn.f32 %o, %a;", "ptx.rcp_rn_f32("},
      {"f64", "f64", "add.rm.f64 %o, %a, 0d3FF0000000000000;", "ptx.add_rm_f64(%kdtptx0_a_0, 4607182418800017408u64)"},
      {"f64", "f64", "fma.rn.f64 %o, %a, %b, %c;", "ptx.fma_rn_f64("},
      {"f64", "f64", "div.rp.f64 %o, %a, %b;", "ptx.div_rp_f64("},
      {"f32", "f32", "neg.ftz.f32 %o, %a;", "ptx.neg_ftz_f32("},
      {"f64", "f64", "abs.f64 %o, %a;", "ptx.abs_f64("},
      {"f32", "f32", "min.ftz.f32 %o, %a, %b;", "ptx.min_ftz_f32("},
      {"f32", "f32", "copysign.f32 %o, %a, %b;", "ptx.copysign_f32("},
      {"u64", "u64", "xor.b64 %o, %a, %b;", "ptx.xor_b64("},
      {"u32", "u32", "cnot.b32 %o, %a;", "ptx.cnot_b32("},
      {"i32", "i32", "shr.s32 %o, %a, 40;", "ptx.shr_s32(%kdtptx0_a_0, 40u32)"},
      {"u64", "u64", "shl.b64 %o, %a, 3;", "ptx.shl_b64(%kdtptx0_a_0, 3u32)"},
      {"u32", "u32", "lop3.b32 %o, %a, %b, %c, 0x96;", "ptx.lop3_b32("},
      {"u64", "u32", "popc.b64 %o, %a;", "ptx.popc_b64("},
      {"u32", "u32", "clz.b32 %o, %a;", "ptx.clz_b32("},
      {"u32", "u32", "brev.b32 %o, %a;", "ptx.brev_b32("},
      {"i32", "i32", "bfe.s32 %o, %a, 4, 8;", "ptx.bfe_s32("},
      {"u32", "u32", "bfi.b32 %o, %a, %b, 4, 8;", "ptx.bfi_b32("},
      {"u32", "u32", "prmt.b32 %o, %a, %b, 0x3210;", "ptx.prmt_b32("},
      {"f32", "u32", "{ .reg .pred p; setp.nan.f32 p, %a, %b; selp.u32 %o, 1, 0, p; }", "ptx.setp_f32(13i32"},
      {"f32", "u32", "{ .reg .pred p; setp.geu.ftz.f32 p, %a, %b; selp.u32 %o, 1, 0, p; }", "ptx.setp_ftz_f32(11i32"},
      {"u32", "u32", "{ .reg .pred p; setp.hs.u32 p, %a, %b; selp.u32 %o, 1, 0, p; }", "ptx.setp_u32(5i32"},
      {"i32", "u32", "{ .reg .pred p, q; setp.lt.and.s32 p, %a, %b, q; selp.u32 %o, 1, 0, p; }", "ptx.and_pred("},
      {"f32", "u32", "{ .reg .pred p; testp.subnormal.f32 p, %a; selp.u32 %o, 1, 0, p; }", "ptx.testp_f32(5i32"},
      {"f32", "i32", "cvt.rni.sat.s32.f32 %o, %a;", "ptx.cvt32(4i32, 10i32, 0i32, false, true,"},
      {"f64", "f32", "cvt.rz.ftz.f32.f64 %o, %a;", "ptx.cvt32(10i32, 11i32, 1i32, true, false,"},
      {"f32", "f16", "cvt.rp.f16.f32 %o, %a;", "ptx.cvt16(8i32, 10i32, 3i32, false, false,"},
      {"bf16", "f32", "cvt.f32.bf16 %o, %a;", "ptx.cvt32(10i32, 9i32, 0i32, false, false,"},
      {"i32", "i8", "cvt.sat.s8.s32 %o, %a;", "ptx.cvt16(0i32, 4i32, 0i32, false, true,"},
      {"u64", "f32", "cvt.rm.f32.u64 %o, %a;", "ptx.cvt32(10i32, 7i32, 2i32, false, false,"},
      {"f32", "f32", "cvt.rpi.f32.f32 %o, %a;", "ptx.cvt32(10i32, 10i32, 7i32, false, false,"},
      // Blocking forms: the reason names what blocks.
      {"f32", "f32", "rcp.approx.f32 %o, %a;", "is an approximation"},
      {"f32", "f32", "div.full.f32 %o, %a, %b;", "is an approximation"},
      {"f32", "f32", "div.f32 %o, %a, %b;", "needs a rounding modifier"},
      {"f32", "f32", "mad.f32 %o, %a, %b, %c;", "needs a rounding modifier"},
      {"f64", "f64", "fma.rz.f64 %o, %a, %b, %c;", "directed rounding of a fused f64"},
      {"f64", "f64", "add.ftz.f64 %o, %a, %b;", "modifier `.ftz`"},
      {"f32", "f32", "min.NaN.f32 %o, %a, %b;", "modifier `.NaN`"},
      {"u32", "u32", "prmt.b32.f4e %o, %a, %b, 0;", "modifier `.f4e`"},
      {"i32", "i32", "mad.hi.sat.s32 %o, %a, %b, %c;", "mad.hi.sat"},
      {"u32", "u32", "mul.u32 %o, %a, %b;", "needs `.lo`, `.hi` or `.wide`"},
      {"f16", "f16", "add.rn.f16 %o, %a, %b;", "not in the supported subset"},
      {"u32", "u32", "mov.u32 %o, %%clock;", "special register"},
      {"u32", "u32", "add.u32 %o, %a, %%tid.x;", "`%%tid.x` is a special register"},
      {"u32", "u32", "st.global.u32 [%a], %b;", "accesses memory"},
      {"u32", "u32", "shfl.sync.idx.b32 %o, %a, 0, 31, 0xffffffff;", "communicates between threads"},
      {"u32", "u32", "bra L1;", "not in the PTX subset"},
      {"u64", "u32", "add.u32 %o, %a, %b;", "64-bit but the instruction reads 32-bit"},
      {"f32", "f32", "add.f32 %o, %a, 1;", "integer immediate where the instruction reads a float"},
      {"f32", "f32", "cvt.rn.f32.f32 %o, %a;", "takes only `.rni .rzi .rmi .rpi`"},
      {"f32", "i32", "cvt.s32.f32 %o, %a;", "needs an integer rounding modifier"},
      {"f32", "f16", "cvt.rn.satfinite.f16.f32 %o, %a;", "modifier `.satfinite`"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.tmpl);
    std::string out = discharge_one(c.in_t, c.out_t, c.tmpl);
    CHECK_MESSAGE(out.find(c.want) != std::string::npos, out);
  }
}

}  // TEST_SUITE

TEST_SUITE("ptx") {

TEST_CASE("chains of translated instructions compile and run as the emulations compute them") {
  kdt::test::TempDir tmp;
  kdt::test::write_text(tmp.file("t.kd"), R"(
kernel t(a: in u32[8] @global, f: in f32[8] @global,
         r1: out u32[8] @global, r2: out u32[8] @global, r3: out u64[8] @global)
    grid(1)
{
    r1[...] = asm ptx (x: u32 = a[...]) -> (o: u32) {
        "{ .reg .b32 t, u; .reg .pred p;"
        "mul.hi.u32 t, %x, 0x9E3779B9; mad.lo.u32 t, t, %x, 7; xor.b32 t, t, %x;"
        "shr.s32 u, t, 3; bfe.u32 u, u, 5, 13; bfi.b32 t, u, t, 8, 8;"
        "prmt.b32 t, t, %x, 0x7152; lop3.b32 t, t, %x, u, 0xE8; popc.b32 u, t;"
        "brev.b32 t, t; setp.hi.u32 p, t, %x; @p add.u32 t, t, u; @!p sub.u32 t, t, u;"
        "rem.u32 u, t, 7; add.u32 %o, t, u; }"
    };
    r2[...] = asm ptx (x: f32 = f[...]) -> (o: u32) {
        "{ .reg .f32 t, s; .reg .b32 b;"
        "fma.rz.f32 t, %x, 0f3FC00000, 0f3DCCCCCD; div.rp.f32 s, t, %x; sqrt.rm.f32 s, s;"
        "min.f32 t, t, s; add.rm.sat.f32 s, s, 0fBF000000; max.f32 t, t, s;"
        "cvt.rzi.s32.f32 b, t; cvt.rn.f32.s32 s, b; add.rn.f32 t, t, s; copysign.f32 t, %x, t; mov.b32 %o, t; }"
    };
    r3[...] = asm ptx (x: f64 = f64(f[...])) -> (o: u64) {
        "{ .reg .f64 t;"
        "mul.rp.f64 t, %x, 0d3FB999999999999A; div.rz.f64 t, t, 0d4008000000000000; mov.b64 %o, t; }"
    };
}
)");
  std::vector<uint32_t> a = {0u, 1u, 0xFFFFFFFFu, 0x80000000u, 0x12345678u, 0xDEADBEEFu, 7u, 0x7FFFFFFFu};
  std::vector<float> f = {1.0f, -2.5f, 0.0f, 1.0e-40f, 3.0e38f, -0.0f, 0.1f, 12345.678f};
  write_npy(tmp.file("a.npy"), "<u4", a);
  write_npy(tmp.file("f.npy"), "<f4", f);
  kdt::test::RunResult r = kdt::test::run_kdt("run " + tmp.file("t.kd") + " --output-dir " + tmp.file("out") +
                                              " --input a=" + tmp.file("a.npy") + " --input f=" + tmp.file("f.npy"));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  auto r1 = read_npy<uint32_t>(tmp.file("out/r1.npy"));
  auto r2 = read_npy<uint32_t>(tmp.file("out/r2.npy"));
  auto r3 = read_npy<uint64_t>(tmp.file("out/r3.npy"));
  REQUIRE(r3.size() == 8u);
  for (size_t i = 0; i < 8; ++i) {
    CAPTURE(i);
    uint32_t x = a[i];
    uint32_t t = mul_hi_u32(x, 0x9E3779B9u);
    t = mad_lo_b32(t, x, 7u);
    t = xor_b32(t, x);
    uint32_t u = shr_s32(t, 3u);
    u = bfe_u32(u, 5u, 13u);
    t = bfi_b32(u, t, 8u, 8u);
    t = prmt_b32(t, x, 0x7152u);
    t = lop3_b32(t, x, u, 0xE8u);
    u = popc_b32(t);
    t = brev_b32(t);
    bool p = setp_u32(4, t, x);
    t = p ? add_b32(t, u) : sub_b32(t, u);
    u = rem_u32(t, 7u);
    CHECK(r1[i] == add_b32(t, u));
    uint32_t xf = F(f[i]);
    uint32_t ft = fma_rz_f32(xf, 0x3FC00000u, 0x3DCCCCCDu);
    uint32_t fs = div_rp_f32(ft, xf);
    fs = sqrt_rm_f32(fs);
    ft = min_f32(ft, fs);
    fs = add_rm_sat_f32(fs, 0xBF000000u);
    ft = max_f32(ft, fs);
    uint32_t b = cvt32(4, 10, RZ, false, false, ft);
    fs = cvt32(10, 4, RN, false, false, b);
    ft = add_rn_f32(ft, fs);
    CHECK(r2[i] == copysign_f32(xf, ft));
    uint64_t d = mul_rp_f64(D(static_cast<double>(f[i])), 0x3FB999999999999Aull);
    CHECK(r3[i] == div_rz_f64(d, 0x4008000000000000ull));
  }
}

}  // TEST_SUITE
