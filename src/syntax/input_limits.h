// The limits on the input checked before the parser sees it
// (--max-literal-length, --max-nesting, --max-expression-terms).
#pragma once

#include <Token.h>

#include <cstdint>
#include <vector>

#include "kdt/limits.h"
#include "source_text.h"

namespace kdt::syntax {

// The parser recurses once per nesting level, and every later stage once per
// level of the syntax tree, so input that would nest too deeply is refused
// before parsing, instead of overflowing the stack. A token's level counts
// the open brackets around it, the runs of prefix operators and the chains
// of `?:` and `else if` (both nest in the grammar), each bracket inheriting
// the level of the place where it opens; this bounds the depth of the
// recursion in the parser (--max-nesting). Binary operators and postfix
// indexings build left-deep trees without parser recursion: the tree of one
// statement is at most as deep as its nesting plus its number of operators,
// which --max-expression-terms bounds. Over-long literals are refused too,
// before anything converts them.
class InputLimits {
 public:
  enum class Verdict { Ok, TooDeep, TooManyTerms };

  explicit InputLimits(const Limits& limits) : limits_(limits) {}

  // Whether a number or string literal is within --max-literal-length (any
  // other token is).
  bool literal_fits(const antlr4::Token& token, const TokenRanges& ranges) const;
  // The nesting and operator count at the next token, in file order (tokens
  // off the default channel are passed over).
  Verdict step(const antlr4::Token& token);

 private:
  struct Level {
    int64_t base = 0;          // the level of the bracket that opened it
    int64_t chain = 0;         // `?` and `else if` links since the last `;` or `,`
    int64_t terms_before = 0;  // the enclosing statement's operators, for `{`
  };
  const Limits& limits_;
  std::vector<Level> levels_{Level{}};
  int64_t prefix_run_ = 0;
  int64_t terms_ = 0;    // binary operators and `[` of the current statement
  bool header_ = false;  // between `kernel`, `for` or `if` and its `{`
  size_t previous_type_ = antlr4::Token::INVALID_TYPE;
};

// Reports every over-long literal, or else the first token nested too deep
// or with too many operators in its statement; false when it reported.
bool check_limits(const std::vector<antlr4::Token*>& tokens, const TokenRanges& ranges, DiagnosticEngine& diags,
                  const Limits& limits);

}  // namespace kdt::syntax
