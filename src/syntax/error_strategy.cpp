#include "error_strategy.h"

#include <InputMismatchException.h>
#include <NoViableAltException.h>
#include <Parser.h>
#include <Vocabulary.h>

#include <algorithm>

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

// The source text of tokens `first`..`last`.
std::string source_of(const DiagnosticEngine& diags, const TokenRanges& ranges, const antlr4::Token* first,
                      const antlr4::Token* last) {
  SourceRange r = ranges.between(first, last);
  return diags.sources().file(r.file).text.substr(r.begin, r.end - r.begin);
}

bool ends_operand(size_t type) {
  return type == KDParser::IDENT || type == KDParser::RBRACK || type == KDParser::RPAREN || type == KDParser::INT ||
         type == KDParser::FLOAT;
}

}  // namespace

std::optional<std::string> module_prefix_note(const std::string& module, const std::string& name, std::string& kd_name) {
  static const char* const modules[] = {"pl", "pltpu", "plgpu", "jnp", "jax", "lax", "np", "numpy"};
  if (std::find(std::begin(modules), std::end(modules), module) == std::end(modules)) return std::nullopt;
  // KD built-ins under their own names (spec section 9), and JAX names KD
  // spells differently.
  static const char* const same[] = {"program_id", "num_programs", "ds",   "dot",     "zeros",   "ones",    "full",
                                     "exp",        "log",          "sqrt", "rsqrt",   "tanh",    "sin",     "cos",
                                     "abs",        "floor",        "ceil", "maximum", "minimum", "where",   "sum",
                                     "max",        "min",          "reshape", "transpose", "load", "store", "cdiv"};
  static const std::pair<const char*, const char*> renamed[] = {
      {"matmul", "dot"},           {"broadcast_to", "broadcast"}, {"float32", "f32"},   {"float16", "f16"},
      {"bfloat16", "bf16"},        {"float64", "f64"},            {"int8", "i8"},       {"int16", "i16"},
      {"int32", "i32"},            {"int64", "i64"},              {"uint8", "u8"},      {"uint16", "u16"},
      {"uint32", "u32"},           {"uint64", "u64"},             {"bool_", "bool"},    {"semaphore_signal", "sem_signal"},
      {"semaphore_wait", "sem_wait"}, {"semaphore_read", "sem_read"}, {"async_copy", "dma_start"},
      {"make_async_copy", "dma"},  {"make_async_remote_copy", "dma"}};
  kd_name.clear();
  if (std::find(std::begin(same), std::end(same), name) != std::end(same)) kd_name = name;
  for (const auto& [jax, kd] : renamed) {
    if (name == jax) kd_name = kd;
  }
  if (kd_name.empty()) {
    return "KD has no modules: its built-ins are plain names (`program_id`, `ds`, `dot`, ...), without `" + module +
           ".`";
  }
  return "KD has no modules: `" + module + "." + name + "` is `" + kd_name + "` in KD";
}

void KdErrorStrategy::report(antlr4::Parser* parser, const antlr4::Token* offending, SourceRange range,
                             std::string message) {
  DiagnosticBuilder d = diags_.report(DiagCode::Syntax, range, std::move(message));
  if (!offending) return;
  const antlr4::Token* previous = parser->getTokenStream()->LT(-1);
  if (offending->getType() == KDParser::AT && previous && ends_operand(previous->getType())) {
    d.note("KD has no `@` operator: a matrix product is `dot(a, b)`");
    return;
  }
  // `for i in range(n)`: the loop's first bound is a call of `range`.
  for (antlr4::tree::ParseTree* ctx = parser->getContext(); ctx; ctx = ctx->parent) {
    auto* loop = dynamic_cast<KDParser::ForStmtContext*>(ctx);
    if (!loop) continue;
    if (loop->expr().empty()) return;
    auto* primary = dynamic_cast<KDParser::PrimaryExprContext*>(loop->expr(0));
    auto* call = primary ? dynamic_cast<KDParser::CallExprContext*>(primary->primary()) : nullptr;
    if (!call || call->callee->getText() != "range" || !call->RPAREN()) return;
    d.note("a KD loop is `for i in A..B { ... }`: `range(n)` is `0..n`, `range(a, b)` is `a..b`, "
           "`range(a, b, s)` is `a..b step s`");
    std::vector<std::string> args;
    for (KDParser::ArgContext* a : call->arg()) {
      if (!dynamic_cast<KDParser::PositionalArgContext*>(a)) return;
      args.push_back(source_of(diags_, ranges_, a->getStart(), a->getStop()));
    }
    std::string kd = args.size() == 1   ? "0.." + args[0]
                     : args.size() == 2 ? args[0] + ".." + args[1]
                     : args.size() == 3 ? args[0] + ".." + args[1] + " step " + args[2]
                                        : "";
    if (!kd.empty()) d.fixit(ranges_.between(call->getStart(), call->getStop()), kd);
    return;
  }
}

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
    report(parser, offending, ranges_.after(previous), "expected `;`" + context_phrase(parser));
    return;
  }
  if (expected.size() == 1 && is_closing(static_cast<size_t>(expected.getMinElement()))) {
    std::string phrase = expected.getMinElement() == KDParser::SEMI ? context_phrase(parser) : "";
    report(parser, offending, previous ? ranges_.after(previous) : ranges_.of(offending), "expected " + wanted + phrase);
    return;
  }
  std::string message = "unexpected " + describe_token(vocabulary, offending);
  if (!wanted.empty()) message += "; expected " + wanted;
  report(parser, offending, ranges_.of(offending), message);
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
  report(parser, offending, ranges_.of(offending), message);
}

void KdErrorStrategy::reportInputMismatch(antlr4::Parser* parser, const antlr4::InputMismatchException& e) {
  expected_at(parser, e.getOffendingToken(), e.getExpectedTokens());
}

void KdErrorStrategy::reportFailedPredicate(antlr4::Parser* parser, const antlr4::FailedPredicateException& e) {
  if (quiet(e.getOffendingToken())) return;
  report(parser, e.getOffendingToken(), ranges_.of(e.getOffendingToken()),
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
  report(parser, token, ranges_.of(token), message);
}

void KdErrorStrategy::reportMissingToken(antlr4::Parser* parser) {
  if (inErrorRecoveryMode(parser)) return;
  beginErrorCondition(parser);
  expected_at(parser, parser->getCurrentToken(), getExpectedTokens(parser));
}

}  // namespace kdt::syntax
