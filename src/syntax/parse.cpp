// parse(Source) -> ast::File: lexing, the input limits, SLL parsing one item
// at a time, and full LL where SLL fails, for exact syntax errors.
#include <algorithm>
#include <cstdio>
#include <memory>

#include <BailErrorStrategy.h>
#include <CommonTokenStream.h>
#include <Exceptions.h>
#include <atn/ParserATNSimulator.h>
#include <atn/PredictionMode.h>

#include "KDLexer.h"
#include "KDParser.h"
#include "ast_builder.h"
#include "error_strategy.h"
#include "input_limits.h"
#include "scanner.h"
#include "kdt/syntax/parse.h"
#include "source_text.h"
#include "token_stream.h"
#include "unlocked_simulators.h"

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

// How far parsing got: the items built, and the file-wide index of the
// first token of the next.
struct ParseProgress {
  size_t items = 0;
  size_t next_token = 0;
};

// Both parses' parser, as each starts: kdt's simulator, SLL prediction that
// bails at the first syntax error.
void prepare_sll(KDParser& parser) {
  parser.removeErrorListeners();
  syntax::use_unlocked_simulators(parser);
  parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::SLL);
  parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
}

// The common case, in the memory of one item's tokens (issue 17): SLL
// prediction, which is enough for almost every input and much faster; each
// item's AST built, and its parse tree and tokens freed, before the next is
// lexed and parsed. Stops at the first syntax error or the first token that
// needs a diagnostic (a lexical error, a literal or nesting over the
// limits), which parse_buffered reports; true when it reached the end.
bool parse_streaming(const std::string& text, const syntax::DecodedText& decoded, const syntax::TokenRanges& ranges,
                     DiagnosticEngine& diags, const ParseOptions& options, ast::File& out, ParseProgress& progress) {
  // Strings holding a malformed byte are diagnosed.
  if (!decoded.invalid_bytes.empty()) return false;
  std::unique_ptr<syntax::ByteCharStream> input = syntax::scanner_input(text, decoded);
  syntax::Scanner scanner(*input);
  syntax::InputLimits limits(options.limits);
  syntax::AdmittingTokenSource source(scanner, [&](const Token& t) {
    return t.getChannel() != KDLexer::ERRORS && limits.literal_fits(t, ranges) &&
           limits.step(t) == syntax::InputLimits::Verdict::Ok;
  });
  syntax::ForgetfulTokenStream tokens(&source);
  KDParser parser(&tokens);
  prepare_sll(parser);
  try {
    while (tokens.LA(1) != Token::EOF) {
      KDParser::TopItemContext* item = parser.topItem();
      syntax::build_item(item, ranges, text, diags, out);
      parser.getTreeTracker().reset();
      tokens.forget_consumed();
      ++progress.items;
      progress.next_token = tokens.file_index();
    }
    return true;
  } catch (const antlr4::ParseCancellationException&) {
  } catch (const syntax::TokenRefused&) {
  }
  return false;
}

// Every token in memory: reports the lexical errors and the limits, then
// parses on from `progress` with SLL, and after a syntax error the whole
// file again with full LL, for exact messages, building the items not built
// yet, unless an error was reported since `errors_before`.
void parse_buffered(const std::string& text, const syntax::DecodedText& decoded, const syntax::TokenRanges& ranges,
                    DiagnosticEngine& diags, const ParseOptions& options, ast::File& out, ParseProgress progress,
                    size_t errors_before) {
  std::unique_ptr<syntax::ByteCharStream> input = syntax::scanner_input(text, decoded);
  syntax::Scanner scanner(*input);
  antlr4::CommonTokenStream tokens(&scanner);
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
  if (!syntax::check_limits(tokens.getTokens(), ranges, diags, options.limits)) return;

  KDParser parser(&tokens);
  prepare_sll(parser);
  try {
    tokens.seek(progress.next_token);
    while (tokens.LA(1) != Token::EOF) {
      KDParser::TopItemContext* item = parser.topItem();
      syntax::build_item(item, ranges, text, diags, out);
      parser.getTreeTracker().reset();
      ++progress.items;
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
    if (diags.error_count() != errors_before) return;
    const std::vector<KDParser::TopItemContext*> items = tree->topItem();
    for (size_t i = progress.items; i < items.size(); ++i) syntax::build_item(items[i], ranges, text, diags, out);
  }
}

}  // namespace

std::optional<ast::File> parse_file(const SourceManager& sources, FileId file, DiagnosticEngine& diags,
                                    const ParseOptions& options) {
  std::lock_guard<std::mutex> hold(syntax::parse_lock());
  const std::string& text = sources.file(file).text;
  syntax::DecodedText decoded = syntax::decode_source(text);
  syntax::TokenRanges ranges(file, decoded);
  size_t errors_before = diags.error_count();
  ast::File out;
  out.file = file;
  ParseProgress progress;
  if (!parse_streaming(text, decoded, ranges, diags, options, out, progress)) {
    parse_buffered(text, decoded, ranges, diags, options, out, progress, errors_before);
  }
  if (diags.error_count() != errors_before) return std::nullopt;
  return out;
}

}  // namespace kdt
