#include "scanner.h"

#include <ANTLRInputStream.h>
#include <CommonTokenFactory.h>
#include <Vocabulary.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "KDLexer.h"

namespace kdt::syntax {

namespace {

using antlr4::Token;

// A token type of 0 (ANTLR's INVALID_TYPE) marks text the grammar skips.
constexpr size_t kSkipped = Token::INVALID_TYPE;

// What every code point past U+007F reads as (scanner_input).
constexpr char kNonAsciiStandIn = 0x01;

bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool is_hex_digit(unsigned char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool starts_word(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool continues_word(unsigned char c) { return starts_word(c) || is_digit(c); }
bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f'; }

// The grammar's literal tokens (reserved words and punctuation), from the
// generated lexer's vocabulary, by first character, longest first: the
// longest match, as ANTLR's lexer finds it.
struct Literal {
  std::string text;
  size_t type;
};
using LiteralTable = std::array<std::vector<Literal>, 128>;

const LiteralTable& literals() {
  static const LiteralTable table = [] {
    LiteralTable t;
    antlr4::ANTLRInputStream nothing;
    KDLexer lexer(&nothing);
    const antlr4::dfa::Vocabulary& vocabulary = lexer.getVocabulary();
    for (size_t type = 1; type <= vocabulary.getMaxTokenType(); ++type) {
      std::string quoted = vocabulary.getLiteralName(type);  // 'text', or empty
      if (quoted.size() < 3) continue;
      std::string text = quoted.substr(1, quoted.size() - 2);
      t[static_cast<unsigned char>(text[0]) & 0x7F].push_back({text, type});
    }
    for (std::vector<Literal>& first : t) {
      std::stable_sort(first.begin(), first.end(),
                       [](const Literal& a, const Literal& b) { return a.text.size() > b.text.size(); });
    }
    return t;
  }();
  return table;
}

// D ('_'? D)* for a digit class D, from a digit at `i`: where it ends.
// DIGITS : [0-9] ('_'? [0-9])*; a hex literal's digits likewise.
template <class IsDigit>
size_t separated_digits_end(std::string_view s, size_t i, IsDigit digit) {
  ++i;
  while (i < s.size()) {
    if (digit(s[i])) {
      ++i;
    } else if (s[i] == '_' && i + 1 < s.size() && digit(s[i + 1])) {
      i += 2;
    } else {
      break;
    }
  }
  return i;
}
size_t digits_end(std::string_view s, size_t i) { return separated_digits_end(s, i, is_digit); }

// EXPONENT : [eE] [+-]? [0-9]+, at `i`: where it ends, or `i` for none.
size_t exponent_end(std::string_view s, size_t i) {
  if (i >= s.size() || (s[i] != 'e' && s[i] != 'E')) return i;
  size_t j = i + 1;
  if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
  if (j >= s.size() || !is_digit(s[j])) return i;
  while (j < s.size() && is_digit(s[j])) ++j;
  return j;
}

}  // namespace

std::unique_ptr<ByteCharStream> scanner_input(const std::string& text, const DecodedText& decoded) {
  if (decoded.ascii) return ByteCharStream::borrowing(text);
  const std::vector<uint32_t>& offsets = decoded.byte_offset;
  size_t first = decoded.utf8.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 1 : 0;
  std::string stand_ins(offsets.size() - 1 - first, '\0');
  for (size_t k = 0; k < stand_ins.size(); ++k) {
    unsigned char lead = static_cast<unsigned char>(text[offsets[first + k]]);
    stand_ins[k] = lead < 0x80 ? static_cast<char>(lead) : kNonAsciiStandIn;
  }
  return ByteCharStream::owning(std::move(stand_ins));
}

Scanner::Scanner(ByteCharStream& input) : input_(input), units_(input.units()), source_pair_(this, &input) {
  literals();  // built before the first token, not during it
}

antlr4::TokenFactory<antlr4::CommonToken>* Scanner::getTokenFactory() {
  return antlr4::CommonTokenFactory::DEFAULT.get();
}

std::unique_ptr<Token> Scanner::nextToken() {
  for (;;) {
    if (position_ >= units_.size()) {
      return getTokenFactory()->create(source_pair_, Token::EOF, "", Token::DEFAULT_CHANNEL, position_,
                                       position_ - 1, line_, getCharPositionInLine());
    }
    Match m = match();
    if (m.type == kSkipped) {
      advance_to(m.end);
      continue;
    }
    size_t start = position_;
    size_t line = line_;
    size_t column = getCharPositionInLine();
    advance_to(m.end);
    return getTokenFactory()->create(source_pair_, m.type, "", m.channel, start, m.end - 1, line, column);
  }
}

void Scanner::advance_to(size_t end) {
  const char* begin = units_.data();
  for (const char* at = begin + position_;;) {
    at = static_cast<const char*>(std::memchr(at, '\n', static_cast<size_t>(begin + end - at)));
    if (!at) break;
    ++line_;
    line_start_ = static_cast<size_t>(++at - begin);
  }
  position_ = end;
}

Scanner::Match Scanner::match() const {
  const std::string_view s = units_;
  const size_t i = position_;
  const unsigned char c = static_cast<unsigned char>(s[i]);
  const unsigned char next = i + 1 < s.size() ? static_cast<unsigned char>(s[i + 1]) : 0;
  if (is_space(c)) {
    size_t end = i + 1;
    while (end < s.size() && is_space(s[end])) ++end;
    return {end, kSkipped, Token::DEFAULT_CHANNEL};
  }
  if (starts_word(c)) return word();
  if (is_digit(c) || (c == '.' && is_digit(next))) return number();
  if (c == '"') return string_literal();
  if (c == '/' && next == '/') {
    size_t end = i + 2;
    while (end < s.size() && s[end] != '\n' && s[end] != '\r') ++end;
    return {end, kSkipped, Token::DEFAULT_CHANNEL};
  }
  if (c == '/' && next == '*') return block_comment();
  return punctuation();
}

// IDENT : [A-Za-z_] [A-Za-z0-9_]*, or the reserved word it spells (the
// reserved words come first in the grammar: they win the tie).
Scanner::Match Scanner::word() const {
  const std::string_view s = units_;
  size_t end = position_ + 1;
  while (end < s.size() && continues_word(s[end])) ++end;
  std::string_view text = s.substr(position_, end - position_);
  for (const Literal& word : literals()[static_cast<unsigned char>(text[0])]) {
    if (word.text == text) return {end, word.type, Token::DEFAULT_CHANNEL};
  }
  return {end, KDLexer::IDENT, Token::DEFAULT_CHANNEL};
}

// FLOAT : DIGITS '.' DIGITS EXPONENT? | '.' DIGITS EXPONENT? | DIGITS EXPONENT
// INT   : DIGITS | '0' [xX] HEX_DIGIT ('_'? HEX_DIGIT)*
// whichever is longer.
Scanner::Match Scanner::number() const {
  const std::string_view s = units_;
  const size_t i = position_;
  if (s[i] == '.') return {exponent_end(s, digits_end(s, i + 1)), KDLexer::FLOAT, Token::DEFAULT_CHANNEL};
  if (s[i] == '0' && i + 2 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X') && is_hex_digit(s[i + 2])) {
    return {separated_digits_end(s, i + 2, is_hex_digit), KDLexer::INT, Token::DEFAULT_CHANNEL};
  }
  size_t end = digits_end(s, i);
  if (end + 1 < s.size() && s[end] == '.' && is_digit(s[end + 1])) {
    return {exponent_end(s, digits_end(s, end + 1)), KDLexer::FLOAT, Token::DEFAULT_CHANNEL};
  }
  size_t exponent = exponent_end(s, end);
  if (exponent != end) return {exponent, KDLexer::FLOAT, Token::DEFAULT_CHANNEL};
  return {end, KDLexer::INT, Token::DEFAULT_CHANNEL};
}

// STRING : '"' (~["\\\r\n] | '\\' ~[\r\n])* '"'
// UNTERMINATED_STRING : '"' (~["\\\r\n] | '\\' ~[\r\n])* '\\'?  (on ERRORS)
Scanner::Match Scanner::string_literal() const {
  const std::string_view s = units_;
  size_t end = position_ + 1;
  while (end < s.size()) {
    char c = s[end];
    if (c == '"') return {end + 1, KDLexer::STRING, Token::DEFAULT_CHANNEL};
    if (c == '\r' || c == '\n') break;
    if (c == '\\') {
      if (end + 1 < s.size() && s[end + 1] != '\r' && s[end + 1] != '\n') {
        end += 2;
        continue;
      }
      ++end;  // the trailing '\\'?
      break;
    }
    ++end;
  }
  return {end, KDLexer::UNTERMINATED_STRING, KDLexer::ERRORS};
}

// BLOCK_COMMENT : '/*' .*? '*/'  (skipped), up to the first `*/`; without
// one, UNTERMINATED_COMMENT (on ERRORS) takes the rest of the text.
Scanner::Match Scanner::block_comment() const {
  size_t close = units_.find("*/", position_ + 2);
  if (close != std::string_view::npos) return {close + 2, kSkipped, Token::DEFAULT_CHANNEL};
  return {units_.size(), KDLexer::UNTERMINATED_COMMENT, KDLexer::ERRORS};
}

// The longest punctuation at position_; ERROR_CHAR (on ERRORS) for a
// character no rule starts with.
Scanner::Match Scanner::punctuation() const {
  const std::string_view rest = units_.substr(position_);
  const unsigned char c = static_cast<unsigned char>(rest[0]);
  if (c < 0x80) {
    for (const Literal& p : literals()[c]) {
      if (rest.compare(0, p.text.size(), p.text) == 0) return {position_ + p.text.size(), p.type, Token::DEFAULT_CHANNEL};
    }
  }
  return {position_ + 1, KDLexer::ERROR_CHAR, KDLexer::ERRORS};
}

}  // namespace kdt::syntax
