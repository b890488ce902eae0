// parse(Source) -> ast::File: lexing, the nesting guard, SLL-then-LL parsing.
#include <algorithm>
#include <cstdio>
#include <memory>

#include <ANTLRInputStream.h>
#include <BailErrorStrategy.h>
#include <CommonTokenStream.h>
#include <Exceptions.h>
#include <atn/ATN.h>
#include <atn/ATNState.h>
#include <atn/ParserATNSimulator.h>
#include <atn/PredictionMode.h>
#include <atn/Transition.h>
#include <misc/IntervalSet.h>

#include "KDLexer.h"
#include "KDParser.h"
#include "ast_builder.h"
#include "error_strategy.h"
#include "kdt/syntax/parse.h"
#include "source_text.h"

namespace kdt {

namespace {

using antlr4::Token;

// Reports the tokens the lexer put on its error channel.
void report_lexical_errors(const std::vector<Token*>& tokens, const syntax::TokenRanges& ranges,
                           const syntax::DecodedText& decoded, DiagnosticEngine& diags) {
  const std::string& text = diags.sources().file(ranges.file()).text;
  auto hex_byte = [&](uint32_t offset) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text[offset]));
    return std::string(hex);
  };
  // Stray characters: 0 an invalid UTF-8 byte, 1 a control character, 2 anything else.
  auto category = [&](const Token* t) {
    SourceRange r = ranges.of(t);
    unsigned char byte = static_cast<unsigned char>(text[r.begin]);
    if (std::binary_search(decoded.invalid_bytes.begin(), decoded.invalid_bytes.end(), r.begin)) return 0;
    return byte < 0x20 || byte == 0x7F ? 1 : 2;
  };
  const Token* previous = nullptr;  // the last token on the default channel
  for (size_t i = 0; i < tokens.size(); ++i) {
    Token* t = tokens[i];
    SourceRange r = ranges.of(t);
    if (t->getType() == KDLexer::STRING || t->getType() == KDLexer::UNTERMINATED_STRING) {
      // Template strings reach the emitted code: they must be valid UTF-8.
      auto bad = std::lower_bound(decoded.invalid_bytes.begin(), decoded.invalid_bytes.end(), r.begin);
      for (; bad != decoded.invalid_bytes.end() && *bad < r.end; ++bad) {
        diags.report(DiagCode::Syntax, SourceRange{r.file, *bad, *bad + 1}, "invalid UTF-8 byte " + hex_byte(*bad));
      }
    }
    if (t->getChannel() != KDLexer::ERRORS) {
      if (t->getChannel() == Token::DEFAULT_CHANNEL) previous = t;
      continue;
    }
    switch (t->getType()) {
      case KDLexer::UNTERMINATED_STRING:
        diags.report(DiagCode::Syntax, r, "unterminated string; strings end with `\"` on the same line");
        break;
      case KDLexer::UNTERMINATED_COMMENT:
        diags.report(DiagCode::Syntax, SourceRange{r.file, r.begin, r.begin + 2},
                     "unterminated block comment; `/*` has no matching `*/`");
        break;
      default: {
        unsigned char byte = static_cast<unsigned char>(text[r.begin]);
        SourceRange before = ranges.of(previous);
        if (byte == '.' && previous && previous->getType() == KDLexer::INT && before.end == r.begin) {
          // `1.`: the lexer stops before a `.` with no digit after it.
          diags.report(DiagCode::Syntax, SourceRange{r.file, before.begin, r.end},
                       "`" + previous->getText() + ".` is not a number; a `.` needs digits on both sides (write `" +
                           previous->getText() + ".0`)");
          break;
        }
        // `pl.program_id`, `jnp.dot`: Pallas's module prefixes.
        const Token* next = i + 1 < tokens.size() ? tokens[i + 1] : nullptr;
        if (byte == '.' && previous && previous->getType() == KDLexer::IDENT && before.end == r.begin && next &&
            next->getType() == KDLexer::IDENT && ranges.of(next).begin == r.end) {
          std::string kd_name;
          if (auto note = syntax::module_prefix_note(previous->getText(), next->getText(), kd_name)) {
            DiagnosticBuilder d = diags.report(DiagCode::Syntax, r, "unexpected character `.`");
            d.note(*note);
            if (!kd_name.empty()) d.fixit(SourceRange{r.file, before.begin, ranges.of(next).end}, kd_name);
            break;
          }
        }
        // A run of adjacent stray characters of one kind is one diagnostic
        // (`café` as a name, a Latin-1 word, a binary file).
        int kind = category(t);
        size_t last = i;
        while (last + 1 < tokens.size() && tokens[last + 1]->getType() == KDLexer::ERROR_CHAR &&
               ranges.of(tokens[last + 1]).begin == ranges.of(tokens[last]).end && category(tokens[last + 1]) == kind) {
          ++last;
        }
        SourceRange run{r.file, r.begin, ranges.of(tokens[last]).end};
        size_t count = last - i + 1;
        if (kind == 2) {
          // At most 8 characters in the message.
          uint32_t shown_end = ranges.of(tokens[std::min(last, i + 7)]).end;
          std::string chars = text.substr(run.begin, shown_end - run.begin) + (shown_end < run.end ? "..." : "");
          diags.report(DiagCode::Syntax, run, std::string(count == 1 ? "unexpected character `" : "unexpected characters `") +
                                                  chars + "`");
        } else {
          std::string bytes;
          for (size_t k = 0; k < count && k < 4; ++k) bytes += " " + hex_byte(run.begin + static_cast<uint32_t>(k));
          if (count > 4) bytes += " ...";
          std::string what = kind == 0 ? "invalid UTF-8 byte" : "unexpected control character";
          diags.report(DiagCode::Syntax, run, what + (count == 1 ? "" : "s") + bytes);
        }
        i = last;
      }
    }
  }
}

// What the lexer reads in place of every code point past U+007F.
constexpr char32_t kNonAsciiStandIn = 0x01;

// ANTLR's lexer caches the transitions of its DFA for code points 0-127
// only: every other code point (any non-ASCII character, and the U+FFFD of
// every malformed byte, which fuzzed input is full of) costs a fresh ATN
// simulation, with allocations, hashing and dynamic_casts. When no rule of
// the lexer names a code point past U+007F or the stand-in above (only
// wildcards and complements reach them), the lexer cannot tell any of
// them from the stand-in, so it reads the stand-in instead: the same tokens
// at the same code-point indices, from the DFA. Nothing reads token text
// that can hold one (strings, comments and error tokens are read from the
// source bytes). Checked on the lexer's ATN, once; should a rule name such a
// code point, the lexer reads the real text.
bool lexer_cannot_tell_non_ascii(const antlr4::atn::ATN& atn) {
  for (const antlr4::atn::ATNState* state : atn.states) {
    if (!state) continue;
    for (const antlr4::atn::Transition* t : state->transitions) {
      if (t->isEpsilon() || t->getSerializationType() == antlr4::atn::Transition::WILDCARD) continue;
      // Atoms, ranges, sets and complements of sets: the code points named.
      const ssize_t stand_in = kNonAsciiStandIn;
      const antlr4::misc::IntervalSet label = t->label();  // by value
      for (const antlr4::misc::Interval& i : label.getIntervals()) {
        if (i.b >= 0x80 || (i.a <= stand_in && stand_in <= i.b)) return false;
      }
    }
  }
  return true;
}

// The lexer's input with the stand-in: one code point per entry of
// decoded.byte_offset (a code point is ASCII when its first byte is).
// ANTLRInputStream's UTF-8 decoder drops a byte order mark that begins the
// text, so this does too: the tokens are exactly those of decoded.utf8.
class StandInStream : public antlr4::ANTLRInputStream {
 public:
  StandInStream(const std::string& text, const syntax::DecodedText& decoded) {
    const std::vector<uint32_t>& offsets = decoded.byte_offset;
    size_t first = decoded.utf8.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 1 : 0;
    _data.resize(offsets.size() - 1 - first);
    for (size_t k = 0; k < _data.size(); ++k) {
      unsigned char lead = static_cast<unsigned char>(text[offsets[first + k]]);
      _data[k] = lead < 0x80 ? lead : kNonAsciiStandIn;
    }
  }
};

// Whether the lexer may read the stand-in (computed once).
bool use_stand_in() {
  static const bool yes = [] {
    antlr4::ANTLRInputStream nothing;
    KDLexer lexer(&nothing);
    return lexer_cannot_tell_non_ascii(lexer.getATN());
  }();
  return yes;
}

std::string limit_note(const char* flag) { return std::string("raise the limit with ") + flag + "=N"; }

// `limit-exceeded` messages end with the flag and its value.
std::string limit_is(const char* flag, int64_t value) {
  return std::string("; the limit is ") + flag + "=" + std::to_string(value);
}

// The parser recurses once per nesting level, and every later stage once per
// level of the syntax tree, so input that would nest too deeply is refused
// here, before parsing, instead of overflowing the stack. A token's level
// counts the open brackets around it, the runs of prefix operators and the
// chains of `?:` and `else if` (both nest in the grammar), each bracket
// inheriting the level of the place where it opens; this bounds the depth of
// the recursion in the parser (--max-nesting). Binary operators and postfix
// indexings build left-deep trees without parser recursion: the tree of one
// statement is at most as deep as its nesting plus its number of operators,
// which --max-expression-terms bounds. Over-long literals are refused here too,
// before anything converts them.
bool check_limits(const std::vector<Token*>& tokens, const syntax::TokenRanges& ranges, DiagnosticEngine& diags,
                  const Limits& limits) {
  bool ok = true;
  for (Token* t : tokens) {
    size_t type = t->getType();
    if (type != KDLexer::INT && type != KDLexer::FLOAT && type != KDLexer::STRING &&
        type != KDLexer::UNTERMINATED_STRING) {
      continue;
    }
    SourceRange r = ranges.of(t);
    if (r.end - r.begin > limits.max_literal_length) {
      diags.report(DiagCode::LimitExceeded, r,
                   std::string(type == KDLexer::INT || type == KDLexer::FLOAT ? "number" : "string") + " literal of " +
                       std::to_string(r.end - r.begin) + " bytes" +
                       limit_is("--max-literal-length", limits.max_literal_length))
          .note(limit_note("--max-literal-length"));
      ok = false;
    }
  }
  if (!ok) return false;

  struct Level {
    int64_t base = 0;   // the level of the bracket that opened it
    int64_t chain = 0;  // `?` and `else if` links since the last `;` or `,`
    int64_t terms_before = 0;  // the enclosing statement's operators, for `{`
  };
  std::vector<Level> levels{Level{}};
  int64_t prefix_run = 0;
  int64_t terms = 0;  // binary operators and `[` of the current statement
  bool header = false;  // between `kernel`, `for` or `if` and its `{`
  size_t previous_type = Token::INVALID_TYPE;
  for (Token* t : tokens) {
    if (t->getChannel() != Token::DEFAULT_CHANNEL) continue;
    size_t type = t->getType();
    int64_t level = 0;
    switch (type) {
      case KDLexer::LPAREN: case KDLexer::LBRACK: case KDLexer::LBRACE: {
        const Level& outer = levels.back();
        level = outer.base + outer.chain + prefix_run + 1;
        // The statements of a body do not lie below its header's operators.
        if (type == KDLexer::LBRACE && header) terms = outer.terms_before;
        if (type == KDLexer::LBRACE) header = false;
        levels.push_back(Level{level, 0, terms});
        break;
      }
      case KDLexer::RPAREN: case KDLexer::RBRACK: case KDLexer::RBRACE:
        if (levels.size() > 1) levels.pop_back();
        break;
      case KDLexer::SEMI: case KDLexer::COMMA:
        levels.back().chain = 0;
        break;
      case KDLexer::QUESTION:
        ++levels.back().chain;
        break;
      case KDLexer::IF:
        if (previous_type == KDLexer::ELSE) ++levels.back().chain;
        else levels.back().chain = 0;
        break;
      default: break;
    }
    bool prefix = (type == KDLexer::MINUS || type == KDLexer::BANG || type == KDLexer::TILDE) &&
                  (previous_type == KDLexer::MINUS || previous_type == KDLexer::BANG ||
                   previous_type == KDLexer::TILDE || previous_type == KDLexer::LPAREN ||
                   previous_type == KDLexer::ASSIGN || prefix_run > 0);
    prefix_run = prefix ? prefix_run + 1 : 0;
    level = std::max(level, levels.back().base + levels.back().chain + prefix_run);
    if (level > limits.max_nesting) {
      diags.report(DiagCode::NestingTooDeep, ranges.of(t),
                   "nesting deeper than " + std::to_string(limits.max_nesting) + " levels")
          .note(limit_note("--max-nesting"));
      return false;
    }
    // A statement ends at `;` and a new one starts at `kernel`, `for` and
    // `if`; statements inside a `{ }` (an asm fallback) count on top of the
    // statement around them.
    switch (type) {
      case KDLexer::SEMI: case KDLexer::KERNEL: case KDLexer::FOR: case KDLexer::IF:
        terms = levels.back().terms_before;
        header = type != KDLexer::SEMI;
        break;
      case KDLexer::STAR: case KDLexer::SLASH: case KDLexer::PERCENT: case KDLexer::PLUS: case KDLexer::MINUS:
      case KDLexer::SHL: case KDLexer::SHR: case KDLexer::AMP: case KDLexer::CARET: case KDLexer::PIPE:
      case KDLexer::LT: case KDLexer::LE: case KDLexer::GT: case KDLexer::GE: case KDLexer::EQ: case KDLexer::NE:
      case KDLexer::AND: case KDLexer::OR: case KDLexer::LBRACK:
        if (++terms > limits.max_expression_terms) {
          diags.report(DiagCode::LimitExceeded, ranges.of(t),
                       "more than " + std::to_string(limits.max_expression_terms) + " operators in one statement" +
                           limit_is("--max-expression-terms", limits.max_expression_terms))
              .note("split the expression with `let` bindings, or " + limit_note("--max-expression-terms"));
          return false;
        }
        break;
      default: break;
    }
    previous_type = type;
  }
  return true;
}

}  // namespace

std::optional<ast::File> parse_file(const SourceManager& sources, FileId file, DiagnosticEngine& diags,
                                    const ParseOptions& options) {
  const std::string& text = sources.file(file).text;
  syntax::DecodedText decoded = syntax::decode_source(text);
  syntax::TokenRanges ranges(file, decoded);
  size_t errors_before = diags.error_count();

  std::unique_ptr<antlr4::ANTLRInputStream> input;
  if (use_stand_in()) input = std::make_unique<StandInStream>(text, decoded);
  else input = std::make_unique<antlr4::ANTLRInputStream>(decoded.utf8);
  KDLexer lexer(input.get());
  lexer.removeErrorListeners();
  antlr4::CommonTokenStream tokens(&lexer);
  tokens.fill();
  report_lexical_errors(tokens.getTokens(), ranges, decoded, diags);
  // A syntax error at the token right after a lexical error only echoes it.
  std::vector<bool> quiet(tokens.getTokens().size(), false);
  bool after_error = false;
  for (Token* t : tokens.getTokens()) {
    if (t->getChannel() == KDLexer::ERRORS) {
      after_error = true;
    } else if (t->getChannel() == Token::DEFAULT_CHANNEL) {
      quiet[t->getTokenIndex()] = after_error;
      after_error = false;
    }
  }
  if (!check_limits(tokens.getTokens(), ranges, diags, options.limits)) return std::nullopt;

  KDParser parser(&tokens);
  parser.removeErrorListeners();
  ast::File out;
  out.file = file;
  // One top-level item at a time: its AST is built and its parse tree
  // freed before the next is parsed, so the front end holds one item's
  // tree, not the whole file's (issue 17). SLL is enough for almost every
  // input and much faster; full LL only runs again when SLL fails, to get
  // exact errors, and builds only the items SLL did not reach.
  parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::SLL);
  parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  size_t built = 0;
  try {
    while (tokens.LA(1) != Token::EOF) {
      KDParser::TopItemContext* item = parser.topItem();
      syntax::build_item(item, ranges, text, diags, out);
      parser.getTreeTracker().reset();
      ++built;
    }
  } catch (const antlr4::ParseCancellationException&) {
    parser.getTreeTracker().reset();
    tokens.seek(0);
    parser.reset();
    parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::LL);
    auto strategy = std::make_shared<syntax::KdErrorStrategy>(diags, ranges);
    strategy->set_quiet_tokens(std::move(quiet));
    parser.setErrorHandler(strategy);
    KDParser::FileContext* tree = parser.file();
    if (diags.error_count() != errors_before) return std::nullopt;
    const std::vector<KDParser::TopItemContext*> items = tree->topItem();
    for (size_t i = built; i < items.size(); ++i) syntax::build_item(items[i], ranges, text, diags, out);
  }
  if (diags.error_count() != errors_before) return std::nullopt;
  return out;
}

}  // namespace kdt
