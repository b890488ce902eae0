// Grid axes and block specs (spec section 13): what the checker makes of
// them (axes, names, the block's type) and what lowering makes of them (the
// launch's grid, the steps, the double buffers and their semaphores).
#include <doctest/doctest.h>

#include "kdt/check/check.h"
#include "kdt/ir/ir.h"
#include "kdt/ir/lower.h"
#include "test_support.h"

namespace {

std::unique_ptr<kdt::Compilation> check(const std::string& text) {
  auto c = kdt::test::front_end(text);
  REQUIRE_MESSAGE(c->ok, "the text does not check:\n" << text);
  return c;
}

const char* const kMatmul =
    "kernel mm(a: in f32[64, 32] @global block [16, 8] at (i, k),\n"
    "          b: in f32[32, 64] @global block [8, 16] at (k, j),\n"
    "          c: out f32[64, 64] @global block [16, 16] at (i, j))\n"
    "    grid(i: 4, sequential k: 4, j: 4)\n"
    "{\n"
    "    if k == 0 { c[...] = zeros(f32[16, 16]); }\n"
    "    c[...] += dot(a, b);\n"
    "}\n";

}  // namespace

TEST_SUITE("check") {
  TEST_CASE("grid axes: names, sequential axes, and `sequential` as an ordinary name") {
    auto c = check(
        "const sequential = 3;\n"
        "kernel k(o: out i32[3, 2] @global) grid(sequential, t: 2) { o[program_id(0), t] = num_programs(t); }\n");
    const kdt::ast::Kernel& k = *c->program.kernels[0];
    REQUIRE(k.axes.size() == 2);
    CHECK(k.grid == std::vector<int64_t>{3, 2});
    CHECK_FALSE(k.axes[0].sequential);
    CHECK(k.axes[0].name.empty());
    CHECK(k.axes[1].name == "t");
    REQUIRE(k.axes[1].symbol != nullptr);
    CHECK(k.axes[1].symbol->grid_axis == 1);

    auto s = check(kMatmul);
    const kdt::ast::Kernel& m = *s->program.kernels[0];
    CHECK(m.axes[1].sequential);
    CHECK(m.axes[1].name == "k");
  }

  TEST_CASE("block specs: inside the body the parameter is a @shared ref of the block") {
    auto c = check(kMatmul);
    const kdt::ast::Param& a = c->program.kernels[0]->params[0];
    REQUIRE(a.block);
    CHECK(a.block->shape == kdt::Shape{16, 8});
    CHECK(a.block->array_shape == kdt::Shape{64, 32});
    CHECK(a.symbol->block_spec);
    CHECK(a.symbol->type.shape == kdt::Shape{16, 8});
    CHECK(a.symbol->type.space == kdt::MemSpace::Shared);
  }

  TEST_CASE("lowering: parallel axes are the grid, sequential ones the steps, two buffers per spec") {
    auto c = check(kMatmul);
    kdt::ir::Module m = kdt::lower_program(c->program, "");
    const kdt::ir::Kernel& k = m.kernels[0];
    CHECK(k.grid == std::vector<int64_t>{4, 4});
    CHECK(k.steps == std::vector<int64_t>{4});
    // The arrays keep their shape; each spec has [2, block] scratch and a dma[2].
    CHECK(k.refs[0].shape == kdt::Shape{64, 32});
    REQUIRE(k.refs.size() == 6);
    CHECK(k.refs[3].name == "a_blocks");
    CHECK(k.refs[3].shape == kdt::Shape{2, 16, 8});
    CHECK(k.refs[3].block_of == "a");
    CHECK(k.refs[5].shape == kdt::Shape{2, 16, 16});
    REQUIRE(k.sems.size() == 3);
    CHECK(k.sems[2].name == "c_sems");
    CHECK(k.sems[2].count == 2);
    // The body is one loop over k after the pipeline's state; `j` is
    // program_id(1) of the launch, though it is grid axis 2.
    int loops = 0;
    for (const kdt::ir::StmtPtr& s : k.body) loops += s->kind == kdt::ir::StmtKind::For;
    CHECK(loops == 1);
    const std::string ir = kdt::ir::print_module(m, c->sources);
    CHECK(ir.find("kernel @mm grid[4, 4] steps[4]") != std::string::npos);
    CHECK(ir.find("let %j = program_id(1)") != std::string::npos);
    CHECK(ir.find("for %k in 0i32 .. 4i32") != std::string::npos);
  }

  TEST_CASE("lowering: without a sequential axis, one buffer, no loop, no slot") {
    auto c = check(
        "kernel rows(x: in f32[8, 4] @global block [2, 4] at (i, 0), y: out f32[8, 4] @global block [2, 4] at (i, 0))\n"
        "    grid(i: 4)\n{\n    y[...] = x[...] * 2.0;\n}\n");
    kdt::ir::Module m = kdt::lower_program(c->program, "");
    const kdt::ir::Kernel& k = m.kernels[0];
    CHECK(k.steps.empty());
    CHECK(k.refs[2].shape == kdt::Shape{1, 2, 4});
    CHECK(k.sems[0].count == 1);
    for (const kdt::ir::StmtPtr& s : k.body) CHECK(s->kind != kdt::ir::StmtKind::For);
  }
}
