// The diagnostic registry (include/kdt/diag/diagnostics.def): its codes, the
// explanations joined to them, and the Tool codes, which have no source
// location and so no file test under tests/diag: each has a case here.
#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "kdt/diag/render.h"
#include "kdt/runtime/kdt_codes.h"
#include "test_support.h"

// The runtime prelude's codes are the registry's: same enumerators, same
// values (include/kdt/runtime/kdt_codes.h, include/kdt/diag/diagnostics.def).
#define KDT_DIAG(id, name, severity, phase, summary)                                     \
  static_assert(static_cast<int>(kdt_rt::Code::id) == static_cast<int>(kdt::DiagCode::id), \
                "kdt_rt::Code::" #id " must equal kdt::DiagCode::" #id);
#include "kdt/diag/diagnostics.def"
#undef KDT_DIAG

namespace {

using nlohmann::json;
using kdt::test::RunResult;

std::string sample_path(const std::string& name) { return kdt::test::source_dir() + "/samples/" + name + ".kd"; }

// The one entry of a JSON diagnostics document that has `code`, or null.
json entry_with_code(const std::string& text, const std::string& code) {
  json doc = json::parse(text, nullptr, false);
  if (!doc.is_array()) return nullptr;
  for (const json& d : doc) {
    if (d.value("code", "") == code) return d;
  }
  return nullptr;
}

// How each Tool code is produced by kdt, end to end where an input can cause
// it; a Tool code without an entry here fails the coverage case.
const std::map<std::string, std::function<void()>>& tool_code_tests() {
  static const std::map<std::string, std::function<void()>> tests = {
      {"command-line",
       [] {
         RunResult r = kdt::test::run_kdt("--emit=wasm --diagnostics-format=json " + sample_path("softmax"));
         CHECK(r.status == 2);
         json d = entry_with_code(r.err, "command-line");
         REQUIRE_MESSAGE(!d.is_null(), r.err);
         CHECK(d["kind"] == "error");
         CHECK(d["locations"].empty());
         RunResult text = kdt::test::run_kdt("--no-such-option " + sample_path("softmax"));
         CHECK(text.status == 2);
       }},
      {"cuda-toolchain-missing",
       [] {
         kdt::test::TempDir tmp;
         RunResult r = kdt::test::run_captured("KDT_NO_CUDA=1 " + kdt::test::shell_quote(kdt::test::kdt_binary()) +
                                               " --emit=ptx " + kdt::test::shell_quote(sample_path("softmax")) + " -o " +
                                               kdt::test::shell_quote(tmp.file("x.ptx")));
         CHECK(r.status == 2);
         CHECK_MESSAGE(r.err.find("cuda-toolchain-missing") != std::string::npos, r.err);
       }},
      {"internal-error",
       [] {
         // No input may cause it (tests/unit/robustness_test.cpp checks that
         // none does); the renderers still carry it without a location.
         kdt::SourceManager sources;
         std::vector<kdt::Diagnostic> diags = {
             {kdt::DiagCode::InternalError, kdt::Severity::Error, "internal error: test", {}, {}, {}, {}}};
         json d = entry_with_code(kdt::render_json(diags, sources), "internal-error");
         REQUIRE(!d.is_null());
         CHECK(d["locations"].empty());
         json sarif = json::parse(kdt::render_sarif(diags, sources));
         CHECK(sarif["runs"][0]["results"][0]["ruleId"] == "internal-error");
         CHECK(kdt::render_text(diags, sources, false).find("[internal-error]") != std::string::npos);
       }},
  };
  return tests;
}

}  // namespace

TEST_SUITE("registry") {
  TEST_CASE("codes, enumerators and explanations are one table") {
    std::set<std::string> names, enumerators;
    size_t index = 0;
    for (const kdt::DiagInfo& info : kdt::all_diagnostics()) {
      CAPTURE(info.name);
      CHECK(static_cast<size_t>(info.code) == index++);
      CHECK(names.insert(info.name).second);
      CHECK(enumerators.insert(info.enumerator).second);
      CHECK(kdt::diag_code_from_name(info.name) == info.code);
      const kdt::Explanation& e = kdt::explanation(info.code);
      CHECK(e.id == info.code);
      CHECK(std::string(e.code) == info.name);
      CHECK(kdt::find_explanation(info.name) == &e);
    }
    CHECK(index == kdt::kDiagCodeCount);
    CHECK(kdt::all_explanations().size() == kdt::kDiagCodeCount);
    CHECK(kdt::find_explanation("no-such-code") == nullptr);
  }

  TEST_CASE("the runtime prelude names every code as the registry does") {
    for (const kdt::DiagInfo& info : kdt::all_diagnostics()) {
      kdt_rt::Code code = static_cast<kdt_rt::Code>(static_cast<int>(info.code));
      CHECK(std::string(kdt_rt::code_name(code)) == info.name);
      CHECK(std::string(kdt_rt::RunCode(code).name()) == info.name);
    }
  }

  TEST_CASE("command-line, internal-error and cuda-toolchain-missing are registered Tool codes") {
    for (const char* name : {"command-line", "internal-error", "cuda-toolchain-missing"}) {
      CAPTURE(name);
      auto code = kdt::diag_code_from_name(name);
      REQUIRE(code);
      CHECK(kdt::diag_info(*code).phase == kdt::DiagPhase::Tool);
      CHECK(kdt::diag_info(*code).severity == kdt::Severity::Error);
    }
    CHECK(std::string(kdt::diag_info(kdt::DiagCode::CommandLine).name) == "command-line");
    CHECK(std::string(kdt::diag_info(kdt::DiagCode::InternalError).name) == "internal-error");
    CHECK(std::string(kdt::diag_info(kdt::DiagCode::CudaToolchainMissing).name) == "cuda-toolchain-missing");
  }

  TEST_CASE("every Tool code has a test") {
    for (const kdt::DiagInfo& info : kdt::all_diagnostics()) {
      if (info.phase != kdt::DiagPhase::Tool) continue;
      CAPTURE(info.name);
      auto test = tool_code_tests().find(info.name);
      REQUIRE_MESSAGE(test != tool_code_tests().end(), "no case in tool_code_tests() for `" << info.name << "`");
      test->second();
    }
  }

  TEST_CASE("kdt --explain knows the Tool codes") {
    for (const char* name : {"command-line", "internal-error", "cuda-toolchain-missing"}) {
      RunResult r = kdt::test::run_kdt(std::string("--explain ") + name);
      CHECK(r.status == 0);
      CHECK(r.out.find(std::string(name) + " (error)") == 0);
    }
  }
}
