// The checker (spec sections 2-9): weak literals, broadcasting, constants
// and -D overrides, reductions, dot, casts, asm tuples and semaphore kinds.
#include <doctest/doctest.h>

#include <algorithm>

#include "kdt/check/check.h"
#include "test_support.h"

namespace {

using kdt::Compilation;
namespace ast = kdt::ast;

std::unique_ptr<Compilation> check(const std::string& text, std::map<std::string, int64_t> defines = {}) {
  kdt::Options options;
  options.defines = std::move(defines);
  options.static_dma_checks = false;  // the checker's codes alone (dma_protocol_test.cpp has the rest)
  auto c = kdt::test::front_end(text, "test.kd", options);
  REQUIRE_MESSAGE(c->parsed, "the text does not parse:\n" << text);
  return c;
}

using kdt::test::codes;

using Codes = std::vector<std::string>;

// The codes the statements `stmts` get inside a kernel with a few refs:
//   a: in f32[8, 128], b: in f32[128], u: in u8[64], h: in f16[64], v: inout i32[64],
//   y: out f32[8, 128], n: i32 (scalar).
std::string in_kernel(const std::string& stmts) {
  return "kernel k(a: in f32[8, 128] @global, b: in f32[128] @global, u: in u8[64] @global,\n"
         "         h: in f16[64] @global, v: inout i32[64] @global, y: out f32[8, 128] @global, n: i32)\n"
         "    grid(4, 2) devices(2)\n{\n" +
         stmts + "}\n";
}

Codes codes_of(const std::string& stmts) { return codes(*check(in_kernel(stmts))); }

// The type of the first `let`/`var` binding named `name` anywhere in kernel 0.
const kdt::Symbol* find_binding(const std::vector<ast::StmtPtr>& stmts, const std::string& name) {
  for (const ast::StmtPtr& s : stmts) {
    for (const kdt::Symbol* sym : s->declared) {
      if (sym->name == name) return sym;
    }
    if (const kdt::Symbol* inner = find_binding(s->body.stmts, name)) return inner;
    for (const ast::IfClause& clause : s->clauses) {
      if (const kdt::Symbol* inner = find_binding(clause.body.stmts, name)) return inner;
    }
  }
  return nullptr;
}

// `let _t = EXPR;` in the standard kernel: the type the checker gives it
// (or "<error>"), with the codes of any diagnostics.
struct Typed {
  std::string type;
  Codes codes;
};

Typed type_of(const std::string& expr, const std::string& before = "") {
  auto c = check(in_kernel(before + "    let _t = " + expr + ";\n"));
  const kdt::Symbol* s = find_binding(c->program.module.files.back().kernels[0].body.stmts, "_t");
  REQUIRE(s);
  return {kdt::type_string(s->type), codes(*c)};
}

std::string type_ok(const std::string& expr, const std::string& before = "") {
  Typed t = type_of(expr, before);
  CHECK_MESSAGE(t.codes.empty(), expr << " reports " << (t.codes.empty() ? "" : t.codes[0]));
  return t.type;
}

Codes errors_of(const std::string& expr, const std::string& before = "") { return type_of(expr, before).codes; }

const kdt::Symbol* const_symbol(const Compilation& c, const std::string& name) {
  for (const ast::ConstDecl* d : c.program.consts) {
    if (d->name.text == name) return d->symbol;
  }
  return nullptr;
}

}  // namespace

TEST_SUITE("check") {
  TEST_CASE("alone, an integer literal is i32 and a float literal f32") {
    CHECK(type_ok("1") == "i32");
    CHECK(type_ok("2.5") == "f32");
    CHECK(type_ok("1 + 2") == "i32");
    CHECK(type_ok("1 + 2.0") == "f32");  // both weak: the float wins
    CHECK(type_ok("true") == "bool");
    CHECK(type_ok("inf") == "f32");
    CHECK(type_ok("-nan") == "f32");
    CHECK(type_ok("1 < 2") == "bool");
  }

  TEST_CASE("a weak literal takes the dtype of its neighbour") {
    CHECK(type_ok("u[0] + 200") == "u8");
    CHECK(type_ok("200 + u[0]") == "u8");
    CHECK(type_ok("u + 1") == "u8[64]");
    CHECK(type_ok("h * 2.0") == "f16[64]");
    CHECK(type_ok("h * 2") == "f16[64]");  // an integer literal next to a float becomes that float
    CHECK(type_ok("b + 1") == "f32[128]");
    CHECK(type_ok("v + (100 + 100)") == "i32[64]");
    CHECK(type_ok("u[0] + (100 + 100)") == "u8");  // folded: 200 fits
    CHECK(type_ok("-128 + i8(v[0])") == "i8");
    CHECK(type_ok("n * 3") == "i32");
    CHECK(type_ok("n > 0 ? 1.5 : 2.5") == "f32");
    CHECK(type_ok("n > 0 ? u[0] : 7") == "u8");
    // The literal node itself is annotated with the dtype it took.
    auto c = check(in_kernel("    let _t = u[0] + 7;\n"));
    const ast::Expr& sum = *c->program.module.files.back().kernels[0].body.stmts[0]->value;
    CHECK(sum.operands[1]->type.dtype == kdt::DType::U8);
    CHECK(!sum.operands[1]->type.weak);
    CHECK(sum.operands[1]->const_value == 7);
  }

  TEST_CASE("an integer literal that does not fit the dtype it takes") {
    CHECK(errors_of("u[0] + 256") == Codes{"literal-out-of-range"});
    CHECK(errors_of("u[0] + -1") == Codes{"literal-out-of-range"});
    CHECK(errors_of("u[0] + 255") == Codes{});
    CHECK(errors_of("u[0] + (200 + 100)") == Codes{"literal-out-of-range"});
    CHECK(errors_of("u[0] + 2 * 150") == Codes{"literal-out-of-range"});
    CHECK(errors_of("3000000000") == Codes{"literal-out-of-range"});      // alone: i32
    CHECK(errors_of("n + 2147483648") == Codes{"literal-out-of-range"});
    CHECK(errors_of("n + 2147483647") == Codes{});
    CHECK(errors_of("i64(n) + 3000000000") == Codes{});
    CHECK(errors_of("u64(n) + 18446744073709551615") == Codes{});
    CHECK(errors_of("i64(n) + 18446744073709551615") == Codes{"literal-out-of-range"});
    CHECK(errors_of("18446744073709551615") == Codes{"literal-out-of-range"});
    CHECK(errors_of("n + 99999999999999999999") == Codes{"literal-out-of-range"});
    CHECK(errors_of("f32(n) + 99999999999999999999") == Codes{"literal-out-of-range"});
  }

  TEST_CASE("a float literal next to an integer operand is an error") {
    CHECK(errors_of("n + 1.5") == Codes{"type-mismatch"});
    CHECK(errors_of("v * 0.5") == Codes{"type-mismatch"});
    CHECK(errors_of("u[0] < 1.0") == Codes{"type-mismatch"});
    CHECK(errors_of("f32(n) + 1.5") == Codes{});
    CHECK(codes_of("    v[...] = 1.5;\n") == Codes{"type-mismatch"});
    CHECK(codes_of("    v[...] = i32(1.5);\n") == Codes{});
  }

  TEST_CASE("a let binding is no longer weak") {
    // `let x = 300;` is an i32; next to a u8 it is a dtype mismatch, not a literal.
    CHECK(errors_of("x + u[0]", "    let x = 300;\n") == Codes{"type-mismatch"});
    CHECK(type_ok("x + 1", "    let x = 300;\n") == "i32");
    CHECK(errors_of("x + b", "    let x = 1.0;\n") == Codes{});
    CHECK(errors_of("x + h", "    let x = 1.0;\n") == Codes{"type-mismatch"});  // f32 vs f16
    // A `const` stays weak: it is an integer constant expression.
    auto c = check("const K = 7;\n" + in_kernel("    let _t = u[0] + K;\n"));
    CHECK(codes(*c).empty());
  }

  TEST_CASE("strong operands never convert") {
    CHECK(errors_of("h + b[0:64]") == Codes{"type-mismatch"});
    CHECK(errors_of("v + u") == Codes{"type-mismatch"});
    CHECK(errors_of("n + u[0]") == Codes{"type-mismatch"});
    CHECK(errors_of("b > 0.0 && n") == Codes{"type-mismatch"});
    CHECK(type_ok("f16(b[0:64]) + h") == "f16[64]");
  }

  TEST_CASE("operators and the dtypes they accept") {
    CHECK(type_ok("v << 2") == "i32[64]");
    CHECK(type_ok("u & u") == "u8[64]");
    CHECK(type_ok("~v") == "i32[64]");
    CHECK(type_ok("-b") == "f32[128]");
    CHECK(type_ok("b > 0.0 || b < -1.0") == "bool[128]");
    CHECK(type_ok("!(b > 0.0)") == "bool[128]");
    CHECK(type_ok("b == b") == "bool[128]");
    CHECK(errors_of("b << 2") == Codes{"type-mismatch"});
    CHECK(errors_of("b & b") == Codes{"type-mismatch"});
    CHECK(errors_of("~b") == Codes{"type-mismatch"});
    CHECK(errors_of("!v") == Codes{"type-mismatch"});
    CHECK(errors_of("v && v") == Codes{"type-mismatch"});
    CHECK(errors_of("(b > 0.0) + (b > 1.0)") == Codes{"type-mismatch"});
    CHECK(errors_of("(b > 0.0) + 1") == Codes{"type-mismatch"});
  }

  TEST_CASE("broadcast_shapes follows NumPy") {
    using kdt::Shape;
    CHECK(kdt::broadcast_shapes({8, 128}, {128}) == Shape{8, 128});
    CHECK(kdt::broadcast_shapes({8, 1}, {1, 128}) == Shape{8, 128});
    CHECK(kdt::broadcast_shapes({}, {4, 4}) == Shape{4, 4});
    CHECK(kdt::broadcast_shapes({2, 1, 4}, {3, 1}) == Shape{2, 3, 4});
    CHECK(kdt::broadcast_shapes({1}, {1}) == Shape{1});
    CHECK(!kdt::broadcast_shapes({8, 128}, {8}));
    CHECK(!kdt::broadcast_shapes({2, 3}, {3, 2}));
  }

  TEST_CASE("element-wise operators broadcast tiles") {
    CHECK(type_ok("a + b") == "f32[8, 128]");
    CHECK(type_ok("a * 2.0") == "f32[8, 128]");
    CHECK(type_ok("a[:, 0:1] + b") == "f32[8, 128]");  // [8, 1] + [128]
    CHECK(type_ok("a[0:1, :] * a") == "f32[8, 128]");
    CHECK(type_ok("a[0] + b") == "f32[128]");
    CHECK(type_ok("a[0, 0] + b") == "f32[128]");
    CHECK(type_ok("reshape(b, [1, 1, 128]) + a") == "f32[1, 8, 128]");
    CHECK(errors_of("a + b[0:8]") == Codes{"shape-mismatch"});
    CHECK(errors_of("a + transpose(a)") == Codes{"shape-mismatch"});
    CHECK(errors_of("where(b[0:8] > 0.0, a, 0.0)") == Codes{"shape-mismatch"});
    // Assignment broadcasts the value to the target, never the other way.
    CHECK(codes_of("    y[...] = b;\n") == Codes{});
    CHECK(codes_of("    y[...] = 0.0;\n") == Codes{});
    CHECK(codes_of("    y[0] = a;\n") == Codes{"shape-mismatch"});
    CHECK(codes_of("    y[...] = reshape(b, [1, 1, 128]);\n") == Codes{"shape-mismatch"});
  }

  TEST_CASE("views: shapes of every index form") {
    CHECK(type_ok("a") == "f32[8, 128]");
    CHECK(type_ok("a[...]") == "f32[8, 128]");
    CHECK(type_ok("a[1]") == "f32[128]");
    CHECK(type_ok("a[1, 2]") == "f32");
    CHECK(type_ok("a[:, 2]") == "f32[8]");
    CHECK(type_ok("a[2:6]") == "f32[4, 128]");
    CHECK(type_ok("a[ds(n, 4), 64:128]") == "f32[4, 64]");
    CHECK(type_ok("a[n]") == "f32[128]");
    CHECK(type_ok("a[n % 8, ...]") == "f32[128]");
    CHECK(type_ok("b[...][0:4]") == "f32[4]");  // static slice of a tile value
    CHECK(errors_of("a[8]") == Codes{"static-out-of-bounds"});
    CHECK(errors_of("a[-1]") == Codes{"static-out-of-bounds"});
    CHECK(errors_of("a[4:4]") == Codes{"static-out-of-bounds"});  // empty
    CHECK(errors_of("a[0, 0, 0]") == Codes{"shape-mismatch"});
    CHECK(errors_of("a[..., 0]") == Codes{"syntax"});
    CHECK(errors_of("a[ds(6, 4)]") == Codes{"static-out-of-bounds"});
    CHECK(errors_of("a[ds(n, 0)]") == Codes{"not-constant"});
    CHECK(errors_of("a[ds(0, n)]") == Codes{"not-constant"});
    CHECK(errors_of("b[...][n]") == Codes{"not-constant"});
    CHECK(errors_of("a[1.0]") == Codes{"type-mismatch"});
  }

  TEST_CASE("constant expressions") {
    auto c = check(
        "const A = 1 << 10;\n"
        "const B = A / 3 - -2;\n"
        "const C = cdiv(1000, 128);\n"
        "const D = (A % 7) * (B >> 1);\n"
        "const E = -9223372036854775807 - 1;\n");
    CHECK(codes(*c).empty());
    CHECK(const_symbol(*c, "A")->const_value == 1024);
    CHECK(const_symbol(*c, "B")->const_value == 343);
    CHECK(const_symbol(*c, "C")->const_value == 8);
    CHECK(const_symbol(*c, "D")->const_value == 2 * 171);
    CHECK(const_symbol(*c, "E")->const_value == INT64_MIN);
    CHECK(codes(*check("const A = 1 << 63;\n")) == Codes{"constant-overflow"});
    CHECK(codes(*check("const A = 9223372036854775807 + 1;\n")) == Codes{"constant-overflow"});
    CHECK(codes(*check("const A = 5 % 0;\n")) == Codes{"constant-overflow"});
    CHECK(codes(*check("const A = cdiv(5, 0);\n")) == Codes{"constant-overflow"});
    CHECK(codes(*check("const A = 1 & 3;\n")) == Codes{"not-constant"});
    CHECK(codes(*check("const A = 1 < 3;\n")) == Codes{"not-constant"});
    CHECK(codes(*check("const A = B;\n")) == Codes{"undefined-name"});
    CHECK(codes(*check("const A = 1;\nconst A = 2;\n")) == Codes{"redefinition"});
    // A const whose value failed is not reported again where it is used.
    CHECK(codes(*check("const A = 1 << 70;\nkernel k(x: inout f32[A] @global) grid(A) { x[...] = x * 2.0; }\n")) ==
          Codes{"constant-overflow"});
  }

  TEST_CASE("shapes, grids and counts must be positive constants") {
    CHECK(codes_of("    let _z = zeros(f32[0]);\n") == Codes{"not-constant"});
    CHECK(codes_of("    let _z = zeros(f32[n]);\n") == Codes{"not-constant"});
    CHECK(codes(*check("kernel k(x: inout f32[4] @global) grid(0) { x[...] = x * 2.0; }\n")) == Codes{"not-constant"});
    CHECK(codes(*check("kernel k(x: inout f32[-4] @global) grid(1) { x[...] = x * 2.0; }\n")) == Codes{"not-constant"});
    CHECK(codes_of("    sem s[0]: dma;\n") == Codes{"not-constant"});
    CHECK(codes(*check("kernel k(x: inout i32[8] @global) grid(1) { for i in 0..8 step 0 { x[i] = i; } }\n")) ==
          Codes{"not-constant"});
    CHECK(codes(*check("const HUGE = 1 << 40;\nkernel k(x: inout f32[HUGE, HUGE] @global) grid(1) { x[0, 0] = 1.0; }\n")) ==
          Codes{"constant-overflow"});
  }

  TEST_CASE("-D overrides a const") {
    const std::string program =
        "const BM = 128;\nconst N = 4 * BM;\n"
        "kernel k(x: inout f32[N] @global) grid(N / BM) { x[ds(program_id(0) * BM, BM)] = 1.0; }\n";
    auto plain = check(program);
    CHECK(codes(*plain).empty());
    CHECK(const_symbol(*plain, "N")->const_value == 512);
    CHECK(plain->program.kernels[0]->grid == std::vector<int64_t>{4});

    auto overridden = check(program, {{"BM", 64}});
    CHECK(codes(*overridden).empty());
    CHECK(const_symbol(*overridden, "BM")->const_value == 64);
    CHECK(const_symbol(*overridden, "N")->const_value == 256);  // dependants follow
    CHECK(overridden->program.kernels[0]->params[0].symbol->type.shape == kdt::Shape{256});
    CHECK(overridden->program.kernels[0]->grid == std::vector<int64_t>{4});

    // An override that makes an index static-out-of-bounds is caught.
    auto bad = check("const I = 3;\nkernel k(x: inout f32[4] @global) grid(1) { x[I] = 1.0; }\n", {{"I", 4}});
    CHECK(codes(*bad) == Codes{"static-out-of-bounds"});
    // An override naming no const is recorded for the driver.
    auto unused = check(program, {{"BN", 1}});
    CHECK(codes(*unused).empty());
    CHECK(unused->program.unused_defines == std::vector<std::string>{"BN"});
  }

  TEST_CASE("grid and device built-ins") {
    CHECK(type_ok("program_id(1)") == "i32");
    CHECK(type_ok("num_programs(0) * 2") == "i32");
    CHECK(type_ok("device_id() + num_devices()") == "i32");
    CHECK(errors_of("program_id(2)") == Codes{"static-out-of-bounds"});
    CHECK(errors_of("program_id(n)") == Codes{"not-constant"});
    // Mesh axes (section 15): one axis here, so only axis 0 exists.
    CHECK(type_ok("device_id(0) + num_devices(0)") == "i32");
    CHECK(errors_of("device_id(1)") == Codes{"static-out-of-bounds"});
    CHECK(errors_of("device_id(0, 1)") == Codes{"bad-argument"});
    // num_programs and num_devices are known statically.
    auto c = check(in_kernel("    let _t = num_programs(1) + num_devices();\n"));
    const ast::Expr& e = *c->program.module.files.back().kernels[0].body.stmts[0]->value;
    CHECK(e.operands[0]->const_value == 2);
    CHECK(e.operands[1]->const_value == 2);
  }

  TEST_CASE("reductions") {
    CHECK(type_ok("sum(a)") == "f32");
    CHECK(type_ok("sum(a, axis=0)") == "f32[128]");
    CHECK(type_ok("sum(a, axis=1)") == "f32[8]");
    CHECK(type_ok("max(a, axis=1, keepdims=true)") == "f32[8, 1]");
    CHECK(type_ok("min(a, keepdims=true)") == "f32[1, 1]");
    CHECK(type_ok("max(v)") == "i32");
    CHECK(type_ok("sum(u, axis=0)") == "u8");
    CHECK(type_ok("a - max(a, axis=1, keepdims=true)") == "f32[8, 128]");
    CHECK(errors_of("sum(a, axis=2)") == Codes{"static-out-of-bounds"});
    CHECK(errors_of("sum(a, axis=n)") == Codes{"not-constant"});
    CHECK(errors_of("sum(a, keepdims=1)") == Codes{"not-constant"});
    CHECK(errors_of("sum(a > 0.0)") == Codes{"type-mismatch"});
    CHECK(errors_of("sum(a, dim=1)") == Codes{"bad-argument"});
    CHECK(errors_of("sum(a, 1)") == Codes{"bad-argument"});
    CHECK(errors_of("sum(axis=1, a)") == Codes{"bad-argument"});
  }

  TEST_CASE("dot") {
    CHECK(type_ok("dot(a, transpose(a))") == "f32[8, 8]");
    CHECK(type_ok("dot(bf16(a), bf16(transpose(a)))") == "f32[8, 8]");  // float accumulates in f32
    CHECK(type_ok("dot(f16(a[:, 0:16]), zeros(f16[16, 4]))") == "f32[8, 4]");
    CHECK(type_ok("dot(i8(a), zeros(i8[128, 2]))") == "i32[8, 2]");  // integers in i32
    CHECK(type_ok("dot(u8(a), zeros(u8[128, 2]))") == "i32[8, 2]");
    CHECK(errors_of("dot(a, a)") == Codes{"shape-mismatch"});
    CHECK(errors_of("dot(b, a)") == Codes{"shape-mismatch"});
    CHECK(errors_of("dot(a, zeros(f16[128, 4]))") == Codes{"type-mismatch"});
    CHECK(errors_of("dot(a > 0.0, zeros(bool[128, 4]))") == Codes{"type-mismatch"});
  }

  // Issue 12, item 13: f64 and i64/u64 inputs accumulate in 64 bits; the
  // spec's keywords dtype=, trans_a=, trans_b= (docs/language.md).
  TEST_CASE("dot: 64-bit inputs, dtype=, trans_a= and trans_b=") {
    CHECK(type_ok("dot(f64(a), f64(transpose(a)))") == "f64[8, 8]");
    CHECK(type_ok("dot(i64(a), zeros(i64[128, 2]))") == "i64[8, 2]");
    CHECK(type_ok("dot(u64(a), zeros(u64[128, 2]))") == "i64[8, 2]");
    CHECK(type_ok("dot(u32(a), zeros(u32[128, 2]))") == "i32[8, 2]");
    CHECK(type_ok("dot(a, transpose(a), dtype=bf16)") == "bf16[8, 8]");
    CHECK(type_ok("dot(a, transpose(a), dtype=f64)") == "f64[8, 8]");
    CHECK(type_ok("dot(a, transpose(a), dtype=i8)") == "i8[8, 8]");
    CHECK(type_ok("dot(f64(a), f64(transpose(a)), dtype=f32)") == "f32[8, 8]");
    CHECK(type_ok("dot(a, a, trans_b=true)") == "f32[8, 8]");
    CHECK(type_ok("dot(a, a, trans_a=true)") == "f32[128, 128]");
    CHECK(type_ok("dot(a, zeros(f32[4, 8]), trans_a=true, trans_b=true)") == "f32[128, 4]");
    CHECK(type_ok("dot(a, transpose(a), trans_a=false, trans_b=false)") == "f32[8, 8]");
    CHECK(errors_of("dot(a, transpose(a), trans_a=true)") == Codes{"shape-mismatch"});
    CHECK(errors_of("dot(a, a, trans_b=n > 0)") == Codes{"not-constant"});
    CHECK(errors_of("dot(a, transpose(a), dtype=bool)") == Codes{"bad-argument"});
    CHECK(errors_of("dot(a, transpose(a), dtype=n)") == Codes{"bad-argument"});
    CHECK(errors_of("dot(a, transpose(a), dtype=f32, dtype=f16)") == Codes{"bad-argument"});
    CHECK(errors_of("dot(a, transpose(a), precision=1)") == Codes{"bad-argument"});
    // A dtype is a value only after `dtype=`.
    CHECK(errors_of("sum(a, axis=f32)") == Codes{"bad-argument"});
    CHECK(errors_of("load(a, mask=a > 0.0, other=f32)") == Codes{"bad-argument"});
  }

  // Issue 12, item 22: Pallas's keyword spelling, and its dynamic slices.
  TEST_CASE("preferred_element_type= and x[i*B:(i+1)*B] name the KD form") {
    auto c = check(in_kernel("    y[...] = dot(a, transpose(a), preferred_element_type=bf16)[0, 0];\n"));
    REQUIRE(c->diags.diagnostics().size() == 1);
    const kdt::Diagnostic& d = c->diags.diagnostics()[0];
    CHECK(std::string(kdt::diag_info(d.code).name) == "bad-argument");
    CHECK(d.message == "`dot` has no keyword argument `preferred_element_type`; allowed: `dtype`, `trans_a`, `trans_b`");
    REQUIRE(d.notes.size() == 1);
    CHECK(d.notes[0].message == "Pallas's `preferred_element_type=` is `dtype=` in KD");
    REQUIRE(d.fixits.size() == 1);
    CHECK(d.fixits[0].replacement == "dtype");

    struct Slice {
      std::string view, fixit;
    };
    const std::vector<Slice> slices = {
        {"a[n*2:(n+1)*2, :]", "ds(n*2, 2)"},
        {"a[ds(0, 4), 2 * n + 8:8 + n * 2 + 4]", "ds(2 * n + 8, 4)"},
        {"a[n:n + 4, :]", "ds(n, 4)"},
        {"a[0:n, :]", ""},      // the size is not constant: no fix-it
        {"a[n:2 * n, :]", ""},
    };
    for (const Slice& s : slices) {
      INFO(s.view);
      std::string text = in_kernel("    let _t = " + s.view + ";\n");
      auto k = check(text);
      REQUIRE(!k->diags.diagnostics().empty());
      const kdt::Diagnostic& first = k->diags.diagnostics()[0];
      CHECK(std::string(kdt::diag_info(first.code).name) == "not-constant");
      REQUIRE(first.notes.size() == 1);
      CHECK(first.notes[0].message.find("`ds(start, size)`, as Pallas's `pl.ds`") != std::string::npos);
      if (s.fixit.empty()) {
        CHECK(first.fixits.empty());
        continue;
      }
      REQUIRE(first.fixits.size() == 1);
      CHECK(first.fixits[0].replacement == s.fixit);
      const kdt::FixIt& f = first.fixits[0];
      std::string fixed = text.substr(0, f.range.begin) + f.replacement + text.substr(f.range.end);
      CHECK_MESSAGE(codes(*check(fixed)).empty(), fixed);
    }
  }

  TEST_CASE("casts are element-wise calls named after the dtype") {
    CHECK(type_ok("i32(a)") == "i32[8, 128]");
    CHECK(type_ok("bf16(b)") == "bf16[128]");
    CHECK(type_ok("bool(v)") == "bool[64]");
    CHECK(type_ok("f64(n)") == "f64");
    CHECK(type_ok("u8(3)") == "u8");
    CHECK(type_ok("f32(3)") == "f32");
    CHECK(type_ok("i32(2.5)") == "i32");
    CHECK(type_ok("f32(b > 0.0)") == "f32[128]");
    CHECK(errors_of("f32(a, b)") == Codes{"bad-argument"});
    CHECK(errors_of("f32()") == Codes{"bad-argument"});
  }

  TEST_CASE("constructors, shape functions and element-wise math") {
    CHECK(type_ok("zeros(f32[8, 128])") == "f32[8, 128]");
    CHECK(type_ok("ones(i8[4])") == "i8[4]");
    CHECK(type_ok("full(u8[4, 4], 255)") == "u8[4, 4]");
    CHECK(type_ok("iota(i32[8, 4], 1)") == "i32[8, 4]");
    CHECK(type_ok("reshape(a, [1024])") == "f32[1024]");
    CHECK(type_ok("broadcast(b, [8, 128])") == "f32[8, 128]");
    CHECK(type_ok("transpose(a)") == "f32[128, 8]");
    CHECK(type_ok("exp(a) + sqrt(b) * tanh(1.0)") == "f32[8, 128]");
    CHECK(type_ok("abs(h)") == "f16[64]");
    CHECK(type_ok("maximum(a, 0.0)") == "f32[8, 128]");
    CHECK(type_ok("minimum(v, 0)") == "i32[64]");
    CHECK(type_ok("where(a > 0.0, a, b)") == "f32[8, 128]");
    CHECK(type_ok("where(b > 0.0, 1.0, 0.0)") == "f32[128]");
    CHECK(errors_of("full(u8[4], 256)") == Codes{"literal-out-of-range"});
    CHECK(errors_of("iota(i32[8], 1)") == Codes{"static-out-of-bounds"});
    CHECK(errors_of("zeros(a)") == Codes{"bad-argument"});
    CHECK(errors_of("exp(f32[4])") == Codes{"bad-argument"});
    CHECK(errors_of("reshape(a, [1000])") == Codes{"shape-mismatch"});
    CHECK(errors_of("reshape(a, 1024)") == Codes{"bad-argument"});
    CHECK(errors_of("broadcast(b, [128, 8])") == Codes{"shape-mismatch"});
    CHECK(errors_of("transpose(b)") == Codes{"shape-mismatch"});
    CHECK(errors_of("exp(v)") == Codes{"type-mismatch"});
    CHECK(errors_of("exp(1)") == Codes{"type-mismatch"});
    CHECK(errors_of("where(v, a, b)") == Codes{"type-mismatch"});
    CHECK(errors_of("maximum(b[0:64], h)") == Codes{"type-mismatch"});
    CHECK(errors_of("ds(0, 4)") == Codes{"bad-argument"});
    CHECK(errors_of("softmax(a)") == Codes{"undefined-name"});
  }

  TEST_CASE("masked loads and stores") {
    CHECK(type_ok("load(a[ds(n, 4)], mask=iota(i32[4, 128], 0) < 2, other=0.0)") == "f32[4, 128]");
    CHECK(type_ok("load(b, mask=b > 0.0)") == "f32[128]");
    CHECK(codes_of("    store(y[0], b, mask=b > 0.0);\n") == Codes{});
    CHECK(codes_of("    store(y, 1.0, mask=iota(i32[8, 1], 0) < 4);\n") == Codes{});
    CHECK(codes_of("    store(a, 1.0);\n") == Codes{"write-to-input"});
    CHECK(codes_of("    store(y[0], b, mask=b);\n") == Codes{"type-mismatch"});
    CHECK(codes_of("    store(y[0], b, other=0.0);\n") == Codes{"bad-argument"});
    CHECK(errors_of("load(b, other=0)") == Codes{});
    CHECK(errors_of("load(v, other=0.5)") == Codes{"type-mismatch"});
    CHECK(errors_of("load(b, mask=iota(i32[8], 0) < 4)") == Codes{"shape-mismatch"});
  }

  TEST_CASE("assignments") {
    CHECK(codes_of("    var acc = zeros(f32[128]);\n    acc += b;\n    acc = acc * 2.0;\n    y[0] = acc;\n") == Codes{});
    CHECK(codes_of("    let acc = zeros(f32[128]);\n    acc += b;\n") == Codes{"invalid-assignment"});
    CHECK(codes_of("    y = a;\n") == Codes{"invalid-assignment"});
    CHECK(codes_of("    a[...] = a;\n") == Codes{"write-to-input"});
    CHECK(codes_of("    n = 2;\n") == Codes{"invalid-assignment"});
    CHECK(codes_of("    q = 2;\n") == Codes{"undefined-name"});
    CHECK(codes_of("    v[0] += 1;\n    v[1] -= 2;\n    v[2] *= 3;\n") == Codes{});
    CHECK(codes_of("    var f = b > 0.0;\n    f += f;\n    y[0] = where(f, 1.0, 0.0);\n") == Codes{"type-mismatch"});
    CHECK(codes_of("    var acc = 0;\n    acc = 1.5;\n    v[0] = acc;\n") == Codes{"type-mismatch"});
    CHECK(codes_of("    var acc = zeros(f32[128]);\n    acc = a;\n    y[0] = acc;\n") == Codes{"shape-mismatch"});
    CHECK(codes_of("    (n) + 1 = 2;\n") == Codes{"invalid-assignment"});
  }

  TEST_CASE("control flow") {
    CHECK(codes_of("    for i in 0..8 step 2 { y[i] = b; }\n") == Codes{});
    CHECK(codes_of("    for i in n..n + 4 { v[i] = i; }\n") == Codes{});
    CHECK(codes_of("    for i in 0..8.0 { y[i] = b; }\n") == Codes{"type-mismatch"});
    CHECK(codes_of("    for i in 0..8 step n { y[i] = b; }\n") == Codes{"not-constant"});
    CHECK(codes_of("    if n > 0 { y[0] = b; } else if n < 0 { y[1] = b; } else { y[2] = b; }\n") == Codes{});
    CHECK(codes_of("    if b > 0.0 { y[0] = b; }\n") == Codes{"shape-mismatch"});
    CHECK(codes_of("    assert(n);\n") == Codes{"type-mismatch"});
    CHECK(codes_of("    assert(n > 0, \"positive\");\n") == Codes{});
    // The loop variable is an i32 scoped to its body.
    CHECK(codes_of("    for i in 0..4 { v[i] = i; }\n    v[0] = i;\n") == Codes{"undefined-name"});
    // Inner scopes may shadow; the same scope may not redeclare.
    CHECK(codes_of("    let x = 1;\n    { let x = 2.0; y[0] = b * x; }\n    v[0] = x;\n") == Codes{});
    CHECK(codes_of("    let x = 1;\n    let x = 2;\n    v[0] = x;\n") == Codes{"redefinition"});
    // Scratch and semaphores may be declared in any block (section 17), and
    // are visible to its end only.
    CHECK(codes_of("    if n > 0 { scratch t: f32[4] @shared; t[...] = zeros(f32[4]); }\n") == Codes{});
    CHECK(codes_of("    if n > 0 { sem s: dma; }\n    sem_signal(s);\n") == Codes{"undefined-name"});
  }

  TEST_CASE("unused bindings warn; `_` names and used ones do not") {
    CHECK(codes_of("    let x = 1;\n") == Codes{"unused-binding"});
    CHECK(codes_of("    var x = 1;\n    x = 2;\n") == Codes{"unused-binding"});
    CHECK(codes_of("    var x = 1;\n    x += 2;\n") == Codes{});
    CHECK(codes_of("    let _x = 1;\n") == Codes{});
    CHECK(codes_of("    let x = 1;\n    v[0] = x;\n") == Codes{});
    // A binding used only where a constant was required is still used.
    CHECK(codes_of("    let x = 4;\n    let _z = zeros(f32[x]);\n") == Codes{"not-constant"});
  }

  TEST_CASE("asm: operands, tuples and element-wise shapes") {
    const std::string two = "asm ptx (p: u32 = 7) -> (lo: u32, hi: u32) { \"mov.u32 %lo, %p;\" \"mov.u32 %hi, %p;\" }";
    auto c = check(in_kernel("    let (x, z) = " + two + ";\n    v[0] = i32(x + z);\n"));
    CHECK(codes(*c).empty());
    const auto& stmts = c->program.module.files.back().kernels[0].body.stmts;
    REQUIRE(stmts[0]->declared.size() == 2);
    CHECK(kdt::type_string(stmts[0]->declared[0]->type) == "u32");
    CHECK(kdt::type_string(stmts[0]->value->type) == "(u32, u32)");
    // Binding a tuple needs `let (a, b)` with one name per output.
    CHECK(codes_of("    let _x = " + two + ";\n") == Codes{"type-mismatch"});
    CHECK(codes_of("    let (_x, _y, _z) = " + two + ";\n") == Codes{"type-mismatch"});
    CHECK(codes_of("    let (_x, _y) = n;\n") == Codes{"type-mismatch"});
    CHECK(codes_of("    " + two + ";\n") == Codes{"type-mismatch"});  // outputs not used
    // A tile input makes the asm element-wise over the broadcast shape.
    CHECK(type_ok("asm ptx (x: f32 = a, s: f32 = 2.0) -> (o: f32) { \"mul.f32 %o, %x, %s;\" }") == "f32[8, 128]");
    CHECK(type_ok("asm ptx (x: f32 = a, r: f32 = b) -> (o: f32) { \"add.f32 %o, %x, %r;\" }") == "f32[8, 128]");
    CHECK(errors_of("asm ptx (x: f32 = a, r: f32 = b[0:8]) -> (o: f32) { \"add.f32 %o, %x, %r;\" }") ==
          Codes{"shape-mismatch"});
    // Inputs take their declared dtype: weak literals adopt it, strong values must match.
    CHECK(errors_of("asm ptx (x: u32 = 300) -> (o: u32) { \"mov.u32 %o, %x;\" }") == Codes{});
    CHECK(errors_of("asm ptx (x: u8 = 300) -> (o: u8) { \"mov.u16 %o, %x;\" }") == Codes{"literal-out-of-range"});
    CHECK(errors_of("asm ptx (x: f32 = n) -> (o: f32) { \"mov.f32 %o, %x;\" }") == Codes{"type-mismatch"});
    CHECK(errors_of("asm ptx (x: bool = true) -> (o: u32) { \"mov.u32 %o, 1;\" }") == Codes{"type-mismatch"});
    // `%%` is a literal percent sign; `%name` the longest identifier.
    CHECK(errors_of("asm ptx (x: u32 = 1) -> (o: u32) { \"mov.u32 %o, %x; // 100%%\" }") == Codes{});
    CHECK(errors_of("asm ptx (x: u32 = 1) -> (o: u32) { \"mov.u32 %o, %xx;\" }") == Codes{"asm-unknown-operand"});
    CHECK(errors_of("asm ptx (x: u32 = 1) -> (x: u32) { \"mov.u32 %x, %x;\" }") == Codes{"redefinition"});
  }

  TEST_CASE("asm fallbacks") {
    CHECK(type_ok("asm ptx (x: f32 = b) -> (o: f32) { \"ex2.approx.f32 %o, %x;\" } fallback { o = exp(x * 0.69); }") ==
          "f32[128]");
    // Operands are scalars inside the fallback, which sees no outer bindings' shapes.
    CHECK(errors_of("asm ptx (x: f32 = b) -> (o: f32) { \"mov.f32 %o, %x;\" } fallback { o = x; x = o; }") ==
          Codes{"invalid-assignment"});
    CHECK(errors_of("asm ptx (x: f32 = b) -> (o: f32) { \"mov.f32 %o, %x;\" } fallback { let t = x; }") ==
          Codes{"asm-fallback-incomplete", "unused-binding"});
    CHECK(errors_of("asm ptx (x: i32 = 1) -> (o: i32) { \"abs.s32 %o, %x;\" } fallback { if x < 0 { o = -x; } else { o = x; } }") ==
          Codes{});
    CHECK(errors_of("asm ptx (x: i32 = 1) -> (o: i32) { \"abs.s32 %o, %x;\" } fallback { if x < 0 { o = -x; } }") ==
          Codes{"asm-fallback-incomplete"});
    CHECK(errors_of("asm ptx (x: i32 = 1) -> (o: i32) { \"mov.s32 %o, %x;\" } fallback { o = 1.5; }") ==
          Codes{"type-mismatch"});
    CHECK(codes_of("    asm ptx volatile () -> () clobbers(\"memory\") { \"fence.acq_rel.gpu;\" } fallback {};\n") ==
          Codes{});
    // Cross-lane instructions warn.
    CHECK(errors_of("asm ptx (x: f32 = b) -> (o: f32) { \"shfl.sync.bfly.b32 %o, %x, 1, 31, -1;\" } fallback { o = x; }") ==
          Codes{"asm-cross-lane"});
    CHECK(errors_of("asm ptx (x: f32 = b) -> (o: f32) { \"@%x bar.sync 0;\" \"mov.f32 %o, %x;\" } fallback { o = x; }") ==
          Codes{"asm-cross-lane"});
  }

  TEST_CASE("DMAs") {
    const std::string decls = "    scratch t: f32[8, 128] @shared;\n    scratch r: f32[128] @shared;\n    sem s: dma;\n    sem send: dma;\n";
    CHECK(codes_of(decls + "    dma_start(a, t, s);\n    dma_wait(s, t);\n") == Codes{});
    CHECK(codes_of(decls + "    dma_start(a[ds(n, 1), :], t[0:1], s);\n    dma_wait(s, t[0:1]);\n") == Codes{});
    CHECK(codes_of(decls + "    dma_start(a[2], r, s);\n    dma_wait(s, r);\n") == Codes{});
    CHECK(codes_of(decls + "    dma_start(t, y, s, add=true);\n    dma_wait(s, y);\n") == Codes{});
    CHECK(codes_of(decls + "    dma_start(t, y, s, add=false);\n    dma_wait(s, y);\n") == Codes{});
    CHECK(codes_of(decls + "    dma_start(t, y, s, src_sem=send, device=1 - device_id(), add=true);\n") == Codes{});
    CHECK(codes_of(decls + "    dma_start(a, r, s);\n") == Codes{"dma-shape-mismatch"});
    CHECK(codes_of(decls + "    dma_start(a[0, 0:64], v, s);\n") == Codes{"dma-dtype-mismatch"});
    CHECK(codes_of(decls + "    dma_start(t, a, s);\n") == Codes{"write-to-input"});
    CHECK(codes_of(decls + "    dma_start(t, y, s, add=n > 0);\n") == Codes{"not-constant"});
    // A remote DMA may write a peer's scratch (0.2, section 7).
    CHECK(codes_of(decls + "    dma_start(y, t, s, src_sem=send, device=1);\n") == Codes{});
    CHECK(codes_of(decls + "    dma_start(t, y, s, device=1);\n") == Codes{"bad-argument"});
    CHECK(codes_of(decls + "    dma_start(t, y, s, src_sem=send);\n") == Codes{"bad-argument"});
    CHECK(codes_of(decls + "    dma_start(t, y, s, mask=true);\n") == Codes{"bad-argument"});
    CHECK(codes_of(decls + "    dma_start(t, y);\n") == Codes{"bad-argument"});
    CHECK(codes_of(decls + "    dma_start(t * 2.0, y, s);\n") == Codes{"type-mismatch"});
    CHECK(codes_of(decls + "    dma_start(t, y, t);\n") == Codes{"type-mismatch"});
    auto bools = check("kernel k(p: in bool[8] @global, q: inout bool[8] @global) grid(1) {\n"
                       "    sem s: dma;\n    dma_start(p, q, s, add=true);\n    dma_wait(s, q);\n}\n");
    CHECK(codes(*bools) == Codes{"dma-add-dtype"});
  }

  TEST_CASE("semaphore kinds") {
    const std::string decls = "    scratch t: f32[128] @shared;\n    sem d: dma;\n    sem r: regular;\n    sem ds2[2]: dma;\n";
    CHECK(codes_of(decls + "    sem_signal(r);\n    sem_signal(r, 3);\n    sem_signal(r, 1, device=1);\n    sem_wait(r, 4);\n") ==
          Codes{});
    CHECK(type_ok("sem_read(r)", decls) == "i32");
    CHECK(codes_of(decls + "    dma_start(b, t, r);\n") == Codes{"semaphore-kind"});
    CHECK(codes_of(decls + "    dma_start(b, t, d);\n    dma_wait(r, t);\n") == Codes{"semaphore-kind"});
    CHECK(codes_of(decls + "    sem_signal(d);\n") == Codes{"semaphore-kind"});
    CHECK(codes_of(decls + "    sem_wait(d);\n") == Codes{"semaphore-kind"});
    // sem_read reads either kind (section 7, 0.2).
    CHECK(errors_of("sem_read(d)", decls) == Codes{});
    CHECK(errors_of("sem_read(r)", decls) == Codes{});
    CHECK(codes_of(decls + "    dma_start(b, t, ds2[1]);\n    dma_wait(ds2[1], t);\n") == Codes{});
    CHECK(codes_of(decls + "    dma_start(b, t, ds2[n % 2]);\n    dma_wait(ds2[n % 2], t);\n") == Codes{});
    CHECK(codes_of(decls + "    dma_start(b, t, ds2);\n") == Codes{"type-mismatch"});
    CHECK(codes_of(decls + "    dma_start(b, t, d[0]);\n") == Codes{"type-mismatch"});
    CHECK(codes_of(decls + "    dma_start(b, t, ds2[2]);\n") == Codes{"static-out-of-bounds"});
    CHECK(codes_of(decls + "    sem_signal(r, 0);\n") == Codes{"bad-argument"});
    CHECK(codes_of(decls + "    sem_wait(r, device=1);\n") == Codes{"bad-argument"});
    CHECK(codes_of(decls + "    dma_start(b, t, nope);\n") == Codes{"undefined-name"});
    // A semaphore is not a value.
    CHECK(errors_of("d", decls) == Codes{"type-mismatch"});
    CHECK(errors_of("ds2[0]", decls) == Codes{"type-mismatch"});
  }

  TEST_CASE("kernel headers") {
    CHECK(codes(*check("kernel k(x: inout f32[4] @global) grid(1) devices(2) threads(64) { x[...] = x * 2.0; }\n"))
              .empty());
    CHECK(codes(*check("kernel k(x: inout f32[4] @global) grid(1) grid(2) { x[...] = x * 2.0; }\n")) ==
          Codes{"invalid-declaration"});
    CHECK(codes(*check("kernel k(x: inout f32[4] @global) grid(1) blocks(2) { x[...] = x * 2.0; }\n")) ==
          Codes{"invalid-declaration"});
    // `devices(1, 2)` is a mesh of 1 x 2 devices (section 15).
    CHECK(codes(*check("kernel k(x: inout f32[4] @global) grid(1) devices(1, 2) { x[...] = x * 2.0; }\n")).empty());
    CHECK(codes(*check("kernel k(x: inout f32[4] @global) grid(1) devices() { x[...] = x * 2.0; }\n")) ==
          Codes{"bad-argument"});
    CHECK(codes(*check("kernel k(x: inout f32[4] @global) grid(1) threads(a: 4) { x[...] = x * 2.0; }\n")) ==
          Codes{"bad-argument"});
    CHECK(codes(*check("kernel k(x: inout f32[4] @global) grid() { x[...] = x * 2.0; }\n")) == Codes{"bad-argument"});
    CHECK(codes(*check("kernel k(x: inout f32[4] @shared) grid(1) { x[...] = x * 2.0; }\n")) ==
          Codes{"invalid-declaration"});
    CHECK(codes(*check("kernel k(x: inout f32[4] @global, x: f32) grid(1) { x[...] = x * 2.0; }\n")) ==
          Codes{"redefinition"});
    // Kernels do not see each other's names; consts are global.
    CHECK(codes(*check("const N = 4;\nkernel a(x: inout f32[N] @global) grid(1) { x[...] = x * 2.0; }\n"
                       "kernel b(y: inout f32[N] @global) grid(1) { y[...] = x; }\n")) == Codes{"undefined-name"});
  }

  TEST_CASE("the checker annotates the AST for lowering") {
    auto c = check(in_kernel("    let t = a[ds(n, 2), 8:16] * 2.0;\n    y[0:2, 0:8] = t;\n"));
    CHECK(codes(*c).empty());
    const ast::Kernel& k = *c->program.kernels[0];
    const ast::Stmt& let = *k.body.stmts[0];
    REQUIRE(let.declared.size() == 1);
    CHECK(let.declared[0]->kind == kdt::Symbol::Kind::Let);
    const ast::Expr& view = *let.value->operands[0];
    REQUIRE(view.symbol);
    CHECK(view.symbol->name == "a");
    CHECK(view.symbol->kind == kdt::Symbol::Kind::Param);
    CHECK(view.symbol->mode == ast::ParamMode::In);
    CHECK(view.indices[1].start == 8);
    CHECK(view.indices[1].size == 8);
    CHECK(kdt::type_string(view.type) == "f32[2, 8]");
    CHECK(let.value->operands[1]->type.dtype == kdt::DType::F32);
    CHECK(!let.value->operands[1]->type.weak);
    CHECK(k.grid == std::vector<int64_t>{4, 2});
    CHECK(k.devices == 2);
    // Symbol ids are unique within a kernel.
    std::vector<int> ids;
    for (const kdt::Symbol& s : c->program.symbols) ids.push_back(s.id);
    std::sort(ids.begin(), ids.end());
    CHECK(std::adjacent_find(ids.begin(), ids.end()) == ids.end());
  }
}

// Issue 12, items 12 and 13: the checker's decisions reach the CUDA path
// too (the C++ path runs them in tests/e2e/regressions/float_rem.kd and
// dot_dtypes.kd, against NumPy): `%` of floats is fmod in the operand's
// dtype, and `dot` accumulates in f64 / i64 for 64-bit inputs.
namespace {

std::string emitted_cuda(const std::string& regression) {
  kdt::test::RunResult r =
      kdt::test::run_kdt("--emit=cuda " + kdt::test::source_dir() + "/tests/e2e/regressions/" + regression);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  return r.out;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_SUITE("cuda_emit") {
  TEST_CASE("float % is fmod and dot accumulates in 64 bits for 64-bit inputs on the CUDA path") {
    std::string rem = emitted_cuda("float_rem.kd");
    // Four f32, one f64 and one f16 `%` (the operator deduces its type, as on the C++ path);
    // the f64 and f16 stores are written twice: in 16-byte pieces and the element loop.
    CHECK(count(rem, "kdt_cu::op_rem(") == 8);
    CHECK(count(rem, "kdt_cu::int_rem<") == 0);
    std::string dot = emitted_cuda("dot_dtypes.kd");
    CHECK(count(dot, "double acc_ = double();") == 2);   // f64 inputs, f64(f) x f64(ones)
    CHECK(count(dot, "int64_t acc_ = int64_t();") == 3);  // i64, u64, i64(p) x i64(p)
    CHECK(count(dot, "kdt_cu::convert<int64_t>(") >= 2);  // u64 operands widened to the i64 accumulator
    CHECK(count(dot, "float acc_ = float();") == 3);     // f32 (twice) and bf16 inputs
  }
}

TEST_SUITE("cuda_nvcc_sm90") {
  TEST_CASE("the CUDA of float %, 64-bit dot, staged remote DMAs and returned descriptors compiles") {
    std::string nvcc = kdt::test::nvcc_or_skip();
    if (nvcc.empty()) return;
    kdt::test::TempDir tmp;
    for (const char* regression : {"float_rem.kd", "dot_dtypes.kd", "remote_shared.kd", "dma_descriptor_results.kd"}) {
      INFO(regression);
      kdt::test::write_text(tmp.file("k.cu"), emitted_cuda(regression));
      std::string cmd = nvcc + " -std=c++17 -arch=sm_90 -Werror all-warnings -c " + tmp.file("k.cu") + " -o " +
                        tmp.file("k.o") + " >" + tmp.file("log") + " 2>&1";
      int raw = std::system(cmd.c_str());
      CHECK_MESSAGE((WIFEXITED(raw) && WEXITSTATUS(raw) == 0), kdt::test::read_text(tmp.file("log")).substr(0, 3000));
    }
  }
}
