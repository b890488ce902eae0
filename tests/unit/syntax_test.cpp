// The parser and AST builder (spec sections 2, 4-9): every statement kind,
// every index form, literals, precedence, associativity and source ranges.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "test_support.h"

namespace {

using kdt::Compilation;
namespace ast = kdt::ast;

std::unique_ptr<Compilation> parse(const std::string& text) {
  auto c = kdt::test::front_end(text);
  REQUIRE_MESSAGE(c->parsed, "the text does not parse:\n" << text);
  return c;
}

const ast::File& main_file(const Compilation& c) { return c.program.module.files.back(); }
const ast::Kernel& kernel(const Compilation& c, size_t i = 0) { return main_file(c).kernels.at(i); }
const std::vector<ast::StmtPtr>& body(const Compilation& c) { return kernel(c).body.stmts; }

using kdt::test::codes;

bool has_code(const Compilation& c, const std::string& code) {
  std::vector<std::string> all = codes(c);
  return std::find(all.begin(), all.end(), code) != all.end();
}

// The source text a range covers.
std::string text_of(const Compilation& c, kdt::SourceRange r) {
  REQUIRE(r.valid());
  return c.sources.file(r.file).text.substr(r.begin, r.end - r.begin);
}

std::string position(const Compilation& c, kdt::SourceRange r) {
  kdt::LineColumn a = c.sources.position(r.file, r.begin);
  kdt::LineColumn b = c.sources.position(r.file, r.end);
  return std::to_string(a.line) + ":" + std::to_string(a.column) + "-" + std::to_string(b.line) + ":" +
         std::to_string(b.column);
}

std::string sx(const ast::Expr& e);

std::string sx_index(const ast::IndexEntry& i) {
  switch (i.kind) {
    case ast::IndexEntry::Kind::Scalar: return sx(*i.first);
    case ast::IndexEntry::Kind::Full: return ":";
    case ast::IndexEntry::Kind::Slice: return sx(*i.first) + ":" + sx(*i.second);
    case ast::IndexEntry::Kind::DynSlice: return sx(*i.first);
    case ast::IndexEntry::Kind::Ellipsis: return "...";
  }
  return "?";
}

// A compact s-expression of an expression tree, for precedence tests.
std::string sx(const ast::Expr& e) {
  using K = ast::Expr::Kind;
  switch (e.kind) {
    case K::IntLiteral:
    case K::FloatLiteral:
    case K::BoolLiteral:
    case K::Name: return e.spelling;
    case K::Unary: return std::string("(") + ast::unary_op_spelling(e.unary_op) + " " + sx(*e.operands[0]) + ")";
    case K::Binary:
      return std::string("(") + ast::binary_op_spelling(e.binary_op) + " " + sx(*e.operands[0]) + " " +
             sx(*e.operands[1]) + ")";
    case K::Ternary: return "(? " + sx(*e.operands[0]) + " " + sx(*e.operands[1]) + " " + sx(*e.operands[2]) + ")";
    case K::Call: {
      std::string out = "(" + e.spelling;
      for (const ast::Arg& a : e.args) {
        out += " ";
        if (a.kind == ast::Arg::Kind::Keyword) out += a.keyword.text + "=" + sx(*a.value);
        else if (a.kind == ast::Arg::Kind::Positional) out += sx(*a.value);
        else if (a.kind == ast::Arg::Kind::Type) out += "<type>";
        else out += "<shape>";
      }
      return out + ")";
    }
    case K::Index: {
      std::string out = "([] " + sx(*e.operands[0]);
      for (const ast::IndexEntry& i : e.indices) out += " " + sx_index(i);
      return out + ")";
    }
    case K::Asm: return "(asm)";
    case K::DeviceCoords: {
      std::string out = "(device";
      for (const ast::Arg& a : e.args) out += " " + (a.kind == ast::Arg::Kind::Keyword ? a.keyword.text + "=" : "") + sx(*a.value);
      return out + ")";
    }
  }
  return "?";
}

// The value of `let e = TEXT;` inside a kernel, as an s-expression. Names
// need not be declared: only the parse matters here.
std::string parse_expr(const std::string& text) {
  auto c = parse("kernel k() grid(1) {\n    let e = " + text + ";\n}\n");
  REQUIRE(body(*c).size() == 1);
  REQUIRE(body(*c)[0]->kind == ast::Stmt::Kind::Let);
  return sx(*body(*c)[0]->value);
}

// Whether `text` (a whole file) gets a `syntax` diagnostic.
bool syntax_error(const std::string& text) {
  auto c = kdt::test::front_end(text);
  return !c->parsed && has_code(*c, "syntax");
}

std::string in_kernel(const std::string& stmts) {
  return "kernel k(x: inout f32[8, 128] @global, y: in f32[8, 128] @global, n: i32) grid(4) {\n" + stmts + "}\n";
}

}  // namespace

TEST_SUITE("syntax") {
  TEST_CASE("top level: include, const and kernel, in declaration order") {
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("common.kd"), "const W = 128;\n");
    std::string main = "include \"common.kd\";\nconst N = 4 * W;\nkernel a(x: inout f32[N] @global) grid(1) { x[...] = x * 2.0; }\n"
                       "const M = 2;\nkernel b(x: inout f32[M] @global) grid(M) { x[...] = x + 1.0; }\n";
    auto c = kdt::test::front_end(main, tmp.file("main.kd"));
    REQUIRE(c->parsed);
    CHECK(c->ok);
    const ast::Module& m = c->program.module;
    REQUIRE(m.files.size() == 2);  // the included file first
    CHECK(m.files[0].consts.size() == 1);
    CHECK(m.files[0].consts[0].name.text == "W");
    const ast::File& f = m.files[1];
    REQUIRE(f.includes.size() == 1);
    CHECK(f.includes[0].path == "common.kd");
    CHECK(text_of(*c, f.includes[0].range) == "include \"common.kd\";");
    CHECK(text_of(*c, f.includes[0].path_range) == "\"common.kd\"");
    REQUIRE(f.consts.size() == 2);
    REQUIRE(f.kernels.size() == 2);
    using K = ast::File::ItemKind;
    using Order = std::vector<std::pair<K, size_t>>;
    CHECK(f.order == Order{{K::Const, 0}, {K::Kernel, 0}, {K::Const, 1}, {K::Kernel, 1}});
    CHECK(f.kernels[1].name.text == "b");
    CHECK(c->program.kernels.size() == 2);
  }

  TEST_CASE("kernel header: parameters, modes, attributes and trailing commas") {
    auto c = parse(
        "kernel k(a: in f32[8, 128] @global, b: out bf16[4] @global, c: inout i32[2, 3, 4,] @global, s: u32, t: f64,)\n"
        "    grid(2, 3,) devices(4) threads(256)\n{\n}\n");
    const ast::Kernel& k = kernel(*c);
    REQUIRE(k.params.size() == 5);
    CHECK(k.params[0].mode == ast::ParamMode::In);
    CHECK(k.params[0].tile_type->dtype == kdt::DType::F32);
    CHECK(k.params[0].tile_type->dims.size() == 2);
    CHECK(k.params[0].mem_space.text == "global");
    CHECK(k.params[1].mode == ast::ParamMode::Out);
    CHECK(k.params[1].tile_type->dtype == kdt::DType::BF16);
    CHECK(k.params[2].mode == ast::ParamMode::InOut);
    CHECK(k.params[2].tile_type->dims.size() == 3);
    CHECK(k.params[3].mode == ast::ParamMode::Scalar);
    CHECK(k.params[3].scalar_dtype == kdt::DType::U32);
    CHECK(k.params[4].scalar_dtype == kdt::DType::F64);
    CHECK(text_of(*c, k.params[0].mode_range) == "in");
    CHECK(text_of(*c, k.params[0].range) == "a: in f32[8, 128] @global");
    REQUIRE(k.attrs.size() == 3);
    CHECK(k.attrs[0].name.text == "grid");
    CHECK(k.attrs[0].args.size() == 2);
    CHECK(k.attrs[1].name.text == "devices");
    CHECK(k.attrs[2].name.text == "threads");
    CHECK(k.grid == std::vector<int64_t>{2, 3});
    CHECK(k.devices == 4);
    CHECK(k.threads == 256);
    CHECK(k.body.stmts.empty());
  }

  TEST_CASE("every statement kind of section 5") {
    auto c = parse(in_kernel(
        "    scratch buf: f32[2, 8, 128] @shared;\n"
        "    sem copy_sem[2]: dma;\n"
        "    sem flag: regular;\n"
        "    let v = y[0];\n"
        "    let (lo, hi) = asm ptx (a: u32 = 1) -> (p: u32, q: u32) { \"mov.u32 %p, %a;\" \"mov.u32 %q, %a;\" };\n"
        "    var acc = zeros(f32[8, 128]);\n"
        "    acc += y;\n"
        "    acc = acc + y;\n"
        "    x[0] = v;\n"
        "    x[1] += v;\n"
        "    x[2] -= v;\n"
        "    x[3] *= v;\n"
        "    store(x[4], v, mask=v > 0.0);\n"
        "    for i in 0..n { x[i, 0] = 1.0; }\n"
        "    for j in 0..8 step 2 { x[j, 1] = 2.0; }\n"
        "    if n > 0 { x[5] = 1.0; } else if n < 0 { x[5] = 2.0; } else { x[5] = 3.0; }\n"
        "    dma_start(y, buf[0], copy_sem[0]);\n"
        "    dma_wait(copy_sem[0], buf[0]);\n"
        "    sem_signal(flag);\n"
        "    sem_wait(flag);\n"
        "    assert(n >= 0);\n"
        "    assert(n < 100, \"n is small\");\n"
        "    asm ptx volatile () -> () { \"membar.gl;\" } fallback {};\n"
        "    { x[...] = acc + f32(lo + hi); }\n"));
    using K = ast::Stmt::Kind;
    const auto& s = body(*c);
    REQUIRE(s.size() == 24);
    std::vector<K> kinds;
    for (const ast::StmtPtr& st : s) kinds.push_back(st->kind);
    CHECK(kinds == std::vector<K>{K::Scratch, K::Sem,    K::Sem,    K::Let,    K::LetTuple, K::Var,
                                  K::Assign,  K::Assign, K::Assign, K::Assign, K::Assign,   K::Assign,
                                  K::Expr,    K::For,    K::For,    K::If,     K::Expr,     K::Expr,
                                  K::Expr,    K::Expr,   K::Assert, K::Assert, K::Expr,     K::Block});
    CHECK(c->ok);

    // scratch buf: f32[2, 8, 128] @shared;
    CHECK(s[0]->name.text == "buf");
    CHECK(s[0]->tile_type->dtype == kdt::DType::F32);
    CHECK(s[0]->tile_type->dims.size() == 3);
    CHECK(s[0]->mem_space.text == "shared");
    // sem copy_sem[2]: dma;  sem flag: regular;
    CHECK(s[1]->name.text == "copy_sem");
    REQUIRE(s[1]->sem_count);
    CHECK(sx(*s[1]->sem_count) == "2");
    CHECK(s[1]->sem_kind.text == "dma");
    CHECK(!s[2]->sem_count);
    CHECK(s[2]->sem_kind.text == "regular");
    // let (lo, hi) = asm ...
    REQUIRE(s[4]->names.size() == 2);
    CHECK(s[4]->names[0].text == "lo");
    CHECK(s[4]->names[1].text == "hi");
    CHECK(s[4]->value->kind == ast::Expr::Kind::Asm);
    // Assignments and their operators.
    CHECK(s[6]->assign_op == ast::AssignOp::Add);
    CHECK(s[6]->target->kind == ast::Expr::Kind::Name);
    CHECK(s[7]->assign_op == ast::AssignOp::Assign);
    CHECK(s[8]->assign_op == ast::AssignOp::Assign);
    CHECK(s[8]->target->kind == ast::Expr::Kind::Index);
    CHECK(s[9]->assign_op == ast::AssignOp::Add);
    CHECK(s[10]->assign_op == ast::AssignOp::Sub);
    CHECK(s[11]->assign_op == ast::AssignOp::Mul);
    CHECK(text_of(*c, s[11]->op_range) == "*=");
    // store(x[4], v, mask=v > 0.0);
    CHECK(sx(*s[12]->value) == "(store ([] x 4) v mask=(> v 0.0))");
    // for loops
    CHECK(s[13]->name.text == "i");
    CHECK(sx(*s[13]->lo) == "0");
    CHECK(sx(*s[13]->hi) == "n");
    CHECK(!s[13]->step);
    CHECK(s[13]->body.stmts.size() == 1);
    REQUIRE(s[14]->step);
    CHECK(sx(*s[14]->step) == "2");
    CHECK(s[14]->step_word.text == "step");
    // if / else if / else, flattened
    REQUIRE(s[15]->clauses.size() == 3);
    CHECK(sx(*s[15]->clauses[0].cond) == "(> n 0)");
    CHECK(sx(*s[15]->clauses[1].cond) == "(< n 0)");
    CHECK(!s[15]->clauses[2].cond);
    CHECK(text_of(*c, s[15]->clauses[2].range) == "{ x[5] = 3.0; }");
    // DMAs and semaphores are calls.
    CHECK(sx(*s[16]->value) == "(dma_start y ([] buf 0) ([] copy_sem 0))");
    CHECK(sx(*s[17]->value) == "(dma_wait ([] copy_sem 0) ([] buf 0))");
    CHECK(sx(*s[18]->value) == "(sem_signal flag)");
    // assert with and without a message
    CHECK(!s[20]->message);
    REQUIRE(s[21]->message);
    CHECK(*s[21]->message == "n is small");
    // asm statement without outputs
    CHECK(s[22]->value->kind == ast::Expr::Kind::Asm);
    CHECK(s[22]->value->asm_block->outputs.empty());
    // nested block
    CHECK(s[23]->body.stmts.size() == 1);
  }

  TEST_CASE("if without else, and else with a nested if in its block") {
    auto c = parse(in_kernel("    if n > 0 { x[0] = 1.0; }\n    if n > 1 { x[1] = 1.0; } else { if n > 2 { x[2] = 1.0; } }\n"));
    REQUIRE(body(*c).size() == 2);
    CHECK(body(*c)[0]->clauses.size() == 1);
    REQUIRE(body(*c)[1]->clauses.size() == 2);
    CHECK(!body(*c)[1]->clauses[1].cond);
    CHECK(body(*c)[1]->clauses[1].body.stmts[0]->kind == ast::Stmt::Kind::If);
  }

  TEST_CASE("every index form") {
    auto c = parse(in_kernel(
        "    let a = y[1, 2];\n"
        "    let b = y[:, 3];\n"
        "    let d = y[0:4, 8:72];\n"
        "    let e = y[ds(n * 2, 2), :];\n"
        "    let f = y[...];\n"
        "    let g = y[2, ...];\n"
        "    let h = y[1];\n"
        "    let i = y[(n), ds(0, 128),];\n"
        "    x[...] = a + b[0] + d[0, 0] + e[0, 0] + f + g[0] + h[0] + i[0];\n"));
    using IK = ast::IndexEntry::Kind;
    auto kinds = [&](size_t stmt) {
      std::vector<IK> out;
      for (const ast::IndexEntry& i : body(*c)[stmt]->value->indices) out.push_back(i.kind);
      return out;
    };
    CHECK(kinds(0) == std::vector<IK>{IK::Scalar, IK::Scalar});
    CHECK(kinds(1) == std::vector<IK>{IK::Full, IK::Scalar});
    CHECK(kinds(2) == std::vector<IK>{IK::Slice, IK::Slice});
    CHECK(kinds(3) == std::vector<IK>{IK::DynSlice, IK::Full});
    CHECK(kinds(4) == std::vector<IK>{IK::Ellipsis});
    CHECK(kinds(5) == std::vector<IK>{IK::Scalar, IK::Ellipsis});
    CHECK(kinds(6) == std::vector<IK>{IK::Scalar});
    CHECK(kinds(7) == std::vector<IK>{IK::Scalar, IK::DynSlice});
    CHECK(sx(*body(*c)[3]->value) == "([] y (ds (* n 2) 2) :)");
    CHECK(sx(*body(*c)[2]->value) == "([] y 0:4 8:72)");
    const ast::IndexEntry& slice = body(*c)[2]->value->indices[1];
    CHECK(text_of(*c, slice.range) == "8:72");
    // The checker fills static starts and sizes.
    CHECK(slice.start == 8);
    CHECK(slice.size == 64);
    CHECK(body(*c)[3]->value->indices[0].size == 2);
    CHECK(c->ok);
  }

  TEST_CASE("a ternary inside brackets takes the next colon") {
    CHECK(parse_expr("r[c ? 1 : 2]") == "([] r (? c 1 2))");
    CHECK(parse_expr("r[(c ? 1 : 2):4]") == "([] r (? c 1 2):4)");
    CHECK(parse_expr("r[a:b, ...]") == "([] r a:b ...)");
  }

  TEST_CASE("calls: positional, keyword, type and shape arguments") {
    auto c = parse(in_kernel(
        "    let z = zeros(f32[8, 128]);\n"
        "    let r = reshape(z, [16, 64],);\n"
        "    let s = sum(z, axis=1, keepdims=true);\n"
        "    let t = full(i32[4], 7);\n"
        "    x[...] = z + f32(sum(t)) + broadcast(s, [8, 128]) + reshape(r, [8, 128]);\n"));
    const ast::Expr& zeros = *body(*c)[0]->value;
    REQUIRE(zeros.args.size() == 1);
    CHECK(zeros.args[0].kind == ast::Arg::Kind::Type);
    CHECK(zeros.args[0].type->dtype == kdt::DType::F32);
    CHECK(zeros.args[0].type->dims.size() == 2);
    CHECK(text_of(*c, zeros.args[0].range) == "f32[8, 128]");
    CHECK(text_of(*c, zeros.op_range) == "zeros");  // a call's op_range is its callee
    const ast::Expr& reshape = *body(*c)[1]->value;
    REQUIRE(reshape.args.size() == 2);
    CHECK(reshape.args[1].kind == ast::Arg::Kind::Shape);
    CHECK(reshape.args[1].shape.size() == 2);
    const ast::Expr& sum = *body(*c)[2]->value;
    REQUIRE(sum.args.size() == 3);
    CHECK(sum.args[0].kind == ast::Arg::Kind::Positional);
    CHECK(sum.args[1].kind == ast::Arg::Kind::Keyword);
    CHECK(sum.args[1].keyword.text == "axis");
    CHECK(sum.args[2].keyword.text == "keepdims");
    CHECK(sum.args[2].value->kind == ast::Expr::Kind::BoolLiteral);
    CHECK(sum.args[2].value->bool_value);
    CHECK(text_of(*c, sum.args[1].range) == "axis=1");
    // A cast is a call named after the dtype.
    CHECK(parse_expr("f32(a) + bf16(b) + bool(c)") == "(+ (+ (f32 a) (bf16 b)) (bool c))");
    CHECK(c->ok);
  }

  TEST_CASE("asm blocks: inputs, outputs, volatile, clobbers, adjacent strings, fallback") {
    auto c = parse(
        "kernel k(x: in f32[64] @global, y: out f32[64] @global) grid(1) {\n"
        "    y[...] = asm ptx volatile (a: f32 = x[...], b: f32 = 2.0,) -> (o: f32,) clobbers(\"memory\", \"cc\",) {\n"
        "        \"add.f32 %o, %a, %b;\"\n"
        "        \"// 100%% \\\"quoted\\\"\\tdone\"\n"
        "    } fallback {\n"
        "        o = a + b;\n"
        "    };\n"
        "}\n");
    const ast::Stmt& s = *body(*c)[0];
    REQUIRE(s.value->kind == ast::Expr::Kind::Asm);
    const ast::AsmBlock& a = *s.value->asm_block;
    CHECK(a.lang.text == "ptx");
    CHECK(a.is_volatile);
    REQUIRE(a.inputs.size() == 2);
    CHECK(a.inputs[0].name.text == "a");
    CHECK(a.inputs[0].dtype == kdt::DType::F32);
    CHECK(sx(*a.inputs[0].value) == "([] x ...)");
    CHECK(sx(*a.inputs[1].value) == "2.0");
    REQUIRE(a.outputs.size() == 1);
    CHECK(a.outputs[0].name.text == "o");
    CHECK(!a.outputs[0].value);
    CHECK(a.clobbers == std::vector<std::string>{"memory", "cc"});
    REQUIRE(a.strings.size() == 2);
    CHECK(a.strings[0].text == "add.f32 %o, %a, %b;");
    CHECK(a.strings[1].text == "// 100%% \"quoted\"\tdone");
    CHECK(a.joined_template() == "add.f32 %o, %a, %b;\n// 100%% \"quoted\"\tdone");
    // Each template byte maps back to its source column.
    REQUIRE(a.strings[0].source_offsets.size() == a.strings[0].text.size());
    const std::string& text = c->sources.file(a.strings[0].range.file).text;
    CHECK(text.substr(a.strings[0].source_offsets[0], 3) == "add");
    CHECK(text.substr(a.strings[1].source_offsets[9], 2) == "\\\"");
    REQUIRE(a.fallback);
    CHECK(a.fallback->stmts.size() == 1);
    CHECK(text_of(*c, a.body_range).front() == '{');
    CHECK(text_of(*c, a.body_range).back() == '}');
    CHECK(c->ok);
  }

  TEST_CASE("asm without volatile, clobbers or fallback") {
    auto c = parse(
        "kernel k(x: in u32[8] @global, y: out u32[8] @global) grid(1) {\n"
        "    y[...] = asm ptx (a: u32 = x[...]) -> (o: u32) { \"not.b32 %o, %a;\" };\n"
        "}\n");
    const ast::AsmBlock& a = *body(*c)[0]->value->asm_block;
    CHECK(!a.is_volatile);
    CHECK(a.clobbers.empty());
    CHECK(!a.fallback);
    CHECK(a.strings.size() == 1);
  }

  TEST_CASE("asm contextual words are checked by spelling") {
    CHECK(syntax_error("kernel k() grid(1) { asm cuda () -> () { \"nop;\" }; }\n"));
    CHECK(syntax_error("kernel k() grid(1) { asm ptx volatil () -> () { \"nop;\" }; }\n"));
    CHECK(syntax_error("kernel k() grid(1) { asm ptx () -> () clobber(\"memory\") { \"nop;\" }; }\n"));
    CHECK(syntax_error("kernel k() grid(1) { asm ptx () -> () { \"nop;\" } fallbck {}; }\n"));
    CHECK(syntax_error("kernel k(x: inout i32[8] @global) grid(1) { for i in 0..8 stride 2 { x[i] = 1; } }\n"));
    // The output list is required, even when empty.
    CHECK(syntax_error("kernel k() grid(1) { asm ptx () { \"nop;\" }; }\n"));
  }

  TEST_CASE("integer literals") {
    auto int_value = [](const std::string& text) {
      auto c = parse("const A = " + text + ";\n");
      const ast::Expr& e = *main_file(*c).consts[0].value;
      REQUIRE(e.kind == ast::Expr::Kind::IntLiteral);
      CHECK(e.spelling == text);
      return e.int_value;
    };
    CHECK(int_value("42") == 42);
    CHECK(int_value("1_000_000") == 1000000);
    CHECK(int_value("0x2A") == 42);
    CHECK(int_value("0X2a") == 42);
    CHECK(int_value("0xFFFF_FFFF") == 0xFFFFFFFFu);
    CHECK(int_value("007") == 7);   // leading zeros are decimal
    CHECK(int_value("010") == 10);  // not octal
    CHECK(int_value("0") == 0);
    CHECK(int_value("18446744073709551615") == UINT64_MAX);
    // `_` never at either end.
    CHECK(syntax_error("const A = 1_;\n"));
    CHECK(syntax_error("const A = 0x_2A;\n"));
    CHECK(!syntax_error("const _1 = 1;\n"));  // an identifier
    // More than 64 bits is a literal-out-of-range error, not a wrap.
    auto c = kdt::test::front_end("const A = 18446744073709551616;\n");
    CHECK(c->parsed);
    CHECK(main_file(*c).consts[0].value->too_large);
    CHECK(codes(*c) == std::vector<std::string>{"literal-out-of-range"});
  }

  TEST_CASE("float literals") {
    auto float_value = [](const std::string& text) {
      auto c = parse("kernel k() grid(1) { let _v = " + text + "; }\n");
      const ast::Expr& e = *body(*c)[0]->value;
      REQUIRE(e.kind == ast::Expr::Kind::FloatLiteral);
      return e.float_value;
    };
    CHECK(float_value("1.0") == 1.0);
    CHECK(float_value(".5") == 0.5);
    CHECK(float_value("1e-3") == doctest::Approx(1e-3));
    CHECK(float_value("2.5E+4") == 25000.0);
    CHECK(float_value("3e2") == 300.0);
    CHECK(float_value("1_0.2_5") == 10.25);
    CHECK(std::isinf(float_value("inf")));
    CHECK(std::isnan(float_value("nan")));
    // `1.` is not a number: a `.` needs digits on both sides.
    auto c = kdt::test::front_end("kernel k() grid(1) { let _v = 1.; }\n");
    CHECK(!c->parsed);
    REQUIRE(c->diags.diagnostics().size() == 1);
    CHECK(text_of(*c, c->diags.diagnostics()[0].range) == "1.");
    CHECK(syntax_error("kernel k() grid(1) { let _v = 1e; }\n"));
  }

  TEST_CASE("`0..n` is a range, not a float") {
    auto c = parse("kernel k(x: inout i32[8] @global, n: i32) grid(1) { for i in 0..n { x[i] = i; } for j in 1..8 { x[j] = 0; } }\n");
    const ast::Stmt& loop = *body(*c)[0];
    REQUIRE(loop.kind == ast::Stmt::Kind::For);
    CHECK(loop.lo->kind == ast::Expr::Kind::IntLiteral);
    CHECK(loop.lo->int_value == 0);
    CHECK(loop.hi->kind == ast::Expr::Kind::Name);
    CHECK(body(*c)[1]->lo->int_value == 1);
    CHECK(body(*c)[1]->hi->int_value == 8);
    CHECK(c->ok);
  }

  TEST_CASE("bool literals and strings") {
    CHECK(parse_expr("true && !false") == "(&& true (! false))");
    auto c = parse("kernel k(n: i32) grid(1) { assert(n > 0, \"a \\\"quoted\\\" \\\\ message\\n\"); }\n");
    CHECK(*body(*c)[0]->message == "a \"quoted\" \\ message\n");
  }

  TEST_CASE("precedence, tightest first") {
    CHECK(parse_expr("a + b * c") == "(+ a (* b c))");
    CHECK(parse_expr("a * b + c") == "(+ (* a b) c)");
    CHECK(parse_expr("-a * b") == "(* (- a) b)");
    CHECK(parse_expr("!a && b") == "(&& (! a) b)");
    CHECK(parse_expr("~a & b") == "(& (~ a) b)");
    CHECK(parse_expr("a << b + c") == "(<< a (+ b c))");
    CHECK(parse_expr("a + b << c") == "(<< (+ a b) c)");
    CHECK(parse_expr("a & b << c") == "(& a (<< b c))");
    CHECK(parse_expr("a ^ b & c") == "(^ a (& b c))");
    CHECK(parse_expr("a | b ^ c") == "(| a (^ b c))");
    // `& ^ |` bind tighter than comparisons, unlike C.
    CHECK(parse_expr("a & b == c") == "(== (& a b) c)");
    CHECK(parse_expr("a | b < c") == "(< (| a b) c)");
    CHECK(parse_expr("a ^ b != c") == "(!= (^ a b) c)");
    CHECK(parse_expr("a < b == c") == "(== (< a b) c)");
    CHECK(parse_expr("a == b && c") == "(&& (== a b) c)");
    CHECK(parse_expr("a || b && c") == "(|| a (&& b c))");
    CHECK(parse_expr("a && b || c") == "(|| (&& a b) c)");
    CHECK(parse_expr("a || b ? c : d") == "(? (|| a b) c d)");
    CHECK(parse_expr("x[i] * -y[j]") == "(* ([] x i) (- ([] y j)))");
    CHECK(parse_expr("-x[i]") == "(- ([] x i))");
    CHECK(parse_expr("f(a)[0] + 1") == "(+ ([] (f a) 0) 1)");
    CHECK(parse_expr("(a + b) * c") == "(* (+ a b) c)");
    CHECK(parse_expr("a % b / c * d") == "(* (/ (% a b) c) d)");
  }

  TEST_CASE("associativity") {
    CHECK(parse_expr("a - b - c") == "(- (- a b) c)");
    CHECK(parse_expr("a / b / c") == "(/ (/ a b) c)");
    CHECK(parse_expr("a << b >> c") == "(>> (<< a b) c)");
    CHECK(parse_expr("a && b && c") == "(&& (&& a b) c)");
    CHECK(parse_expr("a ? b : c ? d : e") == "(? a b (? c d e))");
    CHECK(parse_expr("a ? b ? c : d : e") == "(? a (? b c d) e)");
    CHECK(parse_expr("- - a") == "(- (- a))");
    CHECK(parse_expr("!!a") == "(! (! a))");
  }

  TEST_CASE("chained comparisons are an error; parenthesised ones are not") {
    auto c = kdt::test::front_end("kernel k(n: i32) grid(1) { let _b = 0 < n < 10; }\n");
    CHECK(codes(*c) == std::vector<std::string>{"syntax"});
    CHECK(parse_expr("(a < b) == c") == "(== (< a b) c)");
    auto ok = kdt::test::front_end("kernel k(n: i32) grid(1) { let _b = (0 < n) == (n < 10); }\n");
    CHECK(ok->ok);
  }

  TEST_CASE("contextual words are ordinary names elsewhere") {
    auto c = parse(
        "kernel k(out: out f32[8] @global, grid: f32) grid(1) {\n"
        "    let devices = 1;\n"
        "    let threads = devices + 1;\n"
        "    let step = threads * 2;\n"
        "    let dma = step;\n"
        "    let regular = dma;\n"
        "    let ptx = regular;\n"
        "    let volatile = ptx;\n"
        "    let clobbers = volatile;\n"
        "    let fallback = clobbers;\n"
        "    let inout = fallback;\n"
        "    for step2 in 0..inout step 1 { out[step2] = grid; }\n"
        "}\n");
    CHECK(c->ok);
    CHECK(kernel(*c).params[0].name.text == "out");
    CHECK(kernel(*c).params[0].mode == ast::ParamMode::Out);
    CHECK(kernel(*c).params[1].name.text == "grid");
    CHECK(body(*c)[0]->name.text == "devices");
    auto g = parse("kernel k(x: inout i32[4] @global) grid(1) { let grid = 1; x[0] = grid; }\n");
    CHECK(g->ok);
  }

  TEST_CASE("reserved words are not names") {
    CHECK(syntax_error("kernel k() grid(1) { let in = 1; }\n"));
    CHECK(syntax_error("kernel k() grid(1) { let f32 = 1; }\n"));
    CHECK(syntax_error("kernel k() grid(1) { let scratch = 1; }\n"));
    CHECK(syntax_error("const kernel = 1;\n"));
    // KD 0.2 reserves `while` and `return` (spec section 2).
    CHECK(syntax_error("kernel k() grid(1) { let while = 1; }\n"));
    CHECK(syntax_error("kernel k() grid(1) { let return = 1; }\n"));
  }

  TEST_CASE("a while loop: its condition and body") {
    auto w = parse("kernel k(x: inout i32[4] @global) grid(1) { var i = 0; while i < 4 { x[i] = i; i += 1; } }\n");
    REQUIRE(w->ok);
    const ast::Stmt& loop = *body(*w)[1];
    REQUIRE(loop.kind == ast::Stmt::Kind::While);
    CHECK(sx(*loop.value) == "(< i 4)");
    CHECK(loop.body.stmts.size() == 2);
  }

  TEST_CASE("comments and white space") {
    auto c = parse(
        "// line comment\n/* block\n comment */ const /* inline */ A = 1; // trailing\n"
        "const B = A /* * 100 */ + 1;\n");
    REQUIRE(main_file(*c).consts.size() == 2);
    CHECK(sx(*main_file(*c).consts[1].value) == "(+ A 1)");
    CHECK(c->program.consts[1]->symbol->const_value == 2);
  }

  TEST_CASE("exact source ranges") {
    auto c = parse(
        "const N = 8;\n"
        "kernel k(x: inout f32[N] @global) grid(1) {\n"
        "    let v = x[ds(0, 4)] * 2.0 + 1.0;\n"
        "    x[0:4] = v;\n"
        "}\n");
    const ast::Stmt& let = *body(*c)[0];
    CHECK(position(*c, let.range) == "3:5-3:37");
    CHECK(text_of(*c, let.range) == "let v = x[ds(0, 4)] * 2.0 + 1.0;");
    CHECK(position(*c, let.name.range) == "3:9-3:10");
    const ast::Expr& sum = *let.value;
    CHECK(text_of(*c, sum.range) == "x[ds(0, 4)] * 2.0 + 1.0");
    CHECK(position(*c, sum.op_range) == "3:31-3:32");
    const ast::Expr& product = *sum.operands[0];
    CHECK(text_of(*c, product.range) == "x[ds(0, 4)] * 2.0");
    const ast::Expr& view = *product.operands[0];
    CHECK(text_of(*c, view.range) == "x[ds(0, 4)]");
    CHECK(text_of(*c, view.indices[0].range) == "ds(0, 4)");
    CHECK(text_of(*c, view.operands[0]->range) == "x");
    const ast::Stmt& assign = *body(*c)[1];
    CHECK(text_of(*c, assign.range) == "x[0:4] = v;");
    CHECK(text_of(*c, assign.target->range) == "x[0:4]");
    CHECK(position(*c, kernel(*c).name.range) == "2:8-2:9");
    CHECK(position(*c, kernel(*c).range) == "2:1-5:2");
    CHECK(text_of(*c, kernel(*c).params[0].tile_type->range) == "f32[N]");
    CHECK(text_of(*c, main_file(*c).consts[0].range) == "const N = 8;");
    // A parenthesised expression covers its parentheses.
    auto p = parse("const A = (1 + 2) * 3;\n");
    const ast::Expr& mul = *main_file(*p).consts[0].value;
    CHECK(text_of(*p, mul.operands[0]->range) == "(1 + 2)");
    CHECK(mul.operands[0]->parenthesized);
  }

  TEST_CASE("ranges count code points and bytes correctly after non-ASCII text") {
    auto c = parse("// größe\nconst N = 8; /* π */ const M = N;\n");
    const ast::ConstDecl& m = main_file(*c).consts[1];
    CHECK(text_of(*c, m.range) == "const M = N;");
    kdt::LineColumn lc = c->sources.position(m.range.file, m.range.begin);
    CHECK(lc.line == 2);
    CHECK(lc.column == 22);
    CHECK(lc.byte_column == 23);
  }

  TEST_CASE("syntax errors") {
    CHECK(syntax_error("kernel k() grid(1) { let a = 1 }\n"));         // missing `;`
    CHECK(syntax_error("kernel k() grid(1) { let a = (1 + 2; }\n"));   // missing `)`
    CHECK(syntax_error("kernel k() grid(1) { let a = 1 +; }\n"));      // missing operand
    CHECK(syntax_error("kernel k() grid(1) { let a = \"text\"; }\n"));  // a string is not a value
    CHECK(syntax_error("kernel k() grid(1) { let a = 1; \n"));         // missing `}`
    CHECK(syntax_error("kernel k() grid(1) { let a = 1 # 2; }\n"));    // stray character
    CHECK(syntax_error("kernel k() grid(1) { let a = 1; } /* open\n"));
    CHECK(syntax_error("kernel k() grid(1) { assert(true, \"open); }\n"));
    CHECK(syntax_error("kernel k() grid(1) { assert(true, \"\\q\"); }\n"));
    CHECK(syntax_error(std::string("kernel k() grid(1) { let a = 1;\0 }\n", 36)));
    CHECK(syntax_error("kernel k() grid(1) { let a = 1; \xff }\n"));
    CHECK(syntax_error("kernel k() grid(1) { assert(true, \"caf\xe9\"); }\n"));
    CHECK(syntax_error("let a = 1;\n"));  // statements only inside kernels
  }

  TEST_CASE("a missing `;` is reported at the end of the previous token") {
    auto c = kdt::test::front_end("kernel k(x: inout f32[4] @global) grid(1) {\n    let a = x[0] * 2.0\n    x[1] = a;\n}\n");
    REQUIRE(c->diags.diagnostics().size() == 1);
    const kdt::Diagnostic& d = c->diags.diagnostics()[0];
    CHECK(kdt::diag_info(d.code).name == std::string("syntax"));
    CHECK(position(*c, d.range) == "2:23-2:23");
    CHECK(d.message.find("`;`") != std::string::npos);
  }

  TEST_CASE("an error right after a lexical error is not reported twice") {
    auto c = kdt::test::front_end("kernel k(x: inout i32[4] @global) grid(1) {\n    x[0] = x[1] $ 2;\n}\n");
    CHECK(codes(*c) == std::vector<std::string>{"syntax"});
    auto s = kdt::test::front_end("kernel k() grid(1) {\n    assert(true, \"open);\n}\n");
    CHECK(codes(*s) == std::vector<std::string>{"syntax"});
  }

  // Items are parsed as they are lexed, each built and its tokens freed
  // before the next; an item that needs a diagnostic sends the file back
  // through the buffered parse, which must report it as a whole-file parse
  // would and keep the items already built once.
  TEST_CASE("errors after items already streamed are reported once, where they are") {
    const std::string good = "const A = 1;\nkernel k(x: inout i32[4] @global) grid(1) {\n    x[0] = A;\n}\n";
    struct Case {
      std::string tail;
      std::string code;
      std::string at;
    };
    const Case cases[] = {
        {"const B = 2 $ 1;\n", "syntax", "5:13-5:14"},            // a lexical error
        {"const B = 2\nconst C = 3;\n", "syntax", "5:12-5:12"},   // a syntax error
        {"const B = ((((1))));\n", "nesting-too-deep", "5:14-5:15"},
    };
    for (const Case& k : cases) {
      CAPTURE(k.tail);
      kdt::Options options;
      options.limits.max_nesting = 3;
      auto c = kdt::test::front_end(good + k.tail, "test.kd", options);
      REQUIRE(c->diags.diagnostics().size() == 1);
      const kdt::Diagnostic& d = c->diags.diagnostics()[0];
      CHECK(kdt::diag_info(d.code).name == k.code);
      CHECK(position(*c, d.range) == k.at);
      CHECK_FALSE(c->parsed);
    }
    // Non-ASCII text before and after: the ranges stay exact.
    auto c = parse("// π\n" + good + "const B = 2; // größe\nconst C = B;\n");
    REQUIRE(main_file(*c).consts.size() == 3);
    CHECK(text_of(*c, main_file(*c).consts[2].range) == "const C = B;");
  }

  TEST_CASE("an empty file is an empty program") {
    auto c = parse("");
    CHECK(main_file(*c).kernels.empty());
    CHECK(c->ok);
    auto comments = parse("// nothing here\n/* at all */\n");
    CHECK(comments->ok);
  }

  // Issue 12, item 22: a keyword's value may be a dtype name (the checker
  // decides where one is allowed), so `preferred_element_type=bf16` parses.
  TEST_CASE("a keyword argument may take a dtype name") {
    auto c = parse(in_kernel("    let d = dot(y, y, dtype=bf16, preferred_element_type=f32);\n"));
    const ast::Expr& dot = *body(*c)[0]->value;
    REQUIRE(dot.args.size() == 4);
    CHECK(dot.args[2].kind == ast::Arg::Kind::Keyword);
    CHECK(dot.args[2].value->kind == ast::Expr::Kind::Name);
    CHECK(dot.args[2].value->spelling == "bf16");
    CHECK(text_of(*c, dot.args[2].value->range) == "bf16");
    CHECK(dot.args[3].keyword.text == "preferred_element_type");
    // A cast after `=` is still a call.
    CHECK(parse_expr("f(a, k=f32(b))") == "(f a k=(f32 b))");
    CHECK(parse_expr("f(a, k=f32)") == "(f a k=f32)");
  }

  // Issue 12, item 22: Pallas spellings get a note naming the KD form.
  TEST_CASE("Pallas spellings are syntax errors with a note that names the KD form") {
    struct Case {
      std::string stmt, note, fixit;
    };
    const std::vector<Case> cases = {
        {"    for i in range(4) { x[i, :] = y[i, :]; }\n", "`range(n)` is `0..n`", "0..4"},
        {"    for i in range(1, n, 2) { x[i, :] = y[i, :]; }\n", "`range(a, b, s)` is `a..b step s`", "1..n step 2"},
        {"    x[...] = y @ y;\n", "a matrix product is `dot(a, b)`", ""},
        {"    x[...] = y[...] @ y[...];\n", "a matrix product is `dot(a, b)`", ""},
        {"    let i = pl.program_id(0);\n", "`pl.program_id` is `program_id` in KD", "program_id"},
        {"    x[...] = jnp.matmul(y, y);\n", "`jnp.matmul` is `dot` in KD", "dot"},
        {"    x[...] = f32(jnp.float32(y));\n", "`jnp.float32` is `f32` in KD", "f32"},
        {"    x[...] = pl.no_such(y);\n", "KD has no modules", ""},
    };
    for (const Case& k : cases) {
      INFO(k.stmt);
      auto c = kdt::test::front_end(in_kernel(k.stmt));
      REQUIRE(!c->parsed);
      REQUIRE(c->diags.diagnostics().size() == 1);
      const kdt::Diagnostic& d = c->diags.diagnostics()[0];
      CHECK(kdt::diag_info(d.code).name == std::string("syntax"));
      REQUIRE(d.notes.size() == 1);
      CHECK(d.notes[0].message.find(k.note) != std::string::npos);
      if (k.fixit.empty()) {
        CHECK(d.fixits.empty());
      } else {
        REQUIRE(d.fixits.size() == 1);
        CHECK(d.fixits[0].replacement == k.fixit);
        // The fix-it gives a program that parses.
        std::string text = in_kernel(k.stmt);
        const kdt::FixIt& f = d.fixits[0];
        text = text.substr(0, f.range.begin) + f.replacement + text.substr(f.range.end);
        auto fixed = kdt::test::front_end(text);
        CHECK_MESSAGE(fixed->parsed, text);
      }
    }
    // Not a Pallas module: the plain message, no note.
    auto other = kdt::test::front_end(in_kernel("    x[...] = foo.bar(y);\n"));
    REQUIRE(other->diags.diagnostics().size() == 1);
    CHECK(other->diags.diagnostics()[0].notes.empty());
  }
}


// Issue 17: what every node carries is the front end's peak on a large
// program (bench/README.md; docs/decisions.md, "Small AST nodes").
TEST_SUITE("syntax") {
  TEST_CASE("node sizes: a bound on what every expression, statement and type carries") {
    CHECK(sizeof(ast::Expr) <= 160);
    CHECK(sizeof(ast::Stmt) <= 312);
    CHECK(sizeof(kdt::Type) <= 40);
    CHECK(sizeof(ast::Name) <= 24);
    CHECK(sizeof(kdt::ResolvedCall) <= 64);
  }

  TEST_CASE("InternedString: equal spellings share one string; reads and compares as a std::string") {
    kdt::InternedString empty;
    CHECK(empty.empty());
    CHECK(empty == "");
    kdt::InternedString a(std::string("tile_") + "rows"), b = std::string("tile_rows");
    CHECK(&a.str() == &b.str());
    CHECK(a == "tile_rows");
    CHECK(a != std::string("tile"));
    CHECK("`" + a + "`" == "`tile_rows`");
    const std::string& as_string = a;
    CHECK(as_string.size() == 9);
    b = std::string("other");
    CHECK(a == "tile_rows");  // assigning interns anew; `a` is unchanged
    CHECK(b == "other");
  }

  TEST_CASE("CompactVector and a Type's detail: empty without a heap block, deep copies") {
    kdt::CompactVector<int> v;
    CHECK(v.empty());
    CHECK(v.begin() == v.end());
    v.push_back(1);
    v.emplace_back(2);
    kdt::CompactVector<int> copy = v;
    copy[0] = 7;
    CHECK(v.size() == 2);
    CHECK(v[0] == 1);
    CHECK(copy[0] == 7);
    int sum = 0;
    for (int x : v) sum += x;
    CHECK(sum == 3);
    v.clear();
    CHECK(v.empty());

    kdt::Type sem;
    CHECK(sem.detail().sem_count == -1);  // no detail: the defaults
    sem.edit_detail().sem_count = 4;
    kdt::Type other = sem;
    other.edit_detail().sem_count = 2;
    CHECK(sem.detail().sem_count == 4);
    CHECK(other.detail().sem_count == 2);
  }
}
