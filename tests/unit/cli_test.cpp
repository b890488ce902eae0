// The command line (cli.md, man/kdt.1): options, exit statuses, output files
// and depfiles, through the `kdt` binary as a user or a build system runs it.
#include <doctest/doctest.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "kdt/driver/lsp.h"
#include "kdt/driver/options.h"
#include "test_support.h"

namespace {

namespace fs = std::filesystem;
using kdt::test::RunResult;
using kdt::test::shell_quote;

const std::string kGood = "const N = 8;\nkernel k(x: inout f32[N] @global) grid(1) { x[...] = x * 2.0; }\n";
const std::string kBad = "kernel k(x: inout f32[8] @global) grid(1) { x[...] = y; }\n";

// Runs `cd DIR && kdt ARGS`.
RunResult run_from(const fs::path& dir, const std::string& args) {
  kdt::test::TempDir tmp;
  std::string cmd = "cd " + shell_quote(dir.string()) + " && " + shell_quote(kdt::test::kdt_binary()) + " " + args +
                    " >" + tmp.file("out") + " 2>" + tmp.file("err") + " </dev/null";
  int raw = std::system(cmd.c_str());
  RunResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = kdt::test::read_text(tmp.file("out"));
  r.err = kdt::test::read_text(tmp.file("err"));
  return r;
}

bool is_json(const std::string& text) { return nlohmann::json::accept(text); }

// The options the man page documents in OPTIONS and SUBCOMMANDS, in their
// spelling there (`-MD`, `--emit`, ...).
std::set<std::string> man_page_options() {
  std::string man = kdt::test::read_text(kdt::test::source_dir() + "/man/kdt.1");
  std::set<std::string> out;
  std::istringstream in(man);
  std::string line;
  bool in_section = false;
  std::regex option_re(R"(^\.B[IR]?\s+"?((?:\\-){1,2}[A-Za-z][A-Za-z0-9\\-]*))");
  while (std::getline(in, line)) {
    if (line.rfind(".SH", 0) == 0) {
      in_section = line.find("OPTIONS") != std::string::npos || line.find("SUBCOMMANDS") != std::string::npos;
      continue;
    }
    std::smatch m;
    if (!in_section || !std::regex_search(line, m, option_re)) continue;
    std::string option = std::regex_replace(m[1].str(), std::regex(R"(\\-)"), "-");
    out.insert(option);
  }
  return out;
}

}  // namespace

TEST_SUITE("cli") {
  TEST_CASE("--help lists every option of the man page") {
    RunResult r = kdt::test::run_kdt("--help");
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    std::set<std::string> options = man_page_options();
    CHECK(options.size() >= 20);
    for (const char* expected : {"--emit", "-o", "-D", "-I", "-MD", "-MF", "--explain", "--diagnostics-format"}) {
      CHECK_MESSAGE(options.count(expected), "the man page parser missed " << expected);
    }
    for (const std::string& option : options) {
      // Boost prints `-MD` as `--MD`, which contains the man page's spelling.
      CHECK_MESSAGE(r.out.find(option) != std::string::npos, "kdt --help does not mention " << option);
    }
    CHECK(kdt::test::run_kdt("-h").out == r.out);
  }

  TEST_CASE("--version") {
    RunResult r = kdt::test::run_kdt("--version");
    CHECK(r.status == 0);
    CHECK(std::regex_search(r.out, std::regex(R"(^kdt \d+\.\d+\.\d+\n$)")));
    CHECK(r.err.empty());
  }

  TEST_CASE("--explain prints the explanation and an example; an unknown code exits 2") {
    RunResult r = kdt::test::run_kdt("--explain undefined-name");
    CHECK(r.status == 0);
    const kdt::Explanation* e = kdt::find_explanation("undefined-name");
    REQUIRE(e);
    CHECK(r.out.rfind("undefined-name (error)", 0) == 0);
    CHECK(r.out.find(std::string(e->text).substr(0, 40)) != std::string::npos);
    CHECK(r.out.find("Example:") != std::string::npos);
    std::string first_example_line = std::string(e->example).substr(0, std::string(e->example).find('\n'));
    CHECK(r.out.find("    " + first_example_line) != std::string::npos);
    RunResult warning = kdt::test::run_kdt("--explain asm-cross-lane");
    CHECK(warning.status == 0);
    CHECK(warning.out.rfind("asm-cross-lane (warning)", 0) == 0);
    RunResult unknown = kdt::test::run_kdt("--explain no-such-code");
    CHECK(unknown.status == 2);
    CHECK(unknown.out.empty());
    CHECK(unknown.err.find("no-such-code") != std::string::npos);
  }

  TEST_CASE("command-line errors exit 2") {
    kdt::test::TempDir tmp;
    std::string good = tmp.file("good.kd");
    kdt::test::write_text(good, kGood);
    CHECK(kdt::test::run_kdt("--frobnicate " + good).status == 2);
    CHECK(kdt::test::run_kdt("--frobnicate " + good).err.find("frobnicate") != std::string::npos);
    CHECK(kdt::test::run_kdt("").status == 2);  // no input
    CHECK(kdt::test::run_kdt("--emit=nonsense " + good).status == 2);
    CHECK(kdt::test::run_kdt("--diagnostics-format=xml " + good).status == 2);
    CHECK(kdt::test::run_kdt("-D 2N " + good).status == 2);
    CHECK(kdt::test::run_kdt("-D N=abc " + good).status == 2);
    CHECK(kdt::test::run_kdt("-D NOPE=1 " + good).status == 2);  // no such const
    CHECK(kdt::test::run_kdt("--max-nesting=0 " + good).status == 2);
    CHECK(kdt::test::run_kdt("--max-nesting=100000 " + good).status == 2);  // above the maximum
    CHECK(kdt::test::run_kdt("--arch=gfx90a " + good).status == 2);
    CHECK(kdt::test::run_kdt("--threads=0 " + good).status == 2);
    CHECK(kdt::test::run_kdt(good + " " + good).status == 2);  // two inputs
    CHECK(kdt::test::run_kdt("--kernel").status == 2);          // missing value
    // Abbreviations are not guessed.
    CHECK(kdt::test::run_kdt("--emi=ast " + good).status == 2);
  }

  TEST_CASE("limit flags: valid and invalid values, in kdt, kdt run and kdt lsp") {
    kdt::test::TempDir tmp;
    std::string good = tmp.file("good.kd");
    kdt::test::write_text(good, kGood);
    std::string two = tmp.file("two.kd");
    kdt::test::write_text(two, "kernel a(x: inout f32[8] @global) grid(1) { x[...] = x * 2.0; }\n"
                               "kernel b(x: inout f32[8] @global) grid(1) { x[...] = x * 3.0; }\n");
    REQUIRE(kdt::limit_flags().size() == 12);
    for (const kdt::LimitFlag& flag : kdt::limit_flags()) {
      std::string name = std::string("--") + flag.name;
      CAPTURE(name);
      CHECK(kdt::test::run_kdt(name + "=1000 " + good).status == 0);
      CHECK(kdt::test::run_kdt(name + " 1000 " + good).status == 0);
      CHECK(kdt::test::run_kdt(name + "=" + std::to_string(flag.max) + " " + good).status == 0);
      // 19 digits overflow int64_t; 20 are refused by their length.
      for (const std::string& bad : std::vector<std::string>{"0", "-1", "abc", "12abc", "1.5", "", "9999999999999999999",
                                                             "99999999999999999999", std::to_string(flag.max + 1)}) {
        CAPTURE(bad);
        RunResult r = kdt::test::run_kdt(name + "=" + shell_quote(bad) + " " + good);
        CHECK(r.status == 2);
        CHECK(r.err.find(name) != std::string::npos);
        CHECK(kdt::test::run_kdt("run " + name + "=" + shell_quote(bad) + " " + good).status == 2);
        std::istringstream in;
        std::ostringstream out, err;
        std::streambuf* saved = std::cerr.rdbuf(err.rdbuf());  // the usage error
        CHECK(kdt::lsp_serve(in, out, {name + "=" + bad}) == 2);
        std::cerr.rdbuf(saved);
        CHECK(err.str().find(name) != std::string::npos);
      }
      // The error goes to JSON tools as one document.
      RunResult json = kdt::test::run_kdt(name + "=0 --diagnostics-format=json " + good);
      CHECK(json.status == 2);
      CHECK(is_json(json.err));
    }
    // Each front end applies them: kdt and kdt run (which stops before
    // compiling anything).
    RunResult r = kdt::test::run_kdt("--max-kernels=1 " + two);
    CHECK(r.status == 1);
    CHECK(r.err.find("the limit is --max-kernels=1 [limit-exceeded]") != std::string::npos);
    RunResult run = kdt::test::run_kdt("run --max-kernels=1 --output-dir " + shell_quote(tmp.path.string()) + " " + two);
    CHECK(run.status == 1);
    CHECK(run.err.find("[limit-exceeded]") != std::string::npos);
    CHECK(kdt::test::run_kdt("run --max-nesting=1 " + good).err.find("[nesting-too-deep]") != std::string::npos);

    // kdt lsp: flags and defaults.
    auto lsp_diagnostics = [](const std::vector<std::string>& args, const std::string& text) {
      auto frame = [](const nlohmann::json& j) {
        std::string body = j.dump();
        return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
      };
      std::string uri = "file:///tmp/kdt-limits-test.kd";
      std::istringstream in(
          frame({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", {{"capabilities", nlohmann::json::object()}}}}) +
          frame({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", nlohmann::json::object()}}) +
          frame({{"jsonrpc", "2.0"},
                 {"method", "textDocument/didOpen"},
                 {"params", {{"textDocument", {{"uri", uri}, {"languageId", "kd"}, {"version", 1}, {"text", text}}}}}}) +
          frame({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "shutdown"}}) + frame({{"jsonrpc", "2.0"}, {"method", "exit"}}));
      std::ostringstream out;
      CHECK(kdt::lsp_serve(in, out, args) == 0);
      return out.str();
    };
    std::string two_kernels = kdt::test::read_text(two);
    CHECK(lsp_diagnostics({}, two_kernels).find("limit-exceeded") == std::string::npos);
    CHECK(lsp_diagnostics({"--max-kernels=1"}, two_kernels).find("limit-exceeded") != std::string::npos);
    CHECK(lsp_diagnostics({"--stdio", "--max-nesting=1"}, kGood).find("nesting-too-deep") != std::string::npos);
    // Defaults apply without flags.
    std::string long_literal = "const A = " + std::string(70000, '1') + ";\n";
    CHECK(lsp_diagnostics({}, long_literal).find("--max-literal-length=65536") != std::string::npos);
  }

  TEST_CASE("--kernel NAME must name a kernel") {
    kdt::test::TempDir tmp;
    std::string good = tmp.file("good.kd");
    kdt::test::write_text(good, kGood);
    CHECK(kdt::test::run_kdt("--kernel k " + good).status == 0);
    RunResult nope = kdt::test::run_kdt("--kernel NOPE " + good);
    CHECK(nope.status == 2);
    CHECK(nope.err.find("NOPE") != std::string::npos);
  }

  TEST_CASE("usage errors in json and sarif mode are one valid document") {
    kdt::test::TempDir tmp;
    std::string good = tmp.file("good.kd");
    kdt::test::write_text(good, kGood);
    for (const std::string& format : {std::string("json"), std::string("sarif")}) {
      CAPTURE(format);
      std::string f = "--diagnostics-format=" + format + " ";
      for (const std::string& args : {f + "/nonexistent.kd", f, f + "--kernel NOPE " + good, f + "-D NOPE=1 " + good,
                                      f + "--bogus " + good, f + "--emit=nonsense " + good, f + "-D 2N " + good,
                                      "--bogus " + f + good}) {
        CAPTURE(args);
        RunResult r = kdt::test::run_kdt(args);
        CHECK(r.status == 2);
        CHECK(is_json(r.err));
      }
    }
    RunResult json = kdt::test::run_kdt("--diagnostics-format=json /nonexistent.kd");
    nlohmann::json j = nlohmann::json::parse(json.err, nullptr, false);
    REQUIRE(j.is_array());
    REQUIRE(j.size() == 1);
    CHECK(j[0]["kind"] == "error");
    CHECK(j[0]["message"].get<std::string>().find("/nonexistent.kd") != std::string::npos);
  }

  TEST_CASE("--diagnostics-file writes the diagnostics there") {
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("bad.kd"), kBad);
    RunResult r = kdt::test::run_kdt("--diagnostics-format=json --diagnostics-file=" + tmp.file("d.json") + " " +
                                     tmp.file("bad.kd"));
    CHECK(r.status == 1);
    CHECK(r.err.empty());
    nlohmann::json j = nlohmann::json::parse(kdt::test::read_text(tmp.file("d.json")), nullptr, false);
    REQUIRE(j.is_array());
    REQUIRE(j.size() == 1);
    CHECK(j[0]["code"] == "undefined-name");
  }

  TEST_CASE("subcommands only as the first argument: `kdt ./run` is a file") {
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("run"), kGood);
    RunResult r = run_from(tmp.path, "./run");
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    kdt::test::write_text(tmp.file("lsp"), kBad);
    RunResult bad = run_from(tmp.path, "--color=never ./lsp");
    CHECK(bad.status == 1);
    CHECK(bad.err.find("./lsp:1:54: error") != std::string::npos);
    RunResult ast = run_from(tmp.path, "--emit=ast ./run");
    CHECK(ast.status == 0);
    CHECK(is_json(ast.out));
  }

  TEST_CASE("-D overrides a const") {
    kdt::test::TempDir tmp;
    std::string file = tmp.file("d.kd");
    kdt::test::write_text(file,
                          "const I = 3;\nconst N = 4;\n"
                          "kernel k(x: inout f32[N] @global) grid(1) {\n    let z = zeros(f32[N]);\n    x[I] = 1.0;\n"
                          "    x[0] = z[0];\n}\n");
    CHECK(kdt::test::run_kdt(file).status == 0);
    RunResult oob = kdt::test::run_kdt("--color=never -D I=4 " + file);
    CHECK(oob.status == 1);
    CHECK(oob.err.find("[static-out-of-bounds]") != std::string::npos);
    CHECK(kdt::test::run_kdt("-D I=0 " + file).status == 0);
    CHECK(kdt::test::run_kdt("-DI=1 " + file).status == 0);  // attached form
    CHECK(kdt::test::run_kdt("-D I=0x2 " + file).status == 0);
    CHECK(kdt::test::run_kdt("-D I=-1 " + file).status == 1);
    // The override is visible in the checked AST.
    RunResult plain = kdt::test::run_kdt("--emit=ast " + file);
    RunResult wide = kdt::test::run_kdt("--emit=ast -D N=16 -D I=15 " + file);
    REQUIRE(plain.status == 0);
    REQUIRE(wide.status == 0);
    CHECK(plain.out.find("\"f32[4]\"") != std::string::npos);
    CHECK(plain.out.find("\"f32[16]\"") == std::string::npos);
    CHECK(wide.out.find("\"f32[16]\"") != std::string::npos);
    CHECK(wide.out.find("\"f32[4]\"") == std::string::npos);
    // Naming no const is a command-line error.
    RunResult unused = kdt::test::run_kdt("-D M=1 " + file);
    CHECK(unused.status == 2);
    CHECK(unused.err.find("M") != std::string::npos);
  }

  TEST_CASE("one parser: -D, -I and the limits follow the same rules in kdt, kdt run and kdt lsp") {
    kdt::test::TempDir tmp;
    std::string good = tmp.file("good.kd");
    kdt::test::write_text(good, kGood);
    // kdt lsp's usage error, with what it wrote to standard error.
    auto lsp = [](const std::vector<std::string>& args) {
      std::istringstream in;
      std::ostringstream out, err;
      std::streambuf* saved = std::cerr.rdbuf(err.rdbuf());
      int status = kdt::lsp_serve(in, out, args);
      std::cerr.rdbuf(saved);
      return RunResult{status, out.str(), err.str()};
    };
    struct Case {
      std::string define;
      std::string message;
    };
    for (const Case& c : {Case{"=2", "-D expects NAME=VALUE or NAME, got '=2'"},
                          Case{"1N=2", "-D expects NAME=VALUE or NAME, got '1N=2'"},
                          Case{"N=abc", "-D N: 'abc' is neither a 64-bit integer nor a dtype"},
                          Case{"N=99999999999999999999", "-D N: '99999999999999999999' is neither a 64-bit integer nor a dtype"}}) {
      CAPTURE(c.define);
      RunResult transpile = kdt::test::run_kdt("-D " + shell_quote(c.define) + " " + good);
      RunResult run = kdt::test::run_kdt("run -D " + shell_quote(c.define) + " " + good);
      RunResult server = lsp({"-D", c.define});
      for (const RunResult* r : {&transpile, &run, &server}) {
        CHECK(r->status == 2);
        CHECK_MESSAGE(r->err.find(c.message) != std::string::npos, r->err);
      }
    }
    // The attached and separate forms, in each subcommand: a command line
    // kdt lsp accepts serves until the end of input (1: no shutdown came).
    RunResult accepted = lsp({"-DN=0x10", "-I", tmp.path.string(), "-I" + tmp.path.string(), "--max-nesting", "100",
                              "--max-kernels=5", "--stdio"});
    CHECK(accepted.status == 1);
    CHECK(accepted.err.empty());
    CHECK(kdt::test::run_kdt("-DN=0x10 -I " + shell_quote(tmp.path.string()) + " --max-nesting 100 " + good).status == 0);
    // `-D NAME` alone is NAME=1, as compilers read it.
    kdt::test::write_text(tmp.file("one.kd"), "const N = 4;\nconst M = 2 / N;\n"
                                              "kernel k(y: out i32[4] @global) grid(1) { y[...] = N; }\n");
    RunResult one = kdt::test::run_kdt("-DN --emit=ir " + shell_quote(tmp.file("one.kd")));
    CHECK(one.status == 0);
    CHECK(kdt::test::run_kdt("-DN=0 " + shell_quote(tmp.file("one.kd"))).status == 1);  // 2 / 0: -D reached the const
    CHECK(one.out == kdt::test::run_kdt("-DN=1 --emit=ir " + shell_quote(tmp.file("one.kd"))).out);
    // Each subcommand refuses what the others have and it has not, naming it.
    RunResult emit = lsp({"--emit=cpp"});
    CHECK(emit.status == 2);
    CHECK(emit.err.find("unknown argument '--emit=cpp' for `kdt lsp`") != std::string::npos);
    RunResult positional = lsp({"file.kd"});
    CHECK(positional.status == 2);
    CHECK(positional.err.find("unknown argument 'file.kd'") != std::string::npos);
    RunResult werror = lsp({"-Werror"});
    CHECK(werror.err.find("unknown argument '-Werror'") != std::string::npos);
    RunResult harness = kdt::test::run_kdt("run --harness " + good);
    CHECK(harness.status == 2);
    CHECK(harness.err.find("--harness") != std::string::npos);
    CHECK(harness.err.find("(see kdt run --help)") != std::string::npos);
  }

  TEST_CASE("errors of the tool carry their registered code: cuda-toolchain-missing, command-line") {
    kdt::test::TempDir tmp;
    std::string good = tmp.file("good.kd");
    kdt::test::write_text(good, kGood);
    std::string kdt_ptx = "KDT_NO_CUDA=1 " + shell_quote(kdt::test::kdt_binary()) + " --emit=ptx " + shell_quote(good) +
                          " -o " + shell_quote(tmp.file("x.ptx"));
    RunResult text = kdt::test::run_captured(kdt_ptx);
    CHECK(text.status == 2);
    CHECK(text.err.rfind("kdt: error: cuda-toolchain-missing: --emit=ptx needs NVRTC", 0) == 0);
    for (const char* format : {"json", "sarif"}) {
      CAPTURE(format);
      RunResult r = kdt::test::run_captured(kdt_ptx + " --diagnostics-format=" + format);
      CHECK(r.status == 2);
      REQUIRE(is_json(r.err));
      nlohmann::json doc = nlohmann::json::parse(r.err);
      nlohmann::json code = std::string(format) == "json" ? doc[0]["code"] : doc["runs"][0]["results"][0]["ruleId"];
      CHECK(code == "cuda-toolchain-missing");
    }
    RunResult usage = kdt::test::run_kdt("--frobnicate --diagnostics-format=json " + good);
    REQUIRE(is_json(usage.err));
    CHECK(nlohmann::json::parse(usage.err)[0]["code"] == "command-line");
  }

  TEST_CASE("-I adds include search directories, after the including file's own") {
    kdt::test::TempDir tmp;
    fs::create_directories(tmp.path / "lib");
    fs::create_directories(tmp.path / "src");
    kdt::test::write_text(tmp.file("lib/widths.kd"), "const W = 16;\n");
    kdt::test::write_text(tmp.file("src/main.kd"),
                          "include \"widths.kd\";\nkernel k(x: inout f32[W] @global) grid(1) { x[...] = x * 2.0; }\n");
    RunResult without = kdt::test::run_kdt("--color=never " + tmp.file("src/main.kd"));
    CHECK(without.status == 1);
    CHECK(without.err.find("[include-not-found]") != std::string::npos);
    CHECK(kdt::test::run_kdt("-I " + tmp.file("lib") + " " + tmp.file("src/main.kd")).status == 0);
    CHECK(kdt::test::run_kdt("-I" + tmp.file("lib") + " " + tmp.file("src/main.kd")).status == 0);
    CHECK(kdt::test::run_kdt("-I " + tmp.file("src") + " -I " + tmp.file("lib") + " " + tmp.file("src/main.kd")).status ==
          0);
    // The including file's directory wins over -I.
    kdt::test::write_text(tmp.file("src/widths.kd"), "const W = 8;\n");
    RunResult local = kdt::test::run_kdt("--emit=ast -I " + tmp.file("lib") + " " + tmp.file("src/main.kd"));
    CHECK(local.status == 0);
    CHECK(local.out.find("\"f32[8]\"") != std::string::npos);
    // Relative to the including file, not to the working directory.
    RunResult from_elsewhere = run_from(tmp.path / "lib", "../src/main.kd");
    CHECK(from_elsewhere.status == 0);
  }

  TEST_CASE("-o writes atomically and only when there are no errors") {
    kdt::test::TempDir tmp;
    std::string good = tmp.file("good.kd");
    std::string bad = tmp.file("bad.kd");
    kdt::test::write_text(good, kGood);
    kdt::test::write_text(bad, kBad);
    std::string out = tmp.file("out.json");

    RunResult first = kdt::test::run_kdt("--emit=ast -o " + out + " " + good);
    CHECK(first.status == 0);
    CHECK(first.out.empty());
    std::string written = kdt::test::read_text(out);
    CHECK(is_json(written));
    CHECK(written == kdt::test::run_kdt("--emit=ast " + good).out);  // same bytes as on stdout

    // Errors: the existing output stays as it was, and nothing new is created.
    kdt::test::write_text(out, "previous contents\n");
    CHECK(kdt::test::run_kdt("--emit=ast -o " + out + " " + bad).status == 1);
    CHECK(kdt::test::read_text(out) == "previous contents\n");
    CHECK(kdt::test::run_kdt("--emit=ast -o " + tmp.file("new.json") + " " + bad).status == 1);
    CHECK(!fs::exists(tmp.file("new.json")));
    // No temporary files are left behind.
    int entries = 0;
    for (const auto& e : fs::directory_iterator(tmp.path)) entries += e.path().filename().string()[0] == '.' ? 100 : 1;
    CHECK(entries == 3);

    // Unchanged output keeps its modification time.
    CHECK(kdt::test::run_kdt("--emit=ast -o " + out + " " + good).status == 0);
    auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(24);
    fs::last_write_time(out, old_time);
    CHECK(kdt::test::run_kdt("--emit=ast -o " + out + " " + good).status == 0);
    CHECK(fs::last_write_time(out) == old_time);
    // Changed output replaces it.
    kdt::test::write_text(good, kGood + "// changed\nconst M = 1;\n");
    CHECK(kdt::test::run_kdt("--emit=ast -o " + out + " " + good).status == 0);
    CHECK(fs::last_write_time(out) != old_time);
    CHECK(kdt::test::read_text(out).find("\"M\"") != std::string::npos);

    // `-o -` is standard output; devices are written in place.
    RunResult dash = kdt::test::run_kdt("--emit=ast -o - " + good);
    CHECK(dash.status == 0);
    CHECK(is_json(dash.out));
    RunResult null = kdt::test::run_kdt("--emit=ast -o /dev/null " + good);
    CHECK(null.status == 0);
    CHECK(null.err.empty());
    CHECK(fs::is_character_file("/dev/null"));

    // A directory as output is an error, not a crash.
    CHECK(kdt::test::run_kdt("--emit=ast -o " + tmp.path.string() + " " + good).status == 2);
  }

  TEST_CASE("-o naming the input is refused") {
    kdt::test::TempDir tmp;
    std::string good = tmp.file("good.kd");
    kdt::test::write_text(good, kGood);
    RunResult r = kdt::test::run_kdt("--emit=ast -o " + good + " " + good);
    CHECK(r.status == 2);
    CHECK(kdt::test::read_text(good) == kGood);
    // Also through another spelling of the same path.
    RunResult other = run_from(tmp.path, "--emit=ast -o ./good.kd " + good);
    CHECK(other.status == 2);
    CHECK(kdt::test::read_text(good) == kGood);
  }

  TEST_CASE("-MD -MF writes a depfile of every file read, with GCC escaping") {
    kdt::test::TempDir tmp;
    fs::create_directories(tmp.path / "sub dir");
    kdt::test::write_text(tmp.file("sub dir/my lib.kd"), "const W = 4;\n");
    kdt::test::write_text(tmp.file("common.kd"), "include \"sub dir/my lib.kd\";\nconst V = W;\n");
    kdt::test::write_text(tmp.file("main file.kd"),
                          "include \"common.kd\";\ninclude \"sub dir/my lib.kd\";\n"
                          "kernel k(x: inout f32[V] @global) grid(1) { x[...] = x * 2.0; }\n");
    RunResult r = run_from(tmp.path, "--emit=ast -o out.json -MD -MF dep.d 'main file.kd'");
    REQUIRE(r.status == 0);
    std::string dep = kdt::test::read_text(tmp.file("dep.d"));
    CHECK(dep.rfind("out.json:", 0) == 0);
    CHECK(dep.find("main\\ file.kd") != std::string::npos);
    CHECK(dep.find("common.kd") != std::string::npos);
    CHECK(dep.find("sub\\ dir/my\\ lib.kd") != std::string::npos);
    // Each file once.
    CHECK(dep.find("my\\ lib.kd") == dep.rfind("my\\ lib.kd"));

    // -MT names the target, with `$` and `#` escaped as Make needs; -MP adds phony targets.
    RunResult mt = run_from(tmp.path, "-MD -MF dep2.d -MT 'gen/k$1#.json' -MP 'main file.kd'");
    REQUIRE(mt.status == 0);
    std::string dep2 = kdt::test::read_text(tmp.file("dep2.d"));
    CHECK(dep2.rfind("gen/k$$1\\#.json:", 0) == 0);
    CHECK(dep2.find("\ncommon.kd:\n") != std::string::npos);
    CHECK(dep2.find("\nsub\\ dir/my\\ lib.kd:\n") != std::string::npos);

    // Without -MF the depfile goes next to the output.
    RunResult implicit = run_from(tmp.path, "--emit=ast -o out2.json -MD 'main file.kd'");
    CHECK(implicit.status == 0);
    CHECK(fs::exists(tmp.file("out2.json.d")));

    // An input with errors writes no depfile.
    kdt::test::write_text(tmp.file("bad.kd"), kBad);
    CHECK(run_from(tmp.path, "-MD -MF dep3.d bad.kd").status == 1);
    CHECK(!fs::exists(tmp.file("dep3.d")));
  }

  TEST_CASE("standard input with `-`") {
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("in.kd"), kGood);
    RunResult r = kdt::test::run_kdt("--emit=ast -", tmp.file("in.kd"));
    CHECK(r.status == 0);
    CHECK(is_json(r.out));
    RunResult dep = kdt::test::run_kdt("--emit=ast -o " + tmp.file("o.json") + " -MD -MF " + tmp.file("d.d") + " -",
                                       tmp.file("in.kd"));
    CHECK(dep.status == 0);
    CHECK(kdt::test::read_text(tmp.file("d.d")).find("<stdin>") == std::string::npos);
  }

  TEST_CASE("output is deterministic") {
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("good.kd"), kGood);
    std::string a = kdt::test::run_kdt("--emit=ast " + tmp.file("good.kd")).out;
    std::string b = kdt::test::run_kdt("--emit=ast " + tmp.file("good.kd")).out;
    CHECK(a == b);
    kdt::test::write_text(tmp.file("bad.kd"), kBad + "kernel j(y: inout f32[4] @global) grid(1) { let u = 1; y[...] = z; }\n");
    std::string e1 = kdt::test::run_kdt("--diagnostics-format=sarif " + tmp.file("bad.kd")).err;
    std::string e2 = kdt::test::run_kdt("--diagnostics-format=sarif " + tmp.file("bad.kd")).err;
    CHECK(e1 == e2);
  }

  TEST_CASE("-Werror, -w and --color") {
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("w.kd"), "kernel k(x: inout f32[4] @global) grid(1) { let unused = 1; }\n");
    CHECK(kdt::test::run_kdt(tmp.file("w.kd")).status == 0);
    CHECK(kdt::test::run_kdt("-Werror " + tmp.file("w.kd")).status == 1);
    CHECK(kdt::test::run_kdt("--Werror " + tmp.file("w.kd")).status == 1);
    RunResult quiet = kdt::test::run_kdt("-w " + tmp.file("w.kd"));
    CHECK(quiet.status == 0);
    CHECK(quiet.err.empty());
    RunResult color = kdt::test::run_kdt("--color=always " + tmp.file("w.kd"));
    CHECK(color.err.find("\x1b[") != std::string::npos);
    RunResult never = kdt::test::run_kdt("--color=never " + tmp.file("w.kd"));
    CHECK(never.err.find("\x1b[") == std::string::npos);
    RunResult piped = kdt::test::run_kdt(tmp.file("w.kd"));  // stderr is a file: no colour by default
    CHECK(piped.err.find("\x1b[") == std::string::npos);
  }
}
