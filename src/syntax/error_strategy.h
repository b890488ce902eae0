// Turns ANTLR's syntax errors into kdt diagnostics with readable messages.
#pragma once

#include <DefaultErrorStrategy.h>

#include <vector>

#include "source_text.h"

namespace kdt::syntax {

// Keeps ANTLR's recovery (single-token insertion/deletion, resync) but
// replaces its token dumps with messages such as "expected `;` after the
// statement", placed at the end of the previous token when a token is missing.
class KdErrorStrategy : public antlr4::DefaultErrorStrategy {
 public:
  KdErrorStrategy(DiagnosticEngine& diags, const TokenRanges& ranges) : diags_(diags), ranges_(ranges) {}

  // Tokens (by index) whose syntax errors are only the echo of a lexical
  // error just before them (`x $ 2`, an unterminated string): not reported.
  void set_quiet_tokens(std::vector<bool> quiet) { quiet_ = std::move(quiet); }

 protected:
  void reportNoViableAlternative(antlr4::Parser* parser, const antlr4::NoViableAltException& e) override;
  void reportInputMismatch(antlr4::Parser* parser, const antlr4::InputMismatchException& e) override;
  void reportFailedPredicate(antlr4::Parser* parser, const antlr4::FailedPredicateException& e) override;
  void reportUnwantedToken(antlr4::Parser* parser) override;
  void reportMissingToken(antlr4::Parser* parser) override;

 private:
  void expected_at(antlr4::Parser* parser, const antlr4::Token* offending, const antlr4::misc::IntervalSet& expected);
  bool quiet(const antlr4::Token* offending) const;
  DiagnosticEngine& diags_;
  const TokenRanges& ranges_;
  std::vector<bool> quiet_;
};

}  // namespace kdt::syntax
