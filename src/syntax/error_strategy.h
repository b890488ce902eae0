// Turns ANTLR's syntax errors into kdt diagnostics with readable messages.
#pragma once

#include <DefaultErrorStrategy.h>

#include <optional>
#include <string>
#include <vector>

#include "source_text.h"

namespace kdt::syntax {

// Pallas (JAX) spellings KD writes differently (issue 12, item 22). For a
// module prefix such as `pl.` or `jnp.` before `name`: the note that names
// the KD form, and in `kd_name` the KD spelling of `module.name` when KD has
// that built-in ("" when it has none). Nothing for other prefixes.
std::optional<std::string> module_prefix_note(const std::string& module, const std::string& name, std::string& kd_name);

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
  // Reports a syntax error, with a note (and a fix-it) where the input is a
  // Pallas spelling: `a @ b`, `for i in range(n)`.
  void report(antlr4::Parser* parser, const antlr4::Token* offending, SourceRange range, std::string message);
  bool quiet(const antlr4::Token* offending) const;
  DiagnosticEngine& diags_;
  const TokenRanges& ranges_;
  std::vector<bool> quiet_;
};

}  // namespace kdt::syntax
