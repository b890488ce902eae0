// `kdt run`'s optimisation level (driver/run_opt.h, issue 17): -O2 only for
// kernels whose launch does enough element operations to repay it.
#include <doctest/doctest.h>

#include "driver/run_opt.h"
#include "kdt/ir/lower.h"
#include "test_support.h"

namespace {

kdt::ir::Module lowered(const std::string& text) {
  auto c = kdt::test::front_end(text);
  REQUIRE_MESSAGE(c->ok, "the text does not check:\n" << text);
  return kdt::lower_program(c->program, "");
}

}  // namespace

TEST_SUITE("run") {
  TEST_CASE("the work estimate counts elements, dot products, constant loops and programs") {
    // One store of 1024 elements (a load and an add of 1024 each, and the
    // store's 1024), per program.
    const std::string body = "{ let t = x[ds(program_id(0) * 1024, 1024)]; y[ds(program_id(0) * 1024, 1024)] = t + 1.0; }\n";
    auto one = lowered("kernel k(x: in f32[4096] @global, y: out f32[4096] @global) grid(1) " + body);
    auto four = lowered("kernel k(x: in f32[4096] @global, y: out f32[4096] @global) grid(4) " + body);
    const int64_t per_program = kdt::estimate_element_ops(one.kernels[0]);
    CHECK(per_program >= 3 * 1024);
    CHECK(per_program < 8 * 1024);
    CHECK(kdt::estimate_element_ops(four.kernels[0]) == 4 * per_program);

    // A constant loop multiplies its body; a dot counts M x N x K.
    auto looped = lowered(
        "kernel k(x: in f32[4096] @global, y: out f32[4096] @global) grid(1) {\n"
        "  for i in 0..10 { let t = x[ds(i * 256, 256)]; y[ds(i * 256, 256)] = t * 2.0; }\n"
        "}\n");
    const int64_t loop_ops = kdt::estimate_element_ops(looped.kernels[0]);
    CHECK(loop_ops >= 10 * 3 * 256);
    CHECK(loop_ops < 10 * 8 * 256);
    auto dot = lowered(
        "kernel k(a: in f32[512, 512] @global, b: in f32[512, 512] @global, c: out f32[512, 512] @global) grid(1) {\n"
        "  c[...] = dot(a[...], b[...]);\n"
        "}\n");
    CHECK(kdt::estimate_element_ops(dot.kernels[0]) >= int64_t{512} * 512 * 512);
  }

  TEST_CASE("tiny kernels compile at -Og, medium ones at -O1, long-running ones at -O2") {
    auto tiny = lowered("kernel k(x: in f32[64] @global, y: out f32[64] @global) grid(1) { y[...] = x[...] * 2.0; }\n");
    CHECK(kdt::kernel_opt_level(tiny.kernels[0]) == "-Og");
    auto medium = lowered(
        "kernel k(x: in f32[1048576] @global, y: out f32[1048576] @global) grid(64) {\n"
        "  let i = program_id(0) * 16384;\n"
        "  y[ds(i, 16384)] = x[ds(i, 16384)] * 2.0;\n"
        "}\n");
    CHECK(kdt::kernel_opt_level(medium.kernels[0]) == "-O1");
    auto matmul = lowered(
        "kernel k(a: in f32[1024, 1024] @global, b: in f32[1024, 1024] @global, c: out f32[1024, 1024] @global)\n"
        "    grid(8, 8) {\n"
        "  let i = program_id(0) * 128;\n"
        "  let j = program_id(1) * 128;\n"
        "  c[ds(i, 128), ds(j, 128)] = zeros(f32[128, 128]);\n"
        "  for kk in 0..8 {\n"
        "    c[ds(i, 128), ds(j, 128)] += dot(a[ds(i, 128), ds(kk * 128, 128)], b[ds(kk * 128, 128), ds(j, 128)]);\n"
        "  }\n"
        "}\n");
    CHECK(kdt::kernel_opt_level(matmul.kernels[0]) == "-O2");
    // Saturates rather than overflowing: 2^62 programs' worth of work.
    auto huge = lowered(
        "kernel k(y: out f32[1024] @global) grid(1) {\n"
        "  for i in 0..2147483647 { for j in 0..2147483647 { for l in 0..2147483647 { y[...] = zeros(f32[1024]); } } }\n"
        "}\n");
    CHECK(kdt::estimate_element_ops(huge.kernels[0]) > 0);
    // A step at the end of int64_t (one trip, no overflow), and the whole i32 range.
    auto stepped = lowered(
        "kernel k(y: out f32[4] @global) grid(1) {\n"
        "  for i in 0..10 step 9223372036854775807 { y[...] = zeros(f32[4]); }\n"
        "}\n");
    const int64_t one_trip = kdt::estimate_element_ops(stepped.kernels[0]);
    CHECK(one_trip > 0);
    CHECK(one_trip < 64);
    auto wide = lowered(
        "kernel k(y: out f32[4] @global) grid(1) {\n"
        "  for j in -2147483648..2147483647 { y[...] = zeros(f32[4]); }\n"
        "}\n");
    CHECK(kdt::estimate_element_ops(wide.kernels[0]) > int64_t{1} << 32);
    CHECK(kdt::kernel_opt_level(huge.kernels[0]) == "-O2");
  }
}
