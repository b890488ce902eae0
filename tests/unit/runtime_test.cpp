// Unit tests for include/kdt/runtime/kdt_runtime.h, the prelude of emitted C++.
//
// Expected values are derived by hand from the IEEE 754 / bfloat16 encodings,
// the NumPy .npy format description and published test vectors (FNV-1a,
// SplitMix64), not by calling the code under test. The one broad sweep
// (rounding random doubles) uses an independent reference: it brackets the
// value between adjacent representable numbers and compares with their
// midpoint, which is exact in double.
#include <doctest/doctest.h>

#include "kdt/runtime/kdt_exec.h"
#include "kdt/runtime/kdt_runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace kdt_rt;

float f32_of_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
uint32_t bits_of_f32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
uint64_t bits_of_f64(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

// Both f32 and f64 entry points must give the same f16 for a value exactly
// representable in f32.
uint16_t h32(float f) { return f16_from_f32(f).bits; }
uint16_t h64(double d) { return f16_from_f64(d).bits; }
uint16_t b32(float f) { return bf16_from_f32(f).bits; }
uint16_t b64(double d) { return bf16_from_f64(d).bits; }
uint16_t b32bits(uint32_t u) { return bf16_from_f32(f32_of_bits(u)).bits; }

bool is_f16_nan(uint16_t b) { return (b & 0x7C00u) == 0x7C00u && (b & 0x03FFu) != 0; }

// A scratch directory for .npy files, removed at the end of the test.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    const auto base = std::filesystem::temp_directory_path();
    static uint64_t counter = 0;
    SplitMix64 g{static_cast<uint64_t>(std::time(nullptr)) ^ (++counter << 32) ^
                 static_cast<uint64_t>(reinterpret_cast<uintptr_t>(this))};
    for (int i = 0; i < 100; ++i) {
      path = base / ("kdt_runtime_test_" + std::to_string(g.next()));
      std::error_code ec;
      if (std::filesystem::create_directory(path, ec)) return;
    }
    FAIL("cannot create a temporary directory");
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}
std::vector<unsigned char> to_bytes(const std::string& s) { return std::vector<unsigned char>(s.begin(), s.end()); }

// The exact bytes of np.save(f, np.arange(3, dtype='<i4')): magic, version
// 1.0, header length 118 (0x76), the dict, spaces up to byte 127, a newline,
// then 0, 1, 2 as little-endian int32.
std::vector<unsigned char> numpy_arange3_bytes() {
  std::string s("\x93NUMPY\x01\x00\x76\x00", 10);
  s += "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }";
  s.append(127 - s.size(), ' ');
  s += '\n';
  s.append("\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00", 12);
  return to_bytes(s);
}

// A hand-built .npy file of any version with the given dict and data.
std::vector<unsigned char> make_npy(int major, const std::string& dict, const std::string& data) {
  std::string s("\x93NUMPY", 6);
  s += static_cast<char>(major);
  s += '\0';
  const size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  const size_t n = header.size();
  s += static_cast<char>(n & 0xFF);
  s += static_cast<char>((n >> 8) & 0xFF);
  if (major != 1) {
    s += static_cast<char>((n >> 16) & 0xFF);
    s += static_cast<char>((n >> 24) & 0xFF);
  }
  return to_bytes(s + header + data);
}

}  // namespace

TEST_SUITE("runtime") {

// ---------------------------------------------------------------------------
// f16
// ---------------------------------------------------------------------------

TEST_CASE("f16 from f32/f64: exact values, overflow, subnormals, signed zero") {
  CHECK(h32(1.0f) == 0x3C00);
  CHECK(h64(1.0) == 0x3C00);
  CHECK(h32(-1.0f) == 0xBC00);
  CHECK(h32(-2.0f) == 0xC000);
  CHECK(h32(0.5f) == 0x3800);
  CHECK(h32(65504.0f) == 0x7BFF);  // largest finite
  CHECK(h64(65504.0) == 0x7BFF);
  CHECK(h32(65520.0f) == 0x7C00);  // halfway to 2^16, 0x7BFF is odd: rounds to inf
  CHECK(h64(65520.0) == 0x7C00);
  CHECK(h32(-65520.0f) == 0xFC00);
  CHECK(h32(65519.99f) == 0x7BFF);
  CHECK(h64(65519.99) == 0x7BFF);
  CHECK(h32(1e10f) == 0x7C00);
  CHECK(h64(1e300) == 0x7C00);
  CHECK(h64(-1e300) == 0xFC00);
  CHECK(h32(std::numeric_limits<float>::infinity()) == 0x7C00);
  CHECK(h32(-std::numeric_limits<float>::infinity()) == 0xFC00);
  CHECK(h32(0.0f) == 0x0000);
  CHECK(h32(-0.0f) == 0x8000);
  CHECK(h64(-0.0) == 0x8000);
  // Subnormals: unit 2^-24.
  CHECK(h32(std::ldexp(1.0f, -24)) == 0x0001);
  CHECK(h64(std::ldexp(1.0, -24)) == 0x0001);
  CHECK(h32(std::ldexp(1.0f, -25)) == 0x0000);         // tie between 0 and 1: even
  CHECK(h32(-std::ldexp(1.0f, -25)) == 0x8000);
  CHECK(h32(std::ldexp(3.0f, -25)) == 0x0002);         // tie between 1 and 2: even
  CHECK(h32(std::ldexp(5.0f, -25)) == 0x0002);         // tie between 2 and 3: even
  CHECK(h32(std::ldexp(1.0f, -25) * (1.0f + std::ldexp(1.0f, -23))) == 0x0001);  // above the tie
  CHECK(h32(std::ldexp(1.0f, -26)) == 0x0000);
  CHECK(h32(-std::ldexp(1.0f, -30)) == 0x8000);
  CHECK(h64(1e-300) == 0x0000);
  CHECK(h64(-1e-300) == 0x8000);
  CHECK(h64(std::numeric_limits<double>::denorm_min()) == 0x0000);
  CHECK(h32(std::ldexp(1023.0f, -24)) == 0x03FF);      // largest subnormal
  CHECK(h32(std::ldexp(1.0f, -14)) == 0x0400);         // smallest normal
  CHECK(h32(std::ldexp(1023.5f, -24)) == 0x0400);      // tie, 1023 odd: up into the normals
  CHECK(h32(std::ldexp(1022.5f, -24)) == 0x03FE);      // tie, 1022 even: down
}

TEST_CASE("f16 halfway cases round to even both ways") {
  // Around 1.0 the f16 unit is 2^-10.
  CHECK(h32(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);        // 1 + half unit: down to even
  CHECK(h32(1.0f + std::ldexp(3.0f, -11)) == 0x3C02);        // 1 + 1.5 units: up to even
  CHECK(h32(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -23)) == 0x3C01);
  CHECK(h32(1.0f + std::ldexp(1.0f, -11) - std::ldexp(1.0f, -23)) == 0x3C00);
  CHECK(h32(-(1.0f + std::ldexp(3.0f, -11))) == 0xBC02);
  CHECK(h32(2049.0f) == 0x6800);   // unit 2 at 2048: tie, 2048 even
  CHECK(h32(2051.0f) == 0x6802);   // tie, 2052 even
  CHECK(h32(2050.0f) == 0x6801);
}

TEST_CASE("f64 -> f16 rounds once (no double rounding through f32)") {
  // d lies just above the halfway point 1 + 2^-11 between 0x3C00 and 0x3C01.
  // Rounded to f32 first it becomes exactly the halfway point, which then
  // ties to even (0x3C00); rounded directly it must give 0x3C01.
  const double d = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  CHECK(static_cast<double>(static_cast<float>(d)) == 1.0 + std::ldexp(1.0, -11));
  CHECK(h64(d) == 0x3C01);
  CHECK(h32(static_cast<float>(d)) == 0x3C00);
  CHECK(h64(-d) == 0xBC01);
  // Same in the subnormal range: just above half of the smallest subnormal.
  const double s = std::ldexp(1.0, -25) + std::ldexp(1.0, -60);
  CHECK(h64(s) == 0x0001);
  CHECK(h32(static_cast<float>(s)) == 0x0000);
  // And at the overflow threshold: just below 65520 stays finite.
  CHECK(h64(65520.0 - std::ldexp(1.0, -30)) == 0x7BFF);
  CHECK(h32(static_cast<float>(65520.0 - std::ldexp(1.0, -30))) == 0x7C00);
}

TEST_CASE("f16 NaN stays a quiet NaN with its sign") {
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  CHECK(is_f16_nan(h32(qnan)));
  CHECK((h32(qnan) & 0x0200) != 0);
  CHECK(h32(f32_of_bits(0x7FC00000u)) == 0x7E00);
  CHECK(h32(f32_of_bits(0xFFC00000u)) == 0xFE00);
  CHECK(h32(f32_of_bits(0x7F800001u)) == 0x7E00);  // signalling, payload only in low bits
  CHECK(is_f16_nan(h64(std::numeric_limits<double>::quiet_NaN())));
  CHECK(is_f16_nan(h64(std::numeric_limits<double>::signaling_NaN())));
  CHECK((h64(std::numeric_limits<double>::signaling_NaN()) & 0x0200) != 0);
  CHECK(is_nan(f16{0x7E00}));
  CHECK(is_nan(f16{0xFC01}));
  CHECK_FALSE(is_nan(f16{0x7C00}));
}

TEST_CASE("f16 -> f32/f64 is exact") {
  CHECK(to_f32(f16{0x3C00}) == 1.0f);
  CHECK(to_f32(f16{0xC000}) == -2.0f);
  CHECK(to_f32(f16{0x7BFF}) == 65504.0f);
  CHECK(to_f32(f16{0x0001}) == std::ldexp(1.0f, -24));
  CHECK(to_f32(f16{0x8001}) == -std::ldexp(1.0f, -24));
  CHECK(to_f32(f16{0x03FF}) == std::ldexp(1023.0f, -24));
  CHECK(to_f32(f16{0x0400}) == std::ldexp(1.0f, -14));
  CHECK(to_f32(f16{0x3555}) == 0.333251953125f);  // (1 + 341/1024) / 4
  CHECK(to_f32(f16{0x3C01}) == 1.0f + std::ldexp(1.0f, -10));
  CHECK(to_f32(f16{0x0000}) == 0.0f);
  CHECK_FALSE(std::signbit(to_f32(f16{0x0000})));
  CHECK(std::signbit(to_f32(f16{0x8000})));
  CHECK(to_f32(f16{0x8000}) == 0.0f);
  CHECK(to_f32(f16{0x7C00}) == std::numeric_limits<float>::infinity());
  CHECK(to_f32(f16{0xFC00}) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(to_f32(f16{0x7E00})));
  CHECK(std::isnan(to_f32(f16{0x7C01})));
  CHECK(to_f64(f16{0x7BFF}) == 65504.0);
  CHECK(to_f64(f16{0x0001}) == std::ldexp(1.0, -24));
}

TEST_CASE("f16 round trip of every non-NaN bit pattern") {
  int bad = 0;
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const f16 h{static_cast<uint16_t>(b)};
    if (is_f16_nan(h.bits)) continue;
    if (f16_from_f32(to_f32(h)).bits != h.bits) ++bad;
    if (f16_from_f64(to_f64(h)).bits != h.bits) ++bad;
  }
  CHECK(bad == 0);
}

// ---------------------------------------------------------------------------
// bf16
// ---------------------------------------------------------------------------

TEST_CASE("bf16 from f32/f64") {
  CHECK(b32(1.0f) == 0x3F80);
  CHECK(b64(1.0) == 0x3F80);
  CHECK(b32(-1.0f) == 0xBF80);
  CHECK(b32(3.0f) == 0x4040);
  CHECK(b32bits(0x3F808000u) == 0x3F80);  // tie, 0x3F80 even: down
  CHECK(b32bits(0x3F818000u) == 0x3F82);  // tie, 0x3F81 odd: up
  CHECK(b32bits(0x3F808001u) == 0x3F81);  // above the tie
  CHECK(b32bits(0x3F807FFFu) == 0x3F80);  // below the tie
  CHECK(b32bits(0x3F80FFFFu) == 0x3F81);
  CHECK(b32bits(0xBF818000u) == 0xBF82);
  CHECK(b32bits(0x7F7F7FFFu) == 0x7F7F);  // stays at the largest finite
  CHECK(b32bits(0x7F7F8000u) == 0x7F80);  // tie at the top, 0x7F7F odd: infinity
  CHECK(b32bits(0x7F7FFFFFu) == 0x7F80);  // FLT_MAX
  CHECK(b32bits(0xFF7F8000u) == 0xFF80);
  CHECK(b32bits(0x7F800000u) == 0x7F80);
  CHECK(b32bits(0xFF800000u) == 0xFF80);
  CHECK(b32bits(0x00000000u) == 0x0000);
  CHECK(b32bits(0x80000000u) == 0x8000);
  CHECK(b32bits(0x00008000u) == 0x0000);  // subnormal tie to even 0
  CHECK(b32bits(0x00018000u) == 0x0002);  // subnormal tie to even 2
  CHECK(b32bits(0x00010000u) == 0x0001);
  CHECK(b32bits(0x80008000u) == 0x8000);
  CHECK(b32bits(0x00000001u) == 0x0000);
  CHECK(b32bits(0x007FFFFFu) == 0x0080);  // largest f32 subnormal rounds up to the smallest normal
  CHECK(b64(1e300) == 0x7F80);
  CHECK(b64(-1e300) == 0xFF80);
  CHECK(b64(1e-300) == 0x0000);
  CHECK(b64(-1e-300) == 0x8000);
  CHECK(b64(static_cast<double>(std::numeric_limits<float>::max())) == 0x7F80);
  CHECK(b64(std::ldexp(1.0, -133)) == 0x0001);  // smallest bf16 subnormal
  CHECK(b64(std::ldexp(1.0, -134)) == 0x0000);  // tie to even
  CHECK(b64(std::ldexp(3.0, -134)) == 0x0002);  // tie to even
  CHECK(b64(-0.0) == 0x8000);
}

TEST_CASE("bf16 f64 rounds once; NaN; exact widening") {
  const double d = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  CHECK(b64(d) == 0x3F81);
  CHECK(b32(static_cast<float>(d)) == 0x3F80);  // the f32 route double-rounds
  CHECK(b32bits(0x7FC00000u) == 0x7FC0);
  CHECK(b32bits(0xFFC00000u) == 0xFFC0);
  CHECK(b32bits(0x7F800001u) == 0x7FC0);  // signalling NaN comes out quiet
  CHECK(b64(std::numeric_limits<double>::quiet_NaN()) == 0x7FC0);
  CHECK(is_nan(bf16{0x7FC0}));
  CHECK(is_nan(bf16{0xFF81}));
  CHECK_FALSE(is_nan(bf16{0x7F80}));
  CHECK(to_f32(bf16{0x3F80}) == 1.0f);
  CHECK(to_f32(bf16{0xC0A0}) == -5.0f);
  CHECK(to_f32(bf16{0x3F81}) == 1.0078125f);
  CHECK(std::signbit(to_f32(bf16{0x8000})));
  CHECK(to_f32(bf16{0x7F80}) == std::numeric_limits<float>::infinity());
  CHECK(to_f32(bf16{0x0001}) == std::ldexp(1.0f, -133));
  CHECK(to_f64(bf16{0x7F7F}) == 3.3895313892515355e38);
}

TEST_CASE("rounding random doubles agrees with a bracketing reference") {
  // Sorted non-negative finite values of each format plus 2^(emax+1), which
  // stands for infinity (its encoding is even, so a tie with the largest
  // finite value, which is odd, goes to infinity as IEEE requires).
  struct Reference {
    std::vector<double> values;
    std::vector<uint16_t> codes;
    uint16_t round(double v) const {
      const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
      const double a = std::fabs(v);
      if (a >= values.back()) return sign | codes.back();
      const size_t hi = static_cast<size_t>(std::upper_bound(values.begin(), values.end(), a) - values.begin());
      const size_t lo = hi - 1;
      if (values[lo] == a) return sign | codes[lo];
      const double mid = values[lo] + (values[hi] - values[lo]) / 2;  // exact
      if (a < mid) return sign | codes[lo];
      if (a > mid) return sign | codes[hi];
      return sign | ((codes[lo] & 1) ? codes[hi] : codes[lo]);
    }
  };
  // Decode by hand from the bit fields (independent of to_f32).
  Reference r16, rbf;
  for (uint32_t b = 0; b < 0x7C00; ++b) {
    const uint32_t e = b >> 10, m = b & 0x3FF;
    r16.values.push_back(e == 0 ? std::ldexp(static_cast<double>(m), -24)
                                : std::ldexp(static_cast<double>(1024 + m), static_cast<int>(e) - 25));
    r16.codes.push_back(static_cast<uint16_t>(b));
  }
  r16.values.push_back(65536.0);
  r16.codes.push_back(0x7C00);
  for (uint32_t b = 0; b < 0x7F80; ++b) {
    const uint32_t e = b >> 7, m = b & 0x7F;
    rbf.values.push_back(e == 0 ? std::ldexp(static_cast<double>(m), -133)
                                : std::ldexp(static_cast<double>(128 + m), static_cast<int>(e) - 134));
    rbf.codes.push_back(static_cast<uint16_t>(b));
  }
  rbf.values.push_back(std::ldexp(1.0, 128));
  rbf.codes.push_back(0x7F80);

  SplitMix64 g{2024};
  int bad16 = 0, badbf = 0, badi = 0;
  for (int i = 0; i < 200000; ++i) {
    const uint64_t r = g.next();
    double d;
    if (i % 3 == 2) {
      // Random magnitude over the interesting range.
      d = std::ldexp(1.0 + static_cast<double>(g.next() >> 11) * 0x1p-52, static_cast<int>(r % 300) - 150);
    } else {
      // A midpoint between adjacent values, or one double step off it.
      const Reference& ref = (i % 3 == 0) ? r16 : rbf;
      const size_t k = static_cast<size_t>(r % (ref.values.size() - 1));
      const double mid = ref.values[k] + (ref.values[k + 1] - ref.values[k]) / 2;
      const unsigned which = static_cast<unsigned>((r >> 62) & 3u);
      d = which == 0 ? std::nextafter(mid, 0.0) : which == 1 ? std::nextafter(mid, 1e300) : mid;
    }
    if ((r >> 40) & 1) d = -d;
    if (f16_from_f64(d).bits != r16.round(d)) ++bad16;
    if (bf16_from_f64(d).bits != rbf.round(d)) ++badbf;
    // Integers (exact in double when below 2^53).
    const int64_t n = static_cast<int64_t>(r >> 12) - (int64_t{1} << 51);
    const int64_t small = n >> static_cast<int>(g.next() % 52);
    if (convert<f16>(small).bits != r16.round(static_cast<double>(small))) ++badi;
    if (convert<bf16>(small).bits != rbf.round(static_cast<double>(small))) ++badi;
  }
  CHECK(bad16 == 0);
  CHECK(badbf == 0);
  CHECK(badi == 0);
}

// ---------------------------------------------------------------------------
// f16 / bf16 arithmetic helpers
// ---------------------------------------------------------------------------

// Issue 17: exp of f32 is the vectorisable exp_f32. Its reference is the
// double-precision std::exp rounded once to f32, which is within 2^-47 of
// the exact value and so the correctly rounded f32 except within 2^-47 of
// a rounding boundary (never met in this sweep).
TEST_CASE("exp of f32 is the double-precision exp rounded once, with the IEEE special cases") {
  int64_t checked = 0;
  for (uint64_t b = 0; b <= 0xffffffffull; b += 4099) {  // every exponent, sign and many mantissas
    const float x = f32_of_bits(static_cast<uint32_t>(b));
    if (std::isnan(x)) continue;
    const float want = static_cast<float>(std::exp(static_cast<double>(x)));
    const float got = math::exp(x);
    if (bits_of_f32(got) != bits_of_f32(want)) {
      FAIL_CHECK("exp(" << std::hexfloat << x << ") = " << got << ", expected " << want);
      break;
    }
    ++checked;
  }
  CHECK(checked > 1000000);
  CHECK(math::exp(0.0f) == 1.0f);
  CHECK(bits_of_f32(math::exp(-0.0f)) == bits_of_f32(1.0f));
  CHECK(math::exp(std::numeric_limits<float>::infinity()) == std::numeric_limits<float>::infinity());
  CHECK(bits_of_f32(math::exp(-std::numeric_limits<float>::infinity())) == 0u);
  CHECK(std::isfinite(math::exp(88.72283f)));  // below ln(FLT_MAX) = 88.7228391...
  CHECK(math::exp(88.72283f) > 0x1.fffep+127f);
  CHECK(math::exp(88.72284f) == std::numeric_limits<float>::infinity());
  CHECK(math::exp(-103.97207f) == 0x1p-149f);  // the smallest subnormal
  CHECK(math::exp(-104.0f) == 0.0f);
  CHECK(math::exp(-1e30f) == 0.0f);
  CHECK(math::exp(1e30f) == std::numeric_limits<float>::infinity());
  // A NaN comes back a quiet NaN with its sign and payload.
  const float nan = f32_of_bits(0xffc01234u), snan = f32_of_bits(0x7f801234u);
  CHECK(bits_of_f32(math::exp(nan)) == 0xffc01234u);
  CHECK(bits_of_f32(math::exp(snan)) == 0x7fc01234u);
  // f16/bf16 through f32, rounded once.
  CHECK(to_f32(math::exp(f16_from_f32(1.0f))) == to_f32(f16_from_f32(2.718281828f)));
}

TEST_CASE("f16/bf16 arithmetic is f32 arithmetic rounded once") {
  const f16 one{0x3C00};
  CHECK(add(one, f16{0x1000}).bits == 0x3C00);  // 1 + 2^-11: tie to even
  CHECK(add(one, f16{0x1400}).bits == 0x3C01);  // 1 + 2^-10
  CHECK(add(f16{0x7BFF}, f16{0x7BFF}).bits == 0x7C00);
  CHECK(sub(one, one).bits == 0x0000);
  CHECK(mul(f16{0x3C01}, f16{0x3C01}).bits == 0x3C02);  // 1 + 2^-9 + 2^-20
  CHECK(div(one, f16{0x4200}).bits == 0x3555);          // 1/3
  CHECK(div(one, f16{0x0000}).bits == 0x7C00);
  CHECK(is_nan(div(f16{0x0000}, f16{0x0000})));
  CHECK(neg(one).bits == 0xBC00);
  CHECK(neg(f16{0x0000}).bits == 0x8000);
  const bf16 bone{0x3F80};
  CHECK(add(bone, bf16{0x3B80}).bits == 0x3F80);  // 1 + 2^-8: tie to even
  CHECK(add(bone, bf16{0x3C00}).bits == 0x3F81);  // 1 + 2^-7
  CHECK(sub(bone, bone).bits == 0x0000);
  CHECK(mul(bf16{0x4040}, bf16{0x4040}).bits == 0x4110);  // 9
  CHECK(div(bone, bf16{0x4040}).bits == 0x3EAB);          // 1/3 = 0x3EAAAAAB in f32
  CHECK(neg(bone).bits == 0xBF80);
}

TEST_CASE("f16/bf16 comparisons") {
  const f16 nan{0x7E00}, pz{0x0000}, nz{0x8000}, one{0x3C00}, two{0x4000};
  CHECK(eq(pz, nz));
  CHECK_FALSE(ne(pz, nz));
  CHECK(lt(one, two));
  CHECK(le(one, one));
  CHECK(gt(two, one));
  CHECK(ge(two, two));
  CHECK_FALSE(eq(nan, nan));
  CHECK(ne(nan, nan));
  CHECK_FALSE(lt(nan, one));
  CHECK_FALSE(ge(nan, one));
  const bf16 bnan{0x7FC0}, bone{0x3F80}, btwo{0x4000};
  CHECK(lt(bone, btwo));
  CHECK(eq(bf16{0x0000}, bf16{0x8000}));
  CHECK(ne(bnan, bone));
  CHECK_FALSE(le(bnan, bnan));
  CHECK_FALSE(gt(bone, btwo));
}

// ---------------------------------------------------------------------------
// Integers
// ---------------------------------------------------------------------------

TEST_CASE("wrap-around arithmetic") {
  CHECK(wrap_add<int32_t>(INT32_MAX, 1) == INT32_MIN);
  CHECK(wrap_sub<int32_t>(INT32_MIN, 1) == INT32_MAX);
  CHECK(wrap_add<int8_t>(127, 1) == -128);
  CHECK(wrap_sub<uint8_t>(0, 1) == 255);
  CHECK(wrap_add<uint16_t>(65535, 2) == 1);
  CHECK(wrap_mul<uint16_t>(65535, 65535) == 1);  // would overflow int after promotion
  CHECK(wrap_mul<int16_t>(-32768, -1) == -32768);
  CHECK(wrap_mul<int32_t>(65536, 65536) == 0);
  CHECK(wrap_mul<int32_t>(INT32_MAX, INT32_MAX) == 1);
  CHECK(wrap_mul<int64_t>(INT64_MAX, 2) == -2);
  CHECK(wrap_mul<uint64_t>(UINT64_MAX, UINT64_MAX) == 1);
  CHECK(wrap_add<int64_t>(INT64_MAX, INT64_MAX) == -2);
  CHECK(wrap_neg<int32_t>(INT32_MIN) == INT32_MIN);
  CHECK(wrap_neg<int8_t>(-128) == -128);
  CHECK(wrap_neg<int64_t>(INT64_MIN) == INT64_MIN);
  CHECK(wrap_neg<int32_t>(5) == -5);
  CHECK(wrap_neg<uint32_t>(1u) == UINT32_MAX);
}

TEST_CASE("truncating division and remainder") {
  CHECK(int_div<int32_t>(INT32_MIN, -1) == INT32_MIN);
  CHECK(int_rem<int32_t>(INT32_MIN, -1) == 0);
  CHECK(int_div<int64_t>(INT64_MIN, -1) == INT64_MIN);
  CHECK(int_rem<int64_t>(INT64_MIN, -1) == 0);
  CHECK(int_div<int8_t>(-128, -1) == -128);
  CHECK(int_rem<int8_t>(-128, -1) == 0);
  CHECK(int_div<int16_t>(-32768, -1) == -32768);
  CHECK(int_div<int32_t>(-7, 2) == -3);
  CHECK(int_rem<int32_t>(-7, 2) == -1);
  CHECK(int_div<int32_t>(7, -2) == -3);
  CHECK(int_rem<int32_t>(7, -2) == 1);
  CHECK(int_div<int32_t>(5, -1) == -5);
  CHECK(int_rem<int32_t>(5, -1) == 0);
  CHECK(int_div<uint32_t>(7u, 2u) == 3u);
  CHECK(int_rem<uint32_t>(7u, 2u) == 1u);
  CHECK(int_div<uint8_t>(255, 255) == 1);
  CHECK(int_div<uint64_t>(UINT64_MAX, 1u) == UINT64_MAX);
}

TEST_CASE("shifts clamp the amount to the bit width") {
  CHECK(shl<int32_t>(1, 31) == INT32_MIN);
  CHECK(shl<int32_t>(1, 32) == 0);
  CHECK(shl<int32_t>(1, 33) == 0);
  CHECK(shl<int32_t>(1, 100) == 0);
  CHECK(shl<int32_t>(1, -1) == 0);                // negative amount is huge unsigned
  CHECK(shl<int32_t>(1, 0xFFFFFFFFu) == 0);
  CHECK(shl<int32_t>(-1, 4) == -16);
  CHECK(shl<int32_t>(0x40000000, 1) == INT32_MIN);
  CHECK(shl<uint8_t>(0xFF, 4) == 0xF0);
  CHECK(shl<int8_t>(1, 7) == -128);
  CHECK(shl<int8_t>(1, 8) == 0);
  CHECK(shl<uint16_t>(0xFFFF, 15) == 0x8000);
  CHECK(shl<uint16_t>(0xFFFF, 16) == 0);
  CHECK(shl<int64_t>(1, 63) == INT64_MIN);
  CHECK(shl<int64_t>(1, 64) == 0);
  CHECK(shl<uint64_t>(3, int64_t{63}) == (uint64_t{1} << 63));
  CHECK(shr<int32_t>(-8, 1) == -4);
  CHECK(shr<int32_t>(-5, 1) == -3);               // arithmetic: floor
  CHECK(shr<int32_t>(-1, 31) == -1);
  CHECK(shr<int32_t>(INT32_MIN, 31) == -1);
  CHECK(shr<int32_t>(-8, 32) == -1);              // >= width: all sign bits
  CHECK(shr<int32_t>(-8, 1000) == -1);
  CHECK(shr<int32_t>(-8, -1) == -1);
  CHECK(shr<int32_t>(8, 32) == 0);
  CHECK(shr<int32_t>(INT32_MAX, 30) == 1);
  CHECK(shr<uint32_t>(0x80000000u, 31) == 1u);
  CHECK(shr<uint32_t>(0x80000000u, 32) == 0u);
  CHECK(shr<uint32_t>(0xFFFFFFFFu, -1) == 0u);
  CHECK(shr<int8_t>(-128, 7) == -1);
  CHECK(shr<int8_t>(-128, 8) == -1);
  CHECK(shr<int8_t>(64, 8) == 0);
  CHECK(shr<uint8_t>(0x80, 7) == 1);
  CHECK(shr<uint8_t>(0x80, 8) == 0);
  CHECK(shr<int16_t>(-32768, 15) == -1);
  CHECK(shr<uint64_t>(UINT64_MAX, 63) == 1u);
  CHECK(shr<uint64_t>(UINT64_MAX, 64) == 0u);
  CHECK(shr<int64_t>(INT64_MIN, 63) == -1);
  CHECK(shr<int64_t>(INT64_MIN, 200) == -1);
  CHECK(shr<int64_t>(INT64_MAX, 200) == 0);
}

// ---------------------------------------------------------------------------
// Casts
// ---------------------------------------------------------------------------

TEST_CASE("float -> integer truncates and saturates, NaN -> 0") {
  const float fnan = std::numeric_limits<float>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(convert<int32_t>(3e9f) == INT32_MAX);
  CHECK(convert<int32_t>(-3e9f) == INT32_MIN);
  CHECK(convert<int32_t>(fnan) == 0);
  CHECK(convert<int32_t>(-1.5f) == -1);
  CHECK(convert<int32_t>(1.9999f) == 1);
  CHECK(convert<int32_t>(-0.0f) == 0);
  CHECK(convert<int32_t>(2147483520.0f) == 2147483520);   // largest f32 below 2^31
  CHECK(convert<int32_t>(2147483648.0f) == INT32_MAX);
  CHECK(convert<int32_t>(-2147483648.0f) == INT32_MIN);
  CHECK(convert<uint32_t>(-1.0f) == 0u);
  CHECK(convert<uint32_t>(-0.99f) == 0u);
  CHECK(convert<uint32_t>(4294967296.0) == UINT32_MAX);
  CHECK(convert<uint32_t>(4294967295.9) == UINT32_MAX);
  CHECK(convert<uint8_t>(300.0f) == 255);
  CHECK(convert<uint8_t>(255.9f) == 255);
  CHECK(convert<int8_t>(-129.0) == -128);
  CHECK(convert<int8_t>(-128.9) == -128);
  CHECK(convert<int8_t>(127.9) == 127);
  CHECK(convert<int64_t>(9.3e18) == INT64_MAX);
  CHECK(convert<int64_t>(9223372036854775808.0) == INT64_MAX);     // 2^63
  CHECK(convert<int64_t>(9223372036854774784.0) == 9223372036854774784LL);  // 2^63 - 1024
  CHECK(convert<int64_t>(-9223372036854775808.0) == INT64_MIN);    // -2^63, exact
  CHECK(convert<int64_t>(-1e19) == INT64_MIN);
  CHECK(convert<uint64_t>(18446744073709551616.0) == UINT64_MAX);  // 2^64
  CHECK(convert<uint64_t>(18446744073709549568.0) == 18446744073709549568ULL);  // 2^64 - 2048
  CHECK(convert<uint64_t>(-0.5) == 0u);
  CHECK(convert<int64_t>(inf) == INT64_MAX);
  CHECK(convert<int64_t>(-inf) == INT64_MIN);
  CHECK(convert<uint16_t>(-inf) == 0);
  CHECK(convert<int32_t>(std::numeric_limits<double>::quiet_NaN()) == 0);
  CHECK(convert<uint64_t>(std::numeric_limits<double>::quiet_NaN()) == 0u);
  CHECK(convert<int32_t>(f16{0xFC00}) == INT32_MIN);
  CHECK(convert<int16_t>(f16{0x7BFF}) == 32767);
  CHECK(convert<uint16_t>(f16{0x7BFF}) == 65504);
  CHECK(convert<int32_t>(f16{0xBE00}) == -1);   // -1.5
  CHECK(convert<int32_t>(bf16{0xFFC0}) == 0);   // NaN
  CHECK(convert<int64_t>(bf16{0x7F80}) == INT64_MAX);
  CHECK(convert<uint8_t>(bf16{0x4396}) == 255);  // 300
}

TEST_CASE("integer -> integer wraps") {
  CHECK(convert<uint8_t>(int32_t{300}) == 44);
  CHECK(convert<int8_t>(int32_t{200}) == -56);
  CHECK(convert<int8_t>(int32_t{-129}) == 127);
  CHECK(convert<int16_t>(UINT64_MAX) == -1);
  CHECK(convert<uint64_t>(int8_t{-1}) == UINT64_MAX);
  CHECK(convert<uint32_t>(int64_t{-1}) == UINT32_MAX);
  CHECK(convert<int32_t>(int64_t{0x100000005LL}) == 5);
  CHECK(convert<int32_t>(uint32_t{0x80000000u}) == INT32_MIN);
  CHECK(convert<int64_t>(uint64_t{1} << 63) == INT64_MIN);
  CHECK(convert<int64_t>(int32_t{-7}) == -7);
  CHECK(convert<uint16_t>(int8_t{-2}) == 65534);
}

TEST_CASE("integer -> float rounds to nearest-even exactly") {
  CHECK(convert<f16>(int32_t{1}).bits == 0x3C00);
  CHECK(convert<f16>(int32_t{-2}).bits == 0xC000);
  CHECK(convert<f16>(int32_t{0}).bits == 0x0000);
  CHECK(convert<f16>(int32_t{65504}).bits == 0x7BFF);
  CHECK(convert<f16>(int32_t{65519}).bits == 0x7BFF);
  CHECK(convert<f16>(int32_t{65520}).bits == 0x7C00);
  CHECK(convert<f16>(int32_t{-65520}).bits == 0xFC00);
  CHECK(convert<f16>(int32_t{2049}).bits == 0x6800);
  CHECK(convert<f16>(int32_t{2051}).bits == 0x6802);
  CHECK(convert<f16>(int8_t{-128}).bits == 0xD800);
  CHECK(convert<f16>(UINT64_MAX).bits == 0x7C00);
  CHECK(convert<f16>(INT64_MIN).bits == 0xFC00);
  // int64 -> bf16 without double rounding through f64: 2^60 + 2^52 + 1 is
  // just above the halfway point between 2^60 (0x5D80) and 2^60 + 2^53
  // (0x5D81); through f64 it would become the halfway point and tie down.
  CHECK(convert<bf16>((int64_t{1} << 60) + (int64_t{1} << 52) + 1).bits == 0x5D81);
  CHECK(convert<bf16>((int64_t{1} << 60) + (int64_t{1} << 52)).bits == 0x5D80);
  CHECK(convert<bf16>(-((int64_t{1} << 60) + (int64_t{1} << 52) + 1)).bits == 0xDD81);
  CHECK(convert<bf16>(INT64_MIN).bits == 0xDF00);   // -2^63
  CHECK(convert<bf16>(UINT64_MAX).bits == 0x5F80);  // rounds up to 2^64
  CHECK(convert<bf16>(int32_t{257}).bits == 0x4380);  // tie at unit 2: 256
  CHECK(convert<bf16>(int32_t{259}).bits == 0x4382);  // tie: 260
  CHECK(convert<float>(int64_t{(1 << 24) + 1}) == 16777216.0f);
  CHECK(convert<float>(int64_t{(1 << 24) + 3}) == 16777220.0f);
  CHECK(convert<double>(int64_t{(int64_t{1} << 53) + 1}) == 9007199254740992.0);
  CHECK(convert<double>(uint64_t{UINT64_MAX}) == 18446744073709551616.0);
  CHECK(convert<float>(int32_t{-7}) == -7.0f);
}

TEST_CASE("float -> float") {
  CHECK(convert<double>(f16{0x7BFF}) == 65504.0);
  CHECK(convert<float>(bf16{0x3F81}) == 1.0078125f);
  CHECK(convert<f16>(bf16{0x3F81}).bits == 0x3C08);
  CHECK(convert<f16>(bf16{0x7F7F}).bits == 0x7C00);
  CHECK(convert<f16>(bf16{0x8000}).bits == 0x8000);
  CHECK(convert<bf16>(f16{0x3C01}).bits == 0x3F80);
  CHECK(convert<bf16>(f16{0x3C04}).bits == 0x3F80);  // 1 + 2^-8: tie to even
  CHECK(convert<bf16>(f16{0x3C0C}).bits == 0x3F82);  // 1 + 1.5 * 2^-7: tie to even
  CHECK(convert<bf16>(f16{0x7C00}).bits == 0x7F80);
  CHECK(convert<bf16>(f16{0x0001}).bits == 0x3380);  // 2^-24 is a normal bf16
  CHECK(convert<f16>(1e-30).bits == 0x0000);
  CHECK(convert<f16>(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)).bits == 0x3C01);
  CHECK(convert<bf16>(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)).bits == 0x3F81);
  CHECK(convert<float>(1e39) == std::numeric_limits<float>::infinity());
  CHECK(convert<float>(-1e39) == -std::numeric_limits<float>::infinity());
  CHECK(convert<float>(1.0 + std::ldexp(1.0, -24)) == 1.0f);
  CHECK(convert<float>(1.0 + std::ldexp(3.0, -24)) == 1.0f + std::ldexp(1.0f, -22));
  CHECK(std::isnan(convert<float>(std::numeric_limits<double>::quiet_NaN())));
  CHECK(std::isnan(convert<double>(f16{0x7E00})));
  CHECK(is_nan(convert<f16>(bf16{0x7FC0})));
  CHECK(is_nan(convert<bf16>(f16{0xFE00})));
  CHECK(convert<bf16>(f16{0xFE00}).bits == 0xFFC0);
}

TEST_CASE("bool casts") {
  CHECK(convert<bool>(std::numeric_limits<float>::quiet_NaN()));
  CHECK_FALSE(convert<bool>(-0.0f));
  CHECK_FALSE(convert<bool>(0.0));
  CHECK(convert<bool>(0.5));
  CHECK(convert<bool>(std::numeric_limits<double>::denorm_min()));
  CHECK(convert<bool>(int32_t{2}));
  CHECK(convert<bool>(int8_t{-1}));
  CHECK_FALSE(convert<bool>(int32_t{0}));
  CHECK(convert<bool>(uint64_t{1} << 63));
  CHECK_FALSE(convert<bool>(f16{0x8000}));
  CHECK(convert<bool>(f16{0x7E00}));
  CHECK(convert<bool>(bf16{0x0001}));
  CHECK_FALSE(convert<bool>(bf16{0x0000}));
  CHECK(convert<int32_t>(true) == 1);
  CHECK(convert<int32_t>(false) == 0);
  CHECK(convert<uint64_t>(true) == 1u);
  CHECK(convert<float>(true) == 1.0f);
  CHECK(convert<double>(false) == 0.0);
  CHECK(convert<f16>(true).bits == 0x3C00);
  CHECK(convert<bf16>(true).bits == 0x3F80);
  CHECK(convert<bf16>(false).bits == 0x0000);
  CHECK(convert<bool>(true));
}

// ---------------------------------------------------------------------------
// Math helpers
// ---------------------------------------------------------------------------

TEST_CASE("rsqrt, maximum, minimum") {
  CHECK(rsqrt(4.0f) == 0.5f);
  CHECK(rsqrt(0.25) == 2.0);
  CHECK(rsqrt(0.0f) == std::numeric_limits<float>::infinity());
  CHECK(std::isnan(rsqrt(-1.0f)));
  CHECK(rsqrt(f16{0x4400}).bits == 0x3800);   // 4 -> 0.5
  CHECK(rsqrt(bf16{0x4080}).bits == 0x3F00);  // 4 -> 0.5
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(std::isnan(maximum(nan, 1.0f)));
  CHECK(std::isnan(maximum(1.0f, nan)));
  CHECK(std::isnan(minimum(nan, 1.0f)));
  CHECK(std::isnan(minimum(1.0f, nan)));
  CHECK(std::isnan(maximum(1.0, std::numeric_limits<double>::quiet_NaN())));
  CHECK(maximum(2.0f, 3.0f) == 3.0f);
  CHECK(minimum(2.0f, 3.0f) == 2.0f);
  CHECK(maximum(-std::numeric_limits<float>::infinity(), -1.0f) == -1.0f);
  CHECK_FALSE(std::signbit(maximum(-0.0f, 0.0f)));
  CHECK_FALSE(std::signbit(maximum(0.0f, -0.0f)));
  CHECK(std::signbit(maximum(-0.0f, -0.0f)));
  CHECK(std::signbit(minimum(-0.0f, 0.0f)));
  CHECK(std::signbit(minimum(0.0f, -0.0f)));
  CHECK_FALSE(std::signbit(minimum(0.0, 0.0)));
  CHECK_FALSE(std::signbit(maximum(-0.0, 0.0)));
  CHECK(std::signbit(minimum(0.0, -0.0)));
  CHECK(is_nan(maximum(f16{0x7E00}, f16{0x3C00})));
  CHECK(is_nan(minimum(f16{0x3C00}, f16{0x7E00})));
  CHECK(maximum(f16{0x8000}, f16{0x0000}).bits == 0x0000);
  CHECK(minimum(f16{0x0000}, f16{0x8000}).bits == 0x8000);
  CHECK(maximum(f16{0x3C00}, f16{0x4000}).bits == 0x4000);
  CHECK(is_nan(maximum(bf16{0x3F80}, bf16{0x7FC0})));
  CHECK(minimum(bf16{0x3F80}, bf16{0xBF80}).bits == 0xBF80);
  CHECK(maximum(int32_t{-3}, int32_t{2}) == 2);
  CHECK(minimum(uint8_t{7}, uint8_t{200}) == 7);
}

// Issue 17: reductions in kdt's order (kdt_reduce.h, docs/interpretation.md).
// The model is written from the documented rule, apart from the runtime:
// sums over 32 lanes, lane l taking elements l, l + 32, ... from +0, then
// lane[l] += lane[l + h] for h = 16, 8, 4, 2, 1 where l + h < lanes.
namespace {
float model_lane_sum(const std::vector<float>& x, size_t stride) {
  const size_t n = (x.size() + stride - 1) / stride;
  std::vector<float> lane(std::min<size_t>(n, 32), 0.0f);
  for (size_t r = 0; r < n; ++r) lane[r % 32] = lane[r % 32] + x[r * stride];
  for (size_t h = 16; h > 0; h /= 2) {
    for (size_t l = 0; l < h && l + h < lane.size(); ++l) lane[l] = lane[l] + lane[l + h];
  }
  return lane[0];
}
}  // namespace

TEST_CASE("sums follow kdt's 32-lane order") {
  // Orders told apart by hand: 1 + 1e-8 rounds to 1 in f32.
  const float tiny = 1e-8f;
  const float three[] = {1.0f, tiny, -1.0f};            // lanes 1, tiny, -1: (1 + -1) + tiny
  CHECK(reduce_sum(three, 3, 1) == tiny);
  float wide[33] = {};
  wide[0] = 1.0f;
  wide[32] = -1.0f;                                     // lane 0 is 1 + -1 before the tree
  wide[16] = tiny;
  CHECK(reduce_sum(wide, 33, 1) == tiny);
  const float zeros[] = {-0.0f, -0.0f};
  CHECK(!std::signbit(reduce_sum(zeros, 2, 1)));      // lanes start from +0
  // Against the model: random values, lengths around the lane count, strides.
  SplitMix64 rng{17};
  for (size_t n : {1u, 2u, 5u, 31u, 32u, 33u, 63u, 64u, 65u, 100u, 1000u, 1024u, 4099u}) {
    for (size_t stride : {1u, 3u}) {
      std::vector<float> x(n * stride);
      for (float& v : x) v = static_cast<float>(static_cast<int64_t>(rng.next() % 2000001) - 1000000) * 1.37e-3f;
      const float got = reduce_sum(x.data(), static_cast<int64_t>(n), static_cast<int64_t>(stride));
      CHECK_MESSAGE(bits_of_f32(got) == bits_of_f32(model_lane_sum(x, stride)), "n " << n << " stride " << stride);
    }
  }
  // f16/bf16 sum in f32; integer sums wrap (any order gives the same).
  const f16 halves[] = {f16_from_f32(0.5f), f16_from_f32(0.25f), f16_from_f32(0.125f)};
  CHECK(reduce_sum(halves, 3, 1) == 0.875f);
  std::vector<int8_t> bytes(300, 100);
  int8_t wrapped = 0;
  for (int8_t b : bytes) wrapped = wrap_add(wrapped, b);
  CHECK(reduce_sum(bytes.data(), 300, 1) == wrapped);
}

TEST_CASE("max and min over lanes equal the element-by-element maximum and minimum") {
  const float inf = std::numeric_limits<float>::infinity();
  const float qnan = f32_of_bits(0x7fc01234u), nnan = f32_of_bits(0xffc04321u);
  SplitMix64 rng{5};
  for (size_t n : {1u, 3u, 32u, 33u, 100u, 1024u}) {
    for (int kind = 0; kind < 6; ++kind) {
      std::vector<float> x(n);
      for (float& v : x) v = static_cast<float>(static_cast<int64_t>(rng.next() % 2001) - 1000);
      // 0: plain; 1: all zeros of both signs; 2: a NaN; 3: two NaNs; 4: infinities; 5: negatives and -0
      if (kind == 1) for (size_t i = 0; i < n; ++i) x[i] = i % 3 ? -0.0f : 0.0f;
      if (kind == 2) x[n / 2] = qnan;
      if (kind == 3) { x[n - 1] = qnan; x[0] = nnan; }
      if (kind == 4) { x[n / 3] = inf; x[n - 1] = -inf; }
      if (kind == 5) { for (float& v : x) v = -std::abs(v) - 1.0f; x[n / 2] = -0.0f; }
      float want_max = x[0], want_min = x[0];
      for (size_t i = 1; i < n; ++i) {
        want_max = maximum(want_max, x[i]);
        want_min = minimum(want_min, x[i]);
      }
      // Which NaN comes out of `a + b` is the compiler's choice (spec section 3: any NaN).
      auto same = [](float a, float b) { return std::isnan(a) ? std::isnan(b) : bits_of_f32(a) == bits_of_f32(b); };
      CHECK_MESSAGE(same(reduce_max(x.data(), static_cast<int64_t>(n), 1), want_max), "n " << n << " kind " << kind);
      CHECK_MESSAGE(same(reduce_min(x.data(), static_cast<int64_t>(n), 1), want_min), "n " << n << " kind " << kind);
    }
  }
  const int32_t ints[] = {3, -7, 12, 12, -7};
  CHECK(reduce_max(ints, 5, 1) == 12);
  CHECK(reduce_min(ints, 5, 1) == -7);
}

// ---------------------------------------------------------------------------
// .npy
// ---------------------------------------------------------------------------

TEST_CASE("npy descr tables") {
  CHECK(std::string(npy_descr_for("bool")) == "|b1");
  CHECK(std::string(npy_descr_for("i8")) == "|i1");
  CHECK(std::string(npy_descr_for("i16")) == "<i2");
  CHECK(std::string(npy_descr_for("i32")) == "<i4");
  CHECK(std::string(npy_descr_for("i64")) == "<i8");
  CHECK(std::string(npy_descr_for("u8")) == "|u1");
  CHECK(std::string(npy_descr_for("u16")) == "<u2");
  CHECK(std::string(npy_descr_for("u32")) == "<u4");
  CHECK(std::string(npy_descr_for("u64")) == "<u8");
  CHECK(std::string(npy_descr_for("f16")) == "<f2");
  CHECK(std::string(npy_descr_for("bf16")) == "<V2");
  CHECK(std::string(npy_descr_for("f32")) == "<f4");
  CHECK(std::string(npy_descr_for("f64")) == "<f8");
  CHECK(npy_descr_for("f128") == nullptr);
  CHECK(npy_descr_for("") == nullptr);
  CHECK(npy_descr_for(nullptr) == nullptr);

  CHECK(npy_descr_accepts("bf16", "<V2"));
  CHECK(npy_descr_accepts("bf16", "|V2"));
  CHECK(npy_descr_accepts("bf16", "<u2"));
  CHECK_FALSE(npy_descr_accepts("bf16", "<f2"));
  CHECK_FALSE(npy_descr_accepts("bf16", ">u2"));
  CHECK(npy_descr_accepts("i8", "|i1"));
  CHECK(npy_descr_accepts("i8", "<i1"));
  CHECK_FALSE(npy_descr_accepts("i8", "|u1"));
  CHECK(npy_descr_accepts("u8", "|u1"));
  CHECK(npy_descr_accepts("u8", "<u1"));
  CHECK(npy_descr_accepts("bool", "|b1"));
  CHECK_FALSE(npy_descr_accepts("bool", "|u1"));
  CHECK(npy_descr_accepts("f32", "<f4"));
  CHECK_FALSE(npy_descr_accepts("f32", ">f4"));
  CHECK_FALSE(npy_descr_accepts("f32", "<f8"));
  CHECK_FALSE(npy_descr_accepts("i32", "<i8"));
  CHECK_FALSE(npy_descr_accepts("u16", "<V2"));
  CHECK_FALSE(npy_descr_accepts("nope", "<f4"));
}

TEST_CASE("npy_write produces np.save's exact bytes") {
  TempDir dir;
  const int32_t values[3] = {0, 1, 2};
  std::string error;
  const std::string path = dir.file("arange.npy");
  REQUIRE(npy_write(path, "<i4", {3}, values, sizeof values, error));
  CHECK(read_bytes(path) == numpy_arange3_bytes());

  // 0-d array: shape "()", no growth padding.
  const double scalar = 2.5;
  REQUIRE(npy_write(dir.file("scalar.npy"), "<f8", {}, &scalar, sizeof scalar, error));
  std::string expect("\x93NUMPY\x01\x00\x76\x00", 10);
  expect += "{'descr': '<f8', 'fortran_order': False, 'shape': (), }";
  expect.append(127 - expect.size(), ' ');
  expect += '\n';
  expect.append("\x00\x00\x00\x00\x00\x00\x04\x40", 8);  // 2.5 = 0x4004000000000000
  CHECK(read_bytes(dir.file("scalar.npy")) == to_bytes(expect));

  // 2-D shape formatting.
  const uint16_t six[6] = {1, 2, 3, 4, 5, 6};
  REQUIRE(npy_write(dir.file("m.npy"), "<u2", {2, 3}, six, sizeof six, error));
  const auto m = read_bytes(dir.file("m.npy"));
  REQUIRE(m.size() == 128 + 12);
  const std::string header(m.begin() + 10, m.begin() + 128);
  CHECK(header.rfind("{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), }", 0) == 0);
  CHECK(header.back() == '\n');
  CHECK(m[8] == 118);
  CHECK(m[9] == 0);
}

TEST_CASE("npy round trip of every KD dtype") {
  TempDir dir;
  const char* dtypes[] = {"bool", "i8", "i16", "i32", "i64", "u8", "u16",
                          "u32", "u64", "f16", "bf16", "f32", "f64"};
  const size_t sizes[] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8};
  const std::vector<std::vector<uint64_t>> shapes = {{}, {0}, {7}, {2, 3}, {2, 1, 3, 2}, {130}};
  SplitMix64 g{99};
  for (size_t t = 0; t < 13; ++t) {
    for (const auto& shape : shapes) {
      uint64_t count = 1;
      for (uint64_t d : shape) count *= d;
      std::vector<unsigned char> data(static_cast<size_t>(count) * sizes[t]);
      for (auto& byte : data) byte = static_cast<unsigned char>(g.next() >> 56);
      if (std::strcmp(dtypes[t], "bool") == 0) {
        for (auto& byte : data) byte &= 1u;
      }
      const std::string path = dir.file(std::string(dtypes[t]) + "_" + std::to_string(shape.size()) + ".npy");
      std::string error;
      CAPTURE(dtypes[t]);
      CAPTURE(shape.size());
      REQUIRE(npy_write(path, npy_descr_for(dtypes[t]), shape, data.data(), data.size(), error));
      const auto bytes = read_bytes(path);
      CHECK((bytes.size() - data.size()) % 64 == 0);
      NpyArray a;
      REQUIRE(npy_read(path, a, error));
      CHECK(a.descr == npy_descr_for(dtypes[t]));
      CHECK(npy_descr_accepts(dtypes[t], a.descr));
      CHECK(a.shape == shape);
      CHECK(a.data == data);
    }
  }
}

TEST_CASE("npy_read of files written by NumPy, all format versions") {
  TempDir dir;
  std::string error;
  NpyArray a;
  write_bytes(dir.file("np.npy"), numpy_arange3_bytes());
  REQUIRE(npy_read(dir.file("np.npy"), a, error));
  CHECK(a.descr == "<i4");
  CHECK(a.shape == std::vector<uint64_t>{3});
  CHECK(a.data == std::vector<unsigned char>{0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0});

  const std::string data("\x01\x00\x02\x00", 4);
  for (int major = 1; major <= 3; ++major) {
    CAPTURE(major);
    const std::string path = dir.file("v" + std::to_string(major) + ".npy");
    write_bytes(path, make_npy(major, "{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", data));
    NpyArray b;
    REQUIRE(npy_read(path, b, error));
    CHECK(b.descr == "<u2");
    CHECK(b.shape == std::vector<uint64_t>{2});
    CHECK(b.data.size() == 4);
  }
  // Other spellings NumPy (or Python 2) produced: key order, double quotes,
  // no trailing comma, 'L' suffixes, a 1-byte big-endian descr.
  const std::string variants[] = {
      "{'shape': (2, 2), 'fortran_order': False, 'descr': '|u1'}",
      "{\"descr\": \"|u1\", \"fortran_order\": False, \"shape\": (2L, 2L)}",
      "{'descr': '>u1', 'fortran_order': False, 'shape': (4,)}",
      "{'descr': '|V2', 'fortran_order': False, 'shape': (1, 2), }",
  };
  for (const auto& dict : variants) {
    CAPTURE(dict);
    const std::string path = dir.file("variant.npy");
    write_bytes(path, make_npy(1, dict, std::string("\x01\x02\x03\x04", 4)));
    NpyArray b;
    CHECK(npy_read(path, b, error));
    CHECK(b.data.size() == 4);
  }
}

TEST_CASE("npy_read refuses bad files with clear errors") {
  TempDir dir;
  std::string error;
  NpyArray a;
  a.descr = "untouched";

  CHECK_FALSE(npy_read(dir.file("missing.npy"), a, error));
  CHECK(error.find("missing.npy") != std::string::npos);

  const auto good = numpy_arange3_bytes();

  // Truncated data.
  write_bytes(dir.file("trunc.npy"), std::vector<unsigned char>(good.begin(), good.end() - 1));
  CHECK_FALSE(npy_read(dir.file("trunc.npy"), a, error));
  CHECK(error.find("truncated") != std::string::npos);

  // Every truncation is refused without crashing.
  for (size_t n = 0; n < good.size(); ++n) {
    write_bytes(dir.file("t.npy"), std::vector<unsigned char>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n)));
    CAPTURE(n);
    CHECK_FALSE(npy_read(dir.file("t.npy"), a, error));
    CHECK_FALSE(error.empty());
  }

  // Extra bytes after the data.
  auto longer = good;
  longer.push_back(0);
  write_bytes(dir.file("long.npy"), longer);
  CHECK_FALSE(npy_read(dir.file("long.npy"), a, error));
  CHECK(error.find("larger") != std::string::npos);

  // Wrong magic.
  auto bad_magic = good;
  bad_magic[1] = 'X';
  write_bytes(dir.file("magic.npy"), bad_magic);
  CHECK_FALSE(npy_read(dir.file("magic.npy"), a, error));
  CHECK(error.find("magic") != std::string::npos);
  write_bytes(dir.file("text.npy"), to_bytes("hello, this is not an array\n"));
  CHECK_FALSE(npy_read(dir.file("text.npy"), a, error));
  CHECK(error.find("magic") != std::string::npos);

  // Unknown version.
  auto v9 = good;
  v9[6] = 9;
  write_bytes(dir.file("v9.npy"), v9);
  CHECK_FALSE(npy_read(dir.file("v9.npy"), a, error));
  CHECK(error.find("version") != std::string::npos);

  const std::string data12("\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00", 12);
  struct Case {
    const char* dict;
    const char* expect;
  };
  const Case cases[] = {
      {"{'descr': '<i4', 'fortran_order': True, 'shape': (3,), }", "Fortran"},
      {"{'descr': '>i4', 'fortran_order': False, 'shape': (3,), }", "big-endian"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }", "truncated"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (3, }", "shape"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (-3,), }", "shape"},
      {"{'descr': '<i4', 'fortran_order': False }", "lacks"},
      {"{'descr': '<i4', 'fortran_order': Maybe, 'shape': (3,), }", "fortran_order"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (3,), 'x': 1}", "unexpected key"},
      {"{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (3,), }", "structured"},
      {"{'descr': '|O', 'fortran_order': False, 'shape': (3,), }", "descr"},
      {"{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }", "descr"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (18446744073709551615, 2), }", "too large"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999999,), }", "shape"},
      {"['descr', '<i4']", "dict"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (3,), } trailing", "trailing"},
      {"", "dict"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.dict);
    write_bytes(dir.file("case.npy"), make_npy(1, c.dict, data12));
    error.clear();
    CHECK_FALSE(npy_read(dir.file("case.npy"), a, error));
    CHECK(error.find(c.expect) != std::string::npos);
    CHECK(error.find("case.npy") != std::string::npos);
  }
  // Header length pointing past the end of the file.
  auto huge = good;
  huge[8] = 0xFF;
  huge[9] = 0xFF;
  write_bytes(dir.file("hl.npy"), huge);
  CHECK_FALSE(npy_read(dir.file("hl.npy"), a, error));
  CHECK(a.descr == "untouched");  // out is left alone on failure
}

TEST_CASE("npy_read survives garbage") {
  TempDir dir;
  const auto good = numpy_arange3_bytes();
  SplitMix64 g{7};
  std::string error;
  int accepted = 0;
  for (int i = 0; i < 2000; ++i) {
    auto bytes = good;
    const int flips = 1 + static_cast<int>(g.next() % 4);
    for (int k = 0; k < flips; ++k) {
      const uint64_t r = g.next();
      bytes[static_cast<size_t>(r % bytes.size())] = static_cast<unsigned char>(r >> 56);
    }
    if (g.next() % 4 == 0) bytes.resize(static_cast<size_t>(g.next() % bytes.size()));
    write_bytes(dir.file("fuzz.npy"), bytes);
    NpyArray a;
    if (npy_read(dir.file("fuzz.npy"), a, error)) {
      ++accepted;
      uint64_t count = 1;
      for (uint64_t d : a.shape) count *= d;
      CHECK(a.data.size() == count * static_cast<uint64_t>(std::stoul(a.descr.substr(2))));
    } else {
      CHECK_FALSE(error.empty());
    }
  }
  CHECK(accepted > 0);  // flips inside padding / data keep the file valid
}

TEST_CASE("npy_parse on memory agrees with npy_read on the same bytes") {
  TempDir dir;
  const auto good = numpy_arange3_bytes();
  std::vector<std::vector<unsigned char>> inputs = {good, {}, to_bytes("\x93NUMPY")};
  for (size_t n = 0; n < good.size(); n += 7) {
    inputs.emplace_back(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
  }
  auto longer = good;
  longer.push_back(0);
  inputs.push_back(longer);
  inputs.push_back(
      make_npy(2, "{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", std::string("\x01\x00\x02\x00", 4)));
  inputs.push_back(make_npy(1, "{'descr': '<i4', 'fortran_order': True, 'shape': (0,), }", ""));
  for (const auto& bytes : inputs) {
    CAPTURE(bytes.size());
    const std::string path = dir.file("same.npy");
    write_bytes(path, bytes);
    NpyArray from_file, from_memory;
    std::string file_error, memory_error;
    const bool file_ok = npy_read(path, from_file, file_error);
    CHECK(npy_parse(bytes.data(), bytes.size(), from_memory, memory_error) == file_ok);
    if (file_ok) {
      CHECK(from_memory.descr == from_file.descr);
      CHECK(from_memory.shape == from_file.shape);
      CHECK(from_memory.data == from_file.data);
    } else {
      CHECK(file_error == path + ": " + memory_error);
    }
  }
}

TEST_CASE("npy_write refuses inconsistent input") {
  TempDir dir;
  std::string error;
  const float x[4] = {1, 2, 3, 4};
  CHECK_FALSE(npy_write(dir.file("a.npy"), "<f4", {3}, x, sizeof x, error));
  CHECK(error.find("do not match") != std::string::npos);
  CHECK_FALSE(npy_write(dir.file("b.npy"), ">f4", {4}, x, sizeof x, error));
  CHECK(error.find("big-endian") != std::string::npos);
  CHECK_FALSE(npy_write(dir.file("c.npy"), "nonsense", {4}, x, sizeof x, error));
  CHECK_FALSE(npy_write(dir.file("no/such/dir/d.npy"), "<f4", {4}, x, sizeof x, error));
  CHECK(error.find("cannot open") != std::string::npos);
  CHECK(npy_write(dir.file("empty.npy"), "<f4", {0, 5}, nullptr, 0, error));
}

// ---------------------------------------------------------------------------
// Checksums and seeded inputs
// ---------------------------------------------------------------------------

TEST_CASE("fnv1a64 test vectors") {
  CHECK(fnv1a64("", 0) == 0xcbf29ce484222325ull);
  CHECK(fnv1a64("a", 1) == 0xaf63dc4c8601ec8cull);
  CHECK(fnv1a64("foobar", 6) == 0x85944171f73967e8ull);
}

TEST_CASE("SplitMix64 test vectors") {
  SplitMix64 g{1234567};
  CHECK(g.next() == 6457827717110365317ull);
  CHECK(g.next() == 3203168211198807973ull);
  CHECK(g.next() == 9817491932198370423ull);
  CHECK(g.next() == 4593380528125082431ull);
  CHECK(g.next() == 16408922859458223821ull);
  SplitMix64 z{0};
  CHECK(z.next() == 0xe220a8397b1dcdafull);
  CHECK(z.next() == 0x6e789e6aa1b965f4ull);
}

TEST_CASE("fill_random: fixed values, ranges, determinism") {
  // Seed 7 draws: r0 >> 60 = 6, r1 >> 60 = 0, r2 >> 60 = 14, r3 >> 60 = 9.
  int32_t i32[4];
  fill_random(i32, 4, 7);
  CHECK(i32[0] == -2);
  CHECK(i32[1] == -8);
  CHECK(i32[2] == 6);
  CHECK(i32[3] == 1);
  uint8_t u8[4];
  fill_random(u8, 4, 7);
  CHECK(u8[0] == 6);
  CHECK(u8[1] == 0);
  CHECK(u8[2] == 14);
  CHECK(u8[3] == 9);
  bool b[4];
  fill_random(b, 4, 7);
  CHECK_FALSE(b[0]);
  CHECK_FALSE(b[1]);
  CHECK(b[2]);
  CHECK(b[3]);
  float f[4];
  fill_random(f, 4, 7);
  CHECK(bits_of_f32(f[0]) == bits_of_f32(-0.22034060955047607f));
  CHECK(bits_of_f32(f[2]) == bits_of_f32(0.8015213012695312f));
  double d[2];
  fill_random(d, 2, 7);
  CHECK(bits_of_f64(d[0]) == bits_of_f64(-0x1.c341e1ba6cdf8p-3));
  CHECK(bits_of_f64(d[1]) == bits_of_f64(-0x1.eecf0ca02f0e8p-1));
  f16 h[3];
  fill_random(h, 3, 7);
  CHECK(h[0].bits == 0xB310);  // 1596/2048 - 1 = -0.220703125
  CHECK(h[1].bits == 0xBBBC);  // 68/2048 - 1 = -0.966796875
  bf16 bh[3];
  fill_random(bh, 3, 7);
  CHECK(bh[0].bits == 0xBE64);  // 199/256 - 1 = -0.22265625
  CHECK(bh[2].bits == 0x3F4D);  // 461/256 - 1 = 0.80078125

  // Ranges over many draws, every type.
  std::vector<float> vf(10000);
  fill_random(vf.data(), vf.size(), 1);
  CHECK(*std::min_element(vf.begin(), vf.end()) >= -1.0f);
  CHECK(*std::max_element(vf.begin(), vf.end()) < 1.0f);
  std::vector<f16> vh(10000);
  fill_random(vh.data(), vh.size(), 1);
  bool ok = true;
  for (f16 x : vh) ok = ok && to_f32(x) >= -1.0f && to_f32(x) < 1.0f;
  CHECK(ok);
  std::vector<bf16> vb(10000);
  fill_random(vb.data(), vb.size(), 1);
  ok = true;
  for (bf16 x : vb) ok = ok && to_f32(x) >= -1.0f && to_f32(x) < 1.0f;
  CHECK(ok);
  std::vector<int8_t> vi(10000);
  fill_random(vi.data(), vi.size(), 1);
  CHECK(*std::min_element(vi.begin(), vi.end()) == -8);
  CHECK(*std::max_element(vi.begin(), vi.end()) == 7);
  std::vector<uint64_t> vu(10000);
  fill_random(vu.data(), vu.size(), 1);
  CHECK(*std::min_element(vu.begin(), vu.end()) == 0u);
  CHECK(*std::max_element(vu.begin(), vu.end()) == 15u);
  std::vector<int64_t> v64(1000), w64(1000), x64(1000);
  fill_random(v64.data(), v64.size(), 5);
  fill_random(w64.data(), w64.size(), 5);
  fill_random(x64.data(), x64.size(), 6);
  CHECK(v64 == w64);
  CHECK(v64 != x64);
}

TEST_CASE("add_run: the vectorised disjoint loop and the overlapping one add as the plain loop does") {
  // Written apart from the runtime: dst[j] += src[j] in order j = 0, 1, ...
  auto plain = [](std::vector<float> v, size_t d, size_t s, size_t n) {
    for (size_t j = 0; j < n; ++j) v[d + j] = v[d + j] + v[s + j];
    return v;
  };
  std::vector<float> base(64);
  for (size_t i = 0; i < base.size(); ++i) base[i] = 0.25f * static_cast<float>(i) - 3.0f;
  // Disjoint, touching, overlapping both ways, and the same run.
  for (auto [d, s] : std::vector<std::pair<size_t, size_t>>{{0, 32}, {32, 0}, {0, 16}, {1, 0}, {0, 1}, {8, 8}}) {
    CAPTURE(d);
    CAPTURE(s);
    std::vector<float> v = base;
    kdt_rt::add_run(v.data() + d, v.data() + s, int64_t{16});
    CHECK(v == plain(base, d, s, 16));
  }
}

}  // TEST_SUITE
