// The lexer's input and the parser's token stream for a front end whose
// memory is the AST's, not the tokens' (issue 17): one byte per code point
// of input, and the tokens of one top-level item alive at a time.
#pragma once

#include <CharStream.h>
#include <CommonTokenStream.h>
#include <TokenSource.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace kdt::syntax {

// The lexer's input, one byte per code point: the source text itself when
// it is ASCII, or a text of stand-ins (scanner_input). ANTLRInputStream keeps
// four bytes per code point.
class ByteCharStream : public antlr4::CharStream {
 public:
  // Reads `text`, which must outlive the stream.
  static std::unique_ptr<ByteCharStream> borrowing(std::string_view text);
  static std::unique_ptr<ByteCharStream> owning(std::string text);

  void consume() override;
  size_t LA(ssize_t i) override;
  ssize_t mark() override { return -1; }
  void release(ssize_t) override {}
  size_t index() override { return position_; }
  void seek(size_t index) override;
  size_t size() override { return data_.size(); }
  std::string getSourceName() const override { return "<kd>"; }
  std::string getText(const antlr4::misc::Interval& interval) override;
  std::string toString() const override { return std::string(data_); }
  // Every unit, for a scanner that reads them directly.
  std::string_view units() const { return data_; }

 private:
  std::string owned_;
  std::string_view data_;
  size_t position_ = 0;
};

// Thrown out of the parser when the token source refuses a token: the
// caller parses the file again with every token in memory, where the
// refused token is diagnosed.
struct TokenRefused {};

// Hands on the lexer's tokens while `admit` accepts them, and throws
// TokenRefused at the first it does not (a lexical error, a literal or a
// nesting over the limits): streaming parses only what needs no diagnostic.
class AdmittingTokenSource : public antlr4::TokenSource {
 public:
  AdmittingTokenSource(antlr4::TokenSource& lexer, std::function<bool(const antlr4::Token&)> admit)
      : lexer_(lexer), admit_(std::move(admit)) {}

  std::unique_ptr<antlr4::Token> nextToken() override;
  size_t getLine() const override { return lexer_.getLine(); }
  size_t getCharPositionInLine() override { return lexer_.getCharPositionInLine(); }
  antlr4::CharStream* getInputStream() override { return lexer_.getInputStream(); }
  std::string getSourceName() override { return lexer_.getSourceName(); }
  antlr4::TokenFactory<antlr4::CommonToken>* getTokenFactory() override { return lexer_.getTokenFactory(); }

 private:
  antlr4::TokenSource& lexer_;
  std::function<bool(const antlr4::Token&)> admit_;
};

// A CommonTokenStream that forgets the tokens it has passed: after an item
// is built, `forget_consumed` frees every token before the current one but
// the last on the default channel (the parser reads it as LT(-1)). Token
// indices stay those of the whole file.
class ForgetfulTokenStream : public antlr4::CommonTokenStream {
 public:
  using antlr4::CommonTokenStream::CommonTokenStream;

  void forget_consumed();
  // The file-wide index of the current token.
  size_t file_index() { return forgotten_ + index(); }

 protected:
  size_t fetch(size_t n) override;

 private:
  size_t forgotten_ = 0;
};

}  // namespace kdt::syntax
