// The one place every stage reports through. It applies -Werror/-w and
// keeps the diagnostics in report order for the consumers.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kdt/diag/diagnostic.h"

namespace kdt {

class DiagnosticEngine;

// What becomes of warnings (GCC's flags): -Werror, -w, and per code
// -WCODE / -Wno-CODE and -Werror=CODE / -Wno-error=CODE, the last flag for
// a code winning; -w silences every warning whatever the rest says.
struct WarningPolicy {
  bool all_errors = false;             // -Werror
  bool silence = false;                // -w
  std::map<DiagCode, bool> enabled;    // -WCODE (true), -Wno-CODE (false)
  std::map<DiagCode, bool> as_error;   // -Werror=CODE (true), -Wno-error=CODE (false)

  // A warning code's severity (Warning or Error); nullopt: not reported.
  std::optional<Severity> severity(DiagCode code) const;
  // Applies one flag, the text after `-W` ("no-unused-binding",
  // "error=asm-cross-lane", "all", ...); false with `error` for a flag
  // that names no warning.
  bool apply(const std::string& flag, std::string& error);
};

// Returned by DiagnosticEngine::report to attach labels, notes and fix-its.
class DiagnosticBuilder {
 public:
  DiagnosticBuilder(DiagnosticEngine* engine, size_t index) : engine_(engine), index_(index) {}
  DiagnosticBuilder& label(SourceRange range, std::string message);
  DiagnosticBuilder& note(std::string message, SourceRange range = {});
  DiagnosticBuilder& fixit(SourceRange range, std::string replacement);

 private:
  Diagnostic* target();
  DiagnosticEngine* engine_;
  // SIZE_MAX when the diagnostic was suppressed (-w).
  size_t index_;
};

class DiagnosticEngine {
 public:
  explicit DiagnosticEngine(const SourceManager& sources) : sources_(sources) {}

  DiagnosticBuilder report(DiagCode code, SourceRange range, std::string message);
  // A builder for diagnostics()[index], one that a helper reported, to add
  // notes and fix-its to it (nothing happens for an index not kept).
  DiagnosticBuilder amend(size_t index) { return {this, index < diagnostics_.size() ? index : SIZE_MAX}; }

  void set_warning_policy(WarningPolicy policy) { warnings_ = std::move(policy); }
  // At most this many diagnostics are kept (hostile or generated input can
  // produce one per token); the rest are counted, and sorted() says so in a
  // note on the last one. Errors are counted either way.
  void set_max_diagnostics(size_t n) { max_diagnostics_ = n; }
  size_t dropped() const { return dropped_; }

  // Notes every diagnostic reported meanwhile carries, innermost last: the
  // call sites on the way into a function instance (spec section 12).
  void push_context(std::string message, SourceRange range) { context_.push_back({std::move(message), range}); }
  void pop_context() { context_.pop_back(); }
  // While on, a diagnostic equal in code, place and message to one already
  // kept is not kept again (an instance of a function rechecks its body).
  void set_report_once(bool on) { report_once_ = on; }
  bool report_once() const { return report_once_; }

  bool has_errors() const { return error_count_ > 0; }
  size_t error_count() const { return error_count_; }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  const SourceManager& sources() const { return sources_; }
  // Diagnostics ordered by file and position, stable for equal positions.
  std::vector<Diagnostic> sorted() const;

 private:
  friend class DiagnosticBuilder;
  const SourceManager& sources_;
  std::vector<Diagnostic> diagnostics_;
  size_t error_count_ = 0;
  WarningPolicy warnings_;
  size_t max_diagnostics_ = 1000;
  size_t dropped_ = 0;
  std::vector<Note> context_;
  bool report_once_ = false;
};

}  // namespace kdt
