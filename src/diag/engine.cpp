#include "kdt/diag/engine.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace kdt {

Diagnostic* DiagnosticBuilder::target() {
  if (index_ == SIZE_MAX) return nullptr;
  return &engine_->diagnostics_[index_];
}

DiagnosticBuilder& DiagnosticBuilder::label(SourceRange range, std::string message) {
  if (Diagnostic* d = target()) d->labels.push_back({range, std::move(message)});
  return *this;
}

DiagnosticBuilder& DiagnosticBuilder::note(std::string message, SourceRange range) {
  if (Diagnostic* d = target()) d->notes.push_back({std::move(message), range});
  return *this;
}

DiagnosticBuilder& DiagnosticBuilder::fixit(SourceRange range, std::string replacement) {
  if (Diagnostic* d = target()) d->fixits.push_back({range, std::move(replacement)});
  return *this;
}

DiagnosticBuilder DiagnosticEngine::report(DiagCode code, SourceRange range, std::string message) {
  Severity severity = diag_info(code).severity;
  if (severity == Severity::Warning) {
    if (ignore_warnings_) return DiagnosticBuilder(this, SIZE_MAX);
    if (warnings_as_errors_) severity = Severity::Error;
  }
  if (report_once_) {
    for (const Diagnostic& d : diagnostics_) {
      if (d.code == code && d.range.file == range.file && d.range.begin == range.begin && d.range.end == range.end &&
          d.message == message) {
        return DiagnosticBuilder(this, SIZE_MAX);
      }
    }
  }
  if (severity == Severity::Error) ++error_count_;
  if (diagnostics_.size() >= max_diagnostics_) {
    ++dropped_;
    return DiagnosticBuilder(this, SIZE_MAX);
  }
  diagnostics_.push_back(Diagnostic{code, severity, std::move(message), range, {}, context_, {}});
  return DiagnosticBuilder(this, diagnostics_.size() - 1);
}

std::vector<Diagnostic> DiagnosticEngine::sorted() const {
  std::vector<Diagnostic> out = diagnostics_;
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.range.file != b.range.file) return a.range.file < b.range.file;
    return a.range.begin < b.range.begin;
  });
  if (dropped_ > 0 && !out.empty()) {
    out.back().notes.push_back({"kdt stopped listing diagnostics after " + std::to_string(diagnostics_.size()) + "; " +
                                    std::to_string(dropped_) + " more are not shown",
                                {}});
  }
  return out;
}

}  // namespace kdt
