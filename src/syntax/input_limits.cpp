#include "input_limits.h"

#include <algorithm>
#include <string>

#include "KDLexer.h"

namespace kdt::syntax {

namespace {

std::string limit_note(const char* flag) { return std::string("raise the limit with ") + flag + "=N"; }

// `limit-exceeded` messages end with the flag and its value.
std::string limit_is(const char* flag, int64_t value) {
  return std::string("; the limit is ") + flag + "=" + std::to_string(value);
}

bool is_literal(size_t type) {
  return type == KDLexer::INT || type == KDLexer::FLOAT || type == KDLexer::STRING ||
         type == KDLexer::UNTERMINATED_STRING;
}

}  // namespace

bool InputLimits::literal_fits(const antlr4::Token& token, const TokenRanges& ranges) const {
  if (!is_literal(token.getType())) return true;
  SourceRange r = ranges.of(&token);
  return r.end - r.begin <= limits_.max_literal_length;
}

InputLimits::Verdict InputLimits::step(const antlr4::Token& token) {
  if (token.getChannel() != antlr4::Token::DEFAULT_CHANNEL) return Verdict::Ok;
  size_t type = token.getType();
  int64_t level = 0;
  switch (type) {
    case KDLexer::LPAREN: case KDLexer::LBRACK: case KDLexer::LBRACE: {
      const Level& outer = levels_.back();
      level = outer.base + outer.chain + prefix_run_ + 1;
      // The statements of a body do not lie below its header's operators.
      if (type == KDLexer::LBRACE && header_) terms_ = outer.terms_before;
      if (type == KDLexer::LBRACE) header_ = false;
      levels_.push_back(Level{level, 0, terms_});
      break;
    }
    case KDLexer::RPAREN: case KDLexer::RBRACK: case KDLexer::RBRACE:
      if (levels_.size() > 1) levels_.pop_back();
      break;
    case KDLexer::SEMI: case KDLexer::COMMA:
      levels_.back().chain = 0;
      break;
    case KDLexer::QUESTION:
      ++levels_.back().chain;
      break;
    case KDLexer::IF:
      if (previous_type_ == KDLexer::ELSE) ++levels_.back().chain;
      else levels_.back().chain = 0;
      break;
    default: break;
  }
  bool prefix = (type == KDLexer::MINUS || type == KDLexer::BANG || type == KDLexer::TILDE) &&
                (previous_type_ == KDLexer::MINUS || previous_type_ == KDLexer::BANG ||
                 previous_type_ == KDLexer::TILDE || previous_type_ == KDLexer::LPAREN ||
                 previous_type_ == KDLexer::ASSIGN || prefix_run_ > 0);
  prefix_run_ = prefix ? prefix_run_ + 1 : 0;
  level = std::max(level, levels_.back().base + levels_.back().chain + prefix_run_);
  if (level > limits_.max_nesting) return Verdict::TooDeep;
  // A statement ends at `;` and a new one starts at `kernel`, `for` and
  // `if`; statements inside a `{ }` (an asm fallback) count on top of the
  // statement around them.
  switch (type) {
    case KDLexer::SEMI: case KDLexer::KERNEL: case KDLexer::FOR: case KDLexer::IF:
      terms_ = levels_.back().terms_before;
      header_ = type != KDLexer::SEMI;
      break;
    case KDLexer::STAR: case KDLexer::SLASH: case KDLexer::PERCENT: case KDLexer::PLUS: case KDLexer::MINUS:
    case KDLexer::SHL: case KDLexer::SHR: case KDLexer::AMP: case KDLexer::CARET: case KDLexer::PIPE:
    case KDLexer::LT: case KDLexer::LE: case KDLexer::GT: case KDLexer::GE: case KDLexer::EQ: case KDLexer::NE:
    case KDLexer::AND: case KDLexer::OR: case KDLexer::LBRACK:
      if (++terms_ > limits_.max_expression_terms) return Verdict::TooManyTerms;
      break;
    default: break;
  }
  previous_type_ = type;
  return Verdict::Ok;
}

bool check_limits(const std::vector<antlr4::Token*>& tokens, const TokenRanges& ranges, DiagnosticEngine& diags,
                  const Limits& limits) {
  InputLimits input(limits);
  bool ok = true;
  for (const antlr4::Token* t : tokens) {
    if (input.literal_fits(*t, ranges)) continue;
    SourceRange r = ranges.of(t);
    bool number = t->getType() == KDLexer::INT || t->getType() == KDLexer::FLOAT;
    diags.report(DiagCode::LimitExceeded, r,
                 std::string(number ? "number" : "string") + " literal of " + std::to_string(r.end - r.begin) +
                     " bytes" + limit_is("--max-literal-length", limits.max_literal_length))
        .note(limit_note("--max-literal-length"));
    ok = false;
  }
  if (!ok) return false;
  for (const antlr4::Token* t : tokens) {
    switch (input.step(*t)) {
      case InputLimits::Verdict::Ok: break;
      case InputLimits::Verdict::TooDeep:
        diags.report(DiagCode::NestingTooDeep, ranges.of(t),
                     "nesting deeper than " + std::to_string(limits.max_nesting) + " levels")
            .note(limit_note("--max-nesting"));
        return false;
      case InputLimits::Verdict::TooManyTerms:
        diags.report(DiagCode::LimitExceeded, ranges.of(t),
                     "more than " + std::to_string(limits.max_expression_terms) + " operators in one statement" +
                         limit_is("--max-expression-terms", limits.max_expression_terms))
            .note("split the expression with `let` bindings, or " + limit_note("--max-expression-terms"));
        return false;
    }
  }
  return true;
}

}  // namespace kdt::syntax
