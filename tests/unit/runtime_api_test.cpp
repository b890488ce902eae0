// The operator API of the C++ runtime prelude as emitted code calls it (T
// deduced: op_add(a, b)): f16 and bf16 round after each operation, integers
// wrap; and a run-time error's code is the registry's enumerator.
#include <doctest/doctest.h>

#include <cmath>

#include "kdt/runtime/kdt_exec.h"

using namespace kdt_rt;

TEST_SUITE("runtime") {
  TEST_CASE("op_add(a, b) rounds f16 and bf16 after each operation and wraps integers") {
    CHECK(op_add(f16_from_f32(2048.0f), f16_from_f32(1.0f)).bits == f16_from_f32(2048.0f).bits);
    CHECK(op_add(bf16_from_f32(256.0f), bf16_from_f32(1.0f)).bits == bf16_from_f32(256.0f).bits);
    CHECK(op_mul(f16_from_f32(65504.0f), f16_from_f32(2.0f)).bits == f16_from_f32(INFINITY).bits);
    CHECK(op_rem(f16_from_f32(7.5f), f16_from_f32(2.0f)).bits == f16_from_f32(1.5f).bits);
    CHECK(op_add(int8_t{127}, int8_t{1}) == int8_t{-128});
    CHECK(op_sub(int16_t{-32768}, int16_t{1}) == int16_t{32767});
    CHECK(op_mul(uint8_t{200}, uint8_t{2}) == uint8_t{144});
    CHECK(op_neg(INT32_MIN) == INT32_MIN);
    CHECK(op_add(UINT64_MAX, uint64_t{2}) == uint64_t{1});
  }

  TEST_CASE("a run-time error's code is the registry's enumerator, reported by its name") {
    SourceLoc loc{"k.kd", 3, 5, 10, 12};
    RunError typed{Code::DmaWaitMismatch, "m", loc, {}};
    CHECK(typed.code == Code::DmaWaitMismatch);
    CHECK(typed.code != Code::OutOfBounds);
    CHECK(std::string(typed.code.name()) == "dma-wait-mismatch");
    try {
      fail(Code::OutOfBounds, loc, "x");
    } catch (const RunFailure& f) {
      CHECK(f.error.code == Code::OutOfBounds);
      CHECK(std::string(f.error.code.name()) == "out-of-bounds");
    }
  }
}
