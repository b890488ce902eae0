#include "token_stream.h"

#include <Exceptions.h>
#include <CommonToken.h>
#include <misc/Interval.h>

#include <algorithm>

namespace kdt::syntax {

std::unique_ptr<ByteCharStream> ByteCharStream::borrowing(std::string_view text) {
  auto stream = std::unique_ptr<ByteCharStream>(new ByteCharStream);
  stream->data_ = text;
  return stream;
}

std::unique_ptr<ByteCharStream> ByteCharStream::owning(std::string text) {
  auto stream = std::unique_ptr<ByteCharStream>(new ByteCharStream);
  stream->owned_ = std::move(text);
  stream->data_ = stream->owned_;
  return stream;
}

// The semantics of ANTLRInputStream's members, on bytes.
void ByteCharStream::consume() {
  if (position_ >= data_.size()) throw antlr4::IllegalStateException("cannot consume EOF");
  ++position_;
}

size_t ByteCharStream::LA(ssize_t i) {
  if (i == 0) return 0;
  ssize_t at = static_cast<ssize_t>(position_) + (i < 0 ? i : i - 1);
  if (at < 0 || at >= static_cast<ssize_t>(data_.size())) return antlr4::IntStream::EOF;
  return static_cast<unsigned char>(data_[static_cast<size_t>(at)]);
}

void ByteCharStream::seek(size_t index) { position_ = std::min(index, data_.size()); }

std::string ByteCharStream::getText(const antlr4::misc::Interval& interval) {
  if (interval.a < 0 || interval.b < interval.a) return "";
  size_t start = static_cast<size_t>(interval.a);
  if (start >= data_.size()) return "";
  size_t stop = std::min(static_cast<size_t>(interval.b), data_.size() - 1);
  return std::string(data_.substr(start, stop - start + 1));
}

std::unique_ptr<antlr4::Token> AdmittingTokenSource::nextToken() {
  std::unique_ptr<antlr4::Token> token = lexer_.nextToken();
  if (!admit_(*token)) throw TokenRefused{};
  return token;
}

void ForgetfulTokenStream::forget_consumed() {
  size_t keep = index();
  while (keep > 0 && _tokens[keep - 1]->getChannel() != antlr4::Token::DEFAULT_CHANNEL) --keep;
  if (keep == 0) return;
  --keep;  // LT(-1)
  _tokens.erase(_tokens.begin(), _tokens.begin() + static_cast<std::ptrdiff_t>(keep));
  _p -= keep;
  forgotten_ += keep;
}

// BufferedTokenStream::fetch, numbering the tokens across what was
// forgotten. The lexer makes its tokens with CommonTokenFactory, so they are
// CommonTokens (a dynamic_cast per token cost 1% of parsing).
size_t ForgetfulTokenStream::fetch(size_t n) {
  if (_fetchedEOF) return 0;
  size_t i = 0;
  while (i < n) {
    std::unique_ptr<antlr4::Token> token = _tokenSource->nextToken();
    static_cast<antlr4::CommonToken*>(token.get())->setTokenIndex(forgotten_ + _tokens.size());
    _tokens.push_back(std::move(token));
    ++i;
    if (_tokens.back()->getType() == antlr4::Token::EOF) {
      _fetchedEOF = true;
      break;
    }
  }
  return i;
}

}  // namespace kdt::syntax
