// File tests for diagnostics: every `tests/diag/fail_*.kd` states what kdt must
// report, in comment lines (after its code, or before it where the code
// would swallow them: an unterminated `/*`)
//     // EXPECT: SEVERITY CODE LINE:COL-LINE:COL [in FILE]: MESSAGE
//     // EXPECT-NOTE[ LINE:COL [in FILE]]: MESSAGE    (the notes of the diagnostic
//                                                  above, in order; where a note has
//                                                  a location, its start)
//     // ARGS: extra command-line options (optional)
// (1-based; the end column is exclusive and N:C-N:C is a zero-width range;
// `in FILE` names a helper file next to the test when the diagnostic lies in
// a file it includes). kdt runs in the source directory on
// `tests/diag/fail_*.kd`, so paths in messages are relative to it. Each
// expectation is checked in the JSON (notes included), text and SARIF
// renderings. KDT_UPDATE_GOLDENS=1 rewrites the EXPECT lines from what kdt
// reports (tests/README.md). A test fails when a code of the registry has no
// such file.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
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
  std::string message;
  std::vector<std::string> notes;
};

struct DiagFile {
  std::string path;  // relative to the source directory
  std::vector<Expectation> expected;
  std::string args;
};

const std::regex& expect_re() {
  static const std::regex re(
      R"(^\s*//\s*EXPECT:\s*(error|warning|note)\s+([a-z-]+)\s+(\d+):(\d+)-(\d+):(\d+)(?:\s+in\s+([^\s:]+))?(?::\s?(.*))?$)");
  return re;
}
const std::regex& note_re() {
  static const std::regex re(R"(^\s*//\s*EXPECT-NOTE(?:\s+(\d+:\d+(?:\s+in\s+[^\s:]+)?))?:\s?(.*)$)");
  return re;
}

DiagFile read_diag_file(const std::string& path) {
  DiagFile f;
  f.path = path;
  static const std::regex args_re(R"(//\s*ARGS:\s*(.*))");
  std::istringstream in(kdt::test::read_text(kdt::test::source_dir() + "/" + path));
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, expect_re())) {
      std::string file = m[7].matched ? m[7].str() : fs::path(path).filename().string();
      f.expected.push_back({m[1], m[2], std::stoi(m[3]), std::stoi(m[4]), std::stoi(m[5]), std::stoi(m[6]), file,
                            m[8].matched ? m[8].str() : "", {}});
    } else if (std::regex_search(line, m, note_re())) {
      REQUIRE_MESSAGE(!f.expected.empty(), "EXPECT-NOTE before any EXPECT in " << path);
      f.expected.back().notes.push_back(m[1].matched ? m[1].str() + ": " + m[2].str() : m[2].str());
    } else if (std::regex_search(line, m, args_re)) {
      f.args = m[1];
    }
  }
  return f;
}

std::vector<DiagFile> diag_files() {
  std::vector<DiagFile> files;
  for (const auto& entry : fs::directory_iterator(kdt::test::source_dir() + "/tests/diag")) {
    if (entry.path().extension() != ".kd" || entry.path().filename().string().rfind("fail_", 0) != 0) continue;
    files.push_back(read_diag_file("tests/diag/" + entry.path().filename().string()));
  }
  std::sort(files.begin(), files.end(), [](const DiagFile& a, const DiagFile& b) { return a.path < b.path; });
  return files;
}

std::string range_text(const Expectation& e) {
  return std::to_string(e.line) + ":" + std::to_string(e.col) + "-" + std::to_string(e.end_line) + ":" +
         std::to_string(e.end_col);
}

// One expectation as a line of text; with notes, each on a line of its own.
std::string describe(const Expectation& e, bool with_notes) {
  std::string s = e.severity + " " + e.code + " " + range_text(e) + " in " + e.file + ": " + e.message;
  if (with_notes) {
    for (const std::string& n : e.notes) s += "\n  note: " + n;
  }
  return s;
}

std::vector<std::string> describe_all(const std::vector<Expectation>& list, bool with_notes) {
  std::vector<std::string> out;
  for (const Expectation& e : list) out.push_back(describe(e, with_notes));
  std::sort(out.begin(), out.end());
  return out;
}

std::string base_name(const std::string& path) { return fs::path(path).filename().string(); }

// The actual diagnostics of one run, as expectations, from each format.
// JSON (GCC's format) has an inclusive `finish`; the end column here is
// exclusive, so a zero-width range reads as one column wide.
std::vector<Expectation> from_json(const std::string& text) {
  std::vector<Expectation> out;
  for (const json& d : json::parse(text)) {
    if (d["locations"].empty()) continue;
    const json& loc = d["locations"][0];
    Expectation e{d["kind"], d["code"], loc["start"]["line"], loc["start"]["column"], loc["finish"]["line"],
                  loc["finish"]["column"].get<int>() + 1, base_name(loc["start"]["file"]), d["message"], {}};
    for (const json& c : d.value("children", json::array())) {
      // A located note: "LINE:COL[ in FILE]: MESSAGE", as EXPECT-NOTE writes it.
      std::string where;
      if (!c["locations"].empty()) {
        const json& at = c["locations"][0]["caret"];
        where = std::to_string(at["line"].get<int>()) + ":" + std::to_string(at["column"].get<int>());
        if (base_name(at["file"]) != e.file) where += " in " + base_name(at["file"]);
        where += ": ";
      }
      e.notes.push_back(where + c["message"].get<std::string>());
    }
    out.push_back(e);
  }
  return out;
}

std::vector<Expectation> from_sarif(const std::string& text) {
  std::vector<Expectation> out;
  json sarif = json::parse(text);
  REQUIRE(sarif["version"] == "2.1.0");
  REQUIRE(sarif["runs"][0]["tool"]["driver"]["name"] == "kdt");
  for (const json& r : sarif["runs"][0]["results"]) {
    if (r["locations"].empty()) continue;
    const json& physical = r["locations"][0]["physicalLocation"];
    const json& region = physical["region"];
    out.push_back({r["level"], r["ruleId"], region["startLine"], region["startColumn"], region["endLine"],
                   region["endColumn"], base_name(physical["artifactLocation"]["uri"]), r["message"]["text"], {}});
  }
  return out;
}

// Runs `kdt ARGS` in the source directory.
kdt::test::RunResult run_in_source(const std::string& args) {
  return kdt::test::run_captured("cd " + kdt::test::shell_quote(kdt::test::source_dir()) + " && " +
                                 kdt::test::shell_quote(kdt::test::kdt_binary()) + " " + args);
}

bool updating() {
  const char* update = std::getenv("KDT_UPDATE_GOLDENS");
  return update && std::string(update) == "1";
}

// KDT_UPDATE_GOLDENS=1: replaces the EXPECT and EXPECT-NOTE lines of `f` by
// what kdt reported: ranges from SARIF (exclusive ends, zero widths kept),
// messages and notes from JSON; both list the diagnostics in one order.
void rewrite_expectations(const DiagFile& f, const std::vector<Expectation>& json_diags,
                          const std::vector<Expectation>& sarif_diags) {
  REQUIRE(json_diags.size() == sarif_diags.size());
  std::string block;
  for (size_t i = 0; i < json_diags.size(); ++i) {
    Expectation e = sarif_diags[i];
    REQUIRE(e.code == json_diags[i].code);
    e.message = json_diags[i].message;
    e.notes = json_diags[i].notes;
    for (const std::string& text : e.notes) REQUIRE_MESSAGE(text.find('\n') == std::string::npos, text);
    REQUIRE_MESSAGE(e.message.find('\n') == std::string::npos, e.message);
    std::string line = "// EXPECT: " + e.severity + " " + e.code + " " + range_text(e);
    if (e.file != base_name(f.path)) line += " in " + e.file;
    block += line + ": " + e.message + "\n";
    for (const std::string& n : e.notes) {
      static const std::regex located(R"(^\d+:\d+(?:\s+in\s+[^\s:]+)?: )");
      block += std::string("// EXPECT-NOTE") + (std::regex_search(n, located) ? " " : ": ") + n + "\n";
    }
  }
  const std::string path = kdt::test::source_dir() + "/" + f.path;
  const std::string text = kdt::test::read_text(path);
  std::string kept;
  size_t insert_at = std::string::npos;
  for (size_t at = 0; at < text.size();) {
    size_t eol = text.find('\n', at);
    const size_t next = eol == std::string::npos ? text.size() : eol + 1;
    const std::string line = text.substr(at, next - at);
    const std::string bare = line.substr(0, line.find_last_not_of("\r\n") + 1);
    if (std::regex_search(bare, expect_re()) || std::regex_search(bare, note_re()) ||
        bare.find("// EXPECT:") != std::string::npos) {
      if (insert_at == std::string::npos) insert_at = kept.size();
    } else {
      kept += line;
    }
    at = next;
  }
  if (insert_at == std::string::npos) {
    if (!kept.empty() && kept.back() != '\n') kept += "\n";
    insert_at = kept.size();
  }
  kdt::test::write_text(path, kept.substr(0, insert_at) + block + kept.substr(insert_at));
}

}  // namespace

TEST_SUITE("diagnostics") {
  TEST_CASE("every diagnostic file reports exactly what it expects, in JSON, text and SARIF") {
    std::vector<DiagFile> files = diag_files();
    REQUIRE(!files.empty());
    for (DiagFile f : files) {
      CAPTURE(f.path);
      const std::string quoted = kdt::test::shell_quote(f.path);
      kdt::test::RunResult json_run = run_in_source(f.args + " --diagnostics-format=json " + quoted);
      kdt::test::RunResult sarif_run = run_in_source(f.args + " --diagnostics-format=sarif " + quoted);
      const std::vector<Expectation> json_diags = from_json(json_run.err);
      const std::vector<Expectation> sarif_diags = from_sarif(sarif_run.err);
      if (updating()) {
        rewrite_expectations(f, json_diags, sarif_diags);
        f = read_diag_file(f.path);
      }
      REQUIRE_MESSAGE(!f.expected.empty(), "no EXPECT line in " << f.path);
      std::vector<Expectation> expected = f.expected;
      for (Expectation& e : expected) {
        // Zero-width ranges (a missing token) are written N:C-N:C.
        if (e.line == e.end_line && e.col == e.end_col) e.end_col = e.col + 1;
      }
      CHECK_MESSAGE(describe_all(json_diags, true) == describe_all(expected, true),
                    "if intended, regenerate with KDT_UPDATE_GOLDENS=1 and review `git diff tests/diag`");
      bool any_error = std::any_of(f.expected.begin(), f.expected.end(),
                                   [](const Expectation& e) { return e.severity == "error"; });
      CHECK(json_run.status == (any_error ? 1 : 0));

      // SARIF: the same, its regions with an exclusive end column; notes
      // (related locations) are not compared.
      CHECK(describe_all(sarif_diags, false) == describe_all(f.expected, false));

      // Text: `file:line:col: severity: message [code]` for each.
      kdt::test::RunResult text_run = run_in_source(f.args + " --color=never " + quoted);
      for (const Expectation& e : f.expected) {
        const std::string path = (fs::path(f.path).parent_path() / e.file).string();
        const std::string header =
            path + ":" + std::to_string(e.line) + ":" + std::to_string(e.col) + ": " + e.severity + ": ";
        const std::string whole = header + e.message + " [" + e.code + "]\n";
        CHECK_MESSAGE(text_run.err.find(whole) != std::string::npos, "text output lacks " << whole << text_run.err);
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

  TEST_CASE("-Wno-CODE, -Werror=CODE, -Wno-error=CODE, -Wall, and the JSON's option as GCC names it") {
    kdt::test::TempDir tmp;
    const std::string w = tmp.file("w.kd");
    kdt::test::write_text(w, "kernel k(x: inout f32[4] @global) grid(1) { let unused = 1; }\n");
    struct Case {
      std::string flags;
      int status;
      std::string kind, option;  // of the one diagnostic; "" for none
    };
    const Case cases[] = {
        {"", 0, "warning", "-Wunused-binding"},
        {"-Wno-unused-binding", 0, "", ""},
        {"-Wno-unused-binding -Wunused-binding", 0, "warning", "-Wunused-binding"},
        {"-Werror=unused-binding", 1, "error", "-Werror=unused-binding"},
        {"-Wno-unused-binding -Werror=unused-binding", 1, "error", "-Werror=unused-binding"},
        {"-Werror -Wno-error=unused-binding", 0, "warning", "-Wunused-binding"},
        {"-Werror -Wno-error=asm-cross-lane", 1, "error", "-Werror=unused-binding"},
        {"-Wall", 0, "warning", "-Wunused-binding"},
        {"-Wno-unused-binding -Wall", 0, "warning", "-Wunused-binding"},
        {"-Werror=unused-binding -w", 0, "", ""},
    };
    for (const Case& c : cases) {
      CAPTURE(c.flags);
      kdt::test::RunResult r = kdt::test::run_kdt("--diagnostics-format=json " + c.flags + " " + w);
      CHECK(r.status == c.status);
      json j = json::parse(r.err);
      REQUIRE(j.size() == (c.kind.empty() ? 0u : 1u));
      if (c.kind.empty()) continue;
      CHECK(j[0]["kind"] == c.kind);
      CHECK(j[0]["option"] == c.option);
      CHECK(j[0]["column-origin"] == 1);
    }
    // Errors have no option; a flag that names no warning is a usage error listing them.
    kdt::test::write_text(tmp.file("e.kd"), "kernel k(x: in f32[4] @global) grid(1) { x[...] = 1.0; }\n");
    json e = json::parse(kdt::test::run_kdt("--diagnostics-format=json " + tmp.file("e.kd")).err);
    REQUIRE(e.size() == 1);
    CHECK(!e[0].contains("option"));
    for (const char* flag : {"-Wno-race", "-Werror=nope"}) {
      kdt::test::RunResult bad = kdt::test::run_kdt(std::string(flag) + " " + w);
      CHECK(bad.status == 2);
      CHECK_MESSAGE(bad.err.find("kdt's warnings are asm-cross-lane, unused-binding") != std::string::npos, bad.err);
    }
    CHECK(kdt::test::run_kdt("-Wno-race " + w).err.find("`race` is an error, not a warning") != std::string::npos);
  }

  // GCC counts `column` in display columns: a tab goes to the next multiple
  // of 8 plus 1, an East Asian wide character takes two.
  TEST_CASE("JSON columns as GCC counts them: display-column, byte-column, tabs and wide characters") {
    kdt::test::TempDir tmp;
    const std::string path = tmp.file("cols.kd");
    // Line 2: a tab, then `let ` and a name after a comment holding two wide characters.
    kdt::test::write_text(path, "kernel k(x: inout f32[4] @global) grid(1) {\n\t/*\xe6\x97\xa5\xe6\x9c\xac*/ let unused = 1;\n}\n");
    json j = json::parse(kdt::test::run_kdt("--diagnostics-format=json " + path).err);
    REQUIRE(j.size() == 1);
    const json& caret = j[0]["locations"][0]["caret"];
    // Bytes: tab 1, "/*" 2-3, two 3-byte characters 4-9, "*/" 10-11, space 12, "let " 13-16: `unused` at 17.
    CHECK(caret["byte-column"] == 17);
    // Display: tab to 9, "/*" 9-10, the wide characters 11-14, "*/" 15-16, space 17, "let " 18-21: 22.
    CHECK(caret["display-column"] == 22);
    CHECK(caret["column"] == 22);
    // The finish is the last character's first byte.
    CHECK(j[0]["locations"][0]["finish"]["byte-column"] == 22);
    // GCC itself, where it is installed, counts the same place the same way.
    if (!kdt::test::find_tool("gcc").empty()) {
      const std::string c = tmp.file("cols.c");
      kdt::test::write_text(c, "int f(void) {\n\t/*\xe6\x97\xa5\xe6\x9c\xac*/ return unused;\n}\n");
      kdt::test::RunResult gcc = kdt::test::run_captured("gcc -fdiagnostics-format=json -c " +
                                                         kdt::test::shell_quote(c) + " -o /dev/null");
      json g = json::parse(gcc.err);
      REQUIRE(!g.empty());
      const json& at = g[0]["locations"][0]["caret"];
      // `unused` sits 3 columns further right in the C line ("return " against "let ").
      CHECK(at["display-column"] == 25);
      CHECK(at["column"] == 25);
      CHECK(at["byte-column"] == 20);
    }
  }

  TEST_CASE("SARIF: percent-encoded URIs against SRCROOT, columnKind, and every rule's help from --explain") {
    kdt::test::TempDir tmp;
    std::filesystem::create_directories(tmp.path / "sp ace");
    kdt::test::write_text((tmp.path / "sp ace" / "a#b.kd").string(),
                          "kernel k(x: inout f32[4] @global) grid(1) { let unused = 1; }\n");
    kdt::test::RunResult r = kdt::test::run_captured("cd " + kdt::test::shell_quote(tmp.path.string()) + " && " +
                                                     kdt::test::shell_quote(kdt::test::kdt_binary()) +
                                                     " --diagnostics-format=sarif 'sp ace/a#b.kd'");
    json run = json::parse(r.err)["runs"][0];
    CHECK(run["columnKind"] == "unicodeCodePoints");
    std::string root = run["originalUriBaseIds"]["SRCROOT"]["uri"];
    CHECK(root.rfind("file:///", 0) == 0);
    CHECK(root.back() == '/');
    const json& artifact = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    CHECK(artifact["uri"] == "sp%20ace/a%23b.kd");
    CHECK(artifact["uriBaseId"] == "SRCROOT");
    // An absolute path is a file: URI of its own.
    json absolute = json::parse(kdt::test::run_kdt("--diagnostics-format=sarif " +
                                                   kdt::test::shell_quote((tmp.path / "sp ace" / "a#b.kd").string()))
                                    .err);
    std::string uri = absolute["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
    CHECK(uri.rfind("file:///", 0) == 0);
    CHECK(uri.find("/sp%20ace/a%23b.kd") != std::string::npos);
    // Each rule carries its explanation and example.
    for (const json& rule : run["tool"]["driver"]["rules"]) {
      const kdt::Explanation* e = kdt::find_explanation(rule["id"].get<std::string>());
      REQUIRE(e);
      CHECK(rule["fullDescription"]["text"] == e->text);
      CHECK(rule["help"]["text"].get<std::string>().find(e->example) != std::string::npos);
    }
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
