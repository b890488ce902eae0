// The front end's Scanner (src/syntax/scanner.h) against the lexer ANTLR
// generates from grammar/KDLexer.g4, which defines the tokens: both lex the
// same text and must make the same tokens (type, channel, start, stop,
// line, column), the end-of-file token included. The generated lexer reads
// the decoded text as ANTLR would (every code point, real), the Scanner its
// one-byte-per-code-point input with stand-ins, as the front end runs it.
// Used by the unit tests (tests/unit/scanner_test.cpp) and the fuzz target
// `lexer`.
#pragma once

#include <ANTLRInputStream.h>
#include <Token.h>

#include <memory>
#include <string>
#include <vector>

#include "KDLexer.h"
#include "syntax/scanner.h"
#include "syntax/source_text.h"

namespace kdt::fuzz {

struct LexedToken {
  size_t type, channel, start, stop, line, column;
  bool operator==(const LexedToken& o) const {
    return type == o.type && channel == o.channel && start == o.start && stop == o.stop && line == o.line &&
           column == o.column;
  }
};

inline std::vector<LexedToken> every_token(antlr4::TokenSource& source) {
  std::vector<LexedToken> tokens;
  for (;;) {
    std::unique_ptr<antlr4::Token> t = source.nextToken();
    tokens.push_back({t->getType(), t->getChannel(), t->getStartIndex(), t->getStopIndex(), t->getLine(),
                      t->getCharPositionInLine()});
    if (t->getType() == antlr4::Token::EOF) return tokens;
  }
}

inline std::string describe(const LexedToken& t) {
  return "type " + std::to_string(t.type) + " channel " + std::to_string(t.channel) + " at " +
         std::to_string(t.start) + ".." + std::to_string(t.stop) + " line " + std::to_string(t.line) + ":" +
         std::to_string(t.column);
}

// Empty when both lexers make the same tokens of `text`; else the first
// difference, for a failure message.
inline std::string lexers_disagree(const std::string& text) {
  syntax::DecodedText decoded = syntax::decode_source(text);
  antlr4::ANTLRInputStream real(decoded.ascii ? text : decoded.utf8);
  KDLexer generated(&real);
  generated.removeErrorListeners();
  std::vector<LexedToken> expected = every_token(generated);

  std::unique_ptr<syntax::ByteCharStream> units = syntax::scanner_input(text, decoded);
  syntax::Scanner scanner(*units);
  std::vector<LexedToken> got = every_token(scanner);

  for (size_t i = 0; i < expected.size() || i < got.size(); ++i) {
    if (i < expected.size() && i < got.size() && expected[i] == got[i]) continue;
    return "token " + std::to_string(i) + ": the grammar's lexer made " +
           (i < expected.size() ? describe(expected[i]) : "nothing") + ", the Scanner " +
           (i < got.size() ? describe(got[i]) : "nothing");
  }
  return "";
}

}  // namespace kdt::fuzz
