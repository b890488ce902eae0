// Hostile and degenerate input through the `kdt` binary: never a crash, a
// hang, an exit status above 3 or an "internal error".
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "test_support.h"

namespace {

using kdt::test::RunResult;

// Runs `kdt ARGS FILE` on `text` written to a temporary file.
RunResult run_on(const std::string& text, const std::string& args = "", const std::string& name = "input.kd") {
  kdt::test::TempDir tmp;
  std::string path = tmp.file(name);
  kdt::test::write_text(path, text);
  return kdt::test::run_kdt(args + " " + kdt::test::shell_quote(path));
}

// What every run must satisfy, whatever the input.
void check_sane(const RunResult& r) {
  CHECK(r.status >= 0);
  CHECK(r.status <= 3);
  CHECK(r.status != 3);
  CHECK(r.err.find("internal error") == std::string::npos);
  CHECK(r.out.find("internal error") == std::string::npos);
}

bool has_code(const RunResult& r, const std::string& code) {
  return r.err.find("[" + code + "]") != std::string::npos;
}

// The JSON diagnostics of a run, parsed; fails the test when not valid JSON.
nlohmann::json json_diagnostics(const RunResult& r) {
  nlohmann::json j;
  REQUIRE_NOTHROW(j = nlohmann::json::parse(r.err));
  REQUIRE(j.is_array());
  return j;
}

const std::string kHeader = "kernel k(x: inout f32[4] @global, c: bool) grid(1) {\n";

}  // namespace

TEST_SUITE("robustness") {
  TEST_CASE("an empty file checks clean and prints nothing") {
    RunResult r = run_on("");
    check_sane(r);
    CHECK(r.status == 0);
    CHECK(r.out.empty());
    CHECK(r.err.empty());
    RunResult blank = run_on("\n\n   \t\n// only a comment\n");
    CHECK(blank.status == 0);
    CHECK(blank.err.empty());
    RunResult json = run_on("", "--diagnostics-format=json");
    CHECK(json.status == 0);
    CHECK(json_diagnostics(json).empty());
  }

  TEST_CASE("a NUL byte is a syntax error") {
    RunResult r = run_on(kHeader + "    x[...] = x" + std::string(1, '\0') + " * 2.0;\n}\n");
    check_sane(r);
    CHECK(r.status == 1);
    CHECK(has_code(r, "syntax"));
    CHECK(r.err.find("0x00") != std::string::npos);
    RunResult only = run_on(std::string(1000, '\0'));
    check_sane(only);
    CHECK(only.status == 1);
  }

  TEST_CASE("invalid UTF-8 is a syntax error, and JSON output stays valid") {
    std::string text = kHeader + "    let caf\xe9 = 1;\n    x[...] = x * 2.0;\n}\n";
    RunResult r = run_on(text);
    check_sane(r);
    CHECK(r.status == 1);
    CHECK(r.err.find("invalid UTF-8 byte 0xE9") != std::string::npos);
    RunResult json = run_on(text, "--diagnostics-format=json");
    CHECK(json.status == 1);
    CHECK(json_diagnostics(json).size() == 1);
    // Inside a string, which reaches the emitted code.
    RunResult s = run_on(kHeader + "    asm ptx volatile () -> () { \"membar.gl; // \xff\xfe\" } fallback {};\n}\n",
                         "--diagnostics-format=sarif");
    CHECK(s.status == 1);
    CHECK(nlohmann::json::accept(s.err));
    // Overlong encodings and surrogates are invalid too.
    RunResult overlong = run_on(kHeader + "    let a\xc0\xaf = 1;\n}\n");
    CHECK(overlong.status == 1);
    RunResult surrogate = run_on(kHeader + "    let a\xed\xa0\x80 = 1;\n}\n");
    CHECK(surrogate.status == 1);
  }

  TEST_CASE("random bytes") {
    std::mt19937 rng(42);
    for (int round = 0; round < 4; ++round) {
      std::string text(20000, '\0');
      for (char& ch : text) ch = static_cast<char>(rng() & 0xFF);
      RunResult r = run_on(text);
      check_sane(r);
      CHECK(r.status == 1);
      RunResult json = run_on(text, "--diagnostics-format=json");
      check_sane(json);
      CHECK(json.status == 1);
      CHECK(!json_diagnostics(json).empty());
    }
  }

  TEST_CASE("random token soup") {
    const char* const pieces[] = {"kernel", "k", "(", ")", "{", "}", "[", "]", "x", ":", "in", "f32", "@global", "grid",
                                  "1", "2.0", "+", "*", "=", ";", ",", "let", "asm", "ptx", "->", "\"s\"", "for",
                                  "..", "if", "else", "?", "...", "ds", "sem", "dma", "<", "&&", "-", "!", "include"};
    std::mt19937 rng(7);
    for (int round = 0; round < 20; ++round) {
      std::string text;
      for (int i = 0; i < 400; ++i) text += std::string(pieces[rng() % std::size(pieces)]) + " ";
      RunResult r = run_on(text, "--diagnostics-format=json");
      check_sane(r);
      CHECK(r.status <= 1);
      (void)json_diagnostics(r);
    }
  }

  TEST_CASE("10,000 nested parentheses: nesting-too-deep, no crash") {
    const int n = 10000;
    RunResult r = run_on(kHeader + "    x[...] = " + std::string(n, '(') + "x" + std::string(n, ')') + ";\n}\n");
    check_sane(r);
    CHECK(r.status == 1);
    CHECK(has_code(r, "nesting-too-deep"));
    // Raising the limit far enough is allowed and still does not crash.
    RunResult raised = run_on(kHeader + "    x[...] = " + std::string(n, '(') + "x" + std::string(n, ')') + ";\n}\n",
                              "--max-nesting=100000");
    check_sane(raised);
    CHECK(raised.status == 0);
  }

  TEST_CASE("10,000 nested blocks: nesting-too-deep, no crash") {
    const int n = 10000;
    RunResult r = run_on(kHeader + std::string(n, '{') + "x[...] = x * 2.0;" + std::string(n, '}') + "\n}\n");
    check_sane(r);
    CHECK(r.status == 1);
    CHECK(has_code(r, "nesting-too-deep"));
  }

  TEST_CASE("10,000 prefix operators and 10,000 chained ternaries") {
    RunResult neg = run_on(kHeader + "    x[...] = " + std::string(10000, '-') + "x;\n}\n");
    check_sane(neg);
    CHECK(neg.status == 1);
    CHECK(has_code(neg, "nesting-too-deep"));
    std::string ternary;
    for (int i = 0; i < 10000; ++i) ternary += "c ? x : ";
    RunResult tern = run_on(kHeader + "    x[...] = " + ternary + "x;\n}\n");
    check_sane(tern);
    CHECK(tern.status == 1);
    CHECK(has_code(tern, "nesting-too-deep"));
    RunResult brackets = run_on(kHeader + "    x[...] = x" + std::string(10000, '[') + ";\n}\n");
    check_sane(brackets);
    CHECK(brackets.status == 1);
  }

  TEST_CASE("a 100,000-term chain `x + x + ...` checks without crashing") {
    std::string chain = "x";
    for (int i = 1; i < 100000; ++i) chain += " + x";
    RunResult r = run_on(kHeader + "    x[...] = " + chain + ";\n}\n");
    check_sane(r);
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    // The AST dump of the deep tree is linear too (about 3 s, not hours).
    RunResult ast = run_on(kHeader + "    x[...] = " + chain + ";\n}\n", "--emit=ast -o /dev/null");
    check_sane(ast);
    CHECK(ast.status == 0);
  }

  TEST_CASE("100,000 errors on one long line: bounded output, no crash") {
    std::string chain = "q";
    for (int i = 1; i < 100000; ++i) chain += " + q";
    RunResult r = run_on(kHeader + "    x[...] = " + chain + ";\n}\n");
    check_sane(r);
    CHECK(r.status == 1);
    CHECK(has_code(r, "undefined-name"));
    CHECK(r.err.size() < 4'000'000);  // the long line is shown as a window, the list is capped
    CHECK(r.err.find("more are not shown") != std::string::npos);
    RunResult json = run_on(kHeader + "    x[...] = " + chain + ";\n}\n", "--diagnostics-format=json");
    check_sane(json);
    CHECK(json.status == 1);
    CHECK(json_diagnostics(json).size() <= 1000);
    // A chain of comparisons is one error, not one per link.
    std::string compare = "c";
    for (int i = 1; i < 100000; ++i) compare += " == c";
    RunResult cmp = run_on(kHeader + "    let _b = " + compare + ";\n}\n", "--diagnostics-format=json");
    check_sane(cmp);
    CHECK(cmp.status == 1);
    CHECK(json_diagnostics(cmp).size() == 1);
  }

  TEST_CASE("a 1,000,000-digit literal is literal-out-of-range") {
    RunResult r = run_on("const A = " + std::string(1000000, '9') + ";\n");
    check_sane(r);
    CHECK(r.status == 1);
    CHECK(has_code(r, "literal-out-of-range"));
    CHECK(r.err.size() < 10000);
    RunResult hex = run_on(kHeader + "    x[...] = x * f32(0x" + std::string(1000000, 'F') + ");\n}\n");
    check_sane(hex);
    CHECK(hex.status == 1);
    CHECK(has_code(hex, "literal-out-of-range"));
    RunResult fl = run_on(kHeader + "    x[...] = x * " + std::string(100000, '9') + ".5e99999;\n}\n");
    check_sane(fl);
  }

  TEST_CASE("unterminated string and comment") {
    RunResult s = run_on(kHeader + "    assert(c, \"never closed);\n}\n");
    check_sane(s);
    CHECK(s.status == 1);
    CHECK(has_code(s, "syntax"));
    CHECK(s.err.find("unterminated string") != std::string::npos);
    RunResult eof = run_on("include \"abc");
    check_sane(eof);
    CHECK(eof.status == 1);
    RunResult c = run_on(kHeader + "    x[...] = x; /* never closed\n}\n");
    check_sane(c);
    CHECK(c.status == 1);
    CHECK(c.err.find("unterminated block comment") != std::string::npos);
    RunResult star = run_on("/*/");
    check_sane(star);
    CHECK(star.status == 1);
  }

  TEST_CASE("a missing input file, a directory and an unreadable file exit 2") {
    RunResult missing = kdt::test::run_kdt("/nonexistent/dir/file.kd");
    check_sane(missing);
    CHECK(missing.status == 2);
    CHECK(missing.err.find("/nonexistent/dir/file.kd") != std::string::npos);
    kdt::test::TempDir tmp;
    RunResult dir = kdt::test::run_kdt(kdt::test::shell_quote(tmp.path.string()));
    check_sane(dir);
    CHECK(dir.status == 2);
    RunResult json = kdt::test::run_kdt("--diagnostics-format=json /nonexistent/file.kd");
    CHECK(json.status == 2);
    CHECK(nlohmann::json::accept(json.err));
    RunResult no_input = kdt::test::run_kdt("");
    check_sane(no_input);
    CHECK(no_input.status == 2);
  }

  TEST_CASE("standard input as `-`") {
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("ok.kd"), "kernel k(x: inout f32[4] @global) grid(1) { x[...] = x * 2.0; }\n");
    RunResult ok = kdt::test::run_kdt("-", tmp.file("ok.kd"));
    check_sane(ok);
    CHECK(ok.status == 0);
    CHECK(ok.err.empty());
    kdt::test::write_text(tmp.file("bad.kd"), "kernel k(x: inout f32[4] @global) grid(1) { x[...] = y; }\n");
    RunResult bad = kdt::test::run_kdt("-", tmp.file("bad.kd"));
    CHECK(bad.status == 1);
    CHECK(bad.err.find("<stdin>:1:54: error: use of undeclared name `y`") != std::string::npos);
    RunResult ast = kdt::test::run_kdt("--emit=ast -", tmp.file("ok.kd"));
    CHECK(ast.status == 0);
    nlohmann::json j;
    REQUIRE_NOTHROW(j = nlohmann::json::parse(ast.out));
    CHECK(j["files"][0]["path"] == "<stdin>");
    RunResult empty = kdt::test::run_kdt("-");  // /dev/null: an empty program
    CHECK(empty.status == 0);
  }

  TEST_CASE("includes: self, missing, a directory, deep chains") {
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("self.kd"), "include \"self.kd\";\n");
    RunResult self = kdt::test::run_kdt(tmp.file("self.kd"));
    check_sane(self);
    CHECK(self.status == 1);
    CHECK(has_code(self, "include-cycle"));
    std::filesystem::create_directory(tmp.path / "sub.kd");
    kdt::test::write_text(tmp.file("dir.kd"), "include \"sub.kd\";\n");
    RunResult dir = kdt::test::run_kdt(tmp.file("dir.kd"));
    check_sane(dir);
    CHECK(dir.status == 1);
    CHECK(has_code(dir, "include-not-found"));
    // A chain of 200 files, each including the next.
    for (int i = 0; i < 200; ++i) {
      kdt::test::write_text(tmp.file("c" + std::to_string(i) + ".kd"),
                            i + 1 < 200 ? "include \"c" + std::to_string(i + 1) + ".kd\";\nconst C" + std::to_string(i) + " = 1;\n"
                                        : "const LAST = 1;\n");
    }
    RunResult chain = kdt::test::run_kdt(tmp.file("c0.kd"));
    check_sane(chain);
    CHECK(chain.status == 0);
  }

  TEST_CASE("many statements, kernels and diagnostics") {
    std::string text;
    for (int k = 0; k < 200; ++k) {
      text += "kernel k" + std::to_string(k) + "(x: inout f32[4] @global) grid(1) {\n";
      for (int i = 0; i < 50; ++i) text += "    let v" + std::to_string(i) + " = x * 2.0;\n";
      text += "}\n";
    }
    RunResult r = run_on(text);
    check_sane(r);
    CHECK(r.status == 0);  // warnings only
    CHECK(has_code(r, "unused-binding"));
    RunResult werror = run_on(text, "-Werror --diagnostics-format=sarif");
    check_sane(werror);
    CHECK(werror.status == 1);
    CHECK(nlohmann::json::accept(werror.err));
  }

  TEST_CASE("huge shapes and counts do not allocate or overflow") {
    RunResult r = run_on("kernel k(x: inout f32[1 << 40, 1 << 40] @global) grid(1) { x[0, 0] = 1.0; }\n");
    check_sane(r);
    CHECK(r.status == 1);
    RunResult big = run_on("kernel k(x: inout f32[4] @global) grid(1 << 62) { x[0] = 1.0; }\n");
    check_sane(big);
    RunResult sems = run_on("kernel k(x: inout f32[4] @global) grid(1) { sem s[1 << 60]: dma; x[0] = 1.0; }\n");
    check_sane(sems);
    RunResult shift = run_on("const A = 1 << 64;\nconst B = 1 >> -1;\nconst C = -9223372036854775807 - 1;\nconst D = C / -1;\n");
    check_sane(shift);
    CHECK(shift.status == 1);
  }
}
