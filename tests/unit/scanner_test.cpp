// The Scanner (src/syntax/scanner.h) makes exactly the tokens of the lexer
// ANTLR generates from grammar/KDLexer.g4: on every KD file in the
// repository, on the corners of each rule, and on generated text dense in
// the characters where the rules meet.
#include <doctest/doctest.h>

// Before <random>: the generated lexer names a token NAN, which <cmath>
// defines as a macro.
#include "../fuzz/lexer_differential.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "test_support.h"

namespace {

namespace fs = std::filesystem;
using kdt::fuzz::lexers_disagree;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_SUITE("syntax") {
  TEST_CASE("the Scanner lexes every KD file in the repository as the grammar does") {
    size_t files = 0;
    for (const char* folder : {"samples", "tests", "bench", "docs", "python"}) {
      fs::path root = fs::path(kdt::test::source_dir()) / folder;
      if (!fs::exists(root)) continue;
      for (const auto& entry : fs::recursive_directory_iterator(root)) {
        if (!entry.is_regular_file() || entry.path().extension() != ".kd") continue;
        ++files;
        INFO(entry.path().string());
        CHECK(lexers_disagree(read_file(entry.path())) == "");
      }
    }
    CHECK(files > 150);
  }

  TEST_CASE("the Scanner agrees with the grammar at the corners of each rule") {
    const char* corners[] = {
        "", " ", "\n\n x", "\r\n\tx\f", "inside in if inf infinity i8 i8x bf16 f64_ _ __a9",
        "0..n 0...n 1..2 1.5..2 ... .. . .5 .5e3 .e3 5. 5.e3", "1_000 1__0 1_ _1 1_e5 1e5 1e 1e+ 1e+5 1E-0 1e5_0",
        "0x 0x1F 0X_1 0x1_ 0x1__2 0xg 00x1 0x1.5 1.2.3 1._5 1.5_ 1.5e 1.5e+3x",
        "-> - > += -= *= << >> <= >= == != && || <<= >>= === !== &&& ||| ? : ; , @",
        "\"a\" \"\" \"a\\\"b\" \"a\\\\\" \"a\\n\" \"unterminated\n\"x\\\n\"x\\", "\"\\", "\"",
        "// line\n//\r\n// last", "/* a */ /**/ /*/ x */ /* * / */ /* ** */ /*** x", "/* unterminated\n * more *",
        "/*/", "/* x *", "a/b/*c*/d//e", "#$`\\ \x7f \x01 \x02", "caf\xc3\xa9 \xc3\xa9t\xc3\xa9 \"\xc3\xa9\" // \xc3\xa9",
        "\xff \xfe\xfd x \"\xff\" /* \xff */", "\xef\xbb\xbf" "const A = 1;", "x \xef\xbb\xbf y",
        "\xe2\x80\x8b\xf0\x9f\x98\x80 \xc3", "a.b pl.program_id 1.", "\"\t\x01\"",
    };
    for (const char* text : corners) {
      INFO(text);
      CHECK(lexers_disagree(text) == "");
    }
  }

  TEST_CASE("the Scanner agrees with the grammar on generated text") {
    // Pieces where rules meet: digits and separators, exponents, dots,
    // quotes and escapes, comment delimiters, line ends, reserved-word
    // prefixes, characters no rule starts with, UTF-8 good and bad.
    const std::vector<std::string> pieces = {
        "0", "1", "9", "_", ".", "e", "E", "x", "X", "a", "f", "+", "-", "\"", "\\", "\n", "\r", " ", "\t", "/", "*",
        "<", ">", "=", "!", "&", "|", "in", "if", "inf", "i", "const", "#", "\x01", "\x7f", "\xc3\xa9", "\xff",
        "\xef\xbb\xbf", "\xe2\x82", "@", ";", "(", "]"};
    std::mt19937 random(20261205);
    std::uniform_int_distribution<size_t> piece(0, pieces.size() - 1);
    std::uniform_int_distribution<int> length(0, 40);
    size_t disagreements = 0;
    for (int round = 0; round < 20000; ++round) {
      std::string text;
      for (int n = length(random); n > 0; --n) text += pieces[piece(random)];
      std::string why = lexers_disagree(text);
      if (!why.empty() && ++disagreements <= 5) {
        INFO(text);
        CHECK(why == "");
      }
    }
    CHECK(disagreements == 0);
  }
}

}  // namespace
