// The front end's lexer input and token stream (src/syntax/token_stream.h):
// ANTLRInputStream's semantics on bytes, and a token stream that forgets
// what it has passed while the parser still sees LT(-1) and file-wide
// token indices.
#include <doctest/doctest.h>

#include <Exceptions.h>

#include "KDLexer.h"
#include "syntax/token_stream.h"

namespace {

using kdt::syntax::ByteCharStream;

TEST_SUITE("syntax") {
  TEST_CASE("ByteCharStream reads bytes as ANTLRInputStream reads code points") {
    auto s = ByteCharStream::borrowing("ab\x01");
    CHECK(s->size() == 3);
    CHECK(s->LA(1) == 'a');
    CHECK(s->LA(3) == 1);
    CHECK(s->LA(4) == antlr4::IntStream::EOF);
    CHECK(s->LA(-1) == antlr4::IntStream::EOF);  // nothing before the start
    s->consume();
    CHECK(s->index() == 1);
    CHECK(s->LA(-1) == 'a');
    CHECK(s->LA(1) == 'b');
    s->seek(10);  // past the end: at the end
    CHECK(s->index() == 3);
    CHECK_THROWS_AS(s->consume(), antlr4::IllegalStateException);
    CHECK(s->getText(antlr4::misc::Interval(ssize_t{0}, ssize_t{1})) == "ab");
    CHECK(s->getText(antlr4::misc::Interval(ssize_t{1}, ssize_t{9})) == "b\x01");
    CHECK(s->getText(antlr4::misc::Interval(ssize_t{2}, ssize_t{1})).empty());
    // Bytes past 0x7F are code points 128-255, never negative.
    auto high = ByteCharStream::owning(std::string("\xC3", 1));
    CHECK(high->LA(1) == 0xC3);
  }

  TEST_CASE("ForgetfulTokenStream frees the tokens it passed, keeping LT(-1) and file-wide indices") {
    auto input = ByteCharStream::borrowing("const A = 1; // one\nconst B = 2;");
    KDLexer lexer(input.get());
    lexer.removeErrorListeners();
    kdt::syntax::ForgetfulTokenStream tokens(&lexer);
    CHECK(tokens.LT(1)->getText() == "const");
    for (int i = 0; i < 5; ++i) tokens.consume();  // const A = 1 ;
    CHECK(tokens.LT(1)->getText() == "const");     // the comment is off the channel
    const size_t before = tokens.file_index();
    const size_t kept = tokens.size();
    tokens.forget_consumed();
    CHECK(tokens.size() < kept);
    CHECK(tokens.file_index() == before);
    CHECK(tokens.LT(-1)->getText() == ";");
    CHECK(tokens.LT(1)->getTokenIndex() == before);
    tokens.consume();
    CHECK(tokens.LT(1)->getText() == "B");
    CHECK(tokens.LT(1)->getTokenIndex() == before + 1);
  }
}

}  // namespace
