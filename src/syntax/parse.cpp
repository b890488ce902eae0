// parse(Source) -> ast::File: lexing, the nesting guard, SLL-then-LL parsing.
#include <algorithm>
#include <cstdio>

#include <ANTLRInputStream.h>
#include <BailErrorStrategy.h>
#include <CommonTokenStream.h>
#include <Exceptions.h>
#include <atn/ParserATNSimulator.h>
#include <atn/PredictionMode.h>

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

// The parser recurses once per nesting level, so deep input is refused
// before parsing instead of overflowing the stack. Counted: open brackets,
// runs of prefix operators and chains of `?` (right-associative).
bool check_nesting(const std::vector<Token*>& tokens, const syntax::TokenRanges& ranges, DiagnosticEngine& diags,
                   int max_nesting) {
  std::vector<int> ternaries_at_depth{0};
  int depth = 0;
  int prefix_run = 0;
  size_t previous_type = Token::INVALID_TYPE;
  for (Token* t : tokens) {
    if (t->getChannel() != Token::DEFAULT_CHANNEL) continue;
    size_t type = t->getType();
    int level = 0;
    switch (type) {
      case KDLexer::LPAREN: case KDLexer::LBRACK: case KDLexer::LBRACE:
        ++depth;
        ternaries_at_depth.push_back(0);
        level = depth;
        break;
      case KDLexer::RPAREN: case KDLexer::RBRACK: case KDLexer::RBRACE:
        if (depth > 0) {
          --depth;
          ternaries_at_depth.pop_back();
        }
        break;
      case KDLexer::SEMI: case KDLexer::COMMA:
        ternaries_at_depth.back() = 0;
        break;
      case KDLexer::QUESTION:
        level = depth + ++ternaries_at_depth.back();
        break;
      default: break;
    }
    bool prefix = (type == KDLexer::MINUS || type == KDLexer::BANG || type == KDLexer::TILDE) &&
                  (previous_type == KDLexer::MINUS || previous_type == KDLexer::BANG ||
                   previous_type == KDLexer::TILDE || previous_type == KDLexer::LPAREN ||
                   previous_type == KDLexer::ASSIGN || prefix_run > 0);
    prefix_run = prefix ? prefix_run + 1 : 0;
    level = std::max(level, depth + prefix_run + ternaries_at_depth.back());
    if (level > max_nesting) {
      diags.report(DiagCode::NestingTooDeep, ranges.of(t),
                   "nesting deeper than " + std::to_string(max_nesting) + " levels")
          .note("raise the limit with --max-nesting=N");
      return false;
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

  antlr4::ANTLRInputStream input(decoded.utf8);
  KDLexer lexer(&input);
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
  if (!check_nesting(tokens.getTokens(), ranges, diags, options.max_nesting)) return std::nullopt;

  KDParser parser(&tokens);
  parser.removeErrorListeners();
  // SLL is enough for almost every input and much faster; full LL only
  // runs again when SLL fails, to get exact errors.
  parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::SLL);
  parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  KDParser::FileContext* tree = nullptr;
  try {
    tree = parser.file();
  } catch (const antlr4::ParseCancellationException&) {
    tokens.seek(0);
    parser.reset();
    parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::LL);
    auto strategy = std::make_shared<syntax::KdErrorStrategy>(diags, ranges);
    strategy->set_quiet_tokens(std::move(quiet));
    parser.setErrorHandler(strategy);
    tree = parser.file();
  }
  if (diags.error_count() != errors_before) return std::nullopt;
  ast::File out = syntax::build_ast(tree, ranges, text, diags);
  if (diags.error_count() != errors_before) return std::nullopt;
  return out;
}

}  // namespace kdt
