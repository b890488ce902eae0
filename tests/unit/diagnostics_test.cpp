// File tests for diagnostics: every `tests/diag/*.kd` states what kdt must
// report, as comment lines
//     // EXPECT: SEVERITY CODE LINE:COL-LINE:COL [in FILE]
//     // ARGS: extra command-line options (optional)
// (1-based; the end column is exclusive; `in FILE` names a helper file next
// to the test when the diagnostic lies in a file it includes). Each expectation is checked in
// the JSON, text and SARIF renderings. A test fails when a code of the
// registry has no such file.
#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "kdt/diag/render.h"
#include "test_support.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct Expectation {
  std::string severity, code;
  int line, col, end_line, end_col;
  std::string file;  // the file name (no directory) the diagnostic lies in
};

struct DiagFile {
  std::string path;
  std::vector<Expectation> expected;
  std::string args;
};

std::vector<DiagFile> diag_files() {
  std::vector<DiagFile> files;
  std::regex expect_re(
      R"(//\s*EXPECT:\s*(error|warning|note)\s+([a-z-]+)\s+(\d+):(\d+)-(\d+):(\d+)(?:\s+in\s+(\S+))?)");
  std::regex args_re(R"(//\s*ARGS:\s*(.*))");
  for (const auto& entry : fs::directory_iterator(kdt::test::source_dir() + "/tests/diag")) {
    if (entry.path().extension() != ".kd" || entry.path().filename().string().rfind("fail_", 0) != 0) continue;
    DiagFile f;
    f.path = entry.path().string();
    std::istringstream in(kdt::test::read_text(f.path));
    std::string line;
    while (std::getline(in, line)) {
      std::smatch m;
      if (std::regex_search(line, m, expect_re)) {
        std::string file = m[7].matched ? m[7].str() : entry.path().filename().string();
        f.expected.push_back(
            {m[1], m[2], std::stoi(m[3]), std::stoi(m[4]), std::stoi(m[5]), std::stoi(m[6]), file});
      } else if (std::regex_search(line, m, args_re)) {
        f.args = m[1];
      }
    }
    files.push_back(f);
  }
  std::sort(files.begin(), files.end(), [](const DiagFile& a, const DiagFile& b) { return a.path < b.path; });
  return files;
}

std::string describe(const Expectation& e) {
  return e.severity + " " + e.code + " " + std::to_string(e.line) + ":" + std::to_string(e.col) + "-" +
         std::to_string(e.end_line) + ":" + std::to_string(e.end_col) + " in " + e.file;
}

std::string base_name(const std::string& path) { return fs::path(path).filename().string(); }

// The actual diagnostics of one run, as expectations, from each format.
std::vector<std::string> from_json(const std::string& text) {
  std::vector<std::string> out;
  for (const json& d : json::parse(text)) {
    if (d["locations"].empty()) continue;
    const json& loc = d["locations"][0];
    // GCC's `finish` is inclusive; expectations use an exclusive end.
    int line = loc["start"]["line"], col = loc["start"]["column"];
    int end_line = loc["finish"]["line"], end_col = loc["finish"]["column"];
    out.push_back(d["kind"].get<std::string>() + " " + d["code"].get<std::string>() + " " + std::to_string(line) +
                  ":" + std::to_string(col) + "-" + std::to_string(end_line) + ":" + std::to_string(end_col + 1) + " in " +
                  base_name(loc["start"]["file"].get<std::string>()));
  }
  return out;
}

std::vector<std::string> from_sarif(const std::string& text) {
  std::vector<std::string> out;
  json sarif = json::parse(text);
  REQUIRE(sarif["version"] == "2.1.0");
  REQUIRE(sarif["runs"][0]["tool"]["driver"]["name"] == "kdt");
  for (const json& r : sarif["runs"][0]["results"]) {
    if (r["locations"].empty()) continue;
    const json& physical = r["locations"][0]["physicalLocation"];
    const json& region = physical["region"];
    out.push_back(r["level"].get<std::string>() + " " + r["ruleId"].get<std::string>() + " " +
                  std::to_string(region["startLine"].get<int>()) + ":" + std::to_string(region["startColumn"].get<int>()) +
                  "-" + std::to_string(region["endLine"].get<int>()) + ":" +
                  std::to_string(region["endColumn"].get<int>()) + " in " +
                  base_name(physical["artifactLocation"]["uri"].get<std::string>()));
  }
  return out;
}

}  // namespace

TEST_SUITE("diagnostics") {
  TEST_CASE("every diagnostic file reports exactly what it expects, in JSON, text and SARIF") {
    std::vector<DiagFile> files = diag_files();
    REQUIRE(!files.empty());
    for (const DiagFile& f : files) {
      CAPTURE(f.path);
      REQUIRE_MESSAGE(!f.expected.empty(), "no EXPECT line in " << f.path);
      std::string quoted = kdt::test::shell_quote(f.path);
      kdt::test::RunResult json_run = kdt::test::run_kdt(f.args + " --diagnostics-format=json " + quoted);
      std::vector<std::string> actual = from_json(json_run.err);
      std::vector<std::string> expected;
      for (const Expectation& e : f.expected) {
        // Zero-width ranges (a missing token) are written N:C-N:C.
        Expectation adjusted = e;
        if (e.line == e.end_line && e.col == e.end_col) adjusted.end_col = e.col + 1;
        expected.push_back(describe(adjusted));
      }
      std::sort(actual.begin(), actual.end());
      std::sort(expected.begin(), expected.end());
      CHECK(actual == expected);
      bool any_error = std::any_of(f.expected.begin(), f.expected.end(),
                                   [](const Expectation& e) { return e.severity == "error"; });
      CHECK(json_run.status == (any_error ? 1 : 0));

      // SARIF: same codes and levels; regions use an exclusive end column.
      kdt::test::RunResult sarif_run = kdt::test::run_kdt(f.args + " --diagnostics-format=sarif " + quoted);
      std::vector<std::string> sarif = from_sarif(sarif_run.err);
      std::vector<std::string> sarif_expected;
      for (const Expectation& e : f.expected) sarif_expected.push_back(describe(e));
      std::sort(sarif.begin(), sarif.end());
      std::sort(sarif_expected.begin(), sarif_expected.end());
      CHECK(sarif == sarif_expected);

      // Text: `file:line:col: severity: message [code]` for each.
      kdt::test::RunResult text_run = kdt::test::run_kdt(f.args + " --color=never " + quoted);
      for (const Expectation& e : f.expected) {
        std::string path = (fs::path(f.path).parent_path() / e.file).string();
        std::string header = path + ":" + std::to_string(e.line) + ":" + std::to_string(e.col) + ": " + e.severity + ": ";
        size_t at = text_run.err.find(header);
        CHECK_MESSAGE(at != std::string::npos, "text output lacks " << header << "\n" << text_run.err);
        if (at != std::string::npos) {
          size_t eol = text_run.err.find('\n', at);
          CHECK(text_run.err.substr(at, eol - at).find("[" + e.code + "]") != std::string::npos);
        }
      }
    }
  }

  // Tool codes have no source location to expect: tests/unit/registry_test.cpp covers them.
  TEST_CASE("every code of the registry with a source location has a diagnostic file test") {
    std::set<std::string> tested;
    for (const DiagFile& f : diag_files()) {
      for (const Expectation& e : f.expected) tested.insert(e.code);
    }
    for (const kdt::DiagInfo& info : kdt::all_diagnostics()) {
      if (info.phase == kdt::DiagPhase::Tool) continue;
      CHECK_MESSAGE(tested.count(info.name), "no tests/diag/fail_*.kd expects `" << std::string(info.name) << "`");
    }
  }

  TEST_CASE("the JSON output is an empty array when all is well") {
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("ok.kd"), "kernel k(x: inout f32[4] @global) grid(1) { x[...] = x * 2.0; }\n");
    kdt::test::RunResult r = kdt::test::run_kdt("--diagnostics-format=json " + tmp.file("ok.kd"));
    CHECK(r.status == 0);
    CHECK(json::parse(r.err) == json::array());
  }

  TEST_CASE("fix-its, notes and labels appear in JSON") {
    auto c = kdt::test::front_end("kernel k(x: in f32[4] @global) grid(1) {\n  x[...] = x * 2.0;\n}\n");
    std::string text = kdt::render_json(c->diags.sorted(), c->sources);
    json j = json::parse(text);
    REQUIRE(j.size() == 1);
    CHECK(j[0]["code"] == "write-to-input");
    CHECK(j[0]["children"][0]["kind"] == "note");
    CHECK(j[0]["children"][0]["locations"][0]["start"]["line"] == 1);
  }

  TEST_CASE("-Werror turns warnings into errors and -w silences them") {
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("w.kd"), "kernel k(x: inout f32[4] @global) grid(1) { let unused = 1; }\n");
    CHECK(kdt::test::run_kdt(tmp.file("w.kd")).status == 0);
    kdt::test::RunResult werror = kdt::test::run_kdt("-Werror " + tmp.file("w.kd"));
    CHECK(werror.status == 1);
    CHECK(werror.err.find("error: `unused` is never read") != std::string::npos);
    kdt::test::RunResult quiet = kdt::test::run_kdt("-w " + tmp.file("w.kd"));
    CHECK(quiet.status == 0);
    CHECK(quiet.err.empty());
  }

  // Issue 12, item 10: the fix-it of an undischargeable asm must not make
  // the program run with a made-up value. Applied as offered, it gives a
  // program that checks clean and stops with `assert-failed` where the
  // fallback runs; the note names --emit=cuda.
  TEST_CASE("the fallback fix-it of unsupported-discharge fails loudly where it runs") {
    struct Case {
      const char* what;
      std::string kd;
    };
    const std::vector<Case> cases = {
        {"one float output",
         "kernel k(y: out f32[8] @global) grid(1) {\n"
         "    y[...] = asm ptx (a: f32 = f32(iota(i32[8], 0))) -> (o: f32) {\n"
         "        \"ex2.approx.f32 %o, %a;\"\n"
         "    };\n"
         "}\n"},
        {"two outputs",
         "kernel k(y: out u32[4] @global) grid(1) {\n"
         "    let (lo, hi) = asm ptx (a: u32 = 1) -> (l: u32, h: f32) {\n"
         "        \"mov.u32 %l, %%laneid;\"\n"
         "        \"mov.f32 %h, 0f00000000;\"\n"
         "    };\n"
         "    y[...] = lo + u32(hi);\n"
         "}\n"},
        {"no outputs",
         "kernel k(y: out i32[4] @global) grid(1) {\n"
         "    asm ptx volatile () -> () { \"membar.gl;\" };\n"
         "    y[...] = zeros(i32[4]);\n"
         "}\n"},
    };
    for (const Case& c : cases) {
      INFO(c.what);
      kdt::test::TempDir tmp;
      kdt::test::write_text(tmp.file("k.kd"), c.kd);
      kdt::test::RunResult r =
          kdt::test::run_kdt("--emit=discharged-ir -o /dev/null --diagnostics-format=json " + tmp.file("k.kd"));
      REQUIRE(r.status == 1);
      json j = json::parse(r.err);
      REQUIRE(j.size() == 1);
      CHECK(j[0]["code"] == "unsupported-discharge");
      REQUIRE(j[0]["children"].size() == 1);
      CHECK(j[0]["children"][0]["message"].get<std::string>().find("or use --emit=cuda") != std::string::npos);
      REQUIRE(j[0]["fixits"].size() == 1);
      const json& fix = j[0]["fixits"][0];
      std::string insert = fix["string"];
      CHECK(insert.find("assert(false, ") != std::string::npos);
      CHECK(insert.find("= 0") == (std::string(c.what) == "no outputs" ? std::string::npos : insert.find("= 0")));
      // Apply it: an insertion at (line, byte-column) of the source.
      REQUIRE(fix["start"] == fix["next"]);
      size_t at = 0;
      for (int line = 1; line < fix["start"]["line"].get<int>(); ++line) at = c.kd.find('\n', at) + 1;
      at += fix["start"]["byte-column"].get<size_t>() - 1;
      std::string fixed = c.kd.substr(0, at) + insert + c.kd.substr(at);
      kdt::test::write_text(tmp.file("fixed.kd"), fixed);
      kdt::test::RunResult check = kdt::test::run_kdt("--emit=discharged-ir -o /dev/null " + tmp.file("fixed.kd"));
      CHECK_MESSAGE(check.status == 0, fixed << "\n" << check.err);
      kdt::test::RunResult run =
          kdt::test::run_kdt("run " + tmp.file("fixed.kd") + " --output-dir " + tmp.file("out"));
      CHECK_MESSAGE(run.status == 1, fixed << "\n" << run.out << run.err);
      CHECK_MESSAGE(run.err.find("assert-failed") != std::string::npos, run.err);
      CHECK(run.err.find("or use --emit=cuda") != std::string::npos);
    }
  }
}
