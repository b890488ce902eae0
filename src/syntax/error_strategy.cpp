#include "error_strategy.h"

#include <InputMismatchException.h>
#include <NoViableAltException.h>
#include <Parser.h>
#include <Vocabulary.h>

#include "KDParser.h"

namespace kdt::syntax {

namespace {

std::string describe_token_type(const antlr4::dfa::Vocabulary& vocabulary, size_t type) {
  switch (type) {
    case antlr4::Token::EOF: return "end of file";
    case KDParser::IDENT: return "a name";
    case KDParser::INT: return "an integer";
    case KDParser::FLOAT: return "a number";
    case KDParser::STRING: return "a string";
    default: break;
  }
  std::string literal = vocabulary.getLiteralName(type);
  if (literal.size() >= 2 && literal.front() == '\'') literal = literal.substr(1, literal.size() - 2);
  return "`" + literal + "`";
}

std::string describe_token(const antlr4::dfa::Vocabulary&, const antlr4::Token* token) {
  if (!token || token->getType() == antlr4::Token::EOF) return "end of file";
  std::string text = token->getText();
  if (text.size() > 24) text = text.substr(0, 24) + "...";
  switch (token->getType()) {
    case KDParser::IDENT: return "name `" + text + "`";
    case KDParser::INT:
    case KDParser::FLOAT: return "number `" + text + "`";
    case KDParser::STRING: return "string";
    default: return "`" + text + "`";
  }
}

bool starts_expression(size_t type) {
  switch (type) {
    case KDParser::INT: case KDParser::FLOAT: case KDParser::IDENT: case KDParser::LPAREN:
    case KDParser::MINUS: case KDParser::BANG: case KDParser::TILDE: case KDParser::TRUE:
    case KDParser::FALSE: case KDParser::INF: case KDParser::NAN: case KDParser::ASM:
      return true;
    default: return false;
  }
}

// Tokens that close something: when one is missing, the error belongs at
// the end of the previous token, not at whatever follows.
bool is_closing(size_t type) {
  return type == KDParser::SEMI || type == KDParser::RPAREN || type == KDParser::RBRACK ||
         type == KDParser::RBRACE || type == KDParser::COLON || type == KDParser::ASSIGN;
}

std::string describe_expected(const antlr4::dfa::Vocabulary& vocabulary, const antlr4::misc::IntervalSet& set) {
  std::vector<size_t> types;
  bool expression = false;
  for (ssize_t t : set.toList()) {
    if (starts_expression(static_cast<size_t>(t))) expression = true;
    else types.push_back(static_cast<size_t>(t));
  }
  std::vector<std::string> words;
  if (expression) words.push_back("an expression");
  if (types.size() + words.size() > 4) {
    // A long list helps nobody; name the most useful few.
    if (expression) return "an expression";
    return "";
  }
  for (size_t t : types) words.push_back(describe_token_type(vocabulary, t));
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i) out += i + 1 == words.size() ? " or " : ", ";
    out += words[i];
  }
  return out;
}

// A `;` is what is missing when the next token is on a later line or can
// only begin a new statement or declaration.
bool starts_new_statement(const antlr4::Token* previous, const antlr4::Token* next) {
  if (!next || next->getType() == antlr4::Token::EOF) return true;
  if (next->getLine() > previous->getLine()) return true;
  switch (next->getType()) {
    case KDParser::RBRACE: case KDParser::LET: case KDParser::VAR: case KDParser::FOR: case KDParser::IF:
    case KDParser::SCRATCH: case KDParser::SEM: case KDParser::ASSERT: case KDParser::KERNEL:
    case KDParser::CONST: case KDParser::INCLUDE:
      return true;
    default: return false;
  }
}

// Where in the program the parser was, for "after the statement" and friends.
std::string context_phrase(antlr4::Parser* parser) {
  antlr4::ParserRuleContext* ctx = parser->getContext();
  while (ctx) {
    switch (ctx->getRuleIndex()) {
      case KDParser::RuleStmt: return " after the statement";
      case KDParser::RuleConstDecl: return " after the constant declaration";
      case KDParser::RuleIncludeDecl: return " after the include";
      case KDParser::RuleParam: return " in the parameter";
      case KDParser::RuleKernelAttr: return " in the kernel attribute";
      case KDParser::RuleAsmBlock: return " in the asm block";
      default: break;
    }
    ctx = dynamic_cast<antlr4::ParserRuleContext*>(ctx->parent);
  }
  return "";
}

}  // namespace

bool KdErrorStrategy::quiet(const antlr4::Token* offending) const {
  return offending && offending->getTokenIndex() < quiet_.size() && quiet_[offending->getTokenIndex()];
}

void KdErrorStrategy::expected_at(antlr4::Parser* parser, const antlr4::Token* offending,
                                  const antlr4::misc::IntervalSet& expected) {
  if (quiet(offending)) return;
  const antlr4::dfa::Vocabulary& vocabulary = parser->getVocabulary();
  std::string wanted = describe_expected(vocabulary, expected);
  const antlr4::Token* previous = parser->getTokenStream()->LT(-1);
  if (expected.contains(static_cast<size_t>(KDParser::SEMI)) && previous && starts_new_statement(previous, offending)) {
    diags_.report(DiagCode::Syntax, ranges_.after(previous), "expected `;`" + context_phrase(parser));
    return;
  }
  if (expected.size() == 1 && is_closing(static_cast<size_t>(expected.getMinElement()))) {
    std::string phrase = expected.getMinElement() == KDParser::SEMI ? context_phrase(parser) : "";
    diags_.report(DiagCode::Syntax, previous ? ranges_.after(previous) : ranges_.of(offending),
                  "expected " + wanted + phrase);
    return;
  }
  std::string message = "unexpected " + describe_token(vocabulary, offending);
  if (!wanted.empty()) message += "; expected " + wanted;
  diags_.report(DiagCode::Syntax, ranges_.of(offending), message);
}

void KdErrorStrategy::reportNoViableAlternative(antlr4::Parser* parser, const antlr4::NoViableAltException& e) {
  const antlr4::Token* offending = e.getOffendingToken();
  if (quiet(offending)) return;
  std::string message = "unexpected " + describe_token(parser->getVocabulary(), offending);
  antlr4::ParserRuleContext* ctx = parser->getContext();
  if (ctx && (ctx->getRuleIndex() == KDParser::RuleExpr || ctx->getRuleIndex() == KDParser::RulePrimary)) {
    message += "; expected an expression";
  } else if (ctx && ctx->getRuleIndex() == KDParser::RuleStmt) {
    message += "; expected a statement";
  }
  diags_.report(DiagCode::Syntax, ranges_.of(offending), message);
}

void KdErrorStrategy::reportInputMismatch(antlr4::Parser* parser, const antlr4::InputMismatchException& e) {
  expected_at(parser, e.getOffendingToken(), e.getExpectedTokens());
}

void KdErrorStrategy::reportFailedPredicate(antlr4::Parser* parser, const antlr4::FailedPredicateException& e) {
  if (quiet(e.getOffendingToken())) return;
  diags_.report(DiagCode::Syntax, ranges_.of(e.getOffendingToken()),
                "unexpected " + describe_token(parser->getVocabulary(), e.getOffendingToken()));
}

void KdErrorStrategy::reportUnwantedToken(antlr4::Parser* parser) {
  if (inErrorRecoveryMode(parser)) return;
  beginErrorCondition(parser);
  const antlr4::Token* token = parser->getCurrentToken();
  if (quiet(token)) return;
  std::string message = "unexpected " + describe_token(parser->getVocabulary(), token);
  std::string wanted = describe_expected(parser->getVocabulary(), getExpectedTokens(parser));
  if (!wanted.empty()) message += "; expected " + wanted;
  diags_.report(DiagCode::Syntax, ranges_.of(token), message);
}

void KdErrorStrategy::reportMissingToken(antlr4::Parser* parser) {
  if (inErrorRecoveryMode(parser)) return;
  beginErrorCondition(parser);
  expected_at(parser, parser->getCurrentToken(), getExpectedTokens(parser));
}

}  // namespace kdt::syntax
