// Issue 12, item 18: sizes that exhaust or overflow are diagnosed at
// compile time, at the attribute or type that causes them, before anything
// is emitted, compiled or allocated; each limit has a flag that raises it.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "test_support.h"

namespace {

struct SizeCase {
  const char* source;
  const char* code;
  int column;
  const char* words;
};

const SizeCase kSizeCases[] = {
    // 2^31 programs would allocate their states before running anything.
    {"kernel k(y: out f32[4] @global) grid(2147483647) { y[...] = zeros(f32[4]); }", "limit-exceeded", 33,
     "a launch of 2147483647 programs (grid size 2147483647 x 1 device); the limit is --max-programs=16777216"},
    // The program count once wrapped to 0, and nothing ran.
    {"kernel k(y: out f32[4] @global) grid(4294967296, 4294967296) { y[...] = zeros(f32[4]); }", "constant-overflow",
     33, "the grid has more programs than 64 bits can count"},
    {"kernel k(y: out f32[4] @global) grid(4294967296) devices(4294967296) { y[...] = zeros(f32[4]); }",
     "limit-exceeded", 50, "4294967296 devices; the limit is --max-devices=1024"},
    {"kernel k(y: out f32[4] @global) grid(1) devices(2147483648) { y[...] = zeros(f32[4]); }", "limit-exceeded", 41,
     "2147483648 devices; the limit is --max-devices=1024"},
    // threads(T) was truncated to 32 bits.
    {"kernel k(y: out f32[4] @global) grid(1) threads(4294967297) { y[...] = zeros(f32[4]); }", "bad-argument", 41,
     "`threads` is 4294967297, but a CUDA thread block has at most 1024 threads"},
    // 2^64 bytes passed the checker.
    {"kernel k(y: out f32[2147483648, 2147483648] @global) grid(1) { }", "constant-overflow", 17,
     "the ref holds more than 2^63 bytes"},
    // 16 GiB was allocated.
    {"kernel k(y: out f32[4294967296] @global) grid(1) { }", "limit-exceeded", 17,
     "a ref of 17179869184 bytes; the limit is --max-ref-bytes=4294967296"},
    {"kernel k(y: out f32[4] @global) grid(1) { scratch t: f32[2305843009213693952] @shared; }", "constant-overflow",
     54, "the ref holds more than 2^63 bytes"},
};

}  // namespace

TEST_SUITE("check") {
  TEST_CASE("sizes that overflow or exceed a limit are diagnosed where they are written") {
    kdt::test::TempDir tmp;
    for (const SizeCase& c : kSizeCases) {
      std::string source = c.source;
      CAPTURE(source);
      kdt::test::write_text(tmp.file("k.kd"), std::string(c.source) + "\n");
      kdt::test::RunResult r = kdt::test::run_kdt("--diagnostics-format=json --emit=cpp -o " + tmp.file("k.cpp") + " " +
                                                  tmp.file("k.kd"));
      CHECK(r.status == 1);
      nlohmann::json diags = nlohmann::json::parse(r.err, nullptr, false);
      REQUIRE(diags.is_array());
      REQUIRE(!diags.empty());
      CHECK(diags[0]["code"] == c.code);
      CHECK(diags[0]["locations"][0]["caret"]["line"] == 1);
      CHECK(diags[0]["locations"][0]["caret"]["column"] == c.column);
      std::string message = diags[0]["message"];
      CHECK_MESSAGE(message.find(c.words) != std::string::npos, message);
      CHECK_FALSE(std::filesystem::exists(tmp.file("k.cpp")));
    }
  }

  TEST_CASE("the size limits have flags") {
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("k.kd"), "kernel k(y: out f32[4] @global) grid(64) devices(4) { y[...] = zeros(f32[4]); }\n");
    CHECK(kdt::test::run_kdt(tmp.file("k.kd")).status == 0);
    CHECK(kdt::test::run_kdt("--max-programs=255 " + tmp.file("k.kd")).status == 1);
    CHECK(kdt::test::run_kdt("--max-programs=256 " + tmp.file("k.kd")).status == 0);
    CHECK(kdt::test::run_kdt("--max-devices=3 " + tmp.file("k.kd")).status == 1);
    CHECK(kdt::test::run_kdt("--max-ref-bytes=15 " + tmp.file("k.kd")).status == 1);
    CHECK(kdt::test::run_kdt("--max-ref-bytes=16 " + tmp.file("k.kd")).status == 0);
  }

  TEST_CASE("--max-source-bytes bounds the main file, standard input and includes") {
    kdt::test::TempDir tmp;
    std::string kernel = "kernel k(y: out f32[4] @global) grid(1) { y[...] = zeros(f32[4]); }\n";
    kdt::test::write_text(tmp.file("k.kd"), kernel + std::string(200, ' ') + "\n");
    kdt::test::RunResult main_file = kdt::test::run_kdt("--max-source-bytes=100 " + tmp.file("k.kd"));
    CHECK(main_file.status == 2);
    CHECK(main_file.err.find("is larger than 100 bytes, the limit of --max-source-bytes") != std::string::npos);
    kdt::test::RunResult in = kdt::test::run_kdt("--max-source-bytes=100 -", tmp.file("k.kd"));
    CHECK(in.status == 2);
    CHECK(in.err.find("'<stdin>' is larger than 100 bytes") != std::string::npos);
    // A device that never ends is cut at the limit, not read forever.
    CHECK(kdt::test::run_kdt("--max-source-bytes=100 /dev/zero").status == 2);
    kdt::test::write_text(tmp.file("main.kd"), "include \"k.kd\";\n");
    kdt::test::RunResult inc = kdt::test::run_kdt("--diagnostics-format=json --max-source-bytes=100 " + tmp.file("main.kd"));
    CHECK(inc.status == 1);
    nlohmann::json diags = nlohmann::json::parse(inc.err, nullptr, false);
    REQUIRE(diags.is_array());
    REQUIRE(diags.size() == 1);
    CHECK(diags[0]["code"] == "limit-exceeded");
    CHECK(diags[0]["locations"][0]["caret"]["column"] == 9);
    CHECK(kdt::test::run_kdt(tmp.file("main.kd")).status == 0);
  }
}
