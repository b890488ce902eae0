// The operator API of the C++ runtime prelude: the explicit-type spelling
// that the CUDA prelude uses (op_add<T>(a, b), kdt_cu::op_add<T>) gives the
// same results as the deduced one (op_add(a, b)), for every dtype; and a
// run-time error's code is the registry's, given as an enumerator or a name.
#include <doctest/doctest.h>

#include <cmath>

#include "kdt/runtime/kdt_exec.h"

namespace {

using namespace kdt_rt;

template <class T>
uint64_t bits_of(T x) {
  if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
    return x.bits;
  } else if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x)) return 0x7ff8;  // any NaN is a NaN
    uint64_t b = 0;
    std::memcpy(&b, &x, sizeof x);
    return b;
  } else {
    return static_cast<uint64_t>(x);
  }
}

template <class T>
void both_spellings_agree(T a, T b) {
  CHECK(bits_of(op_add<T>(a, b)) == bits_of(op_add(a, b)));
  CHECK(bits_of(op_sub<T>(a, b)) == bits_of(op_sub(a, b)));
  CHECK(bits_of(op_mul<T>(a, b)) == bits_of(op_mul(a, b)));
  CHECK(bits_of(op_neg<T>(a)) == bits_of(op_neg(a)));
  if constexpr (!std::is_integral_v<T>) {
    CHECK(bits_of(op_div<T>(a, b)) == bits_of(op_div(a, b)));
    CHECK(bits_of(op_rem<T>(a, b)) == bits_of(op_rem(a, b)));
  }
}

}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE("op_add<T>(a, b) and op_add(a, b) agree for every dtype") {
    for (float x : {0.0f, -0.0f, 1.5f, -2.75f, 65504.0f, 1e-7f, INFINITY, NAN}) {
      for (float y : {1.0f, -3.25f, 0.1f, 65504.0f, -INFINITY}) {
        CAPTURE(x);
        CAPTURE(y);
        both_spellings_agree<float>(x, y);
        both_spellings_agree<double>(x, y);
        both_spellings_agree<f16>(f16_from_f32(x), f16_from_f32(y));
        both_spellings_agree<bf16>(bf16_from_f32(x), bf16_from_f32(y));
      }
    }
    both_spellings_agree<int8_t>(127, 1);
    both_spellings_agree<int16_t>(-32768, -1);
    both_spellings_agree<int32_t>(INT32_MIN, 3);
    both_spellings_agree<int64_t>(INT64_MAX, 2);
    both_spellings_agree<uint8_t>(200, 100);
    both_spellings_agree<uint16_t>(1, 2);
    both_spellings_agree<uint32_t>(0, 1);
    both_spellings_agree<uint64_t>(UINT64_MAX, 2);
    // The explicit form rounds f16 after each operation too, and wraps integers.
    CHECK(op_add<f16>(f16_from_f32(2048.0f), f16_from_f32(1.0f)).bits == f16_from_f32(2048.0f).bits);
    CHECK(op_add<int8_t>(int8_t{127}, int8_t{1}) == int8_t{-128});
  }

  TEST_CASE("a run-time error's code: an enumerator or its name") {
    SourceLoc loc{"k.kd", 3, 5, 10, 12};
    RunError legacy{"dma-wait-mismatch", "m", loc, {}};
    RunError typed{Code::DmaWaitMismatch, "m", loc, {}};
    CHECK(legacy.code == typed.code);
    CHECK(std::string(typed.code.name()) == "dma-wait-mismatch");
    try {
      fail(Code::OutOfBounds, loc, "x");
    } catch (const RunFailure& f) {
      CHECK(f.error.code == Code::OutOfBounds);
      CHECK(std::string(f.error.code.name()) == "out-of-bounds");
    }
    try {
      fail("assert-failed", loc, "x");
    } catch (const RunFailure& f) {
      CHECK(f.error.code == Code::AssertFailed);
    }
  }
}
