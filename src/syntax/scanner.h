// The front end's lexer: the tokens of grammar/KDLexer.g4, scanned by hand.
//
// ANTLR's generated lexer simulates its ATN one character at a time, with a
// virtual call, a hash lookup and a dynamic_cast per character: 28% of the
// front end's instructions on a large input, when a 1,000,000-line file
// took 10 s to check (issue 17). The Scanner makes the same
// tokens — type, channel, start, stop, line and column, every one — in a
// single pass over the bytes. The grammar stays the definition: the
// reserved words and the punctuation are read from the generated lexer's
// vocabulary, and the tests lex every bundled KD file and a large set of
// generated inputs with both and require identical tokens
// (tests/unit/scanner_test.cpp, the fuzz target `lexer`).
#pragma once

#include <TokenSource.h>

#include <memory>
#include <string>

#include "source_text.h"
#include "token_stream.h"

namespace kdt::syntax {

// What the lexer reads: one unit per code point (token_stream.h). The
// source itself when it is ASCII; otherwise every code point past U+007F
// (including the U+FFFD of a malformed byte) becomes one stand-in byte
// below 0x20 that no rule names, the UTF-8 decoder's dropped byte order
// mark dropped too: the tokens, at the same code-point indices, are those
// of `decoded.utf8`, because outside strings and comments every such code
// point is an ERROR_CHAR of its own, and inside them any is alike. Nothing
// reads token text that can hold one (strings, comments and error tokens
// are read from the source bytes).
std::unique_ptr<ByteCharStream> scanner_input(const std::string& text, const DecodedText& decoded);

class Scanner : public antlr4::TokenSource {
 public:
  // Reads `input`, which must outlive the scanner and its tokens.
  explicit Scanner(ByteCharStream& input);

  std::unique_ptr<antlr4::Token> nextToken() override;
  size_t getLine() const override { return line_; }
  size_t getCharPositionInLine() override { return position_ - line_start_; }
  antlr4::CharStream* getInputStream() override { return &input_; }
  std::string getSourceName() override { return input_.getSourceName(); }
  antlr4::TokenFactory<antlr4::CommonToken>* getTokenFactory() override;

 private:
  // The end of the token that starts at position_, its type and channel;
  // type 0 (INVALID_TYPE) for text the grammar skips.
  struct Match {
    size_t end;
    size_t type;
    size_t channel;
  };
  Match match() const;
  Match number() const;
  Match string_literal() const;
  Match block_comment() const;
  Match word() const;
  Match punctuation() const;
  // Moves to `end`, counting lines.
  void advance_to(size_t end);

  ByteCharStream& input_;
  std::string_view units_;
  std::pair<antlr4::TokenSource*, antlr4::CharStream*> source_pair_;
  size_t position_ = 0;
  size_t line_ = 1;
  size_t line_start_ = 0;
};

}  // namespace kdt::syntax
