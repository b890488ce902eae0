// The built-in table (kdt/check/builtin_table.h): every row resolves to its
// id, keywords have their types, every built-in the docs name has a row, and
// the checker records the resolved call on the call node.
#include <doctest/doctest.h>

#include <algorithm>
#include <regex>
#include <set>

#include "kdt/check/builtin_table.h"
#include "test_support.h"

namespace {

using kdt::BuiltinId;
using kdt::Keyword;
using kdt::KeywordType;
namespace ast = kdt::ast;

// The calls of `block`, in source order (statements and their values).
void calls_of(const ast::Expr& e, std::vector<const ast::Expr*>& out) {
  if (e.kind == ast::Expr::Kind::Call) out.push_back(&e);
  for (const ast::ExprPtr& o : e.operands) calls_of(*o, out);
  for (const ast::Arg& a : e.args) {
    if (a.value) calls_of(*a.value, out);
  }
  for (const ast::IndexEntry& i : e.indices) {
    if (i.first) calls_of(*i.first, out);
    if (i.second) calls_of(*i.second, out);
  }
}

std::vector<const ast::Expr*> calls_of(const ast::Block& block) {
  std::vector<const ast::Expr*> out;
  for (const ast::StmtPtr& s : block.stmts) {
    if (s->target) calls_of(*s->target, out);
    if (s->value) calls_of(*s->value, out);
  }
  return out;
}

}  // namespace

TEST_SUITE("check") {
  TEST_CASE("builtin table: every row's name resolves to its id, in id order") {
    std::set<std::string> names;
    for (size_t i = 0; i < kdt::builtin_table().size(); ++i) {
      const kdt::BuiltinSpec& row = kdt::builtin_table()[i];
      CAPTURE(row.name);
      CHECK(static_cast<size_t>(row.id) == i);
      CHECK(&kdt::builtin(row.id) == &row);
      CHECK(row.min_positional <= row.max_positional);
      if (row.id == BuiltinId::Cast) {
        CHECK(std::string(row.name).empty());
        continue;
      }
      CHECK(names.insert(row.name).second);
      REQUIRE(kdt::find_builtin(row.name) != nullptr);
      CHECK(kdt::find_builtin(row.name)->id == row.id);
    }
    for (const char* dtype : {"f32", "bf16", "i8", "u64", "bool"}) {
      CAPTURE(dtype);
      REQUIRE(kdt::find_builtin(dtype) != nullptr);
      CHECK(kdt::find_builtin(dtype)->id == BuiltinId::Cast);
    }
    CHECK(kdt::find_builtin("") == nullptr);
    CHECK(kdt::find_builtin("matmul") == nullptr);
    CHECK(kdt::find_builtin("cast") == nullptr);
  }

  TEST_CASE("builtin table: keywords and their types (spec section 7)") {
    using Row = std::vector<std::pair<std::string, KeywordType>>;
    const std::vector<std::pair<std::string, Row>> expected = {
        {"load", {{"mask", KeywordType::BoolMask}, {"other", KeywordType::ElementScalar}}},
        {"store", {{"mask", KeywordType::BoolMask}}},
        {"dma_start",
         {{"add", KeywordType::BoolLiteral}, {"src_sem", KeywordType::DmaSemaphore}, {"device", KeywordType::I32Scalar}}},
        {"dma",
         {{"add", KeywordType::BoolLiteral}, {"src_sem", KeywordType::DmaSemaphore}, {"device", KeywordType::I32Scalar}}},
        {"sem_signal", {{"device", KeywordType::I32Scalar}}},
        {"sum", {{"axis", KeywordType::ConstAxis}, {"keepdims", KeywordType::BoolLiteral}}},
        {"max", {{"axis", KeywordType::ConstAxis}, {"keepdims", KeywordType::BoolLiteral}}},
        {"min", {{"axis", KeywordType::ConstAxis}, {"keepdims", KeywordType::BoolLiteral}}},
        {"dot",
         {{"dtype", KeywordType::DTypeName}, {"trans_a", KeywordType::BoolLiteral}, {"trans_b", KeywordType::BoolLiteral}}},
    };
    for (const kdt::BuiltinSpec& row : kdt::builtin_table()) {
      CAPTURE(row.name);
      auto it = std::find_if(expected.begin(), expected.end(), [&](const auto& e) { return e.first == row.name; });
      Row got;
      for (const kdt::KeywordSpec& k : row.keywords) {
        got.emplace_back(k.name, k.type);
        CHECK(std::string(kdt::keyword_name(k.id)) == k.name);
        CHECK(row.keyword(k.name) == &k);
      }
      // The spec allows keywords only where it lists them.
      CHECK(got == (it == expected.end() ? Row{} : it->second));
    }
  }

  TEST_CASE("builtin table: every built-in the docs and the spec name has a row") {
    // Spec sections 6, 7 and 9 (KD 0.1 built-ins).
    for (const char* name : {"ds", "load", "store", "dma_start", "dma_wait", "sem_signal", "sem_wait", "sem_read",
                             "program_id", "num_programs", "device_id", "num_devices", "cdiv", "zeros", "ones", "full",
                             "iota", "exp", "log", "sqrt", "rsqrt", "tanh", "sin", "cos", "abs", "floor", "ceil",
                             "maximum", "minimum", "where", "sum", "max", "min", "broadcast", "reshape", "transpose",
                             "dot",
                             // KD 0.2 (section 16).
                             "dma", "dma_wait_send", "dma_wait_recv"}) {
      CAPTURE(name);
      CHECK(kdt::find_builtin(name) != nullptr);
    }
    // Every `name(` docs/language.md writes in code: a row, a cast, or a
    // spelling of another language that the docs contrast with KD.
    // `T(x)` is a cast through a type alias (section 14), not a built-in.
    // `devices(...)` is a kernel attribute; `mesh_device(` is IR (section 15).
    // `grid(...)` and `threads(...)` are kernel attributes too (section 13).
    const std::set<std::string> not_kd = {"range", "T", "devices", "grid", "threads", "mesh_device"};
    std::string doc = kdt::test::read_text(kdt::test::source_dir() + "/docs/language.md");
    REQUIRE(!doc.empty());
    std::regex call("`([A-Za-z_][A-Za-z_0-9]*)\\(");
    int seen = 0;
    for (auto it = std::sregex_iterator(doc.begin(), doc.end(), call); it != std::sregex_iterator(); ++it) {
      std::string name = (*it)[1];
      CAPTURE(name);
      if (not_kd.count(name)) continue;
      CHECK(kdt::find_builtin(name) != nullptr);
      ++seen;
    }
    CHECK(seen > 0);
  }

  TEST_CASE("builtin table: the checker records each call's id and typed keywords") {
    auto c = kdt::test::front_end(
        "kernel k(a: in f32[8, 16] @global, b: in f32[8, 16] @global, y: out f32[16, 16] @global,\n"
        "         s: out f32[8] @global) grid(2) {\n"
        "    scratch buf: f32[8, 16] @shared;\n"
        "    sem d: dma;\n"
        "    dma_start(a, buf, d, add=true);\n"
        "    dma_wait(d, buf);\n"
        "    y[...] = dot(a, b, trans_a=true, dtype=f32);\n"
        "    store(s[ds(program_id(0) * 0, 8)], sum(load(a), axis=1, keepdims=false), mask=iota(i32[8], 0) < 8);\n"
        "}\n");
    REQUIRE(c->ok);
    std::vector<const ast::Expr*> calls = calls_of(c->program.kernels[0]->body);
    std::vector<BuiltinId> ids;
    for (const ast::Expr* e : calls) {
      REQUIRE(e->call != nullptr);
      CHECK(e->call->spec == &kdt::builtin(e->call->id));
      ids.push_back(e->call->id);
    }
    CHECK(ids == std::vector<BuiltinId>{BuiltinId::DmaStart, BuiltinId::DmaWait, BuiltinId::Dot, BuiltinId::Store,
                                        BuiltinId::Ds, BuiltinId::ProgramId, BuiltinId::Sum, BuiltinId::Load,
                                        BuiltinId::Iota});
    const kdt::ResolvedCall& dma = *calls[0]->call;
    CHECK(dma.positional.size() == 3);
    CHECK(dma.flag(Keyword::Add));
    CHECK(dma.keyword(Keyword::Device) == nullptr);
    const kdt::ResolvedCall& dot = *calls[2]->call;
    CHECK(dot.flag(Keyword::TransA));
    CHECK(!dot.flag(Keyword::TransB));
    REQUIRE(dot[Keyword::Dtype].dtype.has_value());
    CHECK(*dot[Keyword::Dtype].dtype == kdt::DType::F32);
    const kdt::ResolvedCall& store = *calls[3]->call;
    CHECK(store.keyword(Keyword::Mask) != nullptr);
    const kdt::ResolvedCall& sum = *calls[6]->call;
    CHECK(sum[Keyword::Axis].constant == std::optional<int64_t>(1));
    CHECK(sum.keyword(Keyword::Keepdims) != nullptr);
    CHECK(!sum.flag(Keyword::Keepdims));
  }
}
