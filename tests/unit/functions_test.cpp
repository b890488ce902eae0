// Functions, type aliases and generics (spec sections 12 and 14): what the
// checker makes of them (instances, deduction, -D T=...) and how lowering
// expands a call (views through ref parameters, preludes that run only
// when their operand is chosen).
#include <doctest/doctest.h>

#include "kdt/check/check.h"
#include "kdt/ir/ir.h"
#include "kdt/ir/lower.h"
#include "test_support.h"

namespace {

using kdt::Compilation;

std::unique_ptr<Compilation> check(const std::string& text, kdt::Options options = {}) {
  auto c = kdt::test::front_end(text, "test.kd", options);
  REQUIRE_MESSAGE(c->parsed, "the text does not parse:\n" << text);
  return c;
}

using kdt::test::codes;

std::string ir_of(const Compilation& c) {
  REQUIRE(c.ok);
  return kdt::ir::print_module(kdt::lower_program(c.program, ""), c.sources);
}

using Codes = std::vector<std::string>;

}  // namespace

TEST_SUITE("check") {
  TEST_CASE("the function-instance limit met at a declaration is reported there, and later calls are errors") {
    // 10,000 functions fill the limit as their declarations are checked;
    // the 10,001st is the one reported, and the kernel's call of it (which
    // has no instance) must not reach lowering (it crashed there before).
    std::string text;
    for (int i = 0; i <= 10000; ++i) text += "fn g" + std::to_string(i) + "(x: f32) -> f32 { return x; }\n";
    text += "kernel k(o: out f32[4] @global) grid(1) { o[...] = broadcast(g10000(1.0), [4]); }\n";
    auto c = check(text);
    REQUIRE(codes(*c) == Codes{"limit-exceeded"});
    const kdt::Diagnostic& d = c->diags.diagnostics().front();
    CHECK(d.message == "checking this function would make function instance 10001 of the program; the limit is "
                            "--max-function-instances=10000");
    CHECK(c->sources.position(d.range.file, d.range.begin).line == 10001);
    CHECK_FALSE(c->ok);
  }

  TEST_CASE("--max-function-instances raises the function-instance limit") {
    std::string text;
    for (int i = 0; i <= 10000; ++i) text += "fn g" + std::to_string(i) + "(x: f32) -> f32 { return x; }\n";
    text += "kernel k(o: out f32[4] @global) grid(1) { o[...] = broadcast(g10000(1.0), [4]); }\n";
    kdt::Options options;
    options.limits.max_function_instances = 10002;  // the declarations' instances, then the kernel's call
    auto raised = check(text, options);
    CHECK(codes(*raised).empty());
    CHECK(raised->ok);
    options.limits.max_function_instances = 3;
    auto lowered = check(text, options);
    REQUIRE(codes(*lowered) == Codes{"limit-exceeded"});
    CHECK(lowered->diags.diagnostics().front().message ==
          "checking this function would make function instance 4 of the program; the limit is --max-function-instances=3");
    CHECK(lowered->sources.position(lowered->diags.diagnostics().front().range.file,
                                    lowered->diags.diagnostics().front().range.begin).line == 4);
  }

  TEST_CASE("a function nobody calls is still checked; one called twice reports its error once") {
    auto unused = check(
        "fn bad(x: f32) -> f32 { return x + y; }\n"
        "kernel k(o: out f32[4] @global) grid(1) { o[...] = 1.0; }\n");
    CHECK(codes(*unused) == Codes{"undefined-name"});
    auto twice = check(
        "fn bad(x: f32) -> f32 { return x + y; }\n"
        "kernel k(o: out f32[4] @global) grid(1) { o[0] = bad(1.0); o[1] = bad(2.0); }\n");
    CHECK(codes(*twice) == Codes{"undefined-name"});
  }

  TEST_CASE("a generic function gets one instance per calling kernel and generic values") {
    auto c = check(
        "fn twice<N>(x: f32[N]) -> f32[N] { return x * 2.0; }\n"
        "kernel k(a: in f32[8] @global, o: out f32[8] @global) grid(1) {\n"
        "    let _p = twice(a[0:4]);\n"
        "    let _q = twice(a[4:8]);\n"
        "    o[...] = twice(a);\n"
        "}\n");
    REQUIRE(c->ok);
    std::vector<std::string> names;
    for (const kdt::FunctionInstance& i : c->program.instances) names.push_back(i.name);
    CHECK(names == std::vector<std::string>{"twice<N = 4>", "twice<N = 8>"});
  }

  TEST_CASE("type aliases: in types, casts, constructors and dtype=, overridden by -D T=...") {
    const std::string text =
        "type T = bf16;\n"
        "kernel k(a: in T[4, 4] @global, o: out f32[4, 4] @global) grid(1) {\n"
        "    let z = zeros(T[4, 4]);\n"
        "    let d = dot(a[...] + z, a, dtype=T);\n"
        "    o[...] = f32(T(d));\n"
        "}\n";
    auto as_bf16 = check(text);
    REQUIRE(as_bf16->ok);
    CHECK(as_bf16->program.kernels[0]->params[0].symbol->type.dtype == kdt::DType::BF16);
    kdt::Options options;
    options.type_defines["T"] = kdt::DType::F32;
    auto as_f32 = check(text, options);
    REQUIRE(as_f32->ok);
    CHECK(as_f32->program.kernels[0]->params[0].symbol->type.dtype == kdt::DType::F32);
    CHECK(as_f32->program.unused_defines.empty());
    // A -D of the wrong kind says which kind the name is.
    kdt::Options wrong;
    wrong.defines["T"] = 3;
    auto integer_for_type = check(text, wrong);
    CHECK(integer_for_type->program.unused_defines == std::vector<std::string>{"T"});
    CHECK(integer_for_type->program.unused_define_reasons ==
          std::vector<std::string>{"`T` is a `type`; give a dtype such as f32"});
  }

  TEST_CASE("a type generic is deduced from the arguments; its instance is checked with it") {
    auto c = check(
        "fn add_one<T: type, N>(x: T[N]) -> T[N] { return x + T(1); }\n"
        "kernel k(a: in i8[4] @global, b: in f32[4] @global, o: out i8[4] @global, p: out f32[4] @global) grid(1) {\n"
        "    o[...] = add_one(a);\n"
        "    p[...] = add_one(b);\n"
        "}\n");
    REQUIRE(c->ok);
    REQUIRE(c->program.instances.size() == 2);
    CHECK(c->program.instances[0].name == "add_one<T = i8, N = 4>");
    CHECK(c->program.instances[1].name == "add_one<T = f32, N = 4>");
  }

  TEST_CASE("generics shadow top-level constants of the same name inside the function") {
    auto c = check(
        "const M = 3;\n"
        "fn rows<M>(x: f32[M]) -> f32 { return f32(M); }\n"
        "kernel k(a: in f32[5] @global, o: out f32[1] @global) grid(1) { o[0] = rows(a) + f32(M); }\n");
    CHECK(c->ok);
  }
}

TEST_SUITE("check") {
  TEST_CASE("lowering: a ref parameter's indices apply to the argument's view, offsets added once") {
    auto c = check(
        "fn put(r: f32[4] @global, i: i32, v: f32) { r[i] = v; }\n"
        "kernel k(o: out f32[2, 8] @global) grid(2) {\n"
        "    let p = program_id(0);\n"
        "    put(o[p, ds(p * 4, 4)], 1, 2.0);\n"
        "}\n");
    std::string ir = ir_of(*c);
    CHECK(ir.find("// inlined put, called at line 4:5") != std::string::npos);
    CHECK(ir.find("let %r_start = mul(%p, 4i32)") != std::string::npos);
    CHECK(ir.find("store %o[%p, add(%r_start, %i) : i32] = %v") != std::string::npos);
  }

  TEST_CASE("lowering: a returned descriptor (-> dma) is the caller's, its indices evaluated in the function") {
    auto c = check(
        "fn describe(x: f32[4] @global, b: f32[8] @shared, s: sem dma, i: i32) -> dma {\n"
        "    return dma(x, b[ds(i, 4)], s);\n"
        "}\n"
        "fn start(x: f32[4] @global, b: f32[8] @shared, s: sem dma) -> (i32, dma) {\n"
        "    return (7, dma_start(x, b[0:4], s));\n"
        "}\n"
        "kernel k(x: in f32[4] @global, o: out f32[4] @global, r: out i32[1] @global) grid(1) {\n"
        "    scratch buf: f32[8] @shared;\n"
        "    sem s: dma;\n"
        "    let c = describe(x, buf, s, 2);\n"
        "    dma_start(c);\n"
        "    dma_wait(c);\n"
        "    let (n, d) = start(x, buf, s);\n"
        "    dma_wait(d);\n"
        "    r[0] = n;\n"
        "    o[...] = buf[2:6];\n"
        "}\n");
    std::string ir = ir_of(*c);
    CHECK(ir.find("dma_start %x[:] -> %buf[%i +: 4] sem %s, 16 bytes  ; line 11:5") != std::string::npos);
    CHECK(ir.find("dma_start %x[:] -> %buf[0 +: 4] sem %s, 16 bytes  ; line 5:16") != std::string::npos);
    CHECK(ir.find("dma_wait %s, 16 bytes  ; line 14:5") != std::string::npos);
  }

  TEST_CASE("lowering: a call in one branch of ?: or on the right of && runs only when chosen") {
    auto c = check(
        "fn peek(r: in f32[4] @global, i: i32) -> f32 { return r[i]; }\n"
        "kernel k(x: in f32[4] @global, o: out f32[4] @global) grid(1) {\n"
        "    let i = 5;\n"
        "    o[0] = i < 4 ? peek(x, i) : 0.0;\n"
        "    o[1] = f32(i < 4 && peek(x, i) > 0.0);\n"
        "}\n");
    std::string ir = ir_of(*c);
    // Both become a `var` set inside an `if`, so peek's out-of-range load never runs.
    CHECK(ir.find("var %choice = ") != std::string::npos);
    CHECK(ir.find("var %choice_2 = ") != std::string::npos);
    CHECK(ir.find("if lt(%i, 4i32)") != std::string::npos);
  }
}
