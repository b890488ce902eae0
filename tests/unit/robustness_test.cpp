// Hostile and degenerate input through the `kdt` binary: never a crash, a
// hang, an exit status above 3 or an "internal error".
#include <doctest/doctest.h>

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <random>

#include "kdt/discharge/discharge.h"
#include "kdt/driver/options.h"
#include "kdt/emit/emit_cpp.h"
#include "kdt/emit/emit_cuda.h"
#include "kdt/ir/lower.h"
#include "kdt/syntax/ast_json.h"
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

// kdt's stack (main.cpp runs everything on a thread with 512 MiB).
constexpr size_t kStackBytes = size_t{512} << 20;

// Runs `body` on a thread with a fresh stack of kdt's size; returns the most
// stack it used, in bytes: the extent of the stack's pages that became
// resident (mincore), counted from the top, since the stack grows down.
size_t stack_high_water(const std::function<void()>& body) {
  void* base = ::mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                      -1, 0);
  REQUIRE(base != MAP_FAILED);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstack(&attr, base, kStackBytes);
  pthread_t thread;
  auto trampoline = [](void* p) -> void* {
    (*static_cast<const std::function<void()>*>(p))();
    return nullptr;
  };
  REQUIRE(pthread_create(&thread, &attr, trampoline, const_cast<std::function<void()>*>(&body)) == 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident(kStackBytes / page);
  REQUIRE(::mincore(base, kStackBytes, resident.data()) == 0);
  size_t lowest = resident.size();
  for (size_t i = 0; i < resident.size(); ++i) {
    if (resident[i] & 1) {
      lowest = i;
      break;
    }
  }
  ::munmap(base, kStackBytes);
  return (resident.size() - lowest) * page;
}

// Every stage of `kdt --emit=...` on `text` in this process, as
// run_transpile() chains them: check, ast, ir, discharged-ir, cpp and cuda.
void all_stages(const std::string& text, const kdt::Options& options) {
  std::unique_ptr<kdt::Compilation> c = kdt::compile_front_end("deep.kd", options, text);
  REQUIRE(c->ok);
  CHECK(!kdt::ast_to_json(c->program.module, c->sources).empty());
  kdt::ir::Module module = kdt::lower_program(c->program, "");
  CHECK(!kdt::ir::print_module(module, c->sources).empty());
  REQUIRE(kdt::discharge_module(module, c->diags));
  CHECK(!kdt::ir::print_module(module, c->sources).empty());
  CHECK(!kdt::emit_cpp(module, c->sources, kdt::CppEmitOptions{}).empty());
  // The compiled path may refuse a kernel whose temporaries exceed shared
  // memory, with a diagnostic.
  kdt::ir::Module undischarged = kdt::lower_program(c->program, "");
  std::string cuda;
  if (!kdt::emit_cuda(undischarged, c->sources, kdt::CudaEmitOptions{}, c->diags, cuda)) CHECK(c->diags.has_errors());
}

// The most each limit lets through: `n` levels of each construct that
// makes kdt recurse.
std::vector<std::pair<std::string, std::string>> deep_inputs(int64_t nesting, int64_t terms) {
  // The kernel body's `{` is level 1, so `n` more levels reach the limit; a
  // block and an `x[` inside the innermost block or else-if take 1 and 2.
  const size_t n = static_cast<size_t>(nesting - 1);
  std::string ternary, else_if, chain = "x", slices = "t";
  for (size_t i = 0; i < n; ++i) ternary += "c ? x : ";
  for (size_t i = 0; i + 2 < n; ++i) else_if += " else if c { x[0] = 1.0; }";
  // The `[` of `x[...]` counts as a term too.
  for (int64_t i = 0; i < terms - 1; ++i) chain += " + x";
  for (int64_t i = 0; i < terms - 1; ++i) slices += "[0:4]";
  return {
      {"parentheses", kHeader + "    x[...] = " + std::string(n, '(') + "x" + std::string(n, ')') + ";\n}\n"},
      {"prefix operators", kHeader + "    x[...] = " + std::string(n, '-') + "x;\n}\n"},
      {"?: chain", kHeader + "    x[...] = " + ternary + "x;\n}\n"},
      {"blocks", kHeader + std::string(n - 1, '{') + "x[...] = x * 2.0;" + std::string(n - 1, '}') + "\n}\n"},
      {"else-if chain", kHeader + "    if c { x[0] = 1.0; }" + else_if + "\n}\n"},
      {"operator chain", kHeader + "    x[...] = " + chain + ";\n}\n"},
      {"indexing chain", kHeader + "    let t = x[...];\n    x[...] = " + slices + ";\n}\n"},
  };
}

}  // namespace

TEST_SUITE("robustness") {
  TEST_CASE("the deepest input the limits accept runs every stage within the stack") {
    // At the largest --max-nesting and --max-expression-terms accepted, each
    // construct that makes kdt recurse, through every --emit stage, must use
    // at most half of kdt's stack. Sanitizers make frames several times
    // larger, so there the defaults are checked instead.
    kdt::Options options;
    for (const kdt::LimitFlag& flag : kdt::limit_flags()) {
      std::string name = flag.name;
      if (name == "max-nesting" || name == "max-expression-terms") options.limits.*flag.field = flag.max;
    }
#if defined(__SANITIZE_ADDRESS__)
    options.limits = kdt::Limits{};
#endif
    for (const auto& [what, text] : deep_inputs(options.limits.max_nesting, options.limits.max_expression_terms)) {
      CAPTURE(what);
      size_t used = stack_high_water([&, &text = text] { all_stages(text, options); });
      int64_t levels = what == "operator chain" || what == "indexing chain" ? options.limits.max_expression_terms
                                                                          : options.limits.max_nesting;
      MESSAGE(what << ": " << used / 1024 << " KiB of stack, " << used / static_cast<size_t>(levels) << " bytes per level");
      CHECK(used < kStackBytes / 2);
    }
    // One more level is refused.
    for (const auto& [what, text] : deep_inputs(options.limits.max_nesting + 1, options.limits.max_expression_terms + 1)) {
      CAPTURE(what);
      bool ok = true;
      stack_high_water([&, &text = text] { ok = kdt::compile_front_end("deep.kd", options, text)->ok; });
      CHECK(!ok);
    }
  }

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
    // Raising the limit is allowed up to 5000 and still does not crash;
    // beyond, the flag itself is refused.
    RunResult raised = run_on(kHeader + "    x[...] = " + std::string(4000, '(') + "x" + std::string(4000, ')') + ";\n}\n",
                              "--max-nesting=5000");
    check_sane(raised);
    CHECK(raised.status == 0);
    RunResult absurd = run_on(kHeader + "    x[...] = x;\n}\n", "--max-nesting=100000");
    CHECK(absurd.status == 2);
    CHECK(absurd.err.find("--max-nesting") != std::string::npos);
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

  TEST_CASE("operator chains: 9,000 terms check, 1,000,000 are limit-exceeded") {
    std::string chain = "x";
    for (int i = 1; i < 9000; ++i) chain += " + x";
    RunResult r = run_on(kHeader + "    x[...] = " + chain + ";\n}\n");
    check_sane(r);
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    RunResult ast = run_on(kHeader + "    x[...] = " + chain + ";\n}\n", "--emit=ast -o /dev/null");
    check_sane(ast);
    CHECK(ast.status == 0);
    // Refused before parsing: quickly, and without recursing.
    for (int i = 9000; i < 1000000; ++i) chain += " + x";
    RunResult huge = run_on(kHeader + "    x[...] = " + chain + ";\n}\n", "--emit=cpp --diagnostics-format=json");
    check_sane(huge);
    CHECK(huge.status == 1);
    nlohmann::json j = json_diagnostics(huge);
    REQUIRE(j.size() == 1);
    CHECK(j[0]["code"] == "limit-exceeded");
    CHECK(j[0]["message"].get<std::string>().find("--max-expression-terms=10000") != std::string::npos);
  }

  TEST_CASE("40,000 errors on one long line: bounded output, no crash") {
    const std::string raised = "--max-expression-terms=50000 ";
    std::string chain = "q";
    for (int i = 1; i < 40000; ++i) chain += " + q";
    RunResult r = run_on(kHeader + "    x[...] = " + chain + ";\n}\n", raised);
    check_sane(r);
    CHECK(r.status == 1);
    CHECK(has_code(r, "undefined-name"));
    CHECK(r.err.size() < 4'000'000);  // the long line is shown as a window, the list is capped
    CHECK(r.err.find("more are not shown") != std::string::npos);
    RunResult json = run_on(kHeader + "    x[...] = " + chain + ";\n}\n", raised + "--diagnostics-format=json");
    check_sane(json);
    CHECK(json.status == 1);
    CHECK(json_diagnostics(json).size() <= 1000);
    // A chain of comparisons is one error, not one per link.
    std::string compare = "c";
    for (int i = 1; i < 40000; ++i) compare += " == c";
    RunResult cmp = run_on(kHeader + "    let _b = " + compare + ";\n}\n", raised + "--diagnostics-format=json");
    check_sane(cmp);
    CHECK(cmp.status == 1);
    CHECK(json_diagnostics(cmp).size() == 1);
  }

  TEST_CASE("long literals: 60,000 digits are literal-out-of-range, 10,000,000 are limit-exceeded") {
    RunResult r = run_on("const A = " + std::string(60000, '9') + ";\n");
    check_sane(r);
    CHECK(r.status == 1);
    CHECK(has_code(r, "literal-out-of-range"));
    CHECK(r.err.size() < 10000);
    RunResult hex = run_on(kHeader + "    x[...] = x * f32(0x" + std::string(60000, 'F') + ");\n}\n");
    check_sane(hex);
    CHECK(hex.status == 1);
    CHECK(has_code(hex, "literal-out-of-range"));
    RunResult fl = run_on(kHeader + "    x[...] = x * " + std::string(60000, '9') + ".5e99999;\n}\n");
    check_sane(fl);
    // Beyond --max-literal-length (default 65536 bytes) nothing converts them.
    RunResult huge = run_on("const A = " + std::string(10000000, '9') + ";\n");
    check_sane(huge);
    CHECK(huge.status == 1);
    CHECK(has_code(huge, "limit-exceeded"));
    CHECK(huge.err.find("--max-literal-length=65536") != std::string::npos);
    CHECK(huge.err.size() < 10000);
    RunResult text = run_on(kHeader + "    assert(c, \"" + std::string(100000, 'a') + "\");\n}\n");
    check_sane(text);
    CHECK(text.status == 1);
    CHECK(has_code(text, "limit-exceeded"));
    RunResult raised = run_on("const A = " + std::string(100000, '9') + ";\n", "--max-literal-length=200000");
    CHECK(raised.status == 1);
    CHECK(has_code(raised, "literal-out-of-range"));
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
    // c150.kd would be included 150 files deep.
    RunResult limited = kdt::test::run_kdt("--max-include-depth=149 --diagnostics-format=json " + tmp.file("c0.kd"));
    check_sane(limited);
    CHECK(limited.status == 1);
    nlohmann::json j = json_diagnostics(limited);
    REQUIRE(j.size() == 1);
    CHECK(j[0]["code"] == "limit-exceeded");
    CHECK(j[0]["locations"][0]["start"]["file"].get<std::string>().find("c149.kd") != std::string::npos);
    CHECK(j[0]["children"].size() == 150);  // 149 links of the chain and the flag
    // c199.kd is 199 files deep.
    CHECK(kdt::test::run_kdt("--max-include-depth=199 " + tmp.file("c0.kd")).status == 0);
    CHECK(kdt::test::run_kdt("--max-include-depth=198 " + tmp.file("c0.kd")).status == 1);
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
    // One report at the first kernel too many, none for the rest.
    RunResult limited = run_on(text, "-w --max-kernels=150 --diagnostics-format=json");
    check_sane(limited);
    CHECK(limited.status == 1);
    nlohmann::json j = json_diagnostics(limited);
    REQUIRE(j.size() == 1);
    CHECK(j[0]["code"] == "limit-exceeded");
    CHECK(j[0]["message"].get<std::string>().find("`k150` is kernel 151") != std::string::npos);
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
